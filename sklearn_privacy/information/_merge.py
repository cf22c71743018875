"""Merge costs of agglomerative funnels (privacy-funnel-makhdoumi2014, Prop. 1)."""

import numpy as np
from scipy.special import xlogy


def column_potentials(joint):
    r""":math:`\phi` of every column of ``joint[s, y]``: :math:`\sum_s q_s \log q_s - p \log p`.

    Parameters
    ----------
    joint : ndarray of shape (n_s, n_y)
        Joint pmf :math:`P(S, Y)`, one column :math:`q` per output symbol.

    Returns
    -------
    ndarray of shape (n_y,)
        :math:`\phi(q) = \sum_s q_s \log q_s - p \log p` of each column, with
        :math:`p = \sum_s q_s`; :math:`-p\, H(S \mid y)`, so never positive.

    See Also
    --------
    merge_costs : Merge costs written with these potentials.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import column_potentials
    >>> joint = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> column_potentials(joint).round(4)
    array([-0.2249, -0.1386, -0.2249])
    >>> # phi of the middle column: -0.2 * H(S | y) = -0.2 * log 2
    >>> print(round(-0.2 * np.log(2), 4))
    -0.1386
    """
    joint = np.asarray(joint, dtype=float)
    return xlogy(joint, joint).sum(axis=0) - xlogy(joint.sum(axis=0), joint.sum(axis=0))


def merge_costs(joint, i, others=None, potentials=None):
    r"""Decrease of :math:`I(S; Y)` when column ``i`` of ``joint`` merges with each of ``others``.

    The decrease is :math:`(p_i + p_j)\, \mathrm{JS}_{\pi}(P_{S|y_i}, P_{S|y_j})` with
    :math:`\pi = p_i / (p_i + p_j)` (Prop. 1), written as
    :math:`\phi(q_i) + \phi(q_j) - \phi(q_i + q_j)` with the potentials of
    :func:`column_potentials`: only the two merged columns enter, so after a merge only the
    costs of pairs with the new symbol change.

    Parameters
    ----------
    joint : ndarray of shape (n_s, n_y)
        Joint pmf :math:`P(S, Y)` (unnormalised counts also work: the cost scales).
    i : int
        The column to merge.
    others : array-like of int, default=None
        Columns to pair with ``i``; all columns by default (the cost of ``i``
        with itself is then meaningless and set to 0).
    potentials : ndarray of shape (n_y,), default=None
        Precomputed :func:`column_potentials`, to save work in loops.

    Returns
    -------
    ndarray
        Non-negative costs, one per column of ``others``.

    See Also
    --------
    merge_cost : Cost of merging one pair of columns.
    pairwise_merge_costs : Costs of every pair of columns.
    column_potentials : The :math:`\phi` terms the costs are made of.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import merge_costs
    >>> joint = np.array([[0.25, 0.0], [0.0, 0.75]])
    >>> entropy = -0.25 * np.log(0.25) - 0.75 * np.log(0.75)
    >>> bool(np.isclose(merge_costs(joint, 0, [1])[0], entropy))
    True
    """
    joint = np.asarray(joint, dtype=float)
    if others is None:
        others = np.arange(joint.shape[1])
    others = np.asarray(others, dtype=int)
    if potentials is None:
        phi_i = column_potentials(joint[:, [i]])[0]
        phi_o = column_potentials(joint[:, others])
    else:
        phi_i, phi_o = potentials[i], potentials[others]
    merged = joint[:, others] + joint[:, [i]]
    cost = phi_i + phi_o - column_potentials(merged)
    cost = np.maximum(cost, 0.0)
    cost[others == i] = 0.0
    return cost


def merge_cost(joint, i, j):
    r"""Decrease of :math:`I(S; Y)` when columns ``i`` and ``j`` of ``joint[s, y]`` merge.

    Parameters
    ----------
    joint : ndarray of shape (n_s, n_y)
        Joint pmf :math:`P(S, Y)` (unnormalised counts also work: the cost scales).
    i, j : int
        The two columns to merge.

    Returns
    -------
    float
        Non-negative cost :math:`\phi(q_i) + \phi(q_j) - \phi(q_i + q_j)`; 0 when
        ``i == j``.

    See Also
    --------
    merge_costs : Costs of merging one column with many others.
    pairwise_merge_costs : Costs of every pair of columns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import merge_cost, mutual_information
    >>> joint = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> round(merge_cost(joint, 0, 1), 4)
    0.0183
    >>> merged = np.column_stack([joint[:, 0] + joint[:, 1], joint[:, 2]])
    >>> round(mutual_information(joint) - mutual_information(merged), 4)
    0.0183
    """
    return float(merge_costs(joint, i, [j])[0])


def pairwise_merge_costs(joint):
    """Matrix of :func:`merge_cost` for every pair of columns (zero diagonal).

    Memory stays :math:`O(n_s n_y)` per row of the result.

    Parameters
    ----------
    joint : ndarray of shape (n_s, n_y)
        Joint pmf :math:`P(S, Y)` (unnormalised counts also work: the cost scales).

    Returns
    -------
    ndarray of shape (n_y, n_y)
        Symmetric matrix whose entry ``[i, j]`` is ``merge_cost(joint, i, j)``.

    See Also
    --------
    merge_cost : Cost of merging one pair of columns.
    merge_costs : Costs of merging one column with many others.
    sklearn_privacy.discrete.greedy_merge : Greedy funnel that picks merges by these costs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import pairwise_merge_costs
    >>> joint = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> pairwise_merge_costs(joint).round(4)
    array([[0.    , 0.0183, 0.1046],
           [0.0183, 0.    , 0.0183],
           [0.1046, 0.0183, 0.    ]])
    """
    joint = np.asarray(joint, dtype=float)
    potentials = column_potentials(joint)
    n_y = joint.shape[1]
    costs = np.empty((n_y, n_y))
    for i in range(n_y):
        costs[i] = merge_costs(joint, i, potentials=potentials)
    return costs
