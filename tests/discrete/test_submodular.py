"""Min-norm-point, DS procedures and IAC-MDSF against brute force over all subsets."""

import itertools

import numpy as np
import pytest

import sklearn_privacy.discrete._submodular as submodular
from sklearn_privacy.discrete._submodular import (
    EntropicSetFunction,
    _Corral,
    ds_minimize,
    iac_mdsf,
    min_norm_point,
    step_functions,
)
from sklearn_privacy.information import entropy, mutual_information


def _all_masks(n):
    return np.array(list(itertools.product([False, True], repeat=n)))


class _CutFunction:
    """Weighted graph cut plus a modular term: submodular, F(empty) = 0."""

    def __init__(self, weights, modular):
        self.w, self.m, self.n = weights, modular, len(modular)

    def value(self, mask):
        mask = np.asarray(mask, dtype=bool)
        return float(self.w[mask][:, ~mask].sum() + self.m[mask].sum())

    def chain(self, order):
        out = [0.0]
        mask = np.zeros(self.n, dtype=bool)
        for e in order:
            mask[e] = True
            out.append(self.value(mask))
        return np.asarray(out)


def test_entropic_set_function_matches_definition():
    rng = np.random.default_rng(0)
    q = rng.dirichlet(np.ones(12)).reshape(3, 4)
    F = EntropicSetFunction([(0.7, q)], modular=[0.1, -0.2, 0.3, 0.0])
    for mask in _all_masks(4):
        sub = q[:, mask]
        psi = (sub * np.log(np.where(sub > 0, sub, 1))).sum()
        total = sub.sum(axis=1)
        psi -= (total * np.log(np.where(total > 0, total, 1))).sum()
        expected = 0.7 * psi + np.array([0.1, -0.2, 0.3, 0.0])[mask].sum()
        assert F(mask) == pytest.approx(expected, abs=1e-14)
    order = rng.permutation(4)
    prefixes = np.zeros((5, 4), dtype=bool)
    for k in range(1, 5):
        prefixes[k, order[:k]] = True
    np.testing.assert_allclose(F.chain(order), F(prefixes), atol=1e-14)


def test_min_norm_point_matches_brute_force_entropic():
    rng = np.random.default_rng(1)
    for _ in range(120):
        n = int(rng.integers(2, 11))
        terms = [
            (rng.uniform(0, 2), rng.dirichlet(np.ones(n * 3)).reshape(3, n))
            for _ in range(int(rng.integers(1, 3)))
        ]
        F = EntropicSetFunction(terms, modular=rng.normal(0, 0.2, n))
        mask, value, _ = min_norm_point(F)
        assert F(mask) == pytest.approx(value, abs=1e-13)
        assert value == pytest.approx(F(_all_masks(n)).min(), abs=1e-10)


def test_min_norm_point_matches_brute_force_cut():
    rng = np.random.default_rng(2)
    for _ in range(40):
        n = int(rng.integers(2, 10))
        w = rng.uniform(0, 1, (n, n)) * (rng.uniform(size=(n, n)) < 0.5)
        F = _CutFunction(w + w.T, rng.normal(0, 1.0, n))
        mask, value, _ = min_norm_point(F)
        brute = min(F.value(m) for m in _all_masks(n))
        assert value == pytest.approx(brute, abs=1e-10)
        assert F.value(mask) == pytest.approx(value, abs=1e-12)


def test_min_norm_point_certificate_against_brute_force():
    # The returned set's value is the minimum over all subsets, and the last iterate x
    # is a point of the base polytope (x(V) = F(V), x(W) <= F(W) for every W) whose
    # negative part certifies it: F(mask) - sum min(x, 0) ~ 0.
    rng = np.random.default_rng(8)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        F = EntropicSetFunction(
            [(1.0, rng.dirichlet(np.ones(2 * n)).reshape(2, n))], modular=rng.normal(0, 0.3, n)
        )
        mask, value, x = min_norm_point(F)
        masks = _all_masks(n)
        values = F(masks)
        assert value == pytest.approx(values.min(), abs=1e-12)
        assert x.sum() == pytest.approx(F(np.ones(n, dtype=bool)), abs=1e-12)
        assert np.all(masks.astype(float) @ x <= values + 1e-12)
        assert value - np.minimum(x, 0).sum() <= 1e-10


