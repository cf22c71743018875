"""Thm. 1 of privacy-funnel-makhdoumi2014 against exact MAP adversaries."""

import numpy as np
import pytest

from sklearn_privacy.information import mutual_information
from sklearn_privacy.metrics import inference_threat_bound, map_cost_gain


def _brute_force_map_gain(joint):
    # Exhaustive over the adversary's guesses: best constant guess vs best guess per y.
    n_s, n_y = joint.shape
    p_s = joint.sum(axis=1)
    c0 = min(1 - p_s[g] for g in range(n_s))
    cy = sum(min(joint[:, y].sum() - joint[g, y] for g in range(n_s)) for y in range(n_y))
    return c0 - cy


def test_bound_holds_for_map_adversaries_on_random_mappings():
    rng = np.random.default_rng(0)
    ratios = []
    for _ in range(500):
        n_s, n_x, n_y = rng.integers(2, 6), rng.integers(2, 8), rng.integers(1, 6)
        p_sx = rng.dirichlet(np.full(n_s * n_x, rng.choice([0.2, 1.0]))).reshape(n_s, n_x)
        if rng.random() < 0.5:  # deterministic mapping (a merge), else a random channel
            channel = np.eye(n_y)[rng.integers(0, n_y, n_x)]
        else:
            channel = rng.dirichlet(np.full(n_y, 0.5), size=n_x)
        p_sy = p_sx @ channel
        gain = map_cost_gain(p_sy)
        assert gain == pytest.approx(_brute_force_map_gain(p_sy), abs=1e-12)
        bound = inference_threat_bound(mutual_information(p_sy))
        assert gain <= bound + 1e-12
        if bound > 0:
            ratios.append(gain / bound)
    assert 0 < max(ratios) < 1


def test_bound_values_and_errors():
    assert inference_threat_bound(0.0) == 0.0
    assert inference_threat_bound(0.5, cost_bound=3.0) == pytest.approx(6 * np.sqrt(2 * 0.5) / 1)
    np.testing.assert_allclose(inference_threat_bound([0.0, 2.0]), [0.0, 4.0])
    assert map_cost_gain(np.full((2, 2), 0.25)) == 0.0
    with pytest.raises(ValueError, match="leakage"):
        inference_threat_bound(-0.1)
    with pytest.raises(ValueError, match="cost_bound"):
        inference_threat_bound(0.1, cost_bound=-1)
    with pytest.raises(ValueError, match="joint"):
        map_cost_gain(np.ones((2, 2)))
