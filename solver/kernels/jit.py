"""The one decorator of yz's numba kernels, and where their compiled code is cached.

numba's disk cache checks only the source file a function is defined in, so a kernel compiled
in one file from another file's functions would keep running the old code after that other file
changed. Every kernel is therefore cached in a folder named by a hash of *all* kernel sources
(this package): an edit anywhere starts a new folder, so nothing stale is ever loaded.

The folder is `$NUMBA_CACHE_DIR/yz-kernels-<hash>` when numba's own variable is set, else
`<user cache>/yz/kernels/yz-kernels-<hash>` (platformdirs' user cache folder). It does not follow
`YZ_CACHE_DIR`, which holds solved strategies: compiled code is shared by every strategy
cache, test and worker on the machine. numba would file a kernel under a sub-folder named by
the folder yz is installed in; `KernelLocator` files it in that folder itself, so a second
installation of the same yz (another virtual environment, another path) finds what the first
compiled, as the compile markers (`kernel_cache.compiled`) say.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np
from numba.core.caching import CacheImpl, UserProvidedCacheLocator
from numba.extending import register_jitable

from ..kernel_cache import DEBUG_KERNELS, KERNEL_CACHE_DIR, KERNEL_DIR
from . import rule, state, ties


class KernelLocator(UserProvidedCacheLocator):
    """Where numba caches a yz kernel: `KERNEL_CACHE_DIR` itself, named by the kernels'
    sources (and numba's version), not by the folder they are installed in. numba still
    checks each entry against its source file's content (a SHA-256) before using it."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(KERNEL_CACHE_DIR)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.exists(py_file) or Path(py_file).resolve().parent != KERNEL_DIR:
            return None  # (not one of yz's kernels: numba's own locators decide)
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


if KernelLocator not in CacheImpl._locator_classes:
    CacheImpl._locator_classes.insert(0, KernelLocator)


def kernel(fn=None, **options):
    """`numba.njit(cache=True, **options)`, cached under `KERNEL_CACHE_DIR` (`KernelLocator`).
    With `YZ_DEBUG_KERNELS=1` every kernel checks its array indices (`boundscheck`)."""

    def decorate(func):
        if DEBUG_KERNELS:
            options.setdefault("boundscheck", True)
        return numba.njit(cache=True, **options)(func)

    return decorate if fn is None else decorate(fn)


prange = numba.prange

ZERO = np.int64(0)  # a zero of the type every score has (a literal 0 would make numba
# compile a second version of each function it is passed to)
NO = np.bool_(False)  # the same for False


@kernel(inline="always")
def unsigned(i):
    """Index i as an unsigned integer, for a column or store index that runs with a loop.

    numba wraps a signed index that may be negative on every access. For X[r, off + j] that
    turns a loop's contiguous loads and stores into gathers and scatters: measured 2 ns an
    entry, against 0.3 ns for the same loop with an unsigned index, which is never wrapped.
    (Mixed with a signed integer in arithmetic an unsigned one becomes a float: convert last.)
    """
    return np.uint64(i)


# The tie rule (`solver.kernels.ties`, plain Python for the NumPy advisor), compiled.
better = kernel(inline="always")(ties.better)

# The state's scalar half and the rule of a turn's end (`state`, `rule`: plain Python, also run
# by the advisor), compiled wherever a kernel calls them: numba looks a plain function up among
# the registered ones, so the kernels call the very functions the advisor calls, inlined.
for _function in (*state.SCALAR, *rule.SCALAR):
    register_jitable(_nrt=False)(_function)
