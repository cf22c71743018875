"""Warnings and errors of sklearn_privacy."""

__all__ = ["PrivacyLeakWarning"]


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
