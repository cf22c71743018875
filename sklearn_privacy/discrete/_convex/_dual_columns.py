"""Thm. 2 on large alphabets: both ends from the exact Lagrange dual of a level, on a few pairs.

At a level ``eps`` (``delta = H(S) - eps``) the least distortion is, by Gibbs and
Sion's minimax (design.md),
``max_{lam >= 0, r} sum_y p_y min_u (d[y, u] + lam_u (delta + sum_s p(s|y) log r(s|u)))``,
concave in ``(lam_u, a_u = lam_u log r(.|u))``: a conic program with an exponential
cone per ``(s, u)``. :class:`LevelDual` solves it with the ``min_u`` over a set of
pairs ``(y, u)`` only and adds the pairs whose constraint the solution breaks
(column generation on the primal); every output, those no mapping uses included,
keeps its own ``lam_u`` and ``r(.|u)``. Whatever the pairs, the solution's exact
value over every pair (:func:`cut_certificate`) bounds the least distortion from
below: above the budget, the level is proved infeasible. The program's multipliers
are a mapping on the pairs: below the budget, it is a verified upper end.

:func:`dual_bracket` runs Newton's method on the least distortion, convex and
decreasing in ``eps`` (a maximum of functions affine in ``delta``): from a level
above the optimum and from one below, the tangent's root lies below the optimum,
so every level it visits from there is certified; a last level just above gives
the mapping.
"""

import numpy as np
from scipy import sparse

from sklearn_privacy.discrete._convex._problem import (
    _bar,
    _clean_mapping,
    _expected_distortion,
    _prune_outputs,
    _say,
    _step,
)
from sklearn_privacy.information import max_information_leakage

__all__ = ["LevelDual", "cut_certificate", "dual_bracket"]

# Clarabel's settings: QDLDL pinned ("auto" picked faer on some of these programs, 3 to
# 4 times slower on one thread; 500 symbols, seed 4: 62 s of CPU in all instead of
# 21 s, issue 49) and at most 100 iterations (they take 35 to 60; some stopped at
# the default 200 without closing). The certificate is exact whatever the solution, so
# the last iterate is used whatever the status (InsufficientProgress on some programs
# at 500 symbols: seed 3, 31.8 -> 17.8 s of CPU when kept instead of solved again);
# only an iterate with non-finite entries is solved again, with the next of
# _CLARABEL_RETRIES (a larger static regularisation or shorter steps, issue 38).
_SOLVER = {"direct_solve_method": "qdldl", "max_iter": 100}
_CLARABEL_RETRIES = (
    {},
    {"static_regularization_proportional": 1e-10},
    {"static_regularization_constant": 1e-7},
    {"max_step_fraction": 0.9},
)
# Clarabel's tolerances (its defaults are 1e-8) away from the optimum: the certificate
# is exact whatever the solution, and at 500 symbols a program took about 1.0 s
# instead of 1.5 s with them. Within _FINE of the last level (Newton's steps near
# the optimum, where the certificates are 1e-7) and for the mapping (off the budget
# by more than the 1e-9 verified at 1e-6), the defaults.
_LOOSE = {"tol_gap_abs": 1e-6, "tol_gap_rel": 1e-6, "tol_feas": 1e-6}
_FINE = 1e-4
# Rougher still while a quarter of the rows or more hold a violated pair (the first
# rounds of the first level, at 500 symbols 3 874 and 1 020 pairs added): such a
# program only finds pairs to add, in about 23 iterations instead of 35. A rough
# program that settles its level is solved again at _LOOSE.
_ROUGH = {"tol_gap_abs": 1e-3, "tol_gap_rel": 1e-3, "tol_feas": 1e-3}
_ROUGH_ROWS = 0.25

