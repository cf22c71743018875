"""Reference results of privacy-statistical-inference-calmon2012, in nats.

Cor. 1-2, Examples 1-2, Thm. 3-4 and Def. 6, computed independently of the mechanisms
(Blahut-Arimoto, quadrature) to test them against.
"""

from numbers import Integral, Real

import numpy as np
from scipy import integrate, stats
from scipy.optimize import brentq
from scipy.special import entr, logsumexp, softmax

from sklearn_privacy.information import (
    conditional_entropy,
    entropy,
    kl_divergence,
    mutual_information,
    posterior_entropies,
)
from sklearn_privacy.utils import (
    NONNEGATIVE,
    NONNEGATIVE_OR_INF,
    OPEN_UNIT,
    POSITIVE,
    POSITIVE_INTEGER,
)
from sklearn_privacy.utils._sklearn_compat import Interval, validate_params

__all__ = [
    "counting_query_joint",
    "counting_query_zeta",
    "information_privacy_guarantees",
    "information_privacy_level",
    "laplace_counting_query_leakage",
    "max_entropy_noise",
    "maximum_leakage_from_zeta",
    "rate_distortion",
    "zeta_distribution",
]


@validate_params(
    {
        "n": [Interval(Integral, 1, 16, closed="both")],
        "p": [OPEN_UNIT],
    },
    prefer_skip_nested_validation=True,
)
def counting_query_joint(n, p=0.5):
    r"""Joint pmf :math:`P(S, Y)` of the counting query (Examples 1-2).

    :math:`S = (S_1, \ldots, S_n)` with i.i.d. :math:`1_A(S_i) \sim \operatorname{Bernoulli}(p)`
    (each entry reduced to whether it has property A) and :math:`Y = \sum_i 1_A(S_i)`.

    Parameters
    ----------
    n : int
        Number of database entries (at most 16: S has :math:`2^n` values).
    p : float, default=0.5
        Probability that an entry has property A.

    Returns
    -------
    ndarray of shape (2 ** n, n + 1)
        ``joint[s, y]``; row :math:`s` is the binary expansion of the database.

    See Also
    --------
    counting_query_zeta : Its :math:`\zeta` in closed form.
    laplace_counting_query_leakage : Leakage of the Laplace counting query.

    Examples
    --------
    >>> from sklearn_privacy.theory import counting_query_joint
    >>> counting_query_joint(2).round(3)
    array([[0.25, 0.  , 0.  ],
           [0.  , 0.25, 0.  ],
           [0.  , 0.25, 0.  ],
           [0.  , 0.  , 0.25]])
    """
    bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
    counts = bits.sum(axis=1)
    prob = p**counts * (1 - p) ** (n - counts)
    joint = np.zeros((2**n, n + 1))
    joint[np.arange(2**n), counts] = prob
    return joint


@validate_params({"joint": ["array-like"]}, prefer_skip_nested_validation=True)
def zeta_distribution(joint):
    r""":math:`\zeta(y) \propto \exp(H(S \mid Y = y))` of Corollary 2 (requires :math:`Y = f(S)`).

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        :math:`P(S, Y)` with one nonzero entry per row (:math:`Y` a function of :math:`S`).

    Returns
    -------
    ndarray of shape (n_y,)

    See Also
    --------
    maximum_leakage_from_zeta : Maximum leakage computed through :math:`\zeta`.
    counting_query_zeta : :math:`\zeta` of the counting query in closed form.

    Examples
    --------
    >>> from sklearn_privacy.theory import (
    ...     counting_query_joint, zeta_distribution)
    >>> (zeta_distribution(counting_query_joint(3)) * 8).round(6)
    array([1., 3., 3., 1.])
    """
    joint = _check_deterministic(joint)
    h = posterior_entropies(joint / joint.sum())
    return softmax(h)


@validate_params({"n": [POSITIVE_INTEGER]}, prefer_skip_nested_validation=True)
def counting_query_zeta(n):
    r""":math:`\zeta(y) = \binom{n}{y} / 2^n` (Example 2): the pre-image sizes, normalised.

    Parameters
    ----------
    n : int
        Number of database entries; the query counts those with property A.

    Returns
    -------
    ndarray of shape (n + 1,)
        :math:`\zeta(y)` for :math:`y = 0, \ldots, n`: the binomial(n, 1/2) pmf, whatever
        the probability :math:`p` of property A (given :math:`Y = y`, S is uniform on
        its :math:`\binom{n}{y}` pre-images).

    See Also
    --------
    zeta_distribution : :math:`\zeta` of any deterministic :math:`Y = f(S)`.
    counting_query_joint : Joint pmf of the counting query.

    Examples
    --------
    >>> from sklearn_privacy.theory import counting_query_zeta
    >>> (counting_query_zeta(4) * 16).round(6)
    array([1., 4., 6., 4., 1.])
    """
    return stats.binom.pmf(np.arange(n + 1), n, 0.5)


