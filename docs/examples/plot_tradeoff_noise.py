"""
Leakage against accuracy for L2CompressionDP
============================================

Sweep the privacy budget ``epsilon`` of :class:`~sklearn_privacy.L2CompressionDP`
on the breast cancer data bundled with scikit-learn, measure downstream accuracy
and the leakage of a binarised sensitive feature with the kNN estimator, and draw
the trade-off with its Pareto front.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_privacy import L2CompressionDP
from sklearn_privacy.metrics import make_leakage_scorer
from sklearn_privacy.model_selection import tradeoff_curve
from sklearn_privacy.plotting import TradeoffDisplay

X, y = load_breast_cancer(return_X_y=True)
# A made-up sensitive attribute for the illustration: is the mean radius above its median?
s = (X[:, 0] > np.median(X[:, 0])).astype(int)
X = np.column_stack([s, X[:, 1:]])

pipe = Pipeline(
    [
        ("scale", StandardScaler()),
        ("privacy", L2CompressionDP(sensitive=[0], clip_radius=6.0)),
        ("clf", LogisticRegression(max_iter=2000)),
    ]
)
result = tradeoff_curve(
    pipe,
    X,
    y,
    param_name="privacy__epsilon",
    param_range=[1, 5, 20, 100, 1000],
    scoring={"accuracy": "accuracy", "leakage": make_leakage_scorer(estimator="knn")},
    cv=5,
)
display = TradeoffDisplay.from_tradeoff(result, leakage="leakage", utility="accuracy")
display.plot()
