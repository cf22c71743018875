"""Neighbouring data sets D and D' that bite: a canary at the poles of the kept direction, or D'.

Why the canary is far out along the direction the release keeps: "Audits" in ``docs/design.md``.
"""

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from sklearn_privacy._sensitive import sensitive_positions
from sklearn_privacy.utils._sklearn_compat import _safe_indexing

__all__ = ["Data", "audited_step", "default_neighbours", "given_neighbours"]

# The canary sits this many times the largest centred row norm from the centre: beyond any
# clipping radius read off the rows, so that a clipped release moves by its whole radius.
_FAR = 10.0


@dataclass(frozen=True)
class Data:
    """One data set of an audit: what ``fit`` receives."""

    X: object
    y: object = None
    sensitive: object = None
    sample_weight: object = None

    def fit(self, estimator):
        kwargs = {
            key: value
            for key, value in (("sensitive", self.sensitive), ("sample_weight", self.sample_weight))
            if value is not None
        }
        return estimator.fit(self.X, self.y, **kwargs)

    def rows(self, index):
        return _safe_indexing(self.X, index)


def audited_step(estimator):
    """The step whose ledger is read: the estimator, or the last step of a pipeline."""
    return estimator[-1] if isinstance(estimator, Pipeline) else estimator


def _moved_columns(estimator, X):
    """Columns the canary moves: every one but those the audited mechanism reads as S or y."""
    names = getattr(X, "columns", None)
    names = None if names is None else np.asarray(names).astype(str)
    skip = set()
    if not isinstance(estimator, Pipeline):
        params = estimator.get_params(deep=False)
        for param in ("sensitive", "relevance"):
            skip.update(sensitive_positions(params.get(param), names, X.shape[1]))
    return [j for j in range(X.shape[1]) if j not in skip]


def _kept_direction(estimator, data, values):
    """Unit direction the release keeps most: a public pilot fit's whitened components.

    The pilot is fitted with ``fit_data="public"`` (no noise: the same direction
    at every audit of the same rows) when the estimator has that parameter; its
    ``components_`` scaled by ``scale_ / sqrt(noise_variance_)`` when it has
    them (L2 compression), as they are (the bottleneck's unit-noise map),
    give the direction of largest sensitivity. Otherwise the rows' first
    principal direction.
    """
    centred = values - values.mean(axis=0)
    if not isinstance(estimator, Pipeline) and "fit_data" in estimator.get_params(deep=False):
        pilot = clone(estimator).set_params(fit_data="public")
        try:
            with warnings.catch_warnings():
                # the pilot is never published: its warnings are not the user's
                warnings.simplefilter("ignore")
                data.fit(pilot)
            components = np.asarray(pilot.components_, dtype=float)
        except (ValueError, AttributeError):
            components = None
        if components is not None and components.shape[1] == values.shape[1]:
            if hasattr(pilot, "scale_") and hasattr(pilot, "noise_variance_"):
                components = components * (pilot.scale_ / np.sqrt(pilot.noise_variance_))[:, None]
            if np.any(components):
                return _unit(np.linalg.svd(components, full_matrices=False)[2][0])
    return _unit(np.linalg.svd(centred, full_matrices=False)[2][0])


def _unit(direction):
    direction = direction / np.linalg.norm(direction)
    # a sign fixed by the data, so that the same rows give the same canary
    return direction if direction[np.argmax(np.abs(direction))] > 0 else -direction


def _set_row(X, row, columns, values):
    X = X.copy()
    if isinstance(X, pd.DataFrame):
        X.iloc[row, columns] = values
    else:
        X[row, columns] = values
    return X


def _append_row(values, row):
    """``values`` with a copy of its row ``row`` appended (None stays None)."""
    if values is None:
        return None
    if isinstance(values, pd.DataFrame | pd.Series):
        return pd.concat([values, values.iloc[[row]]], ignore_index=True)
    values = np.asarray(values)
    return np.concatenate([values, values[[row]]])


