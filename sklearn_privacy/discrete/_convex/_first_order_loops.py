"""The first-order path of the convex mapping: the mirror-descent loops for large alphabets.

:func:`first_order_average` (Thm. 1, with a duality-gap certificate) and
:func:`first_order_maximum` (Thm. 2, a smoothed maximum with a certified bracket).
"""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_privacy.discrete._convex._first_order import (
    DistortionLevels,
    blocked_combination,
    budget_projection,
    dual_bound,
    dual_bound_levels,
    mirror_step_levels,
    project_levels,
)
from sklearn_privacy.discrete._convex._max_leakage import certified_lower_end
from sklearn_privacy.discrete._convex._problem import (
    _TINY,
    _bar,
    _clean_mapping,
    _closest_mapping,
    _entropy_of_s,
    _expected_distortion,
    _postfix,
    _say,
)
from sklearn_privacy.discrete._convex._working_set import (
    MARGIN,
    WorkingSet,
    entries_near_row_max,
)
from sklearn_privacy.information import max_information_leakage

# The working set starts once at most this fraction of the entries of z lie
# within MARGIN of their row's largest, tested every SWITCH_EVERY full steps.
SWITCH_FRACTION = 0.1
# The cut certificate's bisection stops at this width (its bound is within a few
# hundredths of the upper end on large alphabets; a finer search only adds
# linear programs).
CUT_TOL = 5e-4
SWITCH_EVERY = 5
__all__ = ["first_order_average", "first_order_maximum", "max_leakage_certificate"]


def first_order_average(
    joint,
    distortion,
    budget,
    *,
    max_iter=20_000,
    verbose=0,
    desc="first-order, average leakage",
    **kwargs,
):
    """:func:`_first_order_average_loop` with one BLAS thread: ``(Q, objective, gap, n_iter)``.

    At ``verbose >= 1`` a progress bar labelled ``desc`` shows the iterations
    against ``max_iter`` and the certified gap against ``tol``.
    """
    # The products here have an inner dimension of n_s (a handful): a second BLAS
    # thread only adds synchronisation, up to 20 times slower on a loaded machine.
    with (
        threadpool_limits(limits=1, user_api="blas"),
        _bar(verbose, max_iter, desc) as bar,
    ):
        return _first_order_average_loop(
            joint, distortion, budget, max_iter=max_iter, verbose=verbose, bar=bar, **kwargs
        )


