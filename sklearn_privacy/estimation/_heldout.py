"""Held-out (cross-fitted) lower bounds on ``I(S; T)`` from classifiers that predict S from T.

For a predictor ``q(s | t)`` fitted without a row, ``H(S) - E[-log q(S | T)] <= I(S; T)`` on it.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline, make_union
from sklearn.preprocessing import (
    StandardScaler,
    TargetEncoder,
)

from sklearn_privacy.estimation._network import NetworkClassifier, PairProducts, RowNorm
from sklearn_privacy.estimation._quantiles import SortedQuantileTransformer
from sklearn_privacy.estimation._release import ReleaseView, read_release, take_rows

__all__ = [
    "FLOOR",
    "HELDOUT_ADVERSARIES",
    "MAX_FIT_ROWS",
    "adversary",
    "check_distribution",
    "fold_log_proba",
    "heldout_bound",
    "heldout_estimate",
    "heldout_folds",
    "try_adversaries",
    "user_name",
]

# Every predicted probability is mixed with this share of the uniform
# distribution over the values of S: a confident mistake then costs at most
# log(|S| / FLOOR) nats instead of an infinite cross-entropy, and a right
# answer loses at most -log(1 - FLOOR) = 0.001 nats of the bound.
FLOOR = 1e-3

# Each of the panel's own learned members (logistic, boosting, network) is fitted
# on at most this many of a fold's training rows (seeded): a model fitted on any
# other rows still gives a held-out bound, and it keeps the panel's cost flat in
# n; 2000 is about what the panel was measured with at n = 2000 (1600 rows a fold).
# Adult's 32 561 rows of string columns, S = sex: 21.3 s of CPU with every training row,
# 3.4 s with this cap (benchmarks/bench_leakage_panel.py --shapes); 2.45 s once the
# strings are coded once per call (ReleaseView.coded; --adult-cost, warm call).
MAX_FIT_ROWS = 2000


class TunedLogisticRegression(ClassifierMixin, BaseEstimator):
    """A logistic regression whose ``C`` minimises the log-loss on a fifth of the training rows.

    A held-out bound is as good as its adversary's probabilities: with ``C=1``
    a logistic regression on 480 released digits (10 classes, 64 columns) is
    so overconfident that its bound reads -0.66 nats, while ``C=0.01`` reads
    0.36. Each ``C`` of ``Cs`` (ascending, warm-started) is fitted on four
    fifths of the training rows (stratified, seeded) and scored by its
    log-loss on the rest; the best is refitted on all of them. A class seen
    fewer than 5 times (no fifth of the rows to hold it): ``C=1``.
    """

    def __init__(self, Cs=(0.01, 0.1, 1.0, 10.0)):
        self.Cs = Cs

    def fit(self, X, y):
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.C_ = 1.0
        if np.bincount(codes).min() >= 5:
            inner, held = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, codes))
            model = LogisticRegression(max_iter=1000, warm_start=True)
            losses = []
            for C in self.Cs:
                model.set_params(C=C).fit(X[inner], codes[inner])
                proba = np.zeros((held.size, self.classes_.size))
                proba[:, model.classes_] = model.predict_proba(X[held])
                losses.append(-np.mean(np.log(proba[np.arange(held.size), codes[held]] + 1e-12)))
            self.C_ = self.Cs[int(np.argmin(losses))]
        self.model_ = LogisticRegression(C=self.C_, max_iter=1000).fit(X, codes)
        return self

    def predict_proba(self, X):
        proba = np.zeros((X.shape[0], self.classes_.size))
        proba[:, self.model_.classes_] = self.model_.predict_proba(X)
        return proba

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _target_encoder():
    """A seeded TargetEncoder: its inner folds by a seeded ``cv`` (scikit-learn >= 1.9, where
    ``random_state`` is deprecated), else by ``random_state``."""
    if TargetEncoder().get_params()["random_state"] == "deprecated":
        return TargetEncoder(cv=KFold(5, shuffle=True, random_state=0))
    return TargetEncoder(random_state=0)


class CodeEncoder(TransformerMixin, BaseEstimator):
    """One-hot (or ordinal) features of columns of codes ``0, 1, ...``, fitted on the codes seen.

    The features of ``OneHotEncoder(handle_unknown="ignore")`` (or of
    ``OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)``) on
    the same codes: a column per code seen in :meth:`fit` in increasing order
    (or the rank among them), a code not seen gives zeros (or -1). The codes are
    :attr:`ReleaseView.coded`, so a lookup table replaces those encoders' sorts
    and checks of every column in every fold.
    """

    def __init__(self, ordinal=False, drop_binary=False):
        self.ordinal = ordinal
        self.drop_binary = drop_binary

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.intp)
        self.categories_ = [np.flatnonzero(np.bincount(column)) for column in X.T]
        # a column of two codes is one feature (its second code) with drop_binary=True
        self.kept_ = [
            seen[1:] if self.drop_binary and seen.size == 2 else seen for seen in self.categories_
        ]
        return self

    def _ranks(self, column, seen):
        """Each code's rank among the codes seen in fit, -1 for a code not seen."""
        table = np.full(max(int(column.max()), int(seen[-1])) + 1, -1)
        table[seen] = np.arange(seen.size)
        return table[column]

    def transform(self, X):
        X = np.asarray(X, dtype=np.intp)
        kept = self.categories_ if self.ordinal else self.kept_
        ranks = [self._ranks(column, seen) for column, seen in zip(X.T, kept)]
        if self.ordinal:
            return np.column_stack(ranks).astype(float)
        sizes = [seen.size for seen in kept]
        out = np.zeros((X.shape[0], sum(sizes)))
        for start, rank in zip(np.cumsum([0] + sizes[:-1]), ranks):
            known = np.flatnonzero(rank >= 0)
            out[known, start + rank[known]] = 1.0
        return out

    def get_feature_names_out(self, input_features=None):
        names = [f"x{k}" for k in range(len(self.categories_))]
        names = names if input_features is None else [str(name) for name in input_features]
        if self.ordinal:
            return np.asarray(names, dtype=object)
        return np.asarray(
            [f"{name}_{code}" for name, seen in zip(names, self.kept_) for code in seen],
            dtype=object,
        )


