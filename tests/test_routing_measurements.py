"""The measurements work whatever the global metadata-routing setting (issue 46).

With ``sklearn.set_config(enable_metadata_routing=True)``, which the README tells users to set,
the panel's own models (a ``TargetEncoder`` for a column of more than 32 values, inside a
``ColumnTransformer``) raised scikit-learn 1.9.1's ``KeyError: 'groups'``. Each measurement
here must give, with routing on, the same number as with routing off.
"""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_privacy import PrivacyFunnelTransformer
from sklearn_privacy.audit import audit_privacy
from sklearn_privacy.metrics import (
    adversary_accuracy_score,
    leakage_score,
    make_adversary_scorer,
    make_leakage_scorer,
)


@pytest.fixture(scope="module")
def wide_codes():
    """S and a release whose first column has 40 values (read through a target encoding)."""
    rng = np.random.default_rng(0)
    n = 1500
    s = rng.integers(0, 2, n)
    codes = np.where(rng.random(n) < 0.7, 2 * rng.integers(0, 20, n) + s, rng.integers(0, 40, n))
    return s, np.column_stack([codes, rng.integers(0, 2, n)])


def _both_ways(measure):
    with sklearn.config_context(enable_metadata_routing=False):
        off = measure()
    with sklearn.config_context(enable_metadata_routing=True):
        on = measure()
    return off, on


def test_panel_and_adversary_read_the_same_with_routing_on(wide_codes):
    s, release = wide_codes
    off, on = _both_ways(lambda: leakage_score(s, release))
    assert on == off and on > 0.1
    off, on = _both_ways(lambda: leakage_score(s, release, estimator="logistic"))
    assert on == off and on > 0.1
    off, on = _both_ways(lambda: adversary_accuracy_score(s, release))
    assert on == off and on > 0.6


def test_a_search_with_routed_s_scores_as_with_s_in_x(wide_codes):
    s, release = wide_codes
    y = (release[:, 1] > 0).astype(int)
    grid = {"threshold": [0.9, 0.999]}
    scoring = {
        "leakage": make_leakage_scorer(estimator="logistic"),
        "adversary": make_adversary_scorer(),
    }

    def search(mechanism, X, **params):
        searched = GridSearchCV(mechanism, grid, scoring=scoring, refit=False, cv=KFold(3))
        return searched.fit(X, y, **params).cv_results_

    with sklearn.config_context(enable_metadata_routing=True):
        routed = search(
            PrivacyFunnelTransformer().set_fit_request(sensitive=True), release, sensitive=s
        )
    as_columns = search(PrivacyFunnelTransformer(sensitive=[2]), np.column_stack([release, s]))
    for key in ("mean_test_leakage", "mean_test_adversary"):
        np.testing.assert_array_equal(routed[key], as_columns[key])
    assert -routed["mean_test_leakage"][1] > 0.1  # the nearly lossless funnel leaks


def test_an_audit_reads_the_same_with_routing_on(wide_codes):
    s, release = wide_codes
    X = np.column_stack([release, s])

    def audit():
        funnel = PrivacyFunnelTransformer(sensitive=[2], threshold=0.999)
        return audit_privacy(funnel, X, n_trials=5, random_state=0)

    off, on = _both_ways(audit)
    assert on.leakage == off.leakage and on.leakage > 0.1
    assert on.leakage_interval == off.leakage_interval
