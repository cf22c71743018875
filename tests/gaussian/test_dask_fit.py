"""Gaussian mechanisms fitted on dask collections: the in-memory fit, from dask's statistics."""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy import GaussianIBTransformer, L2CompressionDP
from sklearn_privacy.dp import clip_rows
from sklearn_privacy.dp._radius import N_BINS, bin_edges

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
from dask.callbacks import Callback  # noqa: E402

# DP fits here (dask fits run on small data at the default epsilon) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


RTOL = 1e-10


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


class CountComputes(Callback):
    """Counts the graphs dask computes (one per pass over the data)."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def _start(self, dsk):
        self.n += 1


def _data(n=3000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 3.0
    s = (X[:, 0] + rng.normal(size=n) > 3.0).astype(int)
    y = X[:, 1] - X[:, 2] + rng.normal(size=n)
    return X, s, y


def _frame(X, s):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["s"] = np.where(s == 1, "f", "m")
    return frame


def _spends(mech):
    return [(e.name, e.sensitivity, e.sigma) for e in mech.accountant_.spends]


def _operator(mech):
    """The linear map of the release, ``A^T A`` (L2: ``V^T diag(a) V``).

    Invariant to the sign of each component and to the basis chosen inside an
    eigenspace, which an eigensolver picks from rounding-level differences.
    """
    A = mech.components_
    scale = getattr(mech, "scale_", np.ones(A.shape[0]))
    return (A.T * scale) @ A


def assert_same_fit(lazy, eager, attributes):
    for name in attributes:
        np.testing.assert_allclose(
            getattr(lazy, name), getattr(eager, name), rtol=RTOL, atol=1e-13, err_msg=name
        )
    assert lazy.components_.shape == eager.components_.shape
    np.testing.assert_allclose(_operator(lazy), _operator(eager), rtol=1e-8, atol=1e-11)
    lazy_spends, eager_spends = _spends(lazy), _spends(eager)
    assert [e[0] for e in lazy_spends] == [e[0] for e in eager_spends]
    np.testing.assert_allclose(
        [e[1:] for e in lazy_spends], [e[1:] for e in eager_spends], rtol=RTOL
    )


L2_ATTRIBUTES = [
    "mean_",
    "covariance_",
    "radius_",
    "noise_covariance_",
    "scale_",
    "noise_variance_",
    "beta_",
    "epsilon_",
    "sensitivity_",
    "rate_",
    "distortion_",
    "leakage_",
]
GIB_ATTRIBUTES = [
    "mean_",
    "radius_",
    "eigenvalues_",
    "epsilon_",
    "sensitivity_",
    "rate_",
    "distortion_",
    "relevance_information_",
    "leakage_",
]


@pytest.mark.parametrize("fit_data", ["public", "private"])
@pytest.mark.parametrize("clip_radius", [None, 4.0])
def test_l2_on_a_dask_array_equals_the_in_memory_fit(fit_data, clip_radius):
    X, s, _ = _data()
    params = dict(epsilon=2.0, fit_data=fit_data, clip_radius=clip_radius, random_state=0)
    lazy = L2CompressionDP(**params).fit(da.from_array(X, chunks=(700, 2)), sensitive=s)
    eager = L2CompressionDP(**params).fit(X, sensitive=s)
    assert_same_fit(lazy, eager, L2_ATTRIBUTES)
    # the estimates are real ones: public moments are numpy's
    if fit_data == "public":
        np.testing.assert_allclose(lazy.covariance_, np.cov(X.T), rtol=RTOL)
        np.testing.assert_allclose(lazy.mean_, X.mean(axis=0), rtol=RTOL)


@pytest.mark.parametrize("fit_data", ["public", "private"])
def test_l2_with_beta_on_a_dask_frame_with_sensitive_columns(fit_data):
    X, s, _ = _data(seed=1)
    frame = _frame(X, s)
    params = dict(
        epsilon=None,
        beta=3.0,
        fit_epsilon=1.0 if fit_data == "private" else None,
        fit_data=fit_data,
        sensitive=["s"],
        random_state=0,
    )
    lazy = L2CompressionDP(**params).fit(dd.from_pandas(frame, npartitions=5))
    eager = L2CompressionDP(**params).fit(frame)
    assert_same_fit(lazy, eager, L2_ATTRIBUTES)
    assert list(lazy.feature_names_in_) == list(frame.columns)
    assert lazy.leakage_ > 0.01  # S is read (through its one-hot encoding)


@pytest.mark.parametrize("fit_data", ["public", "private"])
@pytest.mark.parametrize("y_form", ["dask", "memory"])
def test_bottleneck_with_y_on_a_dask_frame(fit_data, y_form):
    X, s, y = _data(seed=2)
    frame = _frame(X, s)
    ddf = dd.from_pandas(frame, npartitions=4)
    y_arg = da.from_array(y, chunks=1000) if y_form == "dask" else y
    params = dict(beta=5.0, fit_data=fit_data, sensitive=["s"], random_state=0)
    lazy = GaussianIBTransformer(**params).fit(ddf, y_arg)
    eager = GaussianIBTransformer(**params).fit(frame, y)
    assert lazy.n_components_ == eager.n_components_ == 1
    assert_same_fit(lazy, eager, GIB_ATTRIBUTES)


@pytest.mark.parametrize("fit_data", ["public", "private"])
def test_bottleneck_with_relevance_columns_and_labels_as_y(fit_data):
    X, s, _ = _data(seed=3)
    labels = np.where(X[:, 2] > 3.0, "high", "low")
    params = dict(beta=8.0, fit_data=fit_data, relevance=[3], random_state=0)
    lazy = GaussianIBTransformer(**params).fit(da.from_array(X, chunks=(500, 4)))
    eager = GaussianIBTransformer(**params).fit(X)
    assert_same_fit(lazy, eager, GIB_ATTRIBUTES)
    # a label y: one-hot encoded with the symbols of every partition (public fit) or
    # over the declared classes (a private fit reads no encoding off its rows)
    params = dict(beta=8.0, fit_data=fit_data, random_state=0)
    if fit_data == "private":
        params["classes"] = ["high", "low"]
    lazy = GaussianIBTransformer(**params).fit(
        da.from_array(X, chunks=(500, 4)), da.from_array(labels, chunks=800)
    )
    eager = GaussianIBTransformer(**params).fit(X, labels)
    assert_same_fit(lazy, eager, GIB_ATTRIBUTES)


@pytest.mark.parametrize("fit_data", ["public", "private"])
def test_funnel_with_dask_sensitive_metadata(fit_data):
    X, s, _ = _data(seed=4)
    params = dict(objective="funnel", disclosure=0.5, fit_data=fit_data, random_state=0)
    lazy = GaussianIBTransformer(**params).fit(
        da.from_array(X, chunks=1000), sensitive=da.from_array(s, chunks=900)
    )
    eager = GaussianIBTransformer(**params).fit(X, sensitive=s)
    # directions independent of S share an eigenvalue (1): the basis of the
    # components is not unique, the release's operator A^T A is
    assert_same_fit(lazy, eager, GIB_ATTRIBUTES)


def test_public_dask_fit_refuses_numbers_read_as_hundreds_of_classes():
    X, _, _ = _data(n=1200, seed=6)
    counts = np.random.default_rng(6).integers(1000, 5000, X.shape[0])
    n_values = np.unique(counts).size
    params = dict(objective="funnel", disclosure=0.5, fit_data="public")
    with pytest.raises(ValueError, match=rf"^sensitive has {n_values} distinct values"):
        GaussianIBTransformer(**params).fit(
            da.from_array(X, chunks=500), sensitive=da.from_array(counts, chunks=500)
        )
    frame = _frame(X, np.zeros(len(X))).assign(s=counts)
    with pytest.raises(ValueError, match=rf"^sensitive column 's' has {n_values} distinct"):
        L2CompressionDP(fit_data="public", sensitive=["s"]).fit(dd.from_pandas(frame, 3))


def test_sample_weight_on_dask_equals_the_weighted_fit_in_memory():
    X, s, _ = _data(n=800, seed=5)
    counts = np.random.default_rng(1).integers(0, 4, X.shape[0])
    expanded = np.repeat(X, counts, axis=0)
    for fit_data, weights in [("public", "person"), ("private", "person"), ("private", "counts")]:
        params = dict(epsilon=2.0, fit_data=fit_data, weights=weights, random_state=0)
        lazy = L2CompressionDP(**params).fit(
            da.from_array(X, chunks=300), sample_weight=da.from_array(counts, chunks=250)
        )
        eager = L2CompressionDP(**params).fit(X, sample_weight=counts)
        assert_same_fit(lazy, eager, L2_ATTRIBUTES[:-1])
        if fit_data == "private" and weights == "person":
            continue  # each row one person: not the expanded rows
        rows = L2CompressionDP(**params).fit(expanded)
        # counts declared as people: the expanded rows' fit, private too
        assert_same_fit(lazy, rows, ["mean_", "covariance_", "radius_"])
        assert [(e.name, e.sensitivity, e.sigma) for e in lazy.accountant_.spends] == [
            (e.name, e.sensitivity, e.sigma) for e in rows.accountant_.spends
        ]


def test_passes_over_the_data():
    """Private: histogram with bin sums; per refinement a centred histogram and a clipped sum;
    the final centred histogram; the second moment. A public radius skips the histograms."""
    X, s, _ = _data()
    cases = [
        (dict(fit_data="private"), None, 7),
        (dict(fit_data="private", clip_radius=4.0), None, 4),
        (dict(fit_data="private", clip_radius=4.0), s, 4),  # S is not read
        (dict(fit_data="public"), None, 2),
        (dict(fit_data="public", clip_radius=4.0), None, 1),
        (dict(fit_data="public", clip_radius=4.0), s, 2),  # + the symbols of S
    ]
    for params, sensitive, passes in cases:
        with CountComputes() as counter:
            L2CompressionDP(epsilon=2.0, **params).fit(
                da.from_array(X, chunks=1000), sensitive=sensitive
            )
        # plus one graph for the first rows (feature validation)
        assert counter.n == passes + 1, params


def test_clipped_sums_from_bin_sums_match_clipping_every_row():
    """The per-bin sums give the mean of the rows clipped to any grid radius (brute force)."""
    from sklearn_privacy.gaussian._moments import DaskFitRows
    from sklearn_privacy.gaussian._weights import resolve_weights

    rng = np.random.default_rng(0)
    Z = rng.standard_t(2, size=(2000, 3)) * 5
    w = rng.integers(1, 4, Z.shape[0]).astype(float)
    blocks = [dask.delayed((Z[i : i + 600], None, w[i : i + 600])) for i in range(0, 2000, 600)]
    rows = DaskFitRows(
        blocks,
        n_features=3,
        n_extra=0,
        n_released=3,
        private=True,
        want_moments=False,
        person_weights=resolve_weights("counts", 0.5, has_weights=True),
    )
    assert rows.total_weight == w.sum()
    u = w / 0.5  # a private fit counts people, in units of max_person_weight
    assert rows.n_people == u.sum()
    p = w / w.sum()  # the means it reads
    norms = np.linalg.norm(Z, axis=1)
    edges = bin_edges()
    grid_at = np.searchsorted(edges, np.quantile(norms, [0.01, 0.3, 0.6, 0.99]))
    for k in [0, *grid_at, grid_at[-1] + 40, N_BINS - 1]:
        radius = edges[k]
        np.testing.assert_allclose(
            rows.clipped_mean(radius), p @ clip_rows(Z, radius), rtol=1e-12, atol=1e-12
        )
        assert np.cumsum(rows.norm_histogram())[k] == pytest.approx(u[norms < radius].sum())
    # around a centre: one more pass
    center = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(
        rows.clipped_mean(3.0, center), p @ clip_rows(Z, 3.0, center=center), rtol=1e-12
    )
    center = Z.mean(axis=0)
    Zc = clip_rows(Z, 3.0, center=center)
    moment = rows.clipped_second_moment(center, 3.0)
    np.testing.assert_allclose(moment.moment, (Zc.T * p) @ Zc, rtol=1e-12)
    far = np.linalg.norm(Z - center, axis=1) > 3.0  # read in the same pass, in people
    assert moment.people_beyond == pytest.approx(u[far].sum(), rel=1e-12)


def test_threaded_scheduler_and_release_after_a_dask_fit():
    X, s, _ = _data(n=4000, seed=6)
    eager = L2CompressionDP(epsilon=2.0, random_state=0).fit(X)
    with dask.config.set(scheduler="threads"):
        lazy = L2CompressionDP(epsilon=2.0, random_state=0).fit(da.from_array(X, chunks=500))
        assert_same_fit(lazy, eager, L2_ATTRIBUTES)
        T = lazy.transform(da.from_array(X, chunks=500)).compute()
    assert T.shape == X.shape
    # one release of the whole collection in the ledger, whatever the partitions
    assert [e.name for e in lazy.accountant_.spends] == [
        *(e.name for e in eager.accountant_.spends),
        "release",
    ]
    assert lazy.privacy_spent()[0] == pytest.approx(lazy.epsilon_)


def test_dask_fit_errors_name_the_problem():
    X, s, _ = _data(n=600)
    lazy_X = da.from_array(X, chunks=200)
    frame = _frame(X, s)
    with pytest.raises(ValueError, match="S was given twice"):
        L2CompressionDP(sensitive=["s"]).fit(dd.from_pandas(frame, npartitions=2), sensitive=s)
    with pytest.raises(ValueError, match="needs the sensitive attribute"):
        GaussianIBTransformer(objective="funnel", disclosure=0.5).fit(lazy_X)
    with pytest.raises(ValueError, match="needs a relevance variable"):
        GaussianIBTransformer().fit(lazy_X)
    with pytest.raises(ValueError, match="sensitive takes a single value"):
        L2CompressionDP(fit_data="public").fit(lazy_X, sensitive=np.zeros(600))
    # a private fit does not branch on the values of S (it does not read them)
    L2CompressionDP().fit(lazy_X, sensitive=np.zeros(600))
    with pytest.raises(ValueError, match="y has 500 rows but X has 600"):
        GaussianIBTransformer().fit(lazy_X, y=np.zeros(500))
    bad = X.copy()
    bad[450, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        L2CompressionDP().fit(da.from_array(bad, chunks=200))
    huge = X.copy()
    huge[:, 2] *= 1e160
    with pytest.raises(ValueError, match="Column 2 of X"):
        L2CompressionDP(fit_data="public").fit(da.from_array(huge, chunks=200))
    with pytest.raises(ValueError, match="sample_weight"):
        L2CompressionDP().fit(lazy_X, sample_weight=-np.ones(600))


@pytest.mark.parametrize("clip_radius", [None, 3.0])
def test_a_row_whose_norm_overflows_fits_on_dask_as_in_memory(clip_radius):
    """Row 0 = (1.3e308, 1.3e308, 0): its norm overflows to inf. On dask it fell into the
    bin of [0.5, 1) and its raw values entered the clipped sum (LinAlgError in 4 of 4 fits)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 3))
    X[0] = (1.3e308, 1.3e308, 0.0)
    params = dict(epsilon=4.0, clip_radius=clip_radius, random_state=0)
    lazy = L2CompressionDP(**params).fit(da.from_array(X, chunks=5000))
    eager = L2CompressionDP(**params).fit(X)
    assert_same_fit(lazy, eager, L2_ATTRIBUTES[:-1])
    assert np.all(np.abs(lazy.mean_) < 0.1)


