"""L2CompressionDP: optimal linear compression under squared error, with a DP guarantee."""

from numbers import Integral, Real

import numpy as np

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy.dp import gaussian_dp_mu, l2_exponential_epsilon
from sklearn_privacy.dp.kernels import (
    clipped_product,
    grid_integers,
    grid_step,
    mu_after_rounding,
)
from sklearn_privacy.exceptions import DegenerateReleaseWarning
from sklearn_privacy.gaussian._audit_protocol import CompressionAuditProtocol
from sklearn_privacy.gaussian._base import (
    FIT_DATA_CONSTRAINTS,
    PRIVATE_REMEDIES,
    _GaussianMechanism,
)
from sklearn_privacy.gaussian._moments import leakage_from_covariance
from sklearn_privacy.gaussian._solvers import _descending_eigh, _l2_solution
from sklearn_privacy.utils import TradeoffKnob
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import Interval

# Share of the GDP budget (of mu^2) that a private fit spends when fit_epsilon is None.
_DEFAULT_FIT_SHARE = 0.25
# Below this signal-to-noise ratio of the release (the variance of its signal, sum of
# a_i^2 s_i, over that of its noise, sum of sigma_i^2) it is all but pure noise: the fit warns,
# at any epsilon. On breast cancer (569 rows, standardised) at the defaults the ratio is 0.05-0.07
# at epsilon 8 (release farther from X than 0.97 of X's variance) and 0.17-0.19 at epsilon 16;
# before, only I(X;T) below 1e-6 nats (a ratio of about 2e-6) warned, and epsilon 8 said nothing.
_NOISE_ONLY_SNR = 0.1
# Below this share of the (model) variance explained, E||x - t||^2 >= 99 % of releasing the
# mean, the release is all but a constant: the fit warns. On 559 rows of the Wisconsin data at
# the defaults the fit kept one component scaled by 0.006 (I(X;T) above the rate threshold):
# 0.04-0.1 % explained, and the release was farther from X than the true mean.
_CONSTANT_SHARE = 0.01
# distortion_ reads the trace of the private second moment: it is an estimate to 20 % when
# the trace is at least this many noise floors (two deviations of its noise each).
_TRACE_RESOLVED = 5.0
# ... and it reads the clipped rows, which leaves out r^2 - R^2 of each row beyond the radius
# R. How far beyond they lie no private estimate tells (the histogram's bins above R hold few
# rows, hidden in its noise), so the fit says it is not an estimate when the share of the
# people beyond R (private) times R^2 exceeds this share of it: rows at sqrt(2) R would then
# make it this much low. On breast cancer (30 scores, standardised) the 95 % radius left
# 10-12 % of the rows beyond it and distortion_ 0.66-0.80 of the realised, unflagged, in 5 and
# 7 of 150 fits under the share rule this replaced (more than 20 % beyond; two runs of the
# distortion part of benchmarks/bench_private_release.py); on 559 rows of the
# Wisconsin scores it read 13 - 37 against a realised 77 - 86.
_BEYOND_RESOLVED = 0.2


