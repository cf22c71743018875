"""Neighbouring data sets D and D' that bite: a canary at the poles of the kept direction, or D'.

Why the canary is far out along the direction the release keeps: "Audits" in ``docs/design.md``.
What the canary may move and where comes from the estimator's ``audit_plan`` (``AuditProtocol``).
"""

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from sklearn_privacy.base import AuditPlan
from sklearn_privacy.utils._sklearn_compat import _safe_indexing

__all__ = ["Data", "audit_plan", "audited_step", "default_neighbours", "given_neighbours"]

# The canary sits this many times the largest centred row norm from the centre: beyond any
# clipping radius read off the rows, so that a clipped release moves by its whole radius.
_FAR = 10.0
# The relations a given D' may be checked against (besides "auto").
_RELATIONS = ("replace-one", "replace-unit", "custom")


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

    def weights(self):
        """The rows' weights (ones without ``sample_weight``)."""
        if self.sample_weight is None:
            return np.ones(len(self.X))
        return np.asarray(self.sample_weight, dtype=float)


def audited_step(estimator):
    """The step whose ledger is read: the estimator, or the last step of a pipeline."""
    return estimator[-1] if isinstance(estimator, Pipeline) else estimator


def audit_plan(estimator, data):
    """The audited step's :class:`~sklearn_privacy.base.AuditPlan` (the default without one).

    A pipeline's last step is asked without rows (its input is not D's columns):
    only its unit of weight and whether its fit is covered are read.
    """
    step = audited_step(estimator)
    if not hasattr(step, "audit_plan"):
        return AuditPlan()
    if step is not estimator:
        return step.audit_plan(None)
    return step.audit_plan(
        data.X, data.y, sensitive=data.sensitive, sample_weight=data.sample_weight
    )


def _kept_direction(plan, values):
    """Unit direction the release keeps most: the plan's, else the rows' first principal one."""
    if plan.direction is not None:
        direction = np.asarray(plan.direction, dtype=float)
        if direction.shape == (values.shape[1],) and np.any(direction):
            return _unit(direction)
    centred = values - values.mean(axis=0)
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


def default_neighbours(plan, data, relation, unit_weight):
    """D and D': one person at the two poles of the kept direction, far out.

    Returns
    -------
    D, D_prime : Data
    rows : ndarray of int
        The audited rows (the canary's), released after each fit.
    description : str
    """
    X = data.X if isinstance(data.X, pd.DataFrame) else np.asarray(data.X)
    columns = list(range(X.shape[1]) if plan.columns is None else plan.columns)
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
    direction = _kept_direction(plan, values)
    far = _FAR * max(float(np.linalg.norm(values - centre, axis=1).max()), 1.0)
    weights = data.weights()
    target = int(np.argmax(weights))
    if relation == "replace-unit":
        unit = unit_weight or plan.person_weight
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


def given_neighbours(data, neighbour, unit):
    """D and the user's D' (``neighbour``: a dict of what differs), checked to be a neighbour.

    ``neighbour["relation"]`` (default ``"auto"``: ``"replace-one"`` without
    weights, ``"replace-unit"`` with them) is the relation D' must satisfy:
    one row differs (``"replace-one"``), or at most one person's weight
    ``unit`` moves between rows (``"replace-unit"``: the weight of the rows
    whose record changed, before and after, plus the change of weight of the
    others, adds up to at most twice ``unit``, and the total weight is kept).
    ``"custom"`` accepts any D' that differs: its bounds are not about the claim.

    Returns
    -------
    D, D_prime : Data
    rows : ndarray of int
        The rows that differ, released after each fit.
    description : str
    about_claim : bool
        False for ``"custom"``.
    """
    neighbour = dict(neighbour)
    relation = neighbour.pop("relation", "auto")
    unknown = set(neighbour) - {"X", "y", "sensitive", "sample_weight"}
    if unknown or "X" not in neighbour or relation not in ("auto", *_RELATIONS):
        raise ValueError(
            "neighbour as a dict gives D': its key 'X' and optionally 'y', 'sensitive' and "
            "'sample_weight' (any other is copied from D), and 'relation', one of 'auto', "
            f"{', '.join(map(repr, _RELATIONS))}; got keys {sorted(neighbour)} and relation "
            f"{relation!r}."
        )
    other = Data(
        neighbour["X"],
        neighbour.get("y", data.y),
        neighbour.get("sensitive", data.sensitive),
        neighbour.get("sample_weight", data.sample_weight),
    )
    record = np.zeros(len(data.X), dtype=bool)
    for name in ("X", "y", "sensitive", "sample_weight"):
        a, b = getattr(data, name), getattr(other, name)
        if a is None and b is None:
            continue
        if a is None or b is None or len(a) != len(b):
            raise ValueError(
                f"neighbour[{name!r}] must give as many rows as D ({len(data.X)}), and "
                f"{name} must be given for both or neither of D and D'."
            )
        if name != "sample_weight":
            record |= _rows_differ(a, b)
    weights, weights_prime = data.weights(), other.weights()
    reweighted = ~np.isclose(weights, weights_prime, rtol=1e-12, atol=0.0)
    rows = np.flatnonzero(record | reweighted)
    if not rows.size:
        raise ValueError("neighbour gives a D' equal to D: change at least one row.")
    if relation == "auto":
        relation = "replace-one" if data.sample_weight is None else "replace-unit"
    moved = np.sum(np.where(record, weights + weights_prime, np.abs(weights - weights_prime)))
    kept = np.isclose(weights.sum(), weights_prime.sum(), rtol=1e-9, atol=0.0)
    if relation == "replace-one" and rows.size > 1:
        problem = "one row is replaced"
    elif relation == "replace-unit" and (moved > 2.0 * unit * (1.0 + 1e-9) or not kept):
        problem = f"at most one person's weight ({unit:g}) moves and the total weight is kept"
    else:
        problem = None
    listed = _listed(rows)
    if problem is not None:
        raise ValueError(
            f"neighbour gives a D' that differs from D in {rows.size} rows ({listed}; weight "
            f"{moved / 2:g} moved), not a neighbour under {relation!r}, where {problem}: its "
            "bounds would not be about the claim, which protects one person. Give a D' that "
            "differs in one person, or audit this pair anyway with "
            "neighbour={..., 'relation': 'custom'} (its result says it is not about the claim)."
        )
    if relation == "custom":
        description = (
            f"custom D': rows {listed} differ; the bounds are about this pair of data sets, "
            "not about the claim"
        )
        return data, other, rows, description, False
    return data, other, rows, f"given D' ({relation}): rows {listed} differ", True


def _rows_differ(a, b):
    """Whether each row of ``a`` differs from that of ``b`` (NaN equal to NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    differ = a != b
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        differ &= ~(np.isnan(a) & np.isnan(b))
    return differ.reshape(len(differ), -1).any(axis=1)


def _listed(rows, at_most=10):
    shown = ", ".join(str(int(r)) for r in rows[:at_most])
    return f"[{shown}{', ...' if rows.size > at_most else ''}]"
