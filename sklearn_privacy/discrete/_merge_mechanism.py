"""What the mechanisms that merge a categorical alphabet share: :class:`_MergeMechanism`.

Its subclasses differ only in how they choose the merges (the abstract ``_merge``).
"""

from abc import abstractmethod

import numpy as np
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy.discrete._categorical import _CategoricalMechanism
from sklearn_privacy.discrete._greedy import OBJECTIVES
from sklearn_privacy.exceptions import DegenerateReleaseWarning
from sklearn_privacy.information import entropy, mutual_information
from sklearn_privacy.utils import TradeoffKnob, warn_user
from sklearn_privacy.utils._sklearn_compat import StrOptions, _check_feature_names_in
from sklearn_privacy.utils._symbols import CategoricalSampler

__all__ = []

# The knob ``lam`` of both mechanisms: 1 is the tie point of the release X and the
# one-symbol release; a decade either side spans the trade-off on Adult and heart.
LAM_KNOB = TradeoffKnob("lam", "larger", low=0.1, high=10.0, log=True)

# Multiplier used for a bottleneck ``lam`` at or below the exchange rate (r / lam >= 1).
# Every multiplier above 1 has the one-symbol release as its unique optimum
# (I(S;Y) - m H(Y) <= (1 - m) H(Y) < 0 otherwise); 2 keeps the greedy's every merge
# gain at least the disclosure it removes, and keeps lam = 0 finite.
_BOTTLENECK_CAP = 2.0


