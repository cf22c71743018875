"""Submodular minimisation and IAC-MDSF (submodular-funnel-ding).

:func:`iac_mdsf` merges, at each iteration, the subset that minimises the Lagrangian (Alg. 1),
a difference of submodular functions minimised by :func:`ds_minimize` ("IAC-MDSF" in design.md).
"""

import numpy as np
from scipy.linalg.lapack import dpotrf, dtrtrs
from scipy.special import xlogy
from threadpoolctl import threadpool_limits

from sklearn_privacy.discrete._greedy import OBJECTIVES, _check_joint
from sklearn_privacy.discrete._path import IACPath, cluster_labels
from sklearn_privacy.information import entropy, mutual_information
from sklearn_privacy.utils import NONNEGATIVE, NONNEGATIVE_INTEGER, progress
from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

__all__ = [
    "EntropicSetFunction",
    "IACPath",
    "ds_minimize",
    "iac_mdsf",
    "min_norm_point",
    "step_functions",
]

_TOL = 1e-12
# min_norm_point's certified gap, relative to its tol (and to max(1, ||x||_1)).
_CERT = 1e-2
# Elements per block of pair values in _best_pair (a few MB of temporaries).
_PAIR_BLOCK_ELEMENTS = 1 << 18
# Partners per block of _BestPairs' bounds (fastest of 16-512 at 3000 symbols).
_PAIR_BLOCK = 128


class EntropicSetFunction:
    """``F(W) = sum_k c_k psi(Q_k, W) + sum_{i in W} m_i`` on subsets of ``range(n)``.

    ``psi(Q, W) = sum_{i in W} sum_s Q[s, i] log Q[s, i] - sum_s Q[s, W] log Q[s, W]``
    with ``Q[s, W] = sum_{i in W} Q[s, i]``: ``f`` of Thm. 1 is ``psi(p[None, :], W)``
    and ``g`` is ``psi(P(S, X), W)``. ``psi`` is submodular (minus a concave
    function of a modular one, plus a modular one), so ``F`` is submodular
    when every ``c_k >= 0``. ``F(empty) = F({i}) - m_i = 0``.

    Parameters
    ----------
    terms : list of (float, ndarray of shape (n_rows, n))
        Coefficients and non-negative matrices.
    modular : ndarray of shape (n,), default=None
        Modular part ``m``.
    """

    def __init__(self, terms, modular=None):
        self.terms = [(float(c), np.atleast_2d(np.asarray(q, dtype=float))) for c, q in terms]
        self.n = self.terms[0][1].shape[1] if self.terms else len(modular)
        base = np.zeros(self.n) if modular is None else np.asarray(modular, dtype=float).copy()
        for c, q in self.terms:
            base += c * xlogy(q, q).sum(axis=0)
        self._singles = base  # modular part, including the sum_{i in W} terms of psi

    def modular_part(self):
        """The explicit modular vector ``m``."""
        out = self._singles.copy()
        for c, q in self.terms:
            out -= c * xlogy(q, q).sum(axis=0)
        return out

    def plus_modular(self, m):
        """``F + m`` for a modular ``m``."""
        return EntropicSetFunction(self.terms, self.modular_part() + np.asarray(m, dtype=float))

    def __call__(self, masks):
        """Value on one boolean mask of shape (n,), or on each row of a (k, n) array."""
        masks = np.asarray(masks, dtype=float)
        single = masks.ndim == 1
        masks = np.atleast_2d(masks)
        out = masks @ self._singles
        for c, q in self.terms:
            sums = masks @ q.T  # (k, n_rows)
            out -= c * xlogy(sums, sums).sum(axis=1)
        return float(out[0]) if single else out

    def at(self, mask):
        """Value on one boolean mask, in ``O(n n_rows)`` without a matrix product."""
        mask = np.asarray(mask, dtype=bool)
        out = self._singles[mask].sum()
        for c, q in self.terms:
            sums = q[:, mask].sum(axis=1)
            out -= c * xlogy(sums, sums).sum()
        return float(out)

    def flips(self, mask):
        """Values on the ``n`` sets that differ from ``mask`` in one element, in ``O(n n_rows)``.

        Entry ``j`` is ``F(mask + j)`` for ``j`` outside ``mask`` and ``F(mask - j)``
        inside: the sums over ``mask`` plus or minus column ``j``, so two equal
        columns get bitwise equal values (ties between them go to the smaller index).
        """
        mask = np.asarray(mask, dtype=bool)
        sign = np.where(mask, -1.0, 1.0)
        out = self._singles[mask].sum() + sign * self._singles
        for c, q in self.terms:
            sums = q[:, mask].sum(axis=1)[:, None] + sign * q
            out -= c * xlogy(sums, sums).sum(axis=0)
        return out

    def chain(self, order):
        """Values on the prefixes ``{}, {order[0]}, {order[0], order[1]}, ...`` (length n + 1)."""
        order = np.asarray(order)
        out = np.empty(order.size + 1)
        out[0] = 0.0
        np.cumsum(self._singles[order], out=out[1:])
        for c, q in self.terms:
            sums = np.cumsum(q[:, order], axis=1)
            xlogy(sums, sums, out=sums)
            out[1:] -= c * (sums[0] if sums.shape[0] == 1 else sums.sum(axis=0))
        return out


