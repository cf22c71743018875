"""An exact accountant for compositions of Gaussian mechanisms (mu-Gaussian DP).

Why exact composition: "Composition: Gaussian differential privacy" in ``docs/design.md``.
"""

import secrets
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

from sklearn_privacy.dp._gaussian_mechanism import (
    gaussian_dp_delta_from_mu,
    gaussian_dp_epsilon_from_mu,
)

__all__ = ["GaussianAccountant", "GaussianSpend"]

# Beyond this mu (epsilon of order mu^2 / 2 = 5e11) float64 cannot hold an epsilon
# whose delta is exact: the rounding of epsilon / mu alone moves the privacy-loss
# quantile by more than 1e-10. Such a guarantee is reported as epsilon = inf.
_LARGEST_MU = 1e6


@dataclass(frozen=True)
class GaussianSpend:
    r"""One Gaussian mechanism run on the private data.

    Parameters
    ----------
    name : str
        What was published (e.g. ``"mean"``, ``"release"``).
    sensitivity : float
        L2 sensitivity of the statistic under replace-one neighbours.
    sigma : float
        Standard deviation of the Gaussian noise added to each coordinate.
    count : int
        How many times the mechanism was run (adaptive repetitions, e.g. the
        steps of a binary search, or repeated releases).
    uid : str
        A random identifier of this run (not compared): the copies of a
        ledger share the entries made before the copy, so that
        :meth:`GaussianAccountant.combine` counts each run once.

    See Also
    --------
    GaussianAccountant : Ledger that composes these entries exactly.
    gaussian_dp_mu : :math:`\mu` of one Gaussian mechanism.

    Examples
    --------
    >>> from sklearn_privacy.dp import GaussianSpend
    >>> entry = GaussianSpend("mean", sensitivity=2.0, sigma=4.0, count=4)
    >>> entry.mu  # sqrt(4) * 2.0 / 4.0
    1.0
    """

    name: str
    sensitivity: float
    sigma: float
    count: int = 1
    uid: str = field(default_factory=lambda: secrets.token_hex(8), compare=False, repr=False)

    @property
    def mu(self):
        r"""GDP parameter of all its runs.

        :math:`\sqrt{\text{count}}\, \text{sensitivity} / \sigma`.
        """
        if self.sensitivity == 0:
            return 0.0
        return float(np.sqrt(self.count) * self.sensitivity / self.sigma)


