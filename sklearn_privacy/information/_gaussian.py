"""Entropy and mutual information of jointly Gaussian variables, and Gaussian channels' rates."""

import numpy as np


def _check_covariance(cov, name="cov"):
    cov = np.asarray(cov, dtype=float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {cov.shape}.")
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError(f"{name} must be symmetric.")
    return cov


def _logdet(cov, name):
    sign, logdet = np.linalg.slogdet(cov)
    if sign <= 0 or not np.isfinite(logdet):
        raise ValueError(
            f"{name} is singular or not positive definite; a Gaussian entropy needs a "
            "positive definite covariance."
        )
    return logdet


def gaussian_entropy(cov):
    r"""Differential entropy of :math:`N(\mu, \Sigma)` in nats.

    :math:`\frac{1}{2} \log \det(2 \pi e \Sigma)`, with :math:`\Sigma` the covariance ``cov``.

    Parameters
    ----------
    cov : array-like of shape (d, d)
        Positive definite covariance; the mean does not matter.

    Returns
    -------
    float
        :math:`\frac{1}{2} (d \log(2 \pi e) + \log \det \Sigma)`.

    See Also
    --------
    gaussian_mutual_information : :math:`I(A; B)` from the same log-determinants.
    entropy : Shannon entropy of a discrete pmf.

    Examples
    --------
    >>> from sklearn_privacy.information import gaussian_entropy
    >>> round(gaussian_entropy([[1.0]]), 6)
    1.418939
    """
    cov = _check_covariance(cov)
    d = cov.shape[0]
    return float(0.5 * (d * np.log(2 * np.pi * np.e) + _logdet(cov, "cov")))


def gaussian_mutual_information(cov, a, b):
    r"""Mutual information :math:`I(A; B)` of jointly Gaussian variables, in nats.

    Parameters
    ----------
    cov : array-like of shape (d, d)
        Covariance of the joint vector.
    a, b : sequence of int
        Disjoint index sets of the two variables inside ``cov``.

    Returns
    -------
    float
        :math:`\frac{1}{2} (\log \det \Sigma_{AA} + \log \det \Sigma_{BB} - \log \det \Sigma)`.

    See Also
    --------
    gaussian_entropy : Differential entropy of a Gaussian vector.
    gaussian_mutual_information_from_correlation : The same from canonical correlations.
    mutual_information : :math:`I(A; B)` of a discrete joint pmf.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import gaussian_mutual_information
    >>> rho = 0.6
    >>> mi = gaussian_mutual_information([[1, rho], [rho, 1]], [0], [1])
    >>> bool(np.isclose(mi, 0.5 * np.log(1 / (1 - rho**2))))
    True
    """
    cov = _check_covariance(cov)
    a = np.atleast_1d(np.asarray(a, dtype=int))
    b = np.atleast_1d(np.asarray(b, dtype=int))
    if a.size == 0 or b.size == 0:
        raise ValueError("a and b must each name at least one index.")
    if np.intersect1d(a, b).size:
        raise ValueError("a and b must be disjoint index sets.")
    ab = np.concatenate([a, b])
    if ab.min() < 0 or ab.max() >= cov.shape[0]:
        raise ValueError(f"indices must lie in [0, {cov.shape[0]}).")
    value = 0.5 * (
        _logdet(cov[np.ix_(a, a)], "cov[a, a]")
        + _logdet(cov[np.ix_(b, b)], "cov[b, b]")
        - _logdet(cov[np.ix_(ab, ab)], "cov[a+b, a+b]")
    )
    return float(max(value, 0.0))


def _summed(values, axis):
    out = np.sum(values, axis=axis)
    return float(out) if np.ndim(out) == 0 else out


def gaussian_channel_rate(snr, *, axis=None):
    r"""Mutual information of parallel Gaussian channels in nats.

    :math:`\sum \frac{1}{2} \log(1 + \mathrm{snr})` over the components.

    A component :math:`T = X + Z` with independent Gaussian :math:`X` and :math:`Z`
    and signal-to-noise ratio :math:`\mathrm{snr} = \operatorname{var}(X) / \operatorname{var}(Z)`
    carries :math:`I(X; T) = \frac{1}{2} \log(1 + \mathrm{snr})`; independent components
    add up.

    Parameters
    ----------
    snr : float or array-like of float
        Signal-to-noise ratios, ``>= 0`` (``inf`` gives an infinite rate).
    axis : None, int or tuple of int, default=None
        Axes of the components, summed over: ``None`` sums all of them (the
        rate of one vector channel), ``-1`` one rate per row of a batch, ``()``
        one rate per entry.

    Returns
    -------
    float or ndarray
        The rate; a float when the sum leaves no axis.

    See Also
    --------
    gaussian_mutual_information : The general covariance form.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import gaussian_channel_rate
    >>> rate = gaussian_channel_rate([1.0, 3.0])
    >>> bool(np.isclose(rate, 0.5 * np.log(2 * 4)))
    True
    >>> snr = [[0.0, 0.0], [np.e**2 - 1, 0.0]]
    >>> gaussian_channel_rate(snr, axis=-1).round(6)
    array([0., 1.])
    """
    snr = np.asarray(snr, dtype=float)
    if not np.all(snr >= 0):
        raise ValueError("snr must hold signal-to-noise ratios >= 0 (NaN is not one).")
    return _summed(0.5 * np.log1p(snr), axis)


def gaussian_mutual_information_from_correlation(rho, *, axis=None):
    r"""Mutual information of Gaussian pairs with correlation :math:`\rho`, in nats.

    For jointly Gaussian scalars :math:`A`, :math:`B` with correlation :math:`\rho`,
    :math:`I(A; B) = -\frac{1}{2} \log(1 - \rho^2)`. For Gaussian vectors, pass their
    canonical correlations: the pairs of canonical variates are independent,
    so their informations add up.

    Parameters
    ----------
    rho : float or array-like of float
        Correlations in [-1, 1] (:math:`\pm 1` gives ``inf``).
    axis : None, int or tuple of int, default=None
        Axes summed over, as in :func:`gaussian_channel_rate`: ``None`` sums
        all, ``()`` none.

    Returns
    -------
    float or ndarray
        :math:`\sum -\frac{1}{2} \log(1 - \rho^2)`, with ``log1p`` for precision at small
        :math:`\rho`; a float when the sum leaves no axis.

    See Also
    --------
    gaussian_mutual_information : The general covariance form.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import (
    ...     gaussian_mutual_information,
    ...     gaussian_mutual_information_from_correlation,
    ... )
    >>> mi = gaussian_mutual_information_from_correlation(0.6)
    >>> cov = [[1, 0.6], [0.6, 1]]
    >>> bool(np.isclose(mi, gaussian_mutual_information(cov, [0], [1])))
    True
    >>> rho = [0.0, 0.6]
    >>> gaussian_mutual_information_from_correlation(rho, axis=()).round(6)
    array([0.      , 0.223144])
    """
    rho = np.asarray(rho, dtype=float)
    if not np.all(np.abs(rho) <= 1):
        raise ValueError("rho must hold correlations in [-1, 1] (NaN is not one).")
    with np.errstate(divide="ignore"):  # |rho| = 1: inf, the exact value
        values = -0.5 * np.log1p(-(rho * rho))
    return _summed(values, axis)
