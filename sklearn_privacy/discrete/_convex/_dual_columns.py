"""Thm. 2's lower end from the exact Lagrange dual of a level, solved on a few pairs.

At a level ``eps`` (``delta = H(S) - eps``) the least distortion is, by Gibbs and
Sion's minimax (design.md),
``max_{lam >= 0, r} sum_y p_y min_u (d[y, u] + lam_u (delta + sum_s p(s|y) log r(s|u)))``,
concave in ``(lam_u, a_u = lam_u log r(.|u))``: a conic program with an exponential
cone per ``(s, u)``. :class:`LevelDual` solves it with the ``min_u`` over a set of
pairs ``(y, u)`` only and adds the pairs whose constraint the solution breaks
(column generation on the primal); every output, those no mapping uses included,
keeps its own ``lam_u`` and ``r(.|u)``. Whatever the pairs, the solution's exact
value over every pair (:func:`~._max_leakage.cut_certificate`) bounds the least
distortion from below: above the budget, the level is proved infeasible.

:func:`dual_lower_end` climbs from below by Newton's method on the least distortion,
convex and decreasing in ``eps`` (a maximum of functions affine in ``delta``): the
tangent's root lies below the optimum, so every level it visits is certified.
"""

import warnings

import numpy as np
from scipy import sparse

from sklearn_privacy.discrete._convex._max_leakage import cut_certificate
from sklearn_privacy.discrete._convex._problem import _say

__all__ = ["LevelDual", "dual_lower_end"]

# Pairs added per row and round (the most violated), and rounds per level.
_PER_ROW = 8
_ROUNDS = 8
# Conic programs in all, over every level.
_MAX_SOLVES = 16
# Slack below Gibbs' bound when the solution's r(.|u) become cuts.
_LOG_SLACK = 1e-12