def _greedy_vertex(F, weights):
    """Vertex of the base polytope of ``F`` minimising ``<weights, q>`` (Edmonds' greedy)."""
    order = np.argsort(weights, kind="stable")
    q = np.empty(F.n)
    q[order] = np.diff(F.chain(order))
    return q


class _Corral:
    """Points of Wolfe's algorithm, their weights, Gram matrix and Cholesky factor.

    ``R`` is upper triangular with ``R^T R = 1 1^T + P^T P`` (Wolfe, 1976): the
    affine minimiser of the points is ``y / sum(y)`` with ``R^T R y = 1``, two
    triangular solves. Adding a point costs ``O(n k)`` (its products with the
    corral) and ``O(k^2)``; dropping points refactors the ``k x k`` matrix
    kept in ``gram`` (LAPACK, ``O(k^3)``, no more often than additions). Buffers grow
    by doubling, so nothing is reallocated per iteration.
    """

    def __init__(self, points, weights):
        n, k = points.shape
        cap = max(8, 2 * k)
        self.points = np.empty((n, cap))
        self.gram = np.empty((cap, cap))
        self.chol = np.zeros((cap, cap))
        self.k = k
        self.points[:, :k] = points
        self.gram[:k, :k] = points.T @ points
        self.weights = np.asarray(weights, dtype=float).copy()

    def factor(self):
        """Refactor ``1 + gram``; False when it is not positive definite."""
        k = self.k
        chol, info = dpotrf(1.0 + self.gram[:k, :k], lower=0, clean=1)
        self.chol[:k, :k] = chol
        return info == 0 and bool(np.isfinite(chol.diagonal()).all())

    def _grow(self):
        n, cap = self.points.shape
        points, gram, chol = self.points, self.gram, self.chol
        self.points = np.empty((n, 2 * cap))
        self.gram = np.empty((2 * cap, 2 * cap))
        self.chol = np.zeros((2 * cap, 2 * cap))
        self.points[:, :cap] = points
        self.gram[:cap, :cap] = gram
        self.chol[:cap, :cap] = chol

    def add(self, q, qq):
        """Append point ``q`` (``qq = q @ q``) with weight 0; False if affinely dependent."""
        k = self.k
        cross = self.points[:, :k].T @ q
        col, _ = dtrtrs(self.chol[:k, :k], 1.0 + cross, lower=0, trans=1)
        rho2 = 1.0 + qq - col @ col
        if not rho2 > 1e-13 * (1.0 + qq):
            return False
        if k == self.points.shape[1]:
            self._grow()
        self.points[:, k] = q
        self.gram[:k, k] = self.gram[k, :k] = cross
        self.gram[k, k] = qq
        self.chol[:k, k] = col
        self.chol[k, :k] = 0.0
        self.chol[k, k] = np.sqrt(rho2)
        self.weights = np.concatenate((self.weights, (0.0,)))
        self.k = k + 1
        return True

    def affine_minimizer(self):
        """Weights (summing to one) of the min-norm point of the points' affine hull."""
        k = self.k
        chol = self.chol[:k, :k]
        y, _ = dtrtrs(chol, np.ones(k), lower=0, trans=1)
        y, _ = dtrtrs(chol, y, lower=0, trans=0)
        return y / y.sum()

    def keep(self, keep):
        """Drop the points where ``keep`` is False and refactor."""
        idx = np.flatnonzero(keep)
        k = self.k
        # Shift the later points over each dropped one: slices copy several times
        # faster than gathering the kept columns of the (n, cap) array.
        for j in np.flatnonzero(~keep[:k])[::-1]:
            self.points[:, j : k - 1] = self.points[:, j + 1 : k]
            self.gram[j : k - 1, :k] = self.gram[j + 1 : k, :k]
            self.gram[:k, j : k - 1] = self.gram[:k, j + 1 : k]
            k -= 1
        self.weights = self.weights[idx] / self.weights[idx].sum()
        self.k = k
        return self.factor()

    def point(self):
        return self.points[:, : self.k] @ self.weights


