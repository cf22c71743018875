"""
Differentially private compression against the plain Gaussian mechanism
========================================================================

:class:`~sklearn_privacy.L2CompressionDP` releases a noisy, compressed copy
of each row: it keeps the principal directions that carry the data's
variance, shrinks them, and adds Gaussian noise calibrated so that the release
is (epsilon, delta)-differentially private (Kohler, 2018, ch. 3).
:class:`~sklearn_privacy.GaussianIBTransformer` does the same guided by a
relevance variable (here the diagnosis), the Gaussian information bottleneck.
The simplest alternative is the **plain Gaussian mechanism**: clip each row to
a ball of radius R and add isotropic noise of the standard deviation that the
analytic calibration (:func:`~sklearn_privacy.dp.gaussian_sigma`) gives for
the same (epsilon, delta) and sensitivity ``2R``.

We compare what a logistic regression learns from each release of the Breast
Cancer Wisconsin data, as epsilon varies, with ``delta = 1e-5``.
"""

# %%
# The data
# --------
# :func:`~sklearn_privacy.datasets.fetch_breast_cancer_wisconsin` gives 699
# tumours with 9 cytology scores; the 16 rows with a missing score are dropped.
# If the file is not in the data home, scikit-learn's breast cancer data (569
# tumours, 30 features) is used instead. Features are standardised and, as in
# the thesis, the statistics the mechanisms are designed from (mean,
# covariance, clipping radius) are treated as public (``fit_data="public"``):
# epsilon counts the release of the rows.
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler

from sklearn_privacy import GaussianIBTransformer, L2CompressionDP
from sklearn_privacy.datasets import fetch_breast_cancer_wisconsin
from sklearn_privacy.dp import clip_rows, gaussian_sigma

try:
    bunch = fetch_breast_cancer_wisconsin(download_if_missing=False)
    keep = ~np.isnan(bunch.data).any(axis=1)
    X = bunch.data[keep].astype(float)
    y = (np.asarray(bunch.target)[keep] == "malignant").astype(int)
    data_name = "Breast Cancer Wisconsin (original)"
except OSError as exc:
    print(f"Breast Cancer Wisconsin is not available ({type(exc).__name__}); using scikit-learn's.")
    X, y = load_breast_cancer(return_X_y=True)
    y = 1 - y  # 1 = malignant, as above
    data_name = "breast cancer (scikit-learn, fallback)"

X = StandardScaler().fit_transform(X)
radius = float(np.linalg.norm(X, axis=1).max())
delta = 1e-5
print(f"{data_name}: {X.shape[0]} rows, {X.shape[1]} features, clipping radius {radius:.2f}")

# %%
# Three releases for a given epsilon
# ----------------------------------
# Each function returns a release of all rows. The Gaussian information
# bottleneck's knob is ``beta``, not epsilon: its ``epsilon_`` grows with
# ``beta``, so we search for the largest ``beta`` whose release meets the
# target epsilon.
rng = np.random.default_rng(0)


def plain_gaussian(eps):
    sigma = gaussian_sigma(eps, delta, sensitivity=2 * radius)
    return lambda: clip_rows(X, radius) + rng.normal(scale=sigma, size=X.shape)


def l2_compression(eps):
    mech = L2CompressionDP(
        epsilon=eps, delta=delta, clip_radius=radius, fit_data="public", random_state=rng
    ).fit(X)
    return lambda: mech.transform(X)


def gaussian_ib(eps):
    def fit(beta):
        return GaussianIBTransformer(
            beta=beta, delta=delta, clip_radius=radius, fit_data="public", random_state=rng
        ).fit(X, y)

    critical = fit(1e12).critical_betas_.min()
    low, high = np.log(1e-9), np.log(1e9)  # bisection on log(beta - critical)
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (low, mid) if fit(critical + np.exp(mid)).epsilon_ > eps else (mid, high)
    mech = fit(critical + np.exp(low))
    return lambda: mech.transform(X)


mechanisms = {
    "plain Gaussian mechanism": plain_gaussian,
    "L2CompressionDP": l2_compression,
    "GaussianIBTransformer (Y: diagnosis)": gaussian_ib,
}

