"""PrivacyFunnelTransformer: greedy deterministic merges of a categorical alphabet."""

from numbers import Integral, Real

from sklearn_privacy.discrete._greedy import greedy_merge
from sklearn_privacy.discrete._merge_mechanism import LAM_KNOB, _MergeMechanism
from sklearn_privacy.information import entropy, mutual_information
from sklearn_privacy.utils import TradeoffKnob
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions

__all__ = ["PrivacyFunnelTransformer"]

# Default range of a relative threshold: where the leakage moves on Adult (below 0.7
# of H(X) the funnel hides S almost completely); docs/user_guide/funnels.md has the measurements.
_THRESHOLD_RANGE = {"funnel": (0.7, 0.98), "bottleneck": (0.1, 0.9)}


@Substitution()
class PrivacyFunnelTransformer(_MergeMechanism):
    r"""Greedy privacy funnel: merge categories of X to hide S, keeping :math:`I(X;Y)` high.

    The released columns form one joint alphabet X (each observed combination
    is a symbol); the transformer learns a deterministic map :math:`Y = m(X)` onto a
    smaller alphabet by merging two symbols at a time
    (privacy-funnel-makhdoumi2014, Alg. 1 and 2), with merge costs from Prop. 1
    updated incrementally. Read more in the
    :doc:`User Guide </user_guide/funnels>`.

    Parameters
    ----------
    threshold : float, default=0.8
        The trade-off knob (unless ``lam`` is set): the disclosure threshold :math:`R`
        (funnel) or the leakage threshold (bottleneck), in the unit of
        ``threshold_unit``. Larger keeps more of X and leaks more. The
        default keeps 80 % of :math:`H(X)`; on Adult (age, education, relationship;
        S = sex) that removes 97 % of :math:`I(S;X)`.
    objective : {"funnel", "bottleneck"}, default="funnel"
        - ``"funnel"`` (Alg. 1): while some merge keeps :math:`I(X;Y) \ge R`,
          merge the pair that lowers :math:`I(S;Y)` the most.
        - ``"bottleneck"`` (Alg. 2): while some merge keeps
          :math:`I(S;Y) \ge \text{threshold}`, merge the pair that lowers :math:`I(X;Y)` the
          most: the paper's upper curve, what a careless mapping with the same
          disclosure can leak.
    threshold_unit : {"relative", "nats"}, default="relative"
        ``"relative"``: a fraction in [0, 1] of :math:`H(X)` (funnel) or of :math:`I(S;X)`
        (bottleneck); ``"nats"``: an absolute value in :math:`[0, H(X)]` (funnel) or
        :math:`[0, I(S;X)]` (bottleneck).
    lam : float, default=None
        When set, the knob instead of ``threshold``: the greedy optimises a
        Lagrangian, with ``lam`` counted in units of the data's own exchange
        rate :math:`r = I(S;X) / H(X)` (nats of leakage per nat of disclosure
        given up by merging everything into one symbol). The funnel merges
        the pair that lowers :math:`I(S;Y) - \text{lam}\, r\, I(X;Y)` the most, while one
        does: a merge must remove more than :math:`\text{lam}\, r`
        nats of leakage per nat of disclosure. The bottleneck merges the
        pair that lowers :math:`I(X;Y) - (\text{lam} / r)\, I(S;Y)` the most (raises
        :math:`I(S;Y) - (r / \text{lam})\, I(X;Y)`): a merge must remove less than
        :math:`r / \text{lam}`. In both, :math:`\text{lam} = 1` is where the release
        :math:`X` and the one-symbol release score the same, and a larger ``lam``
        merges less and leaks more. :math:`\text{lam} \ge 1 / r` merges nothing
        (funnel), :math:`\text{lam} \le r` merges everything (bottleneck). The
        multiplier used is ``multiplier_``, the paper's :math:`\lambda`:
        :math:`\text{lam}\, r` (funnel) or :math:`r / \text{lam}` (bottleneck).
        Useful range about 0.1 to 10 (``SubmodularFunnel``'s ``lam`` means the
        same).
    {output}
    {handle_unknown}
    {smoothing}
    {max_categories}
    {sensitive}
        S is read as categories, one per distinct value (a float S of a few
        values, such as 0.5 and 1.5, is two categories); each of its columns
        obeys ``max_categories``, as the columns of ``X`` do.
    {random_state_release}
        Only ``output="sample"`` draws.
    {verbose}
        Here ``1`` shows a progress bar over the merges.
    n_jobs : int, default=None
        Threads for the greedy's initial pair costs (a third to 40 % of the
        work at 20 000 symbols; the merges run on one). ``None`` means 1 unless
        in a :func:`joblib.parallel_config` context, ``-1`` all cores. The fit
        does not depend on it, to the bit. Large alphabets run on compiled
        kernels where numba is installed
        (:func:`~sklearn_privacy.discrete.greedy_merge`, Notes).

    Attributes
    ----------
    alphabet_ : CategoricalAlphabet
        The joint alphabet of the released columns.
    joint_ : ndarray of shape (n_s, n_symbols)
        Estimated :math:`P(S, X)`.
    labels_ : ndarray of shape (n_symbols,)
        Merged symbol of each symbol of ``alphabet_``.
    n_clusters_ : int
        Size of the released alphabet.
    path_ : MergePath
        Merges in order (indices of ``alphabet_`` symbols) and :math:`I(S;Y)`,
        :math:`I(X;Y)` after each, in nats.
    n_iter_ : int
        Number of merges made.
    threshold_ : float or None
        The threshold used, in nats (None when ``lam`` is set).
    multiplier_ : float or None
        The multiplier :math:`m` of :math:`I(X;Y)` in the Lagrangian
        :math:`I(S;Y) - m\, I(X;Y)` that was minimised (funnel,
        :math:`m = \text{lam}\, r`, at most 1) or maximised (bottleneck,
        :math:`m = r / \text{lam}`, at most 2); None without ``lam``.
    leakage_ : float
        :math:`I(S;Y)` on the fit data (under the estimated :math:`P(S, X)`), in nats.
    disclosure_ : float
        :math:`I(X;Y) = H(Y)`, in nats.
    distortion_ : float
        :math:`H(X \mid Y) = H(X) - I(X;Y)`, the log-loss distortion, in nats.
    distortion_measure_ : str
        ``"log-loss"``.
    entropy_ : float
        :math:`H(X)`, in nats.
    {n_unseen_rows_}
    n_features_in_ : int
        Number of columns of X seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when it has string column names.

    See Also
    --------
    SubmodularFunnel : merges whole subsets at a time (IAC-MDSF).

    Notes
    -----
    Merging symbols :math:`i` and :math:`j` lowers the leakage by the weighted
    Jensen-Shannon divergence of their posteriors (Prop. 1),

    .. math::

        I(S;Y) - I(S;Y^{i-j}) = p_{ij} H(P_{S|y_{ij}}) - p_i H(P_{S|y_i}) - p_j H(P_{S|y_j}),

    and the disclosure by :math:`p_{ij} \log p_{ij} - p_i \log p_i - p_j \log p_j`; only
    the pairs that involve the merged symbol change, so the whole merge path
    costs :math:`O(|X|^2 |S|)`. Every leakage here is measured under the estimated
    :math:`P(S, X)` of the training rows. A fit that merges nothing, or merges
    everything into one symbol, warns (``UserWarning``) naming the knob.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import PrivacyFunnelTransformer
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> noisy = s ^ (rng.random(500) < 0.2)
    >>> X = np.column_stack([noisy, rng.integers(0, 3, 500), s])
    >>> funnel = PrivacyFunnelTransformer(threshold=0.5, sensitive=[2]).fit(X)
    >>> funnel.transform(X[:3]).shape
    (3, 1)
    >>> (bool(funnel.leakage_ < funnel.path_.leakage[0]),
    ...  funnel.get_feature_names_out())
    (True, array(['merged_symbol'], dtype=object))
    """

    _parameter_constraints: dict = {
        **_MergeMechanism._parameter_constraints,
        "threshold": [Interval(Real, 0, None, closed="left")],
        "threshold_unit": [StrOptions({"relative", "nats"})],
        "lam": [Interval(Real, 0, None, closed="left"), None],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        threshold=0.8,
        *,
        objective="funnel",
        threshold_unit="relative",
        lam=None,
        output="symbol",
        handle_unknown="nearest",
        smoothing=0.0,
        max_categories=200,
        sensitive=None,
        random_state=None,
        verbose=0,
        n_jobs=None,
    ):
        self.threshold = threshold
        self.objective = objective
        self.threshold_unit = threshold_unit
        self.lam = lam
        self.output = output
        self.handle_unknown = handle_unknown
        self.smoothing = smoothing
        self.max_categories = max_categories
        self.sensitive = sensitive
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs

    def get_tradeoff_knob(self):
        """``threshold``, or ``lam`` when it is set: both leak more when larger.

        ``lam`` ranges over 0.1 to 10 (log scale), around its tie point 1.
        A relative ``threshold`` ranges over 0.7 to 0.98 of :math:`H(X)` for the
        funnel (on Adult the leakage stays near 0 below 0.7 of :math:`H(X)`) and over
        0.1 to 0.9 of :math:`I(S;X)` for the bottleneck. With ``threshold_unit="nats"``
        the relative range is scaled by :math:`H(X)` (or :math:`I(S;X)`) of the last fit; it
        cannot be known before one, so pass ``param_range`` to a sweep then.

        Returns
        -------
        TradeoffKnob
        """
        if self.lam is not None:
            return LAM_KNOB
        low, high = _THRESHOLD_RANGE[self.objective]
        if self.threshold_unit == "nats" and hasattr(self, "joint_"):
            top = self.entropy_ if self.objective == "funnel" else mutual_information(self.joint_)
            low, high = low * top, high * top
        return TradeoffKnob("threshold", "larger", low=low, high=high, log=False)

    def _merge(self, joint):
        self.threshold_ = self.multiplier_ = None
        if self.lam is None:
            self.threshold_ = self._threshold_nats(joint)
            mode = {"threshold": self.threshold_}
        else:
            self.multiplier_ = self._multiplier(joint)
            mode = {"lam": self.multiplier_}
        path = greedy_merge(
            joint, objective=self.objective, verbose=self.verbose, n_jobs=self.n_jobs, **mode
        )
        return path.labels, path, len(path.merges)

    def _threshold_nats(self, joint):
        if self.objective == "funnel":
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
                f"this data (objective={self.objective!r}); lower it or use "
                "threshold_unit='relative'."
            )
        return min(float(self.threshold), top)
