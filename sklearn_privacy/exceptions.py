"""Warnings and errors of sklearn_privacy."""

import os
import sys

__all__ = ["PrivacyLeakWarning", "PrivateFitWarning"]

_LIBRARIES = tuple(
    os.path.dirname(__import__(name).__file__) + os.sep
    for name in ("sklearn", "sklearn_privacy", "joblib")
)


def user_stacklevel():
    """``stacklevel`` of the first frame outside scikit-learn, joblib and this library.

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


class PrivateFitWarning(UserWarning):
    """Private estimates that the data cannot support: the release may be mostly noise.

    Raised by a differentially private fit (``fit_data="private"``) when the
    number of rows and the budget are too small for its private radius,
    centre or covariance (said before the rows are read when it follows from
    public quantities), or when an estimate came out as noise. The message
    names the rows, the budget and the remedies.

    See Also
    --------
    sklearn_privacy.gaussian.L2CompressionDP : Warns when its private fit is unreliable.
    sklearn_privacy.gaussian.GaussianIBTransformer : Warns when its private fit is unreliable.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_privacy.exceptions import PrivateFitWarning
    >>> from sklearn_privacy.gaussian import L2CompressionDP
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = L2CompressionDP(epsilon=1.0).fit(X)
    >>> any(issubclass(w.category, PrivateFitWarning) for w in caught)
    True
    """
