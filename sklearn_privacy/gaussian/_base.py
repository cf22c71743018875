"""The base of the Gaussian mechanisms: fit rows, private estimates, ledger, guarantee.

``_GaussianMechanism`` fits from row statistics (in memory or dask), privately through
:mod:`sklearn_privacy.gaussian._private_fit`, and records them in one ``GaussianAccountant``.
"""

import re
from abc import abstractmethod
from numbers import Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import (
    S_COLUMNS,
    check_how_s_came,
    sensitive_labels,
    set_column_roles,
)
from sklearn_privacy.dp import GaussianAccountant, gaussian_dp_mu
from sklearn_privacy.dp.kernels import HISTOGRAM_SENSITIVITY, grid_sensitivity, rows_needed
from sklearn_privacy.exceptions import (
    DegenerateReleaseWarning,
    PrivacyLeakWarning,
    PrivateFitWarning,
)
from sklearn_privacy.gaussian._moments import (
    ArrayFitRows,
    DaskFitRows,
    VariableEncoder,
    combine_summaries,
    summarise_variable,
    weighted_moments,
)
from sklearn_privacy.gaussian._private_fit import (
    _FIT_SHARES,
    FitMoments,
    private_mean_covariance_from_statistics,
)
from sklearn_privacy.gaussian._weights import resolve_weights
from sklearn_privacy.utils import (
    declared_design_matrix,
    is_continuous,
    sensitive_design_matrix,
    warn_user,
)
from sklearn_privacy.utils._dask import aligned_partitions, head_rows, reduce_partitions
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions
from sklearn_privacy.utils._validation import (
    BIN_EXAMPLES,
    MAX_READ_CATEGORIES,
    as_2d,
    check_category_counts,
)

__all__ = ["FIT_DATA_CONSTRAINTS", "PRIVATE_REMEDIES", "check_scale_peaks", "weighted_moments"]

FIT_DATA_CONSTRAINTS = {
    "fit_data": [StrOptions({"private", "public"})],
    "fit_epsilon": [None, Interval(Real, 0, None, closed="neither")],
    "weights": [StrOptions({"person", "counts"})],
    "max_person_weight": [Interval(Real, 0, None, closed="neither")],
}

# What every remedy of a weak private fit says (one line per cause in the fit's warning).
PRIVATE_REMEDIES = (
    "raise fit_epsilon (or epsilon), give a public clip_radius, fit on more rows, or fit on "
    "public rows with fit_data='public'"
)

# Squares of values beyond these overflow or underflow in float64 (covariances).
_LARGEST, _SMALLEST = 1e150, 1e-150


def check_scale_peaks(peak, name="X"):
    """Reject columns whose squares overflow or underflow float64, with a clear message.

    ``peak`` holds the largest absolute value of each column of ``name``.
    """
    for j in np.flatnonzero((peak > _LARGEST) | ((peak > 0) & (peak < _SMALLEST))):
        fault = "overflow" if peak[j] > _LARGEST else "underflow"
        raise ValueError(
            f"Column {j} of {name} holds values of size {peak[j]:.3g}: their squares {fault} "
            "float64, so no covariance can be computed. Rescale the data by a public "
            "constant."
        )


# More one-hot classes than this from numbers read off the rows: probably a score, warned.
_MANY_CLASSES = 20
# Above this epsilon_ (at delta_ 1e-5, mu 3.45) a guarantee protects nobody: the best test of
# whether one person's row was used has power Phi(Phi^-1(0.01) + mu) = 0.87 at 1 % false
# positives (0.37 at epsilon 10, 1.000 at 50). A fit that reports more without being
# calibrated to an epsilon of the user's (the Gaussian funnel at its defaults: 1120) warns.
_VACUOUS_EPSILON = 20.0


