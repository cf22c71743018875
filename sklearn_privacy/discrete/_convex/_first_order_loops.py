"""The first-order path of the convex mapping: the mirror-descent loops for large alphabets.

:func:`first_order_average` (Thm. 1, with a duality-gap certificate) and
:func:`first_order_maximum` (Thm. 2, a smoothed maximum with a certified bracket).
"""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_privacy.discrete._convex._dual_columns import dual_bracket
from sklearn_privacy.discrete._convex._first_order import (
    SERIAL,
    RowThreads,
    dual_bound,
    dual_bound_levels,
)
from sklearn_privacy.discrete._convex._iterates import (
    CHECK_EVERY,
    WorkingSetIterate,
    full_iterate,
)
from sklearn_privacy.discrete._convex._problem import (
    _TINY,
    _bar,
    _clean_mapping,
    _closest_mapping,
    _expected_distortion,
    _postfix,
    _say,
)
from sklearn_privacy.information import max_information_leakage

__all__ = ["first_order_average", "first_order_maximum", "max_leakage_certificate"]

# The smoothing's temperatures, in turn: it only brings the mapping near the
# optimum's pairs for the exact dual (500 symbols, before the dual's loose programs:
# 44.5 s of CPU in all and a gap of 1.1e-6 with these two, 47.5 s and 1.2e-6 with 10,
# 30, 100; the seven of 10 ... 1e4 took 37 s before a 21 s dual; design.md). Fewer
# steps or t = 100 alone were faster on some joints and left others unclosed.
_TEMPERATURES = (10.0, 100.0)
# Mirror steps at most per temperature.
_STEPS = 200
# A row's mass on the outputs that leave, below which they leave without a second
# projection (:meth:`_Smoothing.settle`).
_GONE = 1e-15


def first_order_average(
    problem, *, max_iter=20_000, verbose=0, desc="first-order, average leakage", **kwargs
):
    """:func:`_first_order_average_loop` with one BLAS thread: ``(Q, objective, gap, n_iter)``.

    ``problem`` is a :class:`~._problem.ConvexProblem`. At ``verbose >= 1`` a
    progress bar labelled ``desc`` shows the iterations against ``max_iter``
    and the certified gap against ``tol``.
    """
    # The products here have an inner dimension of n_s (a handful): a second BLAS
    # thread only adds synchronisation, up to 20 times slower on a loaded machine.
    # Our threads take the row blocks of the level passes instead, as many as the
    # BLAS was allowed (read before the limit below).
    problem.threads = RowThreads.allowed() if problem.levels is not None else SERIAL
    try:
        with (
            threadpool_limits(limits=1, user_api="blas"),
            _bar(verbose, max_iter, desc) as bar,
        ):
            return _first_order_average_loop(
                problem, max_iter=max_iter, verbose=verbose, bar=bar, **kwargs
            )
    finally:
        problem.threads.close()
        problem.threads = SERIAL


