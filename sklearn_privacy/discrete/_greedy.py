"""Greedy pairwise merges: the privacy funnel and the information bottleneck.

:func:`greedy_merge` runs privacy-funnel-makhdoumi2014's Alg. 1 or 2 (or their Lagrangian form)
on a joint pmf, :func:`greedy_sweep` many thresholds at once ("Greedy funnel" in design.md).
"""

from numbers import Integral

import numpy as np
from joblib import effective_n_jobs

from sklearn_privacy.discrete import _greedy_kernels_numpy
from sklearn_privacy.discrete._compiled import pick_kernels
from sklearn_privacy.discrete._path import MergePath, cluster_labels
from sklearn_privacy.information import entropy, mutual_information
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
# (tests/_textbook_greedy.py) uses the same rule.
_TIE = 1e-12
# The triangle is compacted when this fraction of its slots is merged away
# (moving it costs O(n^2)), above _COMPACT_MIN slots; the columns of Q, over
# which every merge computes its costs, at _COMPACT_COLUMNS (O(n |S|)).
_COMPACT_FRACTION = 0.5
_COMPACT_MIN = 64
_COMPACT_COLUMNS = 0.1
# Added inside logarithms so that 0 log 0 = 0 without xlogy's overhead.
_TINY = 1e-300
# Above it, x + _TINY == x (the addition can be skipped and rounds the same).
_SAFE_MIN = 1e-280
# Best value of a row without candidates: below every gain, above the -inf of
# merged-away slots in a new gain row.
_NONE = -np.finfo(float).max
# log 2, rounded up with room for the rounding of a computed disclosure cost.
_LOG2_PADDED = 0.6932
# Pair entries (n^2 (|S| + 1)) from which the compiled kernels compute the costs, where
# numba is installed: loading them takes about 0.9 s (the first time, compiling about
# 4 s), which they save at about this size (6300 symbols at |S| = 4; design.md).
_COMPILED_WORK = 2e8


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


def _offsets(n):
    """Start of row ``t`` (columns ``t + 1 ... n - 1``) in a packed upper triangle."""
    t = np.arange(n, dtype=np.int64)
    return t * n - t * (t + 1) // 2


