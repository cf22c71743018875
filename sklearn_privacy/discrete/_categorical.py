"""The base of the mechanisms that release categorical columns.

:class:`_CategoricalMechanism` fits, once for every discrete mechanism, the
alphabet of the released columns (``alphabet_``), the alphabet of S and the
empirical ``P(S, X)`` (``joint_``), then hands ``joint_`` to the mechanism.
"""

from abc import abstractmethod
from numbers import Integral, Real

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import check_sensitive_categories
from sklearn_privacy.discrete._alphabet import (
    SENSITIVE_CATEGORIES_REMEDY,
    CategoricalAlphabet,
    empirical_joint,
)
from sklearn_privacy.exceptions import UnseenCategoryWarning
from sklearn_privacy.utils import warn_user
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions

__all__ = []


class _CategoricalMechanism(BaseMechanism):
    """Base of the discrete mechanisms: one fitted vocabulary of alphabets and joint pmf.

    :meth:`_fit_mechanism` encodes the released columns as one joint alphabet,
    ``alphabet_`` (a :class:`CategoricalAlphabet`, ``handle_unknown`` for rows
    unseen at fit), checks that S is categorical, encodes S as a second alphabet
    (kept as ``_sensitive_alphabet``, for a release that reads S), and sets
    ``joint_``, the empirical ``P(S, X)`` (S by row, ``smoothing`` added).
    Subclasses implement the abstract :meth:`_fit_on_joint` and ``_release``,
    and take the shared parameters ``handle_unknown``, ``smoothing``,
    ``max_categories`` and ``verbose`` (validated here).
    """

    _parameter_constraints: dict = {
        **BaseMechanism._parameter_constraints,
        "handle_unknown": [StrOptions({"error", "nearest"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "max_categories": [Interval(Integral, 2, None, closed="left"), None],
        "verbose": ["verbose"],
    }

    _categorical_input = True

    def _fit_mechanism(self, X, S, y, sample_weight):
        names = getattr(self, "feature_names_in_", None)
        # messages name a column of X: its name, or its position in X (not in the release)
        names = (
            [int(j) for j in self.release_columns_]
            if names is None
            else list(names[self.release_columns_])
        )
        self.alphabet_ = CategoricalAlphabet(
            max_categories=self.max_categories,
            handle_unknown=self.handle_unknown,
            name="X",
            feature_names=names,
        )
        x_codes = self.alphabet_.fit_encode(X, sample_weight)
        check_sensitive_categories(self, S, self.max_categories, SENSITIVE_CATEGORIES_REMEDY)
        self._sensitive_alphabet = CategoricalAlphabet(max_categories=None, name="sensitive")
        s_codes = self._sensitive_alphabet.fit_encode(S, sample_weight)
        self.joint_ = empirical_joint(
            s_codes,
            x_codes,
            self._sensitive_alphabet.n_symbols_,
            self.alphabet_.n_symbols_,
            smoothing=self.smoothing,
            sample_weight=sample_weight,
        )
        self.n_unseen_rows_ = 0
        self._fit_on_joint(self.joint_)

    def _encode_release(self, X):
        """Symbols of the rows of a release; rows unseen at fit are counted and warned of.

        ``n_unseen_rows_`` holds the count of this call (an audit reads how many
        rows were released as their nearest seen combination), and one
        :class:`~sklearn_privacy.exceptions.UnseenCategoryWarning` says how many
        and the first mappings, once per line of the caller across a search.
        """
        codes, unseen = self.alphabet_.encode(X, return_unseen=True)
        self.n_unseen_rows_ = int(unseen.size)
        if unseen.size:
            name = type(self).__name__
            cause = f"{name}.transform released rows unseen at fit as their nearest"
            warn_user(
                f"{name}.transform: {unseen.size} of {len(codes)} rows hold values not seen "
                "at fit and were released as the nearest seen combination "
                f"(handle_unknown='nearest'): {self.alphabet_.describe_nearest(X, codes, unseen)}."
                " n_unseen_rows_ holds the count. Set handle_unknown='error' to refuse such "
                "rows, or silence this with warnings.filterwarnings('ignore', "
                "category=UnseenCategoryWarning).",
                UnseenCategoryWarning,
                cause=cause,
            )
        return codes

    @abstractmethod
    def _fit_on_joint(self, joint):
        """Learn the release from ``joint`` (``joint_``, ``P(S, X)`` with S by row).

        ``alphabet_`` indexes its columns and ``_sensitive_alphabet`` its rows.
        """
