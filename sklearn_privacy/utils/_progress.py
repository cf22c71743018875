"""Progress bars for long fits, shown only when ``verbose`` is set."""

__all__ = ["progress"]


def progress(iterable=None, *, verbose=0, total=None, desc=None):
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
        iterable, total=total, desc=desc, disable=not verbose, leave=False, dynamic_ncols=True
    )