@validate_params(
    {"joint": ["array-like"], "mapping": ["array-like"]}, prefer_skip_nested_validation=True
)
def maximum_leakage_from_zeta(joint, mapping):
    r"""Maximum leakage via Corollary 2's identity, eq. (40).

    :math:`H(S) - H(S \mid U = u)
    = H(S) - \log \sum_y e^{H(S \mid Y = y)} + D(P_{Y \mid U = u} \,\|\, \zeta)`,
    maximised over the outputs of positive probability. Equal to
    :func:`~sklearn_privacy.information.max_information_leakage` of
    ``joint @ mapping`` when :math:`Y = f(S)`.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        :math:`P(S, Y)` with :math:`Y = f(S)` (one nonzero entry per row).
    mapping : array-like of shape (n_y, n_u)
        :math:`P(U \mid Y)`.

    Returns
    -------
    float
        The maximum leakage in nats.

    See Also
    --------
    zeta_distribution : The :math:`\zeta` this identity uses.
    sklearn_privacy.information.max_information_leakage : The direct computation.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import max_information_leakage
    >>> from sklearn_privacy.theory import (
    ...     counting_query_joint, maximum_leakage_from_zeta)
    >>> joint, mapping = counting_query_joint(3), np.full((4, 2), 0.5)
    >>> mapping[0] = [1.0, 0.0]
    >>> leak = maximum_leakage_from_zeta(joint, mapping)
    >>> bool(np.isclose(leak, max_information_leakage(joint @ mapping)))
    True
    """
    joint = _check_deterministic(joint)
    joint = joint / joint.sum()
    mapping = np.asarray(mapping, dtype=float)
    p_y = joint.sum(axis=0)
    h_cond = posterior_entropies(joint)
    zeta = zeta_distribution(joint)
    h_s = entropy(joint.sum(axis=1))
    joint_yu = p_y[:, None] * mapping
    p_u = joint_yu.sum(axis=0)
    gaps = [kl_divergence(joint_yu[:, u] / p_u[u], zeta) for u in np.flatnonzero(p_u > 0)]
    return h_s - float(logsumexp(h_cond)) + max(gaps)


@validate_params(
    {
        "p_y": ["array-like"],
        "distortion": ["array-like"],
        "max_distortion": [NONNEGATIVE],
        "tol": [POSITIVE],
        "max_iter": [POSITIVE_INTEGER],
    },
    prefer_skip_nested_validation=True,
)
def rate_distortion(p_y, distortion, max_distortion, *, tol=1e-10, max_iter=100_000):
    r"""Rate-distortion function :math:`R(D) = \min I(Y; U)` s.t. :math:`\E\, d(Y, U) \le D`.

    Corollary 1, computed by Blahut-Arimoto at slope :math:`\beta`
    (:math:`Q(u \mid y) \propto r(u) \exp(-\beta\, d(y, u))`),
    with Brent's method on :math:`\beta` (:func:`scipy.optimize.brentq`) to meet
    the budget, which the expected distortion then meets to the accuracy of
    the Blahut-Arimoto iterations. For :math:`Y = f(S)` this is the least average
    leakage :math:`\min I(S; U)` of Thm. 1.

    Parameters
    ----------
    p_y : array-like of shape (n_y,)
        The pmf of :math:`Y`.
    distortion : array-like of shape (n_y, n_u)
        :math:`d(y, u) \ge 0`.
    max_distortion : float
        The budget :math:`D`.
    tol : float, default=1e-10
        Convergence of the Blahut-Arimoto iterations (change of :math:`r`).
    max_iter : int, default=100000
        Iteration limit of one Blahut-Arimoto run.

    Returns
    -------
    rate : float
        :math:`R(D)` in nats.
    mapping : ndarray of shape (n_y, n_u)
        The optimal :math:`Q(u \mid y)`.

    See Also
    --------
    max_entropy_noise : The additive noise of Corollary 1.
    gaussian_rate_distortion : Rate-distortion of a Gaussian vector.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.theory import rate_distortion
    >>> rate, _ = rate_distortion([0.5, 0.5], 1 - np.eye(2), 0.1)
    >>> round(rate, 6)  # ln 2 - h(0.1)
    0.368064
    """
    p_y = np.asarray(p_y, dtype=float)
    D = np.asarray(distortion, dtype=float)
    if p_y.ndim != 1 or np.any(p_y < 0) or not np.isclose(p_y.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError("p_y must be a 1-D pmf (non-negative, summing to 1).")
    if D.ndim != 2 or D.shape[0] != p_y.size:
        raise ValueError(
            f"distortion must have shape (n_y, n_u) = ({p_y.size}, n_u), got {D.shape}."
        )
    least = float(p_y @ D.min(axis=1))
    constant = float(np.min(p_y @ D))
    if max_distortion < least - 1e-12:
        raise ValueError(
            f"max_distortion={max_distortion} is below the least achievable distortion {least}."
        )
    if max_distortion >= constant:
        Q = np.zeros_like(D)
        Q[:, int(np.argmin(p_y @ D))] = 1.0
        return 0.0, Q

    state = {"r": np.full(D.shape[1], 1.0 / D.shape[1])}

    def solve(beta):
        # Warm start from the previous slope's output marginal.
        r = state["r"]
        for _ in range(max_iter):
            Q = softmax(np.log(np.maximum(r, 1e-300)) - beta * D, axis=1)
            r_new = p_y @ Q
            if np.max(np.abs(r_new - r)) < tol:
                r = r_new
                break
            r = r_new
        state["r"] = np.maximum(r, 1e-12)
        return softmax(np.log(np.maximum(r, 1e-300)) - beta * D, axis=1)

    def excess(beta):  # decreasing in beta
        return float(p_y @ (solve(beta) * D).sum(axis=1)) - max_distortion

    lo, hi = 0.0, 1.0
    while excess(hi) > 0 and hi < 1e6:
        lo, hi = hi, 2 * hi
    if excess(hi) < 0:
        hi = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14)
    # else: the budget is met at hi exactly, or (at the least achievable
    # distortion, where beta is infinite) not before the cap on beta.
    Q = solve(hi)
    return mutual_information(p_y[:, None] * Q), Q


