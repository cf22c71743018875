"""The trials of an audit: fit on D or D', publish, read the statistic and the ledger; in parallel.

Why fresh noise in every trial (the audit's ``random_state`` seeds only its own choices):
"Audits" in ``docs/design.md``.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone

from sklearn_privacy.audit._neighbours import audited_step
from sklearn_privacy.audit._warnings import gather_warnings, run_recorded
from sklearn_privacy.gaussian import GaussianIBTransformer
from sklearn_privacy.utils import progress

__all__ = ["default_statistic", "fits_public_data", "ledger_claim", "run_trials"]

# Chunks per worker: enough for the progress bar to move and the workers to balance, few
# enough that joblib's per-task cost stays small beside a fit.
_CHUNKS_PER_WORKER = 8


def default_statistic(estimator, release):
    """The release of the audited rows, in the input space where the mechanism has one.

    The bottleneck releases :math:`T = A (x - \\bar{x}) + N` in the coordinates of
    its components, whose signs a fit does not fix: it is read back as
    :math:`A^T T`, which does not depend on them.
    """
    release = np.asarray(release, dtype=float)
    step = audited_step(estimator)
    if isinstance(step, GaussianIBTransformer):
        release = release @ step.components_
    return release.ravel()


def ledger_claim(estimator):
    """``(epsilon, delta, mu)`` of what the fitted estimator published, or None without a ledger.

    ``privacy_spent()`` (everything published: the fit and the releases so far),
    else ``epsilon_`` and ``delta_``; ``mu`` from ``accountant_`` (nan without one).
    """
    step = audited_step(estimator)
    if hasattr(step, "privacy_spent"):
        epsilon, delta = step.privacy_spent()
    elif hasattr(step, "epsilon_") and hasattr(step, "delta_"):
        epsilon, delta = step.epsilon_, step.delta_
    else:
        return None
    accountant = getattr(step, "accountant_", None)
    mu = float(accountant.mu) if accountant is not None else float("nan")
    return float(epsilon), float(delta), mu


def fits_public_data(estimator):
    """Whether the audited step declares its fit data public (``fit_data="public"``).

    Its ledger then covers the release of the rows only: the fit is the same
    in both worlds, and only the rows released differ.
    """
    params = audited_step(estimator).get_params(deep=False)
    return params.get("fit_data") == "public"


def _trial(estimator, fit_data, data, rows, statistic):
    """One fit on ``fit_data``, publishing the model and a release of ``data``'s rows."""
    fitted = fit_data.fit(clone(estimator))
    release = fitted.transform(data.rows(rows))
    value = np.atleast_1d(np.asarray(statistic(fitted, release), dtype=float)).ravel()
    return value, ledger_claim(fitted)


def _trial_chunk(estimator, fit_data, data, rows, statistic, n):
    """``n`` trials: their statistics, claims and the causes of the warnings each raised.

    The warnings are recorded here, in the worker, and returned with the
    statistics: a worker process would print each one, and the caller's
    filters do not reach it.
    """
    values, claims, causes = [], [], []
    for _ in range(n):
        (value, claim), caught = run_recorded(_trial, estimator, fit_data, data, rows, statistic)
        values.append(value)
        claims.append(claim)
        causes.append(caught)
    return values, claims, causes


def run_trials(estimator, data, neighbour, rows, statistic, n_trials, n_jobs, verbose):
    """Statistics of ``n_trials`` fits on each of D and D', the ledgers' claims, the warnings.

    Every fit draws its noise as the estimator was set to (fresh OS entropy when
    its ``random_state`` is None): the audit replays no noise and seeds nothing.
    When the audited step declares its fit data public (:func:`fits_public_data`),
    the estimator, a whole pipeline included, is fitted on D in both worlds: its
    ledger does not cover the fit. The warnings of the fits come back gathered
    (:func:`~sklearn_privacy.audit._warnings.gather_warnings`), each cause once with
    the number of fits that raised it.
    """
    n_chunks = min(n_trials, max(1, effective_n_jobs(n_jobs)) * _CHUNKS_PER_WORKER)
    sizes = np.diff(np.linspace(0, n_trials, n_chunks + 1).astype(int))
    tasks = [(label, size) for size in sizes for label in (0, 1)]
    sets = (data, neighbour)
    fit_sets = (data, data) if fits_public_data(estimator) else sets
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_trial_chunk)(estimator, fit_sets[label], sets[label], rows, statistic, int(size))
        for label, size in tasks
    )
    collected = ([], [])
    claims, causes = [], []
    with progress(total=2 * n_trials, verbose=verbose, desc="audit trials") as bar:
        for (label, size), (values, chunk_claims, chunk_causes) in zip(tasks, results):
            collected[label].extend(values)
            claims.extend(chunk_claims)
            causes.extend(chunk_causes)
            bar.update(size)
    lengths = {v.size for v in collected[0] + collected[1]}
    if len(lengths) != 1:
        raise ValueError(
            f"statistic returned values of {sorted(lengths)} numbers across fits: it must "
            "return the same number of values (a float or a fixed-length array) every time."
        )
    features = [np.vstack(values) for values in collected]
    for name, sample in zip(("D", "D'"), features):
        if not np.all(np.isfinite(sample)):
            raise ValueError(f"statistic returned NaN or infinite values on fits of {name}.")
    return features[0], features[1], claims, gather_warnings(causes, 2 * n_trials, "fits")
