"""A fast random slice of the `slow` tests, for CI (`.ci/run`): `YZ_SLOW_SLICE=N` keeps N of
the selected slow tests drawn at random (`YZ_SLICE_SEED` repeats a draw; the draw is printed),
and `YZ_SLOW_EXAMPLES=M` caps each slow property test at M random examples."""

from __future__ import annotations

import os

# Slow tests a slice leaves out: minutes whatever their examples (compiling every kernel with
# bounds checks; solving Yatzy with saved rolls into a store).
NOT_IN_A_SLICE = ("test_a_sample_with_bounds_checked_kernels",
                  "test_a_thousand_positions_of_yatzy_with_saved_rolls")


def slow_examples(full: int) -> int:
    """A slow property test's examples: `full`, or fewer in a slice."""
    capped = os.environ.get("YZ_SLOW_EXAMPLES", "")
    return min(full, int(capped)) if capped.isdigit() and int(capped) > 0 else full
