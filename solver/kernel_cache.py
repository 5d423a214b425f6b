"""Where yz's compiled kernels are cached (`solver.kernels.jit` explains why), without
importing numba: `yz advise` asks whether they are compiled without paying for numba."""

from __future__ import annotations

import functools
import hashlib
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


def kernel_sources_hash(folder: Path = KERNEL_DIR) -> str:
    """SHA-256 (first 16 hex digits) of every kernel module's source (those in `folder`), in
    name order, and of numba's version."""
    try:
        numba_version = version("numba")
    except PackageNotFoundError:  # numba imported from a source tree
        numba_version = "unknown"
    h = hashlib.sha256(f"numba-{numba_version}".encode())
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def kernel_cache_root() -> Path:
    """The folder that holds one sub-folder of compiled kernels per kernel-source hash."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("yz", appauthor=False)) / "kernels"


# YZ_DEBUG_KERNELS=1 compiles every kernel with numba's bounds checking (an index outside an
# array raises IndexError instead of reading a neighbour's memory), into a folder of its own.
DEBUG_KERNELS = os.environ.get("YZ_DEBUG_KERNELS", "") not in ("", "0")
KERNEL_CACHE_DIR = kernel_cache_root() / (
    f"yz-kernels-{kernel_sources_hash()}" + ("-boundscheck" if DEBUG_KERNELS else ""))


@functools.cache
def _families_hash() -> str:
    """SHA-256 (first 12 hex digits) of the part of `warmup.py` that runs each family's work
    (`tiny_problem` to `missing`): a family that compiles one more specialisation of unchanged
    kernels is not compiled yet; an edit elsewhere in the file (its time tables) changes
    nothing."""
    text = (Path(__file__).resolve().parent / "warmup.py").read_text(encoding="utf-8")
    start, end = text.find("\ndef tiny_problem("), text.find("\ndef missing(")
    if 0 <= start < end:
        text = text[start:end]
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _marker(mode: str) -> Path:
    return KERNEL_CACHE_DIR / f"compiled-{mode}-{_families_hash()}"


def compiled(mode: str) -> bool:
    """Whether the kernels of one kind of work (`solver.warmup.FAMILIES`) are compiled."""
    return _marker(mode).exists()


def mark_compiled(mode: str) -> None:
    try:
        KERNEL_CACHE_DIR.mkdir(parents=True, exist_ok=True)
        _marker(mode).touch()
    except OSError:
        pass  # a read-only cache: numba recompiles next time anyway
