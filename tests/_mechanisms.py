"""Small reference mechanisms used only to test the shared contract."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from sklearn_privacy.base import BaseMechanism
from sklearn_privacy.information import mutual_information_from_samples
from sklearn_privacy.utils import TradeoffKnob


class NoisyRelease(BaseMechanism):
    """Release X + N(0, scale^2): continuous input, randomised release."""

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "scale": [Interval(Real, 0, None, closed="left")],
    }

    _tradeoff_knob = TradeoffKnob("scale", "smaller", low=0.0, high=10.0)

    def __init__(self, scale=1.0, *, sensitive=None, random_state=None):
        self.scale = scale
        self.sensitive = sensitive
        self.random_state = random_state

    def _fit_mechanism(self, X, S, y, sample_weight=None):
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

    def _fit_mechanism(self, X, S, y, sample_weight=None):
        self.pool_ = X.copy()
        self.pool_weights_ = None if sample_weight is None else sample_weight / sample_weight.sum()
        self.leakage_ = mutual_information_from_samples(S, X)

    def _release(self, X, S, rng):
        flip = rng.random(X.shape[0]) < self.flip
        Xt = X.copy()
        Xt[flip] = self.pool_[rng.choice(len(self.pool_), flip.sum(), p=self.pool_weights_)]
        return Xt

    def mean_distortion(self, X, Xt):
        return float(np.mean(np.any(X != Xt, axis=1)))


class NetRelease(BaseMechanism):
    """Owns a trained skorch net (a linear autoencoder) and releases its output plus noise.

    The test double of the shape a network mechanism (PPAN) takes: composition,
    not inheritance, with skorch; training seeded from the base's fit stream
    without touching torch's global state; release noise from the base's
    release stream; ``n_iter_`` and ``history_`` from the net.
    """

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "verbose": ["verbose"],
    }
    _requires_sensitive = False
    _tradeoff_knob = TradeoffKnob("noise", "smaller", low=0.0, high=2.0)

    def __init__(
        self,
        n_components=1,
        *,
        noise=0.5,
        max_epochs=5,
        lr=0.05,
        sensitive=None,
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.noise = noise
        self.max_epochs = max_epochs
        self.lr = lr
        self.sensitive = sensitive
        self.random_state = random_state
        self.verbose = verbose

    def _fit_mechanism(self, X, S, y, sample_weight=None):
        import torch
        from skorch import NeuralNetRegressor

        X = np.asarray(X, dtype=np.float32)
        if sample_weight is not None:  # integer counts: train on the expanded rows
            X = np.repeat(X, np.round(sample_weight).astype(int), axis=0)
        d = X.shape[1]
        k = min(self.n_components, d)
        seed = int(self._fit_rng.integers(2**63))
        # Seed torch for this fit only: the caller's global torch state is left as it was.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.net_ = NeuralNetRegressor(
                torch.nn.Sequential(torch.nn.Linear(d, k), torch.nn.Linear(k, d)),
                max_epochs=self.max_epochs,
                lr=self.lr,
                optimizer=torch.optim.Adam,
                batch_size=64,
                train_split=None,
                verbose=self.verbose,
                device="cpu",
            ).fit(X, X)
        self.history_ = self.net_.history
        self.n_iter_ = len(self.net_.history)
        self.leakage_ = 0.0

    def _release(self, X, S, rng):
        out = self.net_.predict(np.asarray(X, dtype=np.float32)).astype(float)
        return out + self.noise * rng.standard_normal(out.shape)

    def get_feature_names_out(self, input_features=None):
        """The input names: the release is a reconstruction of the columns."""
        return super().get_feature_names_out(input_features)
