"""Entropy, mutual information and divergences of discrete distributions, in nats."""

import numpy as np
from scipy.special import entr, rel_entr, xlog1py
from sklearn.metrics import mutual_info_score

from sklearn_privacy.utils._symbols import encode_rows

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
    r"""Shannon entropy :math:`H(P)` of a pmf of any shape, in nats.

    Parameters
    ----------
    pmf : array-like
        Probabilities summing to one; a joint pmf gives the joint entropy.

    Returns
    -------
    float
        :math:`-\sum p \log p`.

    See Also
    --------
    conditional_entropy : :math:`H(B \mid A)` of a joint pmf.
    binary_entropy : Entropy of a two-outcome pmf given by one probability.
    entropy_from_samples : Entropy estimated from samples.
    gaussian_entropy : Differential entropy of a Gaussian vector.

    Examples
    --------
    >>> from sklearn_privacy.information import entropy
    >>> round(entropy([0.5, 0.5]), 6)
    0.693147
    """
    return float(entr(_check_pmf(pmf)).sum())


def binary_entropy(p):
    r"""Binary entropy :math:`h(p) = -p \log p - (1 - p) \log(1 - p)`, in nats.

    Parameters
    ----------
    p : float or array-like of float
        Probabilities in [0, 1]; the function applies element-wise.

    Returns
    -------
    float or ndarray
        :math:`h(p)`, of the shape of ``p`` (a float for a scalar); :math:`h(0) = h(1) = 0`.
        :math:`\log(1 - p)` is evaluated as ``log1p(-p)``, so that :math:`h(p)` keeps its
        relative precision for tiny ``p``.

    See Also
    --------
    entropy : Entropy of a pmf with any number of outcomes.
    nats_to_bits : Convert the result to bits.

    Examples
    --------
    >>> from sklearn_privacy.information import binary_entropy
    >>> round(binary_entropy(0.5), 6)
    0.693147
    >>> binary_entropy([0.0, 1.0]).tolist()
    [0.0, 0.0]
    """
    p = np.asarray(p, dtype=float)
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p must hold probabilities in [0, 1] (NaN is not one).")
    h = entr(p) - xlog1py(1.0 - p, -p) + 0.0  # + 0.0 turns entr(1) = -0.0 into 0.0
    return float(h) if h.ndim == 0 else h


def conditional_entropy(joint):
    r"""Conditional entropy :math:`H(B \mid A)` of ``joint[a, b]`` :math:`= P(A=a, B=b)`, in nats.

    Parameters
    ----------
    joint : array-like of shape (n_a, n_b)
        Joint pmf; the rows index the conditioning variable :math:`A`.

    Returns
    -------
    float
        :math:`H(A, B) - H(A)`.

    See Also
    --------
    posterior_entropies : :math:`H(A \mid B=b)` for each value :math:`b`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import conditional_entropy
    >>> conditional_entropy(np.eye(2) / 2)
    0.0
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    return float(entr(joint).sum() - entr(joint.sum(axis=1)).sum())


def posterior_entropies(joint):
    r"""Entropy :math:`H(A \mid B=b)` of each column's posterior, in nats.

    Parameters
    ----------
    joint : array-like of shape (n_a, n_b)
        Joint pmf ``joint[a, b]`` :math:`= P(A=a, B=b)`.

    Returns
    -------
    ndarray of shape (n_b,)
        The entropy of :math:`P(A \mid B=b) = P(A, B=b) / P(B=b)` (column ``b``
        of ``joint``, normalised) for every :math:`b`; a column with
        :math:`P(B=b) = 0` has no posterior and gets 0. Their average under
        :math:`P(B)` is :math:`H(A \mid B)`, ``conditional_entropy(joint.T)``.

    See Also
    --------
    conditional_entropy : The average :math:`H(B \mid A)`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import posterior_entropies
    >>> posterior_entropies(np.array([[0.25, 0.5], [0.25, 0.0]])).round(6)
    array([0.693147, 0.      ])
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    return _posterior_entropies(joint)


def _posterior_entropies(joint):
    """Unchecked :func:`posterior_entropies` (0 for an empty column)."""
    p_b = joint.sum(axis=0)
    return entr(joint / np.where(p_b > 0, p_b, 1.0)).sum(axis=0)


