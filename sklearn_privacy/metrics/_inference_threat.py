"""Inference threat of an adversary of bounded cost (privacy-funnel-makhdoumi2014, Thm. 1)."""

import numpy as np

from sklearn_privacy.utils import NONNEGATIVE
from sklearn_privacy.utils._sklearn_compat import validate_params

__all__ = ["inference_threat_bound", "map_cost_gain"]


@validate_params(
    {
        "leakage": ["array-like", NONNEGATIVE],
        "cost_bound": [NONNEGATIVE],
    },
    prefer_skip_nested_validation=True,
)
def inference_threat_bound(leakage, *, cost_bound=1.0):
    r"""Largest cost gain of an adversary with a cost bounded by L (Thm. 1).

    An adversary who picks a belief :math:`q` on S to minimise an expected cost
    :math:`C(S, q)` with :math:`|C| \le L` gains, by observing Y,
    :math:`\Delta C = c_0^* - \mathbb{E}_Y[c_Y^*] \le 2 \sqrt{2}\, L \sqrt{I(S;Y)}`:
    Lemma 2 bounds the gain at each y by :math:`4 L\, \mathrm{TV}(P_{S|y}, P_S)`, Pinsker
    turns it into :math:`2 \sqrt{2} L \sqrt{D(P_{S|y} \Vert P_S)}`, and Jensen averages it.

    Parameters
    ----------
    leakage : float or array-like of float
        :math:`I(S; Y)` in nats (e.g. a mechanism's ``leakage_``), non-negative.
    cost_bound : float, default=1.0
        :math:`L = \sup_{s, q} |C(s, q)|`; ``1`` for the 0-1 loss of a MAP guess.

    Returns
    -------
    float or ndarray
        :math:`2 \sqrt{2}\, L \sqrt{I(S; Y)}`.

    See Also
    --------
    map_cost_gain : Exact cost gain of the MAP adversary.
    sklearn_privacy.information.mutual_information : The leakage :math:`I(S; Y)` of a joint pmf.
    leakage_score : The leakage :math:`I(S; Y)` estimated from samples.

    Examples
    --------
    >>> from sklearn_privacy.metrics import inference_threat_bound
    >>> round(inference_threat_bound(0.01), 6)
    0.282843
    """
    value = np.asarray(leakage, dtype=float)
    if np.any(value < 0) or not np.all(np.isfinite(value)):
        raise ValueError("leakage must hold finite non-negative values (nats).")
    bound = 2.0 * np.sqrt(2.0) * cost_bound * np.sqrt(value)
    return float(bound) if bound.ndim == 0 else bound


@validate_params({"joint": ["array-like"]}, prefer_skip_nested_validation=True)
def map_cost_gain(joint):
    r"""Exact cost gain of the MAP adversary under the 0-1 loss (:math:`L = 1`).

    Without Y the best guess of S is wrong with probability :math:`1 - \max_s p(s)`;
    after Y it is :math:`1 - \sum_y \max_s p(s, y)`.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        Joint pmf :math:`P(S, Y)`.

    Returns
    -------
    float
        :math:`\sum_y \max_s p(s, y) - \max_s p(s)`, in :math:`[0, 1]`.

    See Also
    --------
    inference_threat_bound : Bound on the cost gain of any bounded-cost adversary.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import map_cost_gain
    >>> map_cost_gain(np.eye(2) / 2)
    0.5
    """
    joint = np.asarray(joint, dtype=float)
    if joint.ndim != 2 or np.any(joint < 0) or abs(joint.sum() - 1) > 1e-8:
        raise ValueError("joint must be a 2-D pmf P(S, Y) (non-negative, summing to 1).")
    return float(max(joint.max(axis=0).sum() - joint.sum(axis=1).max(), 0.0))
