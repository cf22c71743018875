"""fdlibm's ``log`` and ``exp`` for the compiled kernels (numba, the ``fast`` extra).

Numpy's ``log`` and ``exp`` call the C library one value at a time (about 8 ns each on
these machines, without AVX-512); these are fdlibm's algorithms (``e_log.c``: a
reduction to ``[sqrt(2)/2, sqrt(2))`` and a degree-14 odd polynomial in ``s = f / (2 +
f)``; ``e_exp.c``: ``x = k ln 2 + r`` and a rational form in ``r``), both with errors
below one ulp, written without branches so that LLVM runs four values at a time (about
2 ns). They round like the C library's on most inputs (the log on 96-99.9 %, the exp on
about 90 %) and one ulp away on the rest. ``tests/_fdlibm_reference.fdlibm_log`` writes
the log's operations in numpy, with constants of its own: the tests' reference, to the
bit; both are checked against mpmath (``tests/discrete/test_fdlibm.py``).
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

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

#: The kernels' decorator: compiled once and cached on disk, the GIL released, and
#: division without Python's zero check (which keeps LLVM from vectorising a loop).
jit = numba.njit(nogil=True, cache=True, error_model="numpy")


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


# fdlibm's exp: 1/ln 2 and the polynomial's coefficients.
_INV_LN2 = 1.44269504088896338700e00
_P = (
    1.66666666666666019037e-01,
    -2.77777777770155933842e-03,
    6.61375632143793436117e-05,
    -1.65339022054652515390e-06,
    4.13813679705723846039e-08,
)


@numba.njit(inline="always", error_model="numpy")
def exp(x):
    """``e^x`` for ``-700 <= x <= 700`` (fdlibm's, error below 1 ulp).

    ``x = k ln 2 + r`` with ``k`` the nearest integer to ``x / ln 2`` (so
    ``|r| <= ln 2 / 2``), ``e^r`` by a rational form in ``r`` and ``2^k`` added
    to the exponent's bits: outside that range the result is not a normal number
    and this is wrong.
    """
    k = np.floor(x * _INV_LN2 + 0.5)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    z = r * r
    c = r - z * (_P[0] + z * (_P[1] + z * (_P[2] + z * (_P[3] + z * _P[4]))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    return _double(_bits(y) + ((_bits(k + _MAGIC) - _MAGIC_BITS) << 52))


@jit
def logs(x, out):
    """:func:`log` of every entry of ``x`` (1-D), for the tests."""
    for i in range(x.size):
        out[i] = log(x[i])


@jit
def exps(x, out):
    """:func:`exp` of every entry of ``x`` (1-D), for the tests."""
    for i in range(x.size):
        out[i] = exp(x[i])