# Pairs added per row and round (the most violated), and rounds per level.
_PER_ROW = 8
_ROUNDS = 8
# Above the optimum, a certificate this close to the program's own value (relative)
# pins the least distortion between them well enough for Newton's step (500
# symbols: 1 % after 6 rounds, where 2 more made it exact).
_SETTLED = 0.05
# Conic programs in all, over every level (500 symbols: 10 or 11, 0.3 to 1.6 s each).
_MAX_SOLVES = 24
# Slack below Gibbs' bound when the solution's r(.|u) become cuts.
_LOG_SLACK = 1e-12
# No program on more pairs than this (each row's pairs couple its outputs in the
# factorisation: at 500 symbols, on QDLDL, 7 200 pairs took about 1 s, 12 500 2.5-3.5 s).
_MAX_PAIRS = 20_000
# A bracket this narrow is left as it is: near eps = 0 the program degenerates (every
# posterior pinned to the prior) and one level took minutes on 900 symbols.
_NARROW = 1e-6
# A Newton step from below this short is the last: one level half of _NARROW above
# the optimum it points to gives a mapping that closes a 2 _NARROW bracket.
_LAST_STEP = 1.25e-6


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
        self.rough = True

    def certify(self, eps, *, accurate=False):
        """Column generation at ``eps``: ``(certificate, slope, mapping, done)``, or ``None``.

        ``certificate`` is the exact dual value less the budget (positive: ``eps``
        is below the optimum); ``slope`` is ``sum_u lam_u P(U=u)``, minus the
        derivative of the least distortion in ``eps``; ``mapping`` the program's
        multipliers, a mapping on the pairs (raw); ``done``, whether no pair is
        violated or the certificate is negative and within ``_SETTLED`` of the
        program's own value (the least distortion lies between them). Stops when
        the certificate is positive and within 10 % of the program's own value,
        when done, when the pairs would pass ``_MAX_PAIRS``, or after ``_ROUNDS``
        rounds; ``None`` when no program solved. The programs are solved to
        Clarabel's default accuracy only when ``accurate``, else to ``_LOOSE``, or
        to ``_ROUGH`` while a quarter of the rows held a violated pair in the last
        round (and in the first).
        """
        problem = self.problem
        delta = problem.h_s - eps
        out = None
        for _ in range(_ROUNDS):
            if self.n_solves >= _MAX_SOLVES:
                break
            rough = self.rough and not accurate
            solved = self._solve(delta, {} if accurate else _ROUGH if rough else _LOOSE)
            self.n_solves += 1
            if solved is None:
                break
            value, lam, a, Q = solved
            certificate, violated = self._price(delta, lam, a)
            excess = value - problem.budget
            done = not violated.size or excess - certificate <= _SETTLED * -certificate
            out = certificate, float(lam @ (problem.p_y @ Q)), Q, done
            self.rough = violated.size >= _ROUGH_ROWS * problem.p_y.size
            if rough and done:
                continue
            if (certificate > 0 and excess - certificate < 0.1 * certificate) or done:
                break
            if self.keys.size + violated.size > _MAX_PAIRS:
                break
            self.keys = np.unique(np.r_[self.keys, violated])
        return out

    def _solve(self, delta, accuracy):
        """The conic program on the pairs: ``(value, lam, a, mapping)`` or ``None``.

        Built for Clarabel directly (:func:`_level_program`) rather than through
        cvxpy, whose errors drop the iterate of a program that stopped short.
        """
        import clarabel

        problem = self.problem
        n_y, n_u = problem.distortion.shape
        n_s = problem.p_s_given_y.shape[1]
        rows, cols = self.keys // n_u, self.keys % n_u
        A, b, cones = _level_program(problem, delta, rows, cols)
        # Maximise p_y @ z over x = (z, lam, a, w): minimise -p_y @ z.
        q = np.zeros(A.shape[1])
        q[:n_y] = -problem.p_y
        P = sparse.csc_matrix((A.shape[1], A.shape[1]))
        for retry in _CLARABEL_RETRIES:
            settings = clarabel.DefaultSettings()
            settings.verbose = False
            for name, value in {**_SOLVER, **accuracy, **retry}.items():
                setattr(settings, name, value)
            solution = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
            x, y = np.asarray(solution.x), np.asarray(solution.z)[: rows.size]
            if np.isfinite(x).all() and np.isfinite(y).all():
                break
        else:
            return None
        lam = np.maximum(x[n_y : n_y + n_u], 0.0)
        a = x[n_y + n_u : n_y + n_u + n_s * n_u].reshape(n_s, n_u)
        Q = np.zeros(problem.distortion.shape)
        Q[rows, cols] = np.maximum(y, 0.0) / problem.p_y[rows]
        return float(problem.p_y @ x[:n_y]), lam, a, Q

    def _price(self, delta, lam, a):
        """The exact certificate over every pair, and the keys of the pairs to add."""
        problem = self.problem
        n_y, n_u = problem.distortion.shape
        with np.errstate(divide="ignore", invalid="ignore"):
            log_r = np.where(lam > 0, a / np.where(lam > 0, lam, 1.0), 0.0)
            # r(.|u) = exp(a / lam) sums to at most 1 up to the solver's tolerance:
            # rescale (a sum that underflows to 0 needs none).
            log_r -= np.maximum(np.log(np.exp(log_r).sum(axis=0)), 0.0)[None, :] + _LOG_SLACK
        term = lam[None, :] * (delta + problem.p_s_given_y @ log_r)
        R = problem.distortion + term
        certificate = _certificate(problem, R, problem.distortion + np.abs(term))
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


