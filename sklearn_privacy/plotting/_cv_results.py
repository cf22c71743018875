"""Reading search and sweep results for :class:`TradeoffDisplay`: points, spreads, series, axes.

Nothing here draws.
"""

import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy.metrics import find_mechanism, is_privacy_scorer
from sklearn_privacy.utils import user_stacklevel

# Axis labels of the scorer keys and kinds that the library knows; any other key
# labels its axis as it is.
LEAKAGE_AXIS = "leakage I(S; release) (nats)"
SWEEP_LEAKAGE_AXIS = "leakage (nats)"  # the constructor's default, kept by the sweep's displays
_AXIS_NAMES = {
    "leakage": LEAKAGE_AXIS,
    "adversary": "adversary accuracy",
    "adversary_accuracy": "adversary accuracy",
    "distortion": "distortion",
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "top_k_accuracy": "top-k accuracy",
    "roc_auc": "ROC AUC",
    "roc_auc_ovr": "ROC AUC (one vs rest)",
    "roc_auc_ovo": "ROC AUC (one vs one)",
    "average_precision": "average precision",
    "f1": "F1 score",
    "f1_macro": "F1 score (macro)",
    "f1_micro": "F1 score (micro)",
    "f1_weighted": "F1 score (weighted)",
    "precision": "precision",
    "recall": "recall",
    "r2": "R²",
    "neg_log_loss": "minus log loss",
    "neg_brier_score": "minus Brier score",
    "neg_mean_squared_error": "minus mean squared error",
    "neg_mean_absolute_error": "minus mean absolute error",
}


def axis_name(key, scorer=None, *, leakage=LEAKAGE_AXIS):
    """Readable axis label of the scorer named ``key``.

    The scorer itself decides when it is known: one of the library's privacy
    scorers by its ``measure``, a scikit-learn scorer given by name
    (``"balanced_accuracy"``) by that name; then the key; a key neither knows is
    its own label. ``leakage`` is the label of a leakage scorer.
    """
    names = {**_AXIS_NAMES, "leakage": leakage}
    kind = scorer.measure if is_privacy_scorer(scorer) else None
    if kind is None and isinstance(scorer, str):
        kind = scorer
    for candidate in (kind, key):
        if isinstance(candidate, str) and candidate in names:
            return names[candidate]
    return str(key)


def all_nonpositive(values):
    """Whether the finite ``values`` are all <= 0 and some < 0 (a negated scorer)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    return values.size > 0 and bool(np.all(values <= 0)) and bool(np.any(values < 0))


def tradeoff_display_kwargs(result, *, leakage, utility, negate_leakage=None):
    """Constructor arguments of a display of a :func:`tradeoff_curve` result.

    The means over the splits are the points and the standard deviations
    their error bars; a leakage scorer that returned only values <= 0 is
    negated back unless ``negate_leakage`` says otherwise.
    """
    scores = result.test_scores
    for key, role in ((leakage, "leakage"), (utility, "utility")):
        if key not in scores:
            raise ValueError(
                f"{role}={key!r} is not a scorer of the result; it has {sorted(scores)}."
            )
    leak = np.asarray(scores[leakage], dtype=float)
    util = np.asarray(scores[utility], dtype=float)
    if negate_leakage is None:
        negate_leakage = all_nonpositive(leak)
    if negate_leakage:
        leak = -leak
    return {
        "leakage": leak.mean(axis=1),
        "utility": util.mean(axis=1),
        "param_range": list(result.param_range),
        "leakage_std": leak.std(axis=1),
        "utility_std": util.std(axis=1),
        "leakage_name": axis_name(leakage, leakage=SWEEP_LEAKAGE_AXIS),
        "utility_name": axis_name(utility),
    }


def search_display_kwargs(
    search, *, leakage, utility, param_name=None, estimator_name=None, negate_leakage=None
):
    """Constructor arguments of a :class:`TradeoffDisplay` of a search's candidates.

    ``search`` is a fitted search or its ``cv_results_``. Candidates whose mean
    scores are not finite are left out, with a warning.
    """
    sign, mechanism_name, scoring = None, None, {}
    if hasattr(search, "cv_results_"):
        sign, mechanism_name = inspect_search(search, leakage)
        scoring = search.scoring if isinstance(search.scoring, dict) else {}
        cv_results = search.cv_results_
    else:
        cv_results = search
    _check_search_results(cv_results)
    keys = {}
    for key, role in ((leakage, "leakage"), (utility, "utility")):
        keys[role] = f"mean_test_{key}"
        if keys[role] not in cv_results:
            scorers = sorted(k[len("mean_test_") :] for k in cv_results if "mean_test_" in k)
            raise ValueError(
                f"{role}={key!r}: cv_results has no 'mean_test_{key}'; its scorers are "
                f"{scorers}. Name the scorers with a scoring dict."
            )
    leak = np.asarray(cv_results[keys["leakage"]], dtype=float)
    util = np.asarray(cv_results[keys["utility"]], dtype=float)
    leak_std = cv_results.get(f"std_test_{leakage}")
    util_std = cv_results.get(f"std_test_{utility}")
    if negate_leakage is None:
        negate_leakage = sign < 0 if sign is not None else all_nonpositive(leak)
    if negate_leakage:
        leak = -leak
    params = list(cv_results["params"])
    series = mechanism_series(params)
    labels, knobs = point_labels(cv_results, params, series, param_name)
    if series is not None:  # name each mechanism's knob beside it in the legend
        named = dict(zip(dict.fromkeys(series.tolist()), knobs))
        series = np.asarray([f"{s} ({named[s]})" if named[s] else s for s in series], dtype=object)
    elif estimator_name is None and mechanism_name is not None and knobs[0]:
        mechanism_name = f"{mechanism_name} ({knobs[0]})"
    finite = np.isfinite(leak) & np.isfinite(util)
    if not finite.all():
        warnings.warn(
            f"{np.sum(~finite)} candidate(s) with a non-finite mean score are not drawn.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    return {
        "leakage": leak[finite],
        "utility": util[finite],
        "leakage_std": None if leak_std is None else np.asarray(leak_std, float)[finite],
        "utility_std": None if util_std is None else np.asarray(util_std, float)[finite],
        "param_range": [labels[i] for i in np.flatnonzero(finite)],
        "series": None if series is None else series[finite],
        "estimator_name": estimator_name if estimator_name is not None else mechanism_name,
        "leakage_name": axis_name(leakage, scoring.get(leakage)),
        "utility_name": axis_name(utility, scoring.get(utility)),
    }


def _check_search_results(cv_results):
    """A search's ``cv_results_`` (one row per candidate), not ``cross_validate`` output."""
    if not hasattr(cv_results, "keys") or "params" not in cv_results:
        looks_like = (
            " It looks like cross_validate output (one row per split): plot a sweep with "
            "TradeoffDisplay.from_estimator or from_tradeoff instead."
            if hasattr(cv_results, "keys") and any(str(k).startswith("test_") for k in cv_results)
            else ""
        )
        raise TypeError(
            "search must be a fitted search (GridSearchCV, RandomizedSearchCV, ...) or its "
            f"cv_results_ dict with a 'params' entry.{looks_like}"
        )


