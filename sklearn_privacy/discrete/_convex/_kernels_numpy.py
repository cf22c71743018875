"""The convex mapping's passes over row blocks in numpy: the twin of :mod:`._kernels`.

The same functions, with the same arguments, as the compiled module; a
:class:`~._problem.ConvexProblem` picks one of the two when it is built
(:func:`.._compiled.pick_kernels`) and the first-order path calls whichever it holds.
Each pass makes several sweeps over a block (the product with ``P(S | Y)``, the shift,
the row maximum, the floor, the exponential, the level sums) where the compiled one
makes one; the logarithms and exponentials are the C library's through numpy.
"""

import numpy as np

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

#: exp(-600) ~ 1e-261: entries below it are zero for every purpose here, and keeping
#: them out of the subnormal range keeps the matrix products fast. Both implementations
#: floor every logit at this many nats below its row's largest.
LOG_FLOOR = -600.0


def row_exponentials(levels, logits, *, by_cells):
    """``E = exp(max(t - max_u t, LOG_FLOOR))`` of the logits (in place) and its level sums.

    ``by_cells`` sums through the cell index (one ``bincount``) rather than the
    per-level masks (:meth:`~._first_order.DistortionLevels.sums`): the sums round
    differently. Returns ``(E, sums)``, ``sums`` of shape ``levels.shape``.
    """
    logits -= logits.max(axis=1, keepdims=True)
    np.maximum(logits, LOG_FLOOR, out=logits)
    E = np.exp(logits, out=logits)
    return E, levels.cell_sums(E) if by_cells else levels.sums(E)


def scale_by_level(levels, E, factor, out):
    """``out[k, u] = E[k, u] * factor[k, level[k, u]]`` (``out`` may be ``E``)."""
    return levels.scale(E, factor, out)


def block_exponentials(levels, i, j, block, p_s_given_y, neg_a, base, shift, out, sums, scratch):
    """Rows ``i:j`` of ``E = exp(max(t - max_u t, LOG_FLOOR))``, ``t = P(S|Y) (-A) + base -
    shift[level]``, into ``out[i:j]``, and their level sums into ``sums[i:j]``.

    ``i`` is a multiple of ``block`` (the rows' cells come from
    :meth:`~._first_order.DistortionLevels.block_cells`); ``scratch`` holds at least
    ``j - i`` rows.
    """
    m = levels.values.size
    t = np.matmul(p_s_given_y[i:j], neg_a, out=scratch[: j - i])
    t += base[i:j]
    if shift.any():
        t -= np.take(shift, levels.level[i:j])
    t -= t.max(axis=1, keepdims=True)
    np.maximum(t, LOG_FLOOR, out=t)
    E = np.exp(t, out=out[i:j])
    local = levels.block_cells(block)[i:j]
    sums[i:j] = np.bincount(local.ravel(), weights=E.ravel(), minlength=(j - i) * m).reshape(
        j - i, m
    )


def block_scale(levels, i, j, block, E, factor):
    """``E[i:j] *= factor[row, level]`` in place (``i`` a multiple of ``block``)."""
    E[i:j] *= np.take(factor[i:j].ravel(), levels.block_cells(block)[i:j])


def block_minima(levels, i, j, P, B, out, scratch):
    """``out[k, l] = min {(P B)[i + k, u] : level[i + k, u] = l}`` (``inf`` where none).

    Each row's entries are gathered in the order of their level (a permutation made
    once, :meth:`~._first_order.DistortionLevels.level_segments`), so that one
    ``minimum.reduceat`` gives the least entry of every level.
    """
    order, segments, nonempty = levels.level_segments()
    n_u = order.shape[1]
    G = np.matmul(P[i:j], B, out=scratch[: j - i])
    ordered = np.take_along_axis(G, order[i:j], axis=1)
    nonempty = nonempty[i:j]
    starts = (segments[i:j] + n_u * np.arange(j - i)[:, None])[nonempty]
    out.fill(np.inf)
    out[nonempty] = np.minimum.reduceat(ordered.ravel(), starts)


def block_combination(x, a, z, b, scratch):
    """``x = a x + b z`` in place on a block of rows (``scratch`` the shape of ``x``)."""
    t = np.multiply(z, b, out=scratch)
    x *= a
    x += t


def block_near_row_max(p_s_given_y, neg_a, base, lam_total, distortion, margin, scratch):
    """The entries of a block within ``margin`` of their row's largest logit
    ``P(S|Y) (-A) + base - lam_total d``: their rows, columns and logits less that largest,
    by row, then column (``scratch`` holds at least the block's rows)."""
    t = np.matmul(p_s_given_y, neg_a, out=scratch[: base.shape[0]])
    t += base
    if lam_total:
        t -= lam_total * distortion
    t -= t.max(axis=1, keepdims=True)
    r, c = np.nonzero(t >= -margin)
    return r, c, t[r, c]