class LevelDual:
    """The dual of one level on the pairs ``(rows, cols)``, grown by column generation.

    Parameters
    ----------
    problem : ConvexProblem
    pairs : tuple of ndarray
        ``(rows, cols)``: the ``(y, u)`` whose constraints start in the program.
    """

    def __init__(self, problem, pairs):
        self.problem = problem
        n_y, n_u = problem.distortion.shape
        # The closest input of every output and output of every input, so that each
        # row and each output keeps a constraint; and every row into the output of
        # least expected distortion: that mapping (a release independent of S) meets
        # every level, so the program on the pairs is never unbounded.
        pool = int(np.argmin(problem.p_y @ problem.distortion))
        base = np.r_[
            problem.distortion.argmin(axis=0) * n_u + np.arange(n_u),
            np.arange(n_y) * n_u + problem.distortion.argmin(axis=1),
            np.arange(n_y) * n_u + pool,
        ]
        self.keys = np.unique(np.r_[pairs[0] * n_u + pairs[1], base])
        self.n_solves = 0

    def certify(self, eps):
        """Column generation at ``eps``: ``(certificate, slope)``, or ``None`` unsolved.

        ``certificate`` is the exact dual value less the budget (positive: ``eps``
        is below the optimum); ``slope`` is ``sum_u lam_u P(U=u)`` at the last
        solution, minus the derivative of the least distortion in ``eps``.
        Stops when the certificate is positive and within 10 % of the program's
        own value, when no pair is violated, or after ``_ROUNDS`` rounds.
        """
        problem = self.problem
        delta = problem.h_s - eps
        out = None
        for _ in range(_ROUNDS):
            if self.n_solves >= _MAX_SOLVES:
                break
            solved = self._solve(delta)
            self.n_solves += 1
            if solved is None:
                break
            value, lam, a, flows = solved
            certificate, violated = self._price(delta, lam, a)
            out = certificate, float(lam @ flows)
            excess = value - problem.budget
            if (certificate > 0 and excess - certificate < 0.1 * certificate) or not violated.size:
                break
            self.keys = np.unique(np.r_[self.keys, violated])
        return out

    def _solve(self, delta):
        """The conic program on the pairs: ``(value, lam, a, P(U=u))`` or ``None``."""
        import cvxpy as cp

        problem = self.problem
        p_s_given_y, p_y = problem.p_s_given_y, problem.p_y
        n_y, n_s = p_s_given_y.shape
        n_u = problem.distortion.shape[1]
        rows, cols = self.keys // n_u, self.keys % n_u
        m = rows.size
        at = np.arange(m)
        # z_y - delta lam_u - sum_s p(s|y) a[s, u] <= d[y, u], with a stored s-major.
        A = sparse.csr_matrix(
            (
                p_s_given_y[rows].ravel(),
                (np.repeat(at, n_s), (np.arange(n_s)[None, :] * n_u + cols[:, None]).ravel()),
            ),
            shape=(m, n_s * n_u),
        )
        E_z = sparse.csr_matrix((np.ones(m), (at, rows)), shape=(m, n_y))
        E_lam = sparse.csr_matrix((np.ones(m), (at, cols)), shape=(m, n_u))
        z, lam = cp.Variable(n_y), cp.Variable(n_u)
        a, w = cp.Variable((n_s, n_u)), cp.Variable((n_s, n_u))
        pairs = (
            E_z @ z - delta * (E_lam @ lam) - A @ cp.vec(a, order="C")
            <= (problem.distortion[rows, cols])
        )
        # lam_u exp(a[s, u] / lam_u) <= w[s, u] and sum_s w[s, u] <= lam_u: r sums to 1.
        spread = np.ones((n_s, 1)) @ cp.reshape(lam, (1, n_u), order="C")
        constraints = [pairs, cp.sum(w, axis=0) <= lam, cp.constraints.ExpCone(a, spread, w)]
        program = cp.Problem(cp.Maximize(p_y @ z), constraints)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                program.solve(solver="CLARABEL")
        except cp.error.SolverError:
            return None
        if lam.value is None or program.status not in cp.settings.SOLUTION_PRESENT:
            return None
        flows = np.zeros(n_u)
        np.add.at(flows, cols, np.maximum(pairs.dual_value, 0.0))
        return float(program.value), np.maximum(lam.value, 0.0), a.value, flows

    def _price(self, delta, lam, a):
        """The exact certificate over every pair, and the keys of the pairs to add."""
        problem = self.problem
        n_y, n_u = problem.distortion.shape
        with np.errstate(divide="ignore", invalid="ignore"):
            log_r = np.where(lam > 0, a / np.where(lam > 0, lam, 1.0), 0.0)
        # r(.|u) = exp(a / lam) sums to at most 1 up to the solver's tolerance: rescale.
        log_r -= np.maximum(np.log(np.exp(log_r).sum(axis=0)), 0.0)[None, :] + _LOG_SLACK
        G = problem.p_s_given_y @ log_r
        certificate = cut_certificate(problem, delta, [G], lam[:, None])
        R = problem.distortion + lam[None, :] * (delta + G)
        rows, cols = self.keys // n_u, self.keys % n_u
        z = np.full(n_y, np.inf)
        np.minimum.at(z, rows, R[rows, cols])
        gain = z[:, None] - R
        bad = gain > 1e-7 * (1.0 + np.abs(z[:, None]))
        k = min(_PER_ROW, n_u - 1)
        best = np.zeros_like(bad)
        np.put_along_axis(best, np.argpartition(-gain, k, axis=1)[:, :k], True, axis=1)
        y, u = np.nonzero(best & bad)
        return certificate, y * n_u + u


def dual_lower_end(problem, Q, lo, hi, *, tol=1e-7, verbose=0):
    """The certified lower end raised by :class:`LevelDual` from ``Q``'s pairs.

    Parameters
    ----------
    problem : ConvexProblem
    Q : ndarray of shape (n_y, n_u)
        A good mapping: its pairs start the program.
    lo, hi : float
        A certified lower end and ``Q``'s maximum leakage.
    tol : float, default=1e-7
        Newton stops when its step is below this.
    verbose : int, default=0

    Returns
    -------
    float
        A certified lower bound on the optimum, at least ``lo``.
    """
    rows, cols = np.nonzero(Q > 1e-9)
    dual = LevelDual(problem, (rows, cols))
    # Start a quarter of the bracket below hi: near the optimum the pairs of Q
    # suffice; a level not certified halves its distance to lo.
    eps = lo + 0.75 * (hi - lo)
    while dual.n_solves < _MAX_SOLVES and hi - lo > tol:
        out = dual.certify(eps)
        if out is None:
            break
        certificate, slope = out
        if certificate <= 0:
            eps = 0.5 * (lo + eps)
            continue
        lo = eps
        _say(
            verbose, f"exact dual: maximum leakage >= {lo:.8g} ({dual.n_solves} programs)", level=2
        )
        step = certificate / slope if slope > 0 else 0.0
        if step <= tol:
            break
        eps = min(eps + step, hi)
    return lo
