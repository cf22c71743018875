"""Built-in distortion matrices ``d(y, u)`` between categorical records."""

import numpy as np

from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

__all__ = ["DISTORTIONS", "distortion_matrix"]

# The distortions of categorical records (every column averaged), and all kinds.
DISTORTIONS = ("hamming", "absolute", "squared")
_KINDS = (*DISTORTIONS, "sqeuclidean")


def _ordinal_codes(column_y, column_u):
    """Positions of both columns' values in their sorted union."""
    try:
        values = np.unique(np.concatenate([column_y, column_u]))
        return np.searchsorted(values, column_y), np.searchsorted(values, column_u)
    except TypeError as exc:
        raise TypeError(
            f"ordinal distortions need values that can be ordered, got mixed types ({exc})."
        ) from None


@validate_params(
    {
        "records_y": ["array-like"],
        "records_u": ["array-like", None],
        "kind": [StrOptions(set(_KINDS))],
    },
    prefer_skip_nested_validation=True,
)
def distortion_matrix(records_y, records_u=None, *, kind="hamming"):
    r"""Distortion :math:`d(y, u)` between every input record and every output record.

    Parameters
    ----------
    records_y : array-like of shape (n_y, n_columns) or (n_y,)
        The input alphabet, one record per row.
    records_u : array-like of shape (n_u, n_columns) or (n_u,), default=None
        The output alphabet; ``records_y`` by default.
    kind : {"hamming", "absolute", "squared", "sqeuclidean"}, default="hamming"
        Per-column distortion, averaged over the columns, except
        ``"sqeuclidean"``:

        - ``"hamming"``: 1 when the values differ, 0 otherwise;
        - ``"absolute"``: :math:`|i - j|` of the ordinal codes :math:`i, j` of the values;
        - ``"squared"``: :math:`(i - j)^2` of the ordinal codes;
        - ``"sqeuclidean"``: :math:`\sum_k (y_k - u_k)^2` of the values as
          numbers, summed (not averaged) over the columns.

    Returns
    -------
    ndarray of shape (n_y, n_u)

    See Also
    --------
    sklearn_privacy.discrete.min_achievable_distortion : Least budget a mapping can meet
        under this matrix.
    sklearn_privacy.discrete.min_average_leakage_mapping : Mapping of least leakage
        under a budget on this distortion.

    Examples
    --------
    >>> from sklearn_privacy.utils._distortion import distortion_matrix
    >>> distortion_matrix([0, 1, 2], kind="squared")
    array([[0., 1., 4.],
           [1., 0., 1.],
           [4., 1., 0.]])
    >>> distortion_matrix([["a", "x"], ["b", "x"]], kind="hamming")
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    Y = np.asarray(records_y)
    U = Y if records_u is None else np.asarray(records_u)
    Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
    U = U.reshape(-1, 1) if U.ndim == 1 else U
    if Y.ndim != 2 or U.ndim != 2 or Y.shape[1] != U.shape[1]:
        raise ValueError(
            f"records_y and records_u must have the same number of columns, got shapes "
            f"{Y.shape} and {U.shape}."
        )
    if kind == "sqeuclidean":
        try:
            Y, U = Y.astype(np.float64), U.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                "kind='sqeuclidean' reads the records as numbers; give numeric records or an "
                "ordinal kind ('absolute', 'squared')."
            ) from None
        return np.sum((Y[:, None, :] - U[None, :, :]) ** 2, axis=2)
    out = np.zeros((Y.shape[0], U.shape[0]))
    for k in range(Y.shape[1]):
        if kind == "hamming":
            out += Y[:, k][:, None] != U[:, k][None, :]
            continue
        cy, cu = _ordinal_codes(Y[:, k], U[:, k])
        diff = np.abs(cy[:, None] - cu[None, :]).astype(float)
        out += diff if kind == "absolute" else diff**2
    return out / Y.shape[1]
