"""Synthetic models of the PPAN paper (Tripathy et al., 2017, Table 1), as (sensitive, useful)."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from sklearn_privacy.utils import POSITIVE_INTEGER, UNIT
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions, validate_params

# Table 1 of the paper.
GAUSSIAN_MODELS = {
    # Sec. 3.2.2: X = Y ~ N(0, diag(variances)), W = X = Y (rate-distortion).
    "rate_distortion": {"variances": (0.47, 0.24, 0.85, 0.07, 0.66)},
    # Sec. 3.2.3: scalar X, Y, unit variances, correlation 0.85.
    "scalar": {"rho": (0.85,)},
    # Sec. 3.2.4: X, Y in R^5, identity covariances, cross-covariance diag(rho).
    "vector": {"rho": (0.47, 0.24, 0.85, 0.07, 0.66)},
}


@validate_params(
    {
        "m": [Interval(Integral, 2, None, closed="left")],
        "p": [UNIT],
    },
    prefer_skip_nested_validation=True,
)
def symmetric_pair_pmf(m=10, p=0.4):
    r"""Joint pmf of the symmetric pair distribution (PPAN paper, eq. 7).

    .. math::

        P_{X,Y}(x, y) = \frac{1 - p}{m} \text{ if } x = y, \qquad
        \frac{p}{m (m - 1)} \text{ otherwise},

    for :math:`x, y` in :math:`\{0, \ldots, m - 1\}`. Both marginals are uniform and
    :math:`P(Y \ne X) = p`; its mutual information is
    :math:`\log m - p \log(m - 1) - h_2(p)` nats.

    Parameters
    ----------
    m : int, default=10
        Alphabet size, at least 2.
    p : float, default=0.4
        Probability that the two attributes differ, in [0, 1].

    Returns
    -------
    pmf : ndarray of shape (m, m)
        ``pmf[x, y]`` with ``x`` the sensitive attribute (the paper's X) and
        ``y`` the useful one (the paper's Y).

    See Also
    --------
    make_symmetric_pair : Samples of this pmf.
    sklearn_privacy.theory.symmetric_pair_full_data : Optimal leakage on this model.

    Examples
    --------
    >>> from sklearn_privacy.datasets import symmetric_pair_pmf
    >>> symmetric_pair_pmf(m=3, p=0.3).round(3)
    array([[0.233, 0.05 , 0.05 ],
           [0.05 , 0.233, 0.05 ],
           [0.05 , 0.05 , 0.233]])
    """
    pmf = np.full((m, m), p / (m * (m - 1)))
    np.fill_diagonal(pmf, (1 - p) / m)
    return pmf


@validate_params(
    {
        "n_samples": [POSITIVE_INTEGER],
        "m": [Interval(Integral, 2, None, closed="left")],
        "p": [UNIT],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_symmetric_pair(n_samples, m=10, p=0.4, random_state=None):
    r"""Draw i.i.d. samples of the symmetric pair distribution (PPAN paper, eq. 7).

    The sensitive attribute is uniform on :math:`\{0, \ldots, m - 1\}`; the useful one
    equals it with probability :math:`1 - p` and is otherwise uniform on the
    :math:`m - 1` other values, which is exactly :func:`symmetric_pair_pmf`.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    m : int, default=10
        Alphabet size, at least 2.
    p : float, default=0.4
        Probability that the two attributes differ.
    random_state : int, RandomState instance or None, default=None
        Seed or generator (an int for reproducible draws).

    Returns
    -------
    sensitive : ndarray of shape (n_samples,), dtype int64
        The paper's X.
    useful : ndarray of shape (n_samples,), dtype int64
        The paper's Y.

    See Also
    --------
    symmetric_pair_pmf : The exact joint pmf of the samples.
    sklearn_privacy.theory.symmetric_pair_useful_data : Optimal leakage on this model.

    Examples
    --------
    >>> from sklearn_privacy.datasets import make_symmetric_pair
    >>> s, u = make_symmetric_pair(5, m=10, p=0.4, random_state=0)
    >>> s.shape, u.shape
    ((5,), (5,))
    """
    rng = check_random_state(random_state)
    sensitive = rng.randint(m, size=n_samples).astype(np.int64)
    differ = rng.random_sample(n_samples) < p
    shift = rng.randint(1, m, size=n_samples)
    useful = np.where(differ, (sensitive + shift) % m, sensitive).astype(np.int64)
    return sensitive, useful


@validate_params(
    {"model": [StrOptions(set(GAUSSIAN_MODELS))]},
    prefer_skip_nested_validation=True,
)
def gaussian_model_covariance(model="vector"):
    r"""Exact covariance of the stacked attributes :math:`[X; Y]` of a PPAN Gaussian model.

    The three jointly Gaussian, zero-mean models of the PPAN paper's Table 1:

    - ``"rate_distortion"`` (Sec. 3.2.2): ``X = Y ~ N(0, diag(0.47, 0.24, 0.85,
      0.07, 0.66))`` (the numbers are variances); the covariance is singular,
      :math:`\begin{pmatrix} D & D \\ D & D \end{pmatrix}`.
    - ``"scalar"`` (Sec. 3.2.3): scalar :math:`X`, :math:`Y` with unit variances and
      correlation 0.85.
    - ``"vector"`` (Sec. 3.2.4): :math:`X, Y` in R^5 with covariances :math:`I_5` and
      cross-covariance :math:`\operatorname{diag}(0.47, 0.24, 0.85, 0.07, 0.66)`.

    Parameters
    ----------
    model : {"rate_distortion", "scalar", "vector"}, default="vector"
        Which model.

    Returns
    -------
    cov : ndarray of shape (2 d, 2 d)
        Covariance of :math:`[X; Y]`: the first :math:`d` coordinates are the sensitive
        X, the last :math:`d` the useful Y.

    See Also
    --------
    make_gaussian_model : Samples drawn with this covariance.
    sklearn_privacy.theory.ppan_vector_useful_data : Optimal leakage on the vector model.

    Examples
    --------
    >>> from sklearn_privacy.datasets import gaussian_model_covariance
    >>> gaussian_model_covariance("scalar")
    array([[1.  , 0.85],
           [0.85, 1.  ]])
    """
    spec = GAUSSIAN_MODELS[model]
    if "variances" in spec:
        block = np.diag(spec["variances"])
        return np.block([[block, block], [block, block]])
    rho = np.diag(spec["rho"])
    eye = np.eye(len(spec["rho"]))
    return np.block([[eye, rho], [rho, eye]])


@validate_params(
    {
        "n_samples": [POSITIVE_INTEGER],
        "model": [StrOptions(set(GAUSSIAN_MODELS))],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_gaussian_model(n_samples, model="vector", random_state=None):
    r"""Draw i.i.d. samples of a PPAN Gaussian model (Table 1).

    See :func:`gaussian_model_covariance` for the models. For
    ``"rate_distortion"`` the useful attribute is an exact copy of the
    sensitive one; otherwise :math:`Y = \rho X + \sqrt{1 - \rho^2}\, N` coordinate-wise,
    with :math:`N` standard normal and independent of :math:`X`.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    model : {"rate_distortion", "scalar", "vector"}, default="vector"
        Which model.
    random_state : int, RandomState instance or None, default=None
        Seed or generator (an int for reproducible draws).

    Returns
    -------
    sensitive : ndarray of shape (n_samples, d)
        The paper's X.
    useful : ndarray of shape (n_samples, d)
        The paper's Y (:math:`d = 1` for ``"scalar"``, 5 otherwise).

    See Also
    --------
    gaussian_model_covariance : The exact covariance of the samples.
    sklearn_privacy.theory.ppan_scalar_useful_data : Optimal leakage on the scalar model.

    Examples
    --------
    >>> from sklearn_privacy.datasets import make_gaussian_model
    >>> s, u = make_gaussian_model(4, model="vector", random_state=0)
    >>> s.shape, u.shape
    ((4, 5), (4, 5))
    """
    rng = check_random_state(random_state)
    spec = GAUSSIAN_MODELS[model]
    if "variances" in spec:
        sensitive = rng.standard_normal((n_samples, len(spec["variances"])))
        sensitive *= np.sqrt(spec["variances"])
        return sensitive, sensitive.copy()
    rho = np.asarray(spec["rho"])
    sensitive = rng.standard_normal((n_samples, rho.size))
    noise = rng.standard_normal((n_samples, rho.size))
    return sensitive, rho * sensitive + np.sqrt(1 - rho**2) * noise
