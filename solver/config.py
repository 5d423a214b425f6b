"""Tunables of the solver, in one place (they change speed, never results)."""

# Upper-total columns solved side by side in one scratch table (see solver.kernels.solve_layer).
MAX_BATCH_COLS = 256
# Target size of a thread's scratch table: about half of a core's L2 cache here.
SCRATCH_BYTES = 1 << 20
