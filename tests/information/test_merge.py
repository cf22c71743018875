import numpy as np
import pytest

from sklearn_privacy.information import (
    merge_cost,
    merge_costs,
    mutual_information,
    pairwise_merge_costs,
)


def _merged(joint, i, j):
    keep = [k for k in range(joint.shape[1]) if k not in (i, j)]
    return np.c_[joint[:, keep], joint[:, i] + joint[:, j]]


@pytest.mark.parametrize("seed", range(5))
def test_prop1_cost_equals_mutual_information_drop(seed):
    rng = np.random.default_rng(seed)
    joint = rng.random((4, 6)) * (rng.random((4, 6)) > 0.3)
    joint[0, :] += 0.01
    joint /= joint.sum()
    costs = pairwise_merge_costs(joint)
    for i in range(6):
        for j in range(6):
            if i != j:
                drop = mutual_information(joint) - mutual_information(_merged(joint, i, j))
                assert costs[i, j] == pytest.approx(drop, abs=1e-12)
    assert np.allclose(costs, costs.T)
    assert merge_cost(joint, 1, 4) == pytest.approx(costs[1, 4])
    assert np.allclose(merge_costs(joint, 2, [0, 5]), costs[2, [0, 5]])


def test_identical_posteriors_cost_nothing():
    joint = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.1]])
    joint /= joint.sum()
    assert merge_cost(joint, 0, 1) == pytest.approx(0.0, abs=1e-15)
    assert merge_cost(joint, 0, 2) > 0
