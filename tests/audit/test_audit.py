"""audit_privacy on mechanisms of known privacy: sound ones pass, broken ones are caught.

The broken mechanisms are written here, each a noisy clipped sum whose ledger claims
``mu`` while the noise, the seed or the sensitivity is wrong: the true mu is known in
closed form, and each test asserts the audit finds most of it (so that a weaker audit
fails the test), not only that it finds a violation.
"""

import itertools
import warnings
from functools import lru_cache

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from scipy.stats import binomtest, norm
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_privacy.audit import AuditResult, audit_from_statistics, audit_privacy
from sklearn_privacy.audit._bounds import clopper_pearson_upper
from sklearn_privacy.base import AuditPlan, PrivacyClaim
from sklearn_privacy.discrete import PrivacyFunnelTransformer
from sklearn_privacy.dp import GaussianAccountant, clip_to_ball
from sklearn_privacy.exceptions import (
    DegenerateReleaseWarning,
    PrivacyLeakWarning,
    PrivateFitWarning,
)
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP
from sklearn_privacy.metrics import leakage_score

# The noise of the sound fits: one stream for the whole module (each fit draws the next
# numbers), so that the tests' numbers are the same at every run. A parameter would not do:
# clone deep-copies it, and every fit would draw the same noise (the seeded fault below).
_NOISE = np.random.default_rng(12345)


@lru_cache
def _epsilon(mu, delta):
    ledger = GaussianAccountant()
    ledger.spend("sum", sensitivity=mu, sigma=1.0)
    return ledger.epsilon(delta)


class NoisySum(TransformerMixin, BaseEstimator):
    """Publishes the weighted sum of rows clipped to ``radius`` plus Gaussian noise.

    The ledger claims ``mu``: noise of sd ``sensitivity / mu`` with sensitivity
    ``2 radius max_person_weight``. The faults: ``noise_factor`` scales the noise
    actually drawn; ``seed`` draws the same noise at every fit; ``ignore_weight``
    computes the sensitivity as if every person weighed 1.
    """

    def __init__(
        self,
        mu=1.0,
        radius=1.0,
        max_person_weight=1.0,
        noise_factor=1.0,
        seed=None,
        ignore_weight=False,
    ):
        self.mu = mu
        self.radius = radius
        self.max_person_weight = max_person_weight
        self.noise_factor = noise_factor
        self.seed = seed
        self.ignore_weight = ignore_weight

    def fit(self, X, y=None, sample_weight=None):
        X = np.asarray(X, dtype=float)
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
        weight = 1.0 if self.ignore_weight else self.max_person_weight
        sensitivity = 2.0 * self.radius * weight
        sigma = sensitivity / self.mu
        rng = _NOISE if self.seed is None else np.random.default_rng(self.seed)
        total = w @ clip_to_ball(X, self.radius)
        self.sum_ = total + self.noise_factor * sigma * rng.standard_normal(X.shape[1])
        self.accountant_ = GaussianAccountant()
        self.accountant_.spend("sum", sensitivity=sensitivity, sigma=sigma)
        self.delta_ = 1e-5
        return self

    def audit_claim(self):
        """The audit protocol: the ledger's claim."""
        mu = self.accountant_.mu
        return PrivacyClaim(_epsilon(mu, self.delta_), self.delta_, mu)

    def audit_plan(self, X, y=None, *, sensitive=None, sample_weight=None):
        """The audit protocol: one person weighs max_person_weight."""
        return AuditPlan(person_weight=self.max_person_weight)

    def transform(self, X):
        return np.tile(self.sum_, (len(X), 1))  # the release is the published sum


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).normal(size=(50, 3)) * [2.0, 1.0, 0.5]


def test_a_sound_mechanism_passes_and_is_measured_near_its_mu(X):
    result = audit_privacy(NoisySum(mu=1.0), X, n_trials=2000, random_state=0)
    assert result.kind == "dp" and not result.violated
    assert result.mu_claimed == pytest.approx(1.0)
    assert 0.6 <= result.mu_lower <= 1.0
    assert "replace-one: row" in result.neighbour


