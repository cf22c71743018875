"""SubmodularFunnel: IAC-MDSF, merging whole subsets of a categorical alphabet."""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from sklearn_privacy.discrete._funnel import _MergeMechanism
from sklearn_privacy.discrete._submodular import iac_mdsf

__all__ = ["SubmodularFunnel"]


class SubmodularFunnel(_MergeMechanism):
    """Privacy funnel by submodular agglomerative clustering (IAC-MDSF).

    The released columns form one joint alphabet X; each iteration merges the
    subset W of the current alphabet that minimises ``(1 - lam) f(W) - g(W)``,
    i.e. lowers ``I(S;Y) - lam I(X;Y)`` the most (submodular-funnel-ding,
    Alg. 1 and Thm. 1), found by a difference-of-submodular procedure; it stops
    when no subset of two or more symbols improves the Lagrangian. It needs far
    fewer iterations than the pairwise greedy of
    :class:`PrivacyFunnelTransformer`.

    Parameters
    ----------
    lam : float, default=0.5
        The trade-off knob, in [0, 1]: weight of the disclosure ``I(X;Y)``
        against the leakage ``I(S;Y)``. ``lam=0`` merges as long as it lowers
        the leakage; ``lam=1`` merges nothing (funnel).
    problem : {"funnel", "bottleneck"}, default="funnel"
        ``"funnel"`` minimises the Lagrangian (eq. 5); ``"bottleneck"``
        maximises it (eq. 7): the information bottleneck, keeping what is
        informative about S at a low rate.
    solver : {"ssp", "mm"}, default="ssp"
        Difference-of-submodular procedure of each iteration:
        submodular-supermodular with an exact inner min-norm-point
        minimisation, or modular-modular (cheaper per step).
    max_iter : int or None, default=None
        Largest number of merging iterations.
    output : {"symbol", "onehot", "sample"}, default="symbol"
        As in :class:`PrivacyFunnelTransformer`.
    handle_unknown : {"error", "nearest"}, default="error"
        As in :class:`PrivacyFunnelTransformer`.
    smoothing : float, default=0.0
        Additive pseudo-count on every cell of the empirical ``P(S, X)``.
    max_categories : int or None, default=200
        Largest number of distinct values of one released column.
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
    path_ : IACPath
        Sets merged at each iteration and ``I(S;Y)``, ``I(X;Y)``, the
        Lagrangian after each, in nats.
    n_iter_ : int
        Number of iterations run (each solves one subset problem): the
        merges, plus the last one that found no improving merge.
    leakage_ : float
        ``I(S;Y)`` on the training distribution, in nats.
    disclosure_ : float
        ``I(X;Y) = H(Y)``, in nats.
    distortion_ : float
        ``H(X|Y)``, the log-loss distortion, in nats.
    entropy_ : float
        ``H(X)``, in nats.
    n_features_in_ : int
        Number of columns of X seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when it has string column names.

    See Also
    --------
    PrivacyFunnelTransformer : pairwise greedy merges (Alg. 1 and 2 of Makhdoumi et al.).

    Notes
    -----
    With ``f(W) = sum_{x in W} p(x) log(p(x) / p(W))`` and
    ``g(W) = sum_s sum_{x in W} p(s, x) log(p(s, x) / p(s, W))``, merging W
    gives ``I(S; Y) = I(S; X) - g(W) + f(W)`` and ``I(X; Y) = H(X) + f(W)``
    (Thm. 1); both f and g are submodular. Each step starts from the best pair
    and ends at a local minimum (no one-element change of W helps), so it is
    never worse than a pairwise step.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import SubmodularFunnel
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> X = np.column_stack([s ^ (rng.random(500) < 0.2), rng.integers(0, 3, 500)])
    >>> funnel = SubmodularFunnel(lam=0.3).fit(X, sensitive=s)
    >>> bool(funnel.leakage_ <= funnel.path_.leakage[0]), funnel.transform(X[:2]).shape
    (True, (2, 1))
    """

    _parameter_constraints: dict = {
        **_MergeMechanism._parameter_constraints,
        "lam": [Interval(Real, 0, 1, closed="both")],
        "problem": [StrOptions({"funnel", "bottleneck"})],
        "solver": [StrOptions({"ssp", "mm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        lam=0.5,
        *,
        problem="funnel",
        solver="ssp",
        max_iter=None,
        output="symbol",
        handle_unknown="error",
        smoothing=0.0,
        max_categories=200,
        sensitive=None,
        random_state=None,
    ):
        self.lam = lam
        self.problem = problem
        self.solver = solver
        self.max_iter = max_iter
        self.output = output
        self.handle_unknown = handle_unknown
        self.smoothing = smoothing
        self.max_categories = max_categories
        self.sensitive = sensitive
        self.random_state = random_state

    def _merge(self, joint):
        path = iac_mdsf(
            joint, self.lam, problem=self.problem, method=self.solver, max_iter=self.max_iter
        )
        self.n_iter_ = path.n_solves
        return path.labels, path
