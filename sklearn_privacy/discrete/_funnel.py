"""PrivacyFunnelTransformer: greedy deterministic merges of a categorical alphabet."""

from numbers import Real

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
    """Greedy privacy funnel: merge categories of X to hide S, keeping I(X;Y) high.

    The released columns form one joint alphabet X (each observed combination
    is a symbol); the transformer learns a deterministic map Y = m(X) onto a
    smaller alphabet by merging two symbols at a time
    (privacy-funnel-makhdoumi2014, Alg. 1 and 2), with merge costs from Prop. 1
    updated incrementally. Read more in the
    :doc:`User Guide </user_guide/funnels>`.

    Parameters
    ----------
    threshold : float, default=0.8
        The trade-off knob (unless ``lam`` is set): the disclosure threshold R
        (funnel) or the leakage threshold (bottleneck), in the unit of
        ``threshold_unit``. Larger keeps more of X and leaks more. The
        default keeps 80 % of H(X); on Adult (age, education, relationship;
        S = sex) that removes 97 % of I(S;X).
    objective : {"funnel", "bottleneck"}, default="funnel"
        - ``"funnel"`` (Alg. 1): while some merge keeps ``I(X;Y) >= R``,
          merge the pair that lowers ``I(S;Y)`` the most.
        - ``"bottleneck"`` (Alg. 2): while some merge keeps
          ``I(S;Y) >= threshold``, merge the pair that lowers ``I(X;Y)`` the
          most: the paper's upper curve, what a careless mapping with the same
          disclosure can leak.
    threshold_unit : {"relative", "nats"}, default="relative"
        ``"relative"``: a fraction in [0, 1] of H(X) (funnel) or of I(S;X)
        (bottleneck); ``"nats"``: an absolute value in [0, H(X)] (funnel) or
        [0, I(S;X)] (bottleneck).
    lam : float, default=None
        When set, the knob instead of ``threshold``: the greedy optimises a
        Lagrangian, with ``lam`` counted in units of the data's own exchange
        rate ``r = I(S;X) / H(X)`` (nats of leakage per nat of disclosure
        given up by merging everything into one symbol). The funnel merges
        the pair that lowers ``I(S;Y) - lam r I(X;Y)`` the most, while one
        does: a merge must remove more than ``lam r``
        nats of leakage per nat of disclosure. The bottleneck merges the
        pair that lowers ``I(X;Y) - (lam / r) I(S;Y)`` the most (raises
        ``I(S;Y) - (r / lam) I(X;Y)``): a merge must remove less than
        ``r / lam``. In both, ``lam = 1`` is where the release ``X`` and the
        one-symbol release score the same, and a larger ``lam`` merges less
        and leaks more. ``lam >= 1 / r`` merges nothing (funnel), ``lam <= r``
        merges everything (bottleneck). The multiplier used is
        ``multiplier_``, the paper's lambda: ``lam r`` (funnel) or ``r / lam``
        (bottleneck). Useful range about 0.1 to 10 (``SubmodularFunnel``'s
        ``lam`` means the same).
    {output}
    {handle_unknown}
    {smoothing}
    {max_categories}
    {sensitive}
    {random_state_release}
        Only ``output="sample"`` draws.
    {verbose}
        Here ``1`` shows a progress bar over the merges.

    Attributes
    ----------
    alphabet_ : CategoricalAlphabet
        The joint alphabet of the released columns.
    joint_ : ndarray of shape (n_s, n_symbols)
        Estimated ``P(S, X)``.
    labels_ : ndarray of shape (n_symbols,)
        Merged symbol of each symbol of ``alphabet_``.
    n_clusters_ : int
        Size of the released alphabet.
    path_ : MergePath
        Merges in order (indices of ``alphabet_`` symbols) and ``I(S;Y)``,
        ``I(X;Y)`` after each, in nats.
    n_iter_ : int
        Number of merges made.
    threshold_ : float or None
        The threshold used, in nats (None when ``lam`` is set).
    multiplier_ : float or None
        The multiplier ``m`` of ``I(X;Y)`` in the Lagrangian ``I(S;Y) - m
        I(X;Y)`` that was minimised (funnel, ``m = lam r``, at most 1) or
        maximised (bottleneck, ``m = r / lam``, at most 2); None without ``lam``.
    leakage_ : float
        ``I(S;Y)`` on the fit data (under the estimated ``P(S, X)``), in nats.
    disclosure_ : float
        ``I(X;Y) = H(Y)``, in nats.
    distortion_ : float
        ``H(X|Y) = H(X) - I(X;Y)``, the log-loss distortion, in nats.
    distortion_measure_ : str
        ``"log-loss"``.
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
    ``P(S, X)`` of the training rows. A fit that merges nothing, or merges
    everything into one symbol, warns (``UserWarning``) naming the knob.

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
    >>> bool(funnel.leakage_ < funnel.path_.leakage[0]), funnel.get_feature_names_out()
    (True, array(['merged_symbol'], dtype=object))
    """

    _parameter_constraints: dict = {
        **_MergeMechanism._parameter_constraints,
        "threshold": [Interval(Real, 0, None, closed="left")],
        "threshold_unit": [StrOptions({"relative", "nats"})],
        "lam": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        threshold=0.8,
        *,
        objective="funnel",
        threshold_unit="relative",
        lam=None,
        output="symbol",
        handle_unknown="error",
        smoothing=0.0,
        max_categories=200,
        sensitive=None,
        random_state=None,
        verbose=0,
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

    def get_tradeoff_knob(self):
        """``threshold``, or ``lam`` when it is set: both leak more when larger.

        ``lam`` ranges over 0.1 to 10 (log scale), around its tie point 1.
        A relative ``threshold`` ranges over 0.7 to 0.98 of H(X) for the
        funnel (on Adult the leakage stays near 0 below 0.7 of H(X)) and over
        0.1 to 0.9 of I(S;X) for the bottleneck. With ``threshold_unit="nats"``
        the relative range is scaled by H(X) (or I(S;X)) of the last fit; it
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
        path = greedy_merge(joint, objective=self.objective, verbose=self.verbose, **mode)
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
