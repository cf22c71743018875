"""Thm. 2's upper end, polished: the conic program on the outputs the first-order mapping uses.

:func:`polish_maximum` grows a set of pairs ``(y, u)`` by column generation at one
level (a pair enters when its reduced cost, from the program's multipliers, is
negative), keeps the pairs the solution uses, and bisects over ``eps`` with the
conic program on those pairs. Every mapping it returns is verified (cleaned,
rare outputs pruned, within the budget, its own maximum leakage), so the upper
end stays a realised mapping's value. Measurements: ``docs/design.md``.
"""

import warnings

import numpy as np
from scipy import sparse

from sklearn_privacy.discrete._convex._problem import (
    _TINY,
    _clean_mapping,
    _expected_distortion,
    _prune_outputs,
)
from sklearn_privacy.information import max_information_leakage

__all__ = ["polish_maximum"]

# Clarabel's settings tried in turn: its defaults stop with InsufficientProgress on
# some of these programs (500 symbols, issue 38), a larger static regularisation
# or shorter steps then solve them.
_CLARABEL_RETRIES = ({}, {"static_regularization_constant": 1e-7}, {"max_step_fraction": 0.9})
# Column generation: at most _GROW_ROUNDS rounds of at most _PER_ROW pairs per row.
_GROW_ROUNDS = 6
_PER_ROW = 8
# No polish above this many pairs, and no pairs added past it: a guess, not measured
# beyond 500 symbols (a program on 1100 pairs took 0.3 s there, on 3700 pairs 2-4 s).
_MAX_PAIRS = 20_000


class _Restricted:
    """Least distortion at level ``H(S|U=u) >= delta`` with ``Q`` nonzero only on ``mask``.

    ``used`` are the outputs kept (columns of ``mask``); the program is built once
    with ``delta`` a ``cvxpy.Parameter``.
    """

    def __init__(self, problem, used, mask):
        import cvxpy as cp

        joint, p_y = problem.joint, problem.p_y
        n_s, n_y = joint.shape
        self.problem, self.used, self.mask = problem, used, mask
        self.rows, self.cols = np.nonzero(mask)
        n, m = self.rows.size, used.size
        pairs = np.arange(n)
        A_joint = sparse.csr_matrix(
            (
                joint[:, self.rows].ravel(),
                ((np.arange(n_s)[:, None] * m + self.cols[None, :]).ravel(), np.tile(pairs, n_s)),
            ),
            shape=(n_s * m, n),
        )
        A_mass = sparse.csr_matrix((p_y[self.rows], (self.cols, pairs)), shape=(m, n))
        A_rows = sparse.csr_matrix((np.ones(n), (self.rows, pairs)), shape=(n_y, n))
        self.x = cp.Variable(n, nonneg=True)
        self.delta = cp.Parameter(nonneg=True)
        J = cp.reshape(A_joint @ self.x, (n_s, m), order="C")
        p_u = A_mass @ self.x
        spread = np.ones((n_s, 1)) @ cp.reshape(p_u, (1, m), order="C")
        self.constraints = [
            A_rows @ self.x == 1,
            self.delta * p_u + cp.sum(cp.rel_entr(J, spread), axis=0) <= 0,
        ]
        cost = p_y[self.rows] * problem.distortion[self.rows, used[self.cols]]
        self.program = cp.Problem(cp.Minimize(cost @ self.x), self.constraints)

    def solve(self, delta):
        """``(least distortion, raw mapping)`` at ``delta``, or ``None`` if no setting solves."""
        import cvxpy as cp

        self.delta.value = float(delta)
        for settings in _CLARABEL_RETRIES:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self.program.solve(solver="CLARABEL", **settings)
            except cp.error.SolverError:
                continue
            if self.x.value is not None and self.program.status in cp.settings.SOLUTION_PRESENT:
                Q = np.zeros(self.problem.distortion.shape)
                Q[self.rows, self.used[self.cols]] = np.maximum(self.x.value, 0.0)
                return float(self.program.value), Q
        return None

    def reduced_costs(self, Q, delta):
        """Per unit of ``p_y``: ``d + lam_u (delta + sum_s p(s|y) log P(s|u)) + mu_y / p_y``."""
        problem, used = self.problem, self.used
        J = problem.joint @ Q[:, used]
        log_post = np.log(np.maximum(J / np.maximum(J.sum(axis=0), _TINY), _TINY))
        G = problem.p_s_given_y @ log_post
        lam = np.maximum(self.constraints[1].dual_value, 0.0)
        mu = self.constraints[0].dual_value / np.maximum(problem.p_y, _TINY)
        cost = problem.distortion[:, used] + lam[None, :] * (delta + G)
        # cvxpy's multiplier of ``A x == 1`` enters its Lagrangian as ``-mu (A x - 1)``
        # (checked: this sign prices the pairs in use at 1e-4-1e-2, the other at 0.8-0.9).
        return cost + mu[:, None]