class _GaussianMechanism(BaseMechanism):
    """Base of the Gaussian mechanisms: fit rows, private estimates, accounting, guarantee.

    A subclass has parameters ``fit_data``, ``fit_epsilon`` and ``delta`` and
    writes four hooks, which both fits (in memory, :meth:`_fit_in_memory`, and
    dask, :meth:`_fit_dask`) call:

    ``_fit_variables(has_y)``
        Check the parameters; return ``(uses_s, uses_y)``, whether the fit
        reads S and y.
    ``_n_released(n_release_columns)``
        How many of the fit rows' columns are released features.
    ``_assemble(X, S_design, y_design)``
        The fit rows of a block: ``(Z, extra)``, ``extra`` the design matrix
        of S when only ``leakage_`` reads it (else None).
    ``_fit_rows(rows, causes)``
        Fit from the rows' statistics (a :class:`~sklearn_privacy.gaussian._rows.FitRows`):
        call :meth:`_fit_moments`, design the release on the ``FitMoments`` it
        returns (passed on as a value, never kept on ``self``), then
        :meth:`_set_guarantee`; ``_release`` calls :meth:`_record_release`.

    and may override ``_designed_against()`` with ``_declared_classes()`` (the
    variable the mechanism is designed against, S or y, and its declared
    encoding: GIB's ``classes``) and ``_target_epsilon()`` (the epsilon it is
    calibrated to). The base reads no other parameter of a subclass.
    """

    def _claims_dp(self):
        return True

    def _fit_mechanism(self, X, S, y, sample_weight):
        self._fit_in_memory(X, S, y, sample_weight)

    @abstractmethod
    def _fit_variables(self, has_y):
        """Which variables the private estimates cover (see the class docstring)."""

    @abstractmethod
    def _n_released(self, n_release_columns):
        """Number of released columns, for the dask release's metadata."""

    @abstractmethod
    def _assemble(self, X, S_design, y_design):
        """The rows whose statistics the fit estimates."""

    @abstractmethod
    def _fit_rows(self, rows, causes):
        """Fit from the rows' statistics; note the causes of a weak fit in ``causes``."""

    def _check_fit_sensitive(self, S, name, n_samples=None):
        """Public fit: the usual checks. Private fit: the shape only.

        A private fit must not branch on the values of S (a missing value or a
        single value would decide between a fitted model and an exception):
        only the funnel reads S, through its declared encoding.
        """
        if self.fit_data == "public":
            return super()._check_fit_sensitive(S, name, n_samples)
        S = as_2d(S, name)
        if n_samples is not None and S.shape[0] != n_samples:
            raise ValueError(f"{name} has {S.shape[0]} rows but X has {n_samples}.")
        return S

    def _split_for_release(self, X):
        """The released columns; S is dropped unread (the release does not use it)."""
        check_is_fitted(self)
        return self._sensitive_split.split(self._validate_X(X, reset=False))[0], None

    def _check_peaks(self, peaks, name="X"):
        """Public fit: refuse columns whose squares leave float64. Private: rows are clipped."""
        if self.fit_data == "public":
            check_scale_peaks(peaks, name)

    # ------------------------------------------------- the declared variable
    def _designed_against(self):
        """The variable the mechanism is designed against: ``"sensitive"``, ``"y"`` or None.

        Its encoding is declared by :meth:`_declared_classes` (a ``classes``
        parameter); the other variables (S read for ``leakage_`` alone) are
        encoded as ``"auto"`` says. None (the default): the mechanism is
        designed against no variable and has no ``classes`` parameter.
        """
        return None

    def _declared_classes(self):
        """How the variable of :meth:`_designed_against` is encoded (``classes``).

        ``"auto"``, ``"continuous"`` or an array of classes; ``"auto"`` by default.
        """
        return "auto"

    def _warn_many_classes(self, values, n_classes, name):
        """Warn when ``classes="auto"`` reads numbers as many classes (a score, a count)."""
        numeric = np.asarray(values).dtype.kind in "iufb"
        declares = self._designed_against() is not None
        if declares and numeric and n_classes > _MANY_CLASSES:
            warn_user(
                f"classes='auto' read {name} as more than {_MANY_CLASSES} classes (integer "
                "values are classes) and one-hot encodes them into the Gaussian model. If it "
                "is a score or a count, pass classes='continuous'; to keep the classes, "
                "declare them.",
                UserWarning,
            )

    def _check_read_classes(self, values, role):
        """Refuse numbers read off the rows as more than 200 classes in one column.

        Public fits only (``classes="auto"`` reads the encoding off the rows);
        ``values`` is the variable ``role`` (``"sensitive"`` or ``"y"``) or its
        distinct symbols. One-hot classes of a measurement (fnlwgt as S: 21648
        integers) would make a design matrix of n x 21647 floats and a
        covariance over all of them.
        """
        is_s = role == "sensitive"
        auto = ", classes='auto'" if self._designed_against() is not None else ""
        if self._designed_against() == role:
            remedies = (
                "Pass classes='continuous' to read it as a number, or bin it first "
                f"({BIN_EXAMPLES}); if these really are classes, declare them, classes=[...]."
            )
        else:
            remedies = (
                f"Bin it first ({BIN_EXAMPLES}), or give it as floats that are not all "
                "integers (e.g. standardised, (S - S.mean()) / S.std()) to have it read as "
                "continuous; if these really are classes, give them as strings."
            )
        check_category_counts(
            values,
            MAX_READ_CATEGORIES,
            reader=f"{type(self).__name__} (fit_data='public'{auto})",
            remedies=remedies,
            name=role,
            column_labels=sensitive_labels(self) if is_s else None,
            bound=f"{MAX_READ_CATEGORIES} (the limit on numbers read off the rows as classes)",
            numbers_only=True,
        )

    def _design(self, values, role, name=None):
        """Float design matrix of S or y: declared for a private fit, else as ``classes`` says.

        ``role`` is ``"sensitive"`` or ``"y"``; ``name`` names the values in
        messages (``role`` by default). The encoding (:meth:`_classes_of`):
        ``"auto"`` reads it off the rows for a public fit (see
        :func:`~sklearn_privacy.utils.sensitive_design_matrix`) and means
        ``"continuous"`` for a private one, whose classes are private.
        """
        name = role if name is None else name
        classes = self._classes_of(role)
        if self._encoding_read_off_rows(role):
            if not is_continuous(values):
                self._check_read_classes(values, role)
            design = sensitive_design_matrix(values, name)
            self._warn_many_classes(values, design.shape[1] + 1, name)
            return design
        if not (isinstance(classes, str) and classes == "auto"):
            return declared_design_matrix(values, classes, name)
        dtype = as_2d(values, name).dtype
        if dtype.kind not in "biuf":
            # decided by the dtype: a cell's value must not decide between fit and error
            raise ValueError(
                f"Unknown label type: {name} is not numeric (dtype {dtype}): with "
                "fit_data='private', classes='auto' reads numbers only, and cannot read "
                "labels off the rows (which labels occur is private). Declare them, "
                "classes=[...], or give numbers (e.g. pandas.to_numeric(..., "
                "errors='coerce'); NaN counts as 0)."
            )
        return declared_design_matrix(values, "continuous", name)

    def _classes_of(self, role):
        """The declared encoding of the variable designed against, ``"auto"`` for the other one.

        The variable :meth:`_designed_against` names (S for the funnel, y for the
        bottleneck) is encoded as :meth:`_declared_classes` says; the other one (S
        of a bottleneck, read for ``leakage_``) as ``"auto"`` says.
        """
        return self._declared_classes() if self._designed_against() == role else "auto"

    def _encoding_read_off_rows(self, role):
        """Whether the encoding of S or y is read off the rows: a public fit with ``"auto"``."""
        classes = self._classes_of(role)
        return self.fit_data == "public" and isinstance(classes, str) and classes == "auto"

    def _declared_encoder(self, role, name, n_source_columns):
        """The encoder of S or y when it needs no look at the rows (else None)."""
        if self._encoding_read_off_rows(role):
            return None
        return _DeclaredEncoder(self, role, name, n_source_columns)

    def _fit_moments(self, rows, mu_fit, radius, causes, public_radius=True):
        """The :class:`~sklearn_privacy.gaussian._private_fit.FitMoments` of the fit rows.

        ``rows`` gives the statistics of the rows (a
        :class:`~sklearn_privacy.gaussian._rows.FitRows`). Private:
        :func:`~sklearn_privacy.gaussian._private_fit.private_mean_covariance_from_statistics`
        under the ``mu_fit``-GDP budget (the radius is estimated privately when
        ``radius`` is None). Public: the sample moments (``trace`` that of the
        covariance), and the largest centred row norm when ``radius`` is None and
        ``public_radius`` is set (else ``radius`` as given). The problems of
        private estimates are noted in ``causes`` (:class:`FitCauses`).
        """
        self.accountant_ = GaussianAccountant()
        if self.fit_data == "private":
            return self._private_moments(rows, mu_fit, radius, causes)
        if rows.total_weight <= 1.0:
            raise ValueError(
                f"sample_weight adds up to {rows.total_weight:.6g}: a weight counts copies of "
                "a row, so the weights must add up to more than one row (the covariance "
                "divides by their sum minus one). Scale them, for example to a mean of 1."
            )
        mean, cov = rows.moments()
        if radius is None and public_radius:
            radius = rows.max_norm(mean)
            if radius <= 0:
                radius = 1.0
        radius = None if radius is None else float(radius)
        return FitMoments(mean, cov, radius, trace=float(np.trace(cov)))

    def _private_moments(self, rows, mu_fit, radius, causes):
        """The private estimates of :meth:`_fit_moments`; their problems become causes."""
        n_people = rows.n_people
        self._warn_heavy_rows(rows.n_heavy, n_people)
        needed = rows_needed(HISTOGRAM_SENSITIVITY / (mu_fit * np.sqrt(_FIT_SHARES["radius"])))
        if n_people < needed:
            causes.note(
                "too few people for the private clipping radius at this budget (fit_epsilon, "
                "by default a share of epsilon, and delta)",
                PRIVATE_REMEDIES,
            )
        fit = private_mean_covariance_from_statistics(
            rows, mu_fit, rng=self._fit_rng, accountant=self.accountant_, radius=radius
        )
        # the published centres of the refinement and of the covariance (read by tests of
        # the ledger, never by the fit)
        self._refinement_starts, self._moments_mean = list(fit.starts), fit.mean
        if n_people >= needed or fit.failed:
            for problem in fit.problems:
                causes.note(_without_numbers(problem), PRIVATE_REMEDIES)
        return fit

    def _warn_heavy_rows(self, n_heavy, n_people):
        """Tell the caller (who holds the rows) how many weights were clipped, and what to declare.

        The count is the caller's to see, not published: it is in this warning
        only, never in a fitted attribute or in the ledger.
        """
        if n_heavy:
            warn_user(
                f"{type(self).__name__}: {n_heavy} of the {n_people:.0f} rows weigh more than "
                f"max_person_weight={self.max_person_weight!r}. With weights='person' each row "
                "is one person, protected up to that weight, so their weights were clipped to "
                "it. Declare the largest weight a person can have as max_person_weight (a "
                "public bound, not read off the rows), or weights='counts' if a weight counts "
                "people (a table of distinct rows and their counts).",
                PrivateFitWarning,
                cause=f"{type(self).__name__}: rows weigh more than max_person_weight",
            )

    # ------------------------------------------------------- the fit's warning
    def _fit_and_warn(self, rows):
        """``_fit_rows``, then one warning that gathers every cause of a weak or degenerate fit."""
        noted = FitCauses()
        self._fit_rows(rows, noted)
        causes = noted.lines
        if not causes:
            return
        lines = "".join(f"\n- {cause}: {remedy}." for cause, remedy, _ in causes)
        private = any(category is PrivateFitWarning for _, _, category in causes)
        weak = "private estimates the rows cannot support" if private else "a degenerate release"
        text = (
            f"{type(self).__name__}: {weak} (the release may carry next to nothing about X); "
            f"the causes, each with its remedy:{lines}"
        )
        # each cause named apart, so that an audit of many fits counts the fits of each
        named = tuple(f"{type(self).__name__}: {cause}: {remedy}." for cause, remedy, _ in causes)
        if private:
            warn_user(text, PrivateFitWarning, cause=named)
        else:
            warn_user(text, DegenerateReleaseWarning, cause=named)

    # ------------------------------------------------------------------ fits
    def _fit_in_memory(self, X, S, y, sample_weight):
        X = np.asarray(X, dtype=float)
        uses_s, uses_y = self._fit_variables(y is not None)
        S_design = self._design(S, "sensitive") if uses_s and S is not None else None
        y_design = None
        if uses_y:
            y_design = self._design(y, "y")
            if y_design.shape[0] != X.shape[0]:
                raise ValueError(f"y has {y_design.shape[0]} rows but X has {X.shape[0]}.")
        Z, extra = self._assemble(X, S_design, y_design)
        rows = ArrayFitRows(
            Z,
            sample_weight,
            extra,
            n_released=self._n_released(X.shape[1]),
            person_weights=self._person_weights(sample_weight is not None),
        )
        self._fit_and_warn(rows)

    def _fit_dask(self, X, y, sensitive, sample_weight):
        """Fit from a dask collection: the statistics of the rows are computed by dask.

        ``X`` is a dask DataFrame or 2-D Array; S (as columns of ``X`` or the
        ``sensitive`` argument), ``y`` and ``sample_weight`` may be dask or
        in-memory. The fit equals the in-memory fit of the same rows with the
        same ``random_state`` (to rounding); see :class:`DaskFitRows` for the
        passes over the data.
        """
        import dask  # an optional dependency: imported when a dask collection is fitted

        self._validate_X(head_rows(X), reset=True)
        has_columns = set_column_roles(self).columns.size > 0
        check_how_s_came(self, as_columns=has_columns, as_metadata=sensitive is not None)
        uses_s, uses_y = self._fit_variables(y is not None)
        has_s = has_columns or sensitive is not None
        s_name = S_COLUMNS if has_columns else "sensitive"
        parts = aligned_partitions(
            X,
            [sensitive, y if uses_y else None, sample_weight],
            ["sensitive", "y", "sample_weight"],
        )
        raw = [dask.delayed(self._dask_rows, pure=False)(*part) for part in parts]
        wanted = [(0, uses_s and has_s, "sensitive", s_name), (1, uses_y, "y", "y")]
        sources = [self.sensitive_columns_.size if has_columns else _n_columns(sensitive), None]
        if uses_y:
            sources[1] = _n_columns(y)
        encoders = [
            self._declared_encoder(role, name, sources[i]) if want else None
            for i, want, role, name in wanted
        ]
        if any(want and encoders[i] is None for i, want, _, _ in wanted):
            summaries = reduce_partitions(
                raw, _summarise_block, _combine_block_summaries, uses_s and has_s, uses_y, s_name
            )
            for i, want, role, name in wanted:
                if want and encoders[i] is None:
                    if summaries is None or summaries[i] is None:
                        raise ValueError("X has no rows of positive weight.")
                    encoders[i] = VariableEncoder(summaries[i], name)
                    if not encoders[i].continuous:
                        self._check_read_classes(encoders[i].symbols, role)
        self._spawn_streams()
        blocks = [dask.delayed(self._dask_design, pure=False)(part, *encoders) for part in raw]
        n_features, n_extra = self._n_fit_columns(encoders)
        rows = DaskFitRows(
            blocks,
            n_features=n_features,
            n_extra=n_extra,
            n_released=self._n_released(self.release_columns_.size),
            private=self.fit_data == "private",
            want_moments=self.fit_data == "public",
            person_weights=self._person_weights(sample_weight is not None),
        )
        self._fit_and_warn(rows)
        return self

    def _person_weights(self, has_weights):
        """What the rows' weights mean: ``weights`` and ``max_person_weight``, resolved once."""
        return resolve_weights(self.weights, self.max_person_weight, has_weights)

    def _dask_rows(self, X, S, y, sample_weight):
        """One partition: the released columns, S, y and positive weights (None if empty)."""
        if not len(X):
            return None
        X_release, S_columns = self._sensitive_split.split(self._validate_X(X, reset=False))
        n = X_release.shape[0]
        if S is None:
            S = S_columns
        for name, values in (("sensitive", S), ("y", y), ("sample_weight", sample_weight)):
            if values is not None and len(values) != n:
                raise ValueError(
                    f"A partition of {name} has {len(values)} rows where X has {n}: give it "
                    "with the partitions of X."
                )
        X_release, S, y, w = self._apply_sample_weight(
            X_release, S, y, sample_weight, check_s=False
        )
        return X_release, S, y, np.ones(n) if w is None else w

    def _dask_design(self, part, S_encoder, y_encoder):
        """One partition's fit rows ``(Z, extra, w)`` (None if it has no rows)."""
        if part is None or not part[0].shape[0]:
            return None
        X_release, S, y, w = part
        S_design = None if S_encoder is None else S_encoder(S)
        y_design = None if y_encoder is None else y_encoder(y)
        Z, extra = self._assemble(np.asarray(X_release, dtype=float), S_design, y_design)
        return Z, extra, w

    def _n_fit_columns(self, encoders):
        """Columns of ``Z`` and ``extra`` for the encoders found (from a one-row block)."""
        designs = [None if e is None else np.zeros((1, e.n_columns)) for e in encoders]
        Z, extra = self._assemble(np.zeros((1, self.release_columns_.size)), *designs)
        return Z.shape[1], 0 if extra is None else extra.shape[1]

    def _fit_mu(self, default=None):
        """GDP budget of the fit-time estimates, from ``fit_epsilon`` at ``delta``."""
        if self.fit_data == "public":
            if self.fit_epsilon is not None:
                raise ValueError(
                    f"fit_epsilon={self.fit_epsilon!r} is spent only with fit_data='private'; "
                    "with fit_data='public' nothing is estimated privately. Leave it None."
                )
            return 0.0
        if self.fit_epsilon is None:
            if default is None:
                raise ValueError(
                    "With beta and fit_data='private', give fit_epsilon: the budget of the "
                    "private mean, covariance and clipping radius (or declare the fit rows "
                    "public with fit_data='public')."
                )
            return default
        return gaussian_dp_mu(self.fit_epsilon, self.delta)

    def _set_guarantee(self, sensitivity, n_coordinates):
        """Report the guarantee of the fitted attributes plus one release.

        ``sensitivity`` is the Mahalanobis sensitivity of the noiseless release,
        computed from the map and noise actually used (noise whitened to the
        identity). The release's noise is drawn on a grid
        (:func:`~sklearn_privacy.dp._grid_noise.noisy_on_grid`, with the bound
        ``_release_bound``), whose rounding of ``n_coordinates`` coordinates adds
        ``gamma sqrt(n_coordinates)``: ``sensitivity_`` includes it.
        """
        # A released coordinate is a linear map of a row clipped to a ball around
        # the centre: at most half the sensitivity, in noise deviations.
        self._release_bound = 0.5 * float(sensitivity)
        self.sensitivity_ = grid_sensitivity(
            float(sensitivity), 1.0, self._release_bound, n_coordinates
        )
        self.delta_ = float(self.delta)
        one_release = GaussianAccountant([*self.accountant_.spends])
        one_release.spend("release", sensitivity=self.sensitivity_, sigma=1.0)
        self.epsilon_ = self._as_target(one_release.epsilon(self.delta_))
        release = GaussianAccountant()
        release.spend("release", sensitivity=self.sensitivity_, sigma=1.0)
        self.release_epsilon_ = release.epsilon(self.delta_)
        if self._target_epsilon() is None and self.epsilon_ > _VACUOUS_EPSILON:
            self._warn_vacuous_epsilon()

    def _warn_vacuous_epsilon(self):
        """Say that ``epsilon_``, set by the map and not by a budget, protects nobody."""
        knob = self.get_tradeoff_knob().name
        warn_user(
            f"{type(self).__name__}: epsilon_ is {self.epsilon_:.4g} at delta_={self.delta_:g}, "
            f"above {_VACUOUS_EPSILON:g}: as differential privacy this protects nobody (at "
            f"epsilon {_VACUOUS_EPSILON:g} the best test of whether one person's row was used "
            "has 87 % power at 1 % false positives). Here epsilon_ follows from the map the "
            f"fit chose and the clipping radius, not from a budget. To protect individuals, "
            f"lower {knob}, give a smaller public clip_radius, or release with "
            "L2CompressionDP(epsilon=...), which is calibrated to the epsilon you give; what "
            "the release hides of S is leakage_ (nats), a separate measure.",
            PrivacyLeakWarning,
            cause=f"{type(self).__name__}: epsilon_ above {_VACUOUS_EPSILON:g} protects nobody",
        )

    def _record_release(self):
        """Record one release in the ledger (``_release`` calls it)."""
        self.accountant_.spend("release", sensitivity=self.sensitivity_, sigma=1.0)

    def _start_lazy_release(self):
        """One ledger entry for a lazy (dask) release, however often it is computed.

        Its partitions release through a copy whose own, empty ledger absorbs
        the entry each ``_release`` makes: computed in this process (synchronous
        or threaded scheduler) they would otherwise land in this ledger.
        """
        self._record_release()
        releaser = super()._start_lazy_release()
        releaser.accountant_ = GaussianAccountant()
        return releaser

    def privacy_spent(self):
        """``(epsilon, delta)`` of everything published so far.

        The fitted attributes (when ``fit_data="private"``) and every
        ``transform`` made since ``fit`` by this object, composed exactly
        (Gaussian DP) as if every release were of the same rows. Equals
        ``(epsilon_, delta_)`` after the first ``transform``. A copy (pickle,
        deepcopy, joblib, a worker) records its own releases: combine the
        ledgers of all copies with
        :meth:`~sklearn_privacy.dp.GaussianAccountant.combine`. A lazy (dask)
        release counts once however often it is computed; a refit starts a
        new ledger.

        Returns
        -------
        epsilon : float
        delta : float
        """
        check_is_fitted(self, "accountant_")
        return self._as_target(self.accountant_.epsilon(self.delta_)), self.delta_

    def _target_epsilon(self):
        """The epsilon the mechanism is calibrated to (a parameter), or None (the default)."""
        return None

    def _as_target(self, epsilon):
        """``epsilon``, or the ``epsilon`` the user asked for when it meets it to rounding.

        Calibrating to a target and computing the guarantee back round-trips
        through two solvers: ``epsilon=2`` came back as 2.0000000000000004. A
        value at most 1e-12 above the target (rounding) or below it (the target
        is then a true, slightly loose bound) reads as the target.
        """
        target = self._target_epsilon()
        if target is None or not np.isfinite(epsilon):
            return epsilon
        meets = float(target) * (1.0 - 1e-9) <= epsilon <= float(target) * (1.0 + 1e-12)
        return float(target) if meets else epsilon


