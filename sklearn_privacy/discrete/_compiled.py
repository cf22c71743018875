"""Which kernels a solver runs on, picked once when its problem is built.

Each family of kernels comes twice, with the same functions and arguments: a numpy
module, always there, and a compiled one (numba, the ``fast`` extra). A problem asks
:func:`pick_kernels` once, as scikit-learn's ``PCA._fit`` picks its solver, and calls
the module it gets; nothing downstream asks which one it holds.
"""

import functools
import importlib


def pick_kernels(name, numpy_module, *, worth_it):
    """The compiled module ``sklearn_privacy.discrete.<name>`` where it is ``worth_it`` (the
    problem is large enough to repay loading it) and available, else ``numpy_module``.

    The rule is the problem's size only, not the CPU (issue 49). The kernels replace numpy's
    float64 ``log`` and ``exp``, which numpy vectorises only with AVX-512, so they gain less
    there; but no CPU measured ran them slower than numpy. One thread, CPU seconds: on an
    AMD EPYC without AVX-512 (best of 3), the convex Adult fit 5.3-6.9 s on the kernels against
    10.5-11.1 s on numpy, the greedy at 10 000 symbols (|S| = 8) 6.0-6.2 s against 8.9 s;
    on a CPU with AVX-512, against 4730279 (numpy, before the kernels), the convex Adult fit
    0.71x in one run and 0.98x in another, the greedy at 20 000 symbols 0.69x. Numpy on
    AVX-512 would have saved 2 % in one run and taken 1.4x the time in the others. The
    results agree to ``docs/design.md``'s tolerances with numpy's AVX-512 loops on or off
    (``tests/discrete/test_kernels_per_cpu.py``).
    """
    module = compiled(name) if worth_it else None
    return numpy_module if module is None else module


@functools.cache
def compiled(name):
    """The kernel module ``sklearn_privacy.discrete.<name>``, or None.

    None where numba is not installed (the ``fast`` extra), where its JIT is
    disabled, or where it has no folder to cache the compiled code in: the
    solvers then run on numpy.
    """
    try:
        module = importlib.import_module(f"sklearn_privacy.discrete.{name}")
    except (ImportError, RuntimeError):
        return None
    import numba

    return None if numba.config.DISABLE_JIT else module
