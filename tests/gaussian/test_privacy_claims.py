"""Attacks on the DP guarantees of the Gaussian mechanisms (issue: privacy claims that hold).

The audit computes, for a fitted mechanism and a pair of neighbouring data sets
(one row replaced adversarially), the actual shift of every Gaussian mechanism
that touched the private rows, given what was published before it (the radii,
the centre, the release map): ``mu_k = ||f_k(D) - f_k(D')|| / sigma_k``. Given
that prefix the published quantities are independent Gaussians, so the pair's
privacy loss is Gaussian with ``mu^2 = sum mu_k^2``; its exact delta at the
reported epsilon (evaluated with mpmath at 50 digits, independently of the
library's log-space formulas) must not exceed the reported delta.
"""

import warnings

import mpmath
import numpy as np
import pytest

from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP
from sklearn_privacy.utils import sensitive_design_matrix

# DP fits here (claims are checked at small budgets on purpose) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


mpmath.mp.dps = 50


def exact_delta(epsilon, mu):
    """delta(epsilon) of a Gaussian privacy loss with shift mu (Balle and Wang, Thm. 8)."""
    if mu == 0 or epsilon == np.inf:
        return 0.0
    eps, mu = mpmath.mpf(epsilon), mpmath.mpf(mu)
    value = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
    return float(value)


def _clip(Z, radius, center=0.0):
    Zc = np.asarray(Z, dtype=np.longdouble) - center
    norms = np.sqrt(np.sum(Zc**2, axis=1))
    return Zc * np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None]


def _norms(Z, center):
    return np.sqrt(np.sum((np.asarray(Z, dtype=np.longdouble) - center) ** 2, axis=1))


def _release_map(mech):
    """Whitened release map W (noise N(0, I) after whitening) acting on clipped centred rows."""
    if isinstance(mech, L2CompressionDP):
        return (mech.scale_ / np.sqrt(mech.noise_variance_))[:, None] * mech.components_
    return mech.components_


def _joint_rows(mech, X, y=None, s=None):
    """The rows the fit-time estimates saw: released columns, then the relevance variable."""
    if isinstance(mech, L2CompressionDP):
        return X
    if mech.objective == "funnel":
        return np.hstack([X, sensitive_design_matrix(s)])
    return np.hstack([X, sensitive_design_matrix(y, "y")])


# Every published value is drawn on a grid of 2^-20 noise deviations (dp/_grid_noise.py):
# the rounding moves each of m coordinates by at most half a step, so the grid mechanism
# shifts by at most the noiseless shift plus 2^-20 sqrt(m) deviations, which the ledger
# records in each entry's sensitivity.
_GRID = 2.0**-20


def _noiseless(entry, m):
    """The sensitivity of an entry's noiseless statistic (without the grid's rounding)."""
    return entry.sensitivity - entry.sigma * _GRID * np.sqrt(m)


def _people(mech, w, n):
    """Each row's weight in people, and the public number of people (as the fit counts)."""
    if w is None:
        return np.ones(n), float(n)
    bound = getattr(mech, "max_person_weight", 1.0)
    if getattr(mech, "weights", "counts") == "person":
        return np.minimum(w, bound) / bound, float(n)
    units = np.asarray(w, dtype=float) / bound
    return units, float(units.sum())


