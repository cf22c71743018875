"""What the Gaussian mechanisms share to make their DP guarantee cover everything published.

A fitted Gaussian mechanism publishes its release rows and the fitted attributes
used to make them (centre, components, scales, clipping radius). With
``fit_data="private"`` those attributes come from Gaussian-mechanism estimates
(a private radius, mean and covariance), recorded with the release in one
:class:`~sklearn_privacy.dp.GaussianAccountant`; with ``fit_data="public"`` the
user declares the fit rows public and only the releases are accounted for.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from sklearn_privacy.dp import GaussianAccountant, gaussian_dp_mu
from sklearn_privacy.dp._estimation import private_mean_covariance, row_norms_safe

FIT_DATA_CONSTRAINTS = {
    "fit_data": [StrOptions({"private", "public"})],
    "fit_epsilon": [None, Interval(Real, 0, None, closed="neither")],
}

# Squares of values beyond these overflow or underflow in float64 (covariances).
_LARGEST, _SMALLEST = 1e150, 1e-150


def check_scale(X, name="X"):
    """Reject columns whose squares overflow or underflow float64, with a clear message."""
    if not X.size:
        return
    peak = np.maximum(X.max(axis=0), -X.min(axis=0))
    for j in np.flatnonzero((peak > _LARGEST) | ((peak > 0) & (peak < _SMALLEST))):
        fault = "overflow" if peak[j] > _LARGEST else "underflow"
        raise ValueError(
            f"Column {j} of {name} holds values of size {peak[j]:.3g}: their squares {fault} "
            "float64, so no covariance can be computed. Rescale the data by a public "
            "constant."
        )


def weighted_moments(Z, sample_weight=None):
    """Mean and unbiased covariance of the rows of ``Z``, each counted ``sample_weight`` times.

    With integer weights this is exactly the moments of the repeated rows
    (divisor ``sum(w) - 1``).
    """
    w = np.ones(Z.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    total = w.sum()
    mean = w @ Z / total
    Zc = Z - mean
    cov = (Zc.T * w) @ Zc / max(total - 1.0, 1.0)
    return mean, cov


class GaussianDPMixin:
    """Fit-time moments, accounting and the reported guarantee of a Gaussian mechanism.

    The host class has parameters ``fit_data``, ``fit_epsilon`` and ``delta``,
    and calls :meth:`_fit_moments` at fit, :meth:`_set_guarantee` once its
    release is designed, and :meth:`_record_release` in ``_release``.
    """

    def _claims_dp(self):
        return True

    def _fit_moments(self, Z, mu_fit, radius, sample_weight=None):
        """``(mean, covariance, radius)`` of the rows of ``Z``: private or public.

        Private: :func:`~sklearn_privacy.dp._estimation.private_mean_covariance`
        under the ``mu_fit``-GDP budget (the radius is estimated privately when
        ``radius`` is None). Public: the sample moments, and the largest
        centred row norm when ``radius`` is None. ``sample_weight`` counts
        each row that many times.
        """
        self.accountant_ = GaussianAccountant()
        if self.fit_data == "private":
            mean, cov, radius = private_mean_covariance(
                Z,
                mu_fit,
                rng=self._fit_rng,
                accountant=self.accountant_,
                radius=radius,
                sample_weight=sample_weight,
            )
            self._moments_mean = mean  # the published centre of the covariance (audits)
            return mean, cov, radius
        mean, cov = weighted_moments(Z, sample_weight)
        if radius is None:
            radius = float(row_norms_safe(Z - mean).max())
            if radius <= 0:
                radius = 1.0
        return mean, cov, float(radius)

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

    def _set_guarantee(self, sensitivity):
        """Report the guarantee of the fitted attributes plus one release.

        ``sensitivity`` is the Mahalanobis sensitivity of one release, computed
        from the map and noise actually used (noise whitened to the identity).
        """
        self.sensitivity_ = float(sensitivity)
        self.delta_ = float(self.delta)
        one_release = GaussianAccountant([*self.accountant_.spends])
        one_release.spend("release", sensitivity=self.sensitivity_, sigma=1.0)
        self.epsilon_ = one_release.epsilon(self.delta_)
        release = GaussianAccountant()
        release.spend("release", sensitivity=self.sensitivity_, sigma=1.0)
        self.release_epsilon_ = release.epsilon(self.delta_)

    def _record_release(self):
        self.accountant_.spend("release", sensitivity=self.sensitivity_, sigma=1.0)

    def privacy_spent(self):
        """``(epsilon, delta)`` of everything published so far.

        The fitted attributes (when ``fit_data="private"``) and every
        ``transform`` made since ``fit``, composed exactly (Gaussian DP) as if
        every release were of the same rows. Equals ``(epsilon_, delta_)``
        after the first ``transform``.

        Returns
        -------
        epsilon : float
        delta : float
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "accountant_")
        return self.accountant_.epsilon(self.delta_), self.delta_
