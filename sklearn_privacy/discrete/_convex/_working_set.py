"""The working set of the first-order path: the mirror iterate on the entries that matter.

:class:`WorkingSet` and :func:`entries_near_row_max`; why and how much it saves: design.md.
"""

import numpy as np

from sklearn_privacy.discrete._convex._first_order import (
    _TINY,
    _budget_multiplier,
    budget_newton_step,
)
from sklearn_privacy.discrete._convex._kernels_numpy import LOG_FLOOR

__all__ = ["MARGIN", "WorkingSet", "entries_near_row_max"]

# Entries whose logit is more than this below their row's largest are left out:
# exp(-60) ~ 9e-27, so a row of 10^5 such entries moves its mass by < 1e-21.
MARGIN = 60.0


def entries_near_row_max(problem, base, A, lam_total, margin, *, limit=None, block=64):
    """Entries of ``base - P(S|Y)^T A - lam_total d`` within ``margin`` of their row's largest.

    Parameters
    ----------
    problem : ConvexProblem
        Its ``p_s_given_y`` and ``distortion``; the blocks run on its ``threads``
        (each found alone: the result does not depend on them), on its
        ``kernels`` (compiled: a block in one pass a row).
    base : ndarray of shape (n_y, n_u)
    A : ndarray of shape (n_s, n_u)
    lam_total : float
    margin : float
    limit : int, default=None
        Give up (return ``None``) once more entries than this are found.
    block : int, default=64
        Rows per block (the logits of a block stay in cache).

    Returns
    -------
    rows, cols : ndarray of int
        The entries, sorted by row, then column (every row has one).
    logits : ndarray
        Their logits less their row's largest.
    """
    p_s_given_y, distortion, kernels = problem.p_s_given_y, problem.distortion, problem.kernels
    n_y, n_u = base.shape
    found = [None] * -(-n_y // block)
    n_found = [0]  # a running count for the early stop; the decision below is exact
    neg_a = -A

    def blocks(group):
        scratch = np.empty((min(block, n_y), n_u))
        for i in group:
            if limit is not None and n_found[0] > limit:
                return
            j = min(n_y, i + block)
            r, c, logits = kernels.block_near_row_max(
                p_s_given_y[i:j], neg_a, base[i:j], lam_total, distortion[i:j], margin, scratch
            )
            found[i // block] = (r + i, c, logits)
            n_found[0] += r.size

    problem.threads.run(n_y, block, blocks)
    if any(part is None for part in found):
        return None
    if limit is not None and sum(part[0].size for part in found) > limit:
        return None
    rows, cols, logits = (np.concatenate(parts) for parts in zip(*found))
    return rows, cols, logits


class WorkingSet:
    """Entries ``(y, u)`` of the mapping kept by the sparse steps, sorted by row.

    Parameters
    ----------
    rows, cols : ndarray of int
        The entries, sorted by row; every row has at least one.
    joint : ndarray of shape (n_s, n_y)
    p_s_given_y : ndarray of shape (n_y, n_s)
    distortion : ndarray of shape (n_y, n_u)
    base : ndarray of shape (n_y, n_u)
        The dense logits at the last (re)start, read at the entries.
    levels : DistortionLevels, default=None
        The levels of ``d``, when it has few values: the budget projection then
        works on per-row level sums.
    """

    def __init__(self, rows, cols, joint, p_s_given_y, distortion, base, levels=None):
        self.n_y, self.n_u = distortion.shape
        self.rows, self.cols = rows, cols
        self.flat = rows * self.n_u + cols
        self.base = base.ravel()[self.flat]
        self.d = distortion.ravel()[self.flat]
        counts = np.bincount(rows, minlength=self.n_y)
        if np.any(counts == 0):
            raise ValueError("every row of the working set needs an entry")
        self.counts = counts
        self.starts = np.r_[0, np.cumsum(counts)[:-1]]
        self.p_e = np.ascontiguousarray(p_s_given_y[rows].T)  # (n_s, |E|)
        self.joint_e = np.ascontiguousarray(joint[:, rows])  # (n_s, |E|)
        if levels is not None:
            self.values = levels.values
            self.cell = rows * self.values.size + levels.level.ravel()[self.flat]
        else:
            self.values = self.cell = None

    @property
    def size(self):
        """Number of entries."""
        return self.rows.size

    def restart(self, z, base):
        """A restart from ``z`` (given at the entries): the logits become ``log z``.

        ``base`` (the dense logits) is rewritten to match: ``log z`` less its
        row maxima at the entries, the floor ``-600`` elsewhere (``z`` is 0
        there, and the row softmax floors every logit at 600 below the row's
        largest).
        """
        t = np.log(np.maximum(z, _TINY))
        t -= np.repeat(np.maximum.reduceat(t, self.starts), self.counts)
        np.maximum(t, LOG_FLOOR, out=t)
        self.base = t
        base.fill(LOG_FLOOR)
        base.ravel()[self.flat] = t
        return base

    def dense(self, values):
        """``values`` at the entries as an ``(n_y, n_u)`` array (zeros elsewhere)."""
        out = np.zeros((self.n_y, self.n_u))
        out.ravel()[self.flat] = values
        return out

    def softmax(self, t):
        """Row softmax of values ``t`` at the entries (in place)."""
        t -= np.repeat(np.maximum.reduceat(t, self.starts), self.counts)
        np.maximum(t, LOG_FLOOR, out=t)
        E = np.exp(t, out=t)
        E /= np.repeat(np.add.reduceat(E, self.starts), self.counts)
        return E

    def logits(self, A, lam_total):
        """``base - P(S|Y)^T A - lam_total d`` at the entries."""
        t = self.base.copy()
        for s in range(A.shape[0]):
            t -= self.p_e[s] * np.take(A[s], self.cols)
        if lam_total:
            t -= lam_total * self.d
        return t

    def release(self, values):
        """``joint @ Q`` for ``Q`` given at the entries."""
        return np.stack(
            [
                np.bincount(self.cols, weights=self.joint_e[s] * values, minlength=self.n_u)
                for s in range(self.joint_e.shape[0])
            ]
        )

    def mirror_step(self, A, lam_total, p_y, budget, lam):
        """The projected mirror iterate at the entries: ``(z, lam, joint @ z)``.

        The row softmax of :meth:`logits`, projected onto the budget (the least
        ``lam >= 0``), as :func:`~._first_order.project_levels` does on
        the full matrix; entries outside the set count as 0.
        """
        t = self.logits(A, lam_total)
        t -= np.repeat(np.maximum.reduceat(t, self.starts), self.counts)
        np.maximum(t, LOG_FLOOR, out=t)
        E = np.exp(t, out=t)
        if self.cell is not None:
            m = self.values.size
            sums = np.bincount(self.cell, weights=E, minlength=self.n_y * m).reshape(self.n_y, m)
            lam, factor = _budget_multiplier(sums, self.values, p_y, budget, lam, 1e-9)
            E *= np.take(factor.ravel(), self.cell)
        else:
            E, lam = self._flat_projection(E, p_y, budget, lam)
        return E, lam, self.release(E)

    def _flat_projection(self, E, p_y, budget, lam, rtol=1e-9):
        """The budget projection of the row-normalised ``E`` for a ``d`` of many values."""
        log_e = np.log(np.maximum(E, _TINY))
        d, starts, counts = self.d, self.starts, self.counts
        lo, hi = 0.0, np.inf
        lam = max(float(lam), 0.0)
        for _ in range(100):
            a = log_e - lam * d if lam > 0 else log_e.copy()
            a -= np.repeat(np.maximum.reduceat(a, starts), counts)
            w = np.exp(a, out=a)
            z = np.add.reduceat(w, starts)
            mean = np.add.reduceat(w * d, starts) / z
            excess = float(p_y @ mean) - budget
            if (excess <= 0 and lam == 0) or abs(excess) <= rtol * budget:
                break
            var = np.add.reduceat(w * d * d, starts) / z - mean**2
            slope = float(p_y @ np.maximum(var, 0.0))
            lam, lo, hi = budget_newton_step(lam, excess, slope, lo, hi)
        w /= np.repeat(z, counts)
        return w, lam
