"""numba kernels, by job (`solver.problem` hands them their bundles):

    state, rule   the turn-start state's scalar half and the rule of a turn's end: plain
                  Python, compiled here (`jit`) and run as it is by the advisor
    final, keeps  a turn's final rolls (every box) and its re-roll stages (keep averages, the
                  best keep)
    layer         the drivers: a layer of states, batch by batch (values, decisions)
    outcomes      where a turn leads under recorded choices (the forward pass)
    play          simulated games, and the forward pass's convolutions
    ties          the tie rule; optional, bundle, jit: payloads that may be absent, the
                  argument bundles, the one decorator

Import them only where they are called: loading compiled kernels costs time that `yz score` and
`yz advise` never need to spend (`state`, `rule` and `ties` import no numba)."""