def _grow(problem, used, mask, delta):
    """Column generation at ``delta``, then only the pairs its last solution uses (and ``mask``'s).

    Pairs enter while some price below 0, for at most ``_GROW_ROUNDS`` rounds; the
    ones left at 0 are dropped, since each solve's time grows with the pairs
    (500 symbols: 0.3 s on 1100 pairs, 2-4 s on 3700).
    """
    kept = mask
    for _ in range(_GROW_ROUNDS):
        restricted = _Restricted(problem, used, mask)
        out = restricted.solve(delta)
        if out is None:
            break
        kept = kept | (out[1][:, used] > 1e-9)
        cost = restricted.reduced_costs(out[1], delta)
        new = (cost < -1e-6) & ~mask
        if not new.any() or mask.sum() > _MAX_PAIRS:
            break
        k = min(_PER_ROW, used.size - 1)
        best = np.argpartition(cost, k, axis=1)[:, :k]
        add = np.zeros_like(mask)
        np.put_along_axis(add, best, True, axis=1)
        mask = mask | (add & new)
    return kept


def _verified(problem, Q):
    """``(Q, its maximum leakage)`` cleaned and pruned, or ``(None, inf)`` off budget."""
    p_y, distortion = problem.p_y, problem.distortion
    Q = _prune_outputs(_clean_mapping(Q, p_y, distortion, problem.budget), p_y)
    if _expected_distortion(Q, p_y, distortion) > problem.budget + 1e-9:
        return None, np.inf
    return Q, max_information_leakage(problem.joint @ Q)


def polish_maximum(problem, Q_hi, lo, hi, *, tol=1e-5, max_steps=12):
    """A mapping of maximum leakage at most ``hi``, by conic programs near ``Q_hi``'s support.

    Parameters
    ----------
    problem : ConvexProblem
    Q_hi : ndarray of shape (n_y, n_u)
        The best mapping met; its outputs of positive mass are the ones kept.
    lo, hi : float
        A certified lower end and ``Q_hi``'s maximum leakage.
    tol : float, default=1e-5
        Width of ``[lo, hi]`` at which the bisection stops.
    max_steps : int, default=12

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
        ``Q_hi`` itself when its support has more than ``_MAX_PAIRS`` pairs.
    eps : float
        Its maximum leakage (verified), at most ``hi``.
    """
    used = np.flatnonzero(problem.p_y @ Q_hi > 0)
    mask = Q_hi[:, used] > 1e-9
    if mask.sum() > _MAX_PAIRS:
        return Q_hi, hi
    # Grow the pairs a quarter of the way down the bracket: near the upper end the
    # support found is close to the optimum's.
    mask = _grow(problem, used, mask, problem.h_s - (hi - 0.25 * (hi - lo)))
    restricted = _Restricted(problem, used, mask)
    best_Q, best, top = Q_hi, hi, hi
    for _ in range(max_steps):
        if top - lo <= tol:
            break
        eps = 0.5 * (lo + top)
        out = restricted.solve(max(problem.h_s - eps, 0.0))
        if out is None or out[0] > problem.budget:
            lo = eps  # too low for these pairs (or unsolved): only the upper end matters here
            continue
        top = eps
        Q, leak = _verified(problem, out[1])
        if leak < best:
            best_Q, best = Q, leak
    return best_Q, best
