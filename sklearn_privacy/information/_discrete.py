"""Entropy, mutual information and divergences of discrete distributions.

Every function works in nats and treats zero-probability cells exactly
(``0 log 0 = 0``) through :func:`scipy.special.entr`, :func:`scipy.special.xlogy`
and :func:`scipy.special.rel_entr`.
"""

import numpy as np
from scipy.special import entr, rel_entr

_PMF_ATOL = 1e-8


def _check_pmf(p, name="pmf", ndim=None):
    """Return ``p`` as a float array after checking that it is a pmf."""
    p = np.asarray(p, dtype=float)
    if ndim is not None and p.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got an array of shape {p.shape}.")
    if p.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if np.any(p < 0):
        raise ValueError(f"{name} has negative entries (smallest {p.min():.3g}).")
    total = p.sum()
    if abs(total - 1.0) > _PMF_ATOL * max(1, p.size):
        raise ValueError(f"{name} must sum to 1, it sums to {total:.12g}.")
    return p


def entropy(pmf):
    """Shannon entropy ``H(P)`` of a pmf of any shape, in nats.

    Parameters
    ----------
    pmf : array-like
        Probabilities summing to one; a joint pmf gives the joint entropy.

    Returns
    -------
    float
        ``-sum p log p``.

    Examples
    --------
    >>> from sklearn_privacy.information import entropy
    >>> round(entropy([0.5, 0.5]), 6)
    0.693147
    """
    return float(entr(_check_pmf(pmf)).sum())


def conditional_entropy(joint):
    """Conditional entropy ``H(B | A)`` of ``joint[a, b] = P(A=a, B=b)``, in nats.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import conditional_entropy
    >>> conditional_entropy(np.eye(2) / 2)
    0.0
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    return float(entr(joint).sum() - entr(joint.sum(axis=1)).sum())


def mutual_information(joint):
    """Mutual information ``I(A; B)`` of ``joint[a, b] = P(A=a, B=b)``, in nats.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import mutual_information
    >>> round(mutual_information(np.eye(2) / 2), 6)
    0.693147
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    return _mutual_information(joint)


def _mutual_information(joint):
    """Unchecked ``I(A; B)`` for a valid 2-D joint pmf (hot paths)."""
    value = entr(joint.sum(axis=1)).sum() + entr(joint.sum(axis=0)).sum() - entr(joint).sum()
    return float(max(value, 0.0))


def kl_divergence(p, q):
    """Kullback-Leibler divergence ``D(P || Q)`` in nats.

    Infinite when ``P`` puts mass where ``Q`` does not.

    Examples
    --------
    >>> from sklearn_privacy.information import kl_divergence
    >>> round(kl_divergence([0.5, 0.5], [0.25, 0.75]), 6)
    0.143841
    """
    p = _check_pmf(p, "p")
    q = _check_pmf(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}.")
    return float(rel_entr(p, q).sum())


