"""Probe (issue 38): how far the exact dual certifies the maximum leakage at 500 symbols.

The case of ``bench_discrete_solvers.py certificate`` (|S| = 6, Dirichlet(0.5) joint, Hamming,
budget 0.05). At a level ``eps`` the Lagrange dual with free posteriors ``r(.|u)`` for every
output (those that every mapping leaves empty included) is
``max_{nu >= 0, r} sum_y p_y min_u (d + nu_u (delta + sum_s p(s|y) log r(s|u))) - budget``
(Gibbs, Sion), concave in ``m = nu r`` (the perspective of ``log``). This probe maximises its
soft-min smoothing (temperatures 1e-2 ... 1e-4, L-BFGS, 300 iterations each) from the
posteriors of the solver's mapping, and prints the exact certificate
(:func:`~sklearn_privacy.discrete._convex._max_leakage.cut_certificate`, positive: the level
is proved infeasible) at each temperature. It is a measurement, not a solver.

``python benchmarks/probe_max_leakage_dual.py [eps ...]`` (default 0.4742 0.478 0.482).
"""

import sys
import time

import numpy as np
from scipy.optimize import minimize

import sklearn_privacy.discrete._convex._first_order_loops as loops
from sklearn_privacy.discrete import min_maximum_leakage_mapping
from sklearn_privacy.discrete._convex._max_leakage import cut_certificate


def solver_inputs():
    """The problem and mappings the solver hands to its cut certificate, and its bracket."""
    seen = {}

    def spy(problem, mappings, lo, hi, **kwargs):
        seen.update(problem=problem, mappings=mappings, bracket=(lo, hi))
        return lo, 0

    real, loops.certified_lower_end = loops.certified_lower_end, spy
    try:
        rng = np.random.default_rng(0)
        joint = rng.dirichlet(np.full(6 * 500, 0.5)).reshape(6, 500)
        min_maximum_leakage_mapping(joint, 1 - np.eye(500), 0.05, solver="first-order")
    finally:
        loops.certified_lower_end = real
    return seen["problem"], seen["mappings"], seen["bracket"]


def start(problem, Q):
    """``log m`` at the posteriors of ``Q``, those of the closest input at its empty outputs."""
    J = problem.joint @ Q
    p_u = J.sum(axis=0)
    post = J / np.maximum(p_u, 1e-300)
    empty = p_u < 1e-9
    post[:, empty] = problem.p_s_given_y[problem.distortion.argmin(axis=0)].T[:, empty]
    return np.log(np.maximum(post, 1e-12)).ravel()


def smoothed(theta, problem, delta, tau):
    """Minus the soft-min dual and its gradient in ``log m``."""
    P, D, p_y = problem.p_s_given_y, problem.distortion, problem.p_y
    log_m = theta.reshape(-1, D.shape[1])
    m = np.exp(log_m)
    nu = m.sum(axis=0)
    log_r = log_m - np.log(nu)
    C = delta + P @ log_r
    R = D + nu * C
    low = R.min(axis=1, keepdims=True)
    E = np.exp(-(R - low) / tau)
    Z = E.sum(axis=1, keepdims=True)
    value = p_y @ (low[:, 0] - tau * np.log(Z[:, 0])) - problem.budget
    A = p_y[:, None] * E / Z
    grad = ((A * (C - 1)).sum(axis=0)[None, :] + (P.T @ A) / np.exp(log_r)) * m
    return -value, -grad.ravel()


def exact(theta, problem, delta):
    log_m = theta.reshape(-1, problem.distortion.shape[1])
    nu = np.exp(log_m).sum(axis=0)
    cut = problem.p_s_given_y @ (log_m - np.log(nu) - 1e-12)
    return cut_certificate(problem, delta, [cut], nu[:, None])


def main():
    levels = [float(a) for a in sys.argv[1:]] or [0.4742, 0.478, 0.482]
    problem, mappings, (lo, hi) = solver_inputs()
    print(f"solver's bracket before its cut certificate: [{lo:.6f}, {hi:.6f}]")
    for eps in levels:
        theta, delta, cpu = start(problem, mappings[-1]), problem.h_s - eps, time.process_time()
        for tau in (1e-2, 3e-3, 1e-3, 3e-4, 1e-4):
            res = minimize(
                smoothed,
                theta,
                args=(problem, delta, tau),
                jac=True,
                method="L-BFGS-B",
                options={"maxiter": 300},
            )
            theta = res.x
            value = exact(theta, problem, delta)
            print(
                f"eps {eps:.4f} tau {tau:g}: smoothed {-res.fun:.3e}, exact {value:.3e} "
                f"({time.process_time() - cpu:.1f} s CPU)",
                flush=True,
            )
            if value > 0:
                break


if __name__ == "__main__":
    main()
