"""Reading a search's ``cv_results_`` for :class:`TradeoffDisplay` (private helpers)."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator


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
    from sklearn_privacy.metrics._scorers import _MechanismScorer, find_mechanism

    sign = None
    scorer = getattr(search, "scorer_", None)
    if isinstance(scorer, dict) and isinstance(scorer.get(leakage), _MechanismScorer):
        sign = scorer[leakage]._sign
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
    from sklearn_privacy._base import BaseMechanism

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
