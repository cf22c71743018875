"""Greedy funnel/bottleneck against the from-scratch textbook greedy and the stored-cost one."""

from pathlib import Path

import numpy as np
import pytest
from _fdlibm_reference import fdlibm_log
from _greedy_cases import reference_cases, reference_kwargs, sparse_tied_joint, tied_joints
from _textbook_greedy import greedy_merge_stored, greedy_merge_textbook

from sklearn_privacy.discrete._greedy import _MergeState, greedy_merge, greedy_sweep
from sklearn_privacy.information import entropy, mutual_information


def _random_joints(seed, n_cases, max_x=8):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n_s, n_x = rng.integers(2, 5), rng.integers(2, max_x + 1)
        yield rng, rng.dirichlet(np.full(n_s * n_x, 0.7)).reshape(n_s, n_x)


def _assert_same_path(a, b, atol=1e-10):
    np.testing.assert_array_equal(a.merges, b.merges)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_allclose(a.leakage, b.leakage, rtol=0, atol=atol)
    np.testing.assert_allclose(a.disclosure, b.disclosure, rtol=0, atol=atol)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_threshold_matches_textbook(objective):
    for rng, joint in _random_joints(0, 60):
        top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
        for threshold in [0.0, *rng.uniform(0, top, 3)]:
            fast = greedy_merge(joint, objective=objective, threshold=threshold)
            _assert_same_path(
                fast, greedy_merge_textbook(joint, objective=objective, threshold=threshold)
            )
            # Every state of the path satisfies the constraint.
            bound = fast.disclosure if objective == "funnel" else fast.leakage
            assert np.all(bound >= threshold - 1e-12)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
@pytest.mark.parametrize("lam", [0.0, 0.4, 0.9, 1.5])
def test_greedy_lagrangian_matches_textbook(objective, lam):
    for _, joint in _random_joints(1, 25):
        fast = greedy_merge(joint, objective=objective, lam=lam)
        _assert_same_path(fast, greedy_merge_textbook(joint, objective=objective, lam=lam))
        lagrangian = fast.leakage - lam * fast.disclosure
        steps = np.diff(lagrangian)
        assert np.all(steps < 0) if objective == "funnel" else np.all(steps > 0)


def test_greedy_path_values_are_exact_informations():
    _, joint = next(_random_joints(2, 1))
    path = greedy_merge(joint, threshold=0.0)
    merged = np.zeros((joint.shape[1], path.n_clusters))
    merged[np.arange(joint.shape[1]), path.labels] = 1
    assert path.n_clusters == 1
    assert path.leakage[-1] == pytest.approx(0.0, abs=1e-12)
    assert path.leakage[0] == pytest.approx(mutual_information(joint))
    assert path.disclosure[0] == pytest.approx(entropy(joint.sum(axis=0)))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": 0.0},
        {"threshold": "half"},
        {"lam": 0.3},
        {"objective": "bottleneck", "lam": 0.7},
    ],
)
def test_greedy_large_alphabet_matches_vectorised_textbook(kwargs):
    # n > 64 exercises the slot compaction of the incremental loop.
    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.full(4 * 120, 0.5)).reshape(4, 120)
    if kwargs.get("threshold") == "half":
        kwargs = {"threshold": 0.5 * entropy(joint.sum(axis=0))}
    fast = greedy_merge(joint, **kwargs)
    _assert_same_path(fast, greedy_merge_textbook(joint, exact=False, **kwargs))


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_sweep_equals_individual_runs(objective):
    for rng, joint in _random_joints(4, 20, max_x=8):
        top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
        thresholds = [top, *rng.uniform(0, top, 5), 0.0]
        for threshold, path in zip(
            thresholds, greedy_sweep(joint, thresholds, objective=objective)
        ):
            _assert_same_path(
                path, greedy_merge(joint, objective=objective, threshold=threshold), 1e-12
            )
    rng = np.random.default_rng(5)
    joint = rng.dirichlet(np.full(3 * 90, 0.5)).reshape(3, 90)
    thresholds = np.linspace(0, entropy(joint.sum(axis=0)), 9)
    for threshold, path in zip(thresholds, greedy_sweep(joint, thresholds)):
        _assert_same_path(path, greedy_merge(joint, threshold=threshold), 1e-12)


