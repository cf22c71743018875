"""The default leakage estimate: the largest of a panel of honest estimates of ``I(S; T)``.

Why a panel: "The default leakage estimate" in ``docs/design.md``.
"""

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed

from sklearn_privacy.estimation._heldout import (
    FLOOR,
    HELDOUT_ADVERSARIES,
    adversary,
    cap_note,
    fold_log_proba,
    heldout_folds,
    row_cap,
    try_adversaries,
    user_name,
)
from sklearn_privacy.estimation._knn import KnnEstimator
from sklearn_privacy.estimation._release import MAX_DISTINCT_FRACTION, take_rows
from sklearn_privacy.information import mutual_information_from_samples

__all__ = [
    "MAX_PAIR_COLUMNS",
    "MAX_PANEL_CLASSES",
    "LeakageEstimate",
    "column_importance",
    "knn_permutations",
    "panel_estimate",
    "panel_members",
]

# Above this many values of S, the members whose cost grows with it are left out
# (the discrete mechanisms refuse more categories: max_categories=200).
MAX_PANEL_CLASSES = 200

# Above this many columns (of ReleaseView.coded) the pairs member is left out: its screening
# scores every pair of columns, ``d**2`` products over at least 200 rows (PairProducts).
MAX_PAIR_COLUMNS = 5000

# A column importance is a group test: a block of columns is shuffled jointly, and split in
# halves only where the held-out bound falls by more than the block's share of the fall of all
# columns plus this many nats (or 1 % of the bound).
IMPORTANCE_TOLERANCE = 1e-3

# Up to this many columns, each column is shuffled alone (no group test).
IMPORTANCE_SINGLE_COLUMNS = 16

# Permutations of S in the null of the plug-in estimate (a few bincounts each).
_PLUGIN_PERMUTATIONS = 20


