"""numba kernels: one turn (`turn`), the DP driver (`sweep`), games and forward passes (`play`).

Import them only where they are called: loading compiled kernels costs time that `yz score` and
`yz advise` never need to spend."""
