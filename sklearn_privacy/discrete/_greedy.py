"""Greedy pairwise merges: privacy funnel and information bottleneck.

privacy-funnel-makhdoumi2014, sec. IV: start from ``Y = X`` and merge two
symbols at a time.

- ``objective="funnel"`` (Alg. 1): among the pairs whose merge keeps
  ``I(X;Y) >= R``, merge the one that lowers ``I(S;Y)`` the most.
- ``objective="bottleneck"`` (Alg. 2): among the pairs whose merge keeps
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
recomputes one row of costs (``O(n |S|)``) and keeps, for every row, an upper
bound on its best feasible partner (checked lazily against the threshold), so
that a full merge path costs ``O(n^2 |S|)`` instead of the ``O(n^3 |S|)`` of
recomputing every pair each iteration (``greedy_merge_textbook`` in
``benchmarks/_textbook_greedy.py``, the tests' oracle and the speed benchmark's
baseline).

Ties are broken towards the lexicographically smallest pair ``(i, j)``,
``i < j``, of current symbols; a merged symbol keeps the index of its smaller
member, so the symbols' order is stable.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

from sklearn_privacy.information import column_potentials, entropy, mutual_information
from sklearn_privacy.utils import progress

__all__ = ["MergePath", "greedy_merge", "greedy_sweep"]

# Slack on feasibility and on "the Lagrangian decreases": merges within rounding
# error of the constraint count as feasible, merges that gain less do not happen.
_TOL = 1e-12
# Elements per block when the initial cost matrix is computed: small enough for
# the temporaries to stay in cache (memory bound otherwise).
_BLOCK_ELEMENTS = 1 << 16
# Slots are compacted when this fraction of them is merged away, above
# _COMPACT_MIN slots: every merge computes logarithms for every slot.
_COMPACT_FRACTION = 0.5
_COMPACT_MIN = 64
# Added inside logarithms so that 0 log 0 = 0 without xlogy's overhead.
_TINY = 1e-300
# Best value of a row without candidates: below every gain, above the -inf of
# merged-away slots in a new gain row.
_NONE = -np.finfo(float).max


@dataclass
class MergePath:
    """The merges of a greedy run and the information after each of them.

    The ``path_`` of a fitted
    :class:`~sklearn_privacy.discrete.PrivacyFunnelTransformer`: every merge in
    the order made, and ``I(S;Y)`` and ``I(X;Y)`` of the release ``Y`` before
    the first merge and after each one, in nats, under the estimated
    ``P(S, X)``. Symbols are indices of the fitted mechanism's ``alphabet_``.

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

    See Also
    --------
    IACPath : the path of :class:`~sklearn_privacy.discrete.SubmodularFunnel`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import MergePath, PrivacyFunnelTransformer
    >>> s = np.array([0, 0, 0, 1, 1, 1, 0, 1] * 20)
    >>> x = np.array([0, 0, 1, 2, 2, 3, 4, 4] * 20)
    >>> funnel = PrivacyFunnelTransformer(threshold=0.6).fit(x[:, None], sensitive=s)
    >>> path = funnel.path_
    >>> isinstance(path, MergePath), path.merges.tolist(), path.n_clusters
    (True, [[0, 2], [1, 3]], 3)
    >>> [round(float(v), 3) for v in path.leakage]
    [0.52, 0.173, 0.0]
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


def _check_mode(objective, threshold, lam):
    if objective not in ("funnel", "bottleneck"):
        raise ValueError(f"objective must be 'funnel' or 'bottleneck', got {objective!r}.")
    if (threshold is None) == (lam is None):
        raise ValueError("give exactly one of threshold and lam.")
    if lam is not None and not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}.")


def _write_symmetric(matrix, values, start, stop):
    """Write the rows ``start:stop`` (columns ``start:``) of a symmetric matrix and their mirror.

    Only the strict upper triangle of ``values`` is used: the two orders of a
    pair round differently (``(x - a) - b`` is not ``(x - b) - a``), and the
    matrix must be exactly symmetric for the row-wise and pair-wise tie-breaks
    to agree.
    """
    width = stop - start
    square = np.triu(values[:, :width], 1)
    matrix[start:stop, start:stop] = square + square.T
    matrix[start:stop, stop:] = values[:, width:]
    matrix[stop:, start:stop] = values[:, width:].T