def _level_program(problem, delta, rows, cols):
    """Clarabel's ``(A, b, cones)`` of the level dual on the pairs ``(rows, cols)``.

    The variables are ``x = (z, lam, a, w)``, with ``a`` and ``w`` of shape
    ``(n_s, n_u)`` stored s-major, and ``A x + s = b`` with ``s`` in the cones:
    first ``z_y - delta lam_u - sum_s p(s|y) a[s, u] <= d[y, u]`` for each pair
    (so their multipliers, the mapping, lead the dual), then ``sum_s w[s, u] <=
    lam_u`` (``r(.|u) = exp(a / lam)`` sums to at most 1), then ``lam_u exp(a[s, u]
    / lam_u) <= w[s, u]`` for each ``(s, u)``, Clarabel's exponential cone on
    ``(a[s, u], lam_u, w[s, u])``.
    """
    import clarabel

    p_s_given_y = problem.p_s_given_y
    n_y, n_s = p_s_given_y.shape
    n_u = problem.distortion.shape[1]
    m, k = rows.size, n_s * n_u
    lam0, a0, w0 = n_y, n_y + n_u, n_y + n_u + k
    su = np.arange(k)  # (s, u) in a and in w; its output is su % n_u
    pair_cols = np.c_[rows, lam0 + cols, a0 + np.arange(n_s)[None, :] * n_u + cols[:, None]]
    pair_values = np.c_[np.ones(m), np.full(m, -delta), -p_s_given_y[rows]]
    pair_rows = np.repeat(np.arange(m), n_s + 2)
    # The cones' rows hold s = (a[s, u], lam_u, w[s, u]) = -A x.
    cone_rows = m + n_u + np.arange(3 * k)
    cone_cols = np.c_[a0 + su, lam0 + su % n_u, w0 + su].ravel()
    A = sparse.csc_matrix(
        (
            np.r_[pair_values.ravel(), -np.ones(n_u), np.ones(k), -np.ones(3 * k)],
            (
                np.r_[pair_rows, m + np.arange(n_u), m + su % n_u, cone_rows],
                np.r_[pair_cols.ravel(), lam0 + np.arange(n_u), w0 + su, cone_cols],
            ),
        ),
        shape=(m + n_u + 3 * k, n_y + n_u + 2 * k),
    )
    b = np.r_[problem.distortion[rows, cols], np.zeros(n_u + 3 * k)]
    return A, b, [clarabel.NonnegativeConeT(m + n_u)] + [clarabel.ExponentialConeT()] * k


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
    nu = np.maximum(nu, 0.0)
    R = problem.distortion.copy()
    size = problem.distortion.copy()
    for k, G in enumerate(cuts):
        term = nu[:, k][None, :] * (delta + G)
        R += term
        size += np.abs(term)
    return _certificate(problem, R, size)


def _certificate(problem, R, size):
    """:func:`cut_certificate` from its matrix ``R`` and the magnitudes ``size`` of its terms."""
    p_y, budget = problem.p_y, problem.budget
    rows = np.arange(R.shape[0])
    best = R.argmin(axis=1)
    value = float(p_y @ R[rows, best]) - budget
    return value - 1e-12 * (float(p_y @ size[rows, best]) + budget) - 1e-13


def verified_mapping(problem, Q):
    """``(Q, its maximum leakage)`` cleaned and pruned, or ``(None, inf)`` off budget."""
    p_y, distortion = problem.p_y, problem.distortion
    Q = _prune_outputs(_clean_mapping(Q, p_y, distortion, problem.budget), p_y)
    if _expected_distortion(Q, p_y, distortion) > problem.budget + 1e-9:
        return None, np.inf
    return Q, max_information_leakage(problem.joint @ Q)


