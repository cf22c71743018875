import numpy as np
from _mechanisms import NoisyRelease
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from sklearn_privacy.metrics import make_leakage_scorer
from sklearn_privacy.plotting import TradeoffDisplay


def test_display_from_estimator(pyplot):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 200)
    X = np.c_[s, s + rng.normal(size=200)]
    y = (X[:, 1] > 0.5).astype(int)
    pipe = Pipeline(
        [("privacy", NoisyRelease(sensitive=[0], random_state=0)), ("clf", LogisticRegression())]
    )
    display = TradeoffDisplay.from_estimator(
        pipe,
        X,
        y,
        param_name="privacy__scale",
        param_range=[0.0, 1.0, 4.0],
        leakage_scorer=make_leakage_scorer(estimator="gaussian"),
        cv=3,
    )
    assert display.leakage.shape == (3,)
    assert np.all(display.leakage >= 0)
    assert display.leakage[0] > display.leakage[2]
    assert display.ax_.get_xlabel() == "leakage (nats)"
    np.testing.assert_allclose(display.line_.get_xdata(), display.leakage)
    assert display.pareto_line_ is not None