def test_halved_noise_is_caught(X):
    """True mu 2 against a claimed 1."""
    result = audit_privacy(NoisySum(mu=1.0, noise_factor=0.5), X, n_trials=2000, random_state=0)
    assert result.violated
    assert result.mu_lower > 1.4  # 70 % of the true mu: a weaker audit fails here


def test_seeded_noise_reused_across_fits_is_caught(X):
    """The same noise at every fit: D and D' are told apart every time, and the bound is the
    largest that 1000 evaluation trials can certify, log((1 - delta - p) / p), p the
    Clopper-Pearson bound on a rate seen 0 times in 1000."""
    result = audit_privacy(NoisySum(mu=1.0, seed=0), X, n_trials=2000, random_state=0)
    p = clopper_pearson_upper(0, 1000, 0.025)
    assert result.violated
    assert result.epsilon_lower == pytest.approx(np.log((1 - 1e-5 - p) / p))
    assert result.epsilon_lower > result.epsilon_claimed  # epsilon itself is refuted


def test_a_sensitivity_that_ignores_one_rows_weight_is_caught(X):
    """One row weighs 4 (one person of weight 4, declared by max_person_weight): the true mu
    is 4 times the claimed 0.5. The audit moves the heaviest row; reading the unit from the
    public parameter, replace-unit moves the same person."""
    weights = np.ones(len(X))
    weights[7] = 4.0
    mech = NoisySum(mu=0.5, max_person_weight=4.0, ignore_weight=True)
    for neighbour in ("auto", "replace-one"):
        result = audit_privacy(
            mech, X, sample_weight=weights, neighbour=neighbour, n_trials=1000, random_state=0
        )
        assert result.violated
        assert result.mu_lower > 1.4
        assert "row 7 (weight 4)" in result.neighbour
    sound = audit_privacy(
        NoisySum(mu=0.5, max_person_weight=4.0),
        X,
        sample_weight=weights,
        n_trials=500,
        random_state=0,
    )
    assert not sound.violated


def test_replace_unit_moves_one_unit_of_a_heavy_row(X):
    weights = np.ones(len(X))
    weights[3] = 5.0
    result = audit_privacy(NoisySum(mu=1.0), X, sample_weight=weights, n_trials=500, random_state=0)
    assert "1 of the weight of row 3 moved to a new row" in result.neighbour
    assert not result.violated


def test_random_state_makes_the_audit_reproducible_and_workers_change_nothing(X):
    """Seeded (deterministic) fits, so that only the audit's choices vary."""
    mech = NoisySum(mu=1.0, seed=0)
    one = audit_privacy(mech, X, n_trials=50, random_state=3)
    with parallel_config(backend="threading"):  # the chunking, without starting processes
        two = audit_privacy(mech, X, n_trials=50, n_jobs=2, random_state=3)
    assert one.epsilon_lower == two.epsilon_lower and one.mu_lower == two.mu_lower
    np.testing.assert_array_equal(one.roc["fpr"], two.roc["fpr"])


def test_a_given_neighbour_and_a_user_statistic(X):
    X_prime = X.copy()
    X_prime[0] = [-5.0, 0.0, 0.0]
    X_given = X.copy()
    X_given[0] = [5.0, 0.0, 0.0]
    calls = []

    def first_coordinate(fitted, release):
        calls.append(release.shape)
        return fitted.sum_[0]

    result = audit_privacy(
        NoisySum(mu=1.0, noise_factor=0.5),
        X_given,
        neighbour={"X": X_prime},
        statistic=first_coordinate,
        n_trials=1000,
        random_state=0,
    )
    assert result.neighbour == "given D' (replace-one): rows [0] differ"
    assert calls[0] == (1, 3)  # the release of the row that differs
    assert result.violated and result.mu_lower > 1.4


