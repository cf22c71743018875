"""Attacks on the privacy promise as people deploy a model (issue: sharing, copying, laziness).

Each attack (``tests/_attacks.py``, public API only) succeeded against the
code before this issue; ``bench_privacy_attacks.py`` prints its numbers before
and after. Here the numbers of today's code are asserted.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
from _attacks import (
    _count_table,
    clip_overshoot,
    copy_difference,
    count_table,
    dask_average,
    gib_neighbours,
    leakage_membership,
    noise_state_objects,
    pickle_replay,
    weighted_row,
)
from sklearn.base import clone

from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    L2CompressionDP,
    PPANTransformer,
    PrivacyFunnelTransformer,
)
from sklearn_privacy.dp import GaussianAccountant
from sklearn_privacy.exceptions import PrivacyLeakWarning, PrivateFitWarning

# DP fits here (attacks fit at small budgets or on few rows on purpose) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


def _mechanisms():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    s = (X[:, 1] > 0).astype(int)
    labels = np.c_[s, (X[:, :2] > 0).astype(int)]
    return [
        (L2CompressionDP(), X, None),
        (L2CompressionDP(fit_data="public"), X, None),
        (GaussianIBTransformer(beta=1e3, fit_epsilon=50.0), X, y),
        (ConvexPrivacyMapping(0.5, sensitive=[0]), labels, None),
        (PrivacyFunnelTransformer(output="sample", sensitive=[0]), labels, None),
        (PPANTransformer(sensitive=[0], max_epochs=2, hidden_layer_sizes=(4,)), labels, None),
    ]


# Small fits of every mechanism: degenerate operating points and short training are expected.
@pytest.mark.filterwarnings("ignore:.*(merged nothing|one record for every row):UserWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("mech, X, y", _mechanisms(), ids=lambda v: type(v).__name__)
def test_nothing_in_a_published_model_holds_a_noise_state(mech, X, y):
    """Point 1: pickle the fitted model; no generator, seed sequence or RNG state inside."""
    mech.fit(X, y)
    mech.transform(X)
    assert noise_state_objects(mech) == []
    assert noise_state_objects(pickle.loads(pickle.dumps(mech))) == []


def test_a_seeded_model_carries_its_seed_and_says_so():
    X = np.random.default_rng(0).normal(size=(300, 2))
    with pytest.warns(PrivacyLeakWarning, match="saved model .* carries the seed"):
        mech = L2CompressionDP(random_state=np.random.default_rng(3)).fit(X)
    assert noise_state_objects(mech)  # reproducible on purpose: the warning says it


def test_the_owners_next_release_cannot_be_predicted_from_a_pickle():
    n_states, ratio = pickle_replay()
    assert n_states == 0
    assert 0.9 < ratio < 1.1  # before: 0 states 6, residual 8e-17


@pytest.mark.parametrize("path", ["pickle", "deepcopy", "joblib", "loky", "pipeline-memory"])
def test_copies_never_share_noise(path):
    """Point 2: transform(secret) on one copy minus transform(known) on another keeps the noise."""
    assert 0.9 < copy_difference(path) < 1.1  # before: 8e-17 on every path


def test_ledgers_of_copies_combine_with_the_fit_counted_once():
    X = np.random.default_rng(0).normal(size=(2000, 2))
    mech = L2CompressionDP(epsilon=1.0).fit(X)
    fit_mu2 = mech.accountant_.mu**2
    a, b = copy.deepcopy(mech), pickle.loads(pickle.dumps(mech))
    a.transform(X)
    b.transform(X)
    b.transform(X)
    assert "release" not in [e.name for e in mech.accountant_.spends]  # each copy's own
    total = GaussianAccountant.combine(mech.accountant_, a.accountant_, b.accountant_)
    one = a.accountant_.spends[-1].mu
    assert total.mu**2 == pytest.approx(fit_mu2 + 3 * one**2, rel=1e-12)
    assert total.epsilon(mech.delta_) > max(a.privacy_spent()[0], b.privacy_spent()[0])


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_a_lazy_release_is_one_release(scheduler):
    """Point 3: 200 computes of one lazy release are one draw, recorded once."""
    ratio, spent_before, spent_after = dask_average(200, scheduler)
    assert ratio == pytest.approx(1.0, abs=1e-12)  # before: 0.071 (threads), 0.137 (sync)
    assert spent_after == spent_before


def test_a_lazy_release_yields_the_same_rows_in_any_pieces():
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 3))
    mech = L2CompressionDP(fit_data="public", clip_radius=3.0).fit(X)
    lazy = mech.transform(da.from_array(X, chunks=250))
    whole = lazy.compute()
    np.testing.assert_array_equal(lazy[300:600].compute(), whole[300:600])
    np.testing.assert_array_equal(lazy.blocks[2].compute(), whole[500:750])
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("abc")), npartitions=4)
    lazy = mech.fit(frame).transform(frame)
    whole = lazy.compute()
    pd.testing.assert_frame_equal(lazy.head(5), whole.head(5))
    pd.testing.assert_frame_equal(lazy.partitions[3].compute(), whole.iloc[750:])
    # two transforms are two releases: different noise, both recorded
    assert not np.allclose(mech.transform(frame).compute(), whole)
    assert [e.name for e in mech.accountant_.spends] == ["release", "release"]


def test_a_lazy_release_is_one_release_on_a_distributed_cluster():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).normal(size=(1000, 3))
    mech = L2CompressionDP(fit_data="public", clip_radius=3.0).fit(X)
    lazy = mech.transform(da.from_array(X, chunks=250))
    local = lazy.compute(scheduler="sync")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster):
        np.testing.assert_array_equal(lazy.compute(), local)
        np.testing.assert_array_equal(lazy.compute(), local)
    cluster.close()


def test_private_gib_fit_reads_no_encoding_off_the_rows():
    """Point 4: one person's y (0.5, a new class, the only other class) changes nothing public."""
    assert gib_neighbours(n_fits=10) == {"y=0.5": 0.0, "y=3": 0.0, "single class": 0.0}
    # before: 0.9, 0.9 and 1.0


