"""Thm. 2 on large alphabets: a certified lower end from cuts and small linear programs.

:func:`cut_certificate` at one level ``eps`` and :func:`certified_lower_end`, its bisection
(the derivation is in ``docs/design.md``).
"""

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from sklearn_privacy.discrete._convex._problem import _TINY, _bar, _say, _step

__all__ = ["certified_lower_end", "cut_certificate"]

# Upper bound on the cut weights in the linear programs (any weights give a valid
# bound; this only keeps the programs bounded).
_NU_MAX = 1e6
# Slack in log r below Gibbs' bound: r sums to at most 1 despite rounding.
_LOG_SLACK = 1e-12
# Kelley rounds at one level of the bisection (a cut at the relaxation's own mapping
# each), given up when a round raises the relaxation's (negative) value by less than
# _CUT_STALL of its distance to 0; at most _CUT_BUDGET cuts added over the whole
# bisection (each cut widens every later linear program: unbounded, the rounds cost
# 2.2x the default fit's CPU at 500 symbols).
_CUT_ROUNDS = 12
_CUT_STALL = 0.2
_CUT_BUDGET = 2


def cut_certificate(problem, delta, cuts, nu):
    """``sum_y p_y min_u (d + sum_k nu_k (delta + G_k)) - budget``, less its rounding error.

    Positive proves that no mapping within ``budget`` reaches the level.

    Parameters
    ----------
    problem : ConvexProblem
    delta : float
        ``H(S) - eps``.
    cuts : list of ndarray of shape (n_y, n_u)
        ``G_k[y, u] = sum_s p(s|y) log r^k(s|u)``, each ``r^k(.|u)`` summing to at most 1.
    nu : ndarray of shape (n_u, n_cuts)
        The weights (clipped at 0).

    Returns
    -------
    float
        A lower bound on the least expected distortion at level ``eps`` (weak
        duality) less the budget, less a bound on the rounding of the sums
        (``1e-12`` of the magnitudes of the terms that gave each row's minimum).
    """
    p_y, budget = problem.p_y, problem.budget
    nu = np.maximum(nu, 0.0)
    R = problem.distortion.copy()
    size = problem.distortion.copy()
    for k, G in enumerate(cuts):
        term = nu[:, k][None, :] * (delta + G)
        R += term
        size += np.abs(term)
    rows = np.arange(R.shape[0])
    best = R.argmin(axis=1)
    value = float(p_y @ R[rows, best]) - budget
    return value - 1e-12 * (float(p_y @ size[rows, best]) + budget) - 1e-13


def _relaxation(problem, delta, cuts, pairs, n_lp):
    """The dual linear program on the pairs ``(rows, cols)``: ``(value, c, nu, flows)``."""
    p_y, distortion, budget = problem.p_y, problem.distortion, problem.budget
    rows, cols = pairs
    n_y, n_u = distortion.shape
    K = len(cuts)
    n_pairs = rows.size
    # c_y - sum_k nu[u, k] (delta + G_k[y, u]) <= d[y, u]; variables [c, nu (u-major)].
    coef = np.column_stack([-(delta + G[rows, cols]) for G in cuts])
    A = sparse.hstack(
        [
            sparse.csr_matrix((np.ones(n_pairs), (np.arange(n_pairs), rows)), shape=(n_pairs, n_y)),
            sparse.csr_matrix(
                (
                    coef.ravel(),
                    (np.repeat(np.arange(n_pairs), K), (cols[:, None] * K + np.arange(K)).ravel()),
                ),
                shape=(n_pairs, n_u * K),
            ),
        ]
    ).tocsr()
    cost = np.r_[-p_y, np.zeros(n_u * K)]
    bounds = [(None, None)] * n_y + [(0.0, _NU_MAX)] * (n_u * K)
    res = linprog(cost, A_ub=A, b_ub=distortion[rows, cols], bounds=bounds, method="highs")
    n_lp[0] += 1
    if res.status != 0:
        return None
    c = res.x[:n_y]
    nu = res.x[n_y:].reshape(n_u, K)
    flows = -res.ineqlin.marginals
    return float(p_y @ c) - budget, c, nu, flows