def actual_mu(mech, Z, Zp, w=None, releases=1, wp=None):
    """GDP shift of everything published for the neighbours Z, Zp with weights w, wp.

    ``w``: the weights of the rows (``wp``, those of ``Zp``: ``w`` by default);
    neighbours replace one person (``weights="person"``: one row and its weight)
    or move one person of a count table. Every statistic is a sum over the
    people divided by their public number; ``releases``: how many independent
    releases were published.
    """
    u, n_people = _people(mech, w, Z.shape[0])
    up = u if wp is None else _people(mech, wp, Zp.shape[0])[0]
    mus = []
    d = Z.shape[1]
    starts = iter(getattr(mech, "_refinement_starts", []))
    for entry in mech.accountant_.spends:
        if entry.name.startswith("radius"):
            # a count changes by at most one person per bin: the recorded value is exact
            mus.append(entry.mu)
        elif entry.name == "weight of the people":
            shift = abs(u.sum() - up.sum()) / n_people
            mus.append(float(shift) / entry.sigma + _GRID)
        elif entry.name == "mean":
            r0 = _noiseless(entry, d) * n_people / 2.0
            shift = np.linalg.norm((u @ _clip(Z, r0) - up @ _clip(Zp, r0)) / n_people)
            mus.append(float(shift) / entry.sigma + _GRID * np.sqrt(d))
        elif entry.name == "centre":
            reach = _noiseless(entry, d) * n_people / 2.0
            c1 = next(starts)
            shift = np.linalg.norm((u @ _clip(Z, reach, c1) - up @ _clip(Zp, reach, c1)) / n_people)
            mus.append(float(shift) / entry.sigma + _GRID * np.sqrt(d))
        elif entry.name == "covariance":
            n_upper = d * (d + 1) // 2
            radius = np.sqrt(_noiseless(entry, n_upper) * n_people / np.sqrt(2.0))
            c = mech._moments_mean
            A, B = _clip(Z, radius, c), _clip(Zp, radius, c)
            diff = np.triu(((A.T * u) @ A - (B.T * up) @ B) / n_people)
            mus.append(float(np.sqrt(np.sum(diff**2))) / entry.sigma + _GRID * np.sqrt(n_upper))
        elif entry.name == "people beyond the radius":
            c = mech._moments_mean
            far, farp = (_norms(V, c) > mech.radius_ for V in (Z, Zp))
            shift = abs(u[far].sum() - up[farp].sum()) / n_people
            mus.append(float(shift) / entry.sigma + _GRID)
        elif entry.name == "release":
            continue  # counted below, from the map itself
        else:  # pragma: no cover - the ledger holds nothing else
            raise AssertionError(entry.name)
    # the release: the worst pair of rows in the clipping ball (ends of the top
    # singular direction of the whitened map), computed from the map itself
    W = _release_map(mech)
    top = np.linalg.svd(W, compute_uv=False)[0] if W.size else 0.0
    # (a map that moves nothing rounds every row to the same grid point)
    rounding = _GRID * np.sqrt(W.shape[0]) if top > 0 else 0.0
    # (a map of zeros, GIB's centre, releases a constant: radius_ may be NaN then)
    mus.extend([2.0 * mech.radius_ * float(top) + rounding if top > 0 else 0.0] * releases)
    return float(np.sqrt(np.sum(np.square(mus))))


def _neighbours(rng, Z, scale):
    """Replace one row adversarially: it moves the mean and the top component.

    Either a far point in a random direction, or the row of largest norm sent
    to the opposite side beyond every radius of the private grid (1e30): both
    it and its replacement are clipped to opposite ends of a diameter, the
    largest change of a clipped mean.
    """
    Zp = Z.copy()
    if rng.random() < 0.5:
        j = rng.integers(Z.shape[0])
        direction = rng.normal(size=Z.shape[1])
        far = 10.0 ** rng.uniform(0, 4) * scale
        Zp[j] = Z.mean(axis=0) + far * direction / np.linalg.norm(direction)
    else:
        Zp[_far_row(Z)] = _antipode(Z)
    return Zp


def _far_row(Z):
    return int(np.argmax(np.linalg.norm(Z, axis=1)))


def _antipode(Z):
    row = Z[_far_row(Z)]
    return -1e31 * row / np.linalg.norm(row)


