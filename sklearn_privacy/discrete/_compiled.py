"""The optional compiled kernels: loaded when a solver asks for them, None without numba."""

import functools
import importlib


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
