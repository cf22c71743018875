"""Progress bars for long fits, shown only when ``verbose`` is set."""

__all__ = ["progress"]


def progress(iterable=None, *, verbose=0, total=None, desc=None, initial=0, mininterval=0.1):
    """Wrap ``iterable`` in a tqdm progress bar when ``verbose`` is positive.

    Nothing is printed when ``verbose`` is 0. tqdm is a dependency of skorch,
    so it is always installed with the library.

    Parameters
    ----------
    iterable : iterable or None, default=None
        What to iterate; ``None`` gives a bar updated by hand (``bar.update``).
    verbose : int, default=0
        The mechanism's ``verbose``.
    total : int, default=None
        Expected number of steps.
    desc : str, default=None
        Label of the bar.
    initial : int, default=0
        Steps already done when the bar starts.
    mininterval : float, default=0.1
        Least number of seconds between two refreshes of the bar (tqdm's own
        default): a bar updated at every step of a long loop costs a counter
        increment per step and a redraw per interval.

    Returns
    -------
    iterable or tqdm
        A context manager either way (``with progress(...) as bar``).

    See Also
    --------
    sklearn_privacy.discrete.greedy_merge : Shows its merges with this bar when ``verbose > 0``.

    Examples
    --------
    >>> from sklearn_privacy.utils import progress
    >>> with progress(range(3), verbose=0) as steps:
    ...     sum(steps)
    3
    """
    from tqdm.auto import tqdm

    return tqdm(
        iterable,
        total=total,
        desc=desc,
        disable=not verbose,
        leave=False,
        dynamic_ncols=True,
        initial=initial,
        mininterval=mininterval,
    )