def format_value(value):
    """A point label: numbers as ``%g``, estimators by class name; None when masked."""
    if value is None or value is np.ma.masked:
        return None
    if isinstance(value, BaseEstimator):
        return type(value).__name__
    if isinstance(value, (Real, np.number)) and not isinstance(value, bool):
        return f"{value:g}"
    return str(value)


def inspect_search(search, leakage):
    """Sign of the leakage scorer and the mechanism's class name, from a fitted search."""
    sign = None
    scorer = getattr(search, "scorer_", None)
    if isinstance(scorer, dict) and is_privacy_scorer(scorer.get(leakage)):
        sign = 1 if scorer[leakage].greater_is_better else -1
    try:
        mechanism, _ = find_mechanism(search.estimator)
    except TypeError:
        return sign, None
    return sign, type(mechanism).__name__


def mechanism_series(params):
    """Class name of the estimator-valued parameter of each candidate, or None."""
    keys = [
        key
        for key in dict.fromkeys(k for p in params for k in p)
        if any(isinstance(p.get(key), BaseEstimator) for p in params)
    ]
    if not keys:
        return None
    mechanisms = [k for k in keys if any(isinstance(p.get(k), BaseMechanism) for p in params)]
    key = (mechanisms or keys)[0]
    names, by_repr = [], {}
    for p in params:
        value = p.get(key)
        if value is None:
            names.append("default")
            continue
        text = repr(value)
        if text not in by_repr:
            base = type(value).__name__ if isinstance(value, BaseEstimator) else str(value)
            taken = sum(name == base or name.startswith(base + " (") for name in by_repr.values())
            by_repr[text] = base if taken == 0 else f"{base} ({taken + 1})"
        names.append(by_repr[text])
    return np.asarray(names, dtype=object)


def point_labels(cv_results, params, series, param_name):
    """Label of each candidate (its knob values) and the knob's name in each series."""
    groups = (
        [np.arange(len(params))]
        if series is None
        else [np.flatnonzero(series == name) for name in dict.fromkeys(series.tolist())]
    )
    if param_name is not None:
        key = f"param_{param_name}"
        if key not in cv_results:
            found = sorted(k[len("param_") :] for k in cv_results if k.startswith("param_"))
            raise ValueError(f"param_name={param_name!r} is not in cv_results; found {found}.")
        values = cv_results[key]
        mask = np.ma.getmaskarray(values)
        labels = [None if mask[i] else format_value(values[i]) for i in range(len(params))]
        return labels, [param_name.rsplit("__", 1)[-1]] * len(groups)
    labels, knobs = [None] * len(params), []
    for index in groups:
        rows = [params[i] for i in index]
        varying = [
            key
            for key in dict.fromkeys(k for p in rows for k in p)
            if not any(isinstance(p.get(key), BaseEstimator) for p in rows)
            and len({repr(p.get(key)) for p in rows}) > 1
        ]
        for i, p in zip(index, rows):
            parts = [format_value(p.get(key)) for key in varying if key in p]
            labels[i] = ", ".join(part for part in parts if part is not None) or None
        knobs.append(", ".join(key.rsplit("__", 1)[-1] for key in varying) or None)
    return labels, knobs
