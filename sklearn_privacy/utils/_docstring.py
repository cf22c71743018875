"""Parameter documentation written once and shared by the mechanisms.

A placeholder line such as ``    {sensitive}`` in a docstring is replaced by :class:`Substitution`
with the shared entry; lines indented under it add what is particular to the mechanism.
"""

import re
import textwrap

__all__ = ["SHARED_PARAMETERS", "Substitution"]

SHARED_PARAMETERS = {
    "sensitive": """\
sensitive : int, str, array-like of int or str, or None, default=None
    Columns of ``X`` that hold S, by name (DataFrame) or position. They are
    read at fit (and by scorers from the test fold) and never released.
    ``None``: S comes as metadata, ``fit(X, y, sensitive=S)``, routed through
    Pipeline and GridSearchCV once requested with
    ``set_fit_request(sensitive=True)``. Giving S both ways is an error.""",
    "random_state_release": """\
random_state : int, RandomState instance, Generator or None, default=None
    ``None``: every release draws fresh OS entropy and the fitted model keeps
    no random state. A seed makes the sequence of releases after ``fit``
    reproducible (each ``transform`` still draws afresh); the saved model
    then carries the seed.""",
    "random_state_dp": """\
random_state : int, RandomState instance, Generator or None, default=None
    ``None``: every private estimate and every release draws fresh OS
    entropy when it is made, and the fitted model keeps no random state
    (its pickles and copies cannot replay or predict its noise, and never
    share it). A seed makes the sequence of noises reproducible for
    experiments and warns with
    :class:`~sklearn_privacy.exceptions.PrivacyLeakWarning`: releases made
    from one seed can be subtracted, and the saved model carries the seed.""",
    "weights": """\
weights : {"person", "counts"}, default="person"
    What a ``sample_weight`` means to a private fit (``fit_data="private"``;
    public fits count a weight as copies of its row):

    - "person": each row is one person, of weight up to ``max_person_weight``;
      heavier rows are clipped to it, with a warning that says how many and
      what to declare. The number of rows is public; the weights are not (their
      total is estimated privately).
    - "counts": a row of weight ``w`` is ``w / max_person_weight`` people with
      the same values (a table of distinct rows and their counts, whole
      numbers): it fits exactly as its expanded rows, and the number of people
      (the sum of the counts) is public.""",
    "max_person_weight": """\
max_person_weight : float, default=1.0
    With ``fit_data="private"``: the weight of one person, a public bound that
    the sensitivities use, never read off the rows (see ``weights``). Survey
    weights up to ``W`` declare ``W``. Public fits ignore it.""",
    "verbose": """\
verbose : int, default=0
    Progress of the fit: ``0`` silent; ``1`` a progress bar (tqdm, on
    stderr) or one line per stage; ``2`` also the details of each stage.""",
    "handle_unknown": """\
handle_unknown : {"nearest", "error"}, default="nearest"
    A row of ``X`` at ``transform`` whose combination of values was not seen
    at fit. ``"nearest"``: release it as the seen combination agreeing with it
    on most columns would be (ties: the most frequent), through the fitted
    map and over the same release symbols; the fitted leakage is unchanged
    (such rows have no weight in the fit's distribution). ``transform`` then
    counts them (``n_unseen_rows_``) and warns with
    :class:`~sklearn_privacy.exceptions.UnseenCategoryWarning` how many and
    to what (ask for silence with ``warnings.filterwarnings("ignore",
    category=UnseenCategoryWarning)``). ``"error"``: raise
    a ``ValueError`` naming the row, to refuse data outside the fitted
    alphabet; the test folds of a cross-validation almost always hold a few
    such rows, which then score NaN.""",
    "n_unseen_rows_": """\
n_unseen_rows_ : int
    Rows of the last in-memory ``transform`` whose values were not seen at
    fit, released as their nearest seen combination (``handle_unknown``); 0
    after ``fit``.""",
    "max_categories": """\
max_categories : int or None, default=200
    Largest number of distinct values of one column of ``X`` or of S (both
    are read as categories): more means the column is probably continuous (a
    measurement, not categories), and ``fit`` fails naming it and its number
    of values. Bin it first, e.g. with
    :class:`~sklearn.preprocessing.KBinsDiscretizer` (``encode="ordinal"``)
    or ``pandas.cut``; raise the limit when the categories are meant.
    ``None`` disables the check, for S too.""",
    "smoothing": """\
smoothing : float, default=0.0
    Additive (Lidstone) pseudo-count on every cell of the empirical joint
    distribution of S and the released columns.""",
    "output": r"""output : {"symbol", "onehot", "sample"}, default="symbol"
    ``"symbol"``: one column with the merged symbol :math:`Y`, ``0`` to
    ``n_clusters_ - 1``; ``"onehot"``: its one-hot encoding; ``"sample"``: a
    record of the released columns drawn from :math:`P(X \mid Y)` (a
    realistic table with the same leakage; random, seeded by
    ``random_state``).""",
}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{(?P<key>[A-Za-z_]+)\}[ \t]*$", re.M)


class Substitution:
    """Class or function decorator filling ``{key}`` placeholder lines of a docstring.

    Parameters
    ----------
    **entries : str
        Extra entries (name -> text) on top of :data:`SHARED_PARAMETERS`.

    Examples
    --------
    >>> from sklearn_privacy.utils._docstring import Substitution
    >>> @Substitution()
    ... def f(sensitive=None):
    ...     '''Do nothing.
    ...
    ...     Parameters
    ...     ----------
    ...     {verbose}
    ...     '''
    >>> print(f.__doc__.splitlines()[4])
        verbose : int, default=0
    """

    def __init__(self, **entries):
        self.entries = {**SHARED_PARAMETERS, **entries}

    def __call__(self, obj):
        def fill(match):
            key = match.group("key")
            if key not in self.entries:
                raise KeyError(f"no shared documentation for {{{key}}} in {obj.__qualname__}")
            return textwrap.indent(self.entries[key], match.group("indent"))

        if obj.__doc__:
            obj.__doc__ = _PLACEHOLDER.sub(fill, obj.__doc__)
        return obj
