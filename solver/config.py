"""Tunables of the solver, in one place (they change speed, never results)."""

# Upper-total columns solved side by side in one scratch table (yz.solver.kernels.sweep).
MAX_BATCH_COLS = 256
# Target size of a thread's scratch table: about half of a core's L2 cache here.
SCRATCH_BYTES = 1 << 20
# Games simulated together (their dice are drawn per chunk, so results depend on it: keep it).
SIM_CHUNK_GAMES = 100_000
# States whose keep choices are held at once while simulating or following a strategy, at
# most (4096 x 2 x 252 int32 ~ 8 MB for five dice), and at most CHOICE_BYTES in all.
SIM_STATE_BLOCK = 4096
CHOICE_BYTES = 64 << 20