def test_declared_classes_map_unknown_values_and_need_no_look_at_the_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = np.where(X[:, 0] > 0, "a", "b")
    odd = y.astype(object)
    odd[0] = None  # missing, outside the declared classes: counted as the first class
    params = dict(beta=1e3, fit_epsilon=50.0, classes=["a", "b"])
    a = GaussianIBTransformer(**params, random_state=np.random.default_rng(1)).fit(X, y)
    b = GaussianIBTransformer(**params, random_state=np.random.default_rng(1)).fit(X, odd)
    assert a.components_.shape == b.components_.shape
    with pytest.raises(
        ValueError, match=r"y is not numeric \(dtype <U1\): with fit_data='private'"
    ):
        GaussianIBTransformer(beta=1e3).fit(X, y)
    with pytest.raises(ValueError, match="at least two distinct classes"):
        GaussianIBTransformer(beta=1e3, classes=["a"]).fit(X, y)


def test_a_heavy_row_is_told_apart_no_better_than_the_guarantee_allows():
    """Point 5: a row of weight 100, seen through ``mean_`` alone."""
    tpr, bound = weighted_row(n_fits=100)
    assert tpr <= bound + 0.08  # before: TPR 1.00 at FPR 0.05 (bound 0.12)


@pytest.mark.filterwarnings("ignore::sklearn_privacy.exceptions.PrivacyLeakWarning")
def test_the_ledger_counts_people_and_refusals_name_the_people():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 2))
    w = np.ones(20000)
    w[0] = 10.0
    # the mean's sensitivity is 2 r0 / (the public number of people), plus the rounding of
    # the noise grid (sigma 2^-20 per coordinate, dp._grid_noise); r0 is a power of two
    cases = [("person", 1.0, 20000), ("person", 10.0, 20000), ("counts", 1.0, w.sum())]
    for weights, person, n_people in [*cases, ("counts", 0.5, 2 * w.sum())]:
        mech = L2CompressionDP(
            clip_radius=3.0, weights=weights, max_person_weight=person, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivateFitWarning)  # weight 10 > 1: clipped, warned
            spends = mech.fit(X, sample_weight=w).accountant_.spends
        mean = next(e for e in spends if e.name == "mean")
        noiseless = mean.sensitivity - mean.sigma * 2.0**-20 * np.sqrt(X.shape[1])
        r0 = noiseless * n_people / 2
        assert np.log2(r0) == pytest.approx(round(np.log2(r0)), abs=1e-9)
        # a private mean weight only where the weights of people are private
        assert (spends[0].name == "weight of the people") == (weights == "person")
    # one person of weight 1e300 (the default reading): clipped to one person, said, fitted
    w[0] = 1e300
    with pytest.warns(PrivateFitWarning, match="1 of the 20000 rows weigh more than max_"):
        heavy = L2CompressionDP(clip_radius=3.0, random_state=0).fit(X, sample_weight=w)
    assert np.all(np.abs(heavy.mean_) < 0.1)  # not the heavy row's values
    # 1e300 people, or a person of weight 1e-300: the cause is the number of people
    for weights, person in [(w, 1.0), (np.ones(20000), 1e-300)]:
        mech = L2CompressionDP(weights="counts", max_person_weight=person)
        with pytest.raises(ValueError, match="more than 2.53 people .* weights='counts'"):
            mech.fit(X, sample_weight=weights)
    # a billion people on one row (a declared count): the data set is about that row
    w[0] = 1e9
    crowd = L2CompressionDP(clip_radius=3.0, weights="counts", random_state=0)
    np.testing.assert_allclose(crowd.fit(X, sample_weight=w).mean_, X[0], atol=1e-3)
    with pytest.raises(ValueError, match="whole multiples of max_person_weight=1.0"):
        L2CompressionDP(weights="counts").fit(X[:500], sample_weight=np.full(500, 1e-3))
    with pytest.raises(ValueError, match="adds up to 0.5"):
        L2CompressionDP(fit_data="public").fit(X[:500], sample_weight=np.full(500, 1e-3))