def _first_order_average_loop(
    joint,
    distortion,
    budget,
    *,
    tol=1e-7,
    max_iter=20_000,
    init=None,
    verbose=0,
    sparse=True,
    bar=None,
):
    """Accelerated mirror descent for Thm. 1; returns ``(Q, objective, certified_gap, n_iter)``.

    In the geometry ``h(Q) = sum_y p_Y(y) sum_u Q log Q``, ``I(S; U)`` is
    1-smooth relative to ``h`` (its Bregman divergence is ``sum_u p'_U
    KL(p'(S|u) || p(S|u)) <= KL(P'_{YU} || P_{YU})``). The iteration is the
    accelerated Bregman proximal gradient of Hanzely, Richtarik and Xiao
    (2021) with triangle-scaling exponent 2 and a restart whenever the
    objective rises; each step is a KL projection onto the budget.

    The iterates are kept factored (:mod:`._first_order`): the mirror
    iterate is ``softmax(M - P(S|Y)^T A - lam d)`` (the gradient has rank
    ``n_s``), the releases ``joint @ Q`` of the sequences are updated affinely,
    and when ``d`` has few distinct values the projection and the dual bound
    work on per-row level sums and minima.

    Once at most a tenth of the mirror iterate's entries lie within
    ``exp(-60)`` of their row's largest (``sparse=True``), the steps go on
    on those entries alone (:class:`._working_set.WorkingSet`), a full
    pass adding the entries that come near every ``check_every`` steps; a
    restart from the averaged iterate goes back to full steps.

    The duality-gap certificate is evaluated, on the whole matrix, at both
    sequences: the averaged one gives smooth posteriors and so a tight bound,
    the mirror-step one usually the better objective. The iteration stops
    when the best objective minus the best bound is below ``tol``, or when the
    geometric extrapolation of the last decreases says the objective is within
    ``tol`` of its limit and the certified gap is below 1e-5 nats.

    ``bar`` (a progress bar, :func:`._problem._bar`) advances by one per
    iteration; its postfix is the certified gap at each check.
    """
    if bar is None:
        bar = _bar(0, None, None)
    p_y = joint.sum(axis=0)
    h_s = _entropy_of_s(joint)
    p_s = joint.sum(axis=1)
    log_prior = np.log(np.maximum(p_s / p_s.sum(), _TINY))[:, None]
    p_s_given_y = np.ascontiguousarray((joint / np.maximum(p_y, _TINY)).T)
    levels = DistortionLevels.of(distortion)
    distortion_sq = None if levels is not None else distortion * distortion
    buffer = np.empty(distortion.shape)

    def value_and_log_posterior(J):
        # I(S; U) = H(S) - H(S | U), and log P(S | U) for the gradient; an output
        # of no mass gets the prior (any posterior keeps the dual bound valid).
        p_u = J.sum(axis=0)
        log_post = np.log(np.maximum(J, _TINY)) - np.log(np.maximum(p_u, _TINY))
        empty = p_u <= _TINY
        if empty.any():
            log_post[:, empty] = log_prior
        return h_s + float((J * log_post).sum()), log_post

    def project(logits, lam, out=None):
        if levels is not None:
            # With the working set no step needs the level masks: not made.
            return project_levels(logits, levels, p_y, budget, lam, out=out, by_cells=sparse)
        Q, lam = budget_projection(
            logits, distortion, p_y, budget, lam, distortion_sq=distortion_sq
        )
        if out is None:
            return Q, lam
        np.copyto(out, Q)
        return out, lam

    def bound(log_post, lam):
        if levels is not None:
            minima = levels.minima_of_product(p_s_given_y, log_post)
            return dual_bound_levels(minima, levels.values, p_y, budget, h_s)
        G = np.matmul(p_s_given_y, log_post, out=buffer)
        return dual_bound(G, distortion, p_y, budget, h_s, lam)

    start = _closest_mapping(distortion) if init is None else np.asarray(init, dtype=float)
    x, lam = project(np.log(np.maximum(0.5 * start + 0.5 / distortion.shape[1], _TINY)), 0.0)
    # The mirror iterate z = softmax(base - P(S|Y)^T A - lam_total d): base holds
    # log z at the last (re)start, A the scaled log-posteriors since.
    base = np.log(np.maximum(x, _TINY))
    A = np.zeros((joint.shape[0], distortion.shape[1]))
    z, spare = x.copy(), np.empty_like(x)
    # With levels, the budget multipliers accumulated since the last (re)start
    # (z = softmax(base - P^T A - lam_total d)); otherwise folded into base
    # (except on the working set, which keeps lam_total for both).
    lam_total = 0.0
    J_x = joint @ x
    J_z = J_x.copy()
    f_x, _ = value_and_log_posterior(J_x)
    # The best iterate met: dense in best_Q, or (flat indices, values) when it is z
    # on the working set; best_Q is reused (a fresh array of this size costs more
    # in page faults than the copy).
    best_Q, best_sparse, best_value = x.copy(), None, f_x
    theta, best_lower, gap = 1.0, -np.inf, np.inf
    # On the working set: z at ws's entries (z_e), and x = c * x (one scalar).
    ws = z_e = None
    c = 1.0
    history = []
    check_every = 10
    started = time.perf_counter()
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        bar.update()
        _, log_post_y = value_and_log_posterior((1.0 - theta) * J_x + theta * J_z)
        step = 1.0 / theta  # 1 / (theta^(gamma - 1) L) with gamma = 2, L = 1
        A_new = A + step * log_post_y
        if ws is not None:
            z_new, lam_z, J_z_new = ws.mirror_step(A_new, lam_total, p_y, budget, lam * step)
        elif levels is not None:
            z_new, lam_z, J_z_new = mirror_step_levels(
                base,
                p_s_given_y,
                A_new,
                lam_total,
                levels,
                p_y,
                budget,
                lam * step,
                out=spare,
                joint=joint,
                scratch=buffer,
            )
        else:
            logits = np.matmul(p_s_given_y, -A_new, out=buffer)
            logits += base
            z_new, lam_z = project(logits, lam * step, spare)
            J_z_new = joint @ z_new
        lam = lam_z / step
        J_x_new = (1.0 - theta) * J_x + theta * J_z_new
        f_new, _ = value_and_log_posterior(J_x_new)
        if f_new > f_x:
            # Restart the momentum from the last (better) point, with full steps.
            if ws is not None:
                x *= c
                c, ws, z_e = 1.0, None, None
            np.copyto(z, x)
            theta, J_z = 1.0, J_x.copy()
            np.log(np.maximum(x, _TINY, out=base), out=base)
            lam_total = 0.0
            A = np.zeros_like(A)
            continue
        if ws is not None:
            c *= 1.0 - theta
            if c < 1e-200:
                x *= c
                c = 1.0
            x.ravel()[ws.flat] += (theta / c) * z_new
            z_e = z_new
        else:
            blocked_combination(x, 1.0 - theta, z_new, theta, scratch=buffer)
            # z_new was written into the spare array; the old z becomes the spare.
            z, spare = z_new, z
        A, J_x, J_z, f_x = A_new, J_x_new, J_z_new, f_new
        if levels is not None or ws is not None:
            lam_total += lam_z
        elif lam_z > 0:
            base -= np.multiply(distortion, lam_z, out=buffer)
        theta = 0.5 * (np.sqrt(theta**4 + 4.0 * theta**2) - theta**2)
        if sparse and n_iter % (check_every if ws is not None else SWITCH_EVERY) == 0:
            # The working set: the entries of z near their row's largest.
            near = entries_near_row_max(
                base,
                p_s_given_y,
                A,
                lam_total,
                distortion,
                MARGIN,
                limit=None if ws is not None else int(SWITCH_FRACTION * distortion.size),
            )
            if near is not None:
                ws = WorkingSet(near[0], near[1], joint, p_s_given_y, distortion, base, levels)
                z_e = ws.softmax(near[2])
                J_z = ws.release(z_e)
        if n_iter % check_every:
            continue
        f_z, _ = value_and_log_posterior(J_z)
        _, log_post_x = value_and_log_posterior(J_x)
        if f_x < best_value:
            np.multiply(x, c, out=best_Q)
            best_sparse, best_value = None, f_x
        if f_z < best_value:
            if ws is None:
                np.copyto(best_Q, z)
                best_sparse = None
            else:
                best_sparse = (ws.flat, z_e.copy())
            best_value = f_z
        # The bound at z's posteriors was always far below x's (Adult: -200 against
        # 0.005 nats): z is near a vertex, most outputs empty; only x's is computed.
        best_lower = max(best_lower, bound(log_post_x, lam))
        gap = best_value - best_lower
        history.append(best_value)
        _postfix(bar, "gap {:.2e} (tol {:.0e}){}", gap, tol, "" if ws is None else ", working set")
        if verbose >= 2:  # checked here too: no message formatted in the loop otherwise
            _say(
                verbose,
                f"first-order iter {n_iter}: I(S;U)={best_value:.10g} "
                f"gap<={gap:.3g} ({time.perf_counter() - started:.2f}s)"
                + ("" if ws is None else f", working set {ws.size} entries"),
                level=2,
            )
        if gap <= tol:
            break
        if len(history) >= 3:
            d1, d2 = history[-3] - history[-2], history[-2] - history[-1]
            if 0 <= d2 < d1:
                rate = d2 / d1
                # Extrapolated distance below tol, and a certificate within 1e-5 nats.
                if d2 * rate / (1 - rate) < tol and gap <= 1e-5:
                    break
    # The certificate for the returned, exactly feasible mapping.
    if best_sparse is not None:
        best_Q.fill(0.0)
        best_Q.ravel()[best_sparse[0]] = best_sparse[1]
    Q = _clean_mapping(best_Q, p_y, distortion, budget)
    value, _ = value_and_log_posterior(joint @ Q)
    return Q, value, value - best_lower, n_iter


