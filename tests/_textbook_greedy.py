"""The textbook greedy privacy funnel: the oracle of the fast greedy and its speed baseline.

Every iteration re-evaluates every candidate pair from scratch (Alg. 1 and 2 of
privacy-funnel-makhdoumi2014 read literally), so it shares nothing with the
incremental bookkeeping of :mod:`sklearn_privacy.discrete._greedy` except the
choice rule. It lives outside the installed package, beside the tests that import it
(``tests`` is on pytest's ``pythonpath``); ``benchmarks/bench_funnel_speed.py`` loads
this file by its path to time it.
"""

import numpy as np
from scipy.special import xlogy

from sklearn_privacy.discrete import MergePath
from sklearn_privacy.discrete._greedy import _TIE
from sklearn_privacy.information import column_potentials, entropy, mutual_information

__all__ = ["greedy_merge_stored", "greedy_merge_textbook"]

# The fast greedy's slack (sklearn_privacy.discrete._greedy._TOL): merges within
# rounding of the constraint are feasible, Lagrangian gains below it are not gains.
_TOL = 1e-12
# The shared tie rule (sklearn_privacy.discrete._greedy._TIE): gains within _TIE
# nats of the best feasible gain are tied; the lexicographically first is merged.
# Imported, not copied: it is part of the choice rule that both must follow.


def greedy_merge_textbook(joint, *, objective="funnel", threshold=None, lam=None, exact=True):
    """Reference greedy that re-evaluates every candidate pair from scratch each iteration.

    The oracle for :func:`~sklearn_privacy.discrete._greedy.greedy_merge` and
    the baseline of the speed benchmark; ``O(n^3)`` pair evaluations in all.
    Same choices as the fast greedy: the best candidate, ties (gains within
    ``_TIE`` nats of the best) to the lexicographically smallest pair of
    current symbols, the merged symbol keeping its smaller member's index.

    Parameters
    ----------
    joint, objective, threshold, lam
        As in :func:`~sklearn_privacy.discrete._greedy.greedy_merge`.
    log : callable, default=None
        The logarithm of every cost, potential and ``x log x`` (``_fdlibm_reference.fdlibm_log`` for
        the compiled kernels' states). None: numpy's, with the potentials of the
        single columns from :func:`~sklearn_privacy.information.column_potentials`,
        as the numpy states do.
    exact : bool, default=True
        ``True``: build the merged joint of every candidate and compute
        ``I(S;Y')`` and ``I(X;Y')`` with
        :func:`~sklearn_privacy.information.mutual_information` (independent of
        Prop. 1; small alphabets only). ``False``: Prop. 1 costs of all pairs
        recomputed in one vectorised pass per iteration, without reusing the
        previous iteration's costs.

    Returns
    -------
    MergePath
    """
    joint = np.asarray(joint, dtype=float)
    if objective not in ("funnel", "bottleneck"):
        raise ValueError(f"objective must be 'funnel' or 'bottleneck', got {objective!r}.")
    if (threshold is None) == (lam is None):
        raise ValueError("give exactly one of threshold and lam.")
    n = joint.shape[1]
    columns = [joint[:, [x]] for x in range(n)]  # current symbols, in index order
    names = list(range(n))
    assign = np.arange(n)
    p_x = joint.sum(axis=0)

    def informations(cols, members):
        y_joint = np.hstack(cols)
        xy = np.zeros((n, len(cols)))
        for k, m in enumerate(members):
            xy[m, k] = p_x[m]
        return mutual_information(y_joint), mutual_information(xy)

    members = [[x] for x in range(n)]
    i_s, i_x = informations(columns, members)
    leakage, disclosure, merges = [i_s], [i_x], []
    if threshold is not None:
        top = i_x if objective == "funnel" else i_s
        if not (0.0 <= threshold <= top + _TOL):
            raise ValueError(f"threshold must lie in [0, {top:.6g}] nats, got {threshold!r}.")
    while len(columns) > 1:
        m = len(columns)
        pairs = [(a, b) for a in range(m) for b in range(a + 1, m)]
        if exact:
            after = []
            for a, b in pairs:
                cols = (
                    columns[:a] + [columns[a] + columns[b]] + columns[a + 1 : b] + columns[b + 1 :]
                )
                mem = (
                    members[:a] + [members[a] + members[b]] + members[a + 1 : b] + members[b + 1 :]
                )
                after.append(informations(cols, mem))
            after = np.asarray(after)
            d_s, d_x = i_s - after[:, 0], i_x - after[:, 1]
        else:
            q = np.hstack(columns)
            a_idx, b_idx = np.triu_indices(m, 1)
            merged = q[:, a_idx] + q[:, b_idx]
            phi = column_potentials(q)
            d_s = phi[a_idx] + phi[b_idx] - column_potentials(merged)
            p = q.sum(axis=0)
            p_m = p[a_idx] + p[b_idx]
            d_x = xlogy(p_m, p_m) - xlogy(p[a_idx], p[a_idx]) - xlogy(p[b_idx], p[b_idx])
        if lam is not None:
            gain = d_s - lam * d_x if objective == "funnel" else lam * d_x - d_s
            feasible = gain > _TOL
        elif objective == "funnel":
            gain, feasible = d_s, i_x - d_x >= threshold - _TOL
        else:
            gain, feasible = d_x, i_s - d_s >= threshold - _TOL
        if not np.any(feasible):
            break
        best = np.max(np.where(feasible, gain, -np.inf))
        k = int(np.flatnonzero(feasible & (gain >= best - _TIE))[0])
        a, b = pairs[k]
        i_s, i_x = after[k] if exact else (i_s - d_s[k], i_x - d_x[k])
        leakage.append(i_s)
        disclosure.append(i_x)
        merges.append((names[a], names[b]))
        assign[assign == names[b]] = names[a]
        columns[a] = columns[a] + columns[b]
        members[a] = members[a] + members[b]
        del columns[b], members[b], names[b]
    labels = np.unique(assign, return_inverse=True)[1].reshape(-1)
    return MergePath(
        np.asarray(merges, dtype=np.int64).reshape(-1, 2),
        np.asarray(leakage),
        np.asarray(disclosure),
        labels,
    )