def _random_config(seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-6, 6)
    epsilon = 10.0 ** rng.uniform(-3, 2)
    delta = 10.0 ** rng.uniform(-10, -3)
    d = int(rng.integers(1, 5))
    n = int(rng.integers(100, 400))
    B = rng.normal(size=(d, d))
    X = (rng.normal(size=(n, d)) @ B + 3.0 * rng.normal(size=d)) * scale
    fit_data = "private" if rng.random() < 0.6 else "public"
    clip = None if rng.random() < 0.5 else float(10.0 ** rng.uniform(-1, 1) * scale)
    kind = rng.choice(["l2-epsilon", "l2-beta", "gib", "funnel"])
    y = X[:, 0] + scale * rng.normal(size=n)
    s = (X[:, -1] + scale * rng.normal(size=n) > np.median(X[:, -1])).astype(int)
    common = {
        "delta": delta,
        "fit_data": fit_data,
        "clip_radius": clip,
        "random_state": np.random.default_rng(seed),
    }
    if kind == "l2-epsilon":
        fit_eps = (
            None if fit_data == "public" or rng.random() < 0.5 else epsilon * rng.uniform(0.1, 0.9)
        )
        n_comp = None if rng.random() < 0.7 else 1
        mech = L2CompressionDP(epsilon=epsilon, fit_epsilon=fit_eps, n_components=n_comp, **common)
    elif kind == "l2-beta":
        # beta above the critical value of the sample covariance
        s_max = np.linalg.eigvalsh(np.atleast_2d(np.cov(X, rowvar=False))).max()
        mech = L2CompressionDP(
            epsilon=None,
            beta=float(10.0 ** rng.uniform(0.5, 3) / s_max),
            fit_epsilon=None if fit_data == "public" else epsilon,
            **common,
        )
    elif kind == "gib":
        mech = GaussianIBTransformer(
            beta=float(10.0 ** rng.uniform(0.2, 3)),
            fit_epsilon=None if fit_data == "public" else epsilon,
            **common,
        )
    else:
        mech = GaussianIBTransformer(
            objective="funnel",
            disclosure=float(rng.uniform(0.05, 0.5)),
            fit_epsilon=None if fit_data == "public" else epsilon,
            **common,
        )
    # how it is deployed: a count table (a neighbour moves one person), rows of one person
    # of a survey weight up to 3 (declared; a neighbour replaces a person by one of another
    # weight), a dask fit, a dask or copied release
    weights = rng.choice(["none", "counts", "floats"], p=[0.5, 0.25, 0.25])
    w = {
        "none": None,
        "counts": rng.integers(1, 5, n).astype(float),
        "floats": rng.uniform(0.2, 3.0, n),
    }[weights]
    mech.set_params(weights="counts" if weights == "counts" else "person")
    if weights == "floats":
        mech.set_params(max_person_weight=3.0)
    via_dask = bool(rng.random() < 0.3)
    release = rng.choice(["memory", "dask", "copies"])
    return rng, mech, X, y, s, scale, w, via_dask, release


# The audit draws budgets down to epsilon 0.001 and GIB's beta below its critical values on
# purpose: "almost pure noise" and "one column of zeros" releases are expected.
@pytest.mark.filterwarnings("ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning")
@pytest.mark.filterwarnings("ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning")
@pytest.mark.parametrize("seed", range(420))
def test_exact_delta_of_everything_published_is_at_most_delta(seed):
    """The audit: the fit, then one release (in memory, lazy) or one on each of two copies."""
    import copy
    import pickle

    from sklearn_privacy.dp import GaussianAccountant

    rng, mech, X, y, s, scale, w, via_dask, release = _random_config(seed)
    if release == "copies":
        mech.set_params(random_state=None)  # as deployed: copies of a seeded model share noise
    funnel = getattr(mech, "objective", None) == "funnel"
    fit_X, fit_y, fit_s, fit_w = X, y, s, w
    if via_dask:
        da = pytest.importorskip("dask.array")
        fit_X, fit_y, fit_s = (da.from_array(v, chunks=70) for v in (X, y, s))
        fit_w = None if w is None else da.from_array(w, chunks=70)
    try:
        mech.fit(fit_X, fit_y, sample_weight=fit_w, **({"sensitive": fit_s} if funnel else {}))
    except ValueError as exc:
        # a private histogram that showed no scale: refused, a post-processing of the private
        # histogram, nothing else released. (Noise that put the quantile beyond 3e150 refused
        # 1 fit in about 3000 at seed 81, epsilon 0.011, before issue 47; no longer.)
        refusals = ("critical", "private estimate of the joint", "showed no scale")
        assert any(words in str(exc) for words in refusals), exc
        pytest.skip(f"refused: {exc}")
    Z = _joint_rows(mech, X, y, s)
    Zp, wp = (_neighbours(rng, Z, scale) if mech.fit_data == "private" else Z), None
    j = int(np.flatnonzero(np.any(Zp != Z, axis=1))[0]) if not np.array_equal(Zp, Z) else 0
    if w is not None and mech.weights == "counts":
        # a count table: one person of a row moves to the neighbour's new row
        Zp, wp = np.vstack([Z, Zp[j]]), np.append(w, 1.0)
        wp[j] -= 1.0
    elif w is not None:
        # one person replaced by another of any weight up to the bound
        wp = w.copy()
        wp[j] = 3.0 if w[j] < 1.5 else 0.2
    rows = X[:60]
    if release == "memory":
        mech.transform(rows)
        epsilon, n_releases = mech.privacy_spent()[0], 1
        assert epsilon == pytest.approx(mech.epsilon_, rel=1e-12)
    elif release == "dask":
        da = pytest.importorskip("dask.array")
        lazy = mech.transform(da.from_array(rows, chunks=25))
        np.testing.assert_array_equal(lazy.compute(), lazy.compute())  # one release
        epsilon, n_releases = mech.privacy_spent()[0], 1
        assert epsilon == pytest.approx(mech.epsilon_, rel=1e-12)
    else:
        a, b = pickle.loads(pickle.dumps(mech)), copy.deepcopy(mech)
        Ta, Tb = a.transform(rows), b.transform(rows)
        # fresh noise on each copy, wherever float64 can show noise at all (a runaway
        # private centre can round it away: then two releases of one copy agree too)
        if not np.array_equal(Ta, a.transform(rows)):
            assert not np.array_equal(Ta, Tb)
        n_extra = 1  # the check's second release of copy a, counted below
        combined = GaussianAccountant.combine(mech.accountant_, a.accountant_, b.accountant_)
        epsilon, n_releases = combined.epsilon(mech.delta_), 2 + n_extra
    mu = actual_mu(mech, Z, Zp, w, releases=n_releases, wp=wp)
    assert exact_delta(epsilon, mu) <= mech.delta_ * (1 + 1e-6)
    if mech.fit_data == "public":
        assert {e.name for e in mech.accountant_.spends} <= {"release"}


