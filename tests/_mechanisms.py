"""Small reference mechanisms used only to test the shared contract."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy.information import mutual_information_from_samples


class NoisyRelease(BaseMechanism):
    """Release X + N(0, scale^2): continuous input, randomised release."""

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "scale": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, scale=1.0, *, sensitive=None, random_state=None):
        self.scale = scale
        self.sensitive = sensitive
        self.random_state = random_state

    def _fit_mechanism(self, X, S, y):
        self.n_sensitive_ = 0 if S is None else S.shape[1]
        self.leakage_ = 0.0

    def _release(self, X, S, rng):
        return X + self.scale * rng.standard_normal(X.shape)


class RandomizedResponse(BaseMechanism):
    """Keep each categorical row with probability 1 - flip, else draw a training row."""

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "flip": [Interval(Real, 0, 1, closed="both")],
    }
    _categorical_input = True

    def __init__(self, flip=0.5, *, sensitive=None, random_state=None):
        self.flip = flip
        self.sensitive = sensitive
        self.random_state = random_state

    def _fit_mechanism(self, X, S, y):
        self.pool_ = X.copy()
        self.leakage_ = mutual_information_from_samples(S, X)

    def _release(self, X, S, rng):
        flip = rng.random(X.shape[0]) < self.flip
        Xt = X.copy()
        Xt[flip] = self.pool_[rng.integers(0, len(self.pool_), flip.sum())]
        return Xt

    def _distortion(self, X, Xt):
        return float(np.mean(np.any(X != Xt, axis=1)))
