"""A table of distinct rows and their counts fits exactly as the expanded rows."""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    L2CompressionDP,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)

# DP fits here (weight checks fit on few rows) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


def _counted(frame):
    """(distinct rows, counts) of a DataFrame, as SQL's GROUP BY ... COUNT(*) gives them."""
    counts = frame.groupby(list(frame.columns)).size()
    return counts.index.to_frame(index=False), counts.to_numpy()


def _signed(rows):
    """Rows with their largest entry positive (eigenvectors are defined up to sign)."""
    peak = rows[np.arange(rows.shape[0]), np.argmax(np.abs(rows), axis=1)]
    return rows * np.sign(peak)[:, None]


@pytest.fixture
def categorical():
    rng = np.random.default_rng(0)
    n = 4000
    s = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.75, s, rng.integers(0, 3, n))
    return pd.DataFrame(
        {"s": s.astype(str), "a": a.astype(str), "b": rng.integers(0, 4, n).astype(str)}
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: PrivacyFunnelTransformer(0.7, sensitive=["s"]),
        lambda: PrivacyFunnelTransformer(objective="bottleneck", lam=2.0, sensitive=["s"]),
        lambda: SubmodularFunnel(lam=2.0, sensitive=["s"]),
        lambda: ConvexPrivacyMapping(0.2, sensitive=["s"], random_state=0),
        lambda: ConvexPrivacyMapping(0.3, leakage="maximum", sensitive=["s"], random_state=0),
    ],
    ids=["funnel", "bottleneck", "submodular", "convex-average", "convex-maximum"],
)
def test_discrete_mechanisms_fit_counts_as_the_expanded_rows(categorical, make):
    rows, counts = _counted(categorical)
    expanded = make().fit(categorical)
    weighted = make().fit(rows, sample_weight=counts)
    np.testing.assert_allclose(weighted.joint_, expanded.joint_, atol=1e-15)
    mapping = "mapping_" if isinstance(expanded, ConvexPrivacyMapping) else "labels_"
    np.testing.assert_allclose(getattr(weighted, mapping), getattr(expanded, mapping), atol=1e-8)
    assert weighted.leakage_ == pytest.approx(expanded.leakage_, abs=1e-9)
    assert weighted.distortion_ == pytest.approx(expanded.distortion_, abs=1e-9)


@pytest.mark.parametrize("fit_data", ["public", "private"])
def test_gaussian_mechanisms_fit_counts_as_the_expanded_rows(fit_data):
    rng = np.random.default_rng(0)
    distinct = rng.normal(size=(300, 3))
    counts = rng.integers(1, 6, 300)
    expanded = np.repeat(distinct, counts, axis=0)
    for make, y in [
        (
            lambda: L2CompressionDP(
                epsilon=4.0, fit_data=fit_data, weights="counts", random_state=0
            ),
            None,
        ),
        (
            # a private fit of 300 rows of weight up to 5 needs a large budget
            lambda: GaussianIBTransformer(
                beta=20.0 if fit_data == "public" else 1e4,
                fit_data=fit_data,
                fit_epsilon=None if fit_data == "public" else 50.0,
                weights="counts",
                random_state=0,
            ),
            "first column",
        ),
    ]:
        y_d = None if y is None else distinct[:, 0] + 0.5 * rng.normal(size=300)
        y_e = None if y is None else np.repeat(y_d, counts)
        a = make().fit(expanded, y_e)
        b = make().fit(distinct, y_d, sample_weight=counts)
        if fit_data == "private":
            # counts are people (declared): the same ledger, the same noise
            assert [(e.name, e.sensitivity, e.sigma) for e in b.accountant_.spends] == [
                (e.name, e.sensitivity, e.sigma) for e in a.accountant_.spends
            ]
        np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(_signed(b.components_), _signed(a.components_), atol=1e-7)
        assert b.epsilon_ == pytest.approx(a.epsilon_, rel=1e-9)
        assert [e.sensitivity for e in b.accountant_.spends] == pytest.approx(
            [e.sensitivity for e in a.accountant_.spends]
        )


def test_weights_of_zero_leave_rows_out_and_bad_weights_are_named(categorical):
    rows, counts = _counted(categorical)
    counts = counts.astype(float)
    counts[0] = 0.0
    kept = ConvexPrivacyMapping(0.2, sensitive=["s"]).fit(rows.iloc[1:], sample_weight=counts[1:])
    zeroed = ConvexPrivacyMapping(0.2, sensitive=["s"]).fit(rows, sample_weight=counts)
    np.testing.assert_allclose(zeroed.joint_, kept.joint_)
    with pytest.raises(ValueError, match="[Nn]egative"):
        ConvexPrivacyMapping(0.2, sensitive=["s"]).fit(rows, sample_weight=-counts)