def mutual_information(joint):
    r"""Mutual information :math:`I(A; B)` of ``joint[a, b]`` :math:`= P(A=a, B=b)`, in nats.

    Parameters
    ----------
    joint : array-like of shape (n_a, n_b)
        Joint pmf.

    Returns
    -------
    float
        :math:`H(A) + H(B) - H(A, B)`, clipped at 0 against rounding.

    See Also
    --------
    conditional_entropy : :math:`H(B \mid A)`; :math:`I(A; B) = H(B) - H(B \mid A)`.
    mutual_information_from_samples : :math:`I(A; B)` estimated from paired samples.
    max_information_leakage : Worst-case leakage over the outputs.
    gaussian_mutual_information : :math:`I(A; B)` of jointly Gaussian variables.

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
    r"""Kullback-Leibler divergence :math:`D(P \,\|\, Q)` in nats.

    Parameters
    ----------
    p, q : array-like
        Two pmfs of the same shape.

    Returns
    -------
    float
        :math:`\sum p \log(p / q)`; infinite when :math:`P` puts mass where :math:`Q`
        does not.

    See Also
    --------
    mutual_information : :math:`D(P_{AB} \,\|\, P_A P_B)`, a KL divergence.
    entropy : Shannon entropy of a pmf.

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
    r"""Maximum information leakage :math:`\max_u [H(S) - H(S \mid U=u)]` in nats.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_u)
        ``joint[s, u]`` :math:`= P(S=s, U=u)`; the maximum runs over the outputs
        :math:`u` with :math:`P(U=u) > 0` (privacy-statistical-inference-calmon2012,
        Def. 5).

    Returns
    -------
    float
        :math:`H(S) - \min_u H(S \mid U=u)`.

    See Also
    --------
    mutual_information : Average information leakage :math:`I(S; U)`.
    posterior_entropies : :math:`H(S \mid U=u)` for every :math:`u`.
    sklearn_privacy.discrete.min_maximum_leakage_mapping : Mapping that minimises this leakage.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import max_information_leakage
    >>> round(max_information_leakage(np.array([[0.5, 0.0], [0.25, 0.25]])), 6)
    0.693147
    """
    joint = _check_pmf(joint, "joint", ndim=2)
    used = joint.sum(axis=0) > 0
    h_s = entr(joint.sum(axis=1)).sum()
    return float(h_s - _posterior_entropies(joint[:, used]).min())


def nats_to_bits(value):
    r"""Convert an information quantity from nats to bits.

    Parameters
    ----------
    value : float or array-like
        Nats.

    Returns
    -------
    ndarray
        ``value`` divided by :math:`\log 2`.

    See Also
    --------
    entropy : Shannon entropy, in nats.
    mutual_information : Mutual information, in nats.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import nats_to_bits
    >>> float(nats_to_bits(np.log(4)))
    2.0
    """
    return np.asarray(value) / np.log(2)


# --------------------------------------------------------------------------
# Estimates from samples
# --------------------------------------------------------------------------


def encode_symbols(values, *, name="values"):
    """Map each row (or element) of ``values`` to an integer code.

    A 2-D array is read row by row, so that several categorical columns form
    one joint alphabet.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
        Symbols of any dtype (object values that do not order against each
        other are ordered by their ``repr``).
    name : str, default="values"
        The name used in error messages.

    Returns
    -------
    codes : ndarray of shape (n_samples,)
        Integer codes in ``range(n_symbols)``.
    symbols : ndarray
        The distinct values (or rows), in the order of the codes.

    See Also
    --------
    contingency_pmf : Joint pmf of two encoded samples.
    sklearn_privacy.utils.encode_sensitive : Codes of the sensitive attribute S.

    Examples
    --------
    >>> from sklearn_privacy.information import encode_symbols
    >>> codes, symbols = encode_symbols([[1, 2], [0, 5], [1, 2]])
    >>> codes.tolist(), symbols.tolist()
    ([1, 0, 1], [[0, 5], [1, 2]])
    """
    return encode_rows(values, name=name)


