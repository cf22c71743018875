"""Alphabet encoding shared by every discrete mechanism.

:class:`CategoricalAlphabet` numbers the distinct rows of categorical columns (one joint
alphabet); :func:`empirical_joint` estimates ``P(S, X)`` from the symbols.
"""

from numbers import Integral

import numpy as np

from sklearn_privacy.utils import NONNEGATIVE, POSITIVE_INTEGER, as_2d, check_categorical_values
from sklearn_privacy.utils._sklearn_compat import validate_params
from sklearn_privacy.utils._symbols import RowIndex, encode_rows
from sklearn_privacy.utils._validation import BIN_EXAMPLES

__all__ = ["CategoricalAlphabet", "empirical_joint"]

_HANDLE_UNKNOWN = ("error", "nearest")

# What to do with an S over max_categories: every discrete mechanism reads S as categories
# (see _sensitive.check_sensitive_categories).
SENSITIVE_CATEGORIES_REMEDY = (
    f"Bin it first ({BIN_EXAMPLES}); if these really are categories, raise max_categories "
    "(it bounds each column of X and of S) or set it to None."
)


class CategoricalAlphabet:
    """Joint alphabet of one or several categorical columns.

    Each distinct combination of values seen at fit is a symbol, numbered in
    lexicographic order of the per-column category codes. It is the
    ``alphabet_`` of the fitted discrete mechanisms
    (:class:`~sklearn_privacy.discrete.PrivacyFunnelTransformer`,
    :class:`~sklearn_privacy.discrete.SubmodularFunnel`,
    :class:`~sklearn_privacy.discrete.ConvexPrivacyMapping`), whose merges and
    mappings index its symbols; :meth:`decode` turns symbols back into rows.

    Parameters
    ----------
    max_categories : int or None, default=200
        Largest number of distinct values a single column may take. A column
        with more distinct values is almost surely continuous and is rejected
        with an error that names it; discretise it first (e.g. with
        :class:`~sklearn.preprocessing.KBinsDiscretizer`) or raise the limit.
        ``None`` disables the check.
    handle_unknown : {"error", "nearest"}, default="error"
        What :meth:`encode` does with a row whose combination of values was not
        seen at fit:

        - ``"error"``: raise a ``ValueError`` naming the first unseen row;
        - ``"nearest"``: map it to the seen symbol that agrees with it on the
          most columns (unseen values never agree), ties broken by the larger
          training frequency, then by the smaller symbol index.
    name : str, default="X"
        Name of the data in error messages.
    feature_names : array-like of str, default=None
        Column names used in error messages (``column 0, 1, ...`` otherwise).

    Notes
    -----
    Missing values (``None``, ``NaN``, ``pd.NA``, ``NaT``) and infinite values
    are not categories: :meth:`fit_encode` and :meth:`encode` (whatever
    ``handle_unknown``) raise a ``ValueError`` naming the first column that holds
    one. Make "missing" a category of its own (e.g. ``df.fillna("missing")``) to
    keep those rows.

    Attributes
    ----------
    categories_ : list of ndarray
        Sorted distinct values of each column.
    symbols_ : ndarray of shape (n_symbols, n_columns)
        Category codes (indices into ``categories_``) of each joint symbol.
    counts_ : ndarray of shape (n_symbols,)
        Number of training rows of each symbol.
    n_symbols_ : int
        Size of the joint alphabet.
    n_columns_ : int
        Number of columns.

    See Also
    --------
    empirical_joint : Joint pmf of the symbol codes this alphabet gives.
    PrivacyFunnelTransformer : A mechanism whose ``alphabet_`` is one of these.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import CategoricalAlphabet
    >>> X = np.array([["a", 1], ["b", 2], ["a", 1], ["b", 1]], dtype=object)
    >>> alphabet = CategoricalAlphabet()
    >>> alphabet.fit_encode(X)
    array([0, 2, 0, 1])
    >>> alphabet.decode([1])
    array([['b', 1]], dtype=object)

    The alphabet of a fitted funnel, and the rows merged into its first symbol:

    >>> from sklearn_privacy.discrete import PrivacyFunnelTransformer
    >>> s = np.array([0, 1, 0, 1] * 10)
    >>> funnel = PrivacyFunnelTransformer(threshold=0.3)
    >>> funnel = funnel.fit(X[[0, 1, 2, 3] * 10], sensitive=s)
    >>> first = np.flatnonzero(funnel.labels_ == 0)
    >>> funnel.alphabet_.n_symbols_, funnel.alphabet_.decode(first).tolist()
    (3, [['a', 1], ['b', 1]])
    """

    def __init__(self, *, max_categories=200, handle_unknown="error", name="X", feature_names=None):
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.name = name
        self.feature_names = feature_names

    # ------------------------------------------------------------------ fit
    def fit(self, X, sample_weight=None):
        """Learn the categories of each column and the joint symbols of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (``counts_`` sums them).

        Returns
        -------
        self : CategoricalAlphabet
        """
        self.fit_encode(X, sample_weight)
        return self

    def fit_encode(self, X, sample_weight=None):
        """Fit and return the symbol of each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (``counts_`` sums them).

        Returns
        -------
        codes : ndarray of shape (n_samples,)
            Symbol indices in ``range(n_symbols_)``.
        """
        if self.handle_unknown not in _HANDLE_UNKNOWN:
            raise ValueError(
                f"handle_unknown must be one of {_HANDLE_UNKNOWN}, got {self.handle_unknown!r}."
            )
        if self.max_categories is not None and not (
            isinstance(self.max_categories, Integral) and self.max_categories >= 2
        ):
            raise ValueError(
                f"max_categories must be an int >= 2 or None, got {self.max_categories!r}."
            )
        X = self._as_2d(X)
        self._check_values(X)
        self.n_columns_ = X.shape[1]
        try:
            self._index, codes = RowIndex.fit(X, name=self.name, unordered="raise")
        except TypeError:
            for k in range(X.shape[1]):
                self._refuse_unordered(X[:, k], k)
            raise
        self.categories_ = self._index.categories
        for k, categories in enumerate(self.categories_):
            if self.max_categories is not None and len(categories) > self.max_categories:
                raise ValueError(
                    f"{self._column_name(k)} of {self.name} has {len(categories)} distinct "
                    f"values, more than max_categories={self.max_categories}: it looks "
                    "continuous, but this mechanism takes categorical columns. Discretise it "
                    "first (e.g. KBinsDiscretizer) or raise max_categories."
                )
        self.symbols_ = self._index.record_codes
        self.n_symbols_ = self.symbols_.shape[0]
        self.counts_ = np.bincount(codes, weights=sample_weight, minlength=self.n_symbols_)
        return codes

    def _refuse_unordered(self, column, k):
        """Name a column whose values cannot be ordered (complex numbers, mixed types)."""
        try:
            np.unique(column)
        except TypeError as exc:
            if any(isinstance(v, (complex, np.complexfloating)) for v in column[:1000]):
                raise TypeError(
                    f"{self._column_name(k)} of {self.name} holds complex numbers, which "
                    "have no order and are not categories: split them into two real "
                    "columns, or convert them to strings."
                ) from None
            raise TypeError(
                f"{self._column_name(k)} of {self.name} mixes types that cannot be "
                f"ordered ({exc}); give each column one type (e.g. all strings)."
            ) from None

    # ------------------------------------------------------------ transform
    def encode(self, X, handle_unknown=None, *, return_unseen=False):
        """Symbol of each row of ``X``, following ``handle_unknown`` for unseen rows.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
        handle_unknown : {"error", "nearest"}, default=None
            Overrides the attribute for this call.
        return_unseen : bool, default=False
            Also return the positions of the rows not seen at fit (mapped to
            their nearest symbol).

        Returns
        -------
        codes : ndarray of shape (n_samples,)
        unseen : ndarray of int of shape (n_unseen,)
            With ``return_unseen``: the rows of ``X`` mapped to their nearest symbol.
        """
        handle_unknown = self.handle_unknown if handle_unknown is None else handle_unknown
        X = self._as_2d(X)
        if X.shape[1] != self.n_columns_:
            raise ValueError(
                f"{self.name} has {X.shape[1]} columns, the alphabet was fitted on "
                f"{self.n_columns_}."
            )
        self._check_values(X)
        codes = self._index.codes(X, name=self.name, unknown=-1)
        unknown = np.flatnonzero(codes < 0)
        if unknown.size == 0:
            return (codes, unknown) if return_unseen else codes
        if handle_unknown == "error":
            _, known = self._index.column_codes(X[unknown[:1]])
            i = unknown[0]
            bad = [self._column_name(k) for k in np.flatnonzero(~known[0])]
            detail = (
                f"unseen value(s) in {', '.join(bad)}"
                if bad
                else "each value was seen, but not this combination"
            )
            raise ValueError(
                f"{self.name} has {unknown.size} row(s) not seen at fit (first: row {i}, "
                f"{X[i].tolist()!r}: {detail}). Set handle_unknown='nearest' to map them to "
                "the closest seen symbol."
            )
        codes[unknown] = self._index.nearest(X[unknown], self.counts_)
        return (codes, unknown) if return_unseen else codes

    def describe_nearest(self, X, codes, rows, *, n_shown=3):
        """The most frequent changes that ``encode`` made to the unseen ``rows`` of ``X``, as text.

        A change is the cells where a row and its nearest symbol differ (rows
        changed alike are counted together), e.g. ``'PhD' -> 'Doctorate' in
        column 'education' (81 rows)``.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
        codes : ndarray of shape (n_samples,)
            The symbols :meth:`encode` gave the rows of ``X``.
        rows : ndarray of int
            The unseen rows (``encode(..., return_unseen=True)``).
        n_shown : int, default=3
            Most changes described, and most cells of each.

        Returns
        -------
        str
        """
        X = self._as_2d(X)[rows].astype(object)
        nearest = self.decode(codes[rows]).astype(object)
        differ = np.not_equal(X, nearest).astype(bool)
        # None marks an unchanged cell (no category is None: fit and encode refuse it)
        change_codes, changes = encode_rows(
            np.hstack([np.where(differ, X, None), np.where(differ, nearest, None)])
        )
        counts = np.bincount(change_codes)
        shown = []
        for i in np.argsort(-counts, kind="stable")[:n_shown]:
            before, after = changes[i, : self.n_columns_], changes[i, self.n_columns_ :]
            changed = [k for k in range(self.n_columns_) if before[k] is not None]
            cells = ", ".join(
                f"{_plain(before[k])!r} -> {_plain(after[k])!r} in {self._column_name(k)}"
                for k in changed[:n_shown]
            )
            if len(changed) > n_shown:  # a row unlike any seen: a bounded message
                cells += f" and {len(changed) - n_shown} more column(s)"
            shown.append(f"{cells} ({counts[i]} row{'s' if counts[i] > 1 else ''})")
        more = len(changes) - len(shown)
        return "; ".join(shown) + (f"; and {more} other change(s)" if more > 0 else "")

    def decode(self, codes):
        """Original values of the symbols ``codes``.

        Parameters
        ----------
        codes : array-like of int of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, n_columns)
            Object dtype when the columns do not share one numeric or string dtype.
        """
        codes = np.asarray(codes, dtype=np.int64).reshape(-1)
        columns = [self.categories_[k][self.symbols_[codes, k]] for k in range(self.n_columns_)]
        dtypes = {c.dtype for c in columns}
        dtype = dtypes.pop() if len(dtypes) == 1 else object
        out = np.empty((codes.shape[0], self.n_columns_), dtype=dtype)
        for k, column in enumerate(columns):
            out[:, k] = column
        return out

    # -------------------------------------------------------------- helpers
    def _as_2d(self, X):
        X = as_2d(X, self.name)
        if X.shape[0] == 0:
            raise ValueError(f"{self.name} is empty.")
        return X

    def _column_name(self, k):
        if self.feature_names is not None and k < len(self.feature_names):
            return f"column {self.feature_names[k]!r}"
        return f"column {k}"

    def _check_values(self, X):
        check_categorical_values(X, name=self.name, feature_names=self.feature_names)


