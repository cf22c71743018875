"""AuditDisplay: the empirical trade-off, its bands, and the curves the claim allows."""

import numpy as np
import pytest

from sklearn_privacy.audit import AuditDisplay, AuditResult, audit_from_statistics
from sklearn_privacy.audit._bounds import clopper_pearson_upper, dp_tradeoff, gdp_tradeoff


@pytest.fixture
def violated():
    """A 2-GDP mechanism whose ledger claims mu = 1 (epsilon 4.38 at 1e-5)."""
    rng = np.random.default_rng(0)
    return audit_from_statistics(
        rng.normal(size=4000),
        rng.normal(2.0, size=4000),
        delta=1e-5,
        claimed_epsilon=4.377,
        claimed_mu=1.0,
        name="broken",
        random_state=0,
    )


def test_from_audit_draws_the_claimed_curves_and_the_violation_shows(pyplot, violated):
    display = AuditDisplay.from_audit(violated)
    labels = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert labels[0].startswith("broken (epsilon >= ")
    power = f"power: the most the trials certify, epsilon {violated.epsilon_max:.3g}"
    assert labels[1:] == ["allowed by (4.38, 1e-05)-DP", "allowed by 1-GDP", power, "chance"]
    lines = {line.get_label(): line for line in display.ax_.get_lines()}
    # the power: 2000 evaluation trials certify at most log((1 - delta - p) / p), p the
    # Clopper-Pearson bound on 0 events in 2000 (6.29), drawn as the curve it allows
    p = clopper_pearson_upper(0, 2000, 0.025)
    assert violated.epsilon_max == pytest.approx(np.log((1 - 1e-5 - p) / p))
    assert power.endswith("6.29")
    x, y = lines[power].get_data()
    np.testing.assert_allclose(y, dp_tradeoff(x, violated.epsilon_max, 1e-5))
    x, y = lines["allowed by 1-GDP"].get_data()
    np.testing.assert_allclose(y, gdp_tradeoff(x, 1.0))
    x, y = lines["allowed by (4.38, 1e-05)-DP"].get_data()
    np.testing.assert_allclose(y, dp_tradeoff(x, 4.377, 1e-5))
    # the violation, visible: points whose whole band lies above the claimed GDP curve
    roc = violated.roc
    above = roc["tpr_low"] > gdp_tradeoff(roc["fpr_high"], 1.0)
    assert above.sum() > 10
    assert display.figure_ is display.ax_.figure and display.line_ in display.ax_.get_lines()
    assert len(display.ax_.collections) == 2  # the two bands


def test_plot_on_given_axes_with_a_log_scale(pyplot, violated):
    _, ax = pyplot.subplots()
    display = AuditDisplay.from_audit(violated, ax=ax, name="mine", log_scale=True)
    assert display.ax_ is ax and ax.get_xscale() == "log"
    assert display.line_.get_label().startswith("mine")


def test_a_display_without_claim_or_bands_draws_the_curve_only(pyplot):
    display = AuditDisplay(fpr=[1.0, 0.5, 0.0], tpr=[1.0, 0.8, 0.0]).plot(legend=False)
    assert [line.get_label() for line in display.ax_.get_lines()] == ["audit", "chance"]
    assert display.ax_.get_legend() is None


def test_a_leakage_audit_has_no_tradeoff_to_draw(pyplot):
    result = AuditResult(kind="leakage", estimator_name="funnel", n_trials=4, confidence=0.95)
    with pytest.raises(ValueError, match="leakage audit"):
        AuditDisplay.from_audit(result)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_from_estimator_runs_the_audit(pyplot):
    from sklearn_privacy.gaussian import L2CompressionDP

    X = np.random.default_rng(0).normal(size=(100, 2))
    mech = L2CompressionDP(epsilon=8.0, clip_radius=3.0, fit_data="public")
    display = AuditDisplay.from_estimator(mech, X, n_trials=40, random_state=0)
    assert display.result_.estimator_name == "L2CompressionDP"
    assert display.epsilon == pytest.approx(8.0) and display.mu == display.result_.mu_claimed


def test_the_result_plots_itself_through_the_display(pyplot, violated):
    """Issue 46: users try result.plot(); it is AuditDisplay.from_audit, returned."""
    _, ax = pyplot.subplots()
    display = violated.plot(ax=ax, name="mine", log_scale=True, legend=True)
    assert isinstance(display, AuditDisplay) and display.ax_ is ax
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("mine (epsilon >= ")
    reference = AuditDisplay.from_audit(violated)
    np.testing.assert_array_equal(display.line_.get_xydata(), reference.line_.get_xydata())
    assert (display.epsilon, display.delta, display.mu) == (4.377, 1e-5, 1.0)
    assert violated.plot().ax_ is not ax  # a new figure without ax
    leakage = AuditResult(kind="leakage", estimator_name="funnel", n_trials=4, confidence=0.95)
    with pytest.raises(ValueError, match="leakage audit"):
        leakage.plot()
