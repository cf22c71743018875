"""The convex mapping's passes over row blocks, compiled with numba for large mappings.

The same functions, with the same arguments, as :mod:`._kernels_numpy`; a problem picks
this module where numba is installed and the mapping is large enough to pay for it
(``_COMPILED_ENTRIES`` in :mod:`._problem`, :func:`.._compiled.pick_kernels`). One pass
a row where numpy makes eight (the product with ``P(S | Y)``, the base, the level shift,
the row maximum, the floor, the exponential and the level sums), with
:func:`.._fdlibm.exp` (below one ulp, one ulp from the C library's on about a tenth of
the entries). The kernels release the GIL:
the problem's row threads run them side by side.
"""

import numpy as np

from sklearn_privacy.discrete._convex._kernels_numpy import LOG_FLOOR
from sklearn_privacy.discrete._fdlibm import exp, jit

__all__ = [
    "LOG_FLOOR",
    "block_combination",
    "block_exponentials",
    "block_minima",
    "block_near_row_max",
    "block_scale",
    "row_exponentials",
    "scale_by_level",
]


# -- the functions the first-order path calls (those of ._kernels_numpy) ----------------


def row_exponentials(levels, logits, *, by_cells):
    """``E = exp(max(t - max_u t, LOG_FLOOR))`` of the logits (in place) and its level sums
    (one pass a row; ``by_cells`` is the numpy twin's choice of summation, unused here)."""
    sums = np.empty(levels.shape)
    _row_exponentials(logits, levels.level, sums)
    return logits, sums


def scale_by_level(levels, E, factor, out):
    """``out[k, u] = E[k, u] * factor[k, level[k, u]]`` (``out`` may be ``E``)."""
    _scale_by_level(E, factor, levels.level, out)
    return out


def block_exponentials(levels, i, j, block, p_s_given_y, neg_a, base, shift, out, sums, scratch):
    """Rows ``i:j`` of ``E = exp(max(t - max_u t, LOG_FLOOR))``, ``t = P(S|Y) (-A) + base -
    shift[level]``, into ``out[i:j]``, and their level sums into ``sums[i:j]``."""
    _level_exponentials(
        p_s_given_y[i:j], neg_a, base[i:j], shift, levels.level[i:j], out[i:j], sums[i:j]
    )


def block_scale(levels, i, j, block, E, factor):
    """``E[i:j] *= factor[row, level]`` in place."""
    _scale_by_level(E[i:j], factor[i:j], levels.level[i:j], E[i:j])


def block_minima(levels, i, j, P, B, out, scratch):
    """``out[k, l] = min {(P B)[i + k, u] : level[i + k, u] = l}`` (``inf`` where none)."""
    _level_minima(P[i:j], B, levels.level[i:j], out)


def block_combination(x, a, z, b, scratch):
    """``x = a x + b z`` in place on a block of rows (as numpy rounds it)."""
    _combination(x, a, z, b)


def block_near_row_max(p_s_given_y, neg_a, base, lam_total, distortion, margin, scratch):
    """The entries of a block within ``margin`` of their row's largest logit, by row, then
    column: their rows, columns and logits less that largest."""
    return _entries_near_row_max(p_s_given_y, neg_a, base, lam_total, distortion, margin)


# -- the compiled loops ---------------------------------------------------------------

# Each kernel takes the rows it works on as views (``base[i:j]``, ...): row ``k`` of the
# arguments is one row of the mapping.


@jit
def _product_row(p_s_given_y, k, b, out):
    """``out = P(S | Y)[k] @ b``, summed over ``s`` in order (one pass a row of ``b``)."""
    p, row = p_s_given_y[k, 0], b[0]
    for u in range(out.size):
        out[u] = p * row[u]
    for s in range(1, b.shape[0]):
        p, row = p_s_given_y[k, s], b[s]
        for u in range(out.size):
            out[u] += p * row[u]


@jit
def _level_exponentials(p_s_given_y, neg_a, base, shift, level, out, sums):
    """``E = exp(max(t - max_u t, floor))`` of ``t = P(S|Y) (-A) + base - shift[level]``.

    ``out`` receives ``E`` and ``sums[k, j]`` the sum of row ``k``'s entries at level
    ``j``; ``floor`` is :data:`LOG_FLOOR`.
    """
    partial = np.empty(4 * sums.shape[1])
    for k in range(out.shape[0]):
        t, b, lv = out[k], base[k], level[k]
        _product_row(p_s_given_y, k, neg_a, t)
        for u in range(t.size):
            t[u] = (t[u] + b[u]) - shift[lv[u]]
        _exponentials_of_row(t, lv, sums[k], partial)


@jit
def _exponentials_of_row(t, lv, row_sums, partial):
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
        t[u] = exp(max(t[u] - top, LOG_FLOOR))
    partial[:] = 0.0
    for u in range(n):
        partial[(u & 3) * m + lv[u]] += t[u]
    for j in range(m):
        row_sums[j] = (partial[j] + partial[m + j]) + (partial[2 * m + j] + partial[3 * m + j])


@jit
def _row_exponentials(logits, level, sums):
    """:func:`_level_exponentials` of given logits (in place)."""
    partial = np.empty(4 * sums.shape[1])
    for k in range(logits.shape[0]):
        _exponentials_of_row(logits[k], level[k], sums[k], partial)


@jit
def _level_minima(p_s_given_y, b, level, out):
    """``out[k, j] = min {(P(S|Y) B)[k, u] : level[k, u] = j}`` (``inf`` where row ``k``
    has no entry at level ``j``)."""
    row = np.empty(b.shape[1])
    for k in range(out.shape[0]):
        lv, minima = level[k], out[k]
        _product_row(p_s_given_y, k, b, row)
        minima[:] = np.inf
        for u in range(row.size):
            minima[lv[u]] = min(minima[lv[u]], row[u])


@jit
def _scale_by_level(E, factor, level, out):
    """``out[k, u] = E[k, u] * factor[k, level[k, u]]`` (``out`` may be ``E``)."""
    for k in range(E.shape[0]):
        e, f, lv, o = E[k], factor[k], level[k], out[k]
        for u in range(e.size):
            o[u] = e[u] * f[lv[u]]


@jit
def _combination(x, a, z, b):
    """``x = a x + b z`` in place (as numpy rounds it: ``(x a) + (z b)``)."""
    for k in range(x.shape[0]):
        xr, zr = x[k], z[k]
        for u in range(xr.size):
            xr[u] = xr[u] * a + zr[u] * b


@jit
def _entries_near_row_max(p_s_given_y, neg_a, base, lam_total, distortion, margin):
    """The entries within ``margin`` of their row's largest logit ``P(S|Y) (-A) + base -
    lam_total d``: their rows, columns and logits less that largest, by row, then
    column."""
    n_rows, n_u = base.shape
    t = np.empty((n_rows, n_u))
    count = 0
    for k in range(n_rows):
        row, b, d = t[k], base[k], distortion[k]
        _product_row(p_s_given_y, k, neg_a, row)
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
    for k in range(n_rows):
        for u in range(n_u):
            if t[k, u] >= -margin:
                rows[n], cols[n], logits[n] = k, u, t[k, u]
                n += 1
    return rows, cols, logits