def dual_bracket(problem, Q, lo, hi, *, start=None, tol=1e-7, verbose=0):
    """Both ends raised by :class:`LevelDual` from ``Q``'s pairs and level.

    The first level is ``start`` when it lies in ``(lo, hi)`` (an estimate of
    the optimum: the smoothed maximum's value), else ``hi``, where ``Q``'s pairs
    hold a mapping within the budget. From above, the tangent's root lies below
    the optimum, and Newton's steps climb from there, each level certified. When
    a step falls below ``tol`` and ``_LAST_STEP`` (closer levels meet the solver's
    accuracy) a level half of ``_NARROW`` above the optimum it points to gives the
    mapping of the upper end. A bracket narrower
    than ``_NARROW``, or ``Q`` on more than ``_MAX_PAIRS`` pairs, is returned as
    it is.

    Parameters
    ----------
    problem : ConvexProblem
    Q : ndarray of shape (n_y, n_u)
        A mapping within the budget: its pairs start the program.
    lo, hi : float
        A certified lower end and ``Q``'s maximum leakage.
    start : float, optional
        The first level, when within ``(lo, hi)``. Every level is certified by
        its own program, so it is a guess only: the closer to the optimum, the
        fewer programs (500 symbols: from the smoothed maximum, 5.6e-4 above the
        optimum, instead of ``hi``, 1.6e-2 above).
    tol : float, default=1e-7
        Width of ``[lo, hi]`` at which it stops (``2 _NARROW`` at the least).
    verbose : int, default=0

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
        The best verified mapping (``Q`` itself when none was better).
    hi : float
        Its maximum leakage.
    lo : float
        A certified lower bound on the optimum, at least the ``lo`` given.
    """
    dual = LevelDual(problem, np.nonzero(Q > 1e-9))
    if hi - lo <= max(tol, _NARROW) or dual.keys.size > _MAX_PAIRS:
        return Q, hi, lo
    eps = start if start is not None and lo < start < hi else hi
    probe, accurate = None, False
    with _bar(verbose, _MAX_SOLVES, "maximum leakage: exact dual") as bar:
        while dual.n_solves < _MAX_SOLVES and hi - lo > max(tol, 2.0 * _NARROW):
            level = dual.certify(eps, accurate=accurate)
            if level is None:
                break
            certificate, slope, mapping, done = level
            found = None
            if certificate > 0:
                lo = eps
            else:
                found, leak = verified_mapping(problem, mapping)
                if leak < hi:
                    Q, hi = found, leak
            bar.n = dual.n_solves
            _step(bar, "eps={:.6g}, bracket width {:.2e}", eps, hi - lo)
            last = eps
            eps, probe = _next_level(eps, lo, hi, level, probe, tol)
            if eps is None or certificate <= 0 and last == probe and found is None:
                break
            accurate = eps == probe or abs(eps - last) < _FINE
    _say(verbose, f"exact dual: maximum leakage in [{lo:.8g}, {hi:.8g}]", level=2)
    return Q, hi, lo


def _next_level(eps, lo, hi, level, probe, tol):
    """Newton's next level from ``level`` (at ``eps``; ``None`` when there is none to
    take), and the level that gives the mapping."""
    certificate, slope, _, done = level
    step = certificate / slope if slope > 0 else -0.5 * (eps - lo)
    if certificate > 0 and step > max(tol, _LAST_STEP):
        return min(eps + step, hi), probe
    if certificate > 0:
        # Converged from below: the optimum lies one step above, to the step
        # squared (Newton's error; 500 symbols: a step of 1.1e-6 landed 1e-9 from
        # it, and its mapping missed the bracket; closer levels only meet the
        # solver's rounding, certificates of +-4e-9 at 1e-9 apart). One level half
        # of _NARROW above it, for the mapping.
        probe = min(lo + step + max(0.5 * _NARROW, tol), hi)
        return probe, probe
    if done and -step < max(tol, _NARROW):
        # From above, within the solver's rounding of the optimum: this level's
        # mapping (verified) is the upper end, and a level just below the lower
        # one; or one level above gives the mapping.
        if hi <= eps + _NARROW:
            return (None if eps - lo <= 2.0 * _NARROW else max(eps - 0.5 * _NARROW, lo)), probe
        probe = min(eps + max(0.5 * _NARROW, tol), hi)
        return probe, probe
    if done:
        # From above: the tangent at (a little below) the least distortion's value.
        return max(eps + step, lo), probe
    # Above and not done: the same level again, on the pairs grown so far.
    return eps, probe