@validate_params(
    {"support": ["array-like"], "distortion": ["array-like"], "max_distortion": [Real]},
    prefer_skip_nested_validation=True,
)
def max_entropy_noise(support, distortion, max_distortion):
    r"""Largest-entropy noise :math:`Z` with :math:`\E\, d(Z) \le D` (Corollary 1, eq. 22-23).

    The maximiser is :math:`p(z) \propto \exp(-\beta\, d(z))` with :math:`\beta \ge 0` meeting the
    budget (:math:`\beta = 0`, uniform, when that already does).

    Parameters
    ----------
    support : array-like of shape (n_z,)
        Values of the noise (used only to return them alongside).
    distortion : array-like of shape (n_z,)
        :math:`d(z) \ge 0`.
    max_distortion : float

    Returns
    -------
    pmf : ndarray of shape (n_z,)
    entropy : float
        :math:`H(Z)` in nats.

    See Also
    --------
    rate_distortion : Rate-distortion function of Corollary 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.theory import max_entropy_noise
    >>> pmf, h = max_entropy_noise([-1, 0, 1], np.array([1.0, 0.0, 1.0]), 1.0)
    >>> pmf.round(4), round(h, 6)
    (array([0.3333, 0.3333, 0.3333]), 1.098612)
    """
    d = np.asarray(distortion, dtype=float)
    if len(np.asarray(support)) != d.size:
        raise ValueError("support and distortion must have the same length.")
    if max_distortion < d.min():
        raise ValueError(f"max_distortion={max_distortion} is below min d(z) = {d.min()}.")

    def pmf(beta):
        return softmax(-beta * (d - d.min()))

    def excess(beta):  # decreasing in beta
        return float(pmf(beta) @ d) - max_distortion

    beta = 0.0
    if excess(0.0) > 0:
        lo, hi = 0.0, 1.0
        while excess(hi) > 0:
            lo, hi = hi, 2 * hi
        beta = brentq(excess, lo, hi, xtol=1e-15, rtol=1e-15)
    p = pmf(beta)
    return p, entropy(p)


