"""PPAN trained toward its adversary's best response, and read by fresh adversaries (issue 45).

A learned release is checked by adversaries that did not train beside it: a logistic
regression and the leakage panel fitted on releases of the fit rows and scored on releases of
new rows (H(S) minus a held-out cross-entropy is a lower bound on I(S; Z)).
"""

import warnings

import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression

from sklearn_privacy import PPANTransformer
from sklearn_privacy.adversarial._best_response import FreshRound, train_fresh_adversary
from sklearn_privacy.information import entropy
from sklearn_privacy.metrics import leakage_score


def _coded(n, rng):
    """S in 3 classes written into 6 noisy columns: a release must move rows to hide it."""
    s = rng.integers(0, 3, n)
    X = 1.5 * np.eye(3)[s] @ rng.normal(size=(3, 6)) + rng.normal(size=(n, 6))
    return X, s


def _held_out_bound(z_train, s_train, z_test, s_test):
    """H(S) minus the held-out cross-entropy of a logistic regression (nats)."""
    model = LogisticRegression(max_iter=2000).fit(z_train, s_train)
    log_p = model.predict_log_proba(z_test)[np.arange(len(s_test)), s_test]
    return entropy(np.bincount(s_test) / len(s_test)) + float(np.mean(log_p))


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X, s = _coded(1200, rng)
    d0 = float(np.sum(X.var(axis=0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mech = PPANTransformer(max_distortion=0.3 * d0, random_state=0)
        fits = {"best_response": mech.fit(X[:600], sensitive=s[:600])}
    return fits, X, s


def test_rounds_are_recorded_and_the_paper_trains_without_them(fitted):
    fits, X, s = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paper = PPANTransformer(training="paper", max_epochs=40, random_state=0)
        assert paper.fit(X[:200], sensitive=s[:200]).fresh_rounds_ == []
    rounds = fits["best_response"].fresh_rounds_
    assert 1 <= len(rounds) <= 6 and all(isinstance(r, FreshRound) for r in rounds)
    # every round but the last added its adversary (it beat the known ones by > 0.02 nats)
    assert all(r.joined and r.gap > 0.02 for r in rounds[:-1])
    assert not rounds[-1].joined
    assert [r.epoch for r in rounds] == sorted(r.epoch for r in rounds)


def test_a_fresh_adversary_reads_the_release_about_as_the_fit_says(fitted):
    fits, X, s = fitted
    mech = fits["best_response"]
    za, zb = mech.transform(X[:600]), mech.transform(X[600:])
    fresh = _held_out_bound(za, s[:600], zb, s[600:])
    panel = leakage_score(s[600:], zb)
    # new rows' releases, read by adversaries that did not train beside the mechanism
    assert fresh <= mech.leakage_ + 0.15
    assert panel <= mech.leakage_ + 0.15
    assert abs(panel - mech.adversary_leakage_) <= 0.15
    assert mech.mean_distortion(X[600:], zb) <= 1.1 * mech.max_distortion


def test_train_fresh_adversary_reads_a_release_that_gives_s_away_and_not_noise(fitted):
    fits, X, s = fitted
    net = fits["best_response"].net_
    n = 600
    data = {"w": torch.as_tensor(X[:n], dtype=torch.float32), "s": torch.as_tensor(s[:n])}
    halves = [{k: v[:300] for k, v in data.items()}, {k: v[300:] for k, v in data.items()}]
    h_s = entropy(np.bincount(s[300:n]) / 300)

    def read(mechanism):
        original = net.module_
        net.module_ = mechanism
        try:
            return h_s + train_fresh_adversary(net, *halves)[1]
        finally:
            net.module_ = original

    class Constant(torch.nn.Module):  # the release holds nothing: read about 0
        def forward(self, w, noise):
            return torch.zeros(len(w), 1, 6), torch.ones(len(w), 1)

    class Identity(torch.nn.Module):  # the release is X: read about what a classifier reads
        def forward(self, w, noise):
            return w[:, None, :], torch.ones(len(w), 1)

    assert abs(read(Constant())) < 0.03
    clean = _held_out_bound(X[:300], s[:300], X[300:n], s[300:n])
    assert read(Identity()) > clean - 0.1 and clean > 0.5
