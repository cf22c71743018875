"""scikit-learn's estimator checks and the shared contract, for every public mechanism.

One table of instances (``INIT_PARAMS``) and one table of expected failures
(``EXPECTED_FAILED_CHECKS``, each with its reason) serve every mechanism.
"""

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import sklearn_privacy
from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    L2CompressionDP,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)

INIT_PARAMS = {
    PrivacyFunnelTransformer: [
        {"sensitive": [0]},
        {"method": "bottleneck", "lam": 0.5, "output": "onehot", "sensitive": [0]},
        {"output": "sample", "sensitive": [0], "random_state": 0},
    ],
    SubmodularFunnel: [
        {"sensitive": [0]},
        {"problem": "bottleneck", "solver": "mm", "output": "onehot", "sensitive": [0]},
    ],
    # A budget of 1 (Hamming distortion is at most 1) keeps the checks' continuous data fast.
    ConvexPrivacyMapping: [{"max_distortion": 1.0, "sensitive": [0], "random_state": 0}],
    # A private fit with a large budget keeps the checks' tiny data sets usable.
    GaussianIBTransformer: [
        {"beta": 1e6, "fit_data": "public", "random_state": 0},
        {"beta": 1e6, "fit_epsilon": 1e6, "random_state": 0},
    ],
    L2CompressionDP: [
        {"epsilon": 2.0, "random_state": 0},
        {"epsilon": None, "beta": 1e3, "clip_radius": 10.0, "fit_data": "public"},
        {"epsilon": None, "beta": 1e3, "fit_epsilon": 1e3, "random_state": 0},
    ],
}

# check name -> reason, per estimator class. Every check passes at present.
EXPECTED_FAILED_CHECKS: dict = {}

INSTANCES = [cls(**params) for cls, grid in INIT_PARAMS.items() for params in grid]


def test_every_public_mechanism_is_in_the_table():
    public = {getattr(sklearn_privacy, name) for name in sklearn_privacy.__all__}
    assert public == set(INIT_PARAMS)


@parametrize_with_checks(
    INSTANCES, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est), {})
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _documented_attributes(cls):
    doc = cls.__doc__ or ""
    section = re.search(
        r"\n\s*Attributes\n\s*-+\n(.*?)(\n\s*(See Also|Notes|Examples)\n|\Z)", doc, flags=re.S
    )
    assert section, f"{cls.__name__} documents no Attributes"
    names = re.findall(r"^\s{4}(\w+_)(?:, (\w+_))?(?:, (\w+_))? :", section.group(1), flags=re.M)
    return sorted({n for group in names for n in group if n})


def _categorical_data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    x1 = (s + rng.integers(0, 2, n)) % 3
    x2 = rng.integers(0, 3, n)
    return np.c_[s, x1, x2]


def _continuous_data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) + s[:, None]
    return np.c_[s, X], (X[:, 0] > 0.5).astype(int)


@pytest.mark.parametrize("cls", list(INIT_PARAMS), ids=lambda c: c.__name__)
def test_documented_fitted_attributes_exist(cls):
    est = clone(cls(**{**INIT_PARAMS[cls][0], "sensitive": [0]}))
    if cls in (PrivacyFunnelTransformer, SubmodularFunnel, ConvexPrivacyMapping):
        est.fit(_categorical_data())
    else:
        X, y = _continuous_data()
        est.fit(X, y)
    documented = _documented_attributes(cls)
    assert "n_features_in_" in documented
    missing = [name for name in documented if not hasattr(est, name)]
    # feature_names_in_ only exists after fitting on a DataFrame
    assert [m for m in missing if m != "feature_names_in_"] == []
    assert np.isfinite(est.leakage_)
