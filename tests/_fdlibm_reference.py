"""fdlibm's ``log`` in numpy, operation for operation: the tests' reference of the kernels'.

Written from Sun's ``e_log.c`` (fdlibm 5.3), its constants transcribed from the bit
patterns printed beside them there (``/* 3FE55555 55555593 */``), not from
:mod:`sklearn_privacy.discrete._fdlibm`: a wrong coefficient on either side breaks the
to-the-bit comparison, and :mod:`mpmath` checks this one's accuracy apart
(``tests/discrete/test_fdlibm.py``).
"""

import struct

import numpy as np

__all__ = ["LG", "LN2_HI", "LN2_LO", "fdlibm_log"]


def _word(hi, lo):
    """The double whose bits are the two 32-bit words ``hi``, ``lo``."""
    return struct.unpack(">d", struct.pack(">II", hi, lo))[0]


LN2_HI = _word(0x3FE62E42, 0xFEE00000)
LN2_LO = _word(0x3DEA39EF, 0x35793C76)
#: Lg1 ... Lg7, the coefficients of ``R(z)`` in ``log(1 + f) = f - s (f - R)``.
LG = (
    _word(0x3FE55555, 0x55555593),
    _word(0x3FD99999, 0x9997FA04),
    _word(0x3FD24924, 0x94229359),
    _word(0x3FCC71C5, 0x1D8E78AF),
    _word(0x3FC74664, 0x96CB03DE),
    _word(0x3FC39A09, 0xD078C69F),
    _word(0x3FC2F112, 0xDF3E5244),
)
# The high word of sqrt(2)/2 (e_log.c's 0x95f64 + 0x3ff00000 - 0x100000, rounded down
# to a word boundary): x / 2^k is reduced into [sqrt(2)/2, sqrt(2)).
_SQRT_HALF_BITS = 0x3FE6A09E << 32


def fdlibm_log(x, lg=LG):
    """fdlibm's natural logarithm of positive normal doubles (``lg``: the coefficients).

    Reduce ``x = 2^k (1 + f)`` with ``1 + f`` in ``[sqrt(2)/2, sqrt(2))``, ``s = f /
    (2 + f)``, ``log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2)))`` with ``R`` split in
    its odd and even powers of ``s^2`` as ``e_log.c`` sums them; numpy's integer views
    stand for C's bit casts.
    """
    x = np.asarray(x, dtype=float)
    bits = x.view(np.int64)
    shifted = bits - np.int64(_SQRT_HALF_BITS)
    k = shifted >> 52  # arithmetic shift: the signed exponent
    f = (bits - (shifted & np.int64(-1 << 52))).view(np.float64) - 1.0
    dk = k.astype(float)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (lg[1] + w * (lg[3] + w * lg[5]))
    t2 = z * (lg[0] + w * (lg[2] + w * (lg[4] + w * lg[6])))
    r = t2 + t1
    hfsq = 0.5 * f * f
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
