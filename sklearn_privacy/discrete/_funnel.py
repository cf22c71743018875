"""PrivacyFunnelTransformer: greedy deterministic merges of a categorical alphabet."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy.discrete._alphabet import CategoricalAlphabet, empirical_joint
from sklearn_privacy.discrete._greedy import greedy_merge
from sklearn_privacy.information import entropy, mutual_information

__all__ = ["PrivacyFunnelTransformer"]


class _MergeMechanism(BaseMechanism):
    """Shared machinery of the mechanisms that merge a categorical alphabet.

    Subclasses implement ``_merge(joint)`` returning ``(labels, path)``:
    the cluster of each symbol of the joint alphabet and the fitted path.
    """

    _parameter_constraints: dict = {
        **BaseMechanism._parameter_constraints,
        "output": [StrOptions({"symbol", "onehot", "sample"})],
        "handle_unknown": [StrOptions({"error", "nearest"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "max_categories": [Interval(Integral, 2, None, closed="left"), None],
    }

    _categorical_input = True
    _randomized_release = False

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive=None):
        """Learn the merge of the alphabet of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical columns (numbers or strings). When ``sensitive`` was
            set at construction, the columns it names hold S and are not
            released; the other columns form the joint alphabet X.
        y : array-like of shape (n_samples,), default=None
            Ignored (passed through by a Pipeline to the next step).
        sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
            S given as metadata, when it is not a column of ``X``.

        Returns
        -------
        self : object
            The fitted mechanism.
        """
        return super().fit(X, y, sensitive=sensitive)

    def _fit_mechanism(self, X, S, y):
        names = getattr(self, "feature_names_in_", None)
        names = None if names is None else list(names[self.release_columns_])
        self.alphabet_ = CategoricalAlphabet(
            max_categories=self.max_categories,
            handle_unknown=self.handle_unknown,
            name="X",
            feature_names=names,
        )
        x_codes = self.alphabet_.fit_encode(X)
        s_alphabet = CategoricalAlphabet(max_categories=None, name="sensitive")
        s_codes = s_alphabet.fit_encode(S)
        self.joint_ = empirical_joint(
            s_codes, x_codes, s_alphabet.n_symbols_, self.alphabet_.n_symbols_,
            smoothing=self.smoothing,
        )  # fmt: skip
        self.entropy_ = entropy(self.joint_.sum(axis=0))
        labels, self.path_ = self._merge(self.joint_)
        self.mapping_ = labels
        self.n_clusters_ = int(labels.max()) + 1
        merged = np.zeros((self.joint_.shape[0], self.n_clusters_))
        np.add.at(merged.T, labels, self.joint_.T)
        self.leakage_ = mutual_information(merged)
        self.disclosure_ = entropy(merged.sum(axis=0))
        self.distortion_ = max(self.entropy_ - self.disclosure_, 0.0)
        self._prepare_sampler()

    def _prepare_sampler(self):
        """Symbols sorted by cluster and the cumulative ``P(X | cluster)`` (shifted by cluster)."""
        p_x = self.joint_.sum(axis=0)
        order = np.argsort(self.mapping_, kind="stable")
        clusters = self.mapping_[order]
        p_cluster = np.bincount(self.mapping_, weights=p_x, minlength=self.n_clusters_)
        within = p_x[order] / p_cluster[clusters]
        cum = np.cumsum(within)
        starts = np.searchsorted(clusters, np.arange(self.n_clusters_))
        cum -= np.r_[0.0, cum][starts][clusters]  # restart the sum in each cluster
        last = np.r_[starts[1:], clusters.size] - 1
        cum[last] = 1.0
        self._sample_order = order
        self._sample_cum = clusters + cum

    def _release(self, X, S, rng):
        clusters = self.mapping_[self.alphabet_.encode(X)]
        if self.output == "symbol":
            return clusters.reshape(-1, 1)
        if self.output == "onehot":
            out = np.zeros((clusters.size, self.n_clusters_))
            out[np.arange(clusters.size), clusters] = 1.0
            return out
        # A record of the original schema drawn from P(X | cluster): same leakage as the cluster.
        target = clusters + rng.random(clusters.size)
        position = np.searchsorted(self._sample_cum, target, side="right")
        position = np.minimum(position, self._sample_cum.size - 1)
        return self.alphabet_.decode(self._sample_order[position])

    def get_feature_names_out(self, input_features=None):
        """Names of the released features.

        ``output="sample"`` keeps the released input columns; ``"symbol"`` gives
        one column ``<classname>0``; ``"onehot"`` one column per cluster.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input feature names.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "mapping_")
        if self.output == "sample":
            return super().get_feature_names_out(input_features)
        return self._prefixed_feature_names(1 if self.output == "symbol" else self.n_clusters_)

    def _distortion(self, X, Xt):
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


