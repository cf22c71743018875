"""Greedy pairwise merges: privacy funnel and information bottleneck.

privacy-funnel-makhdoumi2014, sec. IV: start from ``Y = X`` and merge two
symbols at a time.

- ``kind="funnel"`` (Alg. 1): among the pairs whose merge keeps
  ``I(X;Y) >= R``, merge the one that lowers ``I(S;Y)`` the most.
- ``kind="bottleneck"`` (Alg. 2): among the pairs whose merge keeps
  ``I(S;Y) >= threshold``, merge the one that lowers ``I(X;Y)`` the most.
- With ``lam`` instead of a threshold, merge the pair that lowers the
  Lagrangian ``I(S;Y) - lam I(X;Y)`` the most (funnel) or raises it the most
  (bottleneck), while some merge does.

Y is a deterministic function of X, so ``I(X;Y) = H(Y)``. Prop. 1 gives the
effect of merging ``y_i`` and ``y_j`` from the two columns alone:
``Delta I(S;Y) = phi(q_i) + phi(q_j) - phi(q_i + q_j)`` with
``phi(q) = sum_s q log q - p log p`` (:func:`~sklearn_privacy.information.column_potentials`)
and ``Delta I(X;Y) = (p_i + p_j) log(p_i + p_j) - p_i log p_i - p_j log p_j``.
After a merge only the pairs that involve the new symbol change: each iteration
recomputes one row of costs (``O(n |S|)``) and keeps, for every row, its best
feasible partner, so that a full merge path costs ``O(n^2 |S|)`` instead of the
``O(n^3 |S|)`` of recomputing every pair each iteration
(:func:`greedy_merge_textbook`, kept as the oracle and the benchmark baseline).

Ties are broken towards the lexicographically smallest pair ``(i, j)``,
``i < j``, of current symbols; a merged symbol keeps the index of its smaller
member, so the symbols' order is stable.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

from sklearn_privacy.information import column_potentials, entropy, mutual_information

__all__ = ["MergePath", "greedy_merge", "greedy_merge_textbook", "greedy_sweep"]

# Slack on feasibility and on "the Lagrangian decreases": merges within rounding
# error of the constraint count as feasible, merges that gain less do not happen.
_TOL = 1e-12
# Rows per block when the initial cost matrix is computed (memory bound).
_BLOCK_ELEMENTS = 1 << 21
# Slots are compacted when half of them are merged away, above this size.
_COMPACT_MIN = 64
# Added inside logarithms so that 0 log 0 = 0 without xlogy's overhead.
_TINY = 1e-300


@dataclass
class MergePath:
    """The merges of a greedy run and the information after each of them.

    Attributes
    ----------
    merges : ndarray of shape (n_merges, 2)
        ``(i, j)``: symbol ``j`` merged into ``i`` (indices of the original
        alphabet; a merged symbol keeps the index of its smallest member).
    leakage : ndarray of shape (n_merges + 1,)
        ``I(S;Y)`` before the first merge and after each merge, in nats.
    disclosure : ndarray of shape (n_merges + 1,)
        ``I(X;Y) = H(Y)`` likewise.
    labels : ndarray of shape (n_symbols,)
        Final cluster of each original symbol, ``0 .. n_clusters - 1`` in
        order of their smallest member.
    """

    merges: np.ndarray
    leakage: np.ndarray
    disclosure: np.ndarray
    labels: np.ndarray

    @property
    def n_clusters(self):
        """Number of symbols left."""
        return int(self.labels.max()) + 1


def _check_joint(joint):
    joint = np.asarray(joint, dtype=float)
    if joint.ndim != 2 or joint.shape[0] < 1 or joint.shape[1] < 1:
        raise ValueError(f"joint must be a non-empty 2-D array, got shape {joint.shape}.")
    if not np.all(np.isfinite(joint)) or np.any(joint < 0):
        raise ValueError("joint must hold finite non-negative probabilities.")
    total = joint.sum()
    if abs(total - 1.0) > 1e-8:
        raise ValueError(f"joint must sum to 1, it sums to {total:.12g}.")
    return joint


def _check_mode(kind, threshold, lam):
    if kind not in ("funnel", "bottleneck"):
        raise ValueError(f"kind must be 'funnel' or 'bottleneck', got {kind!r}.")
    if (threshold is None) == (lam is None):
        raise ValueError("give exactly one of threshold and lam.")
    if lam is not None and not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}.")


class _MergeState:
    """Current alphabet, its pair costs and the best feasible partner of each row."""

    def __init__(self, joint, kind, lam):
        self.kind, self.lam = kind, lam
        # Row y of Qe: the column P(S, y) followed by p(y).
        self.Qe = np.column_stack([joint.T, joint.sum(axis=0)])
        self.n = self.n_symbols = n = self.Qe.shape[0]
        self._weights = np.r_[np.ones(joint.shape[0]), -1.0]
        self.phi = column_potentials(joint)
        self.h = xlogy(self.p, self.p)
        self.active = np.ones(n, dtype=bool)
        self.inactive = np.zeros(n, dtype=bool)
        self.leakage = [mutual_information(joint)]
        self.disclosure = [entropy(self.p)]
        self.merges = []
        # G: what the greedy maximises; C: what the threshold bounds (None for lam).
        self.G = np.empty((n, n))
        self.C = None if lam is not None else np.empty((n, n))
        self.ids = np.arange(n)  # original index of each slot (slots get compacted)
        rows = max(1, _BLOCK_ELEMENTS // max(1, n * self.Qe.shape[1]))
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            # Upper triangle only; the matrices are symmetric.
            ds, dx = self._costs(np.arange(start, stop), slice(start, n))
            g, c = self._gain(ds, dx)
            self.G[start:stop, start:] = g
            self.G[start:, start:stop] = g.T
            if c is not None:
                self.C[start:stop, start:] = c
                self.C[start:, start:stop] = c.T
        idx = np.arange(n)
        self.G[idx, idx] = -np.inf
        if self.C is not None:
            self.C[idx, idx] = np.inf

    @property
    def p(self):
        """Probability of each slot (a view)."""
        return self.Qe[:, -1]

    def _costs(self, rows, cols):
        """Prop. 1 costs of merging each of ``rows`` with each of ``cols``: (dS, dX)."""
        merged = self.Qe[rows, None, :] + self.Qe[None, cols, :]
        logs = np.log(merged + _TINY)
        h_m = merged[..., -1] * logs[..., -1]
        phi_m = (merged * logs) @ self._weights
        ds = np.maximum(self.phi[rows, None] + self.phi[None, cols] - phi_m, 0.0)
        dx = np.maximum(h_m - self.h[rows, None] - self.h[None, cols], 0.0)
        return ds, dx

    def _gain(self, ds, dx):
        if self.lam is None:
            return (ds, dx) if self.kind == "funnel" else (dx, ds)
        if self.kind == "funnel":
            return ds - self.lam * dx, None
        return self.lam * dx - ds, None

    def budget(self, threshold):
        """Largest constrained cost a merge may have (threshold mode)."""
        current = self.disclosure[-1] if self.kind == "funnel" else self.leakage[-1]
        return current - threshold + _TOL

    def merge(self, i, j):
        """Merge symbol ``j`` into ``i`` (``i < j``); update row/column i of the costs.

        Returns the new gain row of ``i`` and its constraint row (or None).
        """
        Qe = self.Qe
        q_i = Qe[i] + Qe[j]
        # Row i against every slot (Prop. 1); slot i is zeroed first so that
        # entry i of the merged rows is the merged symbol itself. The last
        # column of Qe is p, weighted -1: phi(q) = sum_s q log q - p log p.
        Qe[i] = 0.0
        merged = Qe + q_i
        logs = np.log(merged + _TINY)
        phi_m = (merged * logs) @ self._weights
        h_m = merged[:, -1] * logs[:, -1]
        phi, h = self.phi, self.h
        phi_i, h_i = phi_m[i], h_m[i]
        ds = max(float(phi[i] + phi[j] - phi_i), 0.0)
        dx = max(float(h_i - h[i] - h[j]), 0.0)
        self.leakage.append(max(self.leakage[-1] - ds, 0.0))
        self.disclosure.append(max(self.disclosure[-1] - dx, 0.0))
        self.merges.append((int(self.ids[i]), int(self.ids[j])))
        Qe[i] = q_i
        phi[i], h[i] = phi_i, h_i
        self.active[j] = False
        self.inactive[j] = True
        phi_m -= phi_i
        phi_m -= phi
        h_m -= h_i
        h_m -= h
        g, c = self._gain(np.negative(phi_m, out=phi_m), h_m)
        g[self.inactive] = -np.inf
        g[i] = -np.inf
        G = self.G
        G[i] = g
        G[:, i] = g
        G[j] = -np.inf
        G[:, j] = -np.inf
        if c is not None:
            c[self.inactive] = np.inf
            c[i] = np.inf
            C = self.C
            C[i] = c
            C[:, i] = c
            C[j] = np.inf
            C[:, j] = np.inf
        return g, c

    def compact(self):
        """Drop merged-away slots; returns the kept slot indices (in order)."""
        keep = np.flatnonzero(self.active)
        remap = np.zeros(self.n, dtype=np.int64)
        remap[keep] = np.arange(keep.size)
        self.Qe = self.Qe[keep]
        self.phi, self.h, self.ids = self.phi[keep], self.h[keep], self.ids[keep]
        self.G = self.G[np.ix_(keep, keep)]
        if self.C is not None:
            self.C = self.C[np.ix_(keep, keep)]
        self.active = np.ones(keep.size, dtype=bool)
        self.inactive = np.zeros(keep.size, dtype=bool)
        self.n = keep.size
        return keep, remap

    def copy(self):
        new = object.__new__(_MergeState)
        for key, value in self.__dict__.items():
            new.__dict__[key] = value.copy() if hasattr(value, "copy") else value
        return new

    def best_pairs(self, budgets):
        """Best feasible pair for each budget (None when none), by one sort of all pairs."""
        act = np.flatnonzero(self.active)
        if act.size < 2:
            return [None] * len(budgets)
        iu, ju = np.triu_indices(act.size, 1)
        g = self.G[act[iu], act[ju]]
        order = np.argsort(-g, kind="stable")
        if self.C is None:
            best = order[0]
            ok = g[best] > _TOL
            return [(int(act[iu[best]]), int(act[ju[best]])) if ok else None] * len(budgets)
        c = self.C[act[iu], act[ju]][order]
        prefix_min = np.minimum.accumulate(c)
        out = []
        for b in budgets:
            k = np.searchsorted(-prefix_min, -b, side="left")
            if k >= order.size:
                out.append(None)
            else:
                best = order[k]
                out.append((int(act[iu[best]]), int(act[ju[best]])))
        return out

    def result(self):
        merges = np.asarray(self.merges, dtype=np.int64).reshape(-1, 2)
        parent = np.arange(self.n_symbols)
        parent[merges[:, 1]] = merges[:, 0]
        while True:  # pointer jumping to the root (smallest member) of each cluster
            root = parent[parent]
            if np.array_equal(root, parent):
                break
            parent = root
        labels = np.unique(parent, return_inverse=True)[1].reshape(-1)
        return MergePath(merges, np.asarray(self.leakage), np.asarray(self.disclosure), labels)


def _run(state, threshold, max_merges=None):
    """Greedy loop with per-row best partners, from ``state`` until no merge qualifies."""
    G, C, n = state.G, state.C, state.n
    constrained = C is not None
    budget = state.budget(threshold) if constrained else np.inf
    block = np.where(C <= budget, G, -np.inf) if constrained else G
    best_col = np.argmax(block, axis=1)
    best_val = block[np.arange(n), best_col]
    best_val[state.inactive] = -np.inf
    # Constraint value of each row's best pair: the row is stale once it exceeds the budget.
    best_c = None
    if constrained:  # -inf where there is no feasible pair: such rows never go stale
        best_c = np.where(best_val > -np.inf, C[np.arange(n), best_col], -np.inf)
    n_merged = int(state.inactive.sum())  # merged-away slots not yet compacted
    done = 0
    while max_merges is None or done < max_merges:
        r = int(best_val.argmax())
        value = best_val[r]
        if value == -np.inf or (not constrained and value <= _TOL):
            break
        c = int(best_col[r])
        i, j = (r, c) if r < c else (c, r)
        g, c_row = state.merge(i, j)
        done += 1
        n_merged += 1
        best_val[j] = -np.inf
        if constrained:
            best_c[j] = -np.inf
        lost = best_col == j
        if n >= _COMPACT_MIN and 2 * n_merged >= n:
            keep, remap = state.compact()
            G, C, n = state.G, state.C, state.n
            best_val, best_col, lost = best_val[keep], remap[best_col[keep]], lost[keep]
            g = g[keep]
            if constrained:
                best_c, c_row = best_c[keep], c_row[keep]
            i = int(remap[i])
            n_merged = 0
        if constrained:
            budget = state.budget(threshold)
            new_val = np.where(c_row <= budget, g, -np.inf)
            # A row whose best partner left the feasible set must search again.
            lost |= best_c > budget
        else:
            new_val = g
        # A row whose best partner was i keeps it unless the merged symbol got worse.
        stale = lost | ((best_col == i) & (new_val < best_val))
        # Ties go to the smaller column, as in the textbook order.
        better = (new_val > best_val) | ((new_val == best_val) & (best_col > i))
        np.copyto(best_val, new_val, where=better)
        np.copyto(best_col, i, where=better)
        if constrained:
            np.copyto(best_c, c_row, where=better)
        stale[i] = True
        rows = np.flatnonzero(stale)
        block = G[rows]
        k = block.argmax(axis=1)
        if constrained:
            ck = C[rows, k]
            bad = ck > budget
            if bad.any():
                # Only rows whose unconstrained best is infeasible need the masked search.
                masked = np.where(C[rows[bad]] <= budget, block[bad], -np.inf)
                k[bad] = masked.argmax(axis=1)
                block[bad] = masked
                ck = C[rows, k]
        best_col[rows] = k
        vals = block[np.arange(rows.size), k]
        best_val[rows] = vals
        if constrained:
            best_c[rows] = np.where(vals > -np.inf, ck, -np.inf)
    return state


def _resolve_threshold(state, kind, threshold):
    if threshold is None:
        return None
    top = state.disclosure[0] if kind == "funnel" else state.leakage[0]
    if not (0.0 <= threshold <= top + _TOL):
        name = "H(X)" if kind == "funnel" else "I(S;X)"
        raise ValueError(
            f"threshold must lie in [0, {name}] = [0, {top:.6g}] nats, got {threshold!r}."
        )
    return float(threshold)


def greedy_merge(joint, *, kind="funnel", threshold=None, lam=None, max_merges=None):
    """Greedy privacy funnel (Alg. 1) or bottleneck (Alg. 2) with incremental Prop. 1 costs.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
        Joint pmf ``P(S, X)``.
    kind : {"funnel", "bottleneck"}, default="funnel"
        Alg. 1 (keep ``I(X;Y) >= threshold``, minimise ``I(S;Y)``) or Alg. 2
        (keep ``I(S;Y) >= threshold``, minimise ``I(X;Y)``).
    threshold : float, default=None
        The disclosure threshold R of Alg. 1 (in ``[0, H(X)]``) or the
        leakage threshold of Alg. 2 (in ``[0, I(S;X)]``), in nats.
    lam : float, default=None
        Use the Lagrangian ``I(S;Y) - lam I(X;Y)`` instead of a threshold.
    max_merges : int, default=None
        Stop after this many merges.

    Returns
    -------
    MergePath

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete._greedy import greedy_merge
    >>> joint = np.array([[0.3, 0.1, 0.05], [0.05, 0.2, 0.3]])
    >>> path = greedy_merge(joint, threshold=0.0)
    >>> path.merges.tolist(), path.n_clusters
    ([[0, 2], [0, 1]], 1)
    """
    joint = _check_joint(joint)
    _check_mode(kind, threshold, lam)
    state = _MergeState(joint, kind, lam)
    threshold = _resolve_threshold(state, kind, threshold)
    return _run(state, threshold, max_merges).result()


def greedy_sweep(joint, thresholds, *, kind="funnel"):
    """:func:`greedy_merge` for many thresholds, sharing the merges they have in common.

    Runs that make the same choices share one state; at the first step where
    the best feasible pairs differ, the state is copied for each distinct
    choice. The result equals running :func:`greedy_merge` per threshold.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
    thresholds : array-like of float
        Thresholds in nats (see :func:`greedy_merge`).
    kind : {"funnel", "bottleneck"}, default="funnel"

    Returns
    -------
    list of MergePath
        One per threshold, in the order given.
    """
    joint = _check_joint(joint)
    _check_mode(kind, 0.0, None)
    thresholds = [float(t) for t in np.atleast_1d(thresholds)]
    root = _MergeState(joint, kind, None)
    for t in thresholds:
        _resolve_threshold(root, kind, t)
    results = [None] * len(thresholds)
    stack = [(root, list(range(len(thresholds))))]
    while stack:
        state, group = stack.pop()
        while True:
            if len(group) == 1:
                results[group[0]] = _run(state, thresholds[group[0]]).result()
                break
            choices = state.best_pairs([state.budget(thresholds[g]) for g in group])
            by_choice = {}
            for g, choice in zip(group, choices):
                by_choice.setdefault(choice, []).append(g)
            finished = by_choice.pop(None, [])
            if finished:
                path = state.result()
                for g in finished:
                    results[g] = path
            if not by_choice:
                break
            items = list(by_choice.items())
            for choice, sub in items[1:]:
                fork = state.copy()
                fork.merge(*choice)
                stack.append((fork, sub))
            choice, group = items[0]
            state.merge(*choice)
    return results


def greedy_merge_textbook(joint, *, kind="funnel", threshold=None, lam=None, exact=True):
    """Reference greedy that re-evaluates every candidate pair from scratch each iteration.

    The oracle for :func:`greedy_merge` and the baseline of the speed
    benchmark; ``O(n^3)`` pair evaluations in all.

    Parameters
    ----------
    joint, kind, threshold, lam
        As in :func:`greedy_merge`.
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
    joint = _check_joint(joint)
    _check_mode(kind, threshold, lam)
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
        top = i_x if kind == "funnel" else i_s
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
            gain = d_s - lam * d_x if kind == "funnel" else lam * d_x - d_s
            feasible = gain > _TOL
        elif kind == "funnel":
            gain, feasible = d_s, i_x - d_x >= threshold - _TOL
        else:
            gain, feasible = d_x, i_s - d_s >= threshold - _TOL
        if not np.any(feasible):
            break
        k = int(np.argmax(np.where(feasible, gain, -np.inf)))
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
