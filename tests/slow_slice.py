"""A fast random slice of the `slow` tests, for CI (`.ci/run`): `YZ_SLOW_SLICE=N` keeps N of
the selected slow tests drawn at random (`YZ_SLICE_SEED` repeats a draw; the draw is printed),
and `YZ_SLOW_EXAMPLES=M` caps each slow property test at M random examples."""

from __future__ import annotations

import os

# Slow tests a slice leaves out: minutes of compiling, whatever their examples.
NOT_IN_A_SLICE = ("test_a_sample_with_bounds_checked_kernels",)


def slow_examples(full: int) -> int:
    """A slow property test's examples: `full`, or fewer in a slice."""
    capped = os.environ.get("YZ_SLOW_EXAMPLES", "")
    return min(full, int(capped)) if capped.isdigit() and int(capped) > 0 else full