def default_neighbours(estimator, data, relation, unit_weight):
    """D and D': one person at the two poles of the kept direction, far out.

    Returns
    -------
    D, D_prime : Data
    rows : ndarray of int
        The audited rows (the canary's), released after each fit.
    description : str
    """
    X = data.X if isinstance(data.X, pd.DataFrame) else np.asarray(data.X)
    columns = _moved_columns(estimator, X)
    # the canary's coordinates are not integers: integer columns become floats
    if isinstance(X, pd.DataFrame):
        X = X.astype({X.columns[j]: float for j in columns if X.dtypes.iloc[j].kind in "iub"})
    elif X.dtype.kind in "iub":
        X = X.astype(float)
    data = replace(data, X=X)
    try:
        values = np.asarray(_safe_indexing(data.X, columns, axis=1), dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "The default canary moves the numeric columns of X, and these are not all "
            "numbers: give D' explicitly with neighbour={'X': ...}."
        ) from exc
    centre = values.mean(axis=0)
    direction = _kept_direction(estimator, data, values)
    far = _FAR * max(float(np.linalg.norm(values - centre, axis=1).max()), 1.0)
    weights = (
        np.ones(values.shape[0])
        if data.sample_weight is None
        else np.asarray(data.sample_weight, dtype=float)
    )
    target = int(np.argmax(weights))
    if relation == "replace-unit":
        step = audited_step(estimator)
        unit = unit_weight or float(step.get_params().get("max_person_weight", 1.0))
    else:
        unit = weights[target]
    base = data
    if weights[target] > unit:
        # a row of several people: one of them (one unit of weight) moves to a new row
        weights = weights.copy()
        weights[target] -= unit
        base = Data(
            _append_row(data.X, target),
            _append_row(data.y, target),
            _append_row(data.sensitive, target),
            np.append(weights, unit),
        )
        what = f"{unit:g} of the weight of row {target} moved to a new row"
        target = weights.size
    else:
        what = f"row {target} (weight {weights[target]:g}) replaced"
    low = Data(_set_row(base.X, target, columns, centre - far * direction), *_rest(base))
    high = Data(_set_row(base.X, target, columns, centre + far * direction), *_rest(base))
    description = (
        f"{relation}: {what}; the person is at the centre minus (D) or plus (D') {far:.3g} "
        "times the direction the release keeps"
    )
    return low, high, np.array([target]), description


def _rest(data):
    return data.y, data.sensitive, data.sample_weight


def given_neighbours(data, neighbour):
    """D and the user's D' (``neighbour``: a dict of what differs), and the rows that differ."""
    unknown = set(neighbour) - {"X", "y", "sensitive", "sample_weight"}
    if unknown or "X" not in neighbour:
        raise ValueError(
            "neighbour as a dict gives D': its key 'X' and optionally 'y', 'sensitive' and "
            f"'sample_weight' (any other is copied from D); got keys {sorted(neighbour)}."
        )
    other = Data(
        neighbour["X"],
        neighbour.get("y", data.y),
        neighbour.get("sensitive", data.sensitive),
        neighbour.get("sample_weight", data.sample_weight),
    )
    changed = np.zeros(len(data.X), dtype=bool)
    for name in ("X", "y", "sensitive", "sample_weight"):
        a, b = getattr(data, name), getattr(other, name)
        if a is None and b is None:
            continue
        if a is None or b is None or len(a) != len(b):
            raise ValueError(
                f"neighbour[{name!r}] must give as many rows as D ({len(data.X)}), and "
                f"{name} must be given for both or neither of D and D'."
            )
        a, b = np.asarray(a), np.asarray(b)
        differ = a != b
        changed |= differ.reshape(len(differ), -1).any(axis=1)
    if not changed.any():
        raise ValueError("neighbour gives a D' equal to D: change at least one row.")
    rows = np.flatnonzero(changed)
    return data, other, rows, f"given D': rows {rows.tolist()} differ"