def _audit_pair(mech, X):
    Z = _joint_rows(mech, X)
    Zp = Z.copy()
    Zp[_far_row(Z)] = _antipode(Z)
    return exact_delta(mech.epsilon_, actual_mu(mech, Z, Zp))


def test_audit_catches_an_under_noised_release_and_an_under_noised_mean():
    rng = np.random.default_rng(0)
    # rows enough for the private estimates (at 500 some fits read no scale and release 0)
    X = rng.normal(size=(3000, 3))
    mech = L2CompressionDP(epsilon=1.0, delta=1e-6, random_state=np.random.default_rng(1)).fit(X)
    assert mech.n_components_ > 0
    assert _audit_pair(mech, X) <= 1e-6 * (1 + 1e-6)
    quiet = L2CompressionDP(epsilon=1.0, delta=1e-6, random_state=np.random.default_rng(2)).fit(X)
    quiet.noise_variance_ = quiet.noise_variance_ / 4.0
    assert _audit_pair(quiet, X) > 1e-5
    # a mean released with a tenth of its noise
    spends = mech.accountant_.spends
    i = [e.name for e in spends].index("mean")
    spends[i] = type(spends[i])("mean", spends[i].sensitivity, spends[i].sigma / 10.0)
    assert _audit_pair(mech, X) > 1e-5


def _component_coordinates(mech, X):
    """Noiseless coordinates ``a * V^T clip(x - c)`` of the release."""
    centred = _clip(X, mech.radius_, mech.mean_).astype(float)
    return centred @ mech.components_.T * mech.scale_


def test_two_releases_of_one_fit_have_independent_noise():
    # Fresh noise on purpose (random_state=None, as deployed). At 4000 rows |corr| exceeded
    # 0.05 (3.2 sd of a correlation, 1 / sqrt(n)) in 5 of 3000 runs; at 20000 rows the bound
    # is 7.1 sd and rtol=0.1 is 10 sd (over 1000 runs: max |corr| median 0.005, 99 % 0.018,
    # max 0.030; largest relative variance error median 0.007, 99 % 0.027, max 0.035).
    rng = np.random.default_rng(0)
    public, private = rng.normal(size=(3000, 3)), rng.normal(size=(20000, 3))
    mech = L2CompressionDP(epsilon=1.0, clip_radius=3.0, fit_data="public").fit(public)
    signal = _component_coordinates(mech, private)
    noise = [(mech.transform(private) - mech.mean_) @ mech.components_.T - signal for _ in range(2)]
    # the difference of two releases has the variance of two independent draws
    var = np.var(noise[0] - noise[1], axis=0)
    np.testing.assert_allclose(var, 2 * mech.noise_variance_, rtol=0.1)
    corr = [np.corrcoef(noise[0][:, k], noise[1][:, k])[0, 1] for k in range(mech.n_components_)]
    assert np.max(np.abs(corr)) < 0.05
    # attack 1: transform(private) - transform(known) no longer equals the noiseless difference
    known = rng.normal(size=private.shape)
    diff = mech.transform(private) - mech.transform(known)
    noiseless = (signal - _component_coordinates(mech, known)) @ mech.components_
    residual = (diff - noiseless) @ mech.components_.T
    np.testing.assert_allclose(np.var(residual, axis=0), 2 * mech.noise_variance_, rtol=0.1)
    # three releases: the accountant composes them, as if of the same rows
    assert [e.name for e in mech.accountant_.spends] == ["release"] * 4
    assert mech.privacy_spent()[0] > mech.epsilon_