def _encoded(view, numbers, ordinal=False, drop_binary=False):
    """The release's columns encoded for a model: codes as categories, numbers by ``numbers``.

    Few-valued columns are one-hot (ordinal for trees), codes of many values
    target-encoded (cross-fitted within the training rows by scikit-learn's
    :class:`~sklearn.preprocessing.TargetEncoder`), the rest ``numbers``.
    """
    parts = [
        ("categories", CodeEncoder(ordinal, drop_binary), view.one_hot),
        ("codes", _target_encoder(), view.target),
        ("numbers", numbers, view.numbers),
    ]
    return ColumnTransformer([part for part in parts if len(part[2])], sparse_threshold=0)


def _linear(view):
    return make_pipeline(_encoded(view, StandardScaler()), TunedLogisticRegression())


def _boosting(view):
    """Gradient-boosted trees, stopped early on a tenth of the training rows.

    Early stopping on the held-out log-loss keeps the probabilities
    calibrated (100 full rounds on 40 rows make them overconfident and the
    bound collapses); it needs at least 200 rows to have a validation set.
    32 bins per column instead of 255 halve the cost on wide releases (4000
    MNIST images: 15.5 s instead of 33.8, and a bound of 2.04 nats instead
    of 2.01).
    """
    model = HistGradientBoostingClassifier(
        max_bins=32,
        early_stopping=view.coded.shape[0] >= 200,
        random_state=0,
        categorical_features=None,
    )
    return make_pipeline(_encoded(view, "passthrough", ordinal=True), model)


