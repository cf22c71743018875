"""The warnings of an audit's own fits: recorded in each trial, counted per cause, said once.

An audit fits the mechanism hundreds of times; each fit of a small private release warns
(a multi-line ``PrivateFitWarning``), and joblib's worker processes print theirs beside the
caller's, whatever its filters. Each trial therefore records its warnings (in the worker, which
returns them with its statistics), and the audit reports every cause once: in
``AuditResult.warnings`` with the number of trials that raised it, and in one warning of the
cause's own category at the caller's line.
"""

import re
import warnings
from dataclasses import dataclass, field

from sklearn_privacy.utils import warn_user

__all__ = ["AuditWarning", "failure_cause", "gather_warnings", "run_recorded", "say_gathered"]


@dataclass(frozen=True)
class AuditWarning:
    """One cause of the warnings raised by an audit's own fits, and how often it was raised.

    Attributes
    ----------
    category : type
        The warning's class (``PrivateFitWarning``, ``PrivacyLeakWarning``, ...),
        or the exception's class for a failed fit (``AuditResult.failures``).
    message : str
        The text of its first occurrence (numbers of that fit included).
    count : int
        The number of trials that raised it: fits on D or D' for a DP audit,
        half-samples for a leakage audit (1 for the leakage audit's one fit).
    total : int
        The number of such trials the audit ran.
    trials : str
        What ``count`` counts: ``"fits"``, ``"half-samples"`` or ``"fit"``.
    cause : str
        What tells the causes apart: the text without a fit's numbers where
        the warning gave one (``warn_user``'s ``cause``), else ``message``.
    """

    category: type
    message: str
    count: int
    total: int
    trials: str
    cause: str = field(default="", repr=False)

    def __str__(self):
        return f"{self.category.__name__} in {self.count} of {self.total} {self.trials}: " + (
            self.message.splitlines()[0] if self.message else ""
        )


def run_recorded(func, *args, **kwargs):
    """``func(*args, **kwargs)`` and the causes of the warnings it raised.

    Every warning is recorded (the ``"always"`` action: a worker process does
    not know its caller's filters, and the caller's filters apply to the
    summary instead). Recording changes the process's filters for the call:
    run trials in processes (joblib's default) or one at a time, not in
    threads.

    Returns
    -------
    value : object
        What ``func`` returned.
    causes : dict
        ``{(category, cause): text}``, one entry per distinct cause: the
        ``cause`` that ``warn_user`` attaches (the text without this fit's
        numbers, or each of the causes a fit's warning gathers, with its
        remedy), else the text itself.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = func(*args, **kwargs)
    causes = {}
    for record in caught:
        text = str(record.message)
        cause = getattr(record.message, "cause", None) or text
        # a fit's one warning that gathers several causes names each (a line of its text)
        for each in (cause,) if isinstance(cause, str) else cause:
            causes.setdefault((record.category, each), text if each is cause else each)
    return value, causes


def failure_cause(exc):
    """``(category, cause, text)`` of a trial's exception: ``cause`` is its first line without
    the fit's numbers, so that the failures of many fits gather by cause."""
    text = str(exc).strip() or type(exc).__name__
    cause = re.sub(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", "#", text.splitlines()[0])
    return type(exc), cause, text


def gather_warnings(per_trial, total, trials):
    """Count the trials that raised each cause: a tuple of :class:`AuditWarning`, most first.

    Parameters
    ----------
    per_trial : iterable of dict
        The causes of each trial, as :func:`run_recorded` returns them.
    total : int
        The number of trials run.
    trials : str
        What a trial is, in words (``"fits"``).
    """
    counts, texts = {}, {}
    for causes in per_trial:
        for key, text in causes.items():
            counts[key] = counts.get(key, 0) + 1
            texts.setdefault(key, text)
    order = sorted(counts, key=lambda key: -counts[key])  # stable: first raised first on ties
    return tuple(
        AuditWarning(key[0], texts[key], counts[key], int(total), trials, key[1]) for key in order
    )


def say_gathered(gathered, name):
    """One warning per category at the caller's line, each cause a line with its count.

    The caller's filters apply to it as to the fits' own warnings (an ignored
    ``PrivateFitWarning`` stays silent); under the default filter it shows
    once per line of the caller.
    """
    for category in dict.fromkeys(entry.category for entry in gathered):
        entries = [entry for entry in gathered if entry.category is category]
        lines = "".join(
            f"\n- in {e.count} of the {e.total} {e.trials}: {_indented(e.message)}" for e in entries
        )
        warn_user(
            f"audit_privacy: the audit's own fits of {name} warned {category.__name__}; each "
            f"cause is said once here, not once per fit (all of them in AuditResult.warnings):"
            f"{lines}",
            category,
            cause=f"audit_privacy of {name}: " + " | ".join(e.cause for e in entries),
        )


def _indented(text):
    return text.replace("\n", "\n  ")
