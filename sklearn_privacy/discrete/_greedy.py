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

from sklearn_privacy.information import column_potentials, entropy, mutual_information
from sklearn_privacy.utils import NONNEGATIVE, NONNEGATIVE_INTEGER, progress
from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

#: ``objective`` of the greedy and of IAC-MDSF
OBJECTIVES = StrOptions({"funnel", "bottleneck"})

__all__ = ["MergePath", "greedy_merge", "greedy_sweep"]

# Slack on feasibility and on "the Lagrangian decreases": merges within rounding
# error of the constraint count as feasible, merges that gain less do not happen.
_TOL = 1e-12
# Tie tolerance (nats): gains within _TIE of the best feasible gain are tied, and the
# lexicographically smallest tied pair is merged. Equal columns give bitwise equal
# costs here, but two mathematically equal gains of different columns (and the
# textbook's from-scratch informations) differ by rounding; the textbook greedy
# (benchmarks/_textbook_greedy.py) uses the same rule.
_TIE = 1e-12
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
# log 2, rounded up with room for the rounding of a computed disclosure cost.
_LOG2_PADDED = 0.6932


@dataclass
class MergePath:
    """The merges of a greedy run and the information after each of them.

    The ``path_`` of a fitted
    :class:`~sklearn_privacy.discrete.PrivacyFunnelTransformer`: every merge in
    the order made, and :math:`I(S;Y)` and :math:`I(X;Y)` of the release :math:`Y`
    before the first merge and after each one, in nats, under the estimated
    :math:`P(S, X)`. Symbols are indices of the fitted mechanism's ``alphabet_``.

    Attributes
    ----------
    merges : ndarray of shape (n_merges, 2)
        :math:`(i, j)`: symbol :math:`j` merged into :math:`i` (indices of the original
        alphabet; a merged symbol keeps the index of its smallest member).
    leakage : ndarray of shape (n_merges + 1,)
        :math:`I(S;Y)` before the first merge and after each merge, in nats.
    disclosure : ndarray of shape (n_merges + 1,)
        :math:`I(X;Y) = H(Y)` likewise.
    labels : ndarray of shape (n_symbols,)
        Final cluster of each original symbol, ``0`` to ``n_clusters - 1`` in
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


def _check_mode(threshold, lam):
    if (threshold is None) == (lam is None):
        raise ValueError("give exactly one of threshold and lam.")


def _xlogx(x, out=None):
    """``x log x`` (0 at 0) by the operations the merge rows use, so that both round alike."""
    logs = np.add(x, _TINY)
    np.log(logs, out=logs)
    return np.multiply(x, logs, out=out)


class _MergeState:
    """Current alphabet and its pair costs.

    Only one ``n x n`` matrix is stored: ``D``, the leakage decrease ``Delta I(S;Y)``
    of every pair (exactly symmetric, ``-inf`` on the diagonal and in the columns
    of merged-away slots). The disclosure decrease of a pair depends on the two
    probabilities alone and is recomputed where needed, ``O(n)`` per row
    (:meth:`dx_row`); it is written ``xlogx(p_a + p_b) - (h_a + h_b)``, which is
    symmetric to the bit and rounds the same whichever row computes it.
    """

    def __init__(self, joint, objective, lam):
        self.objective, self.lam = objective, lam
        # Column y of Q: P(S, y) followed by p(y); one row per s so that every
        # vectorised operation runs along the (long) alphabet axis.
        self.Q = np.vstack([joint, joint.sum(axis=0)])
        self.n = self.n_symbols = n = self.Q.shape[1]
        self.phi = column_potentials(joint)
        self.h = _xlogx(self.p)
        self.active = np.ones(n, dtype=bool)
        self.dead = np.zeros(n, dtype=bool)
        self.leakage = [mutual_information(joint)]
        self.disclosure = [entropy(self.p)]
        self.merges = []
        self.D = np.empty((n, n))
        self.ids = np.arange(n)  # original index of each slot (slots get compacted)
        self._initial_costs()
        self._buffers()

    @property
    def p(self):
        """Probability of each slot (a view)."""
        return self.Q[-1]

    @property
    def constrained(self):
        return self.lam is None

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
        """Stored costs of every pair, in row blocks of the upper triangle, then mirrored."""
        Q, phi, n = self.Q, self.phi, self.n
        depth = Q.shape[0]
        rows = min(n, max(1, _BLOCK_ELEMENTS // max(1, n * depth)))
        merged_buf = np.empty(rows * n * depth)
        logs_buf = np.empty_like(merged_buf)
        phi_buf = np.empty(rows * n)
        D = self.D
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
            if self.lam is not None:
                dx = np.subtract(h_m, self.h[start:stop, None] + self.h[None, start:])
                ds = self._gain(ds, dx, out=dx)[0]
            # Upper triangle only (the two orders of a pair round differently);
            # the lower one is its exact mirror, copied below tile by tile.
            width = stop - start
            D[start:stop, start:stop] = np.triu(ds[:, :width], 1)
            D[start:stop, stop:] = ds[:, width:]
        tile = 256
        for a in range(0, n, tile):
            upper = np.triu(D[a : a + tile, a : a + tile], 1)
            D[a : a + tile, a : a + tile] = upper + upper.T
            for b in range(a + tile, n, tile):
                D[b : b + tile, a : a + tile] = D[a : a + tile, b : b + tile].T
        np.fill_diagonal(D, -np.inf)

    def dx_row(self, r, out=None):
        """Disclosure decrease of merging slot ``r`` with every slot."""
        out = np.add(self.p[r], self.p, out=out)
        _xlogx(out, out=out)
        return np.subtract(out, self.h[r] + self.h, out=out)

    def _gain(self, ds, dx, out=None):
        """What the greedy maximises, and what the threshold bounds (None for lam)."""
        if self.lam is None:
            return (ds, dx) if self.objective == "funnel" else (dx, ds)
        if self.objective == "funnel":
            g = np.multiply(dx, -self.lam, out=out)
            return np.add(g, ds, out=g), None
        g = np.multiply(dx, self.lam, out=out)
        return np.subtract(g, ds, out=g), None

    def row(self, r, budget):
        """Best feasible entry ``(value, column)`` of row ``r`` (``(-inf, -1)`` if none),
        the row of feasible gains (``-inf`` elsewhere) and its constrained costs
        (None for lam; None when not computed: only for the funnel, whose gains
        are stored and whose costs are checked at the best entry first)."""
        D = self.D
        if self.lam is not None:
            g = np.where(D[r] > _TOL, D[r], -np.inf)
            c = None
        elif self.objective == "funnel":
            g = D[r]
            k = int(g.argmax())
            if g[k] == -np.inf or self.funnel_feasible(r, k, budget):
                return (float(g[k]), k), g, None
            c = self.dx_row(r)
            g = np.where(c <= budget, g, -np.inf)
        else:
            c = D[r]
            g = self.dx_row(r)
            g[c > budget] = -np.inf
            g[self.dead] = -np.inf
            g[r] = -np.inf
        k = int(g.argmax())
        return (float(g[k]), k if g[k] > -np.inf else -1), g, c

    def funnel_feasible(self, r, k, budget):
        """Whether ``dx(r, k) <= budget`` (funnel), without a logarithm when clear.

        ``dx = (p_r + p_k) H_2(p_r / (p_r + p_k)) <= (p_r + p_k) log 2``; the
        bound is padded so that it also covers the rounding of the computed dx,
        and so always agrees with the exact test.
        """
        if (self.p[r] + self.p[k]) * _LOG2_PADDED + 1e-15 <= budget:
            return True
        return self.pair_values([r], [k])[1][0] <= budget

    def feasible_columns(self, r, g, c, low, budget):
        """Columns of row ``r`` whose feasible gain is ``>= low``, in order."""
        cols = np.flatnonzero(g >= low)
        if c is None and self.lam is None and cols.size:
            cost = self.pair_values(np.full(cols.size, r), cols)[1]
            cols = cols[cost <= budget]
        return cols

    def cost(self, r, c, cost_row):
        """Constrained cost of pair ``(r, c)`` (threshold mode)."""
        if cost_row is not None:
            return cost_row[c]
        return self.pair_values([r], [c])[1][0]

    def budget(self, threshold):
        """Largest constrained cost a merge may have (threshold mode)."""
        current = self.disclosure[-1] if self.objective == "funnel" else self.leakage[-1]
        return current - threshold + _TOL

    def merge(self, i, j):
        """Merge symbol ``j`` into ``i`` (``i < j``); update row/column i of ``D``.

        Returns the new gain row of ``i`` (-inf at ``i`` and at merged-away
        slots, feasibility not applied); it is overwritten by the next merge.
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
        self.dead[j] = True
        # (phi_i - phi_m) + phi rounds exactly as -((phi_m - phi_i) - phi).
        ds_row = np.subtract(phi_i, phi_m, out=phi_m)
        np.add(ds_row, phi, out=ds_row)
        # h_m - (h_i + h): what dx_row computes for any row against column i.
        dx_row = np.add(h, h_i, out=self._dx)
        np.subtract(h_m, dx_row, out=dx_row)
        g, _ = self._gain(ds_row, dx_row, out=self._dx)
        stored = ds_row if self.lam is None else g
        for row in (g, stored):
            row[self.dead] = -np.inf
            row[i] = -np.inf
        D = self.D
        D[i] = stored
        D[:, i] = stored
        D[:, j] = -np.inf
        return g

    def compact(self):
        """Drop merged-away slots, moving ``D``'s live block in place (no second matrix).

        Returns the kept slot indices (in order) and the map from old slots to
        new ones, of length ``n + 1`` so that index -1 maps to -1.
        """
        keep = np.flatnonzero(self.active)
        m = keep.size
        remap = np.full(self.n + 1, -1, dtype=np.int64)
        remap[keep] = np.arange(m)
        D = self.D
        flat = D.reshape(-1)  # a view: D is C-contiguous
        # Row k of the new matrix is written to flat[k m : (k + 1) m], below the
        # old row keep[k] >= k (which starts at keep[k] n >= k m): never read again.
        for k, r in enumerate(keep):
            flat[k * m : (k + 1) * m] = D[r, keep]
        self.D = flat[: m * m].reshape(m, m)
        self.Q = self.Q[:, keep]
        self.phi, self.h, self.ids = self.phi[keep], self.h[keep], self.ids[keep]
        self.active = np.ones(m, dtype=bool)
        self.dead = np.zeros(m, dtype=bool)
        self.n = m
        self._buffers()
        return keep, remap

    def copy(self):
        new = object.__new__(_MergeState)
        for key, value in self.__dict__.items():
            new.__dict__[key] = value.copy() if hasattr(value, "copy") else value
        return new

    def pair_values(self, a, b):
        """Gains and constrained costs (None for lam) of the pairs ``(a[k], b[k])``."""
        a, b = np.asarray(a), np.asarray(b)
        stored = self.D[a, b]
        if self.lam is not None:
            return stored, None
        dx = _xlogx(self.p[a] + self.p[b]) - (self.h[a] + self.h[b])
        return (stored, dx) if self.objective == "funnel" else (dx, stored)

    def best_pairs(self, budgets):
        """Chosen pair for each budget (None when none), by the tie rule over all pairs."""
        act = np.flatnonzero(self.active)
        if act.size < 2:
            return [None] * len(budgets)
        iu, ju = np.triu_indices(act.size, 1)
        g, c = self.pair_values(act[iu], act[ju])
        out = []
        for b in budgets:
            ok = g > _TOL if c is None else c <= b
            if not ok.any():
                out.append(None)
                continue
            top = g[ok].max()
            k = int(np.flatnonzero(ok & (g >= top - _TIE))[0])
            out.append((int(act[iu[k]]), int(act[ju[k]])))
        return out

    def initial_bests(self):
        """Each row's best entry (first largest, feasibility not applied), in row blocks."""
        n = self.n
        best_col = np.empty(n, dtype=np.int64)
        best_val = np.empty(n)
        rows = max(1, _BLOCK_ELEMENTS // max(1, n))
        dx = np.empty((rows, n))
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            g = self.D[start:stop]  # -inf on the diagonal and at merged-away slots
            if self.lam is None and self.objective == "bottleneck":
                g = dx[: stop - start]
                np.add(self.p[start:stop, None], self.p[None, :], out=g)
                _xlogx(g, out=g)
                np.subtract(g, self.h[start:stop, None] + self.h[None, :], out=g)
                g[np.arange(stop - start), np.arange(start, stop)] = -np.inf
                g[:, self.dead] = -np.inf
            k = g.argmax(axis=1)
            best_col[start:stop] = k
            best_val[start:stop] = g[np.arange(stop - start), k]
        return best_val, best_col

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
    before merging, at the first choice under ``threshold`` that ``until``
    might not make: unless both the chosen pair and a pair of the best
    feasible gain are allowed by ``until``. Up to there every threshold in
    between makes the same choices, which is how :func:`greedy_sweep` shares
    the work.

    Each live row ``r`` keeps ``(best_val[r], best_col[r])``, an upper bound
    on its feasible entries. A *clean* row's bound is an entry that comes, in
    the order (gain descending, column ascending), before every feasible
    entry of the row; a *dirty* row's bound is only a value (its entry was
    merged or changed). Bounds stay valid because the feasible sets only
    shrink and the one changed column (the merged symbol's) is compared with
    every bound at each merge. The row of the largest bound (the first such
    row) is recomputed exactly (``O(n)``); when its exact best equals its
    bound it is the best feasible gain ``M``. A merge marks dirty only the
    rows whose entry it removed or lowered and recomputes none of them: they
    are recomputed when they reach the top. The merged pair is then the
    lexicographically smallest feasible pair with gain ``>= M - _TIE``:
    the first row whose exact best reaches ``M - _TIE`` (only rows before
    the top one with bounds that high are recomputed) and its first such
    column. ``bar`` (a progress bar) advances by one per merge.
    """
    n = state.n
    constrained = state.constrained
    budget = state.budget(threshold) if constrained else np.inf
    best_val, best_col = state.initial_bests()
    best_val[~state.active] = -np.inf
    none = best_val == -np.inf
    best_val[none], best_col[none] = _NONE, -1
    dirty = np.zeros(n, dtype=bool)
    n_merged = n - int(np.count_nonzero(state.active))  # merged-away slots not yet compacted
    done = 0

    def refresh(r):
        (value, k), g, c = state.row(r, budget)
        if value == -np.inf:
            best_val[r], best_col[r] = _NONE, -1
        else:
            best_val[r], best_col[r] = value, k
        dirty[r] = False
        return g, c

    while max_merges is None or done < max_merges:
        r = int(best_val.argmax())
        bound = float(best_val[r])
        if bound <= _NONE or (not constrained and bound <= _TOL):
            break
        g, c = refresh(r)
        if best_val[r] < bound:
            continue
        top_col = int(best_col[r])
        low = bound - _TIE
        a = r
        for row in np.flatnonzero(best_val[:r] >= low):
            g_a, c_a = refresh(int(row))
            if best_val[row] >= low:
                a, g, c = int(row), g_a, c_a
                break
        b = int(state.feasible_columns(a, g, c, low, budget)[0])
        if until is not None:
            tight = state.budget(until)
            if state.cost(r, top_col, None) > tight or state.cost(a, b, c) > tight:
                break
        i, j = (a, b) if a < b else (b, a)
        g = state.merge(i, j)
        done += 1
        if bar is not None:
            bar.update()
        n_merged += 1
        if constrained:
            budget = state.budget(threshold)
        best_val[j], best_col[j], dirty[j] = _NONE, -1, False
        # Rows whose entry was i or j lose it; those that i now beats get it
        # (clean rows also on a tie with a later column). The rest go dirty,
        # keeping their bound. g is -inf at merged-away slots, below _NONE.
        stale = best_col == j
        stale |= best_col == i
        better = g > best_val
        tie = g == best_val
        if tie.any():
            tie &= best_col >= i
            tie &= ~dirty
            better |= tie
        rows = better.nonzero()[0]
        best_val[rows] = g[rows]
        best_col[rows] = i
        dirty[rows] = False
        stale &= ~better
        dirty |= stale
        k = int(g.argmax())
        if g[k] == -np.inf:
            best_val[i], best_col[i] = _NONE, -1
        else:
            best_val[i], best_col[i] = g[k], k
        dirty[i] = False
        if n >= _COMPACT_MIN and n_merged >= _COMPACT_FRACTION * n:
            keep, remap = state.compact()
            n = state.n
            best_val, best_col = best_val[keep], remap[best_col[keep]]
            dirty = dirty[keep]
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


@validate_params(
    {
        "joint": ["array-like"],
        "objective": [OBJECTIVES],
        "threshold": [NONNEGATIVE, None],
        "lam": [NONNEGATIVE, None],
        "max_merges": [NONNEGATIVE_INTEGER, None],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def greedy_merge(
    joint, *, objective="funnel", threshold=None, lam=None, max_merges=None, verbose=0
):
    r"""Greedy privacy funnel (Alg. 1) or bottleneck (Alg. 2) with incremental Prop. 1 costs.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
        Joint pmf :math:`P(S, X)`.
    objective : {"funnel", "bottleneck"}, default="funnel"
        Alg. 1 (keep :math:`I(X;Y) \ge \text{threshold}`, minimise :math:`I(S;Y)`) or
        Alg. 2 (keep :math:`I(S;Y) \ge \text{threshold}`, minimise :math:`I(X;Y)`).
    threshold : float, default=None
        The disclosure threshold :math:`R` of Alg. 1 (in :math:`[0, H(X)]`) or the
        leakage threshold of Alg. 2 (in :math:`[0, I(S;X)]`), in nats.
    lam : float, default=None
        Use the Lagrangian :math:`I(S;Y) - \text{lam}\, I(X;Y)` instead of a threshold.
    max_merges : int, default=None
        Stop after this many merges.
    verbose : int, default=0
        When positive, a progress bar over the merges (at most :math:`n_x - 1`).

    Returns
    -------
    MergePath

    See Also
    --------
    greedy_sweep : The same for many thresholds at once.
    iac_mdsf : The submodular agglomerative alternative.
    PrivacyFunnelTransformer : Estimator that runs this greedy on data.

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
    _check_mode(threshold, lam)
    state = _MergeState(joint, objective, lam)
    threshold = _resolve_threshold(state, objective, threshold)
    total = state.n - 1 if max_merges is None else min(state.n - 1, max_merges)
    with progress(total=total, verbose=verbose, desc="greedy merges") as bar:
        _run(state, threshold, max_merges, bar=bar)
    return state.result()


@validate_params(
    {"joint": ["array-like"], "thresholds": ["array-like"], "objective": [OBJECTIVES]},
    prefer_skip_nested_validation=True,
)
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

    See Also
    --------
    greedy_merge : One greedy run at one threshold.
    PrivacyFunnelTransformer : Estimator that runs the greedy on data.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import greedy_merge, greedy_sweep
    >>> joint = np.array([[0.2, 0.1, 0.1, 0.05], [0.05, 0.1, 0.1, 0.3]])
    >>> paths = greedy_sweep(joint, [0.3, 0.6])
    >>> [path.merges.tolist() for path in paths]
    [[[0, 3], [0, 1]], [[0, 3], [1, 2]]]
    >>> [round(float(path.leakage[-1]), 4) for path in paths]
    [0.0013, 0.0034]
    >>> all(
    ...     np.array_equal(path.merges, greedy_merge(joint, threshold=t).merges)
    ...     for path, t in zip(paths, [0.3, 0.6])
    ... )
    True
    """
    joint = _check_joint(joint)
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