class _MergeState:
    """Current alphabet, its pair gains ``G`` and constrained costs ``C`` (symmetric)."""

    def __init__(self, joint, objective, lam):
        self.objective, self.lam = objective, lam
        # Column y of Q: P(S, y) followed by p(y); one row per s so that every
        # vectorised operation runs along the (long) alphabet axis.
        self.Q = np.vstack([joint, joint.sum(axis=0)])
        self.n = self.n_symbols = n = self.Q.shape[1]
        self.phi = column_potentials(joint)
        self.h = xlogy(self.p, self.p)
        self.active = np.ones(n, dtype=bool)
        # lam mode: added to every new gain row, 0 for live slots and -inf for
        # merged-away ones. Threshold mode: phi = -inf and h = +inf at merged-away
        # slots make their gains -inf without it.
        self.penalty = np.zeros(n) if lam is not None else None
        self.leakage = [mutual_information(joint)]
        self.disclosure = [entropy(self.p)]
        self.merges = []
        # G: what the greedy maximises; C: what the threshold bounds (None for lam).
        # Only the entries between live slots are kept up to date: G is -inf on
        # the diagonal and in the columns of merged-away slots, C is arbitrary
        # wherever G is -inf.
        self.G = np.empty((n, n))
        self.C = None if lam is not None else np.empty((n, n))
        self.ids = np.arange(n)  # original index of each slot (slots get compacted)
        self._initial_costs()
        self._buffers()

    @property
    def p(self):
        """Probability of each slot (a view)."""
        return self.Q[-1]

    def _buffers(self):
        self._merged = np.empty_like(self.Q)
        self._logs = np.empty_like(self.Q)
        self._phi_m = np.empty(self.n)
        self._dx = np.empty(self.n)

    def _xlogx_potentials(self, merged, logs, phi_m):
        """``phi`` and ``p log p`` of merged columns (stacked along axis 0), in place.

        ``phi(q) = sum_s q log q - p log p`` summed in the order of ``s``, so
        that equal columns get bitwise equal costs wherever they stand.
        """
        np.add(merged, _TINY, out=logs)
        np.log(logs, out=logs)
        np.multiply(merged, logs, out=logs)
        np.add.reduce(logs[:-1], axis=0, out=phi_m)
        np.subtract(phi_m, logs[-1], out=phi_m)
        return phi_m, logs[-1]

    def _initial_costs(self):
        """Prop. 1 costs of every pair, in row blocks of the upper triangle."""
        Q, phi, h, n = self.Q, self.phi, self.h, self.n
        depth = Q.shape[0]
        rows = min(n, max(1, _BLOCK_ELEMENTS // max(1, n * depth)))
        merged_buf = np.empty(rows * n * depth)
        logs_buf = np.empty_like(merged_buf)
        phi_buf = np.empty(rows * n)
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            shape = (depth, stop - start, n - start)
            size = shape[0] * shape[1] * shape[2]
            merged = merged_buf[:size].reshape(shape)
            np.add(Q[:, start:stop, None], Q[:, None, start:], out=merged)
            phi_m, h_m = self._xlogx_potentials(
                merged, logs_buf[:size].reshape(shape), phi_buf[: size // depth].reshape(shape[1:])
            )
            ds = phi[start:stop, None] + phi[None, start:] - phi_m
            np.maximum(ds, 0.0, out=ds)
            dx = h_m - h[start:stop, None] - h[None, start:]
            np.maximum(dx, 0.0, out=dx)
            for matrix, values in zip((self.G, self.C), self._gain(ds, dx)):
                if values is not None:
                    _write_symmetric(matrix, values, start, stop)
        np.fill_diagonal(self.G, -np.inf)

    def _gain(self, ds, dx):
        if self.lam is None:
            return (ds, dx) if self.objective == "funnel" else (dx, ds)
        if self.objective == "funnel":
            return ds - self.lam * dx, None
        return self.lam * dx - ds, None

    def budget(self, threshold):
        """Largest constrained cost a merge may have (threshold mode)."""
        current = self.disclosure[-1] if self.objective == "funnel" else self.leakage[-1]
        return current - threshold + _TOL

    def merge(self, i, j):
        """Merge symbol ``j`` into ``i`` (``i < j``); update row/column i of the costs.

        Returns the new gain row of ``i`` (-inf at ``i`` and at merged-away
        slots) and its constraint row (or None); both are overwritten by the
        next merge.
        """
        Q, phi, h = self.Q, self.phi, self.h
        q_i = Q[:, i] + Q[:, j]
        # Column i against every slot (Prop. 1); slot i is zeroed first so that
        # entry i of the merged columns is the merged symbol itself.
        Q[:, i] = 0.0
        merged = np.add(Q, q_i[:, None], out=self._merged)
        phi_m, h_m = self._xlogx_potentials(merged, self._logs, self._phi_m)
        phi_i, h_i = float(phi_m[i]), float(h_m[i])
        ds = max(float(phi[i] + phi[j] - phi_i), 0.0)
        dx = max(float(h_i - h[i] - h[j]), 0.0)
        self.leakage.append(max(self.leakage[-1] - ds, 0.0))
        self.disclosure.append(max(self.disclosure[-1] - dx, 0.0))
        self.merges.append((int(self.ids[i]), int(self.ids[j])))
        Q[:, i] = q_i
        phi[i], h[i] = phi_i, h_i
        self.active[j] = False
        if self.penalty is None:
            phi[j], h[j] = -np.inf, np.inf
        else:
            self.penalty[j] = -np.inf
        # (phi_i - phi_m) + phi rounds exactly as -((phi_m - phi_i) - phi).
        ds_row = np.subtract(phi_i, phi_m, out=phi_m)
        np.add(ds_row, phi, out=ds_row)
        dx_row = np.subtract(h_m, h_i, out=self._dx)
        np.subtract(dx_row, h, out=dx_row)
        g, c = self._gain(ds_row, dx_row)
        if self.penalty is not None:
            np.add(g, self.penalty, out=g)
        g[i] = -np.inf
        G = self.G
        G[i] = g
        G[:, i] = g
        G[:, j] = -np.inf
        if c is not None:
            self.C[i] = c
            self.C[:, i] = c
        return g, c

    def compact(self):
        """Drop merged-away slots.

        Returns the kept slot indices (in order) and the map from old slots to
        new ones, of length ``n + 1`` so that index -1 maps to -1.
        """
        keep = np.flatnonzero(self.active)
        remap = np.full(self.n + 1, -1, dtype=np.int64)
        remap[keep] = np.arange(keep.size)
        self.Q = self.Q[:, keep]
        self.phi, self.h, self.ids = self.phi[keep], self.h[keep], self.ids[keep]
        self.G = self.G[np.ix_(keep, keep)]
        if self.C is not None:
            self.C = self.C[np.ix_(keep, keep)]
        self.active = np.ones(keep.size, dtype=bool)
        if self.penalty is not None:
            self.penalty = np.zeros(keep.size)
        self.n = keep.size
        self._buffers()
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


def _run(state, threshold, max_merges=None, until=None, bar=None):
    """Greedy loop from ``state`` until no merge qualifies.

    With ``until`` (a larger threshold than ``threshold``), it also stops,
    before merging, at the first pair chosen under ``threshold`` that
    ``until`` does not allow: up to there every threshold in between makes the
    same choices (the best pair of the largest feasible set lies in the smaller
    ones), which is how :func:`greedy_sweep` shares the work.

    Each live row ``r`` keeps ``(best_val[r], best_col[r])``: an entry of G
    that is at least every feasible entry of the row, ties going to the
    smaller column. With a threshold the feasible sets only shrink (the
    budget decreases with every merge), so the entry may have become
    infeasible: it is an upper bound, checked only when it is the largest of
    all rows (and then searched again among the feasible entries). The largest
    bound that is feasible is the best feasible pair, and the first row holding
    it gives the textbook's tie-break. Rows without a candidate (merged away,
    or nothing feasible left) hold ``(_NONE, -1)``. ``bar`` (a progress bar)
    advances by one per merge.
    """
    G, C, n = state.G, state.C, state.n
    constrained = C is not None
    budget = state.budget(threshold) if constrained else np.inf
    best_col = G.argmax(axis=1)
    best_val = G[np.arange(n), best_col]
    best_val[~state.active] = -np.inf
    none = best_val == -np.inf
    best_val[none], best_col[none] = _NONE, -1
    n_merged = n - int(np.count_nonzero(state.active))  # merged-away slots not yet compacted
    done = 0
    while max_merges is None or done < max_merges:
        r = int(best_val.argmax())
        value = float(best_val[r])
        if value <= _NONE or (not constrained and value <= _TOL):
            break
        b = int(best_col[r])
        if constrained and C[r, b] > budget:
            row = np.where(C[r] <= budget, G[r], -np.inf)
            k = int(row.argmax())
            if row[k] > -np.inf:
                best_val[r], best_col[r] = row[k], k
            else:
                best_val[r], best_col[r] = _NONE, -1
            continue
        if until is not None and C[r, b] > state.budget(until):
            break
        i, j = (r, b) if r < b else (b, r)
        g, _ = state.merge(i, j)
        done += 1
        if bar is not None:
            bar.update()
        n_merged += 1
        if constrained:
            budget = state.budget(threshold)
        best_val[j], best_col[j] = _NONE, -1
        # Rows whose best entry was i or j are searched again; g is -inf at
        # merged-away slots, below their _NONE, so they are never touched.
        stale = best_col == j
        stale |= best_col == i
        # Rows whose best entry is now i (ties go to the smaller column).
        better = g > best_val
        tie = g == best_val
        if tie.any():
            tie &= best_col >= i
            better |= tie
        rows = better.nonzero()[0]
        best_val[rows] = g[rows]
        best_col[rows] = i
        k = int(g.argmax())
        best_val[i], best_col[i] = g[k], k
        stale[i] = False
        rows = stale.nonzero()[0]
        if rows.size:
            k = G[rows].argmax(axis=1)
            best_col[rows] = k
            best_val[rows] = G[rows, k]
        if n >= _COMPACT_MIN and n_merged >= _COMPACT_FRACTION * n:
            keep, remap = state.compact()
            G, C, n = state.G, state.C, state.n
            best_val, best_col = best_val[keep], remap[best_col[keep]]
            n_merged = 0
    return state


def _resolve_threshold(state, objective, threshold):
    if threshold is None:
        return None
    top = state.disclosure[0] if objective == "funnel" else state.leakage[0]
    if not (0.0 <= threshold <= top + _TOL):
        name = "H(X)" if objective == "funnel" else "I(S;X)"
        raise ValueError(
            f"threshold must lie in [0, {name}] = [0, {top:.6g}] nats, got {threshold!r}."
        )
    return float(threshold)


def greedy_merge(
    joint, *, objective="funnel", threshold=None, lam=None, max_merges=None, verbose=0
):
    """Greedy privacy funnel (Alg. 1) or bottleneck (Alg. 2) with incremental Prop. 1 costs.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
        Joint pmf ``P(S, X)``.
    objective : {"funnel", "bottleneck"}, default="funnel"
        Alg. 1 (keep ``I(X;Y) >= threshold``, minimise ``I(S;Y)``) or Alg. 2
        (keep ``I(S;Y) >= threshold``, minimise ``I(X;Y)``).
    threshold : float, default=None
        The disclosure threshold R of Alg. 1 (in ``[0, H(X)]``) or the
        leakage threshold of Alg. 2 (in ``[0, I(S;X)]``), in nats.
    lam : float, default=None
        Use the Lagrangian ``I(S;Y) - lam I(X;Y)`` instead of a threshold.
    max_merges : int, default=None
        Stop after this many merges.
    verbose : int, default=0
        When positive, a progress bar over the merges (at most ``n_x - 1``).

    Returns
    -------
    MergePath

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import greedy_merge
    >>> joint = np.array([[0.3, 0.1, 0.05], [0.05, 0.2, 0.3]])
    >>> path = greedy_merge(joint, threshold=0.0)
    >>> path.merges.tolist(), path.n_clusters
    ([[0, 2], [0, 1]], 1)
    """
    joint = _check_joint(joint)
    _check_mode(objective, threshold, lam)
    state = _MergeState(joint, objective, lam)
    threshold = _resolve_threshold(state, objective, threshold)
    total = state.n - 1 if max_merges is None else min(state.n - 1, max_merges)
    with progress(total=total, verbose=verbose, desc="greedy merges") as bar:
        _run(state, threshold, max_merges, bar=bar)
    return state.result()


def greedy_sweep(joint, thresholds, *, objective="funnel"):
    """:func:`greedy_merge` for many thresholds, sharing the merges they have in common.

    Runs that make the same choices share one state, advanced by the
    incremental loop of the loosest threshold for as long as each of its
    choices is allowed by the tightest one; at the first step where the best
    feasible pairs differ, the state is copied for each distinct choice. The
    result equals running :func:`greedy_merge` per threshold.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
    thresholds : array-like of float
        Thresholds in nats (see :func:`greedy_merge`).
    objective : {"funnel", "bottleneck"}, default="funnel"

    Returns
    -------
    list of MergePath
        One per threshold, in the order given.
    """
    joint = _check_joint(joint)
    _check_mode(objective, 0.0, None)
    thresholds = [float(t) for t in np.atleast_1d(thresholds)]
    root = _MergeState(joint, objective, None)
    for t in thresholds:
        _resolve_threshold(root, objective, t)
    results = [None] * len(thresholds)
    stack = [(root, list(range(len(thresholds))))]
    while stack:
        state, group = stack.pop()
        while True:
            if len(group) == 1:
                results[group[0]] = _run(state, thresholds[group[0]]).result()
                break
            levels = [thresholds[g] for g in group]
            _run(state, min(levels), until=max(levels))
            choices = state.best_pairs([state.budget(t) for t in levels])
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