def _first_order_average_loop(
    problem, *, tol=1e-7, max_iter=20_000, init=None, verbose=0, sparse=True, bar=None
):
    """Accelerated mirror descent for Thm. 1; returns ``(Q, objective, certified_gap, n_iter)``.

    In the geometry ``h(Q) = sum_y p_Y(y) sum_u Q log Q``, ``I(S; U)`` is
    1-smooth relative to ``h`` (its Bregman divergence is ``sum_u p'_U
    KL(p'(S|u) || p(S|u)) <= KL(P'_{YU} || P_{YU})``). The iteration is the
    accelerated Bregman proximal gradient of Hanzely, Richtarik and Xiao
    (2021) with triangle-scaling exponent 2 and a restart whenever the
    objective rises; each step is a KL projection onto the budget.

    The iterates (:mod:`._iterates`) are kept factored: the mirror iterate is
    ``softmax(M - P(S|Y)^T A - lam d)`` (the gradient has rank ``n_s``), the
    releases ``joint @ Q`` of the sequences are updated affinely, and when
    ``d`` has few distinct values the projection and the dual bound work on
    per-row level sums and minima. Once at most a tenth of the mirror
    iterate's entries lie within ``exp(-60)`` of their row's largest
    (``sparse=True``), the steps go on on those entries alone, a full pass
    adding the entries that come near every 10 steps; a restart goes back to
    full steps. The certificate and the stopping rule: :class:`_Certificate`.

    ``bar`` (a progress bar, :func:`._problem._bar`) advances by one per
    iteration; its postfix is the certified gap at each check.
    """
    if bar is None:
        bar = _bar(0, None, None)
    start = _closest_mapping(problem.distortion) if init is None else np.asarray(init, dtype=float)
    x, lam = problem.project(
        np.log(np.maximum(0.5 * start + 0.5 / start.shape[1], _TINY)), 0.0, by_cells=sparse
    )
    iterate = full_iterate(problem, x, by_cells=sparse)
    A = np.zeros((problem.joint.shape[0], x.shape[1]))
    J_x = problem.joint @ x
    J_z = J_x.copy()
    f_x, _ = problem.leakage(J_x)
    certificate = _Certificate(problem, x, f_x, tol, verbose, bar)
    theta, n_iter = 1.0, 0
    for n_iter in range(1, max_iter + 1):
        bar.update()
        _, log_post_y = problem.leakage((1.0 - theta) * J_x + theta * J_z)
        step = 1.0 / theta  # 1 / (theta^(gamma - 1) L) with gamma = 2, L = 1
        A_new = A + step * log_post_y
        z_new, lam_z, J_z_new = iterate.mirror_step(A_new, lam * step)
        lam = lam_z / step
        J_x_new = (1.0 - theta) * J_x + theta * J_z_new
        f_new, _ = problem.leakage(J_x_new)
        if f_new > f_x:
            # Restart the momentum from the last (better) point, with full steps.
            iterate = iterate.restart()
            theta, J_z, A = 1.0, J_x.copy(), np.zeros_like(A)
            continue
        iterate.accept(z_new, theta, lam_z)
        A, J_x, J_z, f_x = A_new, J_x_new, J_z_new, f_new
        theta = 0.5 * (np.sqrt(theta**4 + 4.0 * theta**2) - theta**2)
        if sparse and n_iter % iterate.check_period == 0:
            narrowed = iterate.narrowed(A)
            if narrowed is not None:
                iterate, J_z = narrowed, narrowed.release()
        if n_iter % CHECK_EVERY == 0 and certificate.check(n_iter, iterate, J_x, J_z, f_x, lam):
            break
    # The certificate for the returned, exactly feasible mapping.
    Q = _clean_mapping(certificate.best_mapping(), problem.p_y, problem.distortion, problem.budget)
    value, _ = problem.leakage(problem.joint @ Q)
    return Q, value, value - certificate.lower, n_iter


