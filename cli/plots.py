"""Plots of score distributions (matplotlib, the `plot` extra), and the check that a plot's
path can be written before any work starts."""

from __future__ import annotations

import os


def check_plot_target(path: str) -> None:
    """Fail before any work if the plot cannot be written (no matplotlib, bad folder)."""
    from pathlib import Path

    from yz.rules.errors import InputError

    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InputError(f"--plot: '{path}' should be a .png file name.")
    if target.is_dir():
        raise InputError(f"--plot: '{path}' is a folder; give a file name ending in .png.")
    if target.parent.exists() and not target.parent.is_dir():
        raise InputError(f"--plot: '{target.parent}' is a file, not a folder; give another "
                         "path.")
    if not target.parent.is_dir():
        raise InputError(f"--plot: the folder '{target.parent}' does not exist; create it or "
                         "give another path.")
    if not os.access(target.parent, os.W_OK):
        raise InputError(f"--plot: the folder '{target.parent}' is not writable; give another "
                         "path.")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("--plot needs matplotlib, which is not installed: run "
                         "pip install matplotlib (or pip install '.[plot]' in yz's source "
                         "folder), or leave out --plot for the histogram in the terminal."
                         ) from None


def plot_histogram(path: str, scores, counts, title: str, exact_mean: float | None,
                   sample_mean: float | None = None, ylabel: str = "games") -> None:
    """A PNG bar chart of how often each score came (counts may be probabilities)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(9, 5))
    scores = np.asarray(scores)
    width = 5
    edges = np.arange(scores.min() // width * width, scores.max() + 2 * width, width)
    binned, _ = np.histogram(scores, bins=edges, weights=counts)
    ax.bar(edges[:-1], binned, width=width, align="edge", color="#4c72b0")
    if exact_mean is not None:
        ax.axvline(exact_mean, color="#c44e52", linewidth=2,
                   label=f"exact mean {exact_mean:.2f}")
    if sample_mean is not None:
        ax.axvline(sample_mean, color="#55a868", linestyle="--",
                   label=f"sample mean {sample_mean:.2f}")
    ax.set_xlabel("final score")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if exact_mean is not None or sample_mean is not None:
        ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        from yz.rules.errors import InputError

        raise InputError(f"--plot: could not write '{path}' ({exc.strerror or exc}); the "
                         "figures above are unaffected.") from None
    finally:
        plt.close(fig)
