"""Estimates of the leakage ``I(S; release)`` from samples, and the empirical attack."""

from numbers import Integral, Real

import numpy as np
from scipy.special import digamma
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KDTree
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params

from sklearn_privacy._base import as_2d
from sklearn_privacy.information import (
    encode_symbols,
    gaussian_mutual_information,
    mutual_information_from_samples,
)

__all__ = ["adversary_accuracy_score", "is_discrete_release", "leakage_score"]

_ESTIMATORS = {"auto", "plugin", "miller_madow", "gaussian", "knn"}


def _as_2d(values, name):
    values = as_2d(values, name)
    if values.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 samples, got {values.shape[0]}.")
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return values


def is_discrete_release(release):
    """Whether a release is made of symbols (non-float, or floats that are all integers).

    One-hot encodings and merged-symbol codes are discrete; a release with
    additive noise is not.
    """
    release = np.asarray(release)
    if release.dtype.kind not in "fc":
        return True
    return bool(np.all(np.isfinite(release)) and np.all(release == np.round(release)))


def _knn_mutual_information(codes, release, n_neighbors):
    """Ross (2014) kNN estimate of ``I(S; T)``, S discrete, T continuous (max-norm).

    In one dimension this is scikit-learn's estimator behind
    :func:`~sklearn.feature_selection.mutual_info_classif`; here ``T`` may have
    several columns. Classes with a single sample are left out, as there.
    """
    release = np.asarray(release, dtype=float)
    n = release.shape[0]
    radius = np.empty(n)
    k_all = np.empty(n)
    label_counts = np.bincount(codes)[codes]
    for label in np.unique(codes):
        mask = codes == label
        count = int(mask.sum())
        if count > 1:
            k = min(n_neighbors, count - 1)
            tree = KDTree(release[mask], metric="chebyshev")
            dist, _ = tree.query(release[mask], k=k + 1)
            radius[mask] = np.nextafter(dist[:, -1], 0)
            k_all[mask] = k
    keep = label_counts > 1
    if keep.sum() < 2:
        raise ValueError("the kNN estimate needs at least one value of S seen twice.")
    release, radius = release[keep], radius[keep]
    tree = KDTree(release, metric="chebyshev")
    m_all = tree.query_radius(release, radius, count_only=True)
    value = (
        digamma(keep.sum())
        + np.mean(digamma(k_all[keep]))
        - np.mean(digamma(label_counts[keep]))
        - np.mean(digamma(m_all))
    )
    return float(max(value, 0.0))


