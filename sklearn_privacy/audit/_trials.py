"""The trials of an audit: fit on D or D', publish, read the statistic and the ledger; in parallel.

The estimator is asked only through the audit protocol (``AuditProtocol`` in ``_base``): its
claim, the statistic of its release, its plan. Why fresh noise in every trial (the audit's
``random_state`` seeds only its own choices): "Audits" in ``docs/design.md``.
"""

from dataclasses import dataclass
from numbers import Number

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, clone
from sklearn.pipeline import Pipeline

from sklearn_privacy.audit._neighbours import audited_step
from sklearn_privacy.audit._warnings import failure_cause, gather_warnings, run_recorded
from sklearn_privacy.base import PrivacyClaim
from sklearn_privacy.utils import progress

__all__ = ["Trials", "default_statistic", "has_ledger", "ledger_claim", "run_trials"]

# Chunks per worker: enough for the progress bar to move and the workers to balance, few
# enough that joblib's per-task cost stays small beside a fit.
_CHUNKS_PER_WORKER = 8
# The share of an audit's fits that may fail (and be left out) before it stops: a rare failure
# of a sound mechanism (one fit in 2000) does not end an audit of 4000 fits.
MAX_FAILED = 0.01
# Attributes every fitted estimator has that say nothing of the rows' values.
_SHAPE_ONLY = frozenset({"n_features_in_", "feature_names_in_"})
# How deep the attributes of a fitted step are searched for nested estimators.
_DEPTH = 3


def has_ledger(estimator):
    """Whether the audited step answers ``audit_claim`` (asked of the class: nothing is fitted)."""
    return callable(getattr(audited_step(estimator), "audit_claim", None))


def ledger_claim(estimator):
    """The fitted audited step's :class:`~sklearn_privacy.base.PrivacyClaim`.

    A tuple ``(epsilon, delta)`` or ``(epsilon, delta, mu)`` reads as one.
    """
    claim = audited_step(estimator).audit_claim()
    if not isinstance(claim, PrivacyClaim):
        claim = PrivacyClaim(*(float(value) for value in claim))
    return claim


def _published_values(estimator, depth=_DEPTH):
    """The numbers a fitted estimator publishes: its fitted attributes (``name_``), flattened.

    Numeric attributes in the order of their names; estimators among them (a
    ``ColumnTransformer``'s, a nested pipeline's) are read the same way. What
    says only the rows' shape (``n_features_in_``) is left out; NaN and
    infinities read as 0 (the same in both worlds).
    """
    values = []
    for name in sorted(vars(estimator)):
        if not name.endswith("_") or name.startswith("_") or name in _SHAPE_ONLY:
            continue
        value = getattr(estimator, name)
        if isinstance(value, BaseEstimator) and depth:
            values += _published_values(value, depth - 1)
        elif isinstance(value, list | tuple) and depth:
            for item in value:
                for part in item if isinstance(item, tuple) else (item,):
                    if isinstance(part, BaseEstimator):
                        values += _published_values(part, depth - 1)
        if isinstance(value, Number | np.ndarray | list | tuple):
            try:
                array = np.asarray(value)
            except ValueError:  # ragged
                continue
            if array.dtype.kind in "biuf":
                values.append(np.nan_to_num(array.astype(float).ravel(), posinf=0.0, neginf=0.0))
    return values


def outside_ledger(fitted):
    """The fitted steps before the audited one that publish numbers and keep no ledger.

    Returns
    -------
    names : tuple of str
        ``"name (Class)"`` of each.
    values : list of ndarray
        What they publish (:func:`_published_values`).
    """
    if not isinstance(fitted, Pipeline):
        return (), []
    names, values = [], []
    for label, step in fitted.steps[:-1]:
        if step is None or step == "passthrough" or callable(getattr(step, "audit_claim", None)):
            continue
        published = _published_values(step)
        if published:
            names.append(f"{label} ({type(step).__name__})")
            values += published
    return tuple(names), values


def default_statistic(estimator, release):
    """The audited step's ``audit_statistic`` of the release (else the release, flattened).

    The audit appends what the pipeline's steps outside the ledger publish
    (:func:`outside_ledger`) when the user gives no statistic.
    """
    step = audited_step(estimator)
    if callable(getattr(step, "audit_statistic", None)):
        return np.asarray(step.audit_statistic(release), dtype=float).ravel()
    return np.asarray(release, dtype=float).ravel()


@dataclass(frozen=True)
class _Outcome:
    """One trial that completed: its statistic, the claim, the causes of its warnings."""

    value: np.ndarray
    claim: PrivacyClaim
    causes: dict
    outside: tuple


@dataclass(frozen=True)
class Trials:
    """What the trials of an audit gathered.

    Attributes
    ----------
    features, neighbour_features : ndarray of shape (n_completed, n_values)
        The statistic of each completed fit on D and on D'.
    claims : list of PrivacyClaim
        The ledger's claim after each completed fit.
    warnings, failures : tuple of AuditWarning
        The causes of the fits' warnings and of their failures, counted.
    n_failed : tuple of int
        Failed fits on D and on D'.
    outside_ledger : tuple of str
        The pipeline's steps that publish outside the ledger.
    """

    features: np.ndarray
    neighbour_features: np.ndarray
    claims: list
    warnings: tuple
    failures: tuple
    n_failed: tuple
    outside_ledger: tuple