class FitCauses:
    """The causes of a weak or degenerate fit, gathered while it runs (one line each).

    ``_fit_and_warn`` makes one per fit and hands it to ``_fit_rows``, which
    hands it to the steps that find a cause: a value passed along, not state of
    the mechanism. ``lines`` holds ``(cause, remedy, category)`` in order, once each.
    """

    def __init__(self):
        self.lines = []

    def note(self, cause, remedy, category=PrivateFitWarning):
        """One line of the fit's warning: a cause in words (no numbers of this fit) and a remedy.

        The text names the cause without this fit's numbers (its rows, its noise),
        so that the default warning filter shows it once per line of the caller,
        not once per fold of a cross-validation.
        """
        line = (cause, remedy, category)
        if line not in self.lines:
            self.lines.append(line)


def _without_numbers(problem):
    """A problem of the private estimates in words, without this fit's numbers.

    ``private_mean_covariance_from_statistics`` reports its problems with their
    figures ("the private covariance is mostly noise (noise level 0.012, ...)");
    a warning's text must be the same for every fit with the same cause.
    """
    problem = re.sub(r"\s*\([^()]*\d[^()]*\)", "", problem)  # a parenthesis of figures
    problem = re.sub(r"by about \S+, more than (the \w+) \S+", r"by more than \1", problem)
    return re.sub(r"\s+(?:by )?(?:about )?[-+]?\.?\d[\w.+-]*", "", problem)