class GaussianAccountant:
    r"""Ledger of the Gaussian mechanisms run on one data set, composed exactly.

    A fitted differentially private mechanism keeps one in ``accountant_``:
    an entry for every private estimate made at ``fit`` and one more for every
    ``transform``. The guarantee of everything published so far is
    :meth:`epsilon` at a given delta. Releases are counted as if every
    ``transform`` were of the same rows (the worst case); releases of disjoint
    rows compose better, which the accountant cannot know.

    Parameters
    ----------
    spends : list of GaussianSpend, default=None
        Entries to start from.

    Attributes
    ----------
    spends : list of GaussianSpend
        The entries, in the order they were spent.

    See Also
    --------
    GaussianSpend : One entry of the ledger.
    gaussian_dp_epsilon_from_mu : Epsilon of the composed :math:`\mu`-GDP guarantee.
    compose_basic : Looser basic composition of any (epsilon, delta) budgets.

    Examples
    --------
    >>> from sklearn_privacy.dp import GaussianAccountant
    >>> acc = GaussianAccountant()
    >>> acc.spend("mean", sensitivity=1.0, sigma=2.0).mu
    0.5
    >>> _ = acc.spend("release", sensitivity=1.0, sigma=1.0 / 1.2)
    >>> round(acc.mu, 6), round(acc.epsilon(1e-5), 4)
    (1.3, 5.9485)

    Its repr gives the composed :math:`\mu` and each name once, with its
    number of runs:

    >>> _ = acc.spend("release", sensitivity=1.0, sigma=1.0 / 1.2)
    >>> acc
    GaussianAccountant(mu=1.76918: mean, release x2)
    """

    def __init__(self, spends=None):
        self.spends = list(spends or [])

    @classmethod
    def combine(cls, *accountants):
        """One ledger of everything the given ledgers recorded, each run counted once.

        The ledgers of copies of one fitted mechanism (pickled, deep-copied,
        loaded by joblib on several servers, sent to workers) share the
        entries made before the copy (the private estimates of ``fit``, earlier
        releases) and each holds its own releases since. Their combination
        counts the shared entries once and every release of every copy: the
        guarantee of all that the copies published together. Ledgers of
        different fits (a refit, the folds of a cross-validation) add up.

        Parameters
        ----------
        *accountants : GaussianAccountant

        Returns
        -------
        GaussianAccountant

        Examples
        --------
        >>> import copy
        >>> from sklearn_privacy.dp import GaussianAccountant
        >>> fit = GaussianAccountant()
        >>> _ = fit.spend("mean", sensitivity=1.0, sigma=2.0)
        >>> a, b = copy.deepcopy(fit), copy.deepcopy(fit)
        >>> _ = a.spend("release", sensitivity=1.0, sigma=1.0)
        >>> _ = b.spend("release", sensitivity=1.0, sigma=1.0)
        >>> [e.name for e in GaussianAccountant.combine(a, b).spends]
        ['mean', 'release', 'release']
        """
        seen, spends = set(), []
        for accountant in accountants:
            for entry in accountant.spends:
                if entry.uid not in seen:
                    seen.add(entry.uid)
                    spends.append(entry)
        return cls(spends)

    def spend(self, name, *, sensitivity, sigma, count=1):
        """Record a Gaussian mechanism and return its entry.

        Parameters
        ----------
        name : str
            What was published.
        sensitivity : float
            L2 sensitivity, >= 0.
        sigma : float
            Noise standard deviation, > 0.
        count : int, default=1
            Number of runs.

        Returns
        -------
        GaussianSpend
        """
        if not (np.isfinite(sensitivity) and sensitivity >= 0):
            raise ValueError(f"sensitivity must be finite and >= 0, got {sensitivity!r}.")
        if not (np.isfinite(sigma) and sigma > 0):
            raise ValueError(f"sigma must be finite and > 0, got {sigma!r}.")
        if not (isinstance(count, Integral) and count >= 1):
            raise ValueError(f"count must be an integer >= 1, got {count!r}.")
        entry = GaussianSpend(str(name), float(sensitivity), float(sigma), int(count))
        self.spends.append(entry)
        return entry

    @property
    def mu(self):
        r"""GDP parameter of the composition, :math:`\sqrt{\sum_i \mu_i^2}`."""
        return float(np.sqrt(sum(entry.mu**2 for entry in self.spends)))

    def epsilon(self, delta):
        r"""Epsilon of everything recorded, at ``delta``.

        ``inf`` when :math:`\mu` exceeds 1e6 (epsilon about 5e11): float64 cannot
        represent such an epsilon exactly enough for its delta to hold.

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        float
        """
        mu = self.mu
        if mu > _LARGEST_MU:
            return float("inf")
        return gaussian_dp_epsilon_from_mu(mu, delta)

    def delta(self, epsilon):
        """Delta of everything recorded, at ``epsilon``.

        Parameters
        ----------
        epsilon : float
            >= 0.

        Returns
        -------
        float
        """
        return gaussian_dp_delta_from_mu(epsilon, self.mu)

    def __repr__(self):
        # one item per name, in the order first spent, with its number of runs: a private
        # fit spends ten entries, a ledger of many releases would otherwise be unreadable
        runs = {}
        for entry in self.spends:
            runs[entry.name] = runs.get(entry.name, 0) + entry.count
        names = ", ".join(name if n == 1 else f"{name} x{n}" for name, n in runs.items())
        return f"GaussianAccountant(mu={self.mu:.6g}: {names or 'nothing spent'})"
