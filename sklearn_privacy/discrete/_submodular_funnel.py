"""SubmodularFunnel: IAC-MDSF, merging whole subsets of a categorical alphabet."""

from numbers import Integral, Real

from sklearn_privacy.discrete._merge_mechanism import LAM_KNOB, _MergeMechanism
from sklearn_privacy.discrete._submodular import iac_mdsf
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions

__all__ = ["SubmodularFunnel"]


@Substitution()
class SubmodularFunnel(_MergeMechanism):
    r"""Privacy funnel by submodular agglomerative clustering (IAC-MDSF).

    The released columns form one joint alphabet X; each iteration merges the
    subset :math:`W` of the current alphabet that lowers the Lagrangian
    :math:`I(S;Y) - m\, I(X;Y)` the most (submodular-funnel-ding, Alg. 1 and
    Thm. 1), found by a difference-of-submodular procedure; it stops when no
    subset of two or more symbols improves it. It needs far fewer iterations
    than the pairwise greedy of :class:`PrivacyFunnelTransformer`. Read more
    in the :doc:`User Guide </user_guide/funnels>`.

    Parameters
    ----------
    lam : float, default=1.0
        The trade-off knob, :math:`\ge 0`, counted in units of the data's own
        exchange rate :math:`r = I(S;X) / H(X)` (nats of leakage per nat of
        disclosure given up by merging everything into one symbol); the same
        ``lam`` as :class:`PrivacyFunnelTransformer`'s. The funnel minimises
        :math:`I(S;Y) - \text{lam}\, r\, I(X;Y)` (the paper's eq. 5 with its
        :math:`\lambda` equal to :math:`\text{lam}\, r`); the bottleneck minimises
        :math:`I(X;Y) - (\text{lam} / r)\, I(S;Y)`, i.e. maximises
        :math:`I(S;Y) - (r / \text{lam})\, I(X;Y)` (eq. 7 with
        :math:`\lambda = r / \text{lam}`). In both, :math:`\text{lam} = 1` is where
        the release :math:`X` and the one-symbol release score the same, and a
        larger ``lam`` merges less and leaks more. :math:`\text{lam} \ge 1 / r`
        merges nothing (funnel), :math:`\text{lam} \le r` merges everything
        (bottleneck). Useful range about 0.1 to 10: on Adult (age, education;
        S = sex, :math:`r = 0.0039`) ``lam`` from 0.1 to 10 moves ``leakage_``
        from 0.2 % to 35 % of :math:`I(S;X)`; the paper's default
        :math:`\lambda` of 0.5 is :math:`\text{lam} = 129` there, which merges
        nothing.
    objective : {"funnel", "bottleneck"}, default="funnel"
        ``"funnel"`` minimises :math:`I(S;Y) - m\, I(X;Y)`; ``"bottleneck"``
        maximises it: the information bottleneck, keeping what is informative
        about S at a low rate.
    solver : {"ssp", "mm"}, default="ssp"
        Difference-of-submodular procedure of each iteration:
        submodular-supermodular with an exact inner min-norm-point
        minimisation, or modular-modular (cheaper per step).
    max_iter : int or None, default=None
        Largest number of merging iterations.
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
        Here ``1`` shows a progress bar over the symbols merged by the iterations.

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
    path_ : IACPath
        Sets merged at each iteration and :math:`I(S;Y)`, :math:`I(X;Y)`, the
        Lagrangian after each, in nats.
    n_iter_ : int
        Number of subset problems solved: the merges, plus the last one that
        found no improving merge.
    multiplier_ : float
        The multiplier :math:`m` of :math:`I(X;Y)` in the Lagrangian:
        :math:`\text{lam}\, r` (funnel, at most 1) or :math:`r / \text{lam}`
        (bottleneck, at most 2).
    leakage_ : float
        :math:`I(S;Y)` on the fit data (under the estimated :math:`P(S, X)`), in nats.
    disclosure_ : float
        :math:`I(X;Y) = H(Y)`, in nats.
    distortion_ : float
        :math:`H(X \mid Y)`, the log-loss distortion, in nats.
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
    PrivacyFunnelTransformer : pairwise greedy merges (Alg. 1 and 2 of Makhdoumi et al.).

    Notes
    -----
    With :math:`f(W) = \sum_{x \in W} p(x) \log(p(x) / p(W))` and
    :math:`g(W) = \sum_s \sum_{x \in W} p(s, x) \log(p(s, x) / p(s, W))`, merging
    :math:`W` gives :math:`I(S; Y) = I(S; X) - g(W) + f(W)` and
    :math:`I(X; Y) = H(X) + f(W)` (Thm. 1); both :math:`f` and :math:`g` are
    submodular. Each step starts from the best pair and ends at a local
    minimum (no one-element change of :math:`W` helps), so it is
    never worse than a pairwise step. The steps are myopic: ``leakage_``
    grows with ``lam`` from one decade to the next, but not always within a
    factor of 3 (a larger ``lam`` may find a point with more disclosure and
    less leakage). A fit
    that merges nothing, or merges everything into one symbol, warns
    (``UserWarning``) naming ``lam``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import SubmodularFunnel
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> noisy = s ^ (rng.random(500) < 0.2)
    >>> X = np.column_stack([noisy, rng.integers(0, 3, 500)])
    >>> funnel = SubmodularFunnel(lam=1.0).fit(X, sensitive=s)
    >>> (bool(funnel.leakage_ < funnel.path_.leakage[0]),
    ...  funnel.transform(X[:2]).shape)
    (True, (2, 1))
    """

    _parameter_constraints: dict = {
        **_MergeMechanism._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"ssp", "mm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    _tradeoff_knob = LAM_KNOB

    def __init__(
        self,
        lam=1.0,
        *,
        objective="funnel",
        solver="ssp",
        max_iter=None,
        output="symbol",
        handle_unknown="nearest",
        smoothing=0.0,
        max_categories=200,
        sensitive=None,
        random_state=None,
        verbose=0,
    ):
        self.lam = lam
        self.objective = objective
        self.solver = solver
        self.max_iter = max_iter
        self.output = output
        self.handle_unknown = handle_unknown
        self.smoothing = smoothing
        self.max_categories = max_categories
        self.sensitive = sensitive
        self.random_state = random_state
        self.verbose = verbose

    def _merge(self, joint):
        self.multiplier_ = self._multiplier(joint)
        path = iac_mdsf(
            joint,
            self.multiplier_,
            objective=self.objective,
            solver=self.solver,
            max_iter=self.max_iter,
            verbose=self.verbose,
        )
        return path.labels, path, path.n_solves