def test_greedy_errors():
    joint = np.array([[0.2, 0.3], [0.4, 0.1]])
    with pytest.raises(ValueError, match="threshold must lie in"):
        greedy_merge(joint, threshold=5.0)
    with pytest.raises(ValueError, match="threshold must lie in"):
        greedy_merge(joint, objective="bottleneck", threshold=0.5)
    with pytest.raises(ValueError, match="exactly one"):
        greedy_merge(joint, threshold=0.1, lam=0.1)
    with pytest.raises(ValueError, match="objective"):
        greedy_merge(joint, objective="other", threshold=0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        greedy_merge(joint * 2, threshold=0.1)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_choice_is_first_best_pair_of_current_costs(objective, monkeypatch):
    # Oracle for the bookkeeping (per-row bounds, lazy feasibility, ties, slot
    # compaction): before every merge, brute force over all live pairs of the
    # state's own cost matrices gives the lexicographically first best pair.
    from sklearn_privacy.discrete import _greedy

    checked = []
    merge = _greedy._MergeState.merge

    def checked_merge(state, i, j):
        live = np.flatnonzero(state.active)
        a, b = np.triu_indices(live.size, 1)
        a, b = live[a], live[b]
        gain, cost = state.pair_values(a, b)
        if cost is not None:
            gain = np.where(cost <= state.budget(threshold), gain, -np.inf)
        else:
            gain = np.where(gain > _greedy._TOL, gain, -np.inf)
        # The tie rule: the first pair within _TIE of the best gain.
        best = int(np.flatnonzero(gain >= gain.max() - _greedy._TIE)[0])
        assert (a[best], b[best]) == (i, j)
        checked.append(gain[best])
        return merge(state, i, j)

    monkeypatch.setattr(_greedy._MergeState, "merge", checked_merge)
    for rng, joint in tied_joints(6, 16):
        top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
        for threshold, lam in [(0.0, None), (rng.uniform(0, top), None), (None, 0.5)]:
            greedy_merge(joint, objective=objective, threshold=threshold, lam=lam)
    assert len(checked) > 500
    # Ties were exercised: many merges chose among equal best gains.
    assert len(checked) > len(set(checked))


def test_greedy_triangle_is_the_pair_values_of_both_orders():
    from sklearn_privacy.discrete._greedy import _MergeState, _run

    _, joint = next(_random_joints(7, 1, max_x=40))
    joint = np.hstack([joint, next(tied_joints(7, 1))[1][: joint.shape[0]]])
    joint /= joint.sum()
    for objective, lam in [("funnel", None), ("bottleneck", None), ("funnel", 0.4)]:
        state = _MergeState(joint, objective, lam)
        _run(state, None if lam is not None else 0.0, max_merges=20)
        live = np.flatnonzero(state.active)
        a, b = np.triu_indices(live.size, 1)
        for one, other in zip(
            state.pair_values(live[a], live[b]), state.pair_values(live[b], live[a])
        ):
            if one is not None:
                np.testing.assert_array_equal(one, other)
        # A row recomputed alone gives the entries to its right as the pairwise values.
        for r in live[:5]:
            _, gain, _ = state.row(r, np.inf)
            right = live[live > r]
            pair_gain, _ = state.pair_values(np.full(right.size, r), right)
            if lam is None:
                np.testing.assert_array_equal(gain[right - r - 1], pair_gain)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_equals_the_stored_cost_reference_to_the_bit(objective):
    # greedy_merge_stored keeps the full matrix of the stored-cost arithmetic and
    # brute-forces every choice: the same merges in the same order and the same
    # informations to the bit, ties included.
    for rng, joint in reference_cases(12):
        for kwargs in reference_kwargs(rng, joint, objective):
            fast = greedy_merge(joint, objective=objective, **kwargs)
            ref = greedy_merge_stored(joint, objective=objective, **kwargs)
            np.testing.assert_array_equal(fast.merges, ref.merges)
            np.testing.assert_array_equal(fast.leakage, ref.leakage)
            np.testing.assert_array_equal(fast.disclosure, ref.disclosure)
            np.testing.assert_array_equal(fast.labels, ref.labels)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_keeps_the_paths_of_its_pairwise_summing_predecessor(objective):
    # tests/discrete/data/greedy_reference.npz (``python tests/_greedy_cases.py``) holds
    # the paths of the greedy as it was before issue 38, which summed over S pairwise
    # on Fortran-ordered buffers (a Fortran-ordered joint, and after its first
    # compaction). Today's in-order sums round differently for |S| >= 8 only: the
    # same merges, the informations within 1e-12. For |S| < 8 the sums are the same
    # operations, but the fixture's logarithms are one CPU's: numpy's AVX-512 log differs
    # from the C library's in the last bit, so the informations agree within 1e-14
    # (with fdlibm's logarithm in place of numpy's, as a stand-in for another CPU, they
    # differ by at most 4.4e-16), and the merges exactly.
    stored = np.load(Path(__file__).parent / "data" / "greedy_reference.npz")
    n_differ = 0
    for c, (rng, joint) in enumerate(reference_cases(12)):
        for k, kwargs in enumerate(reference_kwargs(rng, joint, objective)):
            path = greedy_merge(joint, objective=objective, **kwargs)
            key = f"{objective}_{c}_{k}"
            np.testing.assert_array_equal(path.merges, stored[f"{key}_merges"])
            atol = 1e-14 if joint.shape[0] < 8 else 1e-12
            for name in ("leakage", "disclosure"):
                ref = stored[f"{key}_{name}"]
                np.testing.assert_allclose(getattr(path, name), ref, rtol=0, atol=atol)
                if joint.shape[0] >= 8:
                    n_differ += not np.array_equal(getattr(path, name), ref)
    assert n_differ > 0  # the cases with |S| >= 8 exercise the other order


def test_greedy_equals_the_stored_cost_reference_on_adult(data_home):
    from sklearn_privacy.datasets import fetch_adult
    from sklearn_privacy.discrete import PrivacyFunnelTransformer

    frame = fetch_adult(data_home=data_home, as_frame=True).frame
    X = frame[["education", "relationship", "race", "sex"]].astype(str)
    for objective, kwargs in [
        ("funnel", {"threshold": 0.8}),
        ("funnel", {"threshold": 0.5}),
        ("bottleneck", {"threshold": 0.5}),
        ("funnel", {"lam": 0.5}),
    ]:
        est = PrivacyFunnelTransformer(objective=objective, sensitive=["sex"], **kwargs).fit(X)
        mode = {"lam": est.multiplier_} if "lam" in kwargs else {"threshold": est.threshold_}
        ref = greedy_merge_stored(est.joint_, objective=objective, **mode)
        assert est.alphabet_.n_symbols_ > 300
        np.testing.assert_array_equal(est.path_.merges, ref.merges)
        np.testing.assert_array_equal(est.path_.leakage, ref.leakage)
        np.testing.assert_array_equal(est.path_.disclosure, ref.disclosure)


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_sweep_equals_individual_runs_with_ties(objective):
    for rng, joint in tied_joints(8, 8):
        top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
        thresholds = [0.0, *rng.uniform(0, top, 6), top]
        for threshold, path in zip(
            thresholds, greedy_sweep(joint, thresholds, objective=objective)
        ):
            _assert_same_path(
                path, greedy_merge(joint, objective=objective, threshold=threshold), 0.0
            )


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_greedy_matches_textbook_on_sparse_tied_counts(objective):
    # The shared tie rule (_TIE): the from-scratch informations of the textbook
    # and the Prop. 1 costs round differently, so exact ties of one are near ties
    # of the other; both merge the first pair within _TIE of the best.
    rng = np.random.default_rng(11)
    for n_x in [12, 40, 120, 200]:
        joint = sparse_tied_joint(rng, n_x)
        top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
        exact = n_x <= 40
        for kwargs in [{"threshold": 0.0}, {"threshold": 0.8 * top}, {"lam": 0.5}]:
            fast = greedy_merge(joint, objective=objective, **kwargs)
            _assert_same_path(
                fast, greedy_merge_textbook(joint, objective=objective, exact=exact, **kwargs)
            )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"objective": "funnel", "threshold": 3.0},
        {"objective": "bottleneck", "threshold": 0.05},
        {"objective": "funnel", "lam": 0.5},
    ],
)
def test_greedy_threads_change_nothing(kwargs):
    # The initial costs split over threads (rows k, k + n_jobs, ...) give the same
    # triangle, so the same merges and the same path values, to the bit; 900 symbols
    # make 2 and 3 threads both run on the initial costs (a thread per 256 long rows).
    from joblib import parallel_config

    joint = np.random.default_rng(7).dirichlet(np.full(4 * 900, 0.5)).reshape(4, 900)
    one = greedy_merge(joint, n_jobs=1, **kwargs)
    assert len(one.merges) > 10
    with parallel_config(n_jobs=2):
        in_context = greedy_merge(joint, **kwargs)
    for other in (greedy_merge(joint, n_jobs=3, **kwargs), in_context):
        np.testing.assert_array_equal(other.merges, one.merges)
        np.testing.assert_array_equal(other.leakage, one.leakage)
        np.testing.assert_array_equal(other.disclosure, one.disclosure)
    objective, lam = kwargs["objective"], kwargs.get("lam")
    states = [_MergeState(joint, objective, lam, 1), _MergeState(joint, objective, lam, 3)]
    np.testing.assert_array_equal(states[1].D, states[0].D)
    for a, b in zip(states[1].initial_bests(), states[0].initial_bests(), strict=True):
        np.testing.assert_array_equal(a, b)


