"""fdlibm's ``log`` and ``exp`` (the compiled kernels' logarithm and exponential).

The oracle is :mod:`mpmath` at 113 bits, as for scipy's special functions: it shares no
coefficient with the code under test. ``tests/_fdlibm_reference.py`` writes the log's
operations in numpy from ``e_log.c`` (constants from its bit patterns): the compiled log
equals it to the bit, and it is itself checked against mpmath, without numba.
"""

import mpmath
import numpy as np
import pytest
from _fdlibm_reference import LG, fdlibm_log

mpmath.mp.prec = 113


def _ulps_mpmath(got, x, function):
    """Largest ``|got - f(x)|`` in units of the last place of ``got``, ``f`` in mpmath."""
    worst = 0.0
    for g, v in zip(got.tolist(), x.tolist()):
        error = abs(mpmath.mpf(g) - function(mpmath.mpf(v)))
        worst = max(worst, float(error / mpmath.mpf(float(np.spacing(abs(g))))))
    return worst


def _log_inputs(rng, n):
    """Log-uniform over the normal range, uniform on (0, 1), 1 and the reduction's bounds."""
    bounds = np.sqrt([0.5, 2.0])
    return np.concatenate(
        [
            10.0 ** rng.uniform(-307, 307, n),
            rng.uniform(0, 1, n),
            rng.uniform(0.7, 1.42, n),  # near 1: the reduction alone, k = 0
            [1.0, 0.5, 2.0, 1e-300, 2.2250738585072014e-308, np.nextafter(1.0, 0)],
            bounds,
            np.nextafter(bounds, 0),
            np.nextafter(bounds, 3),
        ]
    )


def test_reference_log_is_within_one_ulp_of_mpmath():
    x = _log_inputs(np.random.default_rng(0), 1000)
    got = fdlibm_log(x)
    assert _ulps_mpmath(got, x, mpmath.log) < 1.0
    assert got[x == 1.0][0] == 0.0


def test_a_wrong_coefficient_fails_the_mpmath_check():
    # The check can fail: Lg1 off by one part in 10^12 puts the log several ulps away.
    x = _log_inputs(np.random.default_rng(1), 300)
    wrong = (LG[0] * (1 + 1e-12), *LG[1:])
    assert _ulps_mpmath(fdlibm_log(x, lg=wrong), x, mpmath.log) > 2.0


@pytest.fixture
def fdlibm():
    pytest.importorskip("numba")
    from sklearn_privacy.discrete import _compiled

    if _compiled.compiled("_greedy_kernels") is None:
        pytest.skip("numba's JIT is disabled")
    from sklearn_privacy.discrete import _fdlibm

    return _fdlibm


def test_compiled_log_is_the_reference_to_the_bit(fdlibm):
    x = _log_inputs(np.random.default_rng(2), 100_000)
    out = np.empty_like(x)
    fdlibm.logs(x, out)
    np.testing.assert_array_equal(out, fdlibm_log(x))
    # It rounds like the C library's on most inputs, 1 ulp away on the rest.
    assert 0 < np.mean(out != np.log(x)) < 0.05


def test_compiled_log_and_exp_are_within_one_ulp_of_mpmath(fdlibm):
    rng = np.random.default_rng(3)
    x = _log_inputs(rng, 1000)
    out = np.empty_like(x)
    fdlibm.logs(x, out)
    assert _ulps_mpmath(out, x, mpmath.log) < 1.0
    # The exponential on the range the kernels use (and its ends and 0).
    x = np.concatenate([rng.uniform(-700, 700, 2000), rng.uniform(-1, 1, 1000), [-700, 700, 0]])
    out = np.empty_like(x)
    fdlibm.exps(x, out)
    assert _ulps_mpmath(out, x, mpmath.exp) < 1.0
    assert out[-1] == 1.0


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63,
    reason="long double is no wider than double here (no x87 80-bit or quad type)",
)
def test_compiled_log_and_exp_are_within_one_ulp_of_long_double_on_many_inputs(fdlibm):
    # 800 000 inputs where long double has at least 64 bits (x87's 80-bit, or quad).
    rng = np.random.default_rng(4)
    x = _log_inputs(rng, 200_000)
    out = np.empty_like(x)
    fdlibm.logs(x, out)
    exact = np.log(x.astype(np.longdouble))
    assert float(np.abs((out - exact) / np.spacing(np.abs(out)).astype(np.longdouble)).max()) < 1
    x = np.concatenate([rng.uniform(-700, 700, 200_000), [-700.0, 700.0, 0.0, -0.0, 1e-300]])
    out = np.empty_like(x)
    fdlibm.exps(x, out)
    exact = np.exp(x.astype(np.longdouble))
    assert float(np.abs((out - exact) / np.spacing(np.abs(out)).astype(np.longdouble)).max()) < 1
    assert out[-3] == out[-2] == out[-1] == 1.0
    assert 0 < np.mean(out != np.exp(x)) < 0.2