def test_min_norm_point_certified_stop_matches_full_convergence(monkeypatch):
    # Stopping on the certificate returns the set that Wolfe's algorithm run to its own
    # convergence (certificate disabled) returns, in fewer major cycles, on tied columns too.
    rng = np.random.default_rng(9)
    counts = rng.integers(1, 4, 150)
    ones = rng.binomial(counts, 0.3)
    joint = np.vstack([counts - ones, ones]).astype(float)
    joint /= joint.sum()
    A, B = step_functions(joint, 0.1)
    # The first SSP subproblem of IAC-MDSF: A minus a modular lower bound of B tight at
    # the best pair.
    init, _ = submodular._best_pair(submodular._Difference(A, B), 150)
    F = A.plus_modular(-submodular._modular_lower_bound(B, init, submodular._Difference(A, B)))
    calls = []
    chain = EntropicSetFunction.chain
    monkeypatch.setattr(
        EntropicSetFunction, "chain", lambda self, order: calls.append(1) or chain(self, order)
    )
    mask, value, _ = min_norm_point(F)
    n_certified = len(calls)
    monkeypatch.setattr(submodular, "_CERT", -np.inf)
    calls.clear()
    full_mask, full_value, _ = min_norm_point(F, tol=1e-14)
    assert len(calls) > n_certified
    assert value == pytest.approx(full_value, abs=1e-12)
    np.testing.assert_array_equal(mask, full_mask)
    assert 1 < mask.sum() < 150


def test_corral_affine_minimizer_matches_kkt():
    # Cholesky updates (add one point, drop some) against the KKT system solved afresh.
    rng = np.random.default_rng(10)
    points = rng.normal(size=(12, 3))
    corral = _Corral(points, np.full(3, 1 / 3))
    assert corral.factor()
    for _ in range(6):
        q = rng.normal(size=12)
        assert corral.add(q, q @ q)
        points = np.column_stack([points, q])
    keep = np.ones(points.shape[1], dtype=bool)
    keep[[1, 4]] = False
    corral.weights = np.full(points.shape[1], 1 / points.shape[1])
    assert corral.keep(keep)
    points = points[:, keep]
    k = points.shape[1]
    kkt = np.zeros((k + 1, k + 1))
    kkt[:k, :k] = points.T @ points
    kkt[:k, k] = kkt[k, :k] = 1.0
    expected = np.linalg.solve(kkt, np.r_[np.zeros(k), 1.0])[:k]
    np.testing.assert_allclose(corral.affine_minimizer(), expected, atol=1e-12)
    np.testing.assert_allclose(corral.points[:, :k], points)
    # A point in the affine hull of the corral is refused.
    inside = points @ np.r_[0.5, 0.5, np.zeros(k - 2)]
    assert not corral.add(inside, inside @ inside)


def test_thm1_decomposition_over_all_subsets():
    # I(S; X_W) - lam I(X; X_W) = I(S;X) - lam H(X) + (1 - lam) f(W) - g(W) for every W.
    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.full(3 * 6, 0.6)).reshape(3, 6)
    lam = 0.35
    A, B = step_functions(joint, lam, "funnel")
    base = mutual_information(joint) - lam * entropy(joint.sum(axis=0))
    for mask in _all_masks(6):
        if mask.sum() < 2:
            continue
        merged = np.column_stack([joint[:, mask].sum(axis=1), joint[:, ~mask]])
        direct = mutual_information(merged) - lam * entropy(merged.sum(axis=0))
        assert direct == pytest.approx(base + A(mask) - B(mask), abs=1e-12)


@pytest.mark.parametrize("solver", ["ssp", "mm"])
@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_ds_minimize_local_minimum_and_monotone(solver, objective):
    rng = np.random.default_rng(4)
    for _ in range(15):
        n = int(rng.integers(3, 11))
        joint = rng.dirichlet(np.full(3 * n, 0.6)).reshape(3, n)
        A, B = step_functions(joint, rng.uniform(0, 1), objective)
        mask, value, trace = ds_minimize(A, B, solver=solver)
        assert np.all(np.diff(trace) <= 1e-15)
        assert value == pytest.approx(A(mask) - B(mask), abs=1e-14)
        flips = np.tile(mask, (n, 1))
        flips[np.arange(n), np.arange(n)] ^= True
        assert np.all(A(flips) - B(flips) >= value - 1e-12)


def _replay_steps(joint, path):
    """Current joint before each IAC-MDSF step and the step's mask on it."""
    columns, ids = joint.copy(), np.arange(joint.shape[1])
    for merged in path.merged_sets:
        mask = np.isin(ids, merged)
        yield columns, mask
        members = np.flatnonzero(mask)
        columns[:, members[0]] = columns[:, members].sum(axis=1)
        keep = np.ones(columns.shape[1], dtype=bool)
        keep[members[1:]] = False
        columns, ids = columns[:, keep], ids[keep]