# -- the compiled kernels (numba, the ``fast`` extra) ---------------------------------


@pytest.fixture
def compiled(monkeypatch):
    """Every state of the test on the compiled kernels, whatever its size."""
    pytest.importorskip("numba")
    from sklearn_privacy.discrete import _compiled, _greedy

    kernels = _compiled.compiled("_greedy_kernels")
    assert kernels is not None
    monkeypatch.setattr(_greedy, "_COMPILED_WORK", 0)
    return kernels


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_compiled_greedy_equals_the_stored_cost_reference_to_the_bit(objective, compiled):
    # The stored-cost reference with the kernels' logarithm (written in numpy): the same
    # merges, informations and labels to the bit, ties, zeros and compactions included.
    for rng, joint in reference_cases(12):
        for kwargs in reference_kwargs(rng, joint, objective):
            fast = greedy_merge(joint, objective=objective, **kwargs)
            ref = greedy_merge_stored(joint, objective=objective, log=fdlibm_log, **kwargs)
            np.testing.assert_array_equal(fast.merges, ref.merges)
            np.testing.assert_array_equal(fast.leakage, ref.leakage)
            np.testing.assert_array_equal(fast.disclosure, ref.disclosure)
            np.testing.assert_array_equal(fast.labels, ref.labels)


def test_compiled_and_numpy_greedy_make_the_same_merges(compiled, monkeypatch):
    # The two logarithms differ by 1 ulp on a few inputs: the same merges on every
    # reference case (no gain sits within rounding of the tie window's edge there),
    # the informations within 1e-12.
    from sklearn_privacy.discrete import _greedy

    for objective in ("funnel", "bottleneck"):
        for rng, joint in reference_cases(5):
            for kwargs in reference_kwargs(rng, joint, objective):
                monkeypatch.setattr(_greedy, "_COMPILED_WORK", 0)
                fast = greedy_merge(joint, objective=objective, **kwargs)
                monkeypatch.setattr(_greedy, "_COMPILED_WORK", np.inf)
                _assert_same_path(fast, greedy_merge(joint, objective=objective, **kwargs), 1e-12)


