"""dask collections: discrete fits from dask's row counts, lazy releases by partition."""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy import ConvexPrivacyMapping, L2CompressionDP
from sklearn_privacy.dp import clip_rows

# DP fits here (plumbing checks fit on few rows) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 3000
    s = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "s": np.where(s == 1, "f", "m"),
            "a": np.where(rng.random(n) < 0.8, s, 1 - s).astype(str),
            "b": rng.integers(0, 3, n).astype(str),
        }
    )


def test_discrete_fit_from_dask_counts_equals_the_in_memory_fit(frame):
    ddf = dd.from_pandas(frame, npartitions=4)
    lazy = ConvexPrivacyMapping(0.2, sensitive=["s"], random_state=0).fit(ddf)
    eager = ConvexPrivacyMapping(0.2, sensitive=["s"], random_state=0).fit(frame)
    np.testing.assert_allclose(lazy.joint_, eager.joint_, atol=1e-15)
    np.testing.assert_allclose(lazy.mapping_, eager.mapping_, atol=1e-9)
    assert lazy.leakage_ == pytest.approx(eager.leakage_, abs=1e-9)


def test_dask_release_is_lazy_fresh_and_partitioned(frame):
    ddf = dd.from_pandas(frame, npartitions=4)
    mech = ConvexPrivacyMapping(0.2, sensitive=["s"], random_state=0).fit(frame)
    out = mech.transform(ddf)
    assert isinstance(out, dd.DataFrame) and out.npartitions == 4
    assert list(out.columns) == list(mech.get_feature_names_out())
    first, second = out.compute(), mech.transform(ddf).compute()
    assert len(first) == len(frame)
    assert not first.equals(second)  # every transform draws afresh
    # partitions draw from different streams: equal partitions get different draws
    twice = dd.from_pandas(pd.concat([frame.iloc[:500]] * 2, ignore_index=True), npartitions=2)
    parts = mech.transform(twice).compute()
    assert not np.array_equal(parts.iloc[:500].to_numpy(), parts.iloc[500:].to_numpy())
    # the release follows the mapping: its Hamming distortion is the fitted one
    changed = np.mean(first.to_numpy() != frame[["a", "b"]].to_numpy())
    assert changed == pytest.approx(mech.distortion_, abs=0.02)


def test_gaussian_release_of_a_dask_array_records_one_release():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3))
    mech = L2CompressionDP(epsilon=2.0, clip_radius=3.0, fit_data="public").fit(X)
    lazy = mech.transform(da.from_array(X, chunks=(1000, 3)))
    assert [e.name for e in mech.accountant_.spends] == ["release"]
    T = lazy.compute()
    assert T.shape == X.shape
    signal = clip_rows(X, mech.radius_, center=mech.mean_) @ mech.components_.T * mech.scale_
    noise = (T - mech.mean_) @ mech.components_.T - signal
    np.testing.assert_allclose(np.var(noise, axis=0), mech.noise_variance_, rtol=0.1)
    # the fit on a dask array is that of the rows in memory (tests/gaussian/test_dask_fit.py)
    lazy_fit = L2CompressionDP(epsilon=2.0, clip_radius=3.0, fit_data="public")
    lazy_fit.fit(da.from_array(X, chunks=(1000, 3)))
    np.testing.assert_allclose(lazy_fit.covariance_, mech.covariance_, rtol=1e-10)


def test_leakage_scorer_reads_a_dask_fold(frame):
    from sklearn_privacy.metrics import make_leakage_scorer

    mech = ConvexPrivacyMapping(0.2, sensitive=["s"], random_state=0).fit(frame)
    lazy = make_leakage_scorer()(mech, dd.from_pandas(frame, npartitions=3))
    eager = make_leakage_scorer()(mech, frame)
    assert lazy == pytest.approx(eager, abs=0.02) and lazy < 0


def test_distinct_row_counts_match_pandas_groupby():
    """Per-partition code counts, added in a tree, are pandas' counts of the whole frame."""
    from sklearn_privacy.utils._dask import count_distinct_rows

    rng = np.random.default_rng(0)
    n = 4000
    frame = pd.DataFrame(
        {
            "s": rng.integers(0, 2, n),
            "a": pd.Categorical(rng.choice(["p", "q", "r"], n)),
            "b": rng.choice(["u", "v", None], n).astype(object),
        }
    )
    frame.loc[::7, "a"] = np.nan
    with dask.config.set(scheduler="synchronous"):
        rows, counts = count_distinct_rows(dd.from_pandas(frame, npartitions=5))
    expected = frame.groupby(["s", "a", "b"], dropna=False, observed=True).size()
    got = pd.Series(counts, index=pd.MultiIndex.from_frame(rows.astype(str)))
    expected.index = pd.MultiIndex.from_frame(expected.index.to_frame(index=False).astype(str))
    assert counts.sum() == n and len(got) == len(expected)
    pd.testing.assert_series_equal(
        got.sort_index(), expected.sort_index().astype(float), check_names=False
    )