def test_bad_neighbours_and_statistics_are_refused(X):
    with pytest.raises(ValueError, match="equal to D"):
        audit_privacy(NoisySum(), X, neighbour={"X": X}, n_trials=10)
    with pytest.raises(ValueError, match="key 'X'"):
        audit_privacy(NoisySum(), X, neighbour={"y": X[:, 0]}, n_trials=10)
    with pytest.raises(ValueError, match="as many rows as D"):
        audit_privacy(NoisySum(), X, neighbour={"X": X[:-1]}, n_trials=10)
    sizes = iter(range(1, 100))
    with pytest.raises(ValueError, match="same number of values"):
        audit_privacy(NoisySum(), X, statistic=lambda f, r: np.zeros(next(sizes)), n_trials=10)
    with pytest.raises(InvalidParameterError, match="'n_trials' parameter of audit_privacy"):
        audit_privacy(NoisySum(), X, n_trials=1)
    with pytest.raises(InvalidParameterError, match="'neighbour' parameter"):
        audit_privacy(NoisySum(), X, neighbour="add-one")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_l2_compression_passes_a_small_audit_with_its_default_canary():
    """The full 10-audit run is in benchmarks/bench_audit.py."""
    X = np.random.default_rng(1).normal(size=(500, 3)) * [3.0, 1.0, 1.0]
    result = audit_privacy(L2CompressionDP(epsilon=8.0), X, n_trials=150, random_state=0)
    assert result.epsilon_claimed == pytest.approx(8.0) and not result.violated
    assert result.mu_lower > 0.2  # the canary bites: the release moves with it


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gaussian_bottleneck_passes_a_small_audit_with_its_default_canary():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3)) * [3.0, 1.0, 1.0]
    y = X[:, 0] + rng.normal(size=500)
    mech = GaussianIBTransformer(beta=5.0, clip_radius=1.0, fit_epsilon=2.0)
    result = audit_privacy(mech, X, y, n_trials=150, random_state=0)
    assert np.isfinite(result.mu_claimed) and not result.violated
    assert result.mu_lower > 0.2


def test_a_mechanism_without_ledger_gets_the_leakage_panel_with_an_interval():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 2, 120)
    X = np.c_[s, (s + rng.integers(0, 3, 120)) % 4, rng.integers(0, 3, 120)]
    funnel = PrivacyFunnelTransformer(sensitive=[0], threshold=0.5)
    result = audit_privacy(funnel, X, n_trials=4, random_state=0)  # the panel takes seconds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = funnel.fit(X).transform(X)  # deterministic: the same release as the audit's
    assert result.kind == "leakage" and not result.violated
    assert result.leakage == pytest.approx(leakage_score(s, release))
    low, high = result.leakage_interval
    assert low <= result.leakage <= high and high > low
    assert "No differential-privacy ledger" in result.note
    with pytest.raises(ValueError, match="needs S: pass sensitive"):
        audit_privacy(StandardScaler(), X, n_trials=4)
    with pytest.raises(ValueError, match="apply to DP audits only"):
        audit_privacy(StandardScaler(), X, statistic=lambda f, r: 0.0, n_trials=4)


def test_a_pipeline_a_dataframe_and_the_progress_bar(X, capsys):
    """The ledger of a pipeline's last step is read; a DataFrame's canary row is set in place;
    verbose=1 shows the trials' progress on stderr."""
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    pipe = make_pipeline(FunctionTransformer(), NoisySum(mu=1.0))
    result = audit_privacy(pipe, frame, n_trials=20, random_state=0, verbose=1)
    assert result.estimator_name == "NoisySum" and result.mu_claimed == pytest.approx(1.0)
    assert "audit trials" in capsys.readouterr().err


def test_trials_run_on_a_dask_cluster_through_joblib(X):
    """Large audits: joblib's dask backend sends the trial chunks to a dask cluster (here an
    in-process one); the result is that of the local run (seeded fits)."""
    distributed = pytest.importorskip("distributed")
    mech = NoisySum(mu=1.0, seed=0)
    local = audit_privacy(mech, X, n_trials=40, random_state=3)
    with distributed.Client(processes=False, n_workers=1, dashboard_address=None):
        with parallel_config(backend="dask"):
            on_dask = audit_privacy(mech, X, n_trials=40, n_jobs=2, random_state=3)
    assert on_dask.epsilon_lower == local.epsilon_lower and on_dask.mu_lower == local.mu_lower