@Substitution()
class L2CompressionDP(CompressionAuditProtocol, _GaussianMechanism):
    r"""Optimal linear-Gaussian compression under squared error with a DP guarantee.

    Releases :math:`t = c + V_k (\operatorname{diag}(a) V_k^T \operatorname{clip}(x - c) + \xi)`
    with :math:`\xi \sim N(0, \operatorname{diag}(\lambda))`: the rate-distortion optimum
    for Gaussian data (dp-compression-kohler2018, Thm. 3.2.1; reverse
    water-filling with level :math:`1 / \beta`), components with
    :math:`\beta s_i \le 1` pruned (sec. 3.3). Rows are clipped to the ball of
    radius :math:`R` around the centre :math:`c`, and the release is
    (epsilon, delta)-DP under replace-one neighbours with the exact Mahalanobis
    sensitivity :math:`2 R \max_i a_i / \sqrt{\lambda_i} = 2 R \sqrt{\beta - 1 / s_{\max}}`
    (analytic Gaussian mechanism, Balle and Wang 2018).

    The guarantee covers everything published: the release rows and the
    fitted centre, components, scales and radius. With ``fit_data="private"``
    (default) those come from private estimates (a private norm quantile for
    the radius, a private mean and covariance), composed with the releases
    exactly as Gaussian differential privacy; with ``fit_data="public"`` the
    fit rows are declared public and only the releases are accounted for.

    The trade-off knob is ``epsilon`` (the largest, least distorting beta that
    meets it is found in closed form) or ``beta``.

    Parameters
    ----------
    epsilon : float or None, default=1.0
        Target epsilon of the fitted attributes plus one release, at ``delta``.
        Give ``None`` when ``beta`` is given.
    beta : float or None, default=None
        Lagrange multiplier of the rate-distortion problem; ``epsilon`` must
        then be ``None`` and ``epsilon_`` reports the guarantee reached (above
        20 the fit warns ``PrivacyLeakWarning`` that it protects nobody).
    delta : float, default=1e-5
        Delta in (0, 1) of the whole guarantee.
    clip_radius : float or None, default=None
        Public radius :math:`R` of the ball around the centre that rows are clipped
        to. ``None``: estimated privately (a 95 % quantile of the centred row
        norms) with ``fit_data="private"``, or the largest centred norm of the
        public fit rows with ``fit_data="public"``.
    n_components : int or None, default=None
        Keep at most this many principal components (extra pruning, sec. 3.3).
    fit_data : {"private", "public"}, default="private"
        - "private": the fit rows are private; centre, covariance and radius
          are estimated with Gaussian mechanisms and accounted for.
        - "public": the fit rows are public (fit on public rows, transform
          private ones); the fitted attributes are exact and cost nothing.
    fit_epsilon : float or None, default=None
        Budget of the private estimates (epsilon at ``delta`` on its own),
        with ``fit_data="private"``. ``None``: a quarter of the total budget
        (of :math:`\mu^2` in Gaussian DP terms) when ``epsilon`` is given; required
        with ``beta``.
    {sensitive}
        Optional: only ``leakage_`` of a public fit reads S, continuous when
        it holds floats that are not all integers, else one-hot over its
        values; integers with more than 200 distinct values in a column fail
        as probably continuous (bin S, or standardise it to have it read as
        continuous).
    {weights}
    {max_person_weight}
    {random_state_dp}

    Attributes
    ----------
    beta_ : float
        The multiplier used.
    epsilon_, delta_ : float
        Guarantee of the fitted attributes plus one ``transform``, computed
        from the clipping radius, map and noise actually used.
    release_epsilon_ : float
        Epsilon of one release alone, at ``delta_``.
    accountant_ : GaussianAccountant
        Every Gaussian mechanism run on private data: the private estimates
        of ``fit`` and one entry per ``transform`` made since.
    epsilon_exponential_ : float
        The looser exponential-mechanism bound of thesis Cor. 1 for one
        release, for comparison.
    components_ : ndarray of shape (`n_components_`, n_features)
        Kept eigenvectors :math:`V_k^T`.
    scale_ : ndarray of shape (`n_components_`,)
        Shrinkage :math:`a_i`.
    noise_variance_ : ndarray of shape (`n_components_`,)
        Noise variances :math:`\lambda_i`.
    noise_covariance_ : ndarray of shape (n_features, n_features)
        :math:`V_k \operatorname{diag}(\lambda) V_k^T`.
    explained_variance_ : ndarray of shape (`n_components_`,)
        Kept eigenvalues :math:`s_i` (of the private covariance, above its noise).
    mean_ : ndarray of shape (n_features,)
        Centre :math:`c`.
    covariance_ : ndarray of shape (n_features, n_features)
        Covariance the mechanism was designed for.
    radius_ : float
        Clipping radius used (NaN when a private fit could read no scale of
        the rows: the release is then the constant 0, with a warning).
    sensitivity_ : float
        Mahalanobis sensitivity of one release, :math:`2 R \max_i a_i / \sqrt{\lambda_i}`,
        plus the rounding of its ``n_components_`` noisy coordinates to the noise grid.
    fallback_ : {None, "centre", "zeros"}
        What a private fit released instead of components it could not estimate:
        ``"centre"`` when the private covariance resolved no direction above its
        noise (the release is ``mean_``), ``"zeros"`` when no scale of the rows
        could be read (the release is 0); None otherwise. Directions whose
        private eigenvalue did not clear the noise are never released.
    rate_ : float
        :math:`I(X;T)` in nats under the Gaussian model.
    disclosure_ : float
        Same as ``rate_``.
    distortion_ : float
        Expected :math:`\mathbb{E} \lVert X - T \rVert^2` of the release made: ``1 / beta_``
        per kept component plus the variance left out. With ``fit_data="private"`` the
        variance left out is read from the trace of the private second moment around
        ``mean_`` (unbiased, not from eigenvalues set to the noise floor), and the fit's
        warning says it is not an estimate when that trace is too noisy for 20 %, or
        when the people beyond the radius could make it 20 % low (it reads clipped
        rows: flagged when their share times ``radius_**2`` exceeds 20 % of it; on 559
        rows of the Wisconsin scores at the defaults it read 13 against a realised 86).
        The share is read off the last noisy histogram of the norms (no further
        budget); with a public ``clip_radius`` it is a noisy count of its own (ledger
        entry "people beyond the radius", within the fit's budget), so a radius that
        clips most rows is flagged too. On breast cancer (300-569 rows, epsilon 1-10)
        it was within 20 % of the realised distortion, or so flagged, in 150 of 150 fits
        (79 within, 133 flagged; fresh noise in each run;
        ``benchmarks/bench_private_release.py``). NaN when nothing was estimated
        (``fallback_="zeros"``: the release is 0, and its distortion the rows' mean
        squared norm, which was not estimated).
    distortion_measure_ : str
        ``"squared-error"``.
    leakage_ : float
        With ``fit_data="private"``: ``rate_``, an upper bound on the leakage
        :math:`I(S;T)` of any S (data processing), computed from the private
        estimates and so covered by the guarantee; the exact leakage on the
        private rows would be a function of them (measure it with the scorers
        of :mod:`sklearn_privacy.metrics` on public or held-out rows). With
        ``fit_data="public"``: the Gaussian :math:`I(S;T)` in nats of the fit rows
        when S was given, else ``rate_``.
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    GaussianIBTransformer : linear-Gaussian compression guided by a relevance variable.

    Notes
    -----
    Threat model: replace-one neighbours; the adversary sees every fitted
    attribute and every release, and knows every row but one. ``epsilon_``
    counts one release; :meth:`privacy_spent` composes every release made
    since ``fit`` (as if of the same rows). In a Pipeline every ``score``,
    ``predict`` or scorer call transforms its rows, so it is a release too:
    with ``epsilon=5`` (and the default ``delta``), ``privacy_spent()[0]``
    is 5 after the Pipeline's ``fit`` (its release of the training rows
    included), then 6.96, 8.63 and 10.13 after each ``score``, whatever the
    data. Rows are clipped, so the guarantee holds for any data; values whose
    squares overflow or underflow float64 are rejected.

    ``fit`` also takes a dask DataFrame or Array (S and ``sample_weight``
    dask or in memory): dask computes the statistics of the fit partition by
    partition (two or three passes over the data) and the fitted mechanism
    is the in-memory one of the same rows, to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.gaussian import L2CompressionDP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> mech = L2CompressionDP(epsilon=10.0).fit(X)
    >>> T = mech.transform(X)
    >>> T.shape, round(mech.epsilon_, 6), round(mech.privacy_spent()[0], 6)
    ((2000, 3), 10.0, 10.0)
    """

    _parameter_constraints: dict = {
        **BaseMechanism._parameter_constraints,
        **FIT_DATA_CONSTRAINTS,
        "epsilon": [None, Interval(Real, 0, None, closed="neither")],
        "beta": [None, Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "clip_radius": [None, Interval(Real, 0, None, closed="neither")],
        "n_components": [None, Interval(Integral, 1, None, closed="left")],
    }
    _requires_sensitive = False

    def __init__(
        self,
        epsilon=1.0,
        beta=None,
        *,
        delta=1e-5,
        clip_radius=None,
        n_components=None,
        fit_data="private",
        fit_epsilon=None,
        weights="person",
        max_person_weight=1.0,
        sensitive=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.beta = beta
        self.delta = delta
        self.clip_radius = clip_radius
        self.n_components = n_components
        self.fit_data = fit_data
        self.fit_epsilon = fit_epsilon
        self.weights = weights
        self.max_person_weight = max_person_weight
        self.sensitive = sensitive
        self.random_state = random_state

    def get_tradeoff_knob(self):
        """``epsilon`` (or ``beta`` when given): larger releases more.

        Returns
        -------
        TradeoffKnob
        """
        if self.epsilon is None:
            return TradeoffKnob("beta", "larger", low=0.1, high=1000.0, log=True)
        return TradeoffKnob("epsilon", "larger", low=0.1, high=100.0, log=True)

    def _target_epsilon(self):
        return self.epsilon

    def _fit_variables(self, has_y=False):
        """Check the parameters; the fit reads S (for ``leakage_`` only), never y."""
        if (self.epsilon is None) == (self.beta is None):
            raise ValueError(
                "Give exactly one of epsilon (target guarantee) and beta (trade-off); got "
                f"epsilon={self.epsilon!r}, beta={self.beta!r}."
            )
        return self.fit_data == "public", False

    def _n_released(self, n_release_columns):
        return n_release_columns

    def _assemble(self, X, S_design, y_design):
        return X, S_design

    def _fit_rows(self, rows, causes):
        """Fit from the statistics of the rows (in memory or computed by dask), step by step."""
        self._check_peaks(rows.peaks())
        mu_total, mu_fit = self._budgets()
        moments = self._fit_moments(rows, mu_fit, self.clip_radius, causes)
        self.mean_, self.covariance_ = moments.mean, moments.covariance
        self.radius_ = moments.radius
        s, v = self._estimated_spectrum(moments, causes)
        sol, n_kept = self._solve(s, v, mu_total, mu_fit)
        self._set_solution(sol, moments, causes)
        self._set_operating_point(rows, sol, n_kept, moments, causes)

    def _budgets(self):
        """``(mu_total, mu_fit)``: the GDP budget of all (None with ``beta``), of the fit."""
        mu_total = None if self.epsilon is None else gaussian_dp_mu(self.epsilon, self.delta)
        mu_fit = self._fit_mu(None if mu_total is None else mu_total * np.sqrt(_DEFAULT_FIT_SHARE))
        if mu_total is not None and mu_fit >= mu_total:
            raise ValueError(
                f"fit_epsilon={self.fit_epsilon!r} uses all of epsilon={self.epsilon!r}; "
                "leave some for the release."
            )
        return mu_total, mu_fit

    def _estimated_spectrum(self, moments, causes):
        """The eigenvalues (descending) and eigenvectors of the directions that were estimated.

        Public: every direction. Private: the directions whose eigenvalue clears
        the noise floor of the private covariance; the others were set to the
        floor, not estimated, and are never released (their noise would be
        released as signal). ``fallback_`` names what is released when none is
        left: ``"centre"`` (``mean_``), or ``"zeros"`` when no scale of the rows
        could be read at all.
        """
        s, v = _descending_eigh(moments.covariance)
        self.fallback_ = None
        if self.fit_data == "public":
            if s[0] <= 0:
                raise ValueError("X has zero variance in every direction: nothing can be released.")
            return s, v
        if moments.failed:  # the fit's warning says so (the problem of the estimates)
            self.fallback_ = "zeros"
            return s[:0], v[:, :0]
        resolved = s > moments.noise_floor * (1.0 + 1e-9)
        if not resolved.any():
            self.fallback_ = "centre"
            causes.note(
                "the private covariance resolved no direction above its noise, so the release "
                "is the private centre mean_ alone (fallback_='centre')",
                PRIVATE_REMEDIES,
            )
        return s[resolved], v[:, resolved]

    def _solve(self, s, v, mu_total, mu_fit):
        """The solution of Thm. 3.2.1 at the multiplier that the budget (or ``beta``) sets.

        The release's noise is on a grid (dp._grid_noise): its rounding costs
        ``gamma sqrt(n_kept)``, ``n_kept`` the components released. A target
        epsilon is met with ``n_kept`` the most components the release can keep
        (fixed before the solution), then again with the number kept when fewer
        are and no more come back; ``sensitivity_`` counts ``n_kept``.
        """
        n_kept = s.size if self.n_components is None else min(s.size, self.n_components)
        if not s.size:
            self.beta_ = float("nan")
            return _l2_solution(s, v, np.nan, s.copy(), self.n_components), 0
        sol = self._solution(s, v, mu_total, mu_fit, n_kept)
        k = sol["components"].shape[0]
        if self.beta is None and 0 < k < n_kept:
            fewer = self._solution(s, v, mu_total, mu_fit, k)
            if fewer["components"].shape[0] != k:  # more came back: keep the first
                self.beta_ = sol["beta"]
                return sol, n_kept
            sol = fewer
        return sol, k

    def _solution(self, s, v, mu_total, mu_fit, n_kept):
        beta, excess = self._multiplier(s, mu_total, mu_fit, n_kept)
        self.beta_ = beta
        return {**_l2_solution(s, v, beta, excess, self.n_components), "beta": beta}

    def _multiplier(self, s, mu_total, mu_fit, n_kept):
        """``(beta, beta s - 1)``: from ``beta``, or the largest one that meets ``epsilon``."""
        s_max = float(s[0])
        if self.beta is not None:
            beta = float(self.beta)
            if beta * s_max <= 1.0:
                raise ValueError(
                    f"beta={beta!r} is at or below the smallest critical value "
                    f"1 / s_max = {1.0 / s_max:.6g}: every component is pruned."
                )
            return beta, beta * s - 1.0
        # The release's sensitivity 2 R sqrt(beta - 1/s_max) must equal its share
        # mu of the budget: beta = 1/s_max + g. beta s - 1 is formed as
        # s g + (s/s_max - 1) so that a g far below 1/s_max is not rounded away.
        mu_release = np.sqrt(mu_total**2 - mu_fit**2)
        mu_left = mu_after_rounding(mu_release, 0.5 * mu_release, n_kept, remedy="Raise epsilon.")
        g = (mu_left / (2.0 * self.radius_)) ** 2
        return 1.0 / s_max + g, s * g + (s / s_max - 1.0)

    def _set_solution(self, sol, moments, causes):
        """The fitted map, noise, rate and distortion of the release actually made."""
        self.components_ = sol["components"]
        self.scale_ = sol["scale"]
        self.explained_variance_ = sol["variances"]
        self.noise_variance_ = sol["noise_variance"]
        self.n_components_ = self.components_.shape[0]
        self.noise_covariance_ = (self.components_.T * self.noise_variance_) @ self.components_
        self.rate_ = self.disclosure_ = sol["rate"]
        self.distortion_measure_ = "squared-error"
        if self.fit_data == "public":
            self.distortion_ = sol["distortion"]
            return
        # Private: each kept direction loses 1 / beta (reverse water-filling); the rest
        # of E||x - t||^2 is the variance left out, read from the trace of the noisy
        # second moment around mean_ (unbiased), not from eigenvalues set to the floor.
        kept = self.n_components_ / self.beta_ if self.n_components_ else 0.0
        self.distortion_ = kept + max(moments.trace - float(self.explained_variance_.sum()), 0.0)
        if moments.failed:
            self.radius_ = float("nan")  # nothing was estimated: the release is 0
            self.covariance_ = np.full_like(self.covariance_, np.nan)
            self.distortion_ = float("nan")  # the data's variance is unknown
        elif moments.trace <= _TRACE_RESOLVED * moments.noise_floor:
            # the floor is about two deviations of the trace's noise: below, its 95 %
            # interval is wider than +-20 % of it
            causes.note(
                "distortion_ is not an estimate (not to 20 %): the trace of the private "
                "covariance it reads is too noisy at this budget",
                PRIVATE_REMEDIES,
            )
        if (
            not moments.failed
            and moments.beyond * self.radius_**2 > _BEYOND_RESOLVED * self.distortion_
        ):
            # a second cause, named apart; the remedy depends on who chose the radius
            public = self.clip_radius is not None
            count = "a noisy count" if public else "a private estimate"
            causes.note(
                "distortion_ is not an estimate (an underestimate): it reads the rows clipped "
                f"to radius_, and so many of the people lie beyond it ({count}) that the "
                "part it leaves out of their distance may be large",
                "raise clip_radius (it is public: about the rows' largest distance from their "
                "centre)"
                if public
                else "give clip_radius (public, about the rows' largest distance from their "
                "centre), or raise epsilon or fit_epsilon, or fit on more rows",
            )

    def _set_operating_point(self, rows, sol, n_kept, moments, causes):
        """Guarantee, the causes of a degenerate release, the exponential bound, ``leakage_``."""
        knob = self.get_tradeoff_knob().name
        if self.n_components_ == 0:
            if self.fallback_ is None:
                causes.note(
                    "every component was pruned (beta s_i <= 1 for all of them, or the signal "
                    "underflows), so the release is the constant mean_",
                    f"raise {knob}",
                    DegenerateReleaseWarning,
                )
            self._set_guarantee(0.0, n_kept)
        else:
            total = moments.trace  # public rows: the trace of covariance_
            explained = 1.0 - self.distortion_ / max(total, 1e-300)
            signal = float(np.sum(self.scale_**2 * self.explained_variance_))
            snr = signal / float(np.sum(self.noise_variance_))
            if snr < _NOISE_ONLY_SNR or explained < _CONSTANT_SHARE:
                causes.note(
                    f"the {knob} of this fit leaves the release almost pure noise (under the "
                    "Gaussian model, the variance of its noise is over "
                    f"{1 / _NOISE_ONLY_SNR:g} times that of its signal, or under "
                    f"{_CONSTANT_SHARE:.0%} of the variance explained: see scale_, "
                    "explained_variance_, noise_variance_ and distortion_), about the constant "
                    "mean_",
                    f"raise {knob}, or clip_radius closer to the data"
                    + (", or fit on more rows" if self.fit_data == "private" else ""),
                    DegenerateReleaseWarning,
                )
            # The reported guarantee is that of the arrays the release uses.
            whitened = self.scale_ / np.sqrt(self.noise_variance_)
            self._set_guarantee(2.0 * self.radius_ * float(whitened.max()), n_kept)
        self.epsilon_exponential_ = 0.0
        if self.n_components_:
            q = np.diag(sol["scale"] ** 2 * sol["variances"] + sol["noise_variance"])
            self.epsilon_exponential_ = l2_exponential_epsilon(
                self.beta_, q, self.radius_, self.delta_
            )
        self.leakage_ = self.rate_
        if rows.n_extra:
            self.leakage_ = leakage_from_covariance(
                rows.leakage_covariance(),
                rows.n_extra,
                self.components_,
                self.scale_,
                self.noise_variance_,
            )

    def _release(self, X, S, rng):
        X = np.asarray(X, dtype=float)
        if self.n_components_ == 0:  # the constant centre
            self._record_release()
            return np.repeat(self.mean_[None, :], X.shape[0], axis=0)
        # Noise on a grid (dp._grid_noise): each coefficient a_i v_i^T x in steps of
        # gamma sd_i, plus integer noise; the release is a function of the integers N.
        step, sd = grid_step(self._release_bound), np.sqrt(self.noise_variance_)
        W = self.components_.T * (self.scale_ / (sd * step))
        N = grid_integers(clipped_product(X, self.radius_, self.mean_, W), rng, self._release_bound)
        out = N @ (self.components_ * (step * sd)[:, None])
        out += self.mean_
        self._record_release()
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