def min_norm_point(F, *, tol=1e-10, max_iter=10000):
    """Minimise a submodular set function with the min-norm-point algorithm.

    Wolfe's algorithm finds the point ``x*`` of minimum norm in the base
    polytope of ``F``; the sets ``{e : x*_e < t}`` contain a minimiser
    (Fujishige's theorem). Every iterate ``x`` lies in the base polytope, so
    ``F(W) >= x(W) >= sum_e min(x_e, 0)`` for every set ``W``: the level sets
    of each iterate are evaluated (they come with Edmonds' greedy step at no
    extra cost) and the algorithm stops as soon as the best set seen is
    certified optimal by this bound, usually long before ``x`` converges.

    Parameters
    ----------
    F : object
        Submodular with ``F(empty) = 0``: an attribute ``n`` and a method
        ``chain(order)`` giving ``F`` on the ``n + 1`` prefixes of ``order``
        (e.g. :class:`EntropicSetFunction`).
    tol : float, default=1e-10
        Stop when the certified gap ``F(W) - sum_e min(x_e, 0)`` falls below
        ``tol / 100 * max(1, ||x||_1)``, or when Wolfe's gap
        ``||x||^2 - min_q <x, q>`` falls below ``tol * max(1, max_q ||q||^2)``.
    max_iter : int, default=10000
        Largest number of major cycles.

    Returns
    -------
    mask : ndarray of bool of shape (n,)
        A minimiser: the best level set of the iterates.
    value : float
        ``F(mask)``.
    x : ndarray of shape (n,)
        The last iterate (the min-norm point when Wolfe's gap stopped it).

    Examples
    --------
    The ``"ssp"`` procedure of :func:`~sklearn_privacy.discrete.iac_mdsf` runs
    it at every iteration. At ``lam = 0`` the funnel's step minimises the
    leakage after the merge, and one step merges every symbol (no leakage left):

    >>> import numpy as np
    >>> from sklearn_privacy.discrete import iac_mdsf
    >>> joint = np.array([[0.25, 0.1, 0.05, 0.05, 0.05],
    ...                   [0.05, 0.15, 0.05, 0.2, 0.05]])
    >>> path = iac_mdsf(joint, lam=0.0, solver="ssp")
    >>> merged = [w.tolist() for w in path.merged_sets]
    >>> merged, round(float(path.leakage[-1]), 12)
    ([[0, 1, 2, 3, 4]], 0.0)
    """
    n = F.n
    corral = _Corral(_greedy_vertex(F, np.zeros(n))[:, None], [1.0])
    corral.factor()
    x = corral.point()
    best_value, best = 0.0, np.zeros(0, dtype=np.int64)  # the empty set, F = 0
    scale = max(1.0, float(np.max(np.diag(corral.gram[: corral.k, : corral.k]))))
    xx_prev = np.inf
    for _ in range(max_iter):
        order = np.argsort(x, kind="stable")
        chain = F.chain(order)
        k = int(np.argmin(chain))
        if chain[k] < best_value:
            best_value, best = float(chain[k]), order[:k].copy()
        # x lies in the base polytope: F(W) >= x(W) >= sum_e min(x_e, 0) for every W.
        if best_value - np.minimum(x, 0.0).sum() <= _CERT * tol * max(1.0, np.abs(x).sum()):
            break
        q = np.empty(n)
        q[order] = np.diff(chain)
        qq = float(q @ q)
        scale = max(scale, qq)
        xx = float(x @ x)
        # Wolfe's gap; a norm that no longer decreases, or a point in the corral's
        # affine hull, means no progress is possible in floating point.
        if xx - x @ q <= tol * scale or xx >= xx_prev or not corral.add(q, qq):
            break
        xx_prev = xx
        while True:  # minor cycles
            alpha = corral.affine_minimizer()
            if alpha.min() > 1e-14:
                corral.weights = alpha
                break
            lam = corral.weights
            neg = alpha <= 1e-14
            step = lam[neg] / np.maximum(lam[neg] - alpha[neg], 1e-300)
            theta = min(1.0, float(step.min()))
            lam = (1 - theta) * lam + theta * alpha
            keep = lam > 1e-14
            if keep.all():
                keep[np.argmin(lam)] = False
            corral.weights = lam
            if not corral.keep(keep):
                # Not positive definite in floating point: stop at the last iterate.
                corral.weights = None
                break
        if corral.weights is None:
            break
        x = corral.point()
    mask = np.zeros(n, dtype=bool)
    mask[best] = True
    return mask, best_value, x