def test_integer_columns_take_the_canary_as_floats(X):
    """An integer array (or DataFrame column) would truncate the canary's coordinates."""
    ints = np.round(X * 10).astype(int)
    for data in (ints, pd.DataFrame(ints, columns=["a", "b", "c"])):
        result = audit_privacy(NoisySum(mu=1.0, seed=0), data, n_trials=20, random_state=0)
        assert result.violated  # the seeded fault is still found


def test_a_public_fit_is_the_same_in_both_worlds():
    # fit_data="public" declares the fit data public: the ledger covers the release of
    # the rows only. The audit used to refit on D', moving the fitted centre with the
    # canary, and measured a shift of the canary's release of about 1.0 noise units
    # against the claimed mu of 0.50 (the guide's example was "violated" in 8 runs of
    # 40). Fitted on D in both worlds, the shift is the claim's (Monte Carlo, 400 fits
    # a world: standard error about 0.07; the bounds lie 4.9 and 3.7 of them away).
    from sklearn_privacy.audit._neighbours import Data, audit_plan, default_neighbours
    from sklearn_privacy.audit._trials import run_trials

    X = np.random.default_rng(0).normal(size=(200, 2)) * [3.0, 1.0]
    mech = L2CompressionDP(epsilon=2.0, clip_radius=4.0, fit_data="private")
    assert audit_plan(mech, Data(X)).private_fit
    mech.set_params(fit_data="public")
    plan = audit_plan(mech, Data(X))
    assert not plan.private_fit
    data, other, rows, _ = default_neighbours(plan, Data(X), "replace-one", None)
    trials = run_trials(mech, data, other, rows, None, 400, None, 0, plan)
    f0, f1, claims = trials.features, trials.neighbour_features, trials.claims
    gap = f1.mean(axis=0) - f0.mean(axis=0)
    pooled = 0.5 * (np.cov(f0.T) + np.cov(f1.T))
    shift = float(np.sqrt(gap @ np.linalg.pinv(pooled) @ gap))
    assert claims[0].mu == pytest.approx(0.5016, abs=1e-3)
    assert 0.15 <= shift <= 0.75


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_warnings_of_the_audits_fits_are_gathered_once_per_cause(n_jobs):
    """Issue 46: an audit printed a multi-line PrivateFitWarning per fit, workers' too.

    On 50 rows at epsilon 1 every private fit warns the same two causes (too few people
    for the private radius; the histogram of the norms is all noise).
    """
    X = np.random.default_rng(0).normal(size=(50, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = audit_privacy(L2CompressionDP(epsilon=1.0), X, n_trials=8, n_jobs=n_jobs)
    assert [w.category for w in caught] == [PrivateFitWarning]  # one summary, its category
    assert caught[0].filename == __file__
    text = str(caught[0].message)
    assert "each cause is said once here, not once per fit" in text
    causes = [entry.message for entry in result.warnings]
    assert len(causes) == 2 and len(set(causes)) == 2
    assert any("too few people for the private clipping radius" in c for c in causes)
    assert any("histogram of the row norms is all noise" in c for c in causes)
    for entry in result.warnings:
        assert entry.category is PrivateFitWarning
        assert (entry.count, entry.total, entry.trials) == (16, 16, "fits")  # every fit
        assert f"- in 16 of the 16 fits: {entry.message}" in text
    # under the default filter, a second audit on the same line says nothing new (warn_user
    # remembers what it showed under the same filters: a filter of this case's own makes them
    # differ from the other case's, which ran this line too)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", message=f"nothing of this library, n_jobs={n_jobs}")
        for _ in range(2):
            audit_privacy(L2CompressionDP(epsilon=1.0), X, n_trials=4, n_jobs=n_jobs)
    assert len(caught) == 1


def test_a_leakage_audit_gathers_the_warnings_of_its_fit():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 2, 120)
    X = np.c_[s, (s + rng.integers(0, 3, 120)) % 4, rng.integers(0, 3, 120)]
    funnel = PrivacyFunnelTransformer(sensitive=[0], threshold=1.0)  # merges everything
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = audit_privacy(funnel, X, n_trials=4, random_state=0)
    assert [w.category for w in caught] == [DegenerateReleaseWarning]
    (entry,) = result.warnings
    assert (entry.category, entry.count, entry.total, entry.trials) == (
        DegenerateReleaseWarning,
        1,
        1,
        "fit",
    )


class ClippedMean(TransformerMixin, BaseEstimator):
    """A DP estimator written outside the package: the Gaussian mechanism on a clipped mean.

    It subclasses nothing of this library and answers the whole audit protocol: its claim
    as a plain tuple ``(epsilon, delta, mu)``, its statistic (the published mean, read from
    the release), its plan (the canary moves column 0 only). Sensitivity of the mean of
    ``n`` rows clipped to ``radius`` under replace-one: ``2 radius / n``; noise of sd
    ``sensitivity / mu``. ``noise_factor`` below 1 is the broken variant (the true mu is
    ``mu / noise_factor``).
    """

    def __init__(self, mu=1.0, radius=1.0, noise_factor=1.0):
        self.mu = mu
        self.radius = radius
        self.noise_factor = noise_factor

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=float)
        sigma = 2.0 * self.radius / len(X) / self.mu
        noise = self.noise_factor * sigma * _NOISE.standard_normal(X.shape[1])
        self.mean_ = clip_to_ball(X, self.radius).mean(axis=0) + noise
        return self

    def transform(self, X):
        return np.tile(self.mean_, (len(X), 1))

    def audit_claim(self):
        return _epsilon(self.mu, 1e-5), 1e-5, self.mu

    def audit_statistic(self, release):
        return np.asarray(release)[0, :1]  # the published mean's first coordinate

    def audit_plan(self, X, y=None, *, sensitive=None, sample_weight=None):
        return AuditPlan(columns=(0,), direction=np.array([1.0]))