class _Certificate:
    """The best iterate met, the duality-gap bound, and when the average loop stops.

    The bound is evaluated, on the whole matrix, at the averaged sequence's
    posteriors (smooth, so a tight bound); the best objective is the least of
    both sequences'. The loop stops when the best objective minus the best
    bound is below ``tol``, or when the geometric extrapolation of the last
    decreases says the objective is within ``tol`` of its limit and the
    certified gap is below 1e-5 nats. The best iterate is kept dense in one
    array (reused: a fresh one of this size costs more in page faults than the
    copy), or as the working set's ``(flat indices, values)`` of ``z``.
    """

    def __init__(self, problem, x, value, tol, verbose, bar):
        self.problem, self.tol, self.verbose, self.bar = problem, tol, verbose, bar
        self.Q, self.entries, self.value = x.copy(), None, value
        self.lower, self.history = -np.inf, []
        self.started = time.perf_counter()

    def check(self, n_iter, iterate, J_x, J_z, f_x, lam):
        """Update the best iterate and the bound; True when the loop should stop."""
        problem = self.problem
        f_z, _ = problem.leakage(J_z)
        _, log_post_x = problem.leakage(J_x)
        if f_x < self.value:
            iterate.write_x(self.Q)
            self.entries, self.value = None, f_x
        if f_z < self.value:
            self.entries, self.value = iterate.keep_z(self.Q), f_z
        # The bound at z's posteriors was always far below x's (Adult: -200 against
        # 0.005 nats): z is near a vertex, most outputs empty; only x's is computed.
        self.lower = max(self.lower, _dual_bound(problem, log_post_x, lam))
        gap = self.value - self.lower
        self.history.append(self.value)
        on_set = isinstance(iterate, WorkingSetIterate)
        _postfix(self.bar, "gap {:.2e} (tol {:.0e}){}", gap, self.tol, ", working set" * on_set)
        if self.verbose >= 2:  # checked here: no message formatted otherwise
            _say(
                self.verbose,
                f"first-order iter {n_iter}: I(S;U)={self.value:.10g} gap<={gap:.3g} "
                f"({time.perf_counter() - self.started:.2f}s)"
                + (f", working set {iterate.size} entries" if on_set else ""),
                level=2,
            )
        return gap <= self.tol or self._settled(gap)

    def _settled(self, gap):
        if len(self.history) < 3:
            return False
        d1 = self.history[-3] - self.history[-2]
        d2 = self.history[-2] - self.history[-1]
        if not 0 <= d2 < d1:
            return False
        rate = d2 / d1
        # Extrapolated distance below tol, and a certificate within 1e-5 nats.
        return d2 * rate / (1 - rate) < self.tol and gap <= 1e-5

    def best_mapping(self):
        """The best iterate met, as a dense array."""
        if self.entries is not None:
            self.Q.fill(0.0)
            self.Q.ravel()[self.entries[0]] = self.entries[1]
        return self.Q


def _dual_bound(problem, log_post, lam):
    """The Lagrange dual bound on ``I(S; U)`` from the posteriors ``log_post``."""
    if problem.levels is not None:
        minima = problem.levels.minima_of_product(
            problem.p_s_given_y, log_post, threads=problem.threads
        )
        return dual_bound_levels(
            minima, problem.levels.values, problem.p_y, problem.budget, problem.h_s
        )
    G = np.matmul(problem.p_s_given_y, log_post, out=problem.scratch)
    return dual_bound(G, problem.distortion, problem.p_y, problem.budget, problem.h_s, lam)


def max_leakage_certificate(problem, eps, mu, log_post):
    """Whether ``eps`` is certified below the optimal maximum leakage.

    For weights ``mu >= 0`` on the outputs and posteriors ``r`` (``log_post``),
    every mapping meeting ``H(S | U=u) >= H(S) - eps`` for all u and the budget
    has ``0 >= sum_u mu_u p_U(u) (delta - H(S | U=u)) >= sum_{y,u} p_y Q C`` with
    ``C[y, u] = mu_u (delta + sum_s p(s|y) log r(s|u))`` (Gibbs), whose least
    value over the budget is bounded below by the dual of that linear program,
    ``max_lam sum_y p_y min_u (C + lam d) - lam budget``. A positive bound
    proves ``eps`` infeasible.
    """
    delta = problem.h_s - eps
    C = problem.p_s_given_y @ (mu[None, :] * (log_post + delta))
    return dual_bound(C, problem.distortion, problem.p_y, problem.budget, 0.0, 1.0) > 0


