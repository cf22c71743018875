"""The contract every privacy mechanism shares: :class:`BaseMechanism`.

It resolves S (columns of ``X`` named by ``sensitive``, or routed metadata), validates around
the hooks ``_fit_mechanism`` and ``_release``, and releases dask collections lazily.
"""

import copy
from abc import ABCMeta, abstractmethod
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn import get_config
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.utils import warn_user
from sklearn_privacy.utils._dask import (
    count_distinct_rows,
    head_rows,
    is_dask_collection,
    map_row_blocks,
    n_row_blocks,
)
from sklearn_privacy.utils._random import check_seed_sequence
from sklearn_privacy.utils._sklearn_compat import (
    Hidden,
    _check_feature_names_in,
    _check_sample_weight,
    _fit_context,
    _is_arraylike_not_scalar,
    _safe_indexing,
)
from sklearn_privacy.utils._validation import (
    check_categorical_values,
    check_category_counts,
    check_sensitive,
    describe_numbers_with_text,
)

__all__ = ["BaseMechanism"]


_S_TWICE = (
    "S was given twice: as the columns of X named by sensitive={sensitive!r} and as the "
    "`sensitive` argument. Give one."
)
_S_COLUMNS = "the sensitive columns of X"


class BaseMechanism(TransformerMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of every privacy mechanism (template method).

    Subclasses list their own parameters plus ``sensitive`` and
    ``random_state`` in ``__init__``, extend ``_parameter_constraints`` with
    ``**BaseMechanism._parameter_constraints``, and implement:

    ``_fit_mechanism(self, X, S, y, sample_weight)``
        Learn the mechanism. ``X`` is an ndarray of the columns to release (the
        sensitive columns removed), ``S`` an ndarray of shape
        ``(n_samples, n_sensitive)`` or ``None`` when none was given and the
        mechanism does not need it, ``y`` the target as given,
        ``sample_weight`` positive row weights or ``None`` (rows of weight 0
        are already removed).
    ``_release(self, X, S, rng)``
        Return the release for the validated columns ``X``; ``S`` is S for
        the same rows when it is given (columns or ``sensitive=``), else
        ``None`` (only a mechanism that observes S uses it); ``rng`` is the
        generator of this release: fresh OS entropy with ``random_state=None``,
        else the seeded release stream, which advances with every call (no two
        releases share noise).

    Randomness at fit (a private estimate, a trained network) draws from
    ``self._fit_rng``, which exists during ``fit`` only: fresh OS entropy, or
    a stream independent of the release stream when seeded (both spawned from
    one :class:`numpy.random.SeedSequence` made from ``random_state`` at
    every ``fit``). With ``random_state=None`` nothing in a fitted mechanism
    holds a random state: its pickles and copies cannot replay or predict its
    noise, and never share it.

    and optionally ``_release_distribution(self, X, S)`` (the probability of each
    release value for each row, for a finite output alphabet: exact leakage),
    ``_distortion(self, X, Xt)`` (the mean distortion between
    released columns and their release, used by the distortion scorer),
    ``_start_lazy_release(self)`` (a mechanism that keeps a ledger records
    the one release of a dask collection there) and
    ``get_feature_names_out`` when the release does not keep the input columns.

    Class switches: ``_requires_sensitive`` (fit fails without S),
    ``_categorical_input`` (columns are categories: object and string columns are
    accepted as they are), ``_randomized_release`` (the release is random: sets
    scikit-learn's ``non_deterministic`` tag). A method ``_claims_dp`` says
    whether the fitted mechanism reports a differential-privacy guarantee; such
    a mechanism given an integer ``random_state`` warns with
    :class:`~sklearn_privacy.exceptions.PrivacyLeakWarning`.

    Every ``transform`` draws fresh noise. An integer ``random_state`` makes the
    *sequence* of releases of a freshly fitted mechanism reproducible (first
    release, second release, ...), never two identical noises from one fit.

    See Also
    --------
    sklearn_privacy.utils.TradeoffKnob : The knob a mechanism declares in ``_tradeoff_knob``.
    sklearn_privacy.metrics.make_leakage_scorer : Scores any mechanism built on this class.
    sklearn_privacy.model_selection.tradeoff_curve : Sweeps any mechanism along its knob.

    Examples
    --------
    A mechanism that adds Gaussian noise to the columns other than S:

    >>> from numbers import Real
    >>> import numpy as np
    >>> from sklearn.utils._param_validation import Interval
    >>> from sklearn_privacy.base import BaseMechanism
    >>> from sklearn_privacy.utils import TradeoffKnob
    >>> class AddNoise(BaseMechanism):
    ...     # Releases X + N(0, scale^2); S is only removed from X.
    ...     _parameter_constraints = {
    ...         **BaseMechanism._parameter_constraints,
    ...         "scale": [Interval(Real, 0, None, closed="left")],
    ...     }
    ...     _requires_sensitive = False
    ...     _tradeoff_knob = TradeoffKnob("scale", "smaller", low=0.0, high=2.0)
    ...
    ...     def __init__(self, scale=1.0, *, sensitive=None, random_state=None):
    ...         self.scale = scale
    ...         self.sensitive = sensitive
    ...         self.random_state = random_state
    ...
    ...     def _fit_mechanism(self, X, S, y, sample_weight):
    ...         return self
    ...
    ...     def _release(self, X, S, rng):
    ...         return X + self.scale * rng.standard_normal(X.shape)
    >>> X = np.array([[0, 1.0], [1, 2.0], [0, 3.0]])  # column 0 is S
    >>> AddNoise(scale=0.0, sensitive=[0]).fit(X).transform(X)
    array([[1.],
           [2.],
           [3.]])
    >>> AddNoise(scale=0.5, sensitive=[0], random_state=0).fit_transform(X).shape
    (3, 1)
    >>> AddNoise().get_tradeoff_knob().name
    'scale'
    >>> AddNoise(scale=-1.0).fit(X)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    sklearn.utils._param_validation.InvalidParameterError: The 'scale' parameter of AddNoise ...
    """

    _parameter_constraints: dict = {
        "sensitive": [None, Integral, str, "array-like", Hidden(slice)],
        "random_state": ["random_state", np.random.Generator],
    }

    _requires_sensitive = True
    _categorical_input = False
    _randomized_release = True

    def _needs_sensitive(self):
        """Whether fit needs S; a method so that a parameter may decide it."""
        return self._requires_sensitive

    def _claims_dp(self):
        """Whether the mechanism reports a differential-privacy guarantee."""
        return False

    def _observes_sensitive(self):
        """Whether the release reads S (then S must come as columns of X, read at transform)."""
        return False

    def get_tradeoff_knob(self):
        """The parameter that moves this mechanism along its privacy/utility trade-off.

        :func:`~sklearn_privacy.model_selection.tradeoff_curve` sweeps it when no
        parameter is named, and plots read its direction from it.

        Returns
        -------
        TradeoffKnob
            Its name, the direction in which leakage grows, and a default range.
        """
        knob = getattr(type(self), "_tradeoff_knob", None)
        if knob is None:
            raise NotImplementedError(
                f"{type(self).__name__} declares no trade-off knob: set the class attribute "
                "_tradeoff_knob = TradeoffKnob(...) or override get_tradeoff_knob."
            )
        return knob

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive=None, sample_weight=None):
        """Fit the mechanism.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Observed data: numbers, or categories (numbers or strings) for a
            mechanism of categorical columns. When ``sensitive`` was set at
            construction, the columns it names hold S and are not released.
        y : array-like of shape (n_samples,), default=None
            Downstream target; passed through untouched (used only as the
            relevance variable of an information bottleneck, and as the utility
            of ``PPANTransformer(distortion="mutual_information")``).
        sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
            S given as metadata, when it is not a column of ``X``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the rows: a row of weight ``w`` counts as
            ``w`` copies (integer counts fit exactly as the repeated rows;
            rows of weight 0 are left out). Fit a table of distinct rows and
            their counts this way. A differentially private fit counts the
            weights as people too (its guarantee protects one unit of weight,
            or the mechanism's ``max_person_weight``), so a count table has
            the expanded rows' guarantee and noise.

        Returns
        -------
        self : object
            The fitted mechanism.
        """
        try:
            if is_dask_collection(X):
                return self._fit_dask(X, y, sensitive, sample_weight)
            X_release, S = self._validate_fit_input(X, sensitive)
            X_release, S, y, sample_weight = self._apply_sample_weight(
                X_release, S, y, sample_weight
            )
            self._spawn_streams()
            self._fit_mechanism(X_release, S, y, sample_weight)
            return self
        finally:
            # the fit-time stream lives for the fit only: nothing in a fitted model may
            # let anyone replay the noise of its private estimates
            self.__dict__.pop("_fit_rng", None)

    def _fit_dask(self, X, y, sensitive, sample_weight):
        """A dask DataFrame: dask counts the distinct rows, the mechanism is fitted on them."""
        if not self._categorical_input:
            raise ValueError(
                f"{self.__class__.__name__}.fit takes in-memory data (a dask collection is "
                "accepted by transform): fit on a pandas sample of the rows, or on the "
                "public data."
            )
        if y is not None or sensitive is not None or sample_weight is not None:
            raise ValueError(
                "With a dask DataFrame, give S as columns (sensitive=...) and no y, "
                "sensitive or sample_weight: the rows are counted by dask."
            )
        rows, counts = count_distinct_rows(X)
        return self.fit(rows, sample_weight=counts)

    def _apply_sample_weight(self, X, S, y, sample_weight, *, check_s=True):
        """Validated weights (None when not given); rows of weight 0 are left out.

        The one sample-weight path of every fit, in memory and per dask
        partition (``check_s=False``: a partition's S may hold one value).
        """
        if sample_weight is None:
            return X, S, y, None
        sample_weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        keep = sample_weight > 0
        if not keep.all():
            X, sample_weight = X[keep], sample_weight[keep]
            if S is not None:
                S = np.asarray(S)[keep]
                if check_s:
                    S = self._check_fit_sensitive(S, "S of the weighted rows")
            if y is not None:
                y = _safe_indexing(y, np.flatnonzero(keep))
        return X, S, y, sample_weight

    def _spawn_streams(self):
        """Set up the noise of this fit (see the class docstring).

        ``random_state=None``: ``_fit_rng`` draws fresh OS entropy and lives for the
        fit only, and no release stream is kept: every release draws fresh OS
        entropy when it is made (:meth:`_release_generator`), so nothing reachable
        from the fitted model (pickle, deepcopy, joblib) holds a state from which
        its past or future noise could be computed, and no two copies share noise.
        A seed (int, RandomState or Generator): independent fit-time and release
        streams spawned from it, reproducible for experiments; a DP mechanism warns.
        """
        self.__dict__.pop("_release_rng", None)
        if self.random_state is None:
            self._fit_rng = np.random.default_rng()
            return
        if self._claims_dp():
            warn_user(
                f"{self.__class__.__name__}(random_state={self.random_state!r}): a seeded "
                "mechanism draws a reproducible sequence of noises, so two published "
                "releases made from the same seed can be subtracted to remove the noise, "
                "and the saved model (pickle, joblib, a copy) carries the seed and the "
                "state of its noise: anyone holding it can replay the noise of its private "
                "estimates and of its releases, and the reported epsilon_ does not hold. "
                "Use a seed for experiments only; publish releases made with "
                "random_state=None.",
                PrivacyLeakWarning,
            )
        fit_seed, release_seed = check_seed_sequence(self.random_state).spawn(2)
        self._fit_rng = np.random.default_rng(fit_seed)
        self._release_rng = np.random.default_rng(release_seed)

    def _release_generator(self):
        """The generator of one release: the seeded stream, or fresh OS entropy."""
        rng = self.__dict__.get("_release_rng")
        return np.random.default_rng() if rng is None else rng

    def _release_seeds(self, n):
        """``n`` independent seed sequences for the parts of one lazy release.

        Fixed when the release is made, so that a lazy collection yields the same
        rows however often and in whatever pieces it is computed.
        """
        rng = self.__dict__.get("_release_rng")
        parent = np.random.SeedSequence() if rng is None else rng.bit_generator.seed_seq
        return parent.spawn(n)

    def transform(self, X):
        """Release ``X`` through the fitted mechanism.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data with the same columns as at fit (sensitive columns included
            when they were given as columns; they are dropped).

        Returns
        -------
        Xt : ndarray of shape (n_samples, n_features_out)
            The release.
        """
        if is_dask_collection(X):
            check_is_fitted(self)
            return self._release_dask(X)
        X_release, S = self._split_for_release(X)
        return self._release(X_release, S, self._release_generator())

    def _release_dask(self, X):
        """Lazy release of a dask DataFrame or Array, one partition (block) at a time.

        One lazy release is one release: the seed of every partition's noise is
        drawn when this is called and fixed in the graph, so the collection yields
        the same rows however often and in whatever pieces it is computed (under
        any scheduler), and a mechanism that keeps a ledger records one release
        (:meth:`_start_lazy_release`). Each partition draws from its own seed
        sequence (independent children of fresh OS entropy, or of the seeded
        release stream), so no two partitions share noise. The graph therefore
        carries the seeds of its noise, next to the private rows it reads: it is
        the private computation, not the release; publish what it computes.
        """
        releaser = self._start_lazy_release()
        seeds = np.array([seq.generate_state(4) for seq in self._release_seeds(n_row_blocks(X))])
        names = list(releaser.get_feature_names_out())

        def release(part, seed):
            X_release, S = releaser._split_for_release(part)
            return np.asarray(
                releaser._release(X_release, S, np.random.default_rng(np.ravel(seed)))
            )

        dtype = float
        if hasattr(X, "map_partitions"):
            # the dtype of the release, from the first row of any partition (the first
            # may be empty)
            first = head_rows(X, 1)
            if len(first):
                sample = releaser._release(
                    *releaser._split_for_release(first), np.random.default_rng(0)
                )
                dtype = np.asarray(sample).dtype
        return map_row_blocks(X, release, seeds, names, dtype)

    def _start_lazy_release(self):
        """Start one lazy release: the object whose ``_release`` its partitions call.

        A shallow copy, so that what a partition's ``_release`` writes (a ledger
        entry per call) stays off this mechanism. A mechanism that keeps a
        ledger overrides this to record the one release of the whole collection.
        """
        return copy.copy(self)

    def _split_for_release(self, X):
        """The released columns and S for ``_release`` (a mechanism that ignores S overrides)."""
        return self.split_sensitive(X)

    def split_sensitive(self, X, sensitive=None):
        """Validate ``X`` as at ``transform`` and split it into the released columns and S.

        The one place where S is resolved for a fitted mechanism: ``transform``
        and the privacy scorers call it. S comes from the columns named by the
        ``sensitive`` parameter, or from the ``sensitive`` argument; giving it
        both ways is an error.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data with the columns seen at fit.
        sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
            S given separately (e.g. routed metadata), when it is not a column of ``X``.

        Returns
        -------
        X_release : ndarray of shape (n_samples, n_released)
            The columns the mechanism releases.
        S : ndarray of shape (n_samples, n_sensitive) or None
            S, validated, or None when it was given neither way.
        """
        check_is_fitted(self)
        X_release, S = self._split_sensitive(self._validate_X(X, reset=False))
        if S is not None and sensitive is not None:
            raise ValueError(_S_TWICE.format(sensitive=self.sensitive))
        if sensitive is not None:
            return X_release, check_sensitive(sensitive, n_samples=X_release.shape[0])
        if S is not None:
            S = check_sensitive(S, n_samples=X_release.shape[0], name=_S_COLUMNS, min_values=1)
        return X_release, S

    def get_feature_names_out(self, input_features=None):
        """Names of the released features.

        By default the released input columns keep their names; mechanisms
        that change the columns override this.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input feature names; ``feature_names_in_`` or ``x0, x1, ...`` by default.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "n_features_in_")
        names = _check_feature_names_in(self, input_features)
        return np.asarray(names[self.release_columns_], dtype=object)

    # ---------------------------------------------------------------- hooks
    @abstractmethod
    def _fit_mechanism(self, X, S, y, sample_weight):
        """Fit on validated released columns ``X``, ``S`` (or None) and ``y``."""

    @abstractmethod
    def _release(self, X, S, rng):
        """The release of validated ``X`` (S given when the mechanism observes it)."""

    def _release_distribution(self, X, S):
        """``P(release = u | row)`` for each row, when the release takes finitely many values.

        A mechanism with a finite output alphabet returns an array of shape
        ``(n_rows, n_outputs)`` whose rows sum to 1 (its leakage on the rows is
        then computed exactly, without sampling the release); others return
        None.
        """
        return None

    def _distortion(self, X, Xt):
        """Mean squared distortion ``E ||x - t||^2`` when the release keeps the columns."""
        X = np.asarray(X, dtype=float)
        Xt = np.asarray(Xt, dtype=float)
        if X.shape != Xt.shape:
            raise ValueError(
                f"{self.__class__.__name__} releases {Xt.shape[1]} features from "
                f"{X.shape[1]}: it defines no distortion between them."
            )
        return float(np.mean(np.sum((X - Xt) ** 2, axis=1)))

    # ----------------------------------------------------------- validation
    def _validate_X(self, X, *, reset):
        _check_frame_columns(X, numeric=not self._categorical_input, sensitive=self.sensitive)
        kwargs = {}
        if self._categorical_input:
            # missing and infinite cells are checked below, naming the column (scikit-learn's
            # finiteness check would ask for the truth value of pd.NA)
            kwargs = {"dtype": None, "ensure_all_finite": False}
        elif self.sensitive is not None:
            # S columns may hold labels (strings) even when the released columns are
            # numbers: keep X as it is here and convert the released columns alone
            # (``_split_sensitive``), so that an error names the right columns.
            kwargs = {"dtype": None, "ensure_all_finite": False}
        # Fitting needs two rows (S must vary); a fitted mechanism releases a single row too.
        try:
            X = validate_data(self, X, reset=reset, ensure_min_samples=2 if reset else 1, **kwargs)
        except ValueError as exc:
            if "could not convert" not in str(exc):
                raise
            raise self._non_numeric_error(exc, "the columns of X", X) from exc
        if self._categorical_input:
            check_categorical_values(X, feature_names=getattr(self, "feature_names_in_", None))
        return X

    def _set_column_roles(self):
        """Set ``sensitive_columns_`` and ``release_columns_`` (after ``_validate_X``)."""
        self.sensitive_columns_ = self._resolve_sensitive_columns()
        self.release_columns_ = np.setdiff1d(
            np.arange(self.n_features_in_), self.sensitive_columns_
        )
        if self.release_columns_.size == 0:
            raise ValueError(
                f"sensitive={self.sensitive!r} names every column of X (n_features = "
                f"{self.n_features_in_}): nothing is left to release."
            )

    def _validate_fit_input(self, X, sensitive):
        X = self._validate_X(X, reset=True)
        self._set_column_roles()
        X_release, S = self._split_sensitive(X)
        self._check_how_s_came(S is not None, sensitive is not None)
        if sensitive is not None:
            S = self._check_fit_sensitive(sensitive, "sensitive", X.shape[0])
        elif S is not None:
            S = self._check_fit_sensitive(S, _S_COLUMNS, X.shape[0])
        return X_release, S

    @staticmethod
    def _s_label(as_columns):
        """How messages name S: the sensitive columns of X, or the `sensitive` argument."""
        return _S_COLUMNS if as_columns else "sensitive"

    def _check_how_s_came(self, as_columns, as_metadata):
        """The rules of how S reaches a fit (in memory or dask): once, and when needed."""
        if as_columns and as_metadata:
            raise ValueError(_S_TWICE.format(sensitive=self.sensitive))
        if as_metadata and self._observes_sensitive():
            raise ValueError(
                "observation='full' reads S at transform time: give S as columns of X with "
                "sensitive=..., not as the `sensitive` argument of fit."
            )
        if not (as_columns or as_metadata) and self._needs_sensitive():
            name = self.__class__.__name__
            requested = self._get_metadata_request().fit.requests.get("sensitive") is True
            raise ValueError(
                f"{name} needs the sensitive attribute S and got none: name its columns of X "
                "with sensitive=[...] (works in any Pipeline or search), or pass "
                "fit(X, y, sensitive=S). "
                + routing_advice(f"{name}(...).set_fit_request(sensitive=True)", requested)
            )

    def _check_fit_sensitive(self, S, name, n_samples=None):
        """Validate S at fit: no missing values, at least two values (see ``check_sensitive``).

        A mechanism whose private fit must not branch on the values of S
        overrides this.
        """
        return check_sensitive(S, n_samples=n_samples, name=name)

    def _check_sensitive_categories(
        self, S, max_categories, remedies, *, bound=None, numbers_only=False
    ):
        """Refuse an S read as categories whose column looks continuous.

        A column of S with more than ``max_categories`` distinct values fails,
        naming ``sensitive`` (and the column of ``X``, when S came as columns),
        the number of values and ``remedies`` (see
        :func:`~sklearn_privacy.utils._validation.check_category_counts`).
        Only for fits that read S off the rows: a private fit takes no branch
        from S's values.
        """
        check_category_counts(
            S,
            max_categories,
            reader=type(self).__name__,
            remedies=remedies,
            column_labels=self._sensitive_column_labels(),
            bound=bound,
            numbers_only=numbers_only,
        )

    def _sensitive_column_labels(self):
        """Names (or positions) of the columns of ``X`` holding S; None when S is metadata."""
        columns = getattr(self, "sensitive_columns_", None)
        if columns is None or columns.size == 0:
            return None
        names = getattr(self, "feature_names_in_", None)
        return [int(j) if names is None else str(names[j]) for j in columns]

    def _resolve_sensitive_columns(self):
        """Indices of the columns of X that hold S (empty when S is not in X)."""
        names = getattr(self, "feature_names_in_", None)
        positions = sensitive_positions(self.sensitive, names, self.n_features_in_, strict=True)
        return np.asarray(positions, dtype=int)

    def _non_numeric_error(self, exc, where, values=None, feature_names=None):
        """The error of a numeric mechanism given text, with the remedies.

        When a column of ``values`` (the columns that failed, with their
        ``feature_names``; a DataFrame names its own) is numbers with stray
        text (a placeholder such as ``"n/a"``), the error names that column
        and how to make it numeric.
        """
        if values is not None:
            if hasattr(values, "columns") and hasattr(values, "to_numpy"):
                feature_names = [str(c) for c in values.columns]
                values = values.to_numpy(dtype=object)
            try:
                values = np.asarray(values, dtype=object)
            except ValueError:  # ragged rows: validate_data's own message stands
                values = None
            stray = describe_numbers_with_text(values, feature_names=feature_names)
            if stray is not None:
                return ValueError(
                    f"{self.__class__.__name__} releases numeric columns, but {stray}."
                )
        return ValueError(
            f"{self.__class__.__name__} releases numeric columns, but {where} hold "
            f"non-numeric values ({exc}). Encode them before the mechanism (for example "
            "OneHotEncoder in a ColumnTransformer), drop them, or release categorical "
            "columns with PrivacyFunnelTransformer, SubmodularFunnel or ConvexPrivacyMapping."
        )

    def _split_sensitive(self, X):
        """Split validated ``X`` into (released columns, S columns or None)."""
        if self.sensitive_columns_.size == 0:
            return X, None
        X_release, S = X[:, self.release_columns_], X[:, self.sensitive_columns_]
        if not self._categorical_input:
            try:
                X_release = check_array(X_release, dtype=np.float64, input_name="X")
            except ValueError as exc:
                if "could not convert" not in str(exc):
                    raise
                where = f"the released columns of X (all but sensitive={self.sensitive!r})"
                names = getattr(self, "feature_names_in_", None)
                names = None if names is None else names[self.release_columns_]
                raise self._non_numeric_error(exc, where, X_release, names) from exc
            if S.dtype == object:
                # S may hold numbers or labels; anything else (a dict, a list) raises
                # numpy's TypeError here, as it does for numeric columns. Missing cells
                # (pd.NA raises that TypeError too) are left to the checks of S, which
                # name them.
                try:
                    S[~np.asarray(pd.isna(S), dtype=bool)].astype(np.float64)
                except ValueError:
                    pass
        return X_release, S

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self._randomized_release
        tags.requires_fit = True
        tags.target_tags.required = False
        if self._categorical_input:
            tags.input_tags.categorical = True
            tags.input_tags.string = True
        return tags


def routing_advice(request, requested):
    """How S given as metadata reaches a step inside a Pipeline or a search, for an error.

    scikit-learn passes ``fit(X, y, sensitive=S)`` of a Pipeline, GridSearchCV or
    cross_validate on to a step only when metadata routing is enabled and the step
    requests it; otherwise it says only that the Pipeline does not accept
    ``sensitive``. ``request`` is the call that makes the step request S and
    ``requested`` whether it does; the advice follows the routing state.
    """
    pass_s = (
        "pass S to the search: GridSearchCV(...).fit(X, y, sensitive=S), or "
        "cross_validate(..., params={'sensitive': S})"
    )
    if not get_config().get("enable_metadata_routing", False):
        return (
            "Inside a Pipeline, GridSearchCV or cross_validate, S given as metadata reaches "
            "a step only with scikit-learn's metadata routing on: call "
            f"sklearn.set_config(enable_metadata_routing=True) and {request}, then {pass_s}."
        )
    if not requested:
        return f"Metadata routing is on but S is not requested: call {request}, then {pass_s}."
    return f"Metadata routing is on and S is requested, but none reached it: {pass_s}."


def _check_frame_columns(X, *, numeric, sensitive):
    """Clear errors for a DataFrame's duplicate column names and for columns of the wrong kind.

    Duplicate names make a named S or a feature name ambiguous; a numeric
    mechanism cannot release datetime, timedelta or complex columns (it would
    fail deep inside NumPy); S columns may hold anything.
    """
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "dtypes"):
        return
    names = [str(c) for c in columns]
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise ValueError(
            f"X has duplicate column names {repeated}: every column needs its own name "
            "(rename them, e.g. X.columns = [...])."
        )
    if not numeric:
        return
    s_columns = set(sensitive_positions(sensitive, names, len(names)))
    for j, (name, dtype) in enumerate(zip(names, X.dtypes)):
        kind = getattr(dtype, "kind", "O")
        if j not in s_columns and kind in "mMc":
            what, remedy = {
                "m": ("timedeltas", "convert it to seconds"),
                "M": ("datetimes", "convert it to numbers, e.g. seconds since a date"),
                "c": ("complex numbers", "split it into its real and imaginary parts"),
            }[kind]
            raise ValueError(
                f"column {name!r} of X holds {what}, which this mechanism cannot release as "
                f"numbers: {remedy}, or drop it."
            )


def sensitive_positions(sensitive, names, n_columns, *, strict=False, param="sensitive"):
    """Positions of the columns that ``sensitive`` names: the one column resolver.

    Every parameter that names columns of ``X`` (``sensitive``, GIB's
    ``relevance``) is resolved here, with the same rules and errors.

    Parameters
    ----------
    sensitive : int, str, slice, array-like of int or str, or None
        The columns, as the parameter gives them.
    names : array-like of str or None
        Column names of ``X`` (None for an array).
    n_columns : int
    strict : bool, default=False
        ``True`` (after ``X`` is validated): a name not among ``names``, an
        index out of range, an empty list or a column named twice raise a
        ``ValueError`` naming it. ``False`` (before validation, to know which
        columns to leave alone): those are skipped, and a slice gives nothing.
    param : str, default="sensitive"
        The parameter's name, for the errors.

    Returns
    -------
    list of int
    """
    if sensitive is None:
        return []
    if isinstance(sensitive, slice):
        return np.arange(n_columns)[sensitive].tolist() if strict else []
    items = list(sensitive) if _is_arraylike_not_scalar(sensitive) else [sensitive]
    if strict and not items:
        raise ValueError(f"{param} is empty: give at least one column, or None.")
    names = [] if names is None else [str(n) for n in names]
    out = []
    for item in items:
        if isinstance(item, (str, np.str_)):
            if item in names:
                out.append(names.index(item))
            elif strict and not names:
                raise ValueError(
                    f"{param} names the column {item!r}, but X has no column names; "
                    "pass a DataFrame or give integer indices."
                )
            elif strict:
                raise ValueError(f"{param} column {item!r} is not a column of X.")
        elif isinstance(item, (Integral, np.integer)) and not isinstance(item, bool):
            if -n_columns <= item < n_columns:
                out.append(int(item) % n_columns)
            elif strict:
                raise ValueError(
                    f"{param} column index {item} is out of range for X with {n_columns} columns."
                )
        elif strict:
            raise ValueError(f"{param} must hold column names or integer indices, got {item!r}.")
    if strict and len(set(out)) != len(out):
        raise ValueError(f"{param}={sensitive!r} names a column twice.")
    return out
