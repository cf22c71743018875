"""The greedy funnel's pair costs in numpy: the twin of :mod:`._greedy_kernels`.

The same functions, with the same arguments, as the compiled module; a greedy state
picks one of the two when it is built (:func:`._compiled.pick_kernels`) and takes every
potential, cost and ``x log x`` from it: numpy's logarithm is the C library's, the
compiled one fdlibm's, and equal columns must get bitwise equal costs wherever they are
computed, so a state never mixes them.
"""

import functools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_privacy.information import column_potentials

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

# The greedy's modes: what a row stores and what it maximises ("Greedy funnel", design.md).
FUNNEL, BOTTLENECK, LAM_FUNNEL, LAM_BOTTLENECK = 0, 1, 2, 3
# Elements (|S| + 1 per pair) per call when the initial costs are computed:
# small enough for the temporaries to stay in cache; one row at a time above it.
_KERNEL_ELEMENTS = 1 << 17
# Rows shorter than this are computed several at once (Python overhead per row).
_SHORT_ROW = 256


def potentials(joint, Q, tiny):
    """``phi`` and ``p log p`` of the single columns (``Q``: ``joint`` over its column sums)."""
    return column_potentials(joint), xlogx(Q[-1], tiny, np.empty(Q.shape[1]))


def xlogx(x, tiny, out):
    """``x log(x + tiny)`` of every entry of ``x`` (1-D) into ``out`` (which may be ``x``)."""
    logs = np.add(x, tiny)
    np.log(logs, out=logs)
    return np.multiply(x, logs, out=out)


def workspace(shape):
    """The work array :func:`merged_potentials` needs for a ``Q`` of this shape."""
    return np.empty((2, *shape))


def merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m, work):
    """``phi`` and ``p log p`` of the columns ``lo:hi`` of ``Q`` each merged with ``q``,
    into ``phi_m[lo:hi]`` and ``h_m[lo:hi]``; ``tiny`` is added inside the logarithms
    unless it is 0 (no entry is small enough for it to matter)."""
    m = hi - lo
    merged = np.add(Q[:, lo:hi], q[:, None], out=work[0][:, :m])
    _, h = _potentials(merged, work[1][:, :m], phi_m[lo:hi], tiny)
    h_m[lo:hi] = h


def _potentials(merged, logs, phi_m, tiny):
    """``phi`` and ``p log p`` of merged columns (stacked along axis 0), in place.

    ``phi(q) = sum_s q log q - p log p`` summed in the order of ``s``, so that equal
    columns get bitwise equal costs wherever they stand.
    """
    if tiny:
        np.add(merged, tiny, out=logs)
        np.log(logs, out=logs)
    else:
        np.log(merged, out=logs)
    np.multiply(merged, logs, out=logs)
    np.add.reduce(logs[:-1], axis=0, out=phi_m)
    np.subtract(phi_m, logs[-1], out=phi_m)
    return phi_m, logs[-1]


def _gain(ds, dx, mode, lam, out):
    """The Lagrangian modes' gain of pairs of leakage decrease ``ds`` and disclosure
    decrease ``dx`` (written into ``out``)."""
    if mode == LAM_FUNNEL:
        g = np.multiply(dx, -lam, out=out)
        return np.add(g, ds, out=g)
    g = np.multiply(dx, lam, out=out)
    return np.subtract(g, ds, out=g)


def initial_costs(Q, phi, h, D, off, best_val, best_col, n_jobs, mode, lam, tiny):
    """Every row of the packed triangle ``D`` and its best pair.

    Row ``t`` stores the pairs ``(t, c > t)`` at ``D[off[t] + c - t - 1]``: the
    leakage decrease ``max((phi_t + phi_c) - phi_tc, 0)``, or in the Lagrangian
    modes the gain; ``best_val[t], best_col[t]`` is its first largest gain (the
    disclosure decrease in :data:`BOTTLENECK` mode). The long rows are spread over
    ``n_jobs`` threads, thread ``k`` taking rows ``k, k + n_jobs, ...``: a row is
    computed alone, so the costs do not depend on the thread count; the short rows
    go several at once.
    """
    n = Q.shape[1]
    rows = functools.partial(_initial_rows, Q, phi, h, D, off, best_val, best_col, mode, lam, tiny)
    n_long = max(0, n - _SHORT_ROW)  # rows t < n_long have n - t - 1 >= _SHORT_ROW
    n_jobs = min(n_jobs, max(1, n_long // _SHORT_ROW))
    if n_jobs == 1:
        rows(range(n_long))
    else:
        with threadpool_limits(1), ThreadPoolExecutor(n_jobs) as pool:
            list(pool.map(rows, [range(k, n_long, n_jobs) for k in range(n_jobs)]))
    t = n_long
    while t < n - 1:
        t = _initial_block(Q, phi, h, D, off, best_val, best_col, mode, lam, tiny, t)


def _initial_rows(Q, phi, h, D, off, best_val, best_col, mode, lam, tiny, rows):
    """The long rows ``rows``, one at a time, on buffers of their own."""
    depth, n = Q.shape
    merged, logs = np.empty((depth, n)), np.empty((depth, n))
    phi_m, dx = np.empty(n), np.empty(n)
    for t in rows:
        m = n - t - 1
        # (phi_t + phi_c) - phi_tc, clipped at 0, the order of the square version.
        mg = np.add(Q[:, t : t + 1], Q[:, t + 1 :], out=merged[:, :m])
        pm, hm = _potentials(mg, logs[:, :m], phi_m[:m], tiny)
        seg = D[off[t] : off[t] + m]
        np.add(phi[t], phi[t + 1 :], out=seg)
        np.subtract(seg, pm, out=seg)
        np.maximum(seg, 0.0, out=seg)
        gain = seg
        if mode != FUNNEL:
            d = np.add(h[t], h[t + 1 :], out=dx[:m])
            np.subtract(hm, d, out=d)
            if mode == BOTTLENECK:
                gain = d
            else:
                seg[:] = _gain(seg, d, mode, lam, out=d)
        c = int(gain.argmax())
        best_val[t], best_col[t] = gain[c], t + 1 + c


def _initial_block(Q, phi, h, D, off, best_val, best_col, mode, lam, tiny, start):
    """The short rows from ``start`` on, several at once (square blocks); the next start."""
    depth, n = Q.shape
    m = n - start
    rows = max(1, min(n - 1 - start, _KERNEL_ELEMENTS // (depth * m)))
    stop = start + rows
    shape = (depth, rows, m)
    merged = np.add(Q[:, start:stop, None], Q[:, None, start:])
    phi_m, h_m = _potentials(merged, np.empty(shape), np.empty(shape[1:]), tiny)
    ds = phi[start:stop, None] + phi[None, start:] - phi_m
    np.maximum(ds, 0.0, out=ds)
    stored = gain = ds
    if mode != FUNNEL:
        dx = np.subtract(h_m, h[start:stop, None] + h[None, start:])
        if mode == BOTTLENECK:
            gain = dx
        else:
            stored = gain = _gain(ds, dx, mode, lam, out=dx)
    for k in range(rows):
        t = start + k
        D[off[t] : off[t] + n - t - 1] = stored[k, k + 1 :]
        right = gain[k, k + 1 :]
        c = int(right.argmax())
        best_val[t], best_col[t] = right[c], t + 1 + c
    return stop