def test_an_estimator_from_outside_the_package_is_audited_through_the_protocol(X):
    """Issue 48: the audit reads only the protocol; a sound outsider passes near its mu, the
    same with half the noise (true mu 2 against a claimed 1) is refuted."""
    sound = audit_privacy(ClippedMean(mu=1.0), X, n_trials=1000, random_state=0)
    assert sound.estimator_name == "ClippedMean" and not sound.violated
    assert (sound.epsilon_claimed, sound.mu_claimed) == (pytest.approx(_epsilon(1.0, 1e-5)), 1.0)
    assert 0.6 <= sound.mu_lower <= 1.0  # the plan's canary bites: the statistic is the mean
    broken = audit_privacy(ClippedMean(mu=1.0, noise_factor=0.5), X, n_trials=1000, random_state=0)
    assert broken.violated and broken.mu_lower > 1.4


def test_a_d_prime_that_differs_in_five_rows_is_refused_or_audited_as_custom(X):
    """Issue 47: a D' five rows away from D made a sound mechanism look VIOLATED."""
    X_prime = X.copy()
    X_prime[:5] += 3.0
    with pytest.raises(ValueError, match=r"differs from D in 5 rows \(\[0, 1, 2, 3, 4\]"):
        audit_privacy(NoisySum(mu=1.0), X, neighbour={"X": X_prime}, n_trials=10)
    weights = np.ones(len(X))
    with pytest.raises(ValueError, match="not a neighbour under 'replace-unit'"):
        audit_privacy(
            NoisySum(mu=1.0),
            X,
            sample_weight=weights,
            neighbour={"X": X, "sample_weight": weights + np.r_[2.0, np.zeros(len(X) - 1)]},
            n_trials=10,
        )
    # one unit of weight moved from row 1 to row 2 is one person under replace-unit
    moved = weights + np.r_[0.0, -1.0, 1.0, np.zeros(len(X) - 3)]
    result = audit_privacy(
        NoisySum(mu=1.0),
        X,
        sample_weight=weights,
        neighbour={"X": X, "sample_weight": moved},
        n_trials=20,
        random_state=0,
    )
    assert result.neighbour == "given D' (replace-unit): rows [1, 2] differ" and result.about_claim
    custom = audit_privacy(
        NoisySum(mu=1.0, seed=0),
        X,
        neighbour={"X": X_prime, "relation": "custom"},
        n_trials=20,
        random_state=0,
    )
    assert not custom.about_claim and not custom.violated
    assert custom.epsilon_lower == custom.epsilon_max  # seeded: told apart every time
    assert "not about the claim" in custom.neighbour and "do not test the claim" in custom.note
    assert "a custom D', not a test of the claim" in repr(custom)