def _potentials_stored(merged, log=np.log):
    """``phi`` and ``p log p`` of merged ``[P(S, y), p(y)]`` columns, in the stored greedy's order.

    The sum over S runs in order of ``s`` (C-ordered buffers, as the fast greedy keeps them).
    """
    logs = np.ascontiguousarray(merged * log(merged + 1e-300))
    return np.add.reduce(logs[:-1], axis=0) - logs[-1], logs[-1]


def greedy_merge_stored(joint, *, objective="funnel", threshold=None, lam=None, log=None):
    """Reference greedy with the stored-cost arithmetic of the incremental greedy.

    Keeps the full ``n x n`` matrix of Prop. 1 costs, computed and updated by the
    operations of the incremental greedy (initial pairs as
    ``max((phi_a + phi_b) - phi_ab, 0)``, the merged symbol's row and column as
    ``(phi_i - phi_ic) + phi_c``, the disclosure as ``xlogx(p_a + p_b) - (h_a +
    h_b)``), and before every merge brute-forces the choice over all live pairs
    by the tie rule. So its path (merges, and leakage and disclosure to the
    bit) is the fast greedy's, reached without any of its bookkeeping
    (triangle, row bounds, compaction); ``O(n^2)`` per merge, small alphabets
    only. The paths of the greedy as it summed over S before issue 38 (pairwise
    on Fortran-ordered buffers) are kept in ``tests/discrete/data``.

    Parameters
    ----------
    joint, objective, threshold, lam
        As in :func:`~sklearn_privacy.discrete._greedy.greedy_merge`.
    log : callable, default=None
        The logarithm of every cost, potential and ``x log x`` (``_fdlibm_reference.fdlibm_log`` for
        the compiled kernels' states). None: numpy's, with the potentials of the
        single columns from :func:`~sklearn_privacy.information.column_potentials`,
        as the numpy states do.

    Returns
    -------
    MergePath
    """
    joint = np.asarray(joint, dtype=float)
    Q = np.vstack([joint, joint.sum(axis=0)])
    n = Q.shape[1]
    p = Q[-1]
    if log is None:
        log, phi, h = np.log, column_potentials(joint), p * np.log(p + 1e-300)
    else:
        phi, h = _potentials_stored(Q, log)

    def gain(ds, dx):
        if objective == "funnel":
            return np.multiply(dx, -lam) + ds
        return np.multiply(dx, lam) - ds

    Qc = np.ascontiguousarray(Q)
    phi_m, h_m = _potentials_stored(Qc[:, :, None] + Qc[:, None, :], log)
    D = np.maximum(phi[:, None] + phi[None, :] - phi_m, 0.0)
    if lam is not None:
        D = gain(D, h_m - (h[:, None] + h[None, :]))
    # The matrix is symmetric to the bit: the upper triangle is the one computed.
    D = np.triu(D, 1)
    D = D + D.T
    alive = np.ones(n, dtype=bool)
    leakage = [mutual_information(joint)]
    disclosure = [entropy(p)]
    merges = []
    labels = np.arange(n)
    top = disclosure[0] if objective == "funnel" else leakage[0]
    if threshold is not None and not (0.0 <= threshold <= top + _TOL):
        raise ValueError(f"threshold must lie in [0, {top:.6g}] nats, got {threshold!r}.")
    while alive.sum() > 1:
        live = np.flatnonzero(alive)
        a, b = np.triu_indices(live.size, 1)
        a, b = live[a], live[b]
        stored = D[a, b]
        dx = (p[a] + p[b]) * log(p[a] + p[b] + 1e-300) - (h[a] + h[b])
        if lam is not None:
            g, ok = stored, stored > _TOL
        elif objective == "funnel":
            budget = disclosure[-1] - threshold + _TOL
            g, ok = stored, dx <= budget
        else:
            budget = leakage[-1] - threshold + _TOL
            g, ok = dx, stored <= budget
        if not ok.any():
            break
        best = g[ok].max()
        k = int(np.flatnonzero(ok & (g >= best - _TIE))[0])
        i, j = int(a[k]), int(b[k])
        q_i = Q[:, i] + Q[:, j]
        Q[:, i] = 0.0
        phi_m, h_m = _potentials_stored(Q + q_i[:, None], log)
        phi_i, h_i = float(phi_m[i]), float(h_m[i])
        leakage.append(max(leakage[-1] - max(float(phi[i] + phi[j] - phi_i), 0.0), 0.0))
        disclosure.append(max(disclosure[-1] - max(float(h_i - h[i] - h[j]), 0.0), 0.0))
        merges.append((i, j))
        labels[labels == j] = i
        Q[:, i] = q_i
        phi[i], h[i] = phi_i, h_i
        alive[j] = False
        row = (phi_i - phi_m) + phi
        if lam is not None:
            row = gain(row, h_m - (h + h_i))
        D[i, :] = D[:, i] = row
    return MergePath(
        np.asarray(merges, dtype=np.int64).reshape(-1, 2),
        np.asarray(leakage),
        np.asarray(disclosure),
        np.unique(labels, return_inverse=True)[1].reshape(-1),
    )