def _plain(value):
    """A cell as a Python value (``'a'``, not ``np.str_('a')``, in messages)."""
    return value.item() if isinstance(value, np.generic) else value


@validate_params(
    {
        "s_codes": ["array-like"],
        "x_codes": ["array-like"],
        "n_s": [POSITIVE_INTEGER],
        "n_x": [POSITIVE_INTEGER],
        "smoothing": [NONNEGATIVE],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def empirical_joint(s_codes, x_codes, n_s, n_x, *, smoothing=0.0, sample_weight=None):
    r"""Empirical joint pmf of paired symbol codes, ``joint[s, x]`` :math:`= P(S=s, X=x)`.

    Parameters
    ----------
    s_codes, x_codes : array-like of int of shape (n_samples,)
        Symbols of S and of X (e.g. from :meth:`CategoricalAlphabet.fit_encode`).
    n_s, n_x : int
        Alphabet sizes.
    smoothing : float, default=0.0
        Additive (Laplace/Lidstone) pseudo-count added to every cell of the
        :math:`n_s \times n_x` table before normalising.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight (count) of each pair; a table of distinct rows with their
        counts gives the pmf of the expanded rows.

    Returns
    -------
    ndarray of shape (n_s, n_x)
        Sums to one.

    See Also
    --------
    CategoricalAlphabet : Symbol codes of categorical columns.
    sklearn_privacy.information.contingency_pmf : The same pmf from raw symbols.

    Examples
    --------
    >>> from sklearn_privacy.discrete import empirical_joint
    >>> empirical_joint([0, 1, 1], [0, 0, 1], 2, 2, smoothing=1.0)
    array([[0.28571429, 0.14285714],
           [0.28571429, 0.28571429]])
    """
    s_codes = np.asarray(s_codes, dtype=np.int64).reshape(-1)
    x_codes = np.asarray(x_codes, dtype=np.int64).reshape(-1)
    if s_codes.shape != x_codes.shape:
        raise ValueError(
            f"s_codes and x_codes must have the same length, got {s_codes.shape[0]} and "
            f"{x_codes.shape[0]}."
        )
    # Not sklearn's contingency_matrix: it indexes by the labels present, so a code
    # without rows would shift the columns; bincount keeps the n_s x n_x layout.
    cells = s_codes * n_x + x_codes
    counts = np.bincount(cells, weights=sample_weight, minlength=n_s * n_x).reshape(n_s, n_x)
    counts = counts.astype(float) + smoothing
    return counts / counts.sum()