def _is_concave_of_one(F):
    """Whether ``F(W) = m(W) - c q(W) log q(W)`` with one row ``q > 0`` and ``c >= 0``."""
    terms = F.terms
    return (
        len(terms) == 1
        and terms[0][1].shape[0] == 1
        and terms[0][0] >= 0
        and bool(np.all(terms[0][1] > 0))
    )


def _level_set_minimum(F):
    """A minimiser of ``F(W) = m(W) - c q(W) log q(W)`` (``c >= 0``, ``q > 0``) in ``O(n log n)``.

    With ``w_i = m_i + c q_i log q_i`` (``F``'s singles), ``F(W) = w(W) + psi(q(W))``
    for the concave ``psi(t) = -c t log t``, the infimum of its tangents
    ``a(mu) + mu t``: ``min_W F(W) = min_mu [a(mu) + min_W sum_{i in W} (w_i + mu q_i)]``,
    and for each ``mu`` the inner minimum is the set ``{i : w_i / q_i < -mu}``. A
    minimiser is therefore a prefix of the elements sorted by ``w_i / q_i``: the
    ``n + 1`` prefixes are one chain, and the first smallest is returned. This is
    the funnel's SSP step (``A = (1 - lam) f`` is such a function, and ``-h`` is
    modular), solved exactly instead of by :func:`min_norm_point`'s iterations.
    """
    ((_, q),) = F.terms
    order = np.argsort(F._singles / q[0], kind="stable")
    mask = np.zeros(F.n, dtype=bool)
    mask[order[: int(np.argmin(F.chain(order)))]] = True
    return mask


class _Difference:
    """``A - B`` for two :class:`EntropicSetFunction`."""

    def __init__(self, A, B):
        self.A, self.B, self.n = A, B, A.n

    def __call__(self, masks):
        return self.A(masks) - self.B(masks)

    def at(self, mask):
        return self.A.at(mask) - self.B.at(mask)

    def flips(self, mask):
        return self.A.flips(mask) - self.B.flips(mask)


def _modular_lower_bound(B, mask, added):
    """Modular lower bound of ``B`` tight at ``mask`` (a chain through ``mask``).

    Inside ``mask`` the elements follow their index; outside, the ones whose
    addition lowers ``A - B`` the most come first (``added[j]``, its value
    on ``mask + j``; a stable sort), so their bound is exact.
    """
    inside = np.flatnonzero(mask)
    outside = np.flatnonzero(~mask)
    outside = outside[np.argsort(added[outside], kind="stable")]
    order = np.concatenate([inside, outside]).astype(np.int64)
    h = np.empty(B.n)
    h[order] = np.diff(B.chain(order))
    return h


def _modular_upper_bounds(A, mask, flip_values):
    """The two modular upper bounds of submodular ``A`` tight at ``mask`` (Nemhauser et al.).

    ``flip_values`` is ``A.flips(mask)``. Returned as weights ``w`` with
    ``m(X) = const + sum_{j in X} w_j``; every value comes from ``O(n)``
    one-element changes of ``mask``, the empty set and the full set.
    """
    n = A.n
    value = A.at(mask)
    # A(j | mask - j) for j in mask, A(j | mask) for j outside.
    at_mask = np.where(mask, value - flip_values, flip_values - value)
    singles = A.flips(np.zeros(n, dtype=bool))  # A(j | empty)
    full = np.ones(n, dtype=bool)
    at_full = A.at(full) - A.flips(full)  # A(j | V - j)
    w1 = np.where(mask, at_mask, singles)
    w2 = np.where(mask, at_full, at_mask)
    return w1, w2


