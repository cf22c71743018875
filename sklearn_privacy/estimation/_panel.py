"""The default leakage estimate: the largest of a panel of honest estimates of ``I(S; T)``.

Why a panel: "The default leakage estimate" in ``docs/design.md``.
"""

from dataclasses import dataclass, field

import numpy as np

from sklearn_privacy.estimation._heldout import (
    HELDOUT_ADVERSARIES,
    heldout_estimate,
    heldout_folds,
)
from sklearn_privacy.estimation._knn import knn_mutual_information
from sklearn_privacy.information import encode_symbols, mutual_information_from_samples

__all__ = ["LeakageEstimate", "knn_permutations", "panel_estimate"]

# A release is read with the plug-in estimate when it has at most this many
# distinct rows per sample (each release value seen 10 times on average).
MAX_DISTINCT_FRACTION = 0.1

# Permutations of S in the null of the plug-in estimate (a few bincounts each).
_PLUGIN_PERMUTATIONS = 20


def knn_permutations(n_samples):
    """Permutations of S in the kNN estimate's null: 20 on small samples, 2 from 578 rows on.

    A kNN estimate costs about ``n**2`` distance evaluations, so the null is
    given about as much work as 20 estimates on 224 rows: where the estimate
    is cheap its noise matters most (the corrected estimate's variance is the
    estimate's times ``1 + 1 / n_permutations``), and from 578 rows on two
    permutations keep the default within 5 times the kNN estimate's cost.
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
        ``"boosting"`` and ``"table"`` (held-out lower bounds
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

    See Also
    --------
    sklearn_privacy.metrics.leakage_score : Returns one with ``return_details=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import leakage_score
    >>> s = np.tile([0, 1], 100)
    >>> estimate = leakage_score(s, s.reshape(-1, 1), return_details=True)
    >>> estimate.estimator, round(float(estimate), 2), sorted(estimate.estimates)
    ('boosting', 0.69, ['boosting', 'logistic', 'plugin', 'table'])
    """

    value: float
    estimator: str
    estimates: dict = field(default_factory=dict)
    spreads: dict = field(default_factory=dict)
    entropy: float = float("nan")
    folds: str = ""

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        members = ", ".join(
            f"{name}={value:.4f}±{self.spreads.get(name, float('nan')):.4f}"
            for name, value in self.estimates.items()
        )
        return (
            f"LeakageEstimate(value={self.value:.4f} nats, estimator={self.estimator!r}, "
            f"entropy={self.entropy:.4f}, {members})"
        )


def _null_corrected(estimate, codes, n_permutations):
    """``estimate(codes)`` minus its mean over seeded permutations of the codes; their spread."""
    rng = np.random.default_rng(0)
    null = np.array([estimate(rng.permutation(codes)) for _ in range(n_permutations)])
    return estimate(codes) - float(null.mean()), float(null.std(ddof=1))


def _plugin_member(codes, release):
    """The null-corrected plug-in estimate, or None where the alphabet is too large.

    The plug-in estimate is in the panel only where the release has at most
    ``n_samples / 10`` distinct rows; on a release whose rows are each seen
    about once it reads ``H(S)`` whatever the release.
    """
    rows, symbols = encode_symbols(release, name="release")
    if len(symbols) > MAX_DISTINCT_FRACTION * codes.size:
        return None

    def plugin(s_codes):
        return mutual_information_from_samples(s_codes, rows)

    return _null_corrected(plugin, codes, _PLUGIN_PERMUTATIONS)


def panel_estimate(codes, release, h_s, *, continuous, n_neighbors, n_splits):
    """The panel's estimates of ``I(S; T)`` for a discrete S given as codes.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        S as codes ``0 .. k - 1``.
    release : ndarray of shape (n_samples, n_features)
    h_s : float
        ``H(S)`` of the sample.
    continuous : bool
        Whether the release is continuous (read with the kNN estimate).
    n_neighbors : int
        Neighbours of the kNN estimate.
    n_splits : int
        Folds of the held-out bounds.

    Returns
    -------
    LeakageEstimate
    """
    estimates, spreads = {}, {}
    folds, how = heldout_folds(codes, n_splits)
    for name in HELDOUT_ADVERSARIES:
        estimates[name], spreads[name] = heldout_estimate(name, codes, release, folds, h_s)
    if continuous:
        try:
            estimates["knn"], spreads["knn"] = _null_corrected(
                lambda s: knn_mutual_information(s, release, n_neighbors, clip=False),
                codes,
                knn_permutations(codes.size),
            )
        except ValueError:  # no value of S seen twice: nothing for neighbours to count
            pass
    else:
        plugin = _plugin_member(codes, release)
        if plugin is not None:
            estimates["plugin"], spreads["plugin"] = plugin
    best = max(estimates, key=estimates.get)
    return LeakageEstimate(
        value=float(min(max(estimates[best], 0.0), h_s)),
        estimator=best,
        estimates=estimates,
        spreads=spreads,
        entropy=float(h_s),
        folds=how,
    )