def _solve_level(problem, delta, cuts, pairs, n_lp, max_rounds=50, per_row=4):
    """Constraint generation for :func:`_relaxation` until no pair is violated.

    Each round adds, for every row whose constraint is violated, its ``per_row``
    most violated pairs.
    """
    n_u = problem.distortion.shape[1]
    out = None
    for _ in range(max_rounds):
        out = _relaxation(problem, delta, cuts, pairs, n_lp)
        if out is None:
            return None, pairs
        _, c, nu, _ = out
        R = problem.distortion.copy()
        for k, G in enumerate(cuts):
            R += nu[:, k][None, :] * (delta + G)
        # The solver's own accuracy is about 1e-7; the decision is exact anyway.
        violated = np.flatnonzero(c > R.min(axis=1) + 1e-7 * (1.0 + np.abs(c)))
        if violated.size == 0:
            return out, pairs
        k = min(per_row, n_u)
        worst = np.argpartition(R[violated], k - 1, axis=1)[:, :k]
        rows = np.r_[pairs[0], np.repeat(violated, k)]
        cols = np.r_[pairs[1], worst.ravel()]
        key = np.unique(rows * n_u + cols)
        pairs = (key // n_u, key % n_u)
    return out, pairs


def _decide_level(problem, delta, cuts, pairs, n_lp, max_cuts):
    """Whether the cuts prove the level infeasible, adding cuts at the relaxation's mapping.

    The linear program's multipliers of the pair constraints are a mapping ``W``
    (``P(Y, U)``) that meets the linearised constraints; its own posteriors,
    outputs the earlier mappings left empty included, give the cut that
    separates it when it breaks the true ones (Kelley's cutting planes). A cut
    is valid at every level: ``cuts`` keeps them. At most ``_CUT_ROUNDS`` cuts, and
    ``cuts`` never longer than ``max_cuts``; gives up when a round raises the
    relaxation's (negative) value by less than ``_CUT_STALL`` of its distance to 0.
    Returns ``(certified, pairs)``.
    """
    n_y, n_u = problem.distortion.shape
    value = -np.inf
    for _ in range(_CUT_ROUNDS + 1):
        out, pairs = _solve_level(problem, delta, cuts, pairs, n_lp)
        if out is None:
            return False, pairs
        if cut_certificate(problem, delta, cuts, out[2]) > 0:
            return True, pairs
        if len(cuts) >= max_cuts or out[0] - value < _CUT_STALL * -out[0]:
            return False, pairs  # too slow a climb to reach 0 in the rounds left
        value = out[0]
        W = np.zeros(n_y * n_u)
        np.add.at(W, pairs[0] * n_u + pairs[1], np.maximum(out[3], 0.0))
        J = problem.p_s_given_y.T @ W.reshape(n_y, n_u)
        cuts.append(problem.p_s_given_y @ problem.log_posterior(J, _LOG_SLACK))
    return False, pairs


def certified_lower_end(problem, mappings, lo, hi, *, tol=1e-5, max_steps=40, verbose=0):
    """The largest ``eps`` in ``[lo, hi]`` that the cuts of ``mappings`` prove infeasible.

    Each mapping's posteriors give one cut per output (an output of no mass
    gets the prior); the cut weights are optimised by the linear program of
    :func:`_relaxation` at each level of a bisection over ``eps``, and each
    level is decided by the exact :func:`cut_certificate`.

    Parameters
    ----------
    problem : ConvexProblem
    mappings : list of ndarray of shape (n_y, n_u)
        Mappings whose posteriors linearise the leakage constraints (the
        closer to the optimum's, the tighter the bound).
    lo, hi : float
        The bracket to search: ``lo`` already certified, ``hi`` the best known
        maximum leakage.
    tol : float, default=1e-5
        Width at which the bisection stops.
    max_steps : int, default=40
    verbose : int, default=0

    Returns
    -------
    lo : float
        A certified lower bound on the optimum, at least the ``lo`` given.
    n_lp : int
        Linear programs solved.
    """
    distortion, p_s_given_y = problem.distortion, problem.p_s_given_y
    n_y, n_u = distortion.shape
    cuts = [p_s_given_y @ problem.log_posterior(problem.joint @ Q, _LOG_SLACK) for Q in mappings]
    # One more: each output with the posterior of its closest input (an output the
    # mappings leave empty would otherwise only have the prior).
    nearest = distortion.argmin(axis=0)
    log_own = np.log(np.maximum(p_s_given_y[nearest].T, _TINY)) - _LOG_SLACK
    cuts.append(p_s_given_y @ log_own)
    support = np.unique(np.concatenate([np.flatnonzero(Q.ravel() > 1e-9) for Q in mappings]))
    closest = np.arange(n_y) * n_u + distortion.argmin(axis=1)
    key = np.unique(np.r_[support, closest])
    pairs = (key // n_u, key % n_u)
    n_lp = [0]
    max_cuts = len(cuts) + _CUT_BUDGET
    top = hi
    # Bisection steps to close [lo, hi] to tol, at most max_steps.
    steps = min(max_steps, max(0, int(np.ceil(np.log2(max(hi - lo, tol) / tol)))))
    with _bar(verbose, steps, "maximum leakage: cut certificate") as bar:
        for _ in range(max_steps):
            if top - lo <= tol:
                break
            eps = 0.5 * (lo + top)
            _step(bar, "eps={:.4g}, bracket width {:.2e}, {} LPs", eps, top - lo, n_lp[0])
            certified, pairs = _decide_level(
                problem, problem.h_s - eps, cuts, pairs, n_lp, max_cuts
            )
            if certified:
                lo = eps
            else:
                top = eps
    _say(
        verbose,
        f"cut certificate: maximum leakage >= {lo:.8g} ({len(cuts)} cuts, {pairs[0].size} "
        f"pairs, {n_lp[0]} linear programs)",
        level=2,
    )
    return lo, n_lp[0]
