"""GaussianIBTransformer: Gaussian information bottleneck and Gaussian privacy funnel."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import sensitive_positions
from sklearn_privacy.dp import gaussian_dp_mu, gib_exponential_epsilon
from sklearn_privacy.dp.kernels import clipped_product, grid_integers, grid_step
from sklearn_privacy.exceptions import DegenerateReleaseWarning
from sklearn_privacy.gaussian._audit_protocol import BottleneckAuditProtocol
from sklearn_privacy.gaussian._base import (
    FIT_DATA_CONSTRAINTS,
    PRIVATE_REMEDIES,
    _GaussianMechanism,
)
from sklearn_privacy.gaussian._moments import leakage_from_covariance
from sklearn_privacy.gaussian._solvers import (
    _BetaAtOrBelowCritical,
    gaussian_information_bottleneck,
    gaussian_privacy_funnel,
)
from sklearn_privacy.information import gaussian_channel_rate
from sklearn_privacy.utils import TradeoffKnob
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import (
    Interval,
    StrOptions,
    _check_feature_names_in,
)

# Budget of the private fit-time estimates when fit_epsilon is None.
_DEFAULT_FIT_EPSILON = 1.0
# A direction of X is estimated when its private variance is above this many noise floors
# (the margin of the private fit's "mostly noise" check): the X block of the floored joint
# covariance has eigenvalues just above the floor (0.0072060 against 0.0072028 on 20000 rows
# with two columns of variance 1e-6) where the joint's were set to it.
_RESOLVED = 1.25


@Substitution()
class GaussianIBTransformer(BottleneckAuditProtocol, _GaussianMechanism):
    r"""Linear-Gaussian release :math:`T = A (x - \bar{x}) + N(0, I)` from a bottleneck or a funnel.

    ``objective="bottleneck"`` (default): the Gaussian information bottleneck
    (Chechik et al. 2005; dp-compression-kohler2018 ch. 4) minimises
    :math:`I(X;T) - \beta\, I(T;Y)` where the relevance variable :math:`Y` is ``y``
    (one-hot encoded when categorical) or the columns named by ``relevance``.
    Component :math:`i` of :math:`\Sigma_{x|y} \Sigma_x^{-1}` (eigenvalue
    :math:`\lambda_i`) is released when ``beta`` exceeds its critical value
    :math:`1 / (1 - \lambda_i)`.

    ``objective="funnel"``: the Gaussian privacy funnel
    (privacy-funnel-makhdoumi2014 sec. V, Thm. 2) with S sensitive: minimise
    :math:`I(S;T)` subject to :math:`I(X;T) \ge \text{disclosure}`. The Lagrangian
    form :math:`I(S;T) - \beta\, I(X;T)` of the paper is unbounded below for
    Gaussians, so the knob of the funnel is ``disclosure`` (nats); see
    :func:`~sklearn_privacy.gaussian.gaussian_privacy_funnel`.

    The centred rows are clipped to a ball of radius :math:`R` and the release is
    (epsilon, delta)-DP under replace-one neighbours with sensitivity
    :math:`2 R \lVert A \rVert_2` (unit noise; thesis sec. 5.4 with the factor 2).
    The guarantee covers everything published: with ``fit_data="private"``
    (default) the mean and the joint covariance of (X, relevance) that :math:`A` is
    computed from are private estimates, composed with the releases exactly
    (Gaussian differential privacy); with ``fit_data="public"`` the fit rows
    are declared public and only the releases are accounted for.

    ``fit`` also takes a dask DataFrame or Array (S, ``y`` and
    ``sample_weight`` dask or in memory): dask computes the moments, or the
    statistics of the private estimates, partition by partition, and the
    fitted mechanism is the in-memory one of the same rows, to rounding.

    Parameters
    ----------
    beta : float, default=10.0
        Bottleneck trade-off, > 1. At or below the smallest critical value
        (``critical_betas_``) no direction of X is worth its cost: the release
        is the constant centre (a column of zeros), with a warning.
    objective : {"bottleneck", "funnel"}, default="bottleneck"
        - "bottleneck": keep information on the relevance variable.
        - "funnel": hide S (needs S) while disclosing ``disclosure`` nats of X.
    disclosure : float or None, default=None
        Required :math:`I(X;T)` in nats for the funnel.
    relevance : column names or indices of X, or None, default=None
        Columns used as the relevance variable instead of ``y``; they are not
        released.
    classes : "auto", "continuous" or array-like, default="auto"
        How the variable the mechanism is designed against (y or the relevance columns for
        the bottleneck, S for the funnel) enters the Gaussian model. ``"continuous"``: as
        numbers. An array of classes (one column): one-hot over them, the first dropped, other
        values counting as the first. ``"auto"``: with ``fit_data="public"`` read off the rows
        (non-integer floats continuous, else one-hot over the values seen; over 20 numeric
        classes warn, over 200 fail); with ``fit_data="private"`` ``"continuous"`` (the same
        for a 0/1 label; declare the classes of a label with more values). A private fit reads
        nothing of the encoding from the rows: NaN counts as 0, every value is clipped.
    clip_radius : float or None, default=None
        Public clipping radius :math:`R` of the centred rows. ``None``: the private
        radius of the fit-time estimates with ``fit_data="private"``, the
        largest centred norm of the public fit rows with ``fit_data="public"``.
    delta : float, default=1e-5
        The delta at which ``epsilon_`` is reported.
    fit_data : {"private", "public"}, default="private"
        - "private": the fit rows (and y, S) are private; the mean and joint
          covariance are estimated with Gaussian mechanisms and accounted for.
        - "public": the fit rows are public; the fitted attributes are exact
          and cost nothing.
    fit_epsilon : float or None, default=None
        Budget of the private estimates (epsilon at ``delta`` on its own),
        with ``fit_data="private"``; ``None`` spends 1.0. Must be None with
        ``fit_data="public"``.
    {sensitive}
        The funnel needs S; with the bottleneck only ``leakage_`` of a public
        fit reads it. A public fit reads S as ``classes="auto"`` says (for the
        bottleneck's S always): integers with more than 200 distinct values
        in a column fail as probably continuous (bin S, or standardise it to
        have it read as continuous).
    {weights}
    {max_person_weight}
    {random_state_dp}

    Attributes
    ----------
    components_ : ndarray of shape (`n_components_`, n_features)
        The nonzero rows of :math:`A` (acting on the released columns). A
        bottleneck whose ``beta`` is at or below the smallest critical value
        (of the private estimates, for a private fit) releases nothing about
        X: one row of zeros, so that the release is one column of zeros (its
        centre), with a warning. A private fit's components lie in the
        directions of X whose private variance cleared the noise of the
        estimate.
    eigenvalues_ : ndarray of shape (n_features,)
        Ascending eigenvalues of :math:`\Sigma_{x|y} \Sigma_x^{-1}`
        (:math:`\Sigma_{x|s}` for the funnel).
    critical_betas_ : ndarray of shape (n_features,)
        ``1 / (1 - eigenvalues_)``, ascending. Directions of a private fit that
        the estimate did not resolve count as uninformative (eigenvalue 1,
        critical value inf).
    fallback_ : {None, "centre", "zeros"}
        What a private fit released instead of components it could not
        estimate, one column of zeros in both cases: ``"centre"`` when its
        estimates supported no component at this ``beta`` (no direction of X
        cleared the noise of the private covariance, or every one is at or
        below its critical value), ``"zeros"`` when no scale of the rows could
        be read at all (nothing was estimated: ``radius_`` and ``distortion_``
        are NaN); None otherwise.
    mean_ : ndarray of shape (n_features,)
        Mean :math:`\bar{x}` of the released columns, the centre of the
        clipping ball (a private estimate with ``fit_data="private"``).
    rate_ : float
        :math:`I(X;T)` in nats (Gaussian model).
    disclosure_ : float
        Same as ``rate_``.
    distortion_ : float
        :math:`\mathbb{E} \lVert X - \mathbb{E}[X \mid T] \rVert^2`, the mean squared
        error of the best reconstruction of the released columns from the
        release (Gaussian model).
    distortion_measure_ : str
        ``"mmse"``.
    relevance_information_ : float
        :math:`I(T;Y)` in nats (bottleneck).
    leakage_ : float
        Funnel: :math:`I(S;T)` in nats under the Gaussian model of the fit.
        Bottleneck with ``fit_data="public"``: :math:`I(S;T)` of the fit rows when
        S is known, else ``rate_``. Bottleneck with ``fit_data="private"``:
        ``rate_``, an upper bound on the leakage of any S computed from the
        private estimates (so covered by the guarantee); the exact leakage on
        the private rows would be a function of them: measure it with the
        scorers of :mod:`sklearn_privacy.metrics` on public or held-out rows.
    epsilon_, delta_ : float
        Guarantee of the fitted attributes plus one ``transform``. It follows
        from the fitted map and ``radius_``, not from a budget: above 20 (the
        funnel at its defaults reports hundreds or thousands) the fit warns
        ``PrivacyLeakWarning`` that it protects nobody (at 20 the best test of
        whether one person's row was used has 87 % power at 1 % false
        positives), with the remedies.
    release_epsilon_ : float
        Epsilon of one release alone, at ``delta_``.
    accountant_ : GaussianAccountant
        Every Gaussian mechanism run on private data: the private estimates
        of ``fit`` and one entry per ``transform`` made since.
    radius_ : float
        Clipping radius :math:`R` of the release.
    sensitivity_ : float
        :math:`2 R \lVert A \rVert_2`, the sensitivity of one release (unit noise).
    epsilon_exponential_ : float
        Exponential-mechanism bound of thesis Cor. 2 for one release
        (bottleneck only; ``inf`` for the funnel).
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    L2CompressionDP : compression under squared error.

    Notes
    -----
    ``epsilon_`` counts the fitted attributes and one release;
    :meth:`privacy_spent` composes every ``transform`` since ``fit``. In a
    Pipeline every ``score``, ``predict`` or scorer call transforms its rows
    and is one more release, so ``privacy_spent()`` grows with each (as
    :class:`L2CompressionDP`'s Notes show in numbers).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.gaussian import GaussianIBTransformer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 3))
    >>> y = X[:, 0] + 0.5 * rng.normal(size=1000)
    >>> gib = GaussianIBTransformer(beta=1.3, fit_data="public",
    ...                             clip_radius=1.0).fit(X, y)
    >>> gib.transform(X).shape, gib.n_components_, round(gib.epsilon_, 2)
    ((1000, 1), 1, 2.73)
    """

    _parameter_constraints: dict = {
        **BaseMechanism._parameter_constraints,
        "beta": [Interval(Real, 1, None, closed="neither")],
        "objective": [StrOptions({"bottleneck", "funnel"})],
        "disclosure": [None, Interval(Real, 0, None, closed="neither")],
        "relevance": [None, Integral, str, "array-like"],
        "classes": [StrOptions({"auto", "continuous"}), "array-like"],
        "clip_radius": [None, Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        **FIT_DATA_CONSTRAINTS,
    }
    _requires_sensitive = False

    def __init__(
        self,
        beta=10.0,
        *,
        objective="bottleneck",
        disclosure=None,
        relevance=None,
        classes="auto",
        clip_radius=None,
        delta=1e-5,
        fit_data="private",
        fit_epsilon=None,
        weights="person",
        max_person_weight=1.0,
        sensitive=None,
        random_state=None,
    ):
        self.beta = beta
        self.objective = objective
        self.disclosure = disclosure
        self.relevance = relevance
        self.classes = classes
        self.clip_radius = clip_radius
        self.delta = delta
        self.fit_data = fit_data
        self.fit_epsilon = fit_epsilon
        self.weights = weights
        self.max_person_weight = max_person_weight
        self.sensitive = sensitive
        self.random_state = random_state

    def get_tradeoff_knob(self):
        """``beta`` (bottleneck) or ``disclosure`` (funnel): larger releases more.

        Returns
        -------
        TradeoffKnob
        """
        if self.objective == "funnel":
            return TradeoffKnob("disclosure", "larger", low=0.05, high=2.0, log=True)
        return TradeoffKnob("beta", "larger", low=1.5, high=100.0, log=True)

    def _needs_sensitive(self):
        return self.objective == "funnel"

    def _designed_against(self):
        """S for the funnel, the relevance variable ``y`` for the bottleneck."""
        return "sensitive" if self.objective == "funnel" else "y"

    def _declared_classes(self):
        return self.classes

    def _relevance_positions(self):
        """Positions, inside the released columns, of the ``relevance`` columns.

        ``relevance`` names columns of ``X`` as ``sensitive`` does, resolved by
        the same resolver (:func:`~sklearn_privacy._sensitive.sensitive_positions`).
        """
        if self.relevance is None:
            return np.array([], dtype=int)
        names = getattr(self, "feature_names_in_", None)
        columns = sensitive_positions(
            self.relevance, names, self.n_features_in_, strict=True, param="relevance"
        )
        for j in columns:
            if j in self.sensitive_columns_:
                label = j if names is None else str(names[j])
                raise ValueError(f"relevance column {label!r} is also a sensitive column.")
        return np.flatnonzero(np.isin(self.release_columns_, columns))

    def _fit_variables(self, has_y):
        """Check the parameters; say whether the fit reads S and y."""
        self.relevance_positions_ = self._relevance_positions()
        keep = np.setdiff1d(np.arange(self.release_columns_.size), self.relevance_positions_)
        if keep.size == 0:
            raise ValueError("relevance names every released column: nothing is left to release.")
        self.feature_positions_ = keep
        if self.objective == "funnel":
            if self.disclosure is None:
                raise ValueError('objective="funnel" needs disclosure (the I(X;T) to keep, nats).')
            return True, False
        # S is read for leakage_ alone, and only when the fit rows are public
        reads_s = self.fit_data == "public"
        if self.relevance_positions_.size:
            return reads_s, False
        if not has_y:
            raise ValueError(
                "GaussianIBTransformer needs a relevance variable: pass y to fit, or name "
                "columns of X with relevance=..."
            )
        return reads_s, True

    def _n_released(self, n_release_columns):
        return self.feature_positions_.size

    def _assemble(self, X, S_design, y_design):
        """Fit rows ``[X_f, Y]`` (Y: the relevance variable, or S for the funnel)."""
        Xf = X[:, self.feature_positions_]
        if self.objective == "funnel":
            return np.hstack([Xf, S_design]), None
        if self.relevance_positions_.size:
            return np.hstack([Xf, X[:, self.relevance_positions_]]), S_design
        return np.hstack([Xf, y_design]), S_design

    def _fit_rows(self, rows, causes):
        """Fit from the statistics of the rows (in memory or computed by dask)."""
        d = self.feature_positions_.size
        peaks = rows.peaks()
        self._check_peaks(peaks[:d])
        self._check_peaks(
            peaks[d:], "the sensitive variable" if self.objective == "funnel" else "y"
        )
        moments = self._fit_moments(
            rows,
            self._fit_mu(gaussian_dp_mu(_DEFAULT_FIT_EPSILON, self.delta)),
            None,
            causes,
            public_radius=False,
        )
        mean, joint, radius = moments.mean, moments.covariance, moments.radius
        self.fallback_ = None
        self.mean_ = mean[:d]
        if self.clip_radius is not None:
            radius = float(self.clip_radius)
        elif self.fit_data == "public":
            radius = max(rows.max_norm(self.mean_, d), np.finfo(float).tiny)
        self.radius_ = radius
        cov_x, cov_xy, cov_y = joint[:d, :d], joint[:d, d:], joint[d:, d:]
        if moments.failed:
            # No scale of the rows could be read: nothing was estimated (the fit's warning
            # says so); the release is the constant 0, as L2CompressionDP's.
            self.fallback_ = "zeros"
            sol = {
                "components": np.zeros((1, d)),
                "eigenvalues": np.ones(d),
                "critical_betas": np.full(d, np.inf),
            }
            self._set_operating_point(rows, sol, cov_x, cov_xy, cov_y)
            self.radius_ = self.distortion_ = float("nan")  # placeholders, not estimates
            return
        try:
            if self.objective == "funnel":
                sol = gaussian_privacy_funnel(cov_x, cov_xy, cov_y, self.disclosure)
            else:
                sol = self._bottleneck(cov_x, cov_xy, cov_y, moments.noise_floor)
        except _BetaAtOrBelowCritical as exc:
            sol = self._release_nothing(exc, d, causes)
        except ValueError as exc:
            if "singular" in str(exc):
                raise ValueError(
                    f"{exc} (covariance of the released columns or of the "
                    f"{'sensitive' if self.objective == 'funnel' else 'relevance'} variable)"
                ) from exc
            raise
        self._set_operating_point(rows, sol, cov_x, cov_xy, cov_y)

    def _set_operating_point(self, rows, sol, cov_x, cov_xy, cov_y):
        """The map, rates, distortion, leakage and guarantee of the release ``sol`` designs."""
        A = sol["components"]
        self.components_ = A
        self.n_components_ = A.shape[0]
        self.eigenvalues_ = sol["eigenvalues"]
        self.critical_betas_ = sol["critical_betas"]
        k = self.n_components_
        cov_t = A @ cov_x @ A.T + np.eye(k)
        cond = cov_x - cov_xy @ np.linalg.solve(cov_y, cov_xy.T)
        # T = A X + N(0, I): I(X;T) = 0.5 log det(I + A Sx A^T), and
        # I(T;Y) = I(X;T) - I(X;T|Y) with Sx|y in place of Sx (channel rates of the
        # eigenvalues: stable even when A is very large)
        self.rate_ = gaussian_channel_rate(np.linalg.eigvalsh(A @ cov_x @ A.T))
        self.disclosure_ = self.rate_
        self.relevance_information_ = max(
            self.rate_ - gaussian_channel_rate(np.linalg.eigvalsh(A @ cond @ A.T).clip(0)), 0.0
        )
        # E||X - E[X|T]||^2 = tr(Sigma_x - Sigma_xt Sigma_t^-1 Sigma_tx)
        gain = cov_x @ A.T
        self.distortion_ = float(np.trace(cov_x) - np.trace(gain @ np.linalg.solve(cov_t, gain.T)))
        self.distortion_measure_ = "mmse"
        if self.objective == "funnel":
            self.leakage_ = self.relevance_information_
        elif rows.n_extra:
            self.leakage_ = leakage_from_covariance(
                rows.leakage_covariance(),
                rows.n_extra,
                A,
                np.ones(A.shape[0]),
                np.ones(A.shape[0]),
            )
        else:
            self.leakage_ = self.rate_

        self._set_guarantee(
            2.0 * self.radius_ * float(np.linalg.norm(A, 2)) if A.size else 0.0, A.shape[0]
        )
        # a release independent of X (A = 0) gives nothing away
        self.epsilon_exponential_ = np.inf if np.any(A) else 0.0
        if self.objective == "bottleneck" and np.any(A):
            self.epsilon_exponential_ = self._exponential_bound(
                A, cov_x, cov_xy, cov_y, cov_t, self.radius_
            )

    def _bottleneck(self, cov_x, cov_xy, cov_y, noise_floor):
        r"""The bottleneck on the directions of X that were estimated.

        Public: every direction. Private: the directions whose eigenvalue of the
        private ``cov_x`` clears the noise floor of the private covariance by
        ``_RESOLVED`` (the others are the floor's, not estimated: a component along
        them would release the noise of the estimate as signal); they enter with eigenvalue 1
        of :math:`\Sigma_{x|y} \Sigma_x^{-1}` (no information, critical value inf).
        None left: the bottleneck's refusal, released as its centre. ``noise_floor``:
        the private covariance's (:class:`~sklearn_privacy.gaussian._private_fit.FitMoments`).
        """
        if self.fit_data == "public":
            return gaussian_information_bottleneck(cov_x, cov_xy, cov_y, self.beta)
        w, v = np.linalg.eigh(cov_x)
        basis = v[:, w > _RESOLVED * noise_floor]
        n_left = cov_x.shape[0] - basis.shape[1]
        padding = np.ones(n_left), np.full(n_left, np.inf)
        if not basis.shape[1]:
            raise _BetaAtOrBelowCritical("", eigenvalues=padding[0], critical_betas=padding[1])
        try:
            sol = gaussian_information_bottleneck(
                basis.T @ cov_x @ basis, basis.T @ cov_xy, cov_y, self.beta
            )
        except _BetaAtOrBelowCritical as exc:
            eigenvalues = np.r_[exc.eigenvalues, padding[0]]
            critical = np.r_[exc.critical_betas, padding[1]]
            raise _BetaAtOrBelowCritical(
                str(exc), eigenvalues=eigenvalues, critical_betas=critical
            ) from exc
        return {
            "components": sol["components"] @ basis.T,
            "eigenvalues": np.r_[sol["eigenvalues"], padding[0]],
            "critical_betas": np.r_[sol["critical_betas"], padding[1]],
        }

    def _release_nothing(self, exc, d, causes):
        """The bottleneck at or below its smallest critical value: its centre, a column of 0.

        No direction of X is worth its cost at this ``beta`` (or, for a private fit,
        none was estimated): the optimum of the bottleneck's Lagrangian is a release
        independent of X (``A = 0``). It is released as its mean, one column of
        zeros (no noise is released as if it were signal), so that a Pipeline keeps
        working (a classifier then predicts the majority), with a warning naming the
        smallest critical value; a private fit names the noise of its estimates as
        the likely cause (``fallback_="centre"``).
        """
        # The texts name the cause, not this fit's numbers (critical_betas_), so that
        # the default filter shows each once per line, not once per fold.
        noise = "so the release is one column of zeros, its centre, independent of X"
        if self.fit_data == "private":
            self.fallback_ = "centre"
            cause, remedy = self._private_critical_cause(exc.critical)
            causes.note(f"{cause}, {noise} (fallback_='centre')", remedy)
        else:
            causes.note(
                "beta is at or below the smallest critical value of the fit rows "
                "(critical_betas_[0]): no direction of X informs the relevance variable enough "
                f"to be worth its cost, {noise}",
                "raise beta above it",
                DegenerateReleaseWarning,
            )
        return {
            "components": np.zeros((1, d)),
            "eigenvalues": exc.eigenvalues,
            "critical_betas": exc.critical_betas,
        }

    def _private_critical_cause(self, critical):
        """A private fit below its critical value: its cause (the estimates' noise), remedy."""
        cause = (
            "shows no direction in which X informs the relevance variable at all"
            if np.isinf(critical)
            else "makes every direction too weak for this beta (at or below the smallest "
            "critical value, critical_betas_[0])"
        )
        return (
            "the private estimate of the joint covariance of X and the relevance variable "
            f"{cause}: with this few rows for the budget of the private estimates (fit_epsilon, "
            "delta), the noise of the private covariance hides the relation",
            PRIVATE_REMEDIES
            + ("" if np.isinf(critical) else "; or choose beta above critical_betas_[0]"),
        )

    def _exponential_bound(self, A, cov_x, cov_xy, cov_y, cov_t, R):
        # thesis Cor. 2: P = Sigma_{Y|T}^{-1/2} Sigma_YX Sigma_X^{-1}, Q from eq. A.113
        cov_ty = A @ cov_xy
        cov_y_t = cov_y - cov_ty.T @ np.linalg.solve(cov_t, cov_ty)
        w, v = np.linalg.eigh(0.5 * (cov_y_t + cov_y_t.T))
        inv_sqrt = (v / np.sqrt(np.maximum(w, np.finfo(float).tiny))) @ v.T
        P = inv_sqrt @ np.linalg.solve(cov_x, cov_xy).T
        Q = inv_sqrt @ cov_ty.T @ np.linalg.solve(cov_t, cov_ty) @ inv_sqrt
        return gib_exponential_epsilon(
            self.beta, float(np.linalg.norm(P, 2)), 0.5 * (Q + Q.T), R, self.delta
        )

    def _release(self, X, S, rng):
        X = np.asarray(X, dtype=float)[:, self.feature_positions_]
        if not np.any(self.components_):  # A = 0: the release is its mean, no noise
            self._record_release()
            return np.zeros((X.shape[0], self.n_components_))
        # unit noise on a grid (dp._grid_noise): T = N gamma, N = rint(A x / gamma) + Z
        step = grid_step(self._release_bound)
        T = clipped_product(X, self.radius_, self.mean_, self.components_.T / step)
        T = grid_integers(T, rng, self._release_bound)
        T *= step
        self._record_release()
        return T

    def get_feature_names_out(self, input_features=None):
        """Names ``component_0, component_1, ...`` of the released components.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Ignored beyond validation.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "n_components_")
        _check_feature_names_in(self, input_features)  # names as many as the columns seen
        return np.asarray([f"component_{i}" for i in range(self.n_components_)], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