def knn_permutations(n_samples):
    """Permutations of S in the kNN estimate's null: 20 on small samples, 2 from 578 rows on.

    A kNN estimate costs about ``n**2`` distance evaluations, so the null is
    given about as much work as 20 estimates on 224 rows: where the estimate
    is cheap its noise matters most (the corrected estimate's variance is the
    estimate's times ``1 + 1 / n_permutations``), and from 578 rows on two
    permutations keep the default within 5 times the kNN estimate's cost.
    Where S has at most 17 values (``KnnEstimator``'s lists of at most 256
    rows at ``k = 5``) the estimate and its permutations share one neighbour
    search, and a permutation costs a pass over the lists; the counts are
    kept as they were, so that the estimates are unchanged.
    """
    return int(np.clip(10**6 // n_samples**2, 2, 20))


@dataclass(frozen=True)
class LeakageEstimate:
    """A leakage estimate and the panel of estimates it is the largest of.

    Returned by :func:`~sklearn_privacy.metrics.leakage_score` with
    ``return_details=True``. ``float(estimate)`` is :attr:`value`.

    Attributes
    ----------
    value : float
        The leakage in nats: the largest of :attr:`estimates`, clipped to
        ``[0, entropy]``.
    estimator : str
        The member of the panel that attains the largest estimate.
    estimates : dict of str to float
        Each member's estimate in nats, before clipping: ``"logistic"``,
        ``"boosting"``, ``"network"``, ``"pairs"`` and ``"table"`` (held-out lower bounds
        ``H(S) - CE``), ``"knn"`` and ``"plugin"`` (minus their permutation
        null), or the one estimator asked for.
    spreads : dict of str to float
        The uncertainty of each member in nats: for a held-out bound the
        standard deviation of its value over the folds (each fold's own
        ``H(S) - CE``); for a corrected estimate the standard deviation of
        the estimate over the permutations of S (its spread where S and the
        release are independent); nan where not computed.
    entropy : float
        ``H(S)`` of the sample (plug-in), the most a release can reveal.
    folds : str
        How the held-out bounds' folds were made (empty if none).
    columns : dict of str to float
        Which release columns carry the leakage: each column's held-out
        permutation importance in nats (how much the held-out bound of
        :attr:`columns_by` falls when that column is shuffled among the test
        rows), largest first; beyond 16 columns found by a group test, the
        columns that carry less than an average column's share reading 0
        (:func:`column_importance`). The columns read from the release are
        named too: ``"x [values]"`` (the missing, infinite and repeated values
        of the number column ``x``), ``"[missing per row]"`` and
        ``"[nonzero per row]"``. Empty where not computed.
    columns_by : str
        The member whose bound :attr:`columns` breaks down: the winner, or
        the best member reading the release's columns where the winner reads
        whole rows (the table, kNN or plug-in estimate).
    left_out : dict of str to str
        The panel's members that did not run, and why (more than 200 values
        of S, a release of few distinct rows or of more than 5000 columns, or
        of none); empty where all ran.

    See Also
    --------
    sklearn_privacy.metrics.leakage_score : Returns one with ``return_details=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import leakage_score
    >>> s = np.tile([0, 1], 100)
    >>> estimate = leakage_score(s, s.reshape(-1, 1), return_details=True)
    >>> estimate.estimator, round(float(estimate), 2)
    ('boosting', 0.69)
    >>> sorted(estimate.estimates)
    ['boosting', 'logistic', 'plugin', 'table']
    """

    value: float
    estimator: str
    estimates: dict = field(default_factory=dict)
    spreads: dict = field(default_factory=dict)
    entropy: float = float("nan")
    folds: str = ""
    columns: dict = field(default_factory=dict)
    columns_by: str = ""
    left_out: dict = field(default_factory=dict)

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        members = ", ".join(
            f"{name}={round(value, 4) + 0.0:.4f}±{self.spreads.get(name, float('nan')):.4f}"
            for name, value in self.estimates.items()
        )
        return (
            f"LeakageEstimate(value={round(self.value, 4) + 0.0:.4f} nats, "
            f"estimator={self.estimator!r}, "
            f"entropy={self.entropy:.4f}, {members})"
        )


def _null_corrected(estimate, codes, n_permutations):
    """``estimate(codes)`` minus its mean over seeded permutations of the codes; their spread."""
    rng = np.random.default_rng(0)
    null = np.array([estimate(rng.permutation(codes)) for _ in range(n_permutations)])
    return estimate(codes) - float(null.mean()), float(null.std(ddof=1))


def _plugin_member(codes, view):
    """The null-corrected plug-in estimate, or None where the alphabet is too large.

    The plug-in estimate is in the panel only where the release has at most
    ``n_samples / 10`` distinct rows; on a release whose rows are each seen
    about once it reads ``H(S)`` whatever the release.
    """
    if view.n_distinct > MAX_DISTINCT_FRACTION * codes.size:
        return None

    def plugin(s_codes):
        return mutual_information_from_samples(s_codes, view.rows)

    return _null_corrected(plugin, codes, _PLUGIN_PERMUTATIONS)


def _knn_member(codes, view, n_neighbors):
    """The null-corrected kNN estimate, or None where no value of S is seen twice."""
    estimate = KnnEstimator(view.for_neighbours, n_neighbors, rows=view.rows)
    try:  # one neighbour search for the estimate and its null
        return _null_corrected(
            lambda s: estimate(s, clip=False), codes, knn_permutations(codes.size)
        )
    except ValueError:  # no value of S seen twice: nothing for neighbours to count
        return None


def _timed(function, *args):
    start = time.perf_counter()
    return function(*args), time.perf_counter() - start


def panel_members(n_classes, view, adversaries=None):
    """The held-out members for ``n_classes`` values of S and ``view``, the user's
    adversaries, and the members left out: ``(names, {left out: why})``.

    Above :data:`MAX_PANEL_CLASSES` values of S the logistic, boosting,
    network and pairs members are left out: each costs about ``n_classes``
    times a binary fit (gradient boosting grows one tree per class and round;
    the logistic regression over 1000 classes took 32 s of PPAN's 60), and few
    rows a class leave them little to learn; the table, the kNN or plug-in
    estimate and the user's adversaries remain. Above :data:`MAX_PAIR_COLUMNS`
    columns the pairs member is left out. A release of few distinct rows (each
    seen :data:`MAX_DISTINCT_FRACTION` ``* n`` times or more on average) leaves
    out the network and pairs: the table member is a held-out bound on every
    function of the whole row, interactions included, and the plug-in reads
    the joint itself.
    """
    left_out = {}
    if view.n_distinct <= MAX_DISTINCT_FRACTION * view.coded.shape[0]:
        why = "few distinct rows (the table reads every function of a row)"
        left_out.update(dict.fromkeys(("network", "pairs"), why))
    if view.coded.shape[1] > MAX_PAIR_COLUMNS:
        why = f"more than {MAX_PAIR_COLUMNS} columns (screening grows with their square)"
        left_out["pairs"] = why
    if n_classes > MAX_PANEL_CLASSES:
        why = f"{n_classes} values of S (more than {MAX_PANEL_CLASSES}: cost grows with them)"
        left_out.update(dict.fromkeys(("logistic", "boosting", "network", "pairs"), why))
    names = [name for name in HELDOUT_ADVERSARIES if name not in left_out]
    return names + [name for name in (adversaries or {}) if name not in names], left_out


def heldout_members(codes, view, names, folds, h_s, adversaries, parallel):
    """Each member's folds fitted side by side: ``{name: (value, spread, fits, seconds)}``.

    ``fits`` is a list of ``(fitted, test rows, log q)`` per fold.
    """
    n_classes = int(codes.max()) + 1
    jobs = [(name, adversary(name, view, adversaries)) for name in names]
    results = parallel(
        delayed(_timed)(fold_log_proba, model, features, codes, train, test, n_classes, cap, user)
        for name, (model, features) in jobs
        for cap, user in [(row_cap(name, adversaries), user_name(name, adversaries))]
        for train, test in folds
    )
    out, sizes = {}, np.array([test.size for _, test in folds])
    for i, (name, _) in enumerate(jobs):
        mine = results[i * len(folds) : (i + 1) * len(folds)]
        bounds = np.array([h_s + log_q.mean() for (_, log_q), _ in mine])
        fits = [(fitted, test, log_q) for ((fitted, log_q), _), (_, test) in zip(mine, folds)]
        seconds = sum(seconds for _, seconds in mine)
        out[name] = (float(bounds @ sizes / sizes.sum()), float(bounds.std(ddof=1)), fits, seconds)
    return out


def _shuffled(features, columns, order):
    """``features`` (an array, a sparse matrix or a DataFrame) with ``columns`` permuted by
    ``order`` among its rows, jointly."""
    if hasattr(features, "iloc"):
        out = features.copy()
        for column in columns:  # column by column: each keeps its dtype
            out.iloc[:, column] = features.iloc[order, column].to_numpy()
        return out
    if sp.issparse(features):
        dense = features.toarray()
        dense[:, columns] = dense[order][:, columns]
        return type(features)(dense)
    out = np.array(features, copy=True)
    out[:, columns] = out[order][:, columns]
    return out


def column_importance(fits, names, codes, h_s, features):
    """Each column's held-out permutation importance in nats, largest first.

    ``features`` are what the fitted models read (:func:`adversary`'s second
    part), ``names`` their columns' names.

    For each fold's fitted model and test rows, the columns are shuffled among
    the test rows (seeded) and the held-out bound recomputed on every fold's
    rows: an importance is how much the bound, clipped at 0, falls (at most
    the bound itself; about 0 for a column the model does not use). Up to
    :data:`IMPORTANCE_SINGLE_COLUMNS` columns each is shuffled alone; beyond,
    a group test: all columns are shuffled jointly, then halves of them, and a
    block whose shuffle lowers the bound by more than its columns' share of
    the whole drop plus :data:`IMPORTANCE_TOLERANCE` nats (or 1 % of the
    bound) is split in halves, down to single columns; the columns of a block
    below that read 0 (none of them carries more than an average column's
    share). So the predictions made grow with the columns that matter: about
    ``2 k log2(d / k)`` a fold for ``k`` of ``d`` columns, instead of ``d``.
    """
    n_classes = int(codes.max()) + 1
    rng = np.random.default_rng(0)
    n = sum(test.size for _, test, _ in fits)
    bound = max(h_s + sum(log_q.sum() for _, _, log_q in fits) / n, 0.0)

    def drop(columns):
        permuted = 0.0
        for fitted, test, log_q in fits:
            if fitted is None:
                permuted += log_q.sum()
                continue
            shuffled = _shuffled(take_rows(features, test), columns, rng.permutation(test.size))
            proba = np.zeros((test.size, n_classes))
            proba[:, fitted.classes_] = fitted.predict_proba(shuffled)
            proba = (1 - FLOOR) * proba + FLOOR / n_classes
            permuted += np.log(proba[np.arange(test.size), codes[test]]).sum()
        return bound - max(h_s + permuted / n, 0.0)

    d = len(names)
    drops = np.zeros(d)
    if d <= IMPORTANCE_SINGLE_COLUMNS:
        for j in range(d):
            drops[j] = drop([j])
    else:
        tolerance = max(IMPORTANCE_TOLERANCE, 0.01 * bound)
        whole = max(drop(np.arange(d)), 0.0)
        blocks = [np.arange(d // 2, d), np.arange(d // 2)]
        while blocks:
            block = blocks.pop()
            value = drop(block)
            if block.size == 1:
                drops[block[0]] = value
            elif value > tolerance + whole * block.size / d:
                blocks += [block[block.size // 2 :], block[: block.size // 2]]
    order = np.argsort(-drops, kind="stable")
    return {names[j]: float(drops[j]) for j in order}


def panel_estimate(
    codes,
    view,
    h_s,
    *,
    n_neighbors,
    n_splits,
    adversaries=None,
    n_jobs=None,
    verbose=0,
    verbose_prefix="[leakage]",
    attribute=False,
    label="",
    corrected=True,
):
    """The panel's estimates of ``I(S; T)`` for a discrete S given as codes.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        S as codes ``0 .. k - 1``.
    view : ReleaseView
        The release, read once.
    h_s : float
        ``H(S)`` of the sample.
    n_neighbors : int
        Neighbours of the kNN estimate.
    n_splits : int
        Folds of the held-out bounds.
    adversaries : dict of str to classifier, default=None
        The user's classifiers, each a held-out bound.
    n_jobs : int, default=None
        Members' folds fitted side by side on this many threads.
    verbose : int, default=0
        Print a line per member with its time.
    verbose_prefix : str, default="[leakage]"
        The start of each printed line (a scorer names its call there).
    attribute : bool, default=False
        Break the leakage down by column (:attr:`LeakageEstimate.columns`).
    label : str, default=""
        Added to the members' names (a binning of a continuous S).
    corrected : bool, default=True
        Add the kNN (continuous release) or plug-in estimate minus its null.

    Returns
    -------
    LeakageEstimate
    """
    estimates, spreads, seconds = {}, {}, {}
    folds, how = heldout_folds(codes, n_splits)
    names, left_out = panel_members(int(codes.max()) + 1, view, adversaries)
    try_adversaries(codes, view, adversaries)
    how += cap_note(folds)
    with Parallel(n_jobs=n_jobs, prefer="threads") as parallel:
        heldout = heldout_members(codes, view, names, folds, h_s, adversaries, parallel)
        if not corrected:
            others = {}
        elif view.discrete:
            others = {"plugin": (_plugin_member, (codes, view))}
        else:
            others = {"knn": (_knn_member, (codes, view, n_neighbors))}
        for name, (value, seconds[name]) in zip(
            others,
            parallel(delayed(_timed)(function, *args) for function, args in others.values()),
        ):
            if value is not None:
                estimates[name], spreads[name] = value
    for name, (value, spread, _, seconds[name]) in heldout.items():
        estimates[name], spreads[name] = value, spread
    estimates = {f"{name}{label}": value for name, value in estimates.items()}
    spreads = {f"{name}{label}": value for name, value in spreads.items()}
    if verbose:
        for name, value in estimates.items():
            base = name[: len(name) - len(label)] if label else name
            print(
                f"{verbose_prefix} {name}: {round(value, 4) + 0.0:.4f} nats in "
                f"{seconds[base]:.2f} s"
            )
        for name, why in left_out.items():
            print(f"{verbose_prefix} {name}{label}: left out, {why}")
    best = max(estimates, key=estimates.get)
    columns, columns_by = {}, ""
    readers = [name for name in heldout if name != "table"]
    if attribute and readers:  # above 200 values of S the table alone may have run
        winner = best[: len(best) - len(label)] if label else best
        columns_by = winner if winner in readers else max(readers, key=lambda r: heldout[r][0])
        features = adversary(columns_by, view, adversaries)[1]
        names = view.given_names if user_name(columns_by, adversaries) else view.names
        columns = column_importance(heldout[columns_by][2], names, codes, h_s, features)
        columns_by += label
    return LeakageEstimate(
        value=float(min(max(estimates[best], 0.0), h_s)),
        estimator=best,
        estimates=estimates,
        spreads=spreads,
        entropy=float(h_s),
        folds=how,
        columns=columns,
        columns_by=columns_by,
        left_out={f"{name}{label}": why for name, why in left_out.items()},
    )