def ds_minimize(A, B, *, solver="ssp", init=None, max_iter=200, polish=True):
    """Locally minimise ``A(W) - B(W)`` for submodular ``A`` and ``B``.

    Parameters
    ----------
    A, B : EntropicSetFunction
        Submodular (non-negative coefficients).
    solver : {"ssp", "mm"}, default="ssp"
        Submodular-supermodular procedure (inner min-norm-point) or
        modular-modular procedure.
    init : ndarray of bool of shape (n,), default=None
        Starting set (empty by default).
    max_iter : int, default=200
        Largest number of DS iterations.
    polish : bool, default=True
        At convergence, try every one-element addition/removal and continue
        from the best improving one, so that the result is a local minimum.

    Returns
    -------
    mask : ndarray of bool of shape (n,)
    value : float
        ``A(mask) - B(mask)``.
    trace : list of float
        ``A - B`` after each iteration (non-increasing).
    """
    if solver not in ("ssp", "mm"):
        raise ValueError(f"solver must be 'ssp' or 'mm', got {solver!r}.")
    n = A.n
    mask = np.zeros(n, dtype=bool) if init is None else np.asarray(init, dtype=bool).copy()
    value = A.at(mask) - B.at(mask)
    trace = [value]
    for _ in range(max_iter):
        # The n one-element changes of mask, in O(n) each: their values order the
        # chain of the lower bound (additions) and are the polishing candidates.
        flips_A = A.flips(mask)
        flips = flips_A - B.flips(mask)
        h = _modular_lower_bound(B, mask, flips)
        if solver == "ssp":
            G = A.plus_modular(-h)
            candidates = [_level_set_minimum(G) if _is_concave_of_one(G) else min_norm_point(G)[0]]
        else:
            candidates = [(w - h) < 0 for w in _modular_upper_bounds(A, mask, flips_A)]
        n_ds = len(candidates)
        values = np.array([A.at(c) - B.at(c) for c in candidates])
        if polish:
            values = np.concatenate([values, flips])
        k = int(np.argmin(values))
        # DS step first; the one-element moves only when it makes no progress.
        ds_best = int(np.argmin(values[:n_ds]))
        if values[ds_best] < value - _TOL:
            k = ds_best
        elif values[k] >= value - _TOL:
            break
        if k < n_ds:
            mask = candidates[k].copy()
        else:
            mask = mask.copy()
            mask[k - n_ds] = not mask[k - n_ds]
        value = float(values[k])
        trace.append(value)
    return mask, value, trace


def step_functions(joint, lam, objective="funnel"):
    """``(A, B)`` of one IAC-MDSF step on the current ``joint[s, y]``: minimise ``A - B``.

    ``objective="funnel"``: ``A = (1 - lam) f``, ``B = g`` (eq. 5), for
    ``lam <= 1``; ``objective="bottleneck"``: ``A = g``, ``B = (1 - lam) f``
    (eq. 7) for ``lam <= 1``, and ``A = g + (lam - 1) f``, ``B = 0`` for
    ``lam > 1`` (``-(1 - lam) f`` is then submodular itself, so the step is a
    plain submodular minimisation).
    """
    joint = np.asarray(joint, dtype=float)
    p = joint.sum(axis=0)[None, :]
    g = EntropicSetFunction([(1.0, joint)])
    if objective == "funnel":
        return EntropicSetFunction([(1.0 - lam, p)]), g
    if lam <= 1.0:
        return g, EntropicSetFunction([(1.0 - lam, p)])
    return EntropicSetFunction([(1.0, joint), (lam - 1.0, p)]), EntropicSetFunction(
        [], modular=np.zeros(joint.shape[1])
    )


def _pairs(F, a, b):
    """``F({a, b})`` for broadcastable index arrays ``a`` and ``b`` (elementwise).

    ``F`` is an :class:`EntropicSetFunction` or a :class:`_Difference` of two;
    ``psi`` of a pair needs only the two columns, so no mask is built. Every
    value is computed from the two columns alone by the same operations,
    wherever it is computed (a block, a row, the pairs of a merged symbol):
    floating-point addition commutes, so ``F({a, b})`` is bitwise ``F({b, a})``.
    """
    if isinstance(F, _Difference):
        out = _pairs(F.A, a, b)
        out -= _pairs(F.B, a, b)
        return out
    singles = F._singles
    out = singles[a] + singles[b]
    for c, q in F.terms:
        sums = q[:, a] + q[:, b]
        out -= c * xlogy(sums, sums).sum(axis=0)
    return out


