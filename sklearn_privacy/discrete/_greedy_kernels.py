"""The greedy funnel's pair costs, compiled with numba for large alphabets.

Imported only when numba is installed (the ``fast`` extra) and an alphabet is large
enough to pay for loading it (``_COMPILED_MIN`` in :mod:`._greedy`). Numpy's ``log``
calls the C library one value at a time (about 8 ns here, two thirds of a merge);
:func:`log` below is fdlibm's algorithm (``e_log.c``: a reduction to ``[sqrt(2)/2,
sqrt(2))`` and a degree-14 odd polynomial in ``s = f / (2 + f)``, error below 1 ulp),
written without branches so that LLVM runs four values at a time. It rounds like the C
library's on about 96 % of inputs and 1 ulp away on the rest, so a greedy state uses
one logarithm throughout: every cost, potential and ``x log x`` of a compiled state
comes from here (``benchmarks/_textbook_greedy.fdlibm_log`` writes the same operations
in numpy, the tests' reference). The kernels release the GIL: the greedy's threads run
them side by side.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

# The greedy's modes: what a row stores and what it maximises ("Greedy funnel", design.md).
FUNNEL, BOTTLENECK, LAM_FUNNEL, LAM_BOTTLENECK = 0, 1, 2, 3

# fdlibm's log: ln 2 in two parts and the polynomial's coefficients.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
# Bits of a double just below sqrt(2)/2: x - _OFF carries the exponent k with
# x / 2^k in [sqrt(2)/2, sqrt(2)).
_OFF = 0x3FE6A09E00000000
# 1.5 * 2^52: k + its bits, read as a double, is k + 1.5 * 2^52 exactly.
_MAGIC_BITS, _MAGIC = 0x4338000000000000, 6755399441055744.0

_jit = numba.njit(nogil=True, cache=True, error_model="numpy")


@intrinsic
def _bits(typingctx, x):
    """The bits of a double as an int64 (no conversion)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _double(typingctx, x):
    """An int64's bits as a double (no conversion)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _exponent(typingctx, x):
    """The top 12 bits of an int64 as a signed number (a shift that vectorises)."""

    def codegen(context, builder, signature, args):
        top = builder.lshr(args[0], ir.Constant(ir.IntType(64), 52))
        sign = ir.Constant(ir.IntType(64), 0x800)
        return builder.sub(builder.xor(top, sign), sign)

    return types.int64(types.int64), codegen


@numba.njit(inline="always", error_model="numpy")
def log(x):
    """Natural logarithm of a positive normal double (fdlibm's, error below 1 ulp)."""
    ix = _bits(x)
    shifted = ix - _OFF
    k = _exponent(shifted)
    f = _double(ix - (shifted & (-1 << 52))) - 1.0
    dk = _double(k + _MAGIC_BITS) - _MAGIC
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    odd = w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    even = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6])))
    r = even + odd
    hfsq = 0.5 * f * f
    return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)


@_jit
def logs(x, out):
    """:func:`log` of every entry of ``x`` (1-D), for the tests."""
    for i in range(x.size):
        out[i] = log(x[i])


@_jit
def xlogx(x, tiny, out):
    """``x log(x + tiny)`` of every entry of ``x`` (1-D)."""
    for i in range(x.size):
        out[i] = x[i] * log(x[i] + tiny)


# The loops below run over 1-D slices from index 0: LLVM vectorises those, not the same
# loops over ``range(lo, hi)`` of a 2-D array (whose index it cannot prove non-negative).


@_jit
def merged_potentials(Q, q, tiny, lo, hi, phi_m, h_m):
    """``phi`` and ``p log p`` of the columns ``lo:hi`` of ``Q`` each merged with ``q``.

    ``phi = sum_s m_s log(m_s + tiny) - m_p log(m_p + tiny)`` of the merged column
    ``m``, summed in the order of ``s``; one pass a row of ``Q``.
    """
    last = Q.shape[0] - 1
    phi, h = phi_m[lo:hi], h_m[lo:hi]
    row, qs = Q[0, lo:hi], q[0]
    for c in range(row.size):
        m = row[c] + qs
        phi[c] = m * log(m + tiny)
    for s in range(1, last):
        row, qs = Q[s, lo:hi], q[s]
        for c in range(row.size):
            m = row[c] + qs
            phi[c] += m * log(m + tiny)
    row, qs = Q[last, lo:hi], q[last]
    for c in range(row.size):
        m = row[c] + qs
        h[c] = m * log(m + tiny)
        phi[c] -= h[c]


@_jit
def initial_rows(Q, phi, h, D, off, best_val, best_col, first, step, mode, lam, tiny):
    """Rows ``first, first + step, ...`` of the packed triangle ``D`` and their best pairs.

    Row ``t`` stores the pairs ``(t, c > t)`` at ``D[off[t] + c - t - 1]``: the
    leakage decrease ``max((phi_t + phi_c) - phi_tc, 0)``, or in the Lagrangian
    modes the gain; ``best_val[t], best_col[t]`` is its first largest gain (the
    disclosure decrease in :data:`BOTTLENECK` mode).
    """
    n = Q.shape[1]
    phi_m, h_m, dx = np.empty(n), np.empty(n), np.empty(n)
    for t in range(first, n - 1, step):
        merged_potentials(Q, Q[:, t], tiny, t + 1, n, phi_m, h_m)
        stored = D[off[t] : off[t] + n - t - 1]
        phi_c, pm, h_c, hm, d = phi[t + 1 :], phi_m[t + 1 :], h[t + 1 :], h_m[t + 1 :], dx[t + 1 :]
        phi_t, h_t = phi[t], h[t]
        for c in range(stored.size):
            stored[c] = max((phi_t + phi_c[c]) - pm[c], 0.0)
        if mode != FUNNEL:
            for c in range(d.size):
                d[c] = hm[c] - (h_t + h_c[c])
        if mode == LAM_FUNNEL:
            for c in range(d.size):
                stored[c] = d[c] * -lam + stored[c]
        elif mode == LAM_BOTTLENECK:
            for c in range(d.size):
                stored[c] = d[c] * lam - stored[c]
        gains = d if mode == BOTTLENECK else stored
        k = 0
        for c in range(1, gains.size):
            if gains[c] > gains[k]:
                k = c
        best_val[t], best_col[t] = gains[k], t + 1 + k