def test_two_fits_at_different_epsilons_do_not_reveal_the_data():
    """Attack 2: two releases, two linear equations per component, unknown noise."""
    rng = np.random.default_rng(0)
    public, private = rng.normal(size=(3000, 2)), rng.normal(size=(3000, 2))

    def attack(seed):
        mechs = [
            L2CompressionDP(epsilon=e, clip_radius=3.0, fit_data="public", random_state=seed)
            for e in (1.0, 4.0)
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            coords = [(m.fit(public).transform(private) - m.mean_) @ m.components_.T for m in mechs]
        a = [m.scale_ for m in mechs]
        sd = [np.sqrt(m.noise_variance_) for m in mechs]
        # r_i = a_i u + sd_i z with a shared z: eliminate z
        u_hat = (sd[1] * coords[0] - sd[0] * coords[1]) / (a[0] * sd[1] - a[1] * sd[0])
        truth = _clip(private, 3.0, mechs[0].mean_).astype(float) @ mechs[0].components_.T
        return np.sqrt(np.mean((u_hat - truth) ** 2)) / np.std(truth)

    # the same integer seed shares the noise: the attack works, hence the warning (to the
    # rounding of each release to its noise grid, 2^-20 of the noise's deviation)
    assert attack(7) < 1e-5
    # fresh entropy (random_state=None): the attacker learns nothing useful
    assert attack(None) > 1.0


def test_integer_seed_warns_on_dp_mechanisms_only():
    X = np.random.default_rng(0).normal(size=(300, 2))
    with pytest.warns(PrivacyLeakWarning, match="never|publish"):
        L2CompressionDP(random_state=0).fit(X)
    with pytest.warns(PrivacyLeakWarning):
        GaussianIBTransformer(beta=1e3, random_state=0).fit(X, X[:, 0] + X[:, 1])
    # a Generator or RandomState is a seed too: the saved model carries its state
    for seed in (np.random.default_rng(0), np.random.RandomState(0)):
        with pytest.warns(PrivacyLeakWarning, match="saved model .* carries the seed"):
            L2CompressionDP(random_state=seed).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        L2CompressionDP(random_state=None).fit(X)


def test_fit_time_estimates_and_release_noise_are_independent():
    """Over many integer seeds, the DP mean's noise and the release noise are uncorrelated."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 1))
    mean_noise, release_noise = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for seed in range(300):
            mech = L2CompressionDP(epsilon=2.0, clip_radius=3.0, random_state=seed).fit(X)
            mean_noise.append(mech.mean_[0] - X.mean())
            T = mech.transform(X[:1])
            release_noise.append(
                ((T - mech.mean_) @ mech.components_.T - _component_coordinates(mech, X[:1]))[0, 0]
            )
    assert abs(np.corrcoef(mean_noise, release_noise)[0, 1]) < 0.15
    # the release's first draw is not the mean's (they came from one stream before)
    assert not np.isclose(mean_noise[0], release_noise[0])


def test_neighbouring_fits_of_the_information_bottleneck():
    """Attack 3: GIB(beta=8, R=1) fitted on D and D' (one row replaced)."""
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 3))
    y = X[:, 0] + 0.5 * rng.normal(size=n)
    Xp = X.copy()
    Xp[0] = [40.0, -40.0, 40.0]
    # A seeded Generator (not an int: no PrivacyLeakWarning): with random_state=None about
    # 3.5 % of private fits put beta below the noisy covariance's critical value and release
    # only noise.
    gib = GaussianIBTransformer(
        beta=8.0, clip_radius=1.0, fit_epsilon=1.0, random_state=np.random.default_rng(1)
    ).fit(X, y)
    Z = _joint_rows(gib, X, y)
    Zp = _joint_rows(gib, Xp, y)
    mu = actual_mu(gib, Z, Zp)
    assert mu <= gib.accountant_.mu * 1.0000001 or exact_delta(gib.epsilon_, mu) <= gib.delta_
    assert exact_delta(gib.epsilon_, mu) <= gib.delta_ * (1 + 1e-6)
    # declared public, the same fit on private rows would be told apart: the
    # guarantee then covers the release only, as the attributes say
    public = GaussianIBTransformer(beta=8.0, clip_radius=1.0, fit_data="public").fit(X, y)
    assert public.accountant_.spends == []
    assert public.epsilon_ == public.release_epsilon_