def _contingency_counts(a, b):
    """Integer contingency table of two samples, rows and columns in code order.

    The codes of :func:`encode_symbols` are already dense, so one
    :func:`numpy.bincount` of the pair codes counts them;
    :func:`sklearn.metrics.cluster.contingency_matrix` would sort them again
    (40 times slower at a million samples).
    """
    a_codes, a_symbols = encode_symbols(a, name="a")
    b_codes, b_symbols = encode_symbols(b, name="b")
    if a_codes.shape[0] != b_codes.shape[0]:
        raise ValueError(
            f"a and b must have the same number of samples, got {a_codes.shape[0]} "
            f"and {b_codes.shape[0]}."
        )
    n_a, n_b = len(a_symbols), len(b_symbols)
    counts = np.bincount(a_codes * n_b + b_codes, minlength=n_a * n_b)
    return counts.reshape(n_a, n_b)


def contingency_pmf(a, b):
    """Empirical joint pmf :math:`P(A, B)` of two samples of discrete symbols.

    Parameters
    ----------
    a, b : array-like of shape (n_samples,) or (n_samples, n_columns)
        Symbols; the rows of a 2-D array form a joint symbol.

    Returns
    -------
    ndarray of shape (n_symbols_a, n_symbols_b)
        Rows and columns in the order of the codes of :func:`encode_symbols`.

    See Also
    --------
    mutual_information : :math:`I(A; B)` of the pmf this function returns.
    mutual_information_from_samples : Estimate :math:`I(A; B)` from the samples directly.
    encode_symbols : Integer codes of the symbols counted here.

    Examples
    --------
    >>> from sklearn_privacy.information import contingency_pmf
    >>> contingency_pmf([0, 0, 1, 1], ["x", "y", "y", "y"])
    array([[0.25, 0.25],
           [0.  , 0.5 ]])
    """
    counts = _contingency_counts(a, b)
    return counts / counts.sum()


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
        ``"miller_madow"`` adds the bias correction :math:`(m - 1) / (2 n)` with
        :math:`m` the number of observed symbols and :math:`n` that of samples.

    Returns
    -------
    float

    See Also
    --------
    entropy : Entropy of a known pmf.
    mutual_information_from_samples : :math:`I(A; B)` estimated from paired samples.

    Examples
    --------
    >>> from sklearn_privacy.information import entropy_from_samples
    >>> round(entropy_from_samples(["a", "b", "a", "b"]), 6)
    0.693147
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
    r"""Mutual information :math:`I(A; B)` estimated from paired discrete samples, in nats.

    Parameters
    ----------
    a, b : array-like of shape (n_samples,) or (n_samples, n_columns)
        Discrete symbols; rows of a 2-D array form a joint symbol.
    method : {"plugin", "miller_madow"}, default="plugin"
        ``"plugin"`` is the mutual information of the empirical joint pmf (as
        :func:`sklearn.metrics.mutual_info_score`). ``"miller_madow"`` applies the
        Miller-Madow correction to each of the three entropies, which adds
        :math:`(m_A + m_B - m_{AB} - 1) / (2 n)` (:math:`m` counts the observed
        symbols, :math:`n` the samples),
        and clips the result at zero.

    Returns
    -------
    float
        The estimate, non-negative. The Miller-Madow correction is negative
        whenever more joint cells are seen than :math:`m_A + m_B - 1` (always so
        for independent samples with many cells seen), so that the corrected
        value of a nearly independent pair can fall below zero; as mutual
        information is non-negative, such a value is reported as ``0``.

    See Also
    --------
    mutual_information : :math:`I(A; B)` of a known joint pmf.
    contingency_pmf : Empirical joint pmf of the two samples.
    sklearn_privacy.metrics.leakage_score : Leakage :math:`I(S; \text{release})` of any release.

    Examples
    --------
    >>> from sklearn_privacy.information import mutual_information_from_samples
    >>> round(mutual_information_from_samples([0, 0, 1, 1], [0, 0, 1, 1]), 6)
    0.693147
    """
    _check_method(method)
    counts = _contingency_counts(a, b)
    value = mutual_info_score(None, None, contingency=counts)
    if method == "miller_madow":
        # Every symbol of the codes is observed: m_A and m_B are the table's sides.
        m_a, m_b = counts.shape
        value = max(value + (m_a + m_b - np.count_nonzero(counts) - 1) / (2 * counts.sum()), 0.0)
    return float(value)