def _trial(estimator, fit_set, data, rows, statistic, read_outside):
    """One fit on ``fit_set``, publishing the model and a release of ``data``'s rows."""
    fitted = fit_set.fit(clone(estimator))
    release = fitted.transform(data.rows(rows))
    names, published = outside_ledger(fitted) if read_outside else ((), [])
    if statistic is None:
        value = np.concatenate([default_statistic(fitted, release), *published])
    else:
        value = np.atleast_1d(np.asarray(statistic(fitted, release), dtype=float)).ravel()
    return value, ledger_claim(fitted), names


def _trial_chunk(estimator, fit_set, data, rows, statistic, read_outside, n):
    """``n`` trials: an :class:`_Outcome` for each that completed, a failure cause for the others.

    The warnings are recorded here, in the worker, and returned with the
    statistics: a worker process would print each one, and the caller's
    filters do not reach it. A trial that raises is a failure, not the end
    of the audit: its cause comes back instead.
    """
    results = []
    for _ in range(n):
        try:
            (value, claim, names), caught = run_recorded(
                _trial, estimator, fit_set, data, rows, statistic, read_outside
            )
        except Exception as exc:  # counted and reported: run_trials decides when to stop
            results.append(failure_cause(exc))
            continue
        results.append(_Outcome(value, claim, caught, names))
    return results


def run_trials(estimator, data, neighbour, rows, statistic, n_trials, n_jobs, verbose, plan):
    """Statistics of ``n_trials`` fits on each of D and D', the ledgers' claims, the warnings.

    Every fit draws its noise as the estimator was set to (fresh OS entropy when
    its ``random_state`` is None): the audit replays no noise and seeds nothing.
    When the ledger does not cover the fit (``plan.private_fit`` False: fit data
    declared public), the estimator, a whole pipeline included, is fitted on D in
    both worlds. ``statistic`` None reads the protocol's statistic and what a
    pipeline's steps publish outside the ledger. A fit that fails is left out
    and counted; more than :data:`MAX_FAILED` of the fits failing stops the
    audit with the first failure's cause.

    Returns
    -------
    Trials
    """
    n_chunks = min(n_trials, max(1, effective_n_jobs(n_jobs)) * _CHUNKS_PER_WORKER)
    sizes = np.diff(np.linspace(0, n_trials, n_chunks + 1).astype(int))
    tasks = [(label, size) for size in sizes for label in (0, 1)]
    sets = (data, neighbour)
    fit_sets = sets if plan.private_fit else (data, data)
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_trial_chunk)(
            estimator, fit_sets[label], sets[label], rows, statistic, plan.private_fit, int(size)
        )
        for label, size in tasks
    )
    outcomes, failures = ([], []), ([], [])
    allowed = max(1, int(MAX_FAILED * 2 * n_trials))
    with progress(total=2 * n_trials, verbose=verbose, desc="audit trials") as bar:
        for (label, size), chunk in zip(tasks, results):
            for result in chunk:
                (outcomes if isinstance(result, _Outcome) else failures)[label].append(result)
            bar.update(size)
            if len(failures[0]) + len(failures[1]) > allowed:
                _stop(failures, allowed, n_trials, audited_step(estimator))
    return _gathered(outcomes, failures, n_trials, audited_step(estimator))


def _stop(failures, allowed, n_trials, step):
    first = (failures[0] or failures[1])[0]
    n_failed = len(failures[0]) + len(failures[1])
    raise RuntimeError(
        f"audit_privacy: {n_failed} fits of {type(step).__name__} failed, more than the "
        f"{allowed} ({MAX_FAILED:.0%} of the {2 * n_trials} fits, at least one) an audit leaves "
        f"out; the audit stopped. The first failure: {first[0].__name__}: {first[2]}"
    )


def _gathered(outcomes, failures, n_trials, step):
    """The completed trials' statistics, checked, with the counts of warnings and failures."""
    for sample, failed, name in zip(outcomes, failures, ("D", "D'")):
        if len(sample) < 4:
            raise RuntimeError(
                f"audit_privacy: {len(failed)} of the {n_trials} fits of {type(step).__name__} "
                f"on {name} failed, and the {len(sample)} left are too few (an audit needs 4 "
                f"on each data set): the first failure: {failed[0][0].__name__}: {failed[0][2]}"
            )
    values = [[outcome.value for outcome in sample] for sample in outcomes]
    lengths = {v.size for v in values[0] + values[1]}
    if len(lengths) != 1:
        raise ValueError(
            f"statistic returned values of {sorted(lengths)} numbers across fits: it must "
            "return the same number of values (a float or a fixed-length array) every time."
        )
    features = [np.vstack(sample) for sample in values]
    for name, sample in zip(("D", "D'"), features):
        if not np.all(np.isfinite(sample)):
            raise ValueError(f"statistic returned NaN or infinite values on fits of {name}.")
    everything = outcomes[0] + outcomes[1]
    return Trials(
        features=features[0],
        neighbour_features=features[1],
        claims=[outcome.claim for outcome in everything],
        warnings=gather_warnings([o.causes for o in everything], 2 * n_trials, "fits"),
        failures=gather_warnings(
            [{(f[0], f[1]): f[2]} for f in failures[0] + failures[1]], 2 * n_trials, "fits"
        ),
        n_failed=(len(failures[0]), len(failures[1])),
        outside_ledger=everything[0].outside if everything else (),
    )
