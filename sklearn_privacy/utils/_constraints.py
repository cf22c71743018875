"""Parameter constraints (scikit-learn ``Interval`` objects) shared by the library's validators.

An ``Interval`` admits ``inf`` only when its bound is ``inf`` and closed: hence
:data:`NONNEGATIVE_OR_INF` beside :data:`NONNEGATIVE`.
"""

from numbers import Integral, Real

import numpy as np

from sklearn_privacy.utils._sklearn_compat import Interval

__all__ = [
    "CORRELATION",
    "NONNEGATIVE",
    "NONNEGATIVE_INTEGER",
    "NONNEGATIVE_OR_INF",
    "OPEN_UNIT",
    "POSITIVE",
    "POSITIVE_INTEGER",
    "UNIT",
]

#: Real numbers > 0 (finite).
POSITIVE = Interval(Real, 0, None, closed="neither")
#: Real numbers >= 0 (finite).
NONNEGATIVE = Interval(Real, 0, None, closed="left")
#: Real numbers >= 0, ``inf`` included.
NONNEGATIVE_OR_INF = Interval(Real, 0, np.inf, closed="both")
#: Real numbers in the open interval (0, 1), e.g. a DP ``delta``.
OPEN_UNIT = Interval(Real, 0, 1, closed="neither")
#: Real numbers in the closed interval [0, 1], e.g. a probability.
UNIT = Interval(Real, 0, 1, closed="both")
#: Real numbers in [-1, 1]: a correlation coefficient.
CORRELATION = Interval(Real, -1, 1, closed="both")
#: Integers >= 0, e.g. a bound on iterations where 0 means none.
NONNEGATIVE_INTEGER = Interval(Integral, 0, None, closed="left")
#: Integers >= 1, e.g. ``n_samples`` or ``n_components``.
POSITIVE_INTEGER = Interval(Integral, 1, None, closed="left")
