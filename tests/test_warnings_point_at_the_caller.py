"""Every warning the library raises points at the caller's line, not at scikit-learn's.

Hand-counted ``stacklevel`` values missed the ``_fit_context`` frame (warnings
pointed at ``sklearn/base.py:1403``); ``exceptions.user_stacklevel`` walks past
every frame of scikit-learn, joblib and this library.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_privacy import (
    ConvexPrivacyMapping,
    L2CompressionDP,
    PPANTransformer,
    PrivacyFunnelTransformer,
)
from sklearn_privacy.exceptions import PrivacyLeakWarning, PrivateFitWarning
from sklearn_privacy.metrics import leakage_score

RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 2))
LABELS = pd.DataFrame({"s": RNG.integers(0, 2, 300), "a": RNG.integers(0, 3, 300)}).astype(str)


def _dp_seeded():
    L2CompressionDP(random_state=0).fit(X)


def _dp_seeded_in_a_pipeline():
    make_pipeline(FunctionTransformer(), L2CompressionDP(random_state=0)).fit(X)


def _dp_seeded_in_a_search():
    GridSearchCV(
        L2CompressionDP(random_state=0, epsilon=1.0),
        {"epsilon": [1.0]},
        scoring=lambda est, X, y=None: 0.0,
        cv=KFold(2),
    ).fit(X)


def _private_fit_too_small():
    L2CompressionDP().fit(X[:60])


def _pruned_every_component():
    L2CompressionDP(epsilon=1e-3, clip_radius=1e10, fit_data="public").fit(1e-140 * X)


def _gaussian_on_a_discrete_release():
    leakage_score(LABELS["s"].astype(int), LABELS[["a"]].astype(float), estimator="gaussian")


def _merged_nothing():
    PrivacyFunnelTransformer(threshold=1.0, sensitive=["s"]).fit(LABELS)


def _convex_carries_nothing():
    ConvexPrivacyMapping(1.0, sensitive=["s"]).fit(LABELS)


def _ppan_undertrained():
    mech = PPANTransformer(sensitive=[2], max_epochs=1, release="gaussian", random_state=0)
    mech.fit(np.c_[X, RNG.integers(0, 2, 300)])
    mech.adversary_leakage_ = 0.0
    s = RNG.integers(0, 2, 300)
    mech._leakage_from_a_fresh_estimate(np.c_[RNG.normal(size=300), s], s)


CASES = [
    (_dp_seeded, PrivacyLeakWarning, "carries the seed"),
    (_dp_seeded_in_a_pipeline, PrivacyLeakWarning, "carries the seed"),
    (_dp_seeded_in_a_search, PrivacyLeakWarning, "carries the seed"),
    (_private_fit_too_small, PrivateFitWarning, "rows are needed"),
    (_pruned_every_component, UserWarning, "pruned every component"),
    (_gaussian_on_a_discrete_release, UserWarning, "looks discrete"),
    (_merged_nothing, UserWarning, "merged nothing"),
    (_convex_carries_nothing, UserWarning, "carries no information"),
    (_ppan_undertrained, UserWarning, "undertrained"),
]


@pytest.mark.parametrize("call, category, words", CASES, ids=[c[0].__name__ for c in CASES])
def test_the_warning_points_at_this_file(call, category, words):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if issubclass(w.category, category) and words in str(w.message)]
    assert ours, f"no {category.__name__} saying {words!r}"
    for w in ours:
        assert w.filename == __file__, (w.filename, w.lineno, str(w.message)[:80])