# %%
# Two protocols
# -------------
# Over 20 random half/half splits, a logistic regression is trained on the
# released training rows and tested either on the **clean** test rows (the
# model is published, later patients are classified on their real data) or on
# the **released** test rows (everyone's data goes through the mechanism: the
# protocol of the thesis's Fig. 6.9, sec. 6.3.3). The Gaussian
# bottleneck releases a few projections, not the features, so a model trained
# on it cannot be applied to clean rows: it appears in the second protocol only.
# The table gives the mean test accuracy under each protocol (``clean rows``,
# ``released rows``) and its standard deviation over the splits.
epsilons = [0.5, 1, 2, 5, 10, 20, 50, 100]
splits = list(StratifiedShuffleSplit(20, test_size=0.5, random_state=0).split(X, y))
majority = np.mean([np.mean(y[te] == np.bincount(y[tr]).argmax()) for tr, te in splits])
clean = np.mean(
    [
        LogisticRegression(solver="newton-cholesky").fit(X[tr], y[tr]).score(X[te], y[te])
        for tr, te in splits
    ]
)

rows = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the private releases warn that they compose
    for name, make in mechanisms.items():
        for eps in epsilons:
            release = make(eps)
            on_clean, on_released = [], []
            for tr, te in splits:
                T = release()
                model = LogisticRegression(solver="newton-cholesky").fit(T[tr], y[tr])
                on_released.append(model.score(T[te], y[te]))
                if T.shape[1] == X.shape[1] and "GaussianIB" not in name:
                    on_clean.append(model.score(X[te], y[te]))
            rows.append(
                {
                    "mechanism": name,
                    "epsilon": eps,
                    "clean rows": np.mean(on_clean) if on_clean else np.nan,
                    "sd clean": np.std(on_clean) if on_clean else np.nan,
                    "released rows": np.mean(on_released),
                    "sd released": np.std(on_released),
                }
            )
results = pd.DataFrame(rows)
print(f"majority class: {majority:.3f}, no mechanism: {clean:.3f}")
print(results.round(3).to_string(index=False))

# %%
# Plot
# ----
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
styles = {
    "plain Gaussian mechanism": ("tab:gray", "s"),
    "L2CompressionDP": ("tab:blue", "o"),
    "GaussianIBTransformer (Y: diagnosis)": ("tab:orange", "D"),
}
panels = [
    (axes[0], "clean rows", "sd clean", "train on released rows, test on clean rows"),
    (axes[1], "released rows", "sd released", "train and test on released rows"),
]
for (ax, column, sd, title), where in zip(panels, ["lower right", "upper left"]):
    for name, (color, marker) in styles.items():
        sel = results[results["mechanism"] == name]
        if sel[column].isna().all():
            continue
        ax.errorbar(
            sel["epsilon"],
            sel[column],
            yerr=sel[sd],
            color=color,
            marker=marker,
            capsize=3,
            label=name,
        )
    ax.axhline(clean, color="tab:green", ls="--", label="no mechanism")
    ax.axhline(majority, color="k", ls=":", label="majority class")
    ax.set_xscale("log")
    ax.set_xlabel(f"epsilon (delta = {delta:g})")
    ax.set_title(title, fontsize=10)
    ax.legend(loc=where, fontsize=8)
axes[0].set_ylabel("accuracy (mean and sd over 20 splits)")
fig.suptitle(f"{data_name}: diagnosis accuracy against the privacy budget")
fig.tight_layout()
plt.show()

# %%
# Read the table (the numbers quoted here are for the Breast Cancer Wisconsin
# data; the fallback data set gives others). When the model is tested on clean
# rows (left), the compressed release keeps what the classifier needs at a far
# smaller budget than isotropic noise: L2CompressionDP is within a couple of
# points of the no-mechanism accuracy from epsilon = 5, where the plain
# Gaussian mechanism is still at the majority class; the plain mechanism needs
# epsilon = 50 or more. When the test rows are released too (right), the test
# rows' own noise dominates: the three mechanisms are close to each other and
# barely beat the majority class below epsilon = 20. The protocol, not only
# the mechanism, decides what a given epsilon buys.
#
# Below epsilon = 5 the left panel's points swing from split to split (standard
# deviations of 0.1 to 0.2) and do not grow monotonically with epsilon. That is
# not a better model at a smaller budget: trained on rows drowned in noise, the
# logistic regression learns an almost arbitrary direction, which on clean
# test rows is sometimes close to the diagnosis and sometimes far from it; the
# mean over 20 splits of such models is an average of coin flips. Read those
# points as "no reliable model" whatever their mean.
#
# The mechanisms here are designed from statistics treated as public. Fitted
# on the private rows (``fit_data="private"``, the default), the mean, radius
# and covariance cost part of the budget too; ``python -m sklearn_privacy --dp``
# shows that private fit next to the public one, with the released protocol.
