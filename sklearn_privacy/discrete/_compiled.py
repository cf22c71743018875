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
    problem is large enough to repay loading it) and available, else ``numpy_module``."""
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