def test_compiled_greedy_matches_textbook_on_sparse_tied_counts(compiled):
    rng = np.random.default_rng(11)
    for n_x in [40, 200]:
        joint = sparse_tied_joint(rng, n_x)
        for kwargs in [{"threshold": 0.0}, {"lam": 0.5}]:
            _assert_same_path(
                greedy_merge(joint, **kwargs),
                greedy_merge_textbook(joint, exact=n_x <= 40, **kwargs),
            )


def test_compiled_threads_change_nothing(compiled):
    joint = np.random.default_rng(7).dirichlet(np.full(4 * 900, 0.5)).reshape(4, 900)
    for objective, lam in [("funnel", None), ("bottleneck", None), ("funnel", 0.5)]:
        states = [_MergeState(joint, objective, lam, k) for k in (1, 3)]
        assert states[0].kernels is compiled
        np.testing.assert_array_equal(states[1].D, states[0].D)
        for a, b in zip(states[1].initial_bests(), states[0].initial_bests(), strict=True):
            np.testing.assert_array_equal(a, b)
    one = greedy_merge(joint, threshold=3.0, n_jobs=1)
    np.testing.assert_array_equal(greedy_merge(joint, threshold=3.0, n_jobs=2).leakage, one.leakage)


def test_numpy_path_without_numba(monkeypatch):
    # Without numba (or with its JIT disabled) every state runs on numpy, at any size.
    import sys

    from sklearn_privacy import discrete
    from sklearn_privacy.discrete import _compiled, _greedy, _greedy_kernels_numpy

    monkeypatch.setitem(sys.modules, "numba", None)
    for name in ("_greedy_kernels", "_fdlibm"):
        monkeypatch.delitem(sys.modules, f"sklearn_privacy.discrete.{name}", raising=False)
        monkeypatch.delattr(discrete, name, raising=False)
    monkeypatch.setattr(_greedy, "_COMPILED_WORK", 0)
    _compiled.compiled.cache_clear()
    try:
        assert _compiled.compiled("_greedy_kernels") is None
        joint = np.random.default_rng(1).dirichlet(np.full(3 * 50, 0.5)).reshape(3, 50)
        assert _MergeState(joint, "funnel", None).kernels is _greedy_kernels_numpy
        ref = greedy_merge_stored(joint, threshold=1.0)
        np.testing.assert_array_equal(greedy_merge(joint, threshold=1.0).leakage, ref.leakage)
    finally:
        _compiled.compiled.cache_clear()
