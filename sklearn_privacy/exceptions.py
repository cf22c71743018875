"""Warnings and errors of sklearn_privacy."""

import importlib.util
import os
import sys
import warnings

__all__ = [
    "DegenerateReleaseWarning",
    "PrivacyLeakWarning",
    "PrivateFitWarning",
    "UnseenCategoryWarning",
]

# The folders of the libraries whose frames a warning skips: this package's own, and
# scikit-learn's and joblib's found without importing them (this module imports nothing).
_LIBRARIES = tuple(
    os.path.dirname(origin) + os.sep
    for origin in [
        os.path.abspath(os.path.join(os.path.dirname(__file__), "__init__.py")),
        *(
            getattr(importlib.util.find_spec(name), "origin", None)
            for name in ("sklearn", "joblib")
        ),
    ]
    if origin
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


# (text, category, where, filters) of the warnings shown under "default", "module" or "once"
_SHOWN = set()


def warn_user(message, category, *, cause=None):
    """Warn at the user's line, once per line and text under the default filter.

    Python's ``"default"`` action shows a warning once per location, until
    the filters change. scikit-learn's ``Parallel`` (``cross_validate``,
    ``GridSearchCV``) re-installs the caller's filters around every task,
    which resets that memory: a warning of ``fit`` would show once per fold
    and setting. This remembers what was shown under the same filters (by
    their content, which every task copies), so that the ``"default"``,
    ``"module"`` and ``"once"`` actions mean what they say across a search;
    ``"always"`` and ``"error"`` behave as usual. Every warning that a fit
    emits goes through here, with a text that does not vary per fit; a
    warning whose text carries its own numbers (a count of rows) gives
    ``cause``, a text that does not vary, to be remembered by instead.
    """
    frame, level = sys._getframe(), 1  # stacklevel 1 is this frame, which calls warn
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARIES):
        frame, level = frame.f_back, level + 1
    if frame is not None:
        text, lineno = str(message), frame.f_lineno
        module = frame.f_globals.get("__name__", "<string>")
        action = _action(text, category, module, lineno)
        where = {"default": (frame.f_code.co_filename, lineno), "module": (module,), "once": ()}
        if action in where:
            key = (cause or text, category, where[action], _filters_content())
            if key in _SHOWN:
                return
            _SHOWN.add(key)
    warnings.warn(message, category, stacklevel=level)


def _action(text, category, module, lineno):
    """The action of the first filter matching a warning (as ``warnings.warn_explicit``)."""
    for action, msg, cat, mod, ln in warnings.filters:
        if (
            _matches(msg, text)
            and issubclass(category, cat)
            and _matches(mod, module)
            and (ln == 0 or lineno == ln)
        ):
            return action
    return warnings.defaultaction


def _matches(pattern, value):
    # a filter holds None, a compiled pattern, or (Python's own filters) a plain string
    if pattern is None:
        return True
    return pattern == value if isinstance(pattern, str) else bool(pattern.match(value))


def _filters_content():
    """The filters as a hashable value that a re-installed copy shares (patterns by text)."""

    def text(pattern):
        return pattern if pattern is None or isinstance(pattern, str) else pattern.pattern

    filters = ((a, text(msg), cat, text(mod), ln) for a, msg, cat, mod, ln in warnings.filters)
    return tuple(dict.fromkeys(filters))


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
    fit to fit (shown once per line under the default filter).

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
    ...     _ = funnel.transform(np.array([["F", "a"], ["M", "typo"]], dtype=object))
    >>> [w.category.__name__ for w in caught], funnel.n_unseen_rows_
    (['UnseenCategoryWarning'], 1)
    >>> warnings.simplefilter("ignore", UnseenCategoryWarning)  # silence it
    """