def max_information_leakage(joint):
    """Maximum information leakage ``max_u [H(S) - H(S | U=u)]`` in nats.

    ``joint[s, u] = P(S=s, U=u)``; the maximum runs over the outputs ``u``
    with ``P(U=u) > 0`` (privacy-statistical-inference-calmon2012, Def. 5).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import max_information_leakage
    >>> round(max_information_leakage(np.array([[0.5, 0.0], [0.25, 0.25]])), 6)
    0.693147
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    p_u = joint.sum(axis=0)
    used = p_u > 0
    posterior = joint[:, used] / p_u[used]
    h_s = entr(joint.sum(axis=1)).sum()
    return float(h_s - entr(posterior).sum(axis=0).min())


def nats_to_bits(value):
    """Convert an information quantity from nats to bits."""
    return np.asarray(value) / np.log(2)


# --------------------------------------------------------------------------
# Estimates from samples
# --------------------------------------------------------------------------


def encode_symbols(values, *, name="values"):
    """Map each row (or element) of ``values`` to an integer code.

    A 2-D array is read row by row, so that several categorical columns form
    one joint alphabet.

    Returns
    -------
    codes : ndarray of shape (n_samples,)
        Integer codes in ``range(n_symbols)``.
    symbols : ndarray
        The distinct values (or rows), in the order of the codes.
    """
    values = np.asarray(values)
    if values.ndim == 0 or values.ndim > 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {values.shape}.")
    if values.shape[0] == 0:
        raise ValueError(f"{name} is empty.")
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim == 1:
        symbols, codes = np.unique(values, return_inverse=True)
    else:
        if values.dtype == object:
            # np.unique(axis=0) does not sort object rows; compare their string form.
            keys = np.array(["\x1f".join(map(repr, row)) for row in values])
            _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
            symbols = values[first]
        else:
            symbols, codes = np.unique(values, axis=0, return_inverse=True)
    return codes.reshape(-1), symbols


def contingency_pmf(a, b):
    """Empirical joint pmf ``P(A, B)`` of two samples of discrete symbols.

    Parameters
    ----------
    a, b : array-like of shape (n_samples,) or (n_samples, n_columns)
        Symbols; the rows of a 2-D array form a joint symbol.

    Returns
    -------
    ndarray of shape (n_symbols_a, n_symbols_b)
    """
    a_codes, a_symbols = encode_symbols(a, name="a")
    b_codes, b_symbols = encode_symbols(b, name="b")
    if a_codes.shape[0] != b_codes.shape[0]:
        raise ValueError(
            f"a and b must have the same number of samples, got {a_codes.shape[0]} "
            f"and {b_codes.shape[0]}."
        )
    counts = np.zeros((len(a_symbols), len(b_symbols)))
    np.add.at(counts, (a_codes, b_codes), 1.0)
    return counts / a_codes.shape[0]


_METHODS = ("plugin", "miller_madow")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}.")


def entropy_from_samples(x, *, method="plugin"):
    """Entropy of the empirical distribution of ``x``, in nats.

    Parameters
    ----------
    x : array-like of shape (n_samples,) or (n_samples, n_columns)
        Discrete symbols; rows of a 2-D array form a joint symbol.
    method : {"plugin", "miller_madow"}, default="plugin"
        ``"miller_madow"`` adds the bias correction ``(m - 1) / (2 n)`` with
        ``m`` the number of observed symbols.
    """
    _check_method(method)
    codes, symbols = encode_symbols(x, name="x")
    n = codes.shape[0]
    counts = np.bincount(codes)
    value = float(entr(counts / n).sum())
    if method == "miller_madow":
        value += (np.count_nonzero(counts) - 1) / (2 * n)
    return value


def mutual_information_from_samples(a, b, *, method="plugin"):
    """Mutual information ``I(A; B)`` estimated from paired discrete samples, in nats.

    Parameters
    ----------
    a, b : array-like of shape (n_samples,) or (n_samples, n_columns)
        Discrete symbols; rows of a 2-D array form a joint symbol.
    method : {"plugin", "miller_madow"}, default="plugin"
        ``"plugin"`` is the mutual information of the empirical joint pmf (as
        :func:`sklearn.metrics.mutual_info_score`). ``"miller_madow"`` applies the
        Miller-Madow correction to each of the three entropies, which adds
        ``(m_A + m_B - m_AB - 1) / (2 n)`` (``m`` counts the observed symbols),
        and clips the result at zero.

    Returns
    -------
    float
        The estimate, non-negative. The Miller-Madow correction is negative
        whenever more joint cells are seen than ``m_A + m_B - 1`` (always so
        for independent samples with many cells seen), so that the corrected
        value of a nearly independent pair can fall below zero; as mutual
        information is non-negative, such a value is reported as ``0``.

    Examples
    --------
    >>> from sklearn_privacy.information import mutual_information_from_samples
    >>> round(mutual_information_from_samples([0, 0, 1, 1], [0, 0, 1, 1]), 6)
    0.693147
    """
    _check_method(method)
    joint = contingency_pmf(a, b)
    value = _mutual_information(joint)
    if method == "miller_madow":
        n = np.asarray(a).shape[0]
        m_a = np.count_nonzero(joint.sum(axis=1))
        m_b = np.count_nonzero(joint.sum(axis=0))
        m_ab = np.count_nonzero(joint)
        value = max(value + (m_a + m_b - m_ab - 1) / (2 * n), 0.0)
    return float(value)
