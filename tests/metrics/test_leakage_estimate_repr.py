"""A zero leakage prints as 0.0000, never -0.0000 (issue 36)."""

import numpy as np

from sklearn_privacy.metrics import leakage_score


def test_a_zero_or_tiny_negative_estimate_prints_without_a_minus_sign():
    s = np.tile([0, 1], 100)
    estimate = leakage_score(s, s.reshape(-1, 1), return_details=True)
    # a member's estimate a hair below 0 (a null-corrected estimate), the value clipped to -0.0
    tiny = type(estimate)(
        value=-0.0,
        estimator="knn",
        estimates={"knn": -0.00004, "logistic": -0.02},
        spreads={"knn": 0.001, "logistic": 0.01},
        entropy=0.6931,
    )
    text = repr(tiny)
    assert "-0.0000" not in text
    assert text.startswith("LeakageEstimate(value=0.0000 nats, estimator='knn'")
    assert "knn=0.0000±0.0010" in text and "logistic=-0.0200±0.0100" in text
    assert float(tiny) == 0.0
