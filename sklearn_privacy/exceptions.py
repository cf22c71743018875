"""Warnings and errors of sklearn_privacy."""

import os
import sys

__all__ = ["PrivacyLeakWarning"]

_LIBRARIES = tuple(
    os.path.dirname(__import__(name).__file__) + os.sep for name in ("sklearn", "sklearn_privacy")
)


def user_stacklevel():
    """``stacklevel`` of the first frame outside scikit-learn and this library.

    A warning raised inside ``fit`` then points at the user's line, however many
    frames (``_fit_context``, a Pipeline, a search) stand between.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARIES):
        frame, level = frame.f_back, level + 1
    return level


class PrivacyLeakWarning(UserWarning):
    """A use that can weaken or void a reported privacy guarantee.

    Raised, for example, when a differentially private mechanism is given a
    fixed integer ``random_state``: every mechanism fitted with that seed draws
    the same sequence of noises, so that two published releases from it can be
    subtracted to remove the noise. Fine for experiments; never publish two
    releases made from one seed.

    See Also
    --------
    sklearn_privacy.gaussian.L2CompressionDP : Warns when given an integer ``random_state``.
    sklearn_privacy.gaussian.GaussianIBTransformer : Warns when given an integer ``random_state``.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_privacy.exceptions import PrivacyLeakWarning
    >>> warnings.simplefilter("ignore", PrivacyLeakWarning)
    """
