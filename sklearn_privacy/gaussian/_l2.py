"""L2CompressionDP: optimal linear compression under squared error, with a DP guarantee."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy.dp import (
    clip_rows,
    dp_covariance,
    gaussian_epsilon,
    gaussian_max_sensitivity,
    l2_exponential_epsilon,
)
from sklearn_privacy.gaussian._encoding import gaussian_leakage, numeric_matrix
from sklearn_privacy.gaussian._solvers import l2_compression


class L2CompressionDP(BaseMechanism):
    """Optimal linear-Gaussian compression under squared error with a DP guarantee.

    Releases ``t = c + V_k (a * V_k^T clip(x - c) + xi)`` with
    ``xi ~ N(0, diag(lambda))``: the rate-distortion optimum for Gaussian data
    (dp-compression-kohler2018, Thm. 3.2.1; reverse water-filling with level
    ``1 / beta``), components with ``beta s_i <= 1`` pruned (sec. 3.3). Rows are
    clipped to the ball of radius ``clip_radius`` around the centre ``c``, and
    the release is (epsilon, delta)-DP under replace-one neighbours with the
    exact Mahalanobis sensitivity ``2 R ||Lambda^{-1/2} A||_2 = 2 R sqrt(beta -
    1 / s_max)`` (analytic Gaussian mechanism, Balle and Wang 2018).

    The trade-off knob is ``beta`` or, equivalently, a target ``epsilon``: the
    largest (least distorting) beta that meets ``(epsilon, delta)`` is found in
    closed form.

    Parameters
    ----------
    epsilon : float or None, default=1.0
        Target total epsilon (covariance estimation included). Give ``None``
        when ``beta`` is given.
    beta : float or None, default=None
        Lagrange multiplier of the rate-distortion problem; ``epsilon`` must
        then be ``None`` and ``epsilon_`` reports the guarantee reached.
    delta : float, default=1e-5
        Total delta in (0, 1).
    clip_radius : float or None, default=None
        Radius R of the L2 ball (around the centre) that rows are clipped to.
        ``None`` takes the largest norm of the centred fit rows, which is only a
        valid guarantee when the fit data is public.
    n_components : int or None, default=None
        Keep at most this many principal components (extra pruning, sec. 3.3).
    covariance_epsilon : float or None, default=None
        ``None``: the mean and covariance come from ``fit``'s data, taken as
        public (fit on public rows, transform private ones). A float: they are
        estimated with this epsilon ("Analyze Gauss", :func:`~sklearn_privacy.dp.dp_covariance`)
        on rows clipped to ``clip_radius`` around the origin, and the budget is
        composed with the release's.
    covariance_delta : float or None, default=None
        Delta of the covariance estimate; ``delta / 2`` when ``None``.
    sensitive : column names or indices, default=None
        Optional S columns (not released); used only to report ``leakage_``.
    random_state : int, RandomState instance or None, default=None
        Noise of the covariance estimate and of the release.

    Attributes
    ----------
    beta_ : float
        The multiplier used.
    epsilon_, delta_ : float
        Guarantee of one ``transform`` of a data set (composed with the
        covariance estimate when it was private).
    release_epsilon_, release_delta_ : float
        The release's share.
    epsilon_exponential_ : float
        The looser exponential-mechanism bound of thesis Cor. 1, for comparison.
    components_ : ndarray of shape (`n_components_`, n_features)
        Kept eigenvectors ``V_k^T``.
    scale_ : ndarray of shape (`n_components_`,)
        Shrinkage ``a_i``.
    noise_covariance_ : ndarray of shape (n_features, n_features)
        ``V_k diag(lambda) V_k^T``.
    explained_variance_ : ndarray of shape (`n_components_`,)
        Kept eigenvalues ``s_i``.
    mean_ : ndarray of shape (n_features,)
        Centre ``c``.
    covariance_ : ndarray of shape (n_features, n_features)
        Covariance the mechanism was designed for.
    radius_ : float
        Clipping radius used.
    sensitivity_ : float
        Mahalanobis sensitivity ``2 R sqrt(beta - 1 / s_max)``.
    rate_ : float
        ``I(X;T)`` in nats under the Gaussian model.
    distortion_ : float
        Expected ``E ||X - T||^2`` under the Gaussian model (before clipping).
    leakage_ : float
        Gaussian ``I(S;T)`` in nats when S was given, else ``rate_`` (an upper
        bound on the leakage of any S, by data processing).
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    GaussianIBTransformer : linear-Gaussian compression guided by a relevance variable.

    Notes
    -----
    One call of ``transform`` on a data set spends ``(epsilon_, delta_)``; a
    second call on the same rows spends it again (basic composition).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.gaussian import L2CompressionDP
    >>> rng = np.random.default_rng(0)
    >>> public, private = rng.normal(size=(500, 3)), rng.normal(size=(200, 3))
    >>> mech = L2CompressionDP(epsilon=2.0, clip_radius=3.0, random_state=0).fit(public)
    >>> mech.transform(private).shape, round(mech.epsilon_, 6)
    ((200, 3), 2.0)
    """

    _parameter_constraints: dict = {
        **BaseMechanism._parameter_constraints,
        "epsilon": [None, Interval(Real, 0, None, closed="neither")],
        "beta": [None, Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "clip_radius": [None, Interval(Real, 0, None, closed="neither")],
        "n_components": [None, Interval(Integral, 1, None, closed="left")],
        "covariance_epsilon": [None, Interval(Real, 0, None, closed="neither")],
        "covariance_delta": [None, Interval(Real, 0, 1, closed="neither")],
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
        covariance_epsilon=None,
        covariance_delta=None,
        sensitive=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.beta = beta
        self.delta = delta
        self.clip_radius = clip_radius
        self.n_components = n_components
        self.covariance_epsilon = covariance_epsilon
        self.covariance_delta = covariance_delta
        self.sensitive = sensitive
        self.random_state = random_state

    def _fit_mechanism(self, X, S, y):
        if (self.epsilon is None) == (self.beta is None):
            raise ValueError(
                "Give exactly one of epsilon (target guarantee) and beta (trade-off); got "
                f"epsilon={self.epsilon!r}, beta={self.beta!r}."
            )
        X = np.asarray(X, dtype=float)
        cov_eps, cov_delta = 0.0, 0.0
        if self.covariance_epsilon is not None:
            if self.clip_radius is None:
                raise ValueError(
                    "clip_radius must be given when the covariance is estimated privately "
                    "(covariance_epsilon is set): a radius read from private data is not private."
                )
            cov_eps = float(self.covariance_epsilon)
            cov_delta = (
                self.delta / 2 if self.covariance_delta is None else float(self.covariance_delta)
            )
            from sklearn_privacy._base import check_generator

            self.mean_, cov = dp_covariance(
                X,
                epsilon=cov_eps,
                delta=cov_delta,
                radius=self.clip_radius,
                random_state=check_generator(self.random_state),
            )
            radius = float(self.clip_radius)
        else:
            # The centre and covariance come from the (public) fit data: the
            # mechanism assumes centred data, so it centres with their mean.
            self.mean_ = X.mean(axis=0)
            Xc = X - self.mean_
            cov = Xc.T @ Xc / max(X.shape[0] - 1, 1)
            if self.clip_radius is None:
                radius = float(np.sqrt(np.einsum("ij,ij->i", Xc, Xc).max()))
                if radius <= 0:
                    radius = 1.0
            else:
                radius = float(self.clip_radius)
        self.covariance_ = cov
        self.radius_ = radius
        s_max = max(float(np.linalg.eigvalsh(cov).max()), 0.0)
        if s_max <= 0:
            raise ValueError("X has zero variance in every direction: nothing can be released.")

        rel_delta = self.delta - cov_delta
        if rel_delta <= 0:
            raise ValueError(
                f"covariance_delta={cov_delta!r} uses all of delta={self.delta!r}; "
                "leave some for the release."
            )
        if self.beta is not None:
            beta = float(self.beta)
            if beta * s_max <= 1.0:
                raise ValueError(
                    f"beta={beta!r} is at or below the smallest critical value "
                    f"1 / s_max = {1.0 / s_max:.6g}: every component is pruned."
                )
        else:
            rel_eps = self.epsilon - cov_eps
            if rel_eps <= 0:
                raise ValueError(
                    f"covariance_epsilon={cov_eps!r} uses all of epsilon={self.epsilon!r}; "
                    "leave some for the release."
                )
            # sensitivity 2 R sqrt(beta - 1 / s_max) must equal the largest one
            # unit noise covers at (rel_eps, rel_delta): solve for beta.
            max_sens = gaussian_max_sensitivity(rel_eps, rel_delta)
            beta = 1.0 / s_max + (max_sens / (2.0 * radius)) ** 2
        self.beta_ = beta

        sol = l2_compression(cov, beta, self.n_components)
        self.components_ = sol["components"]
        self.scale_ = sol["scale"]
        self.explained_variance_ = sol["variances"]
        self.noise_variance_ = sol["noise_variance"]
        self.n_components_ = self.components_.shape[0]
        self.noise_covariance_ = (self.components_.T * sol["noise_variance"]) @ self.components_
        self.rate_ = sol["rate"]
        self.distortion_ = sol["distortion"]

        # Whitened map Lambda^{-1/2} A has singular values sqrt(beta - 1 / s_i).
        self.sensitivity_ = 2.0 * radius * float(np.sqrt(max(beta - 1.0 / s_max, 0.0)))
        self.release_delta_ = rel_delta
        self.release_epsilon_ = (
            gaussian_epsilon(1.0, rel_delta, self.sensitivity_) if self.sensitivity_ > 0 else 0.0
        )
        self.epsilon_ = self.release_epsilon_ + cov_eps
        self.delta_ = self.release_delta_ + cov_delta
        q = np.diag(sol["scale"] ** 2 * sol["variances"] + sol["noise_variance"])
        self.epsilon_exponential_ = (
            l2_exponential_epsilon(beta, q, radius, rel_delta) + cov_eps
            if self.n_components_
            else cov_eps
        )
        if S is not None:
            self.leakage_ = gaussian_leakage(
                X,
                numeric_matrix(S),
                self.mean_,
                self.components_,
                self.scale_,
                self.noise_variance_,
            )
        else:
            self.leakage_ = self.rate_

    def _release(self, X, rng):
        X = np.asarray(X, dtype=float)
        Xc = clip_rows(X, self.radius_, center=self.mean_)
        coef = Xc @ self.components_.T
        coef *= self.scale_
        coef += rng.standard_normal(coef.shape) * np.sqrt(self.noise_variance_)
        out = coef @ self.components_
        out += self.mean_
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