def _normal_scores(view):
    return SortedQuantileTransformer(
        output_distribution="normal", n_quantiles=min(1000, view.coded.shape[0] // 2)
    )


def _network(view):
    """A small network on each number column's normal scores and the rows' geometry."""
    numbers = make_union(_normal_scores(view), RowNorm()) if len(view.numbers) else "passthrough"
    return make_pipeline(_encoded(view, numbers), NetworkClassifier())


def _pairs(view):
    """A tuned logistic regression on the products of the pairs (and, on few columns, the
    triples) of columns screened on the training rows (:class:`PairProducts`), each number
    column read by its normal scores, a column of two codes by one indicator."""
    return make_pipeline(
        _encoded(view, _normal_scores(view), drop_binary=True),
        PairProducts(),
        StandardScaler(),
        TunedLogisticRegression(),
    )


class SymbolTable(ClassifierMixin, BaseEstimator):
    """Predicts S from its counts among the training rows of the same release symbol.

    ``X`` is one column of integer symbol codes (the release's rows encoded
    as symbols). ``q(s | t) = (c(t, s) + alpha p(s)) / (c(t) + alpha)``, with
    ``c`` the training counts and ``p`` the training prior: the plug-in
    posterior, shrunk towards the prior for symbols seen few times (a symbol
    never seen gets the prior). Held out, it reads a high-cardinality release
    whose symbols each determine S from a few rows per symbol, which a
    plug-in estimate cannot tell from an independent release.
    """

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        symbols = np.asarray(X, dtype=np.intp).ravel()
        self.classes_, y = np.unique(y, return_inverse=True)
        self.counts_ = np.zeros((symbols.max() + 1, self.classes_.size))
        np.add.at(self.counts_, (symbols, y), 1.0)
        self.prior_ = np.bincount(y, minlength=self.classes_.size) / y.size
        return self

    def predict_proba(self, X):
        symbols = np.asarray(X, dtype=np.intp).ravel()
        counts = np.zeros((symbols.size, self.classes_.size))
        known = symbols < self.counts_.shape[0]
        counts[known] = self.counts_[symbols[known]]
        totals = counts.sum(axis=1, keepdims=True)
        return (counts + self.alpha * self.prior_) / (totals + self.alpha)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _table(view):
    return SymbolTable(), view.rows.reshape(-1, 1)


# name -> factory(view) -> unfitted classifier of the release's columns ("table": of its rows)
HELDOUT_ADVERSARIES = {
    "logistic": _linear,
    "boosting": _boosting,
    "network": _network,
    "pairs": _pairs,
    "table": _table,
}


def adversary(name, view, adversaries=None):
    """``(unfitted classifier, the features it reads)`` of a member of the panel.

    ``adversaries`` holds the user's classifiers by name; each reads the
    release as the user gave it (:attr:`ReleaseView.given`: a DataFrame stays
    one). The panel's own members read :attr:`ReleaseView.coded` (the
    category columns' codes, encoded once).
    """
    if adversaries and name in adversaries:
        return clone(adversaries[name]), view.given
    made = HELDOUT_ADVERSARIES[name](view)
    return made if isinstance(made, tuple) else (made, view.coded)


def heldout_folds(codes, n_splits):
    """The held-out bounds' folds: stratified on S where each value is seen ``n_splits`` times.

    At most one fold per row (``n_splits`` is cut to the number of rows).
    Shuffled with a fixed seed (the same rows give the same folds). A value
    of S seen fewer times than ``n_splits`` cannot be in every fold, so the
    folds are then plain shuffled ``KFold``.

    Returns
    -------
    folds : list of (train, test) index arrays
    description : str
        How they were made, in words.
    """
    n_splits = min(n_splits, codes.size)
    counts = np.bincount(codes)
    if counts[counts > 0].min() >= n_splits:
        splitter, kind = StratifiedKFold(n_splits, shuffle=True, random_state=0), "stratified on S"
    else:
        splitter, kind = KFold(n_splits, shuffle=True, random_state=0), "not stratified"
    folds = list(splitter.split(np.zeros(codes.size), codes))
    return folds, f"{n_splits} folds of the rows ({kind}, shuffled with seed 0)"


def fit_rows(train, max_rows=None):
    """At most ``max_rows`` of the training rows (a seeded draw, in order); all if None."""
    if max_rows is None or train.size <= max_rows:
        return train
    return np.sort(np.random.default_rng(0).choice(train, max_rows, replace=False))


def row_cap(name, adversaries=None):
    """The training rows a member fits on: :data:`MAX_FIT_ROWS` for the panel's learned
    members, every row for the table (a count) and the user's adversaries."""
    own = name in HELDOUT_ADVERSARIES and not (adversaries and name in adversaries)
    return MAX_FIT_ROWS if own and name != "table" else None


def user_name(name, adversaries=None):
    """``name`` where it is one of the user's adversaries (whose probabilities are checked),
    else None."""
    return name if adversaries and name in adversaries else None


def cap_note(folds):
    """The details' words on the cap, where a training fold is larger than it ("" if none)."""
    if MAX_FIT_ROWS is None or max(train.size for train, _ in folds) <= MAX_FIT_ROWS:
        return ""
    return f"; the learned members fitted on {MAX_FIT_ROWS} training rows a fold (seeded)"


def fold_log_proba(model, features, codes, train, test, n_classes, max_rows=None, name=None):
    """``(fitted, log q(s_i | t_i))`` on the test rows of a model fitted on the training rows.

    The model is fitted on at most ``max_rows`` training rows (:func:`fit_rows`).
    The probabilities are mixed with :data:`FLOOR` of the uniform
    distribution; a training fold with one value of S predicts it (no fit).
    ``name`` (a user's adversary) has its probabilities checked
    (:func:`check_distribution`).
    """
    train = fit_rows(train, max_rows)
    proba = np.zeros((test.size, n_classes))
    seen = np.unique(codes[train])
    fitted = None
    if seen.size < 2:
        proba[:, seen] = 1.0
    else:
        with warnings.catch_warnings():
            # an adversary stopped short of convergence still gives a valid bound
            # (any predictor fitted on other rows does); its warning is noise to a user
            warnings.simplefilter("ignore", ConvergenceWarning)
            fitted = clone(model).fit(take_rows(features, train), codes[train])
        given = fitted.predict_proba(take_rows(features, test))
        if name is not None:
            check_distribution(given, name, (test.size, len(fitted.classes_)))
        proba[:, _columns(fitted, n_classes)] = given
    proba = (1 - FLOOR) * proba + FLOOR / n_classes
    return fitted, np.log(proba[np.arange(test.size), codes[test]])


def check_distribution(proba, name, shape):
    """Refuse a user's adversary whose ``predict_proba`` is not one distribution per row.

    Its cross-entropy is a bound only if each row is a distribution over
    ``classes_``: a shape of ``(rows, len(classes_))``, finite values at least
    0 that sum to 1 (within 1e-6). One whose rows sum to less read ``H(S)``
    on a release independent of S.
    """
    proba = np.asarray(proba, dtype=float)
    problem = None
    if proba.shape != shape:
        problem = f"an array of shape {proba.shape}, not (rows, len(classes_)) = {shape}"
    elif not np.all(np.isfinite(proba)):
        problem = "values that are not finite"
    elif proba.size and proba.min() < -1e-9:
        problem = f"a negative probability ({proba.min():.3g})"
    elif proba.size:
        sums = proba.sum(axis=1)
        worst = int(np.argmax(np.abs(sums - 1)))
        if abs(sums[worst] - 1) > 1e-6:
            problem = f"a row that sums to {sums[worst]:.6g}, not 1"
    if problem is not None:
        raise ValueError(
            f"adversaries[{name!r}]: predict_proba returned {problem}; a held-out bound needs "
            "one probability distribution over classes_ per row (values >= 0 summing to 1)."
        )


def try_adversaries(codes, view, adversaries, max_rows=200):
    """Fit each user's adversary on a slice of at most ``max_rows`` rows (a seeded draw) and
    check its probabilities there, before the panel spends minutes on its folds.

    An adversary that fails (its own error, or probabilities that are not a distribution)
    is named in the error.
    """
    rows = fit_rows(np.arange(codes.size), max_rows)
    if np.unique(codes[rows]).size < 2:
        return
    for name, model in (adversaries or {}).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fitted = clone(model).fit(take_rows(view.given, rows), codes[rows])
                proba = fitted.predict_proba(take_rows(view.given, rows))
        except Exception as error:
            raise ValueError(
                f"adversaries[{name!r}] failed on a slice of {rows.size} rows of the release "
                f"as given ({type(view.given).__name__}), before the panel's folds: "
                f"{type(error).__name__}: {error}"
            ) from error
        check_distribution(proba, name, (rows.size, len(fitted.classes_)))


def _columns(fitted, n_classes):
    """The columns of S's codes that a fitted classifier's ``predict_proba`` gives."""
    classes = np.asarray(fitted.classes_)
    if classes.dtype.kind not in "iu" or classes.size and classes.max() >= n_classes:
        raise ValueError(f"the adversary's classes_ are not codes of S: {classes[:5]!r}.")
    return classes


def heldout_bound(name, codes, release, folds, h_s, adversaries=None):
    """Per fold, ``H(S)`` minus the held-out cross-entropy of one adversary.

    Parameters
    ----------
    name : str
        A key of :data:`HELDOUT_ADVERSARIES` or of ``adversaries``.
    codes : ndarray of shape (n_samples,)
        S as codes ``0 .. k - 1``.
    release : ndarray of shape (n_samples, n_features) or ReleaseView
    folds : list of (train, test) index arrays
    h_s : float
        ``H(S)`` of the whole sample.
    adversaries : dict of str to classifier, default=None
        The user's classifiers.

    Returns
    -------
    ndarray of shape (n_folds,)
        The bound on each fold's rows; their mean weighted by the folds'
        sizes is the bound on all rows.
    """
    view = release if isinstance(release, ReleaseView) else read_release(release)
    model, features = adversary(name, view, adversaries)
    n_classes = int(codes.max()) + 1
    return np.array(
        [
            h_s
            + fold_log_proba(
                model,
                features,
                codes,
                train,
                test,
                n_classes,
                row_cap(name, adversaries),
                user_name(name, adversaries),
            )[1].mean()
            for train, test in folds
        ]
    )


def heldout_estimate(name, codes, release, folds, h_s, adversaries=None):
    """One adversary's bound on all rows (the folds' mean weighted by size), and its spread.

    Returns
    -------
    value : float
        ``H(S)`` minus the held-out cross-entropy over every row.
    spread : float
        The standard deviation of the per-fold bounds.
    """
    bounds = heldout_bound(name, codes, release, folds, h_s, adversaries)
    sizes = np.array([test.size for _, test in folds])
    return float(bounds @ sizes / sizes.sum()), float(bounds.std(ddof=1))