class _MergeState:
    """Current alphabet and its pair costs, one stored value per unordered pair.

    ``D`` is the packed upper triangle of the pair costs: row ``t`` holds the
    pairs ``(t, c)``, ``c > t``, at ``D[off[t] + c - t - 1]`` (the leakage
    decrease ``Delta I(S;Y)``; in ``lam`` mode the Lagrangian gain), half the
    memory of a square matrix. The greedy only needs each row's best pair to
    its right: the lexicographically first tied pair ``(a, b)`` is the first
    row ``a`` whose right part reaches the tie level, and its first such
    column. The disclosure decrease depends on the two probabilities alone and
    is recomputed where needed, ``O(n)`` per row (:meth:`dx_row`), as
    ``xlogx(p_a + p_b) - (h_a + h_b)``, symmetric to the bit.

    Two slot spaces: the triangle's (``n`` slots, compacted when half of them
    are merged away: moving it costs ``O(n^2)``) and the columns' ``Q``
    (compacted at a tenth, ``O(n |S|)``), over which every merge computes its
    new costs; ``qt`` maps a column to its triangle slot (increasing) and
    ``tq`` back (-1 once merged away).
    """

    def __init__(self, joint, objective, lam, n_jobs=1):
        self.objective, self.lam = objective, lam
        # Column y of Q: P(S, y) followed by p(y); one row per s so that every
        # vectorised operation runs along the (long) alphabet axis.
        self.Q = np.vstack([joint, joint.sum(axis=0)])
        self.n = self.n_symbols = n = self.Q.shape[1]
        # Without entries below _SAFE_MIN (sums of entries neither), x + _TINY == x:
        # the merged potentials may skip that addition and round the same.
        self.tiny = _TINY if not bool(self.Q.min() >= _SAFE_MIN) else 0.0
        # One logarithm throughout: numpy's, or on large alphabets the compiled kernels'.
        self.kernels = pick_kernels(
            "_greedy_kernels",
            _greedy_kernels_numpy,
            worth_it=n * n * self.Q.shape[0] >= _COMPILED_WORK,
        )
        self.phi, self.h = self.kernels.potentials(joint, self.Q, _TINY)
        self.qt = np.arange(n)
        self.tq = np.arange(n)
        self.qdead = np.zeros(n)  # -inf at merged-away columns not yet compacted
        self.n_qdead = 0
        # Triangle-slot copies of p and p log p (for the disclosure rows).
        self.p, self.ht = self.Q[-1].copy(), self.h.copy()
        self.p_max = float(self.p.max())  # bounds every live p (merged-away ones stay)
        self.active = np.ones(n, dtype=bool)
        self.n_dead = 0
        self.dead = np.zeros(n)  # -inf at merged-away triangle slots
        self.ids = np.arange(n)  # original index of each slot (slots get compacted)
        self.leakage = [mutual_information(joint)]
        self.disclosure = [entropy(self.p)]
        self.merges = []
        self._set_offsets(n)
        self.D = np.empty(n * (n - 1) // 2)
        self._buffers()
        self._initial_costs(n_jobs)

    @property
    def constrained(self):
        return self.lam is None

    def _set_offsets(self, n):
        self.off = _offsets(n)
        # Entry (a, c) of a column c is at col_off[a] + c.
        self.col_off = self.off - np.arange(n) - 1

    @property
    def _bottleneck(self):
        return self.lam is None and self.objective == "bottleneck"

    @property
    def _mode(self):
        """The kernels' name for what the rows store and maximise."""
        k = self.kernels
        if self.lam is None:
            return k.FUNNEL if self.objective == "funnel" else k.BOTTLENECK
        return k.LAM_FUNNEL if self.objective == "funnel" else k.LAM_BOTTLENECK

    def _buffers(self):
        # C order: every sum over S runs in the order of s (numpy sums a
        # Fortran-ordered column pairwise, which rounds differently).
        self.Q = np.ascontiguousarray(self.Q)
        self._work = self.kernels.workspace(self.Q.shape)
        self._h_m = np.empty(self.Q.shape[1])
        self._phi_m = np.empty(self.Q.shape[1])
        self._dx = np.empty(self.Q.shape[1])
        self._g = np.empty(self.n)

    def _xlogx(self, x, out=None):
        """``x log x`` of a 1-D array by the state's logarithm."""
        out = np.empty_like(x) if out is None else out
        self.kernels.xlogx(x, _TINY, out)
        return out

    def _gain(self, ds, dx, out=None):
        """What the greedy maximises, and what the threshold bounds (None for lam)."""
        if self.lam is None:
            return (ds, dx) if self.objective == "funnel" else (dx, ds)
        if self.objective == "funnel":
            g = np.multiply(dx, -self.lam, out=out)
            return np.add(g, ds, out=g), None
        g = np.multiply(dx, self.lam, out=out)
        return np.subtract(g, ds, out=g), None

    # -- the initial costs ---------------------------------------------------

    def _initial_costs(self, n_jobs):
        """Stored cost of every pair, each row's best pair to its right.

        The long rows are spread over ``n_jobs`` threads (the kernels'
        ``initial_costs``): a row is computed alone, its sums in the order of
        ``s``, so the costs do not depend on the thread count. Numpy and the
        compiled kernels release the GIL; our threads, not BLAS's or OpenMP's,
        use the cores.
        """
        n = self.n
        best_val = np.full(n, -np.inf)
        best_col = np.full(n, -1, dtype=np.int64)
        self._bests = (best_val, best_col)
        self.kernels.initial_costs(
            self.Q, self.phi, self.h, self.D, self.off, best_val, best_col,
            n_jobs, self._mode, self.lam or 0.0, self.tiny,
        )  # fmt: skip

    # -- rows ----------------------------------------------------------------

    def _row(self, r):
        """Stored costs of the pairs ``(r, c)``, ``c > r`` (a view)."""
        return self.D[self.off[r] : self.off[r] + self.n - r - 1]

    def _current_row(self, r):
        """Stored gains of row ``r`` with ``-inf`` at merged-away columns (a buffer)."""
        return np.add(self._row(r), self.dead[r + 1 :], out=self._g[: self.n - r - 1])

    def dx_row(self, r, out=None):
        """Disclosure decrease of merging slot ``r`` with every slot after it."""
        out = np.add(self.p[r], self.p[r + 1 :], out=out)
        self._xlogx(out, out=out)
        return np.subtract(out, self.ht[r] + self.ht[r + 1 :], out=out)

    def row(self, r, budget):
        """Best feasible entry ``(value, column)`` among the pairs ``(r, c > r)``
        (``(-inf, -1)`` if none), the feasible gains of those pairs (``-inf``
        elsewhere; index ``c - r - 1``) and their constrained costs (None for
        lam; None when not computed: only for the funnel, whose gains are
        stored and whose costs are checked at the best entry first)."""
        return self._best(r, self._current_row(r), budget)

    def _best(self, r, g, budget):
        start = r + 1
        if not g.size:
            return (-np.inf, -1), g, None
        if self.lam is not None:
            g[g <= _TOL] = -np.inf
            c = None
        elif self.objective == "funnel":
            k = int(g.argmax())
            if (
                g[k] == -np.inf
                or self.all_feasible(budget)
                or self.funnel_feasible(r, start + k, budget)
            ):
                return (float(g[k]), start + k if g[k] > -np.inf else -1), g, None
            c = self.dx_row(r)
            g[c > budget] = -np.inf
        else:
            c = g
            g = self.dx_row(r)
            g[c > budget] = -np.inf
            g[self.dead[start:] == -np.inf] = -np.inf
        k = int(g.argmax())
        return (float(g[k]), start + k if g[k] > -np.inf else -1), g, c

    def funnel_feasible(self, r, k, budget):
        """Whether ``dx(r, k) <= budget`` (funnel), without a logarithm when clear.

        ``dx = (p_r + p_k) H_2(p_r / (p_r + p_k)) <= (p_r + p_k) log 2``; the
        bound is padded so that it also covers the rounding of the computed dx,
        and so always agrees with the exact test.
        """
        if (self.p[r] + self.p[k]) * _LOG2_PADDED + 1e-15 <= budget:
            return True
        return self.pair_values([r], [k])[1][0] <= budget

    def all_feasible(self, budget):
        """Whether every pair passes :meth:`funnel_feasible`'s bound (funnel)."""
        return self.objective == "funnel" and 2 * self.p_max * _LOG2_PADDED + 1e-15 <= budget

    def feasible_columns(self, r, g, c, low, budget):
        """Columns ``> r`` of row ``r`` whose feasible gain is ``>= low``, in order.

        ``g, c`` are what :meth:`row` returned for ``r``.
        """
        cols = np.flatnonzero(g >= low) + (r + 1)
        if c is None and self.lam is None and cols.size and not self.all_feasible(budget):
            cost = self.pair_values(np.full(cols.size, r), cols)[1]
            cols = cols[cost <= budget]
        return cols

    def cost(self, r, c):
        """Constrained cost of pair ``(r, c)`` (threshold mode)."""
        return self.pair_values([r], [c])[1][0]

    def budget(self, threshold):
        """Largest constrained cost a merge may have (threshold mode)."""
        current = self.disclosure[-1] if self.objective == "funnel" else self.leakage[-1]
        return current - threshold + _TOL

    # -- merges --------------------------------------------------------------

    def merge(self, i, j):
        """Merge symbol ``j`` into ``i`` (``i < j``); write the pairs right of ``i``.

        Returns ``(left, g_left, right, g_right)``: the live slots before and
        after ``i`` and the new gains of their pairs with ``i`` (feasibility
        not applied); the arrays are overwritten by the next merge.
        """
        Q, phi, h = self.Q, self.phi, self.h
        qi, qj = self.tq[i], self.tq[j]
        q_i = Q[:, qi] + Q[:, qj]
        # Column i against every column (Prop. 1); column i is zeroed first so
        # that entry i of the merged columns is the merged symbol itself. One
        # thread: handing half of it to another costs about what it saves (the
        # design notes' "Greedy funnel").
        Q[:, qi] = 0.0
        phi_m, h_m = self._phi_m, self._h_m
        self.kernels.merged_potentials(Q, q_i, self.tiny, 0, Q.shape[1], phi_m, h_m, self._work)
        phi_i, h_i = float(phi_m[qi]), float(h_m[qi])
        ds = max(float(phi[qi] + phi[qj] - phi_i), 0.0)
        dx = max(float(h_i - h[qi] - h[qj]), 0.0)
        self.leakage.append(max(self.leakage[-1] - ds, 0.0))
        self.disclosure.append(max(self.disclosure[-1] - dx, 0.0))
        self.merges.append((int(self.ids[i]), int(self.ids[j])))
        Q[:, qi] = q_i
        phi[qi], h[qi] = phi_i, h_i
        self.p[i], self.ht[i] = Q[-1, qi], h_i
        self.p_max = max(self.p_max, float(self.p[i]))
        self.active[j] = False
        self.n_dead += 1
        self.dead[j] = -np.inf
        self.tq[j] = -1
        self.qdead[qj] = -np.inf
        self.n_qdead += 1
        # (phi_i - phi_m) + phi rounds exactly as -((phi_m - phi_i) - phi).
        ds_row = np.subtract(phi_i, phi_m, out=phi_m)
        np.add(ds_row, phi, out=ds_row)
        if self.lam is None and self.objective == "funnel":
            g = stored = ds_row
        else:
            # h_m - (h_i + h): what dx_row computes for any row against column i.
            dx_row = np.add(h, h_i, out=self._dx)
            np.subtract(h_m, dx_row, out=dx_row)
            g, _ = self._gain(ds_row, dx_row, out=self._dx)
            stored = ds_row if self.lam is None else g
        for row in (g, stored) if g is not stored else (g,):
            if self.n_qdead:
                row += self.qdead
            row[qi] = -np.inf
        # Pairs (i, c > i) are row i (contiguous); pairs (a < i, i) are column i
        # of the rows before (one cache line each: the costly part of a merge).
        k = qi
        left, right = self.qt[:k], self.qt[k + 1 :]
        self.D[right + (self.off[i] - i - 1)] = stored[k + 1 :]
        self.D[self.col_off[left] + i] = stored[:k]
        return left, g[:k], right, g[k + 1 :]

    def compact_columns(self):
        """Drop merged-away columns of ``Q`` (``O(n |S|)``)."""
        keep = np.flatnonzero(self.qdead == 0.0)
        remap = np.full(self.Q.shape[1] + 1, -1, dtype=np.int64)
        remap[keep] = np.arange(keep.size)
        self.Q = self.Q[:, keep]
        self.phi, self.h, self.qt = self.phi[keep], self.h[keep], self.qt[keep]
        self.tq = remap[self.tq]
        self.qdead = np.zeros(keep.size)
        self.n_qdead = 0
        self._buffers()

    def compact(self):
        """Drop merged-away slots, moving the triangle in place (no second one).

        Returns the kept slot indices (in order) and the map from old slots to
        new ones, of length ``n + 1`` so that index -1 maps to -1.
        """
        if self.n_qdead:
            self.compact_columns()
        keep = np.flatnonzero(self.active)
        m = keep.size
        remap = np.full(self.n + 1, -1, dtype=np.int64)
        remap[keep] = np.arange(m)
        D, off = self.D, self.off
        new_off = _offsets(m)
        # New row k (a gather of old row keep[k]) is written at new_off[k] <=
        # off[keep[k]], before any later old row: nothing unread is overwritten.
        for k in range(m - 1):
            r = keep[k]
            D[new_off[k] : new_off[k] + m - k - 1] = D[off[r] - r - 1 + keep[k + 1 :]]
        self.D = D[: m * (m - 1) // 2]
        self._set_offsets(m)
        self.p, self.ht, self.ids = self.p[keep], self.ht[keep], self.ids[keep]
        self.qt = remap[self.qt]
        self.tq = self.tq[keep]
        self.active = np.ones(m, dtype=bool)
        self.dead = np.zeros(m)
        self.n, self.n_dead = m, 0
        return keep, remap

    def copy(self):
        new = object.__new__(_MergeState)
        for key, value in self.__dict__.items():
            new.__dict__[key] = value.copy() if isinstance(value, np.ndarray | list) else value
        return new

    def pair_values(self, a, b):
        """Gains and constrained costs (None for lam) of the pairs ``(a[k], b[k])``."""
        a, b = np.asarray(a), np.asarray(b)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        stored = self.D[self.off[lo] + (hi - lo - 1)]
        if self.lam is not None:
            return stored, None
        dx = self._xlogx(self.p[a] + self.p[b]) - (self.ht[a] + self.ht[b])
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
        """Each row's best pair to its right (first largest, feasibility not applied)."""
        if getattr(self, "_bests", None) is not None:
            bests, self._bests = self._bests, None
            return bests
        n = self.n
        best_col = np.full(n, -1, dtype=np.int64)
        best_val = np.full(n, -np.inf)
        for t in np.flatnonzero(self.active[:-1]):
            start = t + 1
            if self._bottleneck:
                g = self.dx_row(t)
                g[self.dead[start:] == -np.inf] = -np.inf
            else:
                g = self._row(t) + self.dead[start:]
            c = int(g.argmax())
            best_val[t], best_col[t] = g[c], start + c
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
        return MergePath(
            merges, np.asarray(self.leakage), np.asarray(self.disclosure), cluster_labels(parent)
        )


def _run(state, threshold, max_merges=None, until=None, bar=None):
    """Greedy loop from ``state`` until no merge qualifies.

    With ``until`` (a larger threshold than ``threshold``), it also stops,
    before merging, at the first choice under ``threshold`` that ``until``
    might not make: unless both the chosen pair and a pair of the best
    feasible gain are allowed by ``until``. Up to there every threshold in
    between makes the same choices, which is how :func:`greedy_sweep` shares
    the work.

    Each live row ``r`` keeps ``(best_val[r], best_col[r])``, an upper bound
    on its feasible entries ``(r, c > r)``. A *clean* row's bound is an entry
    that comes, in the order (gain descending, column ascending), before every
    feasible entry of the row; a *dirty* row's bound is only a value (its
    entry was merged or changed). Bounds stay valid because the feasible sets
    only shrink and the one changed column (the merged symbol's) is compared
    with every bound before it at each merge. The row of the largest bound
    (the first such row) is recomputed exactly (``O(n)``); when its exact best
    equals its bound it is the best feasible gain ``M``. A merge marks dirty
    only the rows whose entry it removed or lowered and recomputes none of
    them: they are recomputed when they reach the top. The merged pair is
    then the lexicographically smallest feasible pair with gain ``>= M -
    _TIE``: the first row whose exact best reaches ``M - _TIE`` (only rows
    before the top one with bounds that high are recomputed) and its first
    such column. ``bar`` (a progress bar) advances by one per merge.
    """
    n = state.n
    constrained = state.constrained
    budget = state.budget(threshold) if constrained else np.inf
    best_val, best_col = state.initial_bests()
    best_val[~state.active] = -np.inf
    none = best_val == -np.inf
    best_val[none], best_col[none] = _NONE, -1
    dirty = np.zeros(n, dtype=bool)
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
        tied = np.flatnonzero(best_val[:r] >= low)
        for row in tied:
            g_a, c_a = refresh(int(row))
            if best_val[row] >= low:
                a, g, c = int(row), g_a, c_a
                break
        if a == r and tied.size:
            g, c = refresh(r)  # the rows refreshed since overwrote its buffer
        b = int(state.feasible_columns(a, g, c, low, budget)[0])
        if until is not None:
            tight = state.budget(until)
            if state.cost(r, top_col) > tight or state.cost(a, b) > tight:
                break
        i, j = a, b  # b > a: a row holds the pairs to its right
        left, g_left, right, g_right = state.merge(i, j)
        done += 1
        if bar is not None:
            bar.update()
        if constrained:
            budget = state.budget(threshold)
        best_val[j], best_col[j], dirty[j] = _NONE, -1, False
        # Rows whose entry was i or j lose it; those before i that i now beats
        # get it (clean rows also on a tie with a later column). The rest go
        # dirty, keeping their bound. The gains are -inf at merged-away slots.
        # Only rows before j can hold j or i.
        stale = np.zeros(n, dtype=bool)
        np.equal(best_col[:j], j, out=stale[:j])
        stale[:i] |= best_col[:i] == i
        bv = best_val[left]
        better = g_left > bv
        tie = g_left == bv
        if tie.any():
            tie &= best_col[left] >= i
            tie &= ~dirty[left]
            better |= tie
        rows = left[better]
        best_val[rows] = g_left[better]
        best_col[rows] = i
        dirty[rows] = False
        stale[rows] = False
        dirty |= stale
        k = int(g_right.argmax()) if g_right.size else -1
        if k >= 0 and g_right[k] > -np.inf:
            best_val[i], best_col[i] = g_right[k], int(right[k])
        else:
            best_val[i], best_col[i] = _NONE, -1
        dirty[i] = False
        if n >= _COMPACT_MIN and state.n_dead >= _COMPACT_FRACTION * n:
            keep, remap = state.compact()
            n = state.n
            best_val, best_col = best_val[keep], remap[best_col[keep]]
            dirty = dirty[keep]
        elif state.n_qdead >= _COMPACT_COLUMNS * state.Q.shape[1]:
            state.compact_columns()
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
        "n_jobs": [Integral, None],
    },
    prefer_skip_nested_validation=True,
)
def greedy_merge(
    joint, *, objective="funnel", threshold=None, lam=None, max_merges=None, verbose=0, n_jobs=None
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
    n_jobs : int, default=None
        Threads for the initial pair costs (on large alphabets, a third to
        40 % of the work; each merge's new costs run on one thread). ``None``
        means 1 unless in a :func:`joblib.parallel_config` context, ``-1`` all
        cores. The result does not depend on it, to the bit.

    Returns
    -------
    MergePath

    Notes
    -----
    With numba installed (the ``fast`` extra), alphabets of at least
    :math:`2 \cdot 10^8` pair entries :math:`n^2 (|S| + 1)` (6300 symbols at
    :math:`|S| = 4`, 4700 at :math:`|S| = 8`) run on compiled kernels: the
    whole path at 20 000 symbols and :math:`|S| = 8` in about half the time
    (``benchmarks/bench_discrete_solvers.py greedy``). Loading them takes about a
    second, compiling them the first time after installation a few more. They
    compute every logarithm with fdlibm's algorithm (error below one ulp, as
    the C library's that numpy calls, from which it differs by one ulp on a few
    inputs), so the path's informations may differ from a run without numba in
    their last digits, and a merge only where two gains differ by about the tie
    tolerance (1e-12 nats).

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
    state = _MergeState(joint, objective, lam, effective_n_jobs(n_jobs))
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
    ...     np.array_equal(path.merges,
    ...                    greedy_merge(joint, threshold=t).merges)
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
