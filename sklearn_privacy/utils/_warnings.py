"""Warnings that point at the user's line and show once per cause across a search.

The warning classes live in :mod:`sklearn_privacy.exceptions`; this is how the package raises
them. The filters are read as the running Python defines them (``warnings._get_filters()``
where it exists: context-local under Python 3.14's concurrent-safe warnings).
"""

import importlib.util
import os
import sys
import warnings

__all__ = ["user_stacklevel", "warn_user"]

# The folders of the libraries whose frames a warning skips: this package's own, and
# scikit-learn's and joblib's found without importing them (the ground floor imports nothing).
_LIBRARIES = tuple(
    os.path.dirname(origin) + os.sep
    for origin in [
        os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, "__init__.py")),
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

    Returns
    -------
    int
        The ``stacklevel`` to pass to :func:`warnings.warn` from the caller.

    See Also
    --------
    warn_user : Warns at that level, once per cause across a search.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_privacy.utils import user_stacklevel
    >>> def helper():
    ...     warnings.warn("a cause", UserWarning, stacklevel=user_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     helper()
    >>> caught[0].lineno > 0
    True
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
    ``cause``, a text that does not vary, to be remembered by instead. The
    warning raised carries it as its ``cause`` attribute (the text when
    ``cause`` is None), by which an audit counts the warnings of its fits.

    Parameters
    ----------
    message : str
        The warning's text: its cause and remedy, without this fit's numbers.
    category : type
        A subclass of :class:`Warning`.
    cause : str or tuple of str, default=None
        What the warning is remembered by, where ``message`` carries numbers
        that vary from call to call; ``None`` remembers ``message`` itself. A
        tuple names each of several causes that one warning gathers (a fit's
        causes, each with its remedy), so that a recorder can count them apart.

    See Also
    --------
    user_stacklevel : The level of the user's line, for a plain :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_privacy.utils import warn_user
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("default")
    ...     for _ in range(3):
    ...         warn_user("a cause, and its remedy", UserWarning)
    >>> len(caught)
    1
    """
    frame, level = sys._getframe(), 1  # stacklevel 1 is this frame, which calls warn
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARIES):
        frame, level = frame.f_back, level + 1
    if frame is not None:
        text, lineno = str(message), frame.f_lineno
        module = frame.f_globals.get("__name__", "<string>")
        filters = _current_filters()
        action = _action(filters, text, category, module, lineno)
        where = {"default": (frame.f_code.co_filename, lineno), "module": (module,), "once": ()}
        if action in where:
            key = (cause or text, category, where[action], _filters_content(filters))
            if key in _SHOWN:
                return
            _SHOWN.add(key)
    warning = category(message)
    warning.cause = cause or str(message)  # what a recorder (the audit) tells causes apart by
    warnings.warn(warning, stacklevel=level)


def _current_filters():
    """The filters ``warnings.warn`` applies here and now.

    Python 3.14's concurrent-safe warnings keep them in a context variable, which
    ``warnings.filters`` does not show inside ``catch_warnings``; ``_get_filters`` reads
    them where it exists (as scikit-learn's ``utils/parallel.py`` does).
    """
    get_filters = getattr(warnings, "_get_filters", None)
    return get_filters() if get_filters is not None else warnings.filters


def _action(filters, text, category, module, lineno):
    """The action of the first filter matching a warning (as ``warnings.warn_explicit``)."""
    for action, msg, cat, mod, ln in filters:
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


def _filters_content(filters):
    """The filters as a hashable value that a re-installed copy shares (patterns by text)."""

    def text(pattern):
        return pattern if pattern is None or isinstance(pattern, str) else pattern.pattern

    return tuple(
        dict.fromkeys((a, text(msg), cat, text(mod), ln) for a, msg, cat, mod, ln in filters)
    )