@pytest.mark.parametrize("confidence", [1e-9, 0.3, 1.0, 1 - 1e-7])
def test_a_confidence_out_of_range_is_refused(X, confidence):
    with pytest.raises(InvalidParameterError, match="'confidence' parameter of audit_privacy"):
        audit_privacy(NoisySum(), X, confidence=confidence, n_trials=10)
    with pytest.raises(InvalidParameterError, match="'confidence' parameter of audit_from_st"):
        audit_from_statistics(np.zeros(10), np.ones(10), delta=1e-5, confidence=confidence)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_scaler_before_the_mechanism_is_named_and_refutes_the_claim():
    """Issue 47: the scaler's mean_, fitted on the private rows, moves with the canary by
    2 x 10 x (largest row norm) / n: a deterministic difference that every evaluation trial
    shows, so the epsilon bound is the largest 50 evaluation trials certify,
    log((1 - delta - p) / p), p the Clopper-Pearson bound on 0 events in 50 (2.5695; the
    issue's 3.28 at 200 trials)."""
    X = np.random.default_rng(0).normal(size=(200, 2)) * [3.0, 1.0]
    pipe = make_pipeline(StandardScaler(), L2CompressionDP(epsilon=2.0))
    with pytest.warns(PrivacyLeakWarning, match=r"steps standardscaler \(StandardScaler\)"):
        result = audit_privacy(pipe, X, n_trials=100, random_state=0)
    p = clopper_pearson_upper(0, 50, 0.025)
    assert result.outside_ledger == ("standardscaler (StandardScaler)",)
    assert result.epsilon_claimed == 2.0 and result.violated
    assert (
        result.epsilon_lower
        == pytest.approx(np.log((1 - 1e-5 - p) / p))
        == pytest.approx(2.5695, abs=1e-4)
    )
    assert result.epsilon_lower == result.epsilon_max  # at the audit's power
    assert "published outside the ledger: standardscaler (StandardScaler)" in repr(result)


_FITS = itertools.count()


class RawSometimes(NoisySum):
    """NoisySum that publishes the audited rows as they are in one fit of ``every``."""

    def __init__(self, mu=1.0, every=100):
        super().__init__(mu=mu)
        self.every = every

    def fit(self, X, y=None, sample_weight=None):
        self.raw_ = next(_FITS) % self.every == 0
        return super().fit(X, y, sample_weight)

    def transform(self, X):
        return np.asarray(X, dtype=float) if self.raw_ else super().transform(X)


def _refutes_by_scipy(n_trials, p, epsilon, mu, delta, confidence=0.95):
    """Whether an event of probability p on D' only refutes (epsilon, delta) or mu at the
    expected counts, with scipy's exact interval: two-sided at ``confidence``, its upper end
    is the one-sided bound at 1 - (1 - confidence) / 2 that each rate gets."""
    n = n_trials - n_trials // 2

    def upper(k):
        interval = binomtest(int(k), n).proportion_ci(confidence_level=confidence, method="exact")
        return interval.high

    fpr, fnr = upper(0), upper(round((1 - p) * n))
    return np.log(1 - delta - fnr) - np.log(fpr) > epsilon or norm.isf(fpr) - norm.ppf(fnr) > mu