def first_order_maximum(problem, *, tol=1e-7, max_iter=20_000, verbose=0):
    """:func:`_first_order_maximum_loop` with one BLAS thread: ``(Q, eps_hi, eps_lo, n_iter)``."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _first_order_maximum_loop(problem, tol=tol, max_iter=max_iter, verbose=verbose)


def _first_order_maximum_loop(problem, *, tol=1e-7, max_iter=20_000, verbose=0):
    """Thm. 2 for large alphabets: a smoothed maximum, then the exact dual of a level.

    ``F_t(Q) = sum_u p_U(u) exp(t L_u)`` with ``L_u = H(S) - H(S | U=u)`` is
    convex in ``Q`` (the perspective of the convex ``r -> exp(t (H(S) - H(r)))``),
    and ``(1/t) log F_t`` tends to the maximum leakage over the used outputs
    as ``t`` grows. Mirror steps on the rows of ``Q`` (:class:`_Smoothing`)
    minimise it for ``t`` in ``_TEMPERATURES``, warm-started from the
    least-average-leakage mapping.

    The smoothing's certificate, :func:`max_leakage_certificate` with the
    weights ``w_u`` (the multipliers of the perspective constraints at the
    smoothed optimum) and the mapping's posteriors, by bisection after each
    ``t``, gives a first lower end; the best mapping met (outputs below 1e-6
    pruned, budget checked) a first upper end. Both ends then come from
    :func:`~._dual_columns.dual_bracket`: the exact dual of a level with a free
    posterior for every output, on the best mapping's pairs grown by column
    generation, climbed by Newton's method; each mapping it returns is verified
    (the derivation and what it reaches: design.md). A Frank-Wolfe bound on
    the smoothed problem was tried and is useless here (its gap stays at
    0.2-0.3 after 1500 mirror steps: entries of ``Q`` near 0 grow slowly under
    multiplicative steps).

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
    eps_hi : float
        The maximum leakage of ``Q`` (verified).
    eps_lo : float
        A certified lower bound on the optimum.
    n_iter : int
    """
    # Full steps for the warm start: the smoothing below is sensitive to the last
    # bits of its start (Adult, 351 symbols: a start that differs by 1e-16 made its
    # line search stall at 0.105 instead of reaching 0.081), and the working set's
    # steps round differently.
    Q, _, _, n_iter = first_order_average(
        problem,
        tol=1e-6,
        max_iter=max(1, max_iter // 4),
        sparse=False,
        verbose=min(verbose, 1),  # its bar, not its level-2 lines
        desc="first-order, maximum leakage: warm start",
    )
    smoothing = _Smoothing(problem, Q, n_iter)
    Q_hi, hi = smoothing.verified(Q)
    if Q_hi is None:
        Q_hi = _closest_mapping(problem.distortion)
        hi = max_information_leakage(problem.joint @ Q_hi)
    lo_smooth = 0.0
    with _bar(verbose, max_iter, "first-order, maximum leakage", initial=n_iter) as bar:
        for t in _TEMPERATURES:
            _postfix(bar, "t={:g}, max leakage in [{:.4g}, {:.4g}]", t, lo_smooth, hi)
            value, log_w, log_post = smoothing.minimise(t, max_iter, bar)
            Q_try, leak = smoothing.verified(smoothing.Q, smoothing.lam)
            if leak < hi:
                Q_hi, hi = Q_try, leak
            mu = np.exp(log_w - log_w.max())
            lo_smooth = max(lo_smooth, _certified_below(problem, mu, log_post, hi, tol))
            _say(
                verbose,
                f"smoothed max leakage t={t:g}: {value:.8g}, best verified {hi:.8g}, "
                f"certified >= {lo_smooth:.8g} ({smoothing.n_iter} iterations)",
                level=2,
            )
            if smoothing.n_iter >= max_iter:
                break
    # Both ends from the exact dual of a level, on the pairs of the best mapping
    # grown by column generation (500 symbols: the bracket [0.4576, 0.4910] of the
    # cut certificate before it -> [0.484902, 0.484904], design.md), the first level
    # at the smoothed maximum's value (an estimate of the optimum, issue 49).
    Q_hi, hi, lo = dual_bracket(problem, Q_hi, lo_smooth, hi, start=value, tol=tol, verbose=verbose)
    return Q_hi, hi, min(lo, hi), smoothing.n_iter


def _certified_below(problem, mu, log_post, hi, tol):
    """Bisection for the largest eps that the weights ``mu`` prove infeasible."""
    lo, top = 0.0, hi
    if not max_leakage_certificate(problem, 0.0, mu, log_post):
        top = 0.0
    for _ in range(40):
        if top - lo <= max(tol, 1e-3 * (hi - lo) if hi - lo > 1e-4 else tol):
            break
        mid = 0.5 * (lo + top)
        if max_leakage_certificate(problem, mid, mu, log_post):
            lo = mid
        else:
            top = mid
    return lo


class _Smoothing:
    """Mirror steps on ``(1/t) log F_t`` from the mapping ``Q``, one ``t`` after another.

    Each step is a KL projection onto the budget, less 1e-9 of ``max d`` so
    that pruning keeps the mapping within it, with a backtracking step size
    kept from one ``t`` to the next. The gradient divided by ``p_Y`` is
    ``P(S|Y)^T [w_u (1/t + log P(s|u) + H(S|U=u))]`` with ``w_u`` the
    normalised weights ``exp(t L_u) / F_t``.
    """

    def __init__(self, problem, Q, n_iter):
        self.problem, self.Q, self.n_iter = problem, Q, n_iter
        self.lam, self.eta = 0.0, 1.0
        self.inner = problem.budget - 1e-9 * max(1.0, float(problem.distortion.max()))

    def value(self, Q, t):
        """``(1/t) log F_t``, the log-weights ``log w_u``, ``log P(S|U)`` and ``H(S|U=u)``."""
        J = self.problem.joint @ Q
        log_post = self.problem.log_posterior(J)
        p_u = np.maximum(J.sum(axis=0), _TINY)
        h_u = -(np.exp(log_post) * log_post).sum(axis=0)
        a = np.where(p_u > _TINY, np.log(p_u) + t * (self.problem.h_s - h_u), -np.inf)
        top = a.max()
        log_f = top + np.log(np.exp(a - top).sum())
        return log_f / t, a - np.log(p_u) - log_f, log_post, h_u

    def minimise(self, t, max_iter, bar):
        """At most ``_STEPS`` steps at ``t`` (and ``max_iter`` in all): ``(value, log_w,
        log_post)``."""
        value, log_w, log_post, h_u = self.value(self.Q, t)
        for _ in range(_STEPS):
            if self.n_iter >= max_iter:
                break
            self.n_iter += 1
            bar.update()
            W = np.exp(np.minimum(log_w, 600.0))[None, :] * (1.0 / t + log_post + h_u[None, :])
            new, Q_new, lam_new = self._backtrack(self.problem.p_s_given_y @ W, value, t)
            improvement = value - new[0]
            if improvement <= 0:
                break
            self.Q, self.lam = Q_new, lam_new
            value, log_w, log_post, h_u = new
            self.eta *= 2.0
            if improvement <= 1e-10 * max(1.0, abs(value)):
                break
        return value, log_w, log_post

    def _backtrack(self, G, value, t):
        with np.errstate(divide="ignore"):
            log_q = np.log(self.Q)
        while True:
            Q_new, lam_new = self.problem.project(log_q - self.eta * G, self.lam, budget=self.inner)
            Q_new = self.settle(Q_new, lam_new)
            new = self.value(Q_new, t)
            if new[0] < value or self.eta < 1e-12:
                return new, Q_new, lam_new
            self.eta *= 0.25

    def settle(self, Q, lam, min_mass=1e-9):
        """Outputs below ``min_mass`` leave for good (a mass at the floor would weigh
        ``exp(t L_u)`` as t grows); the budget is restored by projecting again."""
        dead = (self.problem.p_y @ Q) < min_mass
        if not dead.any() or dead.all():
            return Q
        kept = np.where(dead[None, :], 0.0, Q)
        if np.any(kept.sum(axis=1) <= 0):
            return Q
        if Q[:, dead].sum(axis=1).max() <= _GONE:
            # Outputs that left at an earlier step come back at the floor of the
            # exponentials (about 1e-260): dropping them moves no row by more than
            # _GONE, so the budget needs no second projection (500 symbols: 600 of
            # the 1 200 projections of the smoothing, issue 49).
            return kept / kept.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            kept, _ = self.problem.project(np.log(kept), lam, budget=self.inner)
        kept[:, dead] = 0.0
        return kept / kept.sum(axis=1, keepdims=True)

    def verified(self, Q, lam=0.0):
        """``(Q, its maximum leakage)`` once settled at 1e-6, or ``(None, inf)`` off budget."""
        problem = self.problem
        Q = self.settle(Q, lam, 1e-6)
        if _expected_distortion(Q, problem.p_y, problem.distortion) > problem.budget + 1e-9:
            return None, np.inf
        return Q, max_information_leakage(problem.joint @ Q)