def test_a_count_table_fits_as_its_expanded_rows_and_its_ledger_tells_no_one():
    """60000 people on about 600 distinct rows (the issue's case): moving one person onto
    the most common row changed the published sensitivity of the mean in 20 of 20 fits,
    and the table's mean was 280 times noisier than the expanded rows'."""
    differs, ratio = count_table(n_fits=5)
    assert differs == 0.0  # before: 1.0
    assert ratio == 1.0  # before: about 280
    rows, counts, _, _ = _count_table()
    y = rows[:, 0] + rows[:, 1]
    X_expanded, y_expanded = (
        np.repeat(rows, counts.astype(int), axis=0),
        np.repeat(y, counts.astype(int)),
    )
    declared = dict(weights="counts")
    for cls, params in [
        (L2CompressionDP, declared),
        (GaussianIBTransformer, dict(fit_epsilon=1.0, **declared)),
    ]:
        table = cls(**params, random_state=0).fit(rows, y, sample_weight=counts)
        expanded = cls(**params, random_state=0).fit(X_expanded, y_expanded)
        assert [(e.name, e.sensitivity, e.sigma) for e in table.accountant_.spends] == [
            (e.name, e.sensitivity, e.sigma) for e in expanded.accountant_.spends
        ]
        np.testing.assert_allclose(table.mean_, expanded.mean_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(table.components_, expanded.components_, rtol=1e-9, atol=1e-12)


def test_leakage_of_a_private_fit_is_a_function_of_the_private_estimates_only():
    """Point 6: the S of a target row cannot be read back from ``leakage_``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    s = (X[:, 0] > 0).astype(float)
    t = s.copy()
    t[0] = 1 - t[0]
    fits = [
        L2CompressionDP(clip_radius=4.0, sensitive=[2], random_state=np.random.default_rng(5)).fit(
            np.c_[X, v]
        )
        for v in (s, t)
    ]
    assert fits[0].leakage_ == fits[1].leakage_ == fits[0].rate_
    assert leakage_membership(n_fits=30) <= 0.75  # before: 1.00 (30 of 30)
    # with public fit rows the exact leakage of the fit rows is reported
    public = L2CompressionDP(clip_radius=4.0, sensitive=[2], fit_data="public").fit(np.c_[X, s])
    assert public.leakage_ < public.rate_


def test_clip_rows_never_returns_a_row_longer_than_the_radius():
    """Point 7: at any scale, subnormal ratios R / ||x|| included."""
    worst, issue_case = clip_overshoot()
    assert worst <= 1.0 and issue_case <= 1.0  # before: 1.92 and 1.99


@pytest.mark.parametrize("make", [L2CompressionDP, GaussianIBTransformer])
def test_no_single_row_decides_between_a_model_and_an_exception(make):
    """Point 7: an extreme value, a NaN or a single value in S fit privately; public rows refuse."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 3))
    y = X[:, 0] + rng.normal(size=1000)
    s = (X[:, 1] > 0).astype(float)
    params = dict(beta=1e3, fit_epsilon=50.0) if make is GaussianIBTransformer else {}
    extreme = X.copy()
    extreme[0, 0] = 1e151
    nan_s, single_s = s.copy(), np.zeros(1000)
    nan_s[0] = np.nan
    for rows, sensitive in [(extreme, s), (X, nan_s), (X, single_s)]:
        mech = make(**params, sensitive=[3]).fit(np.c_[rows, sensitive], y)
        assert np.all(np.isfinite(mech.transform(np.c_[rows, sensitive])))
    with pytest.raises(ValueError, match="overflow"):
        make(**params, fit_data="public").fit(extreme, y)
    with pytest.raises(ValueError, match="NaN"):
        make(**params, sensitive=[3], fit_data="public").fit(np.c_[X, nan_s], y)


def test_the_funnel_fits_privately_whatever_one_person_s_s():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    s = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    funnel = GaussianIBTransformer(
        objective="funnel", disclosure=0.3, fit_epsilon=50.0, classes=[0, 1]
    )
    for t in (s, np.zeros(2000, dtype=int), np.r_[[7], s[1:]]):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)
            # epsilon_ 64.65 > 20 warns in every case alike (issue 46): a published fact
            warnings.filterwarnings("ignore", ".*protects nobody", PrivacyLeakWarning)
            clone(funnel).fit(X, sensitive=t)


