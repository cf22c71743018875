"""The greedy funnel's pair costs, compiled with numba for large alphabets.

Loaded only where numba is installed and an alphabet is large enough to pay for it
(``_COMPILED_WORK`` in :mod:`._greedy`). A greedy state uses one logarithm throughout:
every cost, potential and ``x log x`` of a compiled state comes from
:func:`._fdlibm.log` (numpy's from the C library differs by one ulp on a few inputs,
and equal columns must get bitwise equal costs wherever they are computed). The
kernels release the GIL: the greedy's threads run them side by side.
"""

import numpy as np

from sklearn_privacy.discrete._fdlibm import jit, log

# The greedy's modes: what a row stores and what it maximises ("Greedy funnel", design.md).
FUNNEL, BOTTLENECK, LAM_FUNNEL, LAM_BOTTLENECK = 0, 1, 2, 3


@jit
def xlogx(x, tiny, out):
    """``x log(x + tiny)`` of every entry of ``x`` (1-D)."""
    for i in range(x.size):
        out[i] = x[i] * log(x[i] + tiny)


# The loops below run over 1-D slices from index 0: LLVM vectorises those, not the same
# loops over ``range(lo, hi)`` of a 2-D array (whose index it cannot prove non-negative).


@jit
def merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m):
    """``phi`` and ``p log p`` of the columns ``lo:hi`` of ``Q`` each merged with ``q``.

    ``phi = sum_s m_s log(m_s + tiny) - m_p log(m_p + tiny)`` of the merged column
    ``m``, summed in the order of ``s``; one pass a row of ``Q``.
    """
    last = Q.shape[0] - 1
    phi, h = phi_m[lo:hi], h_m[lo:hi]
    row, qs = Q[0, lo:hi], q[0]
    for c in range(row.size):
        m = row[c] + qs
        phi[c] = m * log(m + tiny)
    for s in range(1, last):
        row, qs = Q[s, lo:hi], q[s]
        for c in range(row.size):
            m = row[c] + qs
            phi[c] += m * log(m + tiny)
    row, qs = Q[last, lo:hi], q[last]
    for c in range(row.size):
        m = row[c] + qs
        h[c] = m * log(m + tiny)
        phi[c] -= h[c]


@jit
def initial_rows(Q, phi, h, D, off, best_val, best_col, first, step, mode, lam, tiny):
    """Rows ``first, first + step, ...`` of the packed triangle ``D`` and their best pairs.

    Row ``t`` stores the pairs ``(t, c > t)`` at ``D[off[t] + c - t - 1]``: the
    leakage decrease ``max((phi_t + phi_c) - phi_tc, 0)``, or in the Lagrangian
    modes the gain; ``best_val[t], best_col[t]`` is its first largest gain (the
    disclosure decrease in :data:`BOTTLENECK` mode).
    """
    n = Q.shape[1]
    phi_m, h_m, dx = np.empty(n), np.empty(n), np.empty(n)
    for t in range(first, n - 1, step):
        merged_potentials(Q, Q[:, t], tiny, t + 1, n, phi_m, h_m)
        stored = D[off[t] : off[t] + n - t - 1]
        phi_c, pm, h_c, hm, d = phi[t + 1 :], phi_m[t + 1 :], h[t + 1 :], h_m[t + 1 :], dx[t + 1 :]
        phi_t, h_t = phi[t], h[t]
        for c in range(stored.size):
            stored[c] = max((phi_t + phi_c[c]) - pm[c], 0.0)
        if mode != FUNNEL:
            for c in range(d.size):
                d[c] = hm[c] - (h_t + h_c[c])
        if mode == LAM_FUNNEL:
            for c in range(d.size):
                stored[c] = d[c] * -lam + stored[c]
        elif mode == LAM_BOTTLENECK:
            for c in range(d.size):
                stored[c] = d[c] * lam - stored[c]
        gains = d if mode == BOTTLENECK else stored
        k = 0
        for c in range(1, gains.size):
            if gains[c] > gains[k]:
                k = c
        best_val[t], best_col[t] = gains[k], t + 1 + k