def test_the_power_of_an_audit_of_a_release_that_publishes_the_rows_in_1_percent_of_fits(X):
    """Issue 47: such a release was not refuted at 1000 trials and nothing said what the
    audit could have refuted. The result says its power (the most 100 evaluation trials
    certify) and the trials a 1 % event needs; scipy's exact binomial interval agrees that
    this count is the first at which the expected counts refute the claim."""
    mech = RawSometimes(mu=0.5)
    result = audit_privacy(mech, X, n_trials=200, statistic="exact", random_state=0)
    p = clopper_pearson_upper(0, 100, 0.025)
    assert result.epsilon_max == pytest.approx(np.log((1 - 1e-5 - p) / p))
    assert result.mu_max == pytest.approx(2 * norm.isf(p))
    assert not result.violated and result.epsilon_lower <= result.epsilon_max
    needed = result.trials_needed(0.01)
    assert needed == 5099
    claim = (result.epsilon_claimed, result.mu_claimed, 1e-5)
    assert _refutes_by_scipy(needed, 0.01, *claim)
    assert not _refutes_by_scipy(needed - 1, 0.01, *claim)
    assert f"gives D' away in 1 % of fits needs {needed:,} trials" in repr(result)


def test_the_exact_statistic_refutes_the_rare_release_at_twice_the_trials_needed():
    """The count said is one an audit can use: synthetic statistics of 20 audits, the rows
    (a fixed vector) published in 1 % of fits on D' and noise otherwise. At twice the
    trials needed the exact statistic refutes mu = 0.5 in all 20; at a quarter, in none."""
    claim = AuditResult(
        kind="dp",
        estimator_name="m",
        n_trials=1,
        confidence=0.95,
        epsilon_claimed=2.0,
        delta=1e-5,
        mu_claimed=0.5,
    )
    needed = claim.trials_needed(0.01)
    rng = np.random.default_rng(7)

    def refuted(n):
        d, d_prime = rng.normal(size=(2, n, 3))
        d_prime[rng.random(n) < 0.01] = [5.0, 0.0, 0.0]
        result = audit_from_statistics(
            d,
            d_prime,
            delta=1e-5,
            claimed_epsilon=2.0,
            claimed_mu=0.5,
            exact=True,
            random_state=int(rng.integers(1000)),
        )
        return result.violated

    assert sum(refuted(2 * needed) for _ in range(20)) == 20
    assert sum(refuted(needed // 4) for _ in range(20)) == 0


class Flaky(NoisySum):
    """NoisySum whose every ``every``-th fit fails (as a rare overflow refusal did)."""

    def __init__(self, mu=1.0, every=200):
        super().__init__(mu=mu)
        self.every = every

    def fit(self, X, y=None, sample_weight=None):
        if next(_FITS) % self.every == 0:
            raise ValueError("the private 0.95 quantile of the row norms lies beyond 3.27e+150")
        return super().fit(X, y, sample_weight)


def test_a_failing_trial_is_counted_and_the_audit_goes_on(X):
    """Issue 47: one failing fit in 2000 ended the audit. Two failures in 400 fits (at most
    1 %: 4) are left out and counted; one fit in ten failing stops the audit."""
    global _FITS
    _FITS = itertools.count(1)  # fits 200 and 400 fail
    with pytest.warns(UserWarning, match="2 of the 400 fits of Flaky failed"):
        result = audit_privacy(Flaky(every=200), X, n_trials=200, random_state=0)
    assert sum(result.n_failed) == 2 and not result.violated
    (cause,) = result.failures
    assert (cause.category, cause.count, cause.total) == (ValueError, 2, 400)
    assert "lies beyond 3.27e+150" in cause.message
    assert "2 of 400 fits failed" in repr(result)
    _FITS = itertools.count(1)
    with pytest.raises(RuntimeError, match=r"fits of Flaky failed, more than the 4 \(1% of"):
        audit_privacy(Flaky(every=10), X, n_trials=200, random_state=0)
