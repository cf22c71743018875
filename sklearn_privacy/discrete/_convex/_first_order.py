"""Building blocks of the first-order path: KL projections onto the budget, dual bounds.

The steps the loops of :mod:`._first_order_loops` repeat, on plain arrays, for any distortion
matrix and through the levels of ``d`` (:class:`DistortionLevels`) on factored iterates.
The passes over the levels run on the kernels their problem picked when it was built
(:mod:`._kernels_numpy`, or its compiled twin :mod:`._kernels`): the blocks and the
threads are here, the arithmetic of a block there.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_info

from sklearn_privacy.discrete._convex import _kernels_numpy
from sklearn_privacy.discrete._convex._kernels_numpy import LOG_FLOOR

__all__ = [
    "DistortionLevels",
    "RowThreads",
    "blocked_combination",
    "budget_projection",
    "dual_bound",
    "dual_bound_levels",
    "maximise_concave",
    "mirror_step_levels",
    "project_levels",
    "softmax_rows",
]

_TINY = 1e-300
# Largest number of distinct distortion values handled by level sums.
MAX_LEVELS = 32


class RowThreads:
    """Threads for the row blocks of a pass over the mapping, or none (``n == 1``).

    :meth:`run` hands each thread a contiguous group of blocks; a block is
    computed alone, so the result does not depend on the grouping (to the bit).
    """

    def __init__(self, n=1):
        self.n = n
        self.pool = ThreadPoolExecutor(n) if n > 1 else None

    @classmethod
    def allowed(cls):
        """As many threads as threadpoolctl's limits give the BLAS (all cores unless the
        user limits them), to be read before the loops limit the BLAS to one thread.

        The largest count of the BLAS libraries loaded: ``threadpool_limits(n)`` sets them
        all to ``n``, while a library built for one thread (SCS's, loaded with cvxpy) says
        1 whatever the user allows.
        """
        counts = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        return cls(max(1, max(counts)) if counts else 1)

    def run(self, n_rows, block, work):
        """``work(starts)`` over the block starts ``range(0, n_rows, block)``."""
        starts = range(0, n_rows, block)
        n_groups = min(self.n, len(starts))
        if n_groups <= 1:
            work(starts)
            return
        edges = np.linspace(0, len(starts), n_groups + 1).astype(int)
        list(self.pool.map(work, [starts[a:b] for a, b in zip(edges[:-1], edges[1:])]))

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()


SERIAL = RowThreads()


class DistortionLevels:
    """The distinct values of ``d`` and, per row, which entries take each of them.

    Parameters
    ----------
    distortion : ndarray of shape (n_y, n_u)
        The distortion matrix.
    values : ndarray of shape (n_levels,)
        Its distinct values, sorted.
    inverse : ndarray of shape (n_y, n_u)
        The index into ``values`` of each entry.

    Attributes
    ----------
    kernels : module
        The passes over these levels (:mod:`._kernels_numpy` unless the problem that
        owns them picked the compiled :mod:`._kernels`).
    """

    def __init__(self, distortion, values, inverse):
        n_y, n_u = distortion.shape
        m = values.size
        self.values = values
        self.shape = (n_y, m)
        level = inverse.reshape(n_y, n_u)
        counts = np.bincount(level.ravel(), minlength=m)
        # Levels with few entries (the diagonal of Hamming) are handled through
        # their indices; the others through a 0/1 mask (one pass each, made when
        # first needed: the first-order loops use the cell index instead).
        small = counts <= n_y * n_u // 16
        self._dominant = int(np.argmax(counts))
        small[self._dominant] = False
        self.sparse = {}
        for j in np.flatnonzero(small):
            flat = np.flatnonzero(level == j)
            self.sparse[int(j)] = (flat, flat // n_u)
        self._dense_levels = [int(j) for j in np.flatnonzero(~small)]
        self._masks = None
        self._block_cells = None
        self._lock = threading.Lock()
        self.kernels = _kernels_numpy
        # The flat index of each entry's (row, level) cell in an (n_y, n_levels) table.
        index = np.int32 if n_y * m < 2**31 else np.int64
        self.cell = np.arange(n_y, dtype=index)[:, None] * m + level.astype(index)
        self._cell_scale = len(self._dense_levels) > 1
        self.level = level.astype(np.uint8)
        self._segments = None  # the level-sorted order of each row (level_segments)
        # d - d_dominant per level: the row softmaxes only need d up to a constant.
        self.shift = values - values[self._dominant]

    def block_cells(self, block):
        """Per entry, its cell ``(row - block start) * n_levels + level`` (made once per
        ``block``): the index into a block's ``(rows, n_levels)`` table."""
        with self._lock:  # the row threads' first blocks ask at once
            if self._block_cells is None or self._block_cells[0] != block:
                n_y, m = self.shape
                rows = (np.arange(n_y, dtype=np.intp) % block)[:, None]
                self._block_cells = (block, rows * m + self.level)
            return self._block_cells[1]

    @property
    def masks(self):
        """``{level: 0/1 float mask}`` of the levels with many entries (made once)."""
        if self._masks is None:
            self._masks = {j: (self.level == j).astype(float) for j in self._dense_levels}
        return self._masks

    def sums(self, A):
        """Per row and level, the sum of the entries of ``A`` at that level."""
        out = np.zeros(self.shape)
        flat_a = A.ravel()
        for j, (flat, rows) in self.sparse.items():
            out[:, j] = np.bincount(rows, weights=flat_a[flat], minlength=self.shape[0])
        for j, mask in self.masks.items():
            out[:, j] = np.einsum("ij,ij->i", A, mask)
        return out

    def cell_sums(self, A):
        """:meth:`sums` through the cell index: one ``bincount``, no masks."""
        n_y, m = self.shape
        return np.bincount(self.cell.ravel(), weights=A.ravel(), minlength=n_y * m).reshape(n_y, m)

    def minima(self, A):
        """Per row and level, the least entry of ``A`` at that level (``inf`` if none)."""
        out = np.full(self.shape, np.inf)
        flat_a = A.ravel()
        for j, (flat, rows) in self.sparse.items():
            np.minimum.at(out[:, j], rows, flat_a[flat])
        for j, mask in self.masks.items():
            out[:, j] = np.where(mask > 0, A, np.inf).min(axis=1)
        return out

    def level_segments(self):
        """Each row's entries in the order of their level, made once: ``(order, starts,
        nonempty)``, ``starts[k, l]`` where level ``l`` begins in row ``k``'s order and
        ``nonempty[k, l]`` whether it has an entry."""
        with self._lock:  # the row threads' first blocks ask at once
            if self._segments is None:
                self._segments = self._level_segments()
        return self._segments

    def _level_segments(self):
        m = self.shape[1]
        n_u = self.level.shape[1]
        index = np.int16 if n_u <= np.iinfo(np.int16).max else np.intp
        order = np.argsort(self.level, axis=1, kind="stable").astype(index)
        counts = np.zeros(self.shape, dtype=np.intp)
        for k in range(m):
            counts[:, k] = np.count_nonzero(self.level == k, axis=1)
        return order, np.cumsum(counts, axis=1) - counts, counts > 0

    def minima_of_product(self, P, B, *, block=64, threads=SERIAL):
        """``self.minima(P @ B)`` without forming ``P @ B``: row blocks kept in cache.

        Each block is one call of :attr:`kernels`' ``block_minima`` (numpy: two passes
        over a block instead of three per level; compiled: one pass a row); the blocks
        run on ``threads`` (:class:`RowThreads`).
        """
        n_y = self.shape[0]
        out = np.empty(self.shape)

        def blocks(group):
            scratch = np.empty((min(block, n_y), B.shape[1]))
            for i in group:
                j = min(n_y, i + block)
                self.kernels.block_minima(self, i, j, P, B, out[i:j], scratch)

        threads.run(n_y, block, blocks)
        return out

    def add_scaled(self, A, c):
        """``A += c (d - d_dominant)`` in place: ``c d`` up to a constant per row.

        The constant does not change a row softmax; the dominant level needs no
        pass, the small ones only their entries.
        """
        if c == 0:
            return A
        dominant = self._dominant
        flat_a = A.ravel()
        for j, (flat, _) in self.sparse.items():
            flat_a[flat] += c * (self.values[j] - self.values[dominant])
        for j in self._dense_levels:
            if j != dominant:
                A += (c * (self.values[j] - self.values[dominant])) * self.masks[j]
        return A

    def scale(self, E, factor, out):
        """``out = E * factor[row, level]`` for a table ``factor`` of shape (n_y, n_levels)."""
        if self._cell_scale:
            return np.multiply(E, np.take(factor.ravel(), self.cell), out=out)
        (j,) = self._dense_levels
        np.multiply(E, factor[:, j : j + 1], out=out)
        flat_e, flat_out = E.ravel(), out.ravel()
        for k, (flat, rows) in self.sparse.items():
            flat_out[flat] = flat_e[flat] * factor[rows, k]
        return out

    @classmethod
    def of(cls, distortion, max_levels=MAX_LEVELS):
        """The levels of ``distortion``, or ``None`` when it has more than ``max_levels`` values.

        Parameters
        ----------
        distortion : ndarray of shape (n_y, n_u)
            The distortion matrix.
        max_levels : int, default=32
            Largest number of distinct values accepted.

        Returns
        -------
        DistortionLevels or None
        """
        flat = distortion.ravel()
        # A cheap look at a sample first: a matrix of many values is not sorted in full.
        values = np.unique(flat[:: max(1, flat.size // 4096)])
        while values.size <= max_levels:
            # Each entry's value among those seen (a binary search, no sort of the
            # whole matrix); values the sample missed are added and searched again.
            inverse = np.minimum(np.searchsorted(values, flat), values.size - 1)
            missed = values[inverse] != flat
            if not missed.any():
                return cls(distortion, values, inverse)
            values = np.union1d(values, np.unique(flat[missed]))
        return None


def _level_moments(log_sums, values, lam):
    """Per row: ``log Z``, ``E[d]`` and ``Var[d]`` under weights ``exp(log_sums - lam d)``."""
    a = log_sums - lam * values
    top = a.max(axis=1, keepdims=True)
    w = np.exp(a - top)
    z = w.sum(axis=1, keepdims=True)
    w /= z
    mean = w @ values
    var = w @ (values * values) - mean**2
    return (top + np.log(z)).ravel(), mean, np.maximum(var, 0.0)


def softmax_rows(z):
    """Row softmax of ``z``; logits more than 600 below their row's top count as 600 below."""
    z = np.maximum(z - z.max(axis=1, keepdims=True), LOG_FLOOR)
    Q = np.exp(z)
    Q /= Q.sum(axis=1, keepdims=True)
    return Q


def budget_projection(logits, distortion, p_y, budget, lam, *, distortion_sq=None, rtol=1e-9):
    """KL projection of ``softmax(logits)`` onto ``E[d] <= budget``.

    The projection is ``softmax(logits - lam * d)`` with the least ``lam >= 0``
    that meets the budget; ``lam`` is found by safeguarded Newton steps
    (``dE/dlam = -sum_y p_y Var_{Q_y}(d)``) from the warm start ``lam``. The
    budget is met to ``rtol * budget``: the iterates need no more, and the
    returned mapping is made exactly feasible by
    :func:`~sklearn_privacy.discrete._convex._problem._clean_mapping`. The twin
    of :func:`project_levels` for a matrix ``d`` of many distinct values.
    """
    if distortion_sq is None:
        distortion_sq = distortion * distortion
    lo, hi = 0.0, np.inf
    lam = max(float(lam), 0.0)
    for _ in range(100):
        Q = softmax_rows(logits - lam * distortion if lam > 0 else logits)
        rows = np.einsum("ij,ij->i", Q, distortion)
        excess = float(p_y @ rows) - budget
        if (excess <= 0 and lam == 0) or abs(excess) <= rtol * budget:
            return Q, lam
        if excess > 0:
            lo = lam
        else:
            hi = lam
        slope = float(p_y @ (np.einsum("ij,ij->i", Q, distortion_sq) - rows**2))
        new = lam + excess / max(slope, _TINY)
        if not lo < new < hi:
            new = 0.5 * (lo + hi) if np.isfinite(hi) else max(2.0 * lam, lam + 1.0)
        lam = new
    return Q, lam


def project_levels(logits, levels, p_y, budget, lam, *, rtol=1e-9, out=None, by_cells=False):
    """KL projection of ``softmax(logits)`` onto ``E[d] <= budget`` through level sums.

    Parameters
    ----------
    logits : ndarray of shape (n_y, n_u)
        Row logits (overwritten).
    levels : DistortionLevels
        The levels of ``d``.
    p_y : ndarray of shape (n_y,)
        Weights of the rows.
    budget : float
        The budget on ``sum_y p_y E_{Q_y}[d]``.
    lam : float
        Warm start of the multiplier.
    rtol : float, default=1e-9
        Relative accuracy on the budget.
    out : ndarray of shape (n_y, n_u), default=None
        Where to write the projection.
    by_cells : bool, default=False
        Sum the levels through the cell index (one ``bincount``) rather than
        the per-level masks, which are then never made (three full float
        arrays on Adult); the sums round differently. On the compiled
        ``levels.kernels`` the exponentials and their level sums take one pass a
        row, the scaling another (and ``by_cells`` is moot).

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
        ``softmax(logits - lam d)`` with the least ``lam >= 0`` meeting the budget.
    lam : float
    """
    E, sums = levels.kernels.row_exponentials(levels, logits, by_cells=by_cells)
    lam, factor = _budget_multiplier(sums, levels.values, p_y, budget, lam, rtol)
    Q = out if out is not None else np.empty_like(E)
    return levels.kernels.scale_by_level(levels, E, factor, Q), lam


def budget_newton_step(lam, excess, slope, lo, hi):
    """One Newton step on the budget multiplier, kept inside the bracket ``(lo, hi)``.

    ``excess`` is the expected distortion at ``lam`` minus the budget (it
    falls as ``lam`` grows) and ``slope`` minus its derivative (the variance of
    the distortion). Returns the next ``lam`` and the narrowed bracket; a step
    that leaves the bracket bisects it (or doubles ``lam`` while it is open).
    """
    if excess > 0:
        lo = lam
    else:
        hi = lam
    new = lam + excess / max(slope, _TINY)
    if not lo < new < hi:
        new = 0.5 * (lo + hi) if np.isfinite(hi) else max(2.0 * lam, lam + 1.0)
    return new, lo, hi


def _budget_multiplier(sums, values, p_y, budget, lam, rtol):
    """The least ``lam >= 0`` meeting the budget, from the per-row level sums of ``E``.

    Returns ``lam`` and the table ``exp(-lam d_j - log Z_y)`` (shape ``(n_y, n_levels)``)
    by which ``E`` is multiplied, entry by entry, to give the projection.
    """
    with np.errstate(divide="ignore"):
        log_sums = np.log(sums)
    lo, hi = 0.0, np.inf
    lam = max(float(lam), 0.0)
    for _ in range(200):
        log_z, mean, var = _level_moments(log_sums, values, lam)
        excess = float(p_y @ mean) - budget
        if (excess <= 0 and lam == 0) or abs(excess) <= rtol * budget:
            break
        lam, lo, hi = budget_newton_step(lam, excess, float(p_y @ var), lo, hi)
    # Q = E exp(-lam d) / Z_y: one factor per row and level, at most 1 / min(E) (finite).
    return lam, np.exp(-lam * values[None, :] - log_z[:, None])


def mirror_step_levels(problem, base, A, lam_total, lam, *, out, scratch=None, block=32):
    """The projected mirror iterate ``softmax(base - P(S|Y)^T A - lam_total d)``, by row blocks.

    The same as ``project_levels(base - p_s_given_y @ A - lam_total (d - d_0), ...)``
    (``d_0`` the dominant level, a constant per row), computed in blocks of
    ``block`` rows: the logits, their exponential and the level sums of a block
    stay in cache, so the step makes two passes over memory instead of about
    a dozen (Adult's 2142 symbols with five levels of ``d``: 1.5 times faster).
    With a single dense level (one-column Hamming: only the diagonal differs)
    the full-array path is cheaper (a broadcast factor instead of a gather)
    and is taken instead.

    Parameters
    ----------
    problem : ConvexProblem
        The problem (its ``levels`` are not None); the budget is its own.
    base : ndarray of shape (n_y, n_u)
        Log of the mirror iterate at the last (re)start.
    A : ndarray of shape (n_s, n_u)
        Sum of the scaled log-posteriors since the last (re)start.
    lam_total : float
        Budget multipliers accumulated since the last (re)start.
    lam : float
        Warm start of the multiplier.
    out : ndarray of shape (n_y, n_u)
        Where to write the projection.
    scratch : ndarray of shape (n_y, n_u), default=None
        Work array of the full-array path (allocated when needed and not given).
    block : int, default=32
        Rows per block.

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
        ``out``.
    lam : float
    release : ndarray of shape (n_s, n_u)
        ``joint @ Q``.
    """
    levels, p_s_given_y, joint = problem.levels, problem.p_s_given_y, problem.joint
    p_y, budget = problem.p_y, problem.budget
    n_y, n_u = base.shape
    if not levels._cell_scale:
        logits = np.matmul(p_s_given_y, -A, out=scratch)
        logits += base
        levels.add_scaled(logits, -lam_total)
        Q, lam = project_levels(logits, levels, p_y, budget, lam, out=out)
        return Q, lam, joint @ Q
    sums = np.empty((n_y, levels.values.size))
    neg_a = -A
    shift = lam_total * levels.shift
    kernels = problem.kernels

    def exponentials(group):
        scratch = np.empty((min(block, n_y), n_u))
        for i in group:
            j = min(n_y, i + block)
            kernels.block_exponentials(
                levels, i, j, block, p_s_given_y, neg_a, base, shift, out, sums, scratch
            )

    problem.threads.run(n_y, block, exponentials)
    lam, factor = _budget_multiplier(sums, levels.values, p_y, budget, lam, 1e-9)
    return out, lam, _scaled_release(problem, out, factor, block)


def _scaled_release(problem, E, factor, block):
    """``E *= factor[row, level]`` by row blocks on the problem's threads, and ``joint @ E``
    with each block's share summed in the order of the blocks (to the bit, whatever the
    threads)."""
    joint, n_y = problem.joint, E.shape[0]
    shares = [None] * -(-n_y // block)

    def scale(group):
        for i in group:
            j = min(n_y, i + block)
            problem.kernels.block_scale(problem.levels, i, j, block, E, factor)
            shares[i // block] = joint[:, i:j] @ E[i:j]

    problem.threads.run(n_y, block, scale)
    release = np.zeros((joint.shape[0], E.shape[1]))
    for share in shares:
        release += share
    return release


def blocked_combination(x, a, z, b, *, scratch, block=32, threads=SERIAL, kernels=_kernels_numpy):
    """``x = a x + b z`` in place, by row blocks (one pass over memory) on ``threads``; the
    same to the bit on either ``kernels`` (:mod:`._kernels_numpy`, :mod:`._kernels`)."""
    n_y = x.shape[0]

    def blocks(group):
        for i in group:
            j = min(n_y, i + block)
            kernels.block_combination(x[i:j], a, z[i:j], b, scratch[i:j])

    threads.run(n_y, block, blocks)
    return x


def dual_bound(G, distortion, p_y, budget, h_s, lam_hint):
    """Lagrange dual bound on the optimum from the posteriors behind ``G``.

    For any posteriors ``p(s|u)`` (``G[y, u] = sum_s p(s|y) log p(s|u)``) and
    ``lam >= 0``, ``OPT >= H(S) + sum_y p_y min_u [G + lam d] - lam budget``
    (weak duality: ``-H(S|U) = max_r sum J log r``). The bound is concave and
    piecewise linear in ``lam``: maximised by bisection on its slope. The twin
    of :func:`dual_bound_levels` for a matrix ``d`` of many distinct values.
    """
    rows = np.arange(G.shape[0])

    def value_slope(lam):
        A = G + lam * distortion
        best = A.argmin(axis=1)
        return (
            h_s + float(p_y @ A[rows, best]) - lam * budget,
            float(p_y @ distortion[rows, best]) - budget,
        )

    return maximise_concave(value_slope, max(lam_hint, 1e-3), n_bracket=60, n_bisect=40, rtol=0.0)


def dual_bound_levels(row_minima, values, p_y, budget, h_s):
    """Lagrange dual bound ``max_lam H(S) + sum_y p_y min_u [G + lam d] - lam budget``.

    Parameters
    ----------
    row_minima : ndarray of shape (n_y, n_levels)
        Per row and level of ``d``, the least ``G[y, u]`` (``inf`` where the row
        has no entry at that level).
    values : ndarray of shape (n_levels,)
        The levels of ``d``.
    p_y : ndarray of shape (n_y,)
        Weights of the rows.
    budget : float
        The distortion budget.
    h_s : float
        ``H(S)``.

    Returns
    -------
    float
        The bound, maximised over ``lam >= 0`` (concave, piecewise linear:
        bisection on its slope).
    """
    rows = np.arange(row_minima.shape[0])

    def value_slope(lam):
        A = row_minima + lam * values
        best = A.argmin(axis=1)
        return h_s + float(p_y @ A[rows, best]) - lam * budget, float(p_y @ values[best]) - budget

    return maximise_concave(value_slope)


def maximise_concave(value_slope, start=1.0, *, n_bracket=200, n_bisect=100, rtol=1e-13):
    """Largest value seen while maximising a concave function of ``lam >= 0`` by its slope.

    ``value_slope(lam)`` returns the value and a (super)gradient. The step from
    0 doubles from ``start`` until the slope turns non-positive, then the
    bracket is bisected; every evaluated value is a valid (dual) bound, so the
    best one is returned.
    """
    value, slope = value_slope(0.0)
    if slope <= 0:
        return value
    best_value, lo, hi = value, 0.0, start
    for _ in range(n_bracket):
        value, slope = value_slope(hi)
        best_value = max(best_value, value)
        if slope <= 0:
            break
        lo, hi = hi, 2.0 * hi
    for _ in range(n_bisect):
        mid = 0.5 * (lo + hi)
        value, slope = value_slope(mid)
        best_value = max(best_value, value)
        if slope > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= rtol * max(1.0, hi):
            break
    return best_value
