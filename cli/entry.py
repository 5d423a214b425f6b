"""The `yz` console script: `cli.main.run`, with the garbage collector set for a command.

Importing the CLI, the rule models and numba, and loading numba's registries and compiled
kernels, makes several hundred thousand objects that live as long as the process. The
collector's default thresholds walk them again and again, about 0.1 s of a 0.55 s start (and
a tenth of a first compile). So the imports run with the collector paused, what they built is
frozen (never walked again), and the command runs with a larger first-generation threshold:
garbage is still collected (a first compile peaks about 8% higher), the walks are just rarer.
Only the console script does this; importing yz as a library leaves the collector alone.
"""

from __future__ import annotations

import gc

COMMAND_THRESHOLDS = (20_000, 10, 10)  # the default first generation is 700 allocations


def main() -> int:
    """Console-script entry point: the exit code of `cli.main.run` (or, for a repeated plain
    `yz solve`, of its remembered answer: `cli.quick`)."""
    import sys

    from .quick import answer

    code = answer(sys.argv[1:]) if sys.stdout is not None else None  # (closed: `run` says)
    if code is not None:
        return code
    gc.disable()
    try:
        from .main import run
    finally:
        gc.freeze()
        gc.set_threshold(*COMMAND_THRESHOLDS)
        gc.enable()
    return run()


if __name__ == "__main__":  # `python -m yz.cli.entry ...` runs as the console script does
    raise SystemExit(main())