def max_leakage_certificate(joint, distortion, budget, eps, mu, log_post):
    """Whether ``eps`` is certified below the optimal maximum leakage.

    For weights ``mu >= 0`` on the outputs and posteriors ``r`` (``log_post``),
    every mapping meeting ``H(S | U=u) >= H(S) - eps`` for all u and the budget
    has ``0 >= sum_u mu_u p_U(u) (delta - H(S | U=u)) >= sum_{y,u} p_y Q C`` with
    ``C[y, u] = mu_u (delta + sum_s p(s|y) log r(s|u))`` (Gibbs), whose least
    value over the budget is bounded below by the dual of that linear program,
    ``max_lam sum_y p_y min_u (C + lam d) - lam budget``. A positive bound
    proves ``eps`` infeasible.
    """
    p_y = joint.sum(axis=0)
    delta = _entropy_of_s(joint) - eps
    C = (joint / np.maximum(p_y, _TINY)).T @ (mu[None, :] * (log_post + delta))
    return dual_bound(C, distortion, p_y, budget, 0.0, 1.0) > 0


def first_order_maximum(joint, distortion, budget, *, tol=1e-7, max_iter=20_000, verbose=0):
    """:func:`_first_order_maximum_loop` with one BLAS thread: ``(Q, eps_hi, eps_lo, n_iter)``."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _first_order_maximum_loop(
            joint, distortion, budget, tol=tol, max_iter=max_iter, verbose=verbose
        )


def _first_order_maximum_loop(joint, distortion, budget, *, tol=1e-7, max_iter=20_000, verbose=0):
    """Thm. 2 for large alphabets: a smoothed maximum, and a certified lower bound.

    ``F_t(Q) = sum_u p_U(u) exp(t L_u)`` with ``L_u = H(S) - H(S | U=u)`` is
    convex in ``Q`` (the perspective of the convex ``r -> exp(t (H(S) - H(r)))``),
    and ``(1/t) log F_t`` tends to the maximum leakage over the used outputs
    as ``t`` grows. Mirror steps on the rows of ``Q`` (backtracking on the
    step, each step a KL projection onto the budget) minimise it for
    ``t = 10, 30, ..., 1e4``, warm-started from the least-average-leakage
    mapping; the gradient divided by ``p_Y`` is
    ``P(S|Y)^T [w_u (1/t + log P(s|u) + H(S|U=u))]`` with ``w_u`` the
    normalised weights ``exp(t L_u) / F_t``.

    Upper end: the maximum leakage of the best mapping met (outputs below
    1e-6 pruned, budget checked). Lower end: the larger of two certificates.
    :func:`max_leakage_certificate` with the weights ``w_u`` (the multipliers
    of the perspective constraints at the smoothed optimum) and the mapping's
    posteriors, by bisection after each ``t``; and
    :func:`~._max_leakage.certified_lower_end`, which keeps the
    posteriors of the mapping of every ``t`` (and of each output's closest
    input) as cuts and optimises the weights by a small linear program at each
    level of a bisection, each level decided by the exact bound. The second is
    much tighter (500 symbols, Hamming: the bracket 0.033 nats wide instead of
    0.157; Adult, 351 symbols: 0.008 instead of 0.078) but does not close: an
    output every mapping left empty has no posterior of its own to cut at.
    The upper end is usually within 1e-3 of the optimum (it settles to that
    as ``t`` grows), but only the bracket is certified. A Frank-Wolfe bound on
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
    p_y = joint.sum(axis=0)
    h_s = _entropy_of_s(joint)
    p_s_given_y = np.ascontiguousarray((joint / np.maximum(p_y, _TINY)).T)
    levels = DistortionLevels.of(distortion)
    distortion_sq = None if levels is not None else distortion * distortion
    # Steps aim slightly inside the budget, so that pruning keeps the mapping within it.
    inner = budget - 1e-9 * max(1.0, float(distortion.max()))

    def project(logits, lam):
        if levels is not None:
            return project_levels(logits, levels, p_y, inner, lam)
        return budget_projection(logits, distortion, p_y, inner, lam, distortion_sq=distortion_sq)

    def verified(Q, lam=0.0):
        Q = settle(Q, lam, 1e-6)
        if _expected_distortion(Q, p_y, distortion) > budget + 1e-9:
            return None, np.inf
        return Q, max_information_leakage(joint @ Q)

    def settle(Q, lam, min_mass=1e-9):
        """Outputs below ``min_mass`` leave for good (a mass at the floor would
        weigh ``exp(t L_u)`` as t grows); the budget is restored by projecting again."""
        dead = (p_y @ Q) < min_mass
        if not dead.any() or dead.all():
            return Q
        kept = np.where(dead[None, :], 0.0, Q)
        if np.any(kept.sum(axis=1) <= 0):
            return Q
        with np.errstate(divide="ignore"):
            kept, _ = project(np.log(kept), lam)
        kept[:, dead] = 0.0
        return kept / kept.sum(axis=1, keepdims=True)

    def smoothed(Q, t):
        """(1/t) log F_t, the log-weights log w_u, log P(S|U) and H(S|U=u)."""
        J = joint @ Q
        p_u = np.maximum(J.sum(axis=0), _TINY)
        log_post = np.log(np.maximum(J, _TINY)) - np.log(p_u)
        h_u = -(np.exp(log_post) * log_post).sum(axis=0)
        a = np.where(p_u > _TINY, np.log(p_u) + t * (h_s - h_u), -np.inf)
        top = a.max()
        log_f = top + np.log(np.exp(a - top).sum())
        return log_f / t, a - np.log(p_u) - log_f, log_post, h_u

    # Full steps for the warm start: the smoothing below is sensitive to the last
    # bits of its start (Adult, 351 symbols: a start that differs by 1e-16 made its
    # line search stall at 0.105 instead of reaching 0.081), and the working set's
    # steps round differently.
    Q, _, _, n_iter = first_order_average(
        joint,
        distortion,
        budget,
        tol=1e-6,
        max_iter=max(1, max_iter // 4),
        sparse=False,
        verbose=min(verbose, 1),  # its bar, not its level-2 lines
        desc="first-order, maximum leakage: warm start",
    )
    Q_hi, hi = verified(Q)
    if Q_hi is None:
        Q_hi = _closest_mapping(distortion)
        hi = max_information_leakage(joint @ Q_hi)

    def certified_below(mu, log_post, hi):
        """Bisection for the largest eps that the weights ``mu`` prove infeasible."""
        lo, top = 0.0, hi
        if not max_leakage_certificate(joint, distortion, budget, 0.0, mu, log_post):
            top = 0.0
        for _ in range(40):
            if top - lo <= max(tol, 1e-3 * (hi - lo) if hi - lo > 1e-4 else tol):
                break
            mid = 0.5 * (lo + top)
            if max_leakage_certificate(joint, distortion, budget, mid, mu, log_post):
                lo = mid
            else:
                top = mid
        return lo

    lam, eta = 0.0, 1.0
    lo_smooth = 0.0
    cut_mappings = []
    log_w = log_post = None
    with _bar(verbose, max_iter, "first-order, maximum leakage", initial=n_iter) as bar:
        for t in (10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0):
            value, log_w, log_post, h_u = smoothed(Q, t)
            _postfix(bar, "t={:g}, max leakage in [{:.4g}, {:.4g}]", t, lo_smooth, hi)
            for _ in range(200):
                if n_iter >= max_iter:
                    break
                n_iter += 1
                bar.update()
                # Gradient of (1/t) log F_t divided by p_Y.
                W = np.exp(np.minimum(log_w, 600.0))[None, :] * (1.0 / t + log_post + h_u[None, :])
                G = p_s_given_y @ W
                with np.errstate(divide="ignore"):
                    log_q = np.log(Q)
                while True:
                    Q_new, lam_new = project(log_q - eta * G, lam)
                    Q_new = settle(Q_new, lam_new)
                    new = smoothed(Q_new, t)
                    if new[0] < value or eta < 1e-12:
                        break
                    eta *= 0.25
                improvement = value - new[0]
                if improvement <= 0:
                    break
                Q, lam = Q_new, lam_new
                value, log_w, log_post, h_u = new
                eta *= 2.0
                if improvement <= 1e-10 * max(1.0, abs(value)):
                    break
            Q_try, leak = verified(Q, lam)
            if leak < hi:
                Q_hi, hi = Q_try, leak
            lo_smooth = max(lo_smooth, certified_below(np.exp(log_w - log_w.max()), log_post, hi))
            cut_mappings.append(Q.copy())
            _say(
                verbose,
                f"smoothed max leakage t={t:g}: {value:.8g}, best verified {hi:.8g}, "
                f"certified >= {lo_smooth:.8g} ({n_iter} iterations)",
                level=2,
            )
            if n_iter >= max_iter:
                break
    lo_cut, _ = certified_lower_end(
        joint,
        distortion,
        budget,
        [*cut_mappings, Q_hi],
        lo_smooth,
        hi,
        tol=CUT_TOL,
        verbose=verbose,
    )
    return Q_hi, hi, min(max(lo_smooth, lo_cut), hi), n_iter