@pytest.mark.parametrize("replacement", ["far", "overflowing", "pd.NA in S", "stray y label"])
def test_neighbouring_dask_fits_publish_the_same_ledger_and_shapes(replacement):
    """Neighbours on dask, one row apart (a far row, one whose norm overflows, a pd.NA in
    an S that is not read, a y label outside the declared classes): no exception, the same
    estimates in the ledger and the same shapes (the sensitivities follow the private radii,
    which are DP outputs; the audit of test_privacy_claims bounds what they reveal)."""
    X, s, y = _data(n=4000, seed=3)
    Xp, sp = X.copy(), s.astype(object)
    labels = (y > np.median(y)).astype(int)
    labels_p = labels.astype(object)
    if replacement == "far":
        Xp[0] = 1e30
    elif replacement == "overflowing":
        Xp[0] = 1.3e308
    elif replacement == "pd.NA in S":
        sp[0] = pd.NA
    else:
        labels_p[0] = "stray"
    ledgers, shapes = [], []
    for data, sens, lab in [(X, s.astype(object), labels.astype(object)), (Xp, sp, labels_p)]:
        for mech in (
            L2CompressionDP(epsilon=2.0, random_state=0),
            GaussianIBTransformer(beta=50.0, fit_epsilon=2.0, classes=[0, 1], random_state=0),
        ):
            mech.fit(
                da.from_array(data, chunks=1500),
                dd.from_pandas(pd.Series(lab), npartitions=3),
                sensitive=dd.from_pandas(pd.Series(sens), npartitions=3),
            )
            ledgers.append([e.name for e in mech.accountant_.spends])
            shapes.append(mech.components_.shape)
    assert ledgers[:2] == ledgers[2:]
    assert shapes[:2] == shapes[2:]
