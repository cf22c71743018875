"""Random streams: a seed turned into independent streams for fit-time estimates and releases.

Why no state without a seed: "Randomness" in ``docs/design.md``.
"""

from numbers import Integral

import numpy as np

__all__ = ["check_generator", "check_seed_sequence"]


def check_seed_sequence(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.SeedSequence`.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator
        ``None`` draws fresh entropy from the operating system; an int seeds
        the sequence (reproducible); a ``RandomState`` or ``Generator`` gives a
        seed drawn from it (and advances it, so two calls differ).

    Returns
    -------
    numpy.random.SeedSequence

    See Also
    --------
    check_generator : The same input as a generator.

    Examples
    --------
    >>> from sklearn_privacy.utils import check_seed_sequence
    >>> check_seed_sequence(3).entropy
    3
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**63, size=4).tolist())
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2**31, size=4).tolist())
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return np.random.SeedSequence(int(random_state))
    raise ValueError(
        f"random_state must be None, an int, a RandomState or a Generator, got {random_state!r}."
    )


def check_generator(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives fresh OS entropy, an int a seeded generator, a legacy
    ``RandomState`` a generator seeded from it, a ``Generator`` itself.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator

    Returns
    -------
    numpy.random.Generator

    See Also
    --------
    check_seed_sequence : The same input as a seed sequence.
    sklearn.utils.check_random_state : scikit-learn's legacy ``RandomState`` version.

    Examples
    --------
    >>> from sklearn_privacy.utils import check_generator
    >>> check_generator(0).integers(10) == check_generator(0).integers(10)
    np.True_
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    return np.random.default_rng(check_seed_sequence(random_state))
