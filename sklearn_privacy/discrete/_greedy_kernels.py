"""The greedy funnel's pair costs, compiled with numba for large alphabets.

The same functions, with the same arguments, as :mod:`._greedy_kernels_numpy`; a greedy
state picks this module where numba is installed and an alphabet is large enough to pay
for it (``_COMPILED_WORK`` in :mod:`._greedy`, :func:`._compiled.pick_kernels`). A greedy
state uses one logarithm throughout:
every cost, potential and ``x log x`` of a compiled state comes from
:func:`._fdlibm.log` (numpy's from the C library differs by one ulp on a few inputs,
and equal columns must get bitwise equal costs wherever they are computed). The
kernels release the GIL: the greedy's threads run them side by side.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from sklearn_privacy.discrete._fdlibm import jit, log
from sklearn_privacy.discrete._greedy_kernels_numpy import (
    BOTTLENECK,
    FUNNEL,
    LAM_BOTTLENECK,
    LAM_FUNNEL,
)

__all__ = [
    "BOTTLENECK",
    "FUNNEL",
    "LAM_BOTTLENECK",
    "LAM_FUNNEL",
    "initial_costs",
    "merged_potentials",
    "potentials",
    "workspace",
    "xlogx",
]

# Fewest rows a thread of the initial costs takes.
_ROWS_A_THREAD = 256


# -- the functions the greedy calls (those of ._greedy_kernels_numpy) -----------------


def potentials(joint, Q, tiny):
    """``phi`` and ``p log p`` of the single columns of ``Q`` (``joint`` over its column
    sums), by the kernels' logarithm."""
    n = Q.shape[1]
    phi, h = np.empty(n), np.empty(n)
    _merged_potentials(Q, np.zeros(Q.shape[0]), tiny, 0, n, phi, h)
    return phi, h


def workspace(shape):
    """No work array (the kernels keep their temporaries in registers)."""
    return None


def merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m, work):
    """``phi`` and ``p log p`` of the columns ``lo:hi`` of ``Q`` each merged with ``q``,
    into ``phi_m[lo:hi]`` and ``h_m[lo:hi]`` (one pass a row of ``Q``)."""
    _merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m)


def initial_costs(Q, phi, h, D, off, best_val, best_col, n_jobs, mode, lam, tiny):
    """Every row of the packed triangle ``D`` and its best pair (:func:`_initial_rows`),
    thread ``k`` of ``n_jobs`` taking rows ``k, k + n_jobs, ...``."""
    n_jobs = min(n_jobs, max(1, Q.shape[1] // _ROWS_A_THREAD))
    with ThreadPoolExecutor(n_jobs) as pool:
        list(
            pool.map(
                lambda first: _initial_rows(
                    Q, phi, h, D, off, best_val, best_col, first, n_jobs, mode, lam, tiny
                ),
                range(n_jobs),
            )
        )


# -- the compiled loops ---------------------------------------------------------------


@jit
def xlogx(x, tiny, out):
    """``x log(x + tiny)`` of every entry of ``x`` (1-D)."""
    for i in range(x.size):
        out[i] = x[i] * log(x[i] + tiny)


# The loops below run over 1-D slices from index 0: LLVM vectorises those, not the same
# loops over ``range(lo, hi)`` of a 2-D array (whose index it cannot prove non-negative).


@jit
def _merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m):
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
def _initial_rows(Q, phi, h, D, off, best_val, best_col, first, step, mode, lam, tiny):
    """Rows ``first, first + step, ...`` of the packed triangle ``D`` and their best pairs.

    Row ``t`` stores the pairs ``(t, c > t)`` at ``D[off[t] + c - t - 1]``: the
    leakage decrease ``max((phi_t + phi_c) - phi_tc, 0)``, or in the Lagrangian
    modes the gain; ``best_val[t], best_col[t]`` is its first largest gain (the
    disclosure decrease in :data:`BOTTLENECK` mode).
    """
    n = Q.shape[1]
    phi_m, h_m, dx = np.empty(n), np.empty(n), np.empty(n)
    for t in range(first, n - 1, step):
        _merged_potentials(Q, Q[:, t], tiny, t + 1, n, phi_m, h_m)
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