@pytest.mark.parametrize("solver", ["ssp", "mm"])
@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_iac_mdsf_each_step_is_a_local_minimum_by_brute_force(solver, objective):
    rng = np.random.default_rng(5)
    n_steps = n_global = 0
    for _ in range(6):
        n = int(rng.integers(4, 11))
        joint = rng.dirichlet(np.full(3 * n, 0.5)).reshape(3, n)
        lam = float(rng.uniform(0.1, 0.9))
        path = iac_mdsf(joint, lam, objective=objective, solver=solver)
        for columns, mask in _replay_steps(joint, path):
            A, B = step_functions(columns, lam, objective)
            masks = _all_masks(columns.shape[1])
            values = A(masks) - B(masks)
            value = A(mask) - B(mask)
            assert value < 0
            flips = np.tile(mask, (mask.size, 1))
            flips[np.arange(mask.size), np.arange(mask.size)] ^= True
            assert np.all(A(flips) - B(flips) >= value - 1e-12)
            pairs = values[masks.sum(axis=1) == 2]
            assert value <= pairs.min() + 1e-12  # never worse than the best pairwise merge
            n_steps += 1
            n_global += value <= values.min() + 1e-10
        # Lagrangian goes down (funnel) or up (bottleneck) at every step.
        steps = np.diff(path.objective)
        assert np.all(steps < 0) if objective == "funnel" else np.all(steps > 0)
        # It stops only when no pair merge improves the Lagrangian any more.
        final = _final_columns(joint, path)
        if final.shape[1] > 1:
            A, B = step_functions(final, lam, objective)
            masks = _all_masks(final.shape[1])
            masks = masks[masks.sum(axis=1) == 2]
            assert np.all(A(masks) - B(masks) >= -1e-12)
    assert n_steps > 0 and n_global >= 1


def _final_columns(joint, path):
    out = np.zeros((joint.shape[0], path.n_clusters))
    np.add.at(out.T, path.labels, joint.T)
    return out


def test_iac_mdsf_path_values_and_errors():
    rng = np.random.default_rng(6)
    joint = rng.dirichlet(np.full(2 * 7, 0.5)).reshape(2, 7)
    path = iac_mdsf(joint, 0.0)
    assert path.n_clusters == 1 and path.n_iter == 1  # lam = 0: merge everything at once
    path = iac_mdsf(joint, 1.0)
    assert path.n_iter == 0  # lam = 1: no merge lowers the Lagrangian
    path = iac_mdsf(joint, 0.5)
    final = _final_columns(joint, path)
    assert path.leakage[-1] == pytest.approx(mutual_information(final), abs=1e-12)
    assert path.disclosure[-1] == pytest.approx(entropy(final.sum(axis=0)), abs=1e-12)
    with pytest.raises(ValueError, match="lam"):
        iac_mdsf(joint, 1.5)
    with pytest.raises(ValueError, match="objective"):
        iac_mdsf(joint, 0.5, objective="other")
    # a table that is not a pmf was merged as if it were one (it ran on any array)
    with pytest.raises(ValueError, match="joint must sum to 1, it sums to 2"):
        iac_mdsf(2 * joint, 0.5)
    with pytest.raises(ValueError, match="joint must hold finite non-negative"):
        iac_mdsf(np.array([[0.5, -0.1], [0.3, 0.3]]), 0.5)
    with pytest.raises(ValueError, match="solver"):
        ds_minimize(*step_functions(joint, 0.5), solver="other")


def test_bottleneck_above_one_is_a_submodular_minimisation_that_merges_everything():
    # lam > 1 (a bottleneck lam of SubmodularFunnel below I(S;X)/H(X)): A = g + (lam - 1) f,
    # B = 0, checked against the merged joint of every subset; the one-symbol release is
    # the unique maximum of I(S;Y) - lam I(X;Y), found in one step.
    rng = np.random.default_rng(7)
    joint = rng.dirichlet(np.full(3 * 6, 0.6)).reshape(3, 6)
    for lam in (1.3, 2.0):
        A, B = step_functions(joint, lam, "bottleneck")
        base = -(mutual_information(joint) - lam * entropy(joint.sum(axis=0)))
        for mask in _all_masks(6):
            if mask.sum() < 2:
                continue
            merged = np.column_stack([joint[:, mask].sum(axis=1), joint[:, ~mask]])
            direct = -(mutual_information(merged) - lam * entropy(merged.sum(axis=0)))
            assert direct == pytest.approx(base + A(mask) - B(mask), abs=1e-12)
        for solver in ("ssp", "mm"):
            path = iac_mdsf(joint, lam, objective="bottleneck", solver=solver)
            assert path.n_clusters == 1 and path.n_iter == 1