def _summarise_block(part, uses_s, uses_y, s_name):
    if part is None or not part[0].shape[0]:
        return None
    _, S, y, _ = part
    return (
        summarise_variable(S, s_name) if uses_s else None,
        summarise_variable(y, "y") if uses_y else None,
    )


def _combine_block_summaries(a, b):
    if a is None or b is None:
        return a if b is None else b
    return tuple(combine_summaries(x, y) for x, y in zip(a, b))


class _DeclaredEncoder:
    """The declared design matrix of S or y for a dask fit (see ``_GaussianMechanism._design``).

    Its number of columns follows from the declaration and the number of
    columns of the variable (its schema), with no look at the rows.
    """

    def __init__(self, mechanism, role, name, n_source_columns):
        self.mechanism = mechanism
        self.role = role
        self.name = name
        self.n_columns = self(np.zeros((1, n_source_columns))).shape[1]

    def __call__(self, values):
        return self.mechanism._design(values, self.role, self.name)


def _n_columns(values):
    """Columns of a per-row variable (dask or in memory), read from its shape alone."""
    if values is None:
        return 0
    if hasattr(values, "columns"):
        return len(values.columns)
    shape = getattr(values, "shape", None)
    if shape is None:
        shape = np.shape(values)
    return 1 if len(shape) < 2 else int(shape[1])