@pytest.mark.filterwarnings("ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning")
@pytest.mark.parametrize(
    "std, epsilon, delta", [(5e-5, 1e-3, 1e-6), (1e-6, 1e-3, 1e-6), (1e-6, 1.0, 1e-5)]
)
def test_calibration_does_not_cancel_at_tiny_scales(std, epsilon, delta):
    rng = np.random.default_rng(0)
    X = std * rng.normal(size=(2000, 3))
    mech = L2CompressionDP(epsilon=epsilon, delta=delta, clip_radius=1.0, fit_data="public")
    mech.fit(X)
    assert mech.n_components_ >= 1
    assert mech.epsilon_ <= epsilon * (1 + 1e-9)
    # exact delta of the whitened sensitivity actually used
    sens = 2 * np.max(mech.scale_ / np.sqrt(mech.noise_variance_))
    assert exact_delta(mech.epsilon_, sens) <= delta * (1 + 1e-6)


def test_pruning_every_component_warns():
    X = np.random.default_rng(0).normal(size=(500, 2))
    mech = L2CompressionDP(epsilon=None, beta=1.5, fit_data="public")
    mech.fit(X)  # beta s_max > 1: at least one component
    tiny = 1e-140 * np.random.default_rng(0).normal(size=(500, 2))
    with pytest.warns(UserWarning, match="every component was pruned"):
        L2CompressionDP(epsilon=1e-3, clip_radius=1e10, fit_data="public").fit(tiny)


@pytest.mark.parametrize("scale, match", [(1e300, "overflow"), (1e-300, "underflow")])
@pytest.mark.parametrize("make", [L2CompressionDP, GaussianIBTransformer])
def test_extreme_scales_are_refused_clearly(scale, match, make):
    rng = np.random.default_rng(0)
    X = scale * rng.normal(size=(200, 3))
    with pytest.raises(ValueError, match=match):
        make(fit_data="public").fit(X[:, :2], X[:, 2] / scale)


@pytest.mark.parametrize("make", [L2CompressionDP, GaussianIBTransformer])
def test_string_sensitive_column_is_read_as_labels(make):
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    frame["s"] = np.where(rng.random(300) < 0.5, "f", "m")
    y = frame["a"] + rng.normal(size=300)
    mech = make(sensitive=["s"], fit_data="public").fit(frame, y)
    assert np.isfinite(mech.leakage_)
    assert mech.transform(frame).shape[0] == 300
    frame["b"] = "text"
    with pytest.raises(ValueError, match="released columns of X .* non-numeric"):
        make(sensitive=["s"], fit_data="public").fit(frame, y)


@pytest.mark.parametrize("scale", [1e160, 1e200, 1e300])
@pytest.mark.parametrize("make", [L2CompressionDP, GaussianIBTransformer])
def test_private_fits_beyond_the_largest_radius_are_refused_with_the_cause(scale, make):
    """Rows of size 1e160-1e300 were clipped to 3e150 and released there silently (40 of
    40 fits): mean_ 3.4e150 for data at 1e200. The refusal is read off the private
    histogram (post-processing), never off one row."""
    rng = np.random.default_rng(0)
    X = scale * rng.normal(size=(3000, 3))
    params = dict(fit_epsilon=1.0) if make is GaussianIBTransformer else {}
    with pytest.raises(ValueError, match=r"beyond 3.27e\+150: their squares overflow .* public"):
        make(random_state=0, **params).fit(X, X[:, 0] > 0)
    # at 1e140 the rows fit, and the centre is theirs
    mech = make(random_state=0, **params).fit(X / scale * 1e140, X[:, 0] > 0)
    assert np.all(np.abs(mech.mean_) < 1e140)
    assert np.linalg.norm(mech.mean_) > 0