def _pair_block(F, rows, cols=None):
    """``F({a, b})`` for ``a`` in ``rows`` and ``b`` in ``cols`` (all by default).

    Shape ``(len(rows), len(cols))``; a block costs ``O(len(rows) len(cols) n_rows)``.
    """
    cols = np.arange(F.n) if cols is None else np.asarray(cols)
    return _pairs(F, np.asarray(rows)[:, None], cols[None, :])


def _depth(F):
    return max(1, sum(q.shape[0] for _, q in _terms(F)))


def _block_rows(F, n):
    return max(1, _PAIR_BLOCK_ELEMENTS // max(1, n * _depth(F)))


def _best_pair(F, n):
    """Best two-element set of ``F`` (the pairwise greedy's choice), first in ``(a, b)`` order.

    Evaluated from scratch in row blocks of the upper triangle: ``O(n^2)`` time
    per row of the terms' matrices, ``O(n)`` memory per block row. IAC-MDSF keeps
    the same choice up to date across merges (:class:`_BestPairs`); this is its
    reference.
    """
    rows = _block_rows(F, n)
    best_value, best = np.inf, None
    for start in range(0, n - 1, rows):
        stop = min(n - 1, start + rows)
        block = _pair_block(F, np.arange(start, stop))
        # Only b > a: the strict upper triangle of the block.
        block[np.arange(n)[None, :] <= np.arange(start, stop)[:, None]] = np.inf
        k = int(np.argmin(block))
        value = float(block.flat[k])
        if value < best_value:
            best_value, best = value, (start + k // n, k % n)
    mask = np.zeros(n, dtype=bool)
    if best is None:
        return mask, float(np.inf)
    mask[list(best)] = True
    return mask, best_value


class _BestPairs:
    """The first best pair of IAC-MDSF's step function, kept up to date across merges.

    ``F({a, b})`` depends on columns ``a`` and ``b`` alone and the multiplier is
    fixed for the run, so a merge of ``W`` into its first member ``t`` changes
    only the pairs with ``t`` (and removes the pairs with the rest of ``W``).
    No pair value is stored: the partners of each row ``a`` (the symbols after
    ``a``) are cut into blocks of consecutive original symbols, and
    ``low[k, a]`` is a lower bound of row ``a``'s pairs in block ``k``, exact
    where ``exact[k, a]`` (then ``arg[k, a]`` is the first symbol reaching it).
    A merge recomputes the row of ``t`` (``O(n n_rows)``), lowers or keeps the
    bounds of the column of ``t`` and makes inexact the blocks whose best
    partner it removed or made worse (their old value stays a lower bound). An
    inexact block is recomputed (``O(block n_rows)``) only when its row holds
    the smallest bound. The pair found is the first best pair in ``(a, b)``
    order, bitwise the value :func:`_best_pair` computes from scratch. Memory
    ``O(n^2 / block)``.

    Parameters
    ----------
    F : EntropicSetFunction or _Difference
        The step function ``A - B`` on the initial alphabet.
    block : int
        Symbols per block.
    """

    def __init__(self, F, block):
        n = F.n
        self.n, self.block = n, block
        self.n_blocks = -(-n // block)
        self.ids = np.arange(n)  # original symbol at each current index
        self.position = np.arange(n)  # current index of each original symbol
        self.alive = np.ones(n, dtype=bool)
        self.low = np.full((self.n_blocks, n), np.inf)
        self.arg = np.zeros((self.n_blocks, n), dtype=np.int64)
        self.exact = np.ones((self.n_blocks, n), dtype=bool)
        step = _block_rows(F, n)
        for start in range(0, n - 1, step):
            rows = np.arange(start, min(n - 1, start + step))
            pairs = np.full((rows.size, n), np.inf)
            # The upper triangle only: b > a.
            pairs[:, start + 1 :] = _pair_block(F, rows, np.arange(start + 1, n))
            pairs[np.arange(n)[None, :] <= rows[:, None]] = np.inf
            self._set_rows(rows, pairs)
        self.row_low = self.low.min(axis=0)

    def _set_rows(self, rows, pairs):
        """Exact blocks of ``rows`` from their pairs with every original symbol (inf: none)."""
        padded = np.full((rows.size, self.n_blocks * self.block), np.inf)
        padded[:, : self.n] = pairs
        padded = padded.reshape(rows.size, self.n_blocks, self.block)
        arg = np.argmin(padded, axis=2)
        self.low[:, rows] = np.take_along_axis(padded, arg[:, :, None], axis=2)[:, :, 0].T
        self.arg[:, rows] = (arg + self.block * np.arange(self.n_blocks)).T
        self.exact[:, rows] = True

    def best(self, F):
        """The first best pair as a mask over the current alphabet, and its value.

        ``F`` is the step function on the current alphabet. While the row holding the
        smallest bound has an inexact first smallest block, every inexact block
        whose bound is at most the smallest exact value is recomputed (one
        batch). Every other row's bound is then at least the value found, and
        larger in the rows before it, so the pair is the first best one.
        """
        mask = np.zeros(self.ids.size, dtype=bool)
        while True:
            a = int(np.argmin(self.row_low))
            value = self.row_low[a]
            if not np.isfinite(value):
                return mask, float(np.inf)
            k = int(np.argmax(self.low[:, a] == value))
            if self.exact[k, a]:
                mask[self.position[[a, self.arg[k, a]]]] = True
                return mask, float(value)
            top = np.min(self.low, where=self.exact, initial=np.inf)
            self._recompute(F, *np.nonzero(~self.exact & (self.low <= top)))

    def _recompute(self, F, blocks, rows):
        """Exact values of the blocks ``(blocks[i], rows[i])`` on the current alphabet.

        The live symbols of a block are consecutive in the current alphabet, so
        each block's rows are paired with one slice of columns.
        """
        starts = np.searchsorted(self.ids, np.arange(self.n_blocks + 1) * self.block)
        for k in np.unique(blocks):
            a = rows[blocks == k]
            lo, hi = starts[k], starts[k + 1]
            if lo == hi:
                self.low[k, a] = np.inf
                self.exact[k, a] = True
                continue
            step = max(1, _PAIR_BLOCK_ELEMENTS // ((hi - lo) * _depth(F)))
            for start in range(0, a.size, step):
                r = a[start : start + step]
                pairs = _pairs(F, self.position[r][:, None], np.arange(lo, hi)[None, :])
                pairs[self.ids[None, lo:hi] <= r[:, None]] = np.inf
                j = np.argmin(pairs, axis=1)
                self.low[k, r] = pairs[np.arange(r.size), j]
                self.arg[k, r] = self.ids[lo + j]
                self.exact[k, r] = True
        rows = np.unique(rows)
        self.row_low[rows] = self.low[:, rows].min(axis=0)

    def merge(self, F, members):
        """Update after merging ``members`` (current indices, sorted) into ``members[0]``.

        ``F`` is the step function on the merged alphabet.
        """
        t = int(self.ids[members[0]])
        removed = self.ids[members[1:]]
        keep = np.ones(self.ids.size, dtype=bool)
        keep[members[1:]] = False
        self.ids = self.ids[keep]
        self.position[self.ids] = np.arange(self.ids.size)
        # Blocks whose best partner was removed: their value stays a lower bound.
        for k in np.unique(removed // self.block):
            hit = np.isin(self.arg[k], removed) & self.exact[k] & self.alive
            self.exact[k, hit] = False
        self.alive[removed] = False
        self.row_low[removed] = np.inf
        self.low[:, removed] = np.inf
        self.exact[:, removed] = True
        pairs = np.full(self.n, np.inf)
        pairs[self.ids] = _pair_block(F, self.position[[t]])[0]  # F({t, b}) for every b
        # Rows before t: their pair with t in block k changed to new.
        k = t // self.block
        rows = self.ids[: self.position[t]]
        new, low, arg = pairs[rows], self.low[k, rows], self.arg[k, rows]
        exact = self.exact[k, rows]
        was_best = exact & (arg == t)
        # The best partner got worse: the old value bounds the block from below.
        self.exact[k, rows[was_best & (new > low)]] = False
        # t is now the block's first best: below a bound, or at an exact value from before t.
        wins = (new < low) | (exact & (new == low) & ((arg == t) | (t < arg)))
        wins &= ~(was_best & (new > low))
        self.low[k, rows[wins]] = new[wins]
        self.arg[k, rows[wins]] = t
        self.exact[k, rows[wins]] = True
        self.row_low[rows] = np.minimum(self.row_low[rows], self.low[k, rows])
        # Row t: its pairs with the symbols after it.
        pairs[: t + 1] = np.inf
        self._set_rows(np.array([t]), pairs[None, :])
        self.row_low[t] = self.low[:, t].min()


def _terms(F):
    return _terms(F.A) + _terms(F.B) if isinstance(F, _Difference) else list(F.terms)


@validate_params(
    {
        "joint": ["array-like"],
        "lam": [NONNEGATIVE],
        "objective": [OBJECTIVES],
        "solver": [StrOptions({"ssp", "mm"})],
        "max_iter": [NONNEGATIVE_INTEGER, None],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def iac_mdsf(joint, lam, *, objective="funnel", solver="ssp", max_iter=None, verbose=0):
    r"""IAC-MDSF (submodular-funnel-ding, Alg. 1) on a joint pmf :math:`P(S, X)`.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_x)
        Joint pmf :math:`P(S, X)`.
    lam : float
        Multiplier of the Lagrangian :math:`I(S;Y) - \text{lam}\, I(X;Y)` (the
        paper's :math:`\lambda`, in nats per nat). In [0, 1] for the funnel (at
        :math:`\text{lam} \ge 1` no merge lowers it); any :math:`\text{lam} \ge 0`
        for the bottleneck (above 1 the one-symbol release maximises it).
    objective : {"funnel", "bottleneck"}, default="funnel"
        Minimise (privacy funnel, eq. 5) or maximise (information bottleneck,
        eq. 7) the Lagrangian.
    solver : {"ssp", "mm"}, default="ssp"
        DS procedure of each step (see :func:`ds_minimize`).
    max_iter : int, default=None
        Largest number of merging iterations.
    verbose : int, default=0
        When positive, a progress bar over the iterations.

    Returns
    -------
    IACPath

    See Also
    --------
    greedy_merge : The greedy privacy funnel (Alg. 1) or bottleneck (Alg. 2).
    SubmodularFunnel : Estimator that runs IAC-MDSF on data.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import iac_mdsf
    >>> joint = np.array([[0.3, 0.1, 0.05, 0.05], [0.05, 0.2, 0.05, 0.2]])
    >>> path = iac_mdsf(joint, lam=0.0)
    >>> path.n_iter, round(float(path.leakage[-1]), 12)
    (1, 0.0)
    """
    joint = _check_joint(joint)
    top = 1.0 if objective == "funnel" else np.inf
    if not (0.0 <= lam <= top):
        raise ValueError(f"lam must lie in [0, {top}] for objective={objective!r}, got {lam!r}.")
    n = joint.shape[1]
    columns = joint.copy()
    ids = np.arange(n)  # smallest original member of each current symbol
    assign = np.arange(n)

    def record(cols):
        leak, disc = mutual_information(cols), entropy(cols.sum(axis=0))
        return leak, disc, leak - lam * disc

    leak, disc, lagr = record(columns)
    leakage, disclosure, lagrangian = [leak], [disc], [lagr]
    merged_sets, ds_iterations, n_solves = [], [], 0
    # One BLAS thread: the products are small and a second thread only adds
    # synchronisation (several times slower on a loaded machine).
    pairs = members = None
    with (
        threadpool_limits(limits=1, user_api="blas"),
        progress(total=max(n - 1, 0), verbose=verbose, desc="IAC-MDSF (symbols merged)") as bar,
    ):
        while columns.shape[1] > 1 and (max_iter is None or len(merged_sets) < max_iter):
            A, B = step_functions(columns, lam, objective)
            F = _Difference(A, B)
            if members is None:
                pairs = _BestPairs(F, _PAIR_BLOCK)
            else:  # the pairs of the last merge's symbol changed, no other
                pairs.merge(F, members)
            init, init_value = pairs.best(F)
            if init_value >= -_TOL:
                init = None
            mask, value, trace = ds_minimize(A, B, solver=solver, init=init)
            n_solves += 1
            if mask.sum() <= 1 or value >= -_TOL:
                break
            members = np.flatnonzero(mask)
            merged_sets.append(ids[members])
            ds_iterations.append(len(trace) - 1)
            target = members[0]
            assign[np.isin(assign, ids[members[1:]])] = ids[target]
            columns[:, target] = columns[:, members].sum(axis=1)
            keep = np.ones(columns.shape[1], dtype=bool)
            keep[members[1:]] = False
            columns, ids = columns[:, keep], ids[keep]
            leak, disc, lagr = record(columns)
            leakage.append(leak)
            disclosure.append(disc)
            lagrangian.append(lagr)
            bar.update(members.size - 1)
    return IACPath(
        merged_sets,
        np.asarray(leakage),
        np.asarray(disclosure),
        np.asarray(lagrangian),
        cluster_labels(assign),
        ds_iterations,
        n_solves,
    )