class _MergeMechanism(_CategoricalMechanism):
    """Shared machinery of the mechanisms that merge a categorical alphabet.

    From ``joint_`` (fitted by :class:`_CategoricalMechanism`) it merges the
    symbols of ``alphabet_`` (the abstract :meth:`_merge`), reports the
    operating point and releases the merged symbol, its one-hot encoding, or
    a record drawn from ``P(X | merged symbol)``; :meth:`_multiplier` turns the
    scale-free ``lam`` of both subclasses into the multiplier of the Lagrangian
    optimised. Subclasses implement :meth:`_merge` and ``get_tradeoff_knob``.
    """

    _parameter_constraints: dict = {
        **_CategoricalMechanism._parameter_constraints,
        "objective": [OBJECTIVES],
        "output": [StrOptions({"symbol", "onehot", "sample"})],
    }

    _randomized_release = False

    @abstractmethod
    def _merge(self, joint):
        """Merge the joint alphabet of ``joint`` (``P(S, X)``, S by row).

        Returns
        -------
        labels : ndarray of int of shape (n_symbols,)
            The cluster of each symbol.
        path : object
            The fitted path (``path_``).
        n_iter : int
            The iterations to report as ``n_iter_``.
        """

    def _fit_on_joint(self, joint):
        self.entropy_ = entropy(joint.sum(axis=0))
        labels, self.path_, n_iter = self._merge(joint)
        self.n_iter_ = int(n_iter)
        self.labels_ = labels
        self.n_clusters_ = int(labels.max()) + 1
        merged = np.zeros((joint.shape[0], self.n_clusters_))
        np.add.at(merged.T, labels, joint.T)
        self.leakage_ = mutual_information(merged)
        self.disclosure_ = entropy(merged.sum(axis=0))
        self.distortion_ = max(self.entropy_ - self.disclosure_, 0.0)
        self.distortion_measure_ = "log-loss"
        self._warn_if_degenerate()
        self._prepare_sampler()

    def _multiplier(self, joint):
        """The multiplier ``m`` of ``I(X;Y)`` in ``I(S;Y) - m I(X;Y)`` that ``lam`` stands for.

        ``lam`` counts in units of the data's exchange rate ``r = I(S;X) / H(X)``:
        ``m = lam r`` for the funnel (capped at 1, above which no merge lowers
        the Lagrangian) and ``m = r / lam`` for the bottleneck (capped at
        ``_BOTTLENECK_CAP``: every ``m > 1`` merges everything).
        """
        h_x = entropy(joint.sum(axis=0))
        rate = mutual_information(joint) / h_x if h_x > 0 else 0.0
        if self.objective == "funnel":
            return float(min(self.lam * rate, 1.0))
        if self.lam <= rate / _BOTTLENECK_CAP:
            return _BOTTLENECK_CAP
        return float(rate / self.lam)

    def _warn_if_degenerate(self):
        """Warn, naming the knob, when the fit merged nothing or merged everything."""
        n_symbols = self.alphabet_.n_symbols_
        if n_symbols < 2:
            return  # X takes one value on the fit rows: no knob could change that
        knob = self.get_tradeoff_knob().name
        # no per-fit numbers (they are in n_clusters_, leakage_): the default filter then
        # shows the warning once per line of the caller, not once per fold
        head = f"{self.__class__.__name__}(objective={self.objective!r}) at this {knob}"
        if self.n_clusters_ == n_symbols:
            warn_user(
                f"{head} merged nothing: the release is X itself and leakage_ = I(S;X). "
                f"Lower {knob} to hide S.",
                DegenerateReleaseWarning,
            )
        elif self.n_clusters_ == 1:
            warn_user(
                f"{head} merged all symbols into one: the release carries no information "
                f"(disclosure_ = 0). Raise {knob} to keep some of X.",
                DegenerateReleaseWarning,
            )

    def _prepare_sampler(self):
        """Draws of a symbol from ``P(X | cluster)``, the symbols grouped by cluster."""
        p_x = self.joint_.sum(axis=0)
        # A cluster of zero mass (its rows weighted 0) releases its symbols uniformly.
        mass = np.bincount(self.labels_, weights=p_x, minlength=self.n_clusters_)
        p_x = np.where(mass[self.labels_] > 0, p_x, 1.0)
        self._sampler = CategoricalSampler.from_groups(self.labels_, p_x, self.n_clusters_)

    def _release(self, X, S, rng):
        clusters = self.labels_[self._encode_release(X)]
        if self.output == "symbol":
            return clusters.reshape(-1, 1)
        if self.output == "onehot":
            return self._onehot(clusters)
        # A record of the original schema drawn from P(X | cluster): same leakage as the cluster.
        return self.alphabet_.decode(self._sampler.draw(clusters, rng))

    def release_distribution(self, X, S):
        """The merged symbol of each row, one-hot (exact leakage).

        Every output (the symbol, its one-hot code, or a record drawn from its
        cluster: records of different clusters differ) carries exactly the
        information of the merged symbol about S.
        """
        return self._onehot(self.labels_[self.alphabet_.encode(X)])

    def _onehot(self, clusters):
        out = np.zeros((clusters.size, self.n_clusters_))
        out[np.arange(clusters.size), clusters] = 1.0
        return out

    def get_feature_names_out(self, input_features=None):
        """Names of the released features.

        ``output="symbol"`` gives one column, ``merged_symbol``; ``"onehot"``
        one column per merged symbol, ``merged_symbol_0, merged_symbol_1,
        ...``; ``"sample"`` keeps the names of the released input columns.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input feature names; checked against ``feature_names_in_``.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "labels_")
        if self.output == "sample":
            return super().get_feature_names_out(input_features)
        _check_feature_names_in(self, input_features, generate_names=False)
        if self.output == "symbol":
            return np.asarray(["merged_symbol"], dtype=object)
        return np.asarray([f"merged_symbol_{k}" for k in range(self.n_clusters_)], dtype=object)

    def mean_distortion(self, X, Xt):
        """Mean fraction of released columns changed (``output="sample"`` only)."""
        if self.output != "sample":
            raise ValueError(
                f"{self.__class__.__name__} with output={self.output!r} releases cluster "
                "labels, not records: use output='sample' to measure a distortion, or read "
                "distortion_ (H(X|Y), the log-loss distortion)."
            )
        return float(np.mean(np.asarray(X, dtype=object) != np.asarray(Xt, dtype=object)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.output == "sample"
        if self.output == "symbol":
            tags.transformer_tags.preserves_dtype = []  # cluster labels are integers
        return tags
