"""The convex mapping's mirror step on row blocks, compiled with numba for large mappings.

Loaded only where numba is installed and the mapping is large enough to pay for it
(``_COMPILED_ENTRIES`` in :mod:`._problem`). One pass a row where numpy makes eight
(the product with ``P(S | Y)``, the base, the level shift, the row maximum, the floor,
the exponential and the level sums), with :func:`.._fdlibm.exp` (below one ulp, one ulp
from the C library's on about a tenth of the entries). The kernels release the GIL:
the problem's row threads run them side by side.
"""

import numpy as np

from sklearn_privacy.discrete._fdlibm import exp, jit


@jit
def _product_row(p_s_given_y, y, b, out):
    """``out = P(S | Y)[y] @ b``, summed over ``s`` in order (one pass a row of ``b``)."""
    p, row = p_s_given_y[y, 0], b[0]
    for u in range(out.size):
        out[u] = p * row[u]
    for s in range(1, b.shape[0]):
        p, row = p_s_given_y[y, s], b[s]
        for u in range(out.size):
            out[u] += p * row[u]


@jit
def level_exponentials(p_s_given_y, neg_a, base, shift, level, floor, lo, hi, out, sums):
    """Rows ``lo:hi`` of ``E = exp(max(t - max_u t, floor))``, ``t = P(S|Y) (-A) + base - shift``.

    ``shift[level[y, u]]`` is subtracted from each entry; ``out`` receives ``E`` and
    ``sums[y, j]`` the sum of row ``y``'s entries at level ``j``.
    """
    partial = np.empty(4 * sums.shape[1])
    for y in range(lo, hi):
        t, b, lv, row_sums = out[y], base[y], level[y], sums[y]
        _product_row(p_s_given_y, y, neg_a, t)
        for u in range(t.size):
            t[u] = (t[u] + b[u]) - shift[lv[u]]
        _exponentials_of_row(t, lv, floor, row_sums, partial)


@jit
def _exponentials_of_row(t, lv, floor, row_sums, partial):
    """``t = exp(max(t - max(t), floor))`` in place; ``row_sums[j]`` its sum at level ``j``.

    The maximum and the sums go four ways (``partial``: four rows of ``n_levels``),
    so that no addition waits on the one before it: twice as fast on a row of
    one dominant level (Hamming).
    """
    n, m = t.size, row_sums.size
    top0 = top1 = top2 = top3 = t[0]
    for u in range(0, n - 3, 4):
        top0, top1 = max(top0, t[u]), max(top1, t[u + 1])
        top2, top3 = max(top2, t[u + 2]), max(top3, t[u + 3])
    top = max(max(top0, top1), max(top2, top3))
    for u in range(n - n % 4, n):
        top = max(top, t[u])
    for u in range(n):
        t[u] = exp(max(t[u] - top, floor))
    partial[:] = 0.0
    for u in range(n):
        partial[(u & 3) * m + lv[u]] += t[u]
    for j in range(m):
        row_sums[j] = (partial[j] + partial[m + j]) + (partial[2 * m + j] + partial[3 * m + j])


@jit
def row_exponentials(logits, level, floor, sums):
    """:func:`level_exponentials` of given logits, every row (in place)."""
    partial = np.empty(4 * sums.shape[1])
    for y in range(logits.shape[0]):
        _exponentials_of_row(logits[y], level[y], floor, sums[y], partial)


@jit
def level_minima(p_s_given_y, b, level, lo, hi, scratch, out):
    """Rows ``lo:hi`` of ``out[y, j] = min {(P(S|Y) B)[y, u] : level[y, u] = j}`` (``inf``
    where the row has no entry at level ``j``); ``scratch`` holds one row."""
    for y in range(lo, hi):
        lv, minima = level[y], out[y]
        _product_row(p_s_given_y, y, b, scratch)
        minima[:] = np.inf
        for u in range(scratch.size):
            minima[lv[u]] = min(minima[lv[u]], scratch[u])


@jit
def scale_by_level(E, factor, level, lo, hi, out):
    """``out[y, u] = E[y, u] * factor[y, level[y, u]]`` for the rows ``lo:hi`` (``out`` may
    be ``E``)."""
    for y in range(lo, hi):
        e, f, lv, o = E[y], factor[y], level[y], out[y]
        for u in range(e.size):
            o[u] = e[u] * f[lv[u]]


@jit
def combination(x, a, z, b, lo, hi):
    """``x = a x + b z`` in place for the rows ``lo:hi`` (as numpy rounds it: ``(x a) + (z b)``)."""
    for y in range(lo, hi):
        xr, zr = x[y], z[y]
        for u in range(xr.size):
            xr[u] = xr[u] * a + zr[u] * b


@jit
def entries_near_row_max(p_s_given_y, neg_a, base, lam_total, distortion, margin, lo, hi):
    """The entries of rows ``lo:hi`` within ``margin`` of their row's largest logit
    ``P(S|Y) (-A) + base - lam_total d``: their rows, columns and logits less that
    largest, by row, then column."""
    n_u = neg_a.shape[1]
    t = np.empty((hi - lo, n_u))
    count = 0
    for k in range(hi - lo):
        row, b, d = t[k], base[lo + k], distortion[lo + k]
        _product_row(p_s_given_y, lo + k, neg_a, row)
        for u in range(n_u):
            row[u] += b[u]
        if lam_total:
            for u in range(n_u):
                row[u] -= lam_total * d[u]
        top = row[0]
        for u in range(1, n_u):
            top = max(top, row[u])
        for u in range(n_u):
            row[u] -= top
            count += row[u] >= -margin
    rows, cols, logits = np.empty(count, np.int64), np.empty(count, np.int64), np.empty(count)
    n = 0
    for k in range(hi - lo):
        for u in range(n_u):
            if t[k, u] >= -margin:
                rows[n], cols[n], logits[n] = lo + k, u, t[k, u]
                n += 1
    return rows, cols, logits