@validate_params(
    {
        "n": [POSITIVE_INTEGER],
        "k": [POSITIVE_INTEGER],
        "epsilon": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def laplace_counting_query_leakage(n, k, epsilon):
    r"""Exact average leakage of the eps-DP Laplace counting query of Thm. 4.

    :math:`Y` uniform on :math:`\{0, k, 2k, \ldots, n\}` (eq. 45; :math:`n` a multiple of
    :math:`k`),
    :math:`U = Y + \operatorname{Lap}(1/\epsilon)` (eq. 43-44), which is eps-DP for a counting query
    (sensitivity 1). Since :math:`Y` is a function of the database :math:`S`,
    :math:`I(S; U) = I(Y; U) = h(U) - h(U \mid Y)` with
    :math:`h(U \mid Y) = 1 + \log(2 / \epsilon)`;
    :math:`h(U)` is integrated by adaptive quadrature between and beyond the atoms.

    Parameters
    ----------
    n : int
        Number of database entries (a multiple of :math:`k`).
    k : int
        Spacing of the support of :math:`Y`.
    epsilon : float
        DP level of the Laplace mechanism.

    Returns
    -------
    dict
        ``leakage`` (nats), ``leakage_bits``, ``max_leakage`` (:math:`\log(1 + n/k)`,
        the entropy of :math:`Y`), and ``paper_lower_bound_bits``, the bound
        :math:`(1 - e^{-k \epsilon / 2}) \log_2(1 + n/k) - 1` of the proof.

    See Also
    --------
    counting_query_joint : Joint pmf of the counting query with binomial counts.
    information_privacy_guarantees : What eps-information privacy bounds, unlike eps-DP.

    Examples
    --------
    >>> from sklearn_privacy.theory import laplace_counting_query_leakage
    >>> out = laplace_counting_query_leakage(n=300, k=20, epsilon=1.0)
    >>> bool(out["leakage_bits"] > 3)
    True
    """
    if n % k:
        raise ValueError(f"n must be a multiple of k, got n={n}, k={k}.")
    atoms = np.arange(0, n + 1, k, dtype=float)
    weight = 1.0 / atoms.size
    b = 1.0 / epsilon

    def density(u):
        return weight * np.exp(-np.abs(u - atoms) / b).sum() / (2 * b)

    def integrand(u):  # of the differential entropy h(U) = int -f log f
        return float(entr(density(u)))

    edges = np.r_[-np.inf, atoms, np.inf]
    h_u = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        value, _ = integrate.quad(integrand, lo, hi, epsabs=1e-13, epsrel=1e-12, limit=200)
        h_u += value
    leakage = h_u - float(stats.laplace(scale=b).entropy())
    m = atoms.size
    return {
        "leakage": float(leakage),
        "leakage_bits": float(leakage / np.log(2)),
        "max_leakage": float(np.log(m)),
        "paper_lower_bound_bits": float((1 - np.exp(-k * epsilon / 2)) * np.log2(m) - 1),
    }


@validate_params({"joint": ["array-like"]}, prefer_skip_nested_validation=True)
def information_privacy_level(joint):
    r"""Information-privacy level of Def. 6: :math:`\max |\log P(s \mid u) / P(s)|`.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_u)
        :math:`P(S, U)`; the maximum runs over :math:`u` with :math:`P(U = u) > 0` and :math:`s`
        with :math:`P(S = s) > 0` (``inf`` if some such :math:`P(s \mid u) = 0`).

    Returns
    -------
    float
        The least :math:`\epsilon` for which the mapping is eps-information private.

    See Also
    --------
    information_privacy_guarantees : What this level implies.
    sklearn_privacy.information.max_information_leakage : The worst-case leakage of the same pmf.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.theory import information_privacy_level
    >>> joint = np.array([[0.3, 0.2], [0.2, 0.3]])
    >>> round(information_privacy_level(joint), 6)  # |log 0.8|
    0.223144
    """
    joint = np.asarray(joint, dtype=float)
    p_s, p_u = joint.sum(axis=1), joint.sum(axis=0)
    block = joint[np.ix_(p_s > 0, p_u > 0)]
    if np.any(block == 0):
        return float("inf")
    ratio = block / p_u[p_u > 0] / p_s[p_s > 0, None]
    return float(np.max(np.abs(np.log(ratio))))


@validate_params({"epsilon": [NONNEGATIVE_OR_INF]}, prefer_skip_nested_validation=True)
def information_privacy_guarantees(epsilon):
    r"""What eps-information privacy implies (Thm. 3).

    Parameters
    ----------
    epsilon : float
        Information-privacy level (Def. 6).

    Returns
    -------
    dict
        ``dp_epsilon``: :math:`2 \epsilon` (differential privacy between *any* two
        inputs, neighbours or not); ``average_leakage``: :math:`\epsilon` nats (the
        paper's :math:`\epsilon / \ln 2` bits) bounding :math:`I(S; U)`.

    See Also
    --------
    information_privacy_level : The level :math:`\epsilon` of a mapping.

    Examples
    --------
    >>> from sklearn_privacy.theory import information_privacy_guarantees
    >>> information_privacy_guarantees(0.5)
    {'dp_epsilon': 1.0, 'average_leakage': 0.5}
    """
    return {"dp_epsilon": 2.0 * float(epsilon), "average_leakage": float(epsilon)}


def _check_deterministic(joint):
    joint = np.asarray(joint, dtype=float)
    if joint.ndim != 2:
        raise ValueError(f"joint must be 2-D, got shape {joint.shape}.")
    if np.any((joint > 0).sum(axis=1) > 1):
        raise ValueError(
            "Corollary 2 needs Y = f(S): each row of joint (a value of S) must have at most "
            "one nonzero entry."
        )
    # conditional_entropy(joint) = H(Y | S) = 0 for a deterministic f: a cheap double check.
    if conditional_entropy(joint / joint.sum()) > 1e-12:
        raise ValueError("joint is not the law of (S, f(S)).")
    return joint