def _gaussian_estimate(sensitive, release):
    """``I(S; T)`` of the Gaussian with the samples' covariance (S one-hot when discrete)."""
    if sensitive.dtype.kind in "fc" and not is_discrete_release(sensitive):
        s_block = sensitive.astype(float)
    else:
        codes, symbols = encode_symbols(sensitive, name="sensitive")
        s_block = np.eye(len(symbols))[codes][:, :-1]
    t_block = np.asarray(release, dtype=float)
    joint = np.hstack([s_block, t_block])
    cov = np.atleast_2d(np.cov(joint, rowvar=False))
    # A tiny ridge keeps a constant column (a zero component) from making cov singular.
    cov = cov + 1e-12 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0])
    d_s = s_block.shape[1]
    return gaussian_mutual_information(cov, np.arange(d_s), np.arange(d_s, d_s + t_block.shape[1]))


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like"],
        "estimator": [StrOptions(_ESTIMATORS)],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def leakage_score(sensitive, release, *, estimator="auto", n_neighbors=3):
    """Estimate the leakage ``I(S; release)`` from paired samples, in nats.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; rows of a 2-D array form one joint symbol.
    release : array-like of shape (n_samples, n_features)
        What the mechanism released for the same rows.
    estimator : {"auto", "plugin", "miller_madow", "gaussian", "knn"}, default="auto"
        - ``"plugin"``: mutual information of the empirical joint pmf, the rows
          of the release taken as symbols (as
          :func:`sklearn.metrics.mutual_info_score`);
        - ``"miller_madow"``: the same with Miller-Madow bias correction;
        - ``"gaussian"``: the mutual information of a Gaussian with the sample
          covariance of (S, release), S one-hot encoded when discrete; exact
          for jointly Gaussian data, an approximation otherwise;
        - ``"knn"``: the k-nearest-neighbour estimate of Ross (2014) for
          discrete S and a continuous release of any dimension;
        - ``"auto"``: ``"plugin"`` for a discrete release (see
          :func:`is_discrete_release`), ``"knn"`` otherwise.
    n_neighbors : int, default=3
        Neighbours of the kNN estimate.

    Returns
    -------
    float
        Estimated ``I(S; release)`` in nats (non-negative).

    Examples
    --------
    >>> from sklearn_privacy.metrics import leakage_score
    >>> round(leakage_score([0, 0, 1, 1], [[0], [0], [1], [1]]), 6)
    0.693147
    """
    sensitive = _as_2d(sensitive, "sensitive")
    release = _as_2d(release, "release")
    if sensitive.shape[0] != release.shape[0]:
        raise ValueError(
            f"sensitive has {sensitive.shape[0]} rows but the release has {release.shape[0]}."
        )
    if estimator == "auto":
        estimator = "plugin" if is_discrete_release(release) else "knn"
    if estimator in ("plugin", "miller_madow"):
        return mutual_information_from_samples(sensitive, release, method=estimator)
    if estimator == "gaussian":
        return _gaussian_estimate(sensitive, release)
    codes, _ = encode_symbols(sensitive, name="sensitive")
    return _knn_mutual_information(codes, release, n_neighbors)


def default_adversary(discrete):
    """The adversary used when none is given.

    A logistic regression on standardised features; on a discrete release it
    reads the release one-hot encoded, so that it can represent any posterior
    P(S | symbol) of a single released column.
    """
    if discrete:
        return make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression(C=100.0, max_iter=2000)
        )
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like"],
        "adversary": [None, HasMethods(["fit", "predict"])],
        "train_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def adversary_accuracy_score(sensitive, release, *, adversary=None, train_size=0.5, random_state=0):
    """Accuracy of an adversary that learns to predict S from the release.

    The empirical attack of ppan-tripathy2017 (Fig. 9): the classifier is
    trained on a stratified ``train_size`` share of the rows and scored on the
    rest, so the score measures what a fresh attacker can infer.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; several columns form one joint label.
    release : array-like of shape (n_samples, n_features)
        The release.
    adversary : classifier, default=None
        Any scikit-learn classifier; cloned before fitting. ``None`` uses
        :func:`default_adversary`.
    train_size : float, default=0.5
        Share of the rows the adversary trains on.
    random_state : int, RandomState instance or None, default=0
        Controls the split.

    Returns
    -------
    float
        Accuracy of the adversary on the held-out rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import adversary_accuracy_score
    >>> s = np.tile([0, 1], 50)
    >>> adversary_accuracy_score(s, s.reshape(-1, 1))
    1.0
    """
    sensitive = _as_2d(sensitive, "sensitive")
    release = _as_2d(release, "release")
    if sensitive.shape[0] != release.shape[0]:
        raise ValueError(
            f"sensitive has {sensitive.shape[0]} rows but the release has {release.shape[0]}."
        )
    labels, _ = encode_symbols(sensitive, name="sensitive")
    if adversary is None:
        adversary = default_adversary(is_discrete_release(release))
    elif not is_classifier(adversary):
        raise ValueError(f"adversary must be a classifier, got {adversary!r}.")
    counts = np.bincount(labels)
    stratify = labels if counts[counts > 0].min() >= 2 else None
    r_train, r_test, s_train, s_test = train_test_split(
        release, labels, train_size=train_size, random_state=random_state, stratify=stratify
    )
    if np.unique(s_train).size < 2:
        return float(np.mean(s_test == s_train[0]))
    model = clone(adversary).fit(r_train, s_train)
    return float(np.mean(model.predict(r_test) == s_test))