@pytest.mark.parametrize("via_dask", [False, True])
def test_no_cell_decides_between_a_private_fit_and_an_exception(via_dask):
    """A private fit decides from dtypes, shapes and parameters only: a pd.NA in an S that is
    not read, a stray label among numbers, a list in a y cell with declared classes."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    labels = pd.Series(np.where(X[:, 0] > 0, 1, 0), dtype=object)
    numbers = pd.Series(X[:, 1] + rng.normal(size=3000), dtype=object)
    odd_labels, odd_numbers = labels.copy(), numbers.copy()
    odd_labels[5] = [1, 2]  # a list: outside the classes, counted as the first
    odd_numbers[7] = "stray"
    s_with_na = pd.Series(np.where(X[:, 2] > 0, "f", "m"), dtype=object)
    s_with_na[3] = pd.NA

    def lift(values):
        if not via_dask:
            return values
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(values, npartitions=3)

    def fit(y, **params):
        fit_X = X
        if via_dask:
            fit_X = pytest.importorskip("dask.array").from_array(X, chunks=1000)
        mech = GaussianIBTransformer(fit_epsilon=1.0, random_state=0, **params)
        return mech.fit(fit_X, lift(y), sensitive=lift(s_with_na))

    a, b = fit(labels, classes=[0, 1]), fit(odd_labels, classes=[0, 1])
    assert a.components_.shape == b.components_.shape
    # numbers in an object column: refused for the dtype, with or without the stray label
    for y in (numbers, odd_numbers):
        with pytest.raises(ValueError, match=r"y is not numeric \(dtype object\)"):
            fit(y)
    # declared continuous, the same: the dtype decides
    for y in (numbers, odd_numbers):
        with pytest.raises(ValueError, match="its dtype is object"):
            fit(y, classes="continuous")
    assert fit(numbers.astype(float)).n_components_ >= 1
