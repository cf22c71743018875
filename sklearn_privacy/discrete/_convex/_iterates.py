"""The iterates of the average-leakage loop, one class per representation of the mapping.

Each holds the averaged iterate ``x`` and the mirror iterate ``z`` and answers the same few
methods: :meth:`mirror_step`, :meth:`accept`, :meth:`restart`, :meth:`narrowed` and the two
that copy ``x`` or ``z`` out; the loop keeps only the momentum, the restarts and the certificate.
"""

import numpy as np

from sklearn_privacy.discrete._convex._first_order import (
    _TINY,
    blocked_combination,
    mirror_step_levels,
)
from sklearn_privacy.discrete._convex._working_set import (
    MARGIN,
    WorkingSet,
    entries_near_row_max,
)

__all__ = ["full_iterate"]

# The working set starts once at most this fraction of the entries of z lie
# within MARGIN of their row's largest, tested every SWITCH_EVERY full steps;
# on the working set, the entries that come near are added every CHECK_EVERY.
SWITCH_FRACTION = 0.1
SWITCH_EVERY = 5
CHECK_EVERY = 10


def full_iterate(problem, x, *, by_cells):
    """The full-matrix iterate of ``problem`` started at ``x``: through level sums when ``d``
    has few values, else dense (``by_cells``: how the level projection sums, see
    :meth:`~._problem.ConvexProblem.project`)."""
    if problem.levels is not None:
        return LevelIterate(problem, x, by_cells=by_cells)
    return DenseIterate(problem, x, by_cells=by_cells)


class _FullIterate:
    """``x`` and ``z = softmax(base - P(S|Y)^T A - lam_total d)`` (projected) as full arrays.

    ``base`` holds ``log z`` at the last (re)start; ``A`` (kept by the loop) the
    scaled log-posteriors since.
    """

    check_period = SWITCH_EVERY

    def __init__(self, problem, x, *, by_cells):
        self.problem, self.x, self.by_cells = problem, x, by_cells
        self.base = np.log(np.maximum(x, _TINY))
        self.z, self.spare = x.copy(), np.empty_like(x)
        self.lam_total = 0.0

    def accept(self, z_new, theta, lam_z):
        """``x = (1 - theta) x + theta z_new``; ``z_new`` (the spare array) becomes ``z``."""
        problem = self.problem
        blocked_combination(
            self.x, 1.0 - theta, z_new, theta,
            scratch=problem.scratch, threads=problem.threads, kernels=problem.kernels,
        )  # fmt: skip
        self.z, self.spare = z_new, self.z
        self._add_multiplier(lam_z)

    def restart(self):
        """Momentum restarted from ``x``: ``z = x``, ``base = log x``, no multiplier."""
        np.copyto(self.z, self.x)
        np.log(np.maximum(self.x, _TINY, out=self.base), out=self.base)
        self.lam_total = 0.0
        return self

    def write_x(self, out):
        """Copy ``x`` into ``out``."""
        np.copyto(out, self.x)

    def keep_z(self, out):
        """Copy ``z`` into ``out`` and return None (no entries to keep apart)."""
        np.copyto(out, self.z)

    def narrowed(self, A):
        """The working-set iterate when at most ``SWITCH_FRACTION`` of the entries of ``z``
        lie within ``MARGIN`` of their row's largest, else None."""
        limit = int(SWITCH_FRACTION * self.x.size)
        return WorkingSetIterate.near(self, A, self.lam_total, 1.0, limit)


class DenseIterate(_FullIterate):
    """The full iterate for a ``d`` of many values: the multipliers folded into ``base``."""

    def mirror_step(self, A, lam):
        """``(z_new, lam, joint @ z_new)``, ``z_new`` written into the spare array."""
        problem = self.problem
        logits = np.matmul(problem.p_s_given_y, -A, out=problem.scratch)
        logits += self.base
        z_new, lam = problem.project(logits, lam, out=self.spare, by_cells=self.by_cells)
        return z_new, lam, problem.joint @ z_new

    def _add_multiplier(self, lam_z):
        if lam_z > 0:
            self.base -= np.multiply(self.problem.distortion, lam_z, out=self.problem.scratch)


class LevelIterate(_FullIterate):
    """The full iterate through the levels of ``d``: row blocks, multipliers in ``lam_total``."""

    def mirror_step(self, A, lam):
        """``(z_new, lam, joint @ z_new)`` by :func:`~._first_order.mirror_step_levels`."""
        scratch = self.problem.scratch
        return mirror_step_levels(
            self.problem, self.base, A, self.lam_total, lam, out=self.spare, scratch=scratch
        )

    def _add_multiplier(self, lam_z):
        self.lam_total += lam_z


class WorkingSetIterate:
    """``z`` on the entries of a :class:`~._working_set.WorkingSet`, ``x`` kept as ``c * x``.

    The dense ``x`` and ``base`` are those of the full iterate, which a restart
    goes back to; one scalar ``c`` scales ``x`` so that a step touches only the
    entries.
    """

    check_period = CHECK_EVERY

    def __init__(self, full, near, c, lam_total):
        problem = self.problem = full.problem
        self.full, self.x, self.c, self.lam_total = full, full.x, c, lam_total
        rows, cols, logits = near
        self.ws = WorkingSet(
            rows,
            cols,
            problem.joint,
            problem.p_s_given_y,
            problem.distortion,
            full.base,
            problem.levels,
        )
        self.z = self.ws.softmax(logits)

    @classmethod
    def near(cls, full, A, lam_total, c, limit=None):
        """The iterate on the entries near their row's largest (None past ``limit``)."""
        problem = full.problem
        found = entries_near_row_max(problem, full.base, A, lam_total, MARGIN, limit=limit)
        return None if found is None else cls(full, found, c, lam_total)

    @property
    def size(self):
        """Number of entries."""
        return self.ws.size

    def release(self):
        """``joint @ z``."""
        return self.ws.release(self.z)

    def mirror_step(self, A, lam):
        """``(z_new, lam, joint @ z_new)`` at the entries."""
        problem = self.problem
        return self.ws.mirror_step(A, self.lam_total, problem.p_y, problem.budget, lam)

    def accept(self, z_new, theta, lam_z):
        """``x = (1 - theta) x + theta z_new`` through ``c``, then ``z = z_new``."""
        self.c *= 1.0 - theta
        if self.c < 1e-200:
            self.x *= self.c
            self.c = 1.0
        self.x.ravel()[self.ws.flat] += (theta / self.c) * z_new
        self.z = z_new
        self.lam_total += lam_z

    def restart(self):
        """Back to full steps from ``x`` (:meth:`_FullIterate.restart`)."""
        self.x *= self.c
        return self.full.restart()

    def write_x(self, out):
        """Write ``c * x`` into ``out``."""
        np.multiply(self.x, self.c, out=out)

    def keep_z(self, out):
        """``z`` as ``(flat indices, values)`` (``out`` untouched)."""
        return self.ws.flat, self.z.copy()

    def narrowed(self, A):
        """The working set again, with the entries that came near."""
        return WorkingSetIterate.near(self.full, A, self.lam_total, self.c)