class PrivacyFunnelTransformer(_MergeMechanism):
    """Greedy privacy funnel: merge categories of X to hide S, keeping I(X;Y) high.

    The released columns form one joint alphabet X (each observed combination
    is a symbol); the transformer learns a deterministic map Y = m(X) onto a
    smaller alphabet by merging two symbols at a time
    (privacy-funnel-makhdoumi2014, Alg. 1 and 2), with merge costs from Prop. 1
    updated incrementally.

    Parameters
    ----------
    method : {"funnel", "bottleneck"}, default="funnel"
        - ``"funnel"`` (Alg. 1): while some merge keeps ``I(X;Y) >= R``,
          merge the pair that lowers ``I(S;Y)`` the most.
        - ``"bottleneck"`` (Alg. 2): while some merge keeps
          ``I(S;Y) >= threshold``, merge the pair that lowers ``I(X;Y)`` the
          most: the paper's upper curve, what a careless mapping with the same
          disclosure can leak.
    threshold : float, default=0.5
        The trade-off knob: the disclosure threshold R (funnel) or the leakage
        threshold (bottleneck), in the unit of ``threshold_unit``. Not used
        when ``lam`` is set.
    threshold_unit : {"relative", "nats"}, default="relative"
        ``"relative"``: a fraction in [0, 1] of H(X) (funnel) or of I(S;X)
        (bottleneck); ``"nats"``: an absolute value in [0, H(X)] (funnel) or
        [0, I(S;X)] (bottleneck).
    lam : float, default=None
        When set, merge the pair that lowers ``I(S;Y) - lam I(X;Y)`` the most
        (funnel) or raises it the most (bottleneck), while some merge does.
    output : {"symbol", "onehot", "sample"}, default="symbol"
        ``"symbol"``: one column with the merged symbol ``0 .. n_clusters_-1``;
        ``"onehot"``: its one-hot encoding; ``"sample"``: a record of the
        released columns drawn from ``P(X | merged symbol)`` (a realistic table
        with the same leakage; random, seeded by ``random_state``).
    handle_unknown : {"error", "nearest"}, default="error"
        Rows of X whose combination was not seen at fit: raise, or use the
        cluster of the seen combination agreeing on most columns (ties: the
        most frequent).
    smoothing : float, default=0.0
        Additive pseudo-count on every cell of the empirical ``P(S, X)``.
    max_categories : int or None, default=200
        Largest number of distinct values of one released column; more means
        the column is probably continuous and fit fails saying so.
    sensitive : int, str or array-like, default=None
        Columns of X holding S (names or indices); otherwise pass S to fit.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the draws of ``output="sample"``; each ``transform`` draws
        afresh, an int makes the sequence of draws after ``fit`` reproducible.

    Attributes
    ----------
    alphabet_ : CategoricalAlphabet
        The joint alphabet of the released columns.
    joint_ : ndarray of shape (n_s, n_symbols)
        Estimated ``P(S, X)``.
    mapping_ : ndarray of shape (n_symbols,)
        Merged symbol of each symbol of ``alphabet_``.
    n_clusters_ : int
        Size of the released alphabet.
    path_ : MergePath
        Merges in order (indices of ``alphabet_`` symbols) and ``I(S;Y)``,
        ``I(X;Y)`` after each, in nats.
    threshold_ : float or None
        The threshold used, in nats.
    leakage_ : float
        ``I(S;Y)`` on the training distribution, in nats.
    disclosure_ : float
        ``I(X;Y) = H(Y)``, in nats.
    distortion_ : float
        ``H(X|Y) = H(X) - I(X;Y)``, the log-loss distortion, in nats.
    entropy_ : float
        ``H(X)``, in nats.
    n_features_in_ : int
        Number of columns of X seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when it has string column names.

    See Also
    --------
    SubmodularFunnel : merges whole subsets at a time (IAC-MDSF).

    Notes
    -----
    Merging symbols ``i`` and ``j`` lowers the leakage by the weighted
    Jensen-Shannon divergence of their posteriors (Prop. 1),

    .. math::

        I(S;Y) - I(S;Y^{i-j}) = p_{ij} H(P_{S|y_{ij}}) - p_i H(P_{S|y_i}) - p_j H(P_{S|y_j}),

    and the disclosure by ``p_ij log p_ij - p_i log p_i - p_j log p_j``; only
    the pairs that involve the merged symbol change, so the whole merge path
    costs ``O(|X|^2 |S|)``. Every leakage here is measured under the estimated
    ``P(S, X)`` of the training rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import PrivacyFunnelTransformer
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> X = np.column_stack([s ^ (rng.random(500) < 0.2), rng.integers(0, 3, 500), s])
    >>> funnel = PrivacyFunnelTransformer(threshold=0.5, sensitive=[2]).fit(X)
    >>> funnel.transform(X[:3]).shape
    (3, 1)
    >>> bool(funnel.leakage_ < funnel.path_.leakage[0])
    True
    """

    _parameter_constraints: dict = {
        **_MergeMechanism._parameter_constraints,
        "method": [StrOptions({"funnel", "bottleneck"})],
        "threshold": [Interval(Real, 0, None, closed="left")],
        "threshold_unit": [StrOptions({"relative", "nats"})],
        "lam": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        method="funnel",
        *,
        threshold=0.5,
        threshold_unit="relative",
        lam=None,
        output="symbol",
        handle_unknown="error",
        smoothing=0.0,
        max_categories=200,
        sensitive=None,
        random_state=None,
    ):
        self.method = method
        self.threshold = threshold
        self.threshold_unit = threshold_unit
        self.lam = lam
        self.output = output
        self.handle_unknown = handle_unknown
        self.smoothing = smoothing
        self.max_categories = max_categories
        self.sensitive = sensitive
        self.random_state = random_state

    def _merge(self, joint):
        self.threshold_ = None
        if self.lam is None:
            self.threshold_ = self._threshold_nats(joint)
            path = greedy_merge(joint, kind=self.method, threshold=self.threshold_)
        else:
            path = greedy_merge(joint, kind=self.method, lam=self.lam)
        return path.labels, path

    def _threshold_nats(self, joint):
        if self.method == "funnel":
            top, name = entropy(joint.sum(axis=0)), "H(X)"
        else:
            top, name = mutual_information(joint), "I(S;X)"
        if self.threshold_unit == "relative":
            if self.threshold > 1:
                raise ValueError(
                    f"threshold={self.threshold!r} with threshold_unit='relative' is a fraction "
                    f"of {name} and must lie in [0, 1]."
                )
            return float(self.threshold) * top
        if self.threshold > top + 1e-12:
            raise ValueError(
                f"threshold={self.threshold!r} nats is outside [0, {name}] = [0, {top:.6g}] for "
                f"this data (method={self.method!r}); lower it or use threshold_unit='relative'."
            )
        return min(float(self.threshold), top)
