"""Warnings and errors of sklearn_privacy.

The package raises its warnings through ``sklearn_privacy.utils.warn_user`` (the caller's
line, once per cause across a search).
"""

__all__ = [
    "DegenerateReleaseWarning",
    "PrivacyLeakWarning",
    "PrivateFitWarning",
    "UnseenCategoryWarning",
]


class PrivacyLeakWarning(UserWarning):
    """A use that can weaken or void a reported privacy guarantee.

    Raised, for example, when a differentially private mechanism is given a
    fixed integer ``random_state``: every mechanism fitted with that seed draws
    the same sequence of noises, so that two published releases from it can be
    subtracted to remove the noise. Fine for experiments; never publish two
    releases made from one seed. Raised too when a Gaussian mechanism that is
    not calibrated to an epsilon of yours (``GaussianIBTransformer``, or
    ``L2CompressionDP`` given ``beta``) reports an ``epsilon_`` above 20: a
    guarantee that protects nobody.

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


class DegenerateReleaseWarning(UserWarning):
    """A release at an end of its trade-off: X as it is, or next to nothing about X.

    Raised by ``fit`` when the knob leaves the release X itself (a funnel that
    merged nothing, a convex budget that leaves X unchanged, a PPAN that kept
    X) or when the release carries next to nothing (a funnel that merged
    everything, a convex mapping that releases one record, an L2 release that
    is about the constant mean, a bottleneck below its critical beta). Both
    ends are legitimate points of a sweep (the identity is the no-privacy
    baseline), hence a warning, not an error; a sweep can silence them all at
    once. A subclass of ``UserWarning``. The message names the knob and which
    way to move it.

    See Also
    --------
    PrivateFitWarning : Private estimates that the data cannot support.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_privacy import PrivacyFunnelTransformer
    >>> from sklearn_privacy.exceptions import DegenerateReleaseWarning
    >>> X = np.random.default_rng(0).integers(0, 2, size=(200, 2))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = PrivacyFunnelTransformer(threshold=1.0, sensitive=[0]).fit(X)
    >>> [w.category.__name__ for w in caught]
    ['DegenerateReleaseWarning']
    """


class PrivateFitWarning(UserWarning):
    """Private estimates that the data cannot support: the release may be mostly noise.

    Raised by a differentially private fit (``fit_data="private"``) when the
    number of rows and the budget are too small for its private radius,
    centre or covariance (said before the rows are read when it follows from
    public quantities), or when an estimate came out as noise. The message
    names the estimate and the remedies, in a text that does not vary from
    fit to fit (shown once per line under the default filter). Also raised
    when, under ``weights="person"``, rows weigh more than
    ``max_person_weight`` and were clipped to it: the fit then estimates
    other weights than the ones given (the message, which only the caller
    sees, says how many rows).

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


class UnseenCategoryWarning(UserWarning):
    """Rows of a release whose values were not seen at fit, released as their nearest.

    Raised by ``transform`` of a discrete mechanism with
    ``handle_unknown="nearest"`` (the default) when rows of ``X`` hold a
    combination of values the fit did not see (a typo, a rare category of a
    test split): each is released as the seen combination agreeing with it
    on most columns. The message gives how many rows, and the first few
    mappings; ``n_unseen_rows_`` holds the count of the last ``transform``.
    Silence it with this category, or refuse such rows with
    ``handle_unknown="error"``. Shown once per line of the caller under the
    default filter, also across the folds of a search.

    See Also
    --------
    sklearn_privacy.discrete.PrivacyFunnelTransformer : Warns when it maps unseen rows.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_privacy import PrivacyFunnelTransformer
    >>> from sklearn_privacy.exceptions import UnseenCategoryWarning
    >>> X = np.array([["F", "a"], ["M", "b"]] * 50, dtype=object)
    >>> funnel = PrivacyFunnelTransformer(sensitive=[0]).fit(X)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     new = np.array([["F", "a"], ["M", "typo"]], dtype=object)
    ...     _ = funnel.transform(new)
    >>> [w.category.__name__ for w in caught], funnel.n_unseen_rows_
    (['UnseenCategoryWarning'], 1)
    >>> warnings.simplefilter("ignore", UnseenCategoryWarning)  # silence it
    """
