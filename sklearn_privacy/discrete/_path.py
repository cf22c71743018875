"""Merge paths: the ``path_`` types of the two merging funnels.

:class:`MergePath` (the greedy's pairwise merges) and :class:`IACPath`
(IAC-MDSF's subset merges) share :class:`_MergePathBase`: the information of
the release along the path and the final clusters of the original symbols.
"""

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import deprecated

__all__ = ["IACPath", "MergePath", "cluster_labels"]


def cluster_labels(roots):
    """Final cluster of each original symbol, ``0`` to ``n_clusters - 1``.

    ``roots`` holds, for each original symbol, the smallest original member of
    its cluster; the clusters are numbered in the order of those members.
    """
    return np.unique(roots, return_inverse=True)[1].reshape(-1)


class _MergePathBase:
    """What every merge path holds besides its steps.

    A subclass is a dataclass with the fields ``leakage`` and ``disclosure``
    (:math:`I(S;Y)` and :math:`I(X;Y)` of the release, in nats, before the
    first step and after each one) and ``labels`` (:func:`cluster_labels`),
    next to the steps of its algorithm. It declares them itself, in its own
    constructor order (a dataclass puts the fields of a dataclass base first).
    """

    @property
    def n_clusters(self):
        """Number of symbols left."""
        return int(self.labels.max()) + 1


@dataclass
class MergePath(_MergePathBase):
    """The merges of a greedy run and the information after each of them.

    The ``path_`` of a fitted
    :class:`~sklearn_privacy.discrete.PrivacyFunnelTransformer`: every merge in
    the order made, and :math:`I(S;Y)` and :math:`I(X;Y)` of the release :math:`Y`
    before the first merge and after each one, in nats, under the estimated
    :math:`P(S, X)`. Symbols are indices of the fitted mechanism's ``alphabet_``.

    Attributes
    ----------
    merges : ndarray of shape (n_merges, 2)
        :math:`(i, j)`: symbol :math:`j` merged into :math:`i` (indices of the original
        alphabet; a merged symbol keeps the index of its smallest member).
    leakage : ndarray of shape (n_merges + 1,)
        :math:`I(S;Y)` before the first merge and after each merge, in nats.
    disclosure : ndarray of shape (n_merges + 1,)
        :math:`I(X;Y) = H(Y)` likewise.
    labels : ndarray of shape (n_symbols,)
        Final cluster of each original symbol, ``0`` to ``n_clusters - 1`` in
        order of their smallest member.

    See Also
    --------
    IACPath : the path of :class:`~sklearn_privacy.discrete.SubmodularFunnel`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import (
    ...     MergePath, PrivacyFunnelTransformer)
    >>> s = np.array([0, 0, 0, 1, 1, 1, 0, 1] * 20)
    >>> x = np.array([0, 0, 1, 2, 2, 3, 4, 4] * 20)
    >>> funnel = PrivacyFunnelTransformer(threshold=0.6)
    >>> funnel = funnel.fit(x[:, None], sensitive=s)
    >>> path = funnel.path_
    >>> isinstance(path, MergePath), path.merges.tolist(), path.n_clusters
    (True, [[0, 2], [1, 3]], 3)
    >>> [round(float(v), 3) for v in path.leakage]
    [0.52, 0.173, 0.0]
    """

    merges: np.ndarray
    leakage: np.ndarray
    disclosure: np.ndarray
    labels: np.ndarray


@dataclass
class IACPath(_MergePathBase):
    r"""Merges of IAC-MDSF and the information after each iteration.

    The ``path_`` of a fitted :class:`~sklearn_privacy.discrete.SubmodularFunnel`:
    the set of symbols merged at each iteration, and :math:`I(S;Y)`, :math:`I(X;Y)`
    and the Lagrangian of the release :math:`Y` before the first iteration and
    after each one, in nats, under the estimated :math:`P(S, X)`. Symbols are
    indices of the fitted mechanism's ``alphabet_``.

    Attributes
    ----------
    merged_sets : list of ndarray
        Original symbols merged at each iteration (each set is merged into one
        symbol together with everything previously merged into its members).
    leakage, disclosure : ndarray of shape (n_iter + 1,)
        :math:`I(S;Y)` and :math:`I(X;Y)` before the first and after each iteration.
    lagrangian : ndarray of shape (n_iter + 1,)
        :math:`I(S;Y) - m\, I(X;Y)` likewise, with :math:`m` the multiplier of the run
        (``multiplier_`` of the fitted mechanism). ``objective`` reads it too,
        with a FutureWarning, until version 0.2: that word names the
        funnel/bottleneck choice.
    labels : ndarray of shape (n_symbols,)
        Final cluster of each original symbol.
    ds_iterations : list of int
        Number of DS-procedure iterations of each step.
    n_solves : int
        Number of step problems solved: the merges, plus the last one that
        found no improving merge (when that is what stopped the algorithm).

    See Also
    --------
    MergePath : the path of :class:`~sklearn_privacy.discrete.PrivacyFunnelTransformer`.

    Examples
    --------
    >>> from sklearn_privacy.discrete import IACPath, iac_mdsf
    >>> joint = [[0.3, 0.1, 0.05, 0.05], [0.05, 0.2, 0.05, 0.2]]
    >>> path = iac_mdsf(joint, lam=0.2)
    >>> merged = [w.tolist() for w in path.merged_sets]
    >>> isinstance(path, IACPath), merged, path.n_solves
    (True, [[0, 3]], 2)
    >>> path.lagrangian.round(3).tolist(), path.labels.tolist()
    ([-0.097, -0.154], [0, 1, 2, 0])
    """

    merged_sets: list
    leakage: np.ndarray
    disclosure: np.ndarray
    lagrangian: np.ndarray
    labels: np.ndarray
    ds_iterations: list = field(default_factory=list)
    n_solves: int = 0

    @property
    def n_iter(self):
        """Number of merging iterations."""
        return len(self.merged_sets)

    @deprecated(
        "Attribute `objective` was deprecated in version 0.1 and will be removed in 0.2. "
        "Use `lagrangian` instead (`objective` names the funnel/bottleneck choice)."
    )
    @property
    def objective(self):
        """Deprecated alias of :attr:`lagrangian`."""
        return self.lagrangian
