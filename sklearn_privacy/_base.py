"""The contract every privacy mechanism shares: :class:`BaseMechanism`.

The template around the hooks ``_fit_mechanism`` and ``_release``: validation, weights, noise
streams and tags. Where S sits in ``X`` is resolved by ``_sensitive.SensitiveColumns``; dask
collections are fitted and released by the functions of ``_lazy``.
"""

import copy
from abc import ABCMeta, abstractmethod
from dataclasses import dataclass
from numbers import Integral
from typing import Protocol, runtime_checkable

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy._lazy import dask_fit, dask_release
from sklearn_privacy._sensitive import (
    S_COLUMNS,
    check_how_s_came,
    set_column_roles,
    validate_columns,
    warn_if_released_column_is_s,
)
from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.utils import warn_user
from sklearn_privacy.utils._dask import is_dask_collection
from sklearn_privacy.utils._random import check_seed_sequence
from sklearn_privacy.utils._sklearn_compat import (
    Hidden,
    _check_feature_names_in,
    _check_sample_weight,
    _fit_context,
    _safe_indexing,
)
from sklearn_privacy.utils._validation import check_sensitive

__all__ = ["AuditPlan", "AuditProtocol", "BaseMechanism", "PrivacyClaim"]


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

    They may also override the public :meth:`release_distribution` (for a
    finite output alphabet: the leakage scorer's exact leakage) and
    :meth:`mean_distortion` (the distortion scorer's measure), which the
    scorers ask of a mechanism, ``get_feature_names_out`` (when the release
    does not keep the input columns) and ``_start_lazy_release(self)`` (a
    mechanism that keeps a ledger records the one release of a dask
    collection there).

    Randomness at fit (a private estimate, a trained network) draws from
    ``self._fit_rng``, which exists during ``fit`` only: fresh OS entropy, or
    a stream independent of the release stream when seeded (both spawned from
    one :class:`numpy.random.SeedSequence` made from ``random_state`` at
    every ``fit``). With ``random_state=None`` nothing in a fitted mechanism
    holds a random state: its pickles and copies cannot replay or predict its
    noise, and never share it.

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
    A mechanism that adds Gaussian noise to the columns other than S (with its
    parameter's constraints and trade-off knob in ``docs/design.md``, "Adding a
    mechanism"):

    >>> import numpy as np
    >>> from sklearn_privacy.base import BaseMechanism
    >>> class AddNoise(BaseMechanism):
    ...     _requires_sensitive = False
    ...
    ...     def __init__(self, scale=1.0, *, sensitive=None,
    ...                  random_state=None):
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
    >>> AddNoise(scale=0.0, sensitive=[0]).fit_transform(X)
    array([[1.],
           [2.],
           [3.]])
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
        """A dask collection: by default dask counts the distinct rows (``_lazy.dask_fit``)."""
        return dask_fit(self, X, y, sensitive, sample_weight)

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
        """Set up the noise of this fit: the fit-time and release streams of the class docstring.

        Without a seed no release stream is kept: every release draws fresh OS entropy
        (:meth:`_release_generator`); a DP mechanism given a seed warns.
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
            return dask_release(self, X)
        X_release, S = self._split_for_release(X)
        return self._release(X_release, S, self._release_generator())

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
        X_release, S = self._sensitive_split.split(self._validate_X(X, reset=False))
        return X_release, self._sensitive_split.resolve(X_release, S, sensitive)

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

    def release_distribution(self, X, S):
        """``P(release = u | row)`` for each row, when the release takes finitely many values.

        The leakage scorers compute the leakage on the rows exactly from it,
        without sampling the release.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_released)
            The released columns, as :meth:`split_sensitive` returns them.
        S : ndarray of shape (n_samples, n_sensitive) or None
            S of the same rows (read by a mechanism whose release observes S).

        Returns
        -------
        ndarray of shape (n_samples, n_outputs) or None
            Rows that sum to 1, for a mechanism with a finite output alphabet
            and known probabilities; None otherwise (the default).
        """
        return None

    def mean_distortion(self, X, Xt):
        """Mean distortion between released columns and their release.

        The distortion scorer's measure; by default the mean squared distortion
        ``E ||x - t||^2``, defined when the release keeps the columns.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_released)
            The released columns, as :meth:`split_sensitive` returns them.
        Xt : ndarray of shape (n_samples, n_features_out)
            Their release (``transform``).

        Returns
        -------
        float
        """
        X = np.asarray(X, dtype=float)
        Xt = np.asarray(Xt, dtype=float)
        if X.shape != Xt.shape:
            raise ValueError(
                f"{self.__class__.__name__} releases {Xt.shape[1]} features from "
                f"{X.shape[1]}: it defines no distortion between them."
            )
        return float(np.mean(np.sum((X - Xt) ** 2, axis=1)))

    # ---------------------------------------------------------------- hooks
    @abstractmethod
    def _fit_mechanism(self, X, S, y, sample_weight):
        """Fit on validated released columns ``X``, ``S`` (or None) and ``y``."""

    @abstractmethod
    def _release(self, X, S, rng):
        """The release of validated ``X`` (S given when the mechanism observes it)."""

    # ----------------------------------------------------------- validation
    def _validate_X(self, X, *, reset):
        """``X`` validated as scikit-learn does, its S columns left as they are (at fit,
        ``reset=True``: two rows at least)."""
        return validate_columns(self, X, reset=reset)

    def _validate_fit_input(self, X, sensitive):
        X = self._validate_X(X, reset=True)
        X_release, S = set_column_roles(self).split(X)
        check_how_s_came(self, as_columns=S is not None, as_metadata=sensitive is not None)
        if sensitive is not None:
            S = self._check_fit_sensitive(sensitive, "sensitive", X.shape[0])
            warn_if_released_column_is_s(self, X_release, S)
        elif S is not None:
            S = self._check_fit_sensitive(S, S_COLUMNS, X.shape[0])
        return X_release, S

    def _check_fit_sensitive(self, S, name, n_samples=None):
        """Validate S at fit: no missing values, at least two values (see ``check_sensitive``).

        A mechanism whose private fit must not branch on the values of S
        overrides this.
        """
        return check_sensitive(S, n_samples=n_samples, name=name)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self._randomized_release
        tags.requires_fit = True
        tags.target_tags.required = False
        if self._categorical_input:
            tags.input_tags.categorical = True
            tags.input_tags.string = True
        return tags


# ------------------------------------------------------------ the audit protocol
@dataclass(frozen=True)
class PrivacyClaim:
    r"""What a fitted estimator's ledger claims: the answer of ``audit_claim()``.

    Part of the :class:`AuditProtocol`: :func:`~sklearn_privacy.audit.audit_privacy`
    compares its lower bounds with it.

    Attributes
    ----------
    epsilon, delta : float
        The differential-privacy guarantee of everything the estimator has
        published (its fitted attributes and its releases so far).
    mu : float, default=nan
        The Gaussian-DP :math:`\mu` of the same, when the ledger has one.

    See Also
    --------
    AuditProtocol : The methods an audit asks of an estimator.

    Examples
    --------
    >>> from sklearn_privacy.base import PrivacyClaim
    >>> PrivacyClaim(epsilon=2.0, delta=1e-5, mu=0.5).mu
    0.5
    """

    epsilon: float
    delta: float
    mu: float = float("nan")


@dataclass(frozen=True)
class AuditPlan:
    """How an audit builds the neighbour D' of an estimator: the answer of ``audit_plan(X)``.

    Part of the :class:`AuditProtocol`; every field has a default, the plan
    of an estimator that does not answer ``audit_plan``.

    Attributes
    ----------
    columns : tuple of int or None, default=None
        Positions of the columns of ``X`` the audit's canary may move (not
        those read as S or as a target); None: every column.
    direction : ndarray of shape (len(columns),) or None, default=None
        The direction, over ``columns``, in which one row moves the release
        most; None: the rows' first principal direction.
    person_weight : float, default=1.0
        The weight of one person, the unit of ``neighbour="replace-unit"``.
    private_fit : bool, default=True
        Whether the ledger covers the fit. False when the fit data are declared
        public: the audit then fits on D in both worlds, and only the release of
        the changed row differs.

    See Also
    --------
    AuditProtocol : The methods an audit asks of an estimator.

    Examples
    --------
    >>> from sklearn_privacy.base import AuditPlan
    >>> AuditPlan().private_fit, AuditPlan(person_weight=4.0).person_weight
    (True, 4.0)
    """

    columns: tuple | None = None
    direction: object = None
    person_weight: float = 1.0
    private_fit: bool = True


@runtime_checkable
class AuditProtocol(Protocol):
    """What :func:`~sklearn_privacy.audit.audit_privacy` asks of a differentially private estimator.

    An estimator with a method ``audit_claim`` keeps a ledger, and the audit
    tests its claim by fitting it on neighbouring data; any other is audited
    by the leakage of S from its release. The audit asks only these methods
    (never an attribute or a class of a family), so an estimator written
    outside this package, a user's or a wrapper of another DP library, is
    audited as this library's mechanisms are (they answer through a mixin,
    ``gaussian/_audit_protocol.py``). Only ``audit_claim`` is required; the
    audit falls back on the defaults said below when the others are missing.

    ``audit_claim()``
        Of the fitted estimator, after the audit's release: a
        :class:`PrivacyClaim` (or a tuple ``(epsilon, delta)`` or
        ``(epsilon, delta, mu)``) of everything it has published.
    ``audit_statistic(release)``
        Of the fitted estimator: a 1-D array of numbers read from its release
        of the changed row, the audit's default distinguisher (a release in
        coordinates a fit may flip is read back where the flip cancels).
        Default: the release, flattened.
    ``audit_plan(X, y=None, *, sensitive=None, sample_weight=None)``
        Of the unfitted estimator: an :class:`AuditPlan` of how D' is made
        from D and fitted. ``X`` is None when the estimator ends a pipeline
        (its input is not D's columns): then only ``person_weight`` and
        ``private_fit`` are read. Default: ``AuditPlan()``.

    Parameters
    ----------
    *args, **kwargs
        None: a protocol is not instantiated; ``isinstance(estimator,
        AuditProtocol)`` says whether an estimator answers it.

    See Also
    --------
    sklearn_privacy.audit.audit_privacy : The audit that asks these methods.

    Examples
    --------
    >>> from sklearn_privacy.base import AuditProtocol, PrivacyClaim
    >>> class Ledger:
    ...     def audit_claim(self):
    ...         return PrivacyClaim(1.0, 1e-5)
    >>> isinstance(Ledger(), AuditProtocol)
    True
    """

    def audit_claim(self):
        """The ledger's claim, a :class:`PrivacyClaim`."""
