"""How the Gaussian mechanisms answer the audit protocol (``AuditProtocol`` in ``_base``).

The audit asks an estimator for its claim, the statistic of a release and the plan of its
neighbour, and never reads a family's attributes; these mixins answer for the two Gaussian
mechanisms from their public parameters and fitted attributes. Why: "An audit any estimator can
answer" in ``docs/design.md``.
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from sklearn_privacy._base import AuditPlan, PrivacyClaim
from sklearn_privacy._sensitive import sensitive_positions

__all__ = ["BottleneckAuditProtocol", "CompressionAuditProtocol"]


class CompressionAuditProtocol:
    """The audit protocol of a Gaussian mechanism: its ledger, its release, its canary.

    Mixed into :class:`~sklearn_privacy.gaussian.L2CompressionDP`; the bottleneck's
    release is read back into the input space (:class:`BottleneckAuditProtocol`).
    """

    def audit_claim(self):
        """The ledger's claim of everything published so far (``privacy_spent`` and ``mu``).

        Returns
        -------
        PrivacyClaim
            ``privacy_spent()`` and the accountant's Gaussian-DP ``mu``.
        """
        check_is_fitted(self, "accountant_")
        epsilon, delta = self.privacy_spent()
        return PrivacyClaim(float(epsilon), float(delta), float(self.accountant_.mu))

    def audit_statistic(self, release):
        """The audit's default distinguisher: the release of the changed row, flattened.

        Parameters
        ----------
        release : ndarray of shape (n_rows, n_components)
            The release of the rows D and D' differ in.

        Returns
        -------
        ndarray of shape (n_rows * n_components,)
        """
        return np.asarray(release, dtype=float).ravel()

    def audit_plan(self, X, y=None, *, sensitive=None, sample_weight=None):
        """How an audit moves one person: the columns, the direction, the unit, the fit.

        The canary moves every column but those read as S or as the relevance
        variable, along the direction of largest sensitivity of a public pilot
        fit (``fit_data="public"``: no noise, the same direction at every audit
        of the same rows); a person weighs ``max_person_weight``; a fit on
        declared-public data is not covered by the ledger.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or None
            D's rows; None when the mechanism ends a pipeline (only the unit and
            the fit are then planned).
        y : array-like of shape (n_samples,), default=None
            Target passed to the pilot's ``fit``.
        sensitive : array-like, default=None
            S passed to the pilot's ``fit``.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights passed to the pilot's ``fit``.

        Returns
        -------
        AuditPlan
        """
        params = self.get_params(deep=False)
        unit = float(params.get("max_person_weight") or 1.0)
        private = params.get("fit_data") != "public"
        if X is None:
            return AuditPlan(person_weight=unit, private_fit=private)
        names = getattr(X, "columns", None)
        names = None if names is None else np.asarray(names).astype(str)
        n_columns = np.shape(X)[1]
        skip = set()
        for param in ("sensitive", "relevance"):
            skip.update(sensitive_positions(params.get(param), names, n_columns))
        columns = tuple(j for j in range(n_columns) if j not in skip)
        direction = self._audit_direction(X, y, sensitive, sample_weight, len(columns))
        return AuditPlan(columns, direction, unit, private)

    def _audit_direction(self, X, y, sensitive, sample_weight, n_moved):
        """The pilot's direction of largest sensitivity, or None where it cannot tell."""
        pilot = clone(self).set_params(fit_data="public")
        kwargs = {"sensitive": sensitive, "sample_weight": sample_weight}
        try:
            with warnings.catch_warnings():
                # the pilot is never published: its warnings are not the user's
                warnings.simplefilter("ignore")
                pilot.fit(X, y, **{k: v for k, v in kwargs.items() if v is not None})
            components = self._audit_unit_noise_map(pilot)
        except (ValueError, AttributeError):  # a pilot that cannot fit: the rows' direction
            return None
        if components.shape[1] != n_moved or not np.any(components):
            return None
        return np.linalg.svd(components, full_matrices=False)[2][0]

    @staticmethod
    def _audit_unit_noise_map(pilot):
        """The release map in units of its noise: ``components_`` scaled by ``scale_ / sd``."""
        components = np.asarray(pilot.components_, dtype=float)
        return components * (pilot.scale_ / np.sqrt(pilot.noise_variance_))[:, None]


class BottleneckAuditProtocol(CompressionAuditProtocol):
    """The audit protocol of :class:`~sklearn_privacy.gaussian.GaussianIBTransformer`.

    Its release :math:`T = A (x - \\bar{x}) + N` is in the coordinates of its
    components, whose signs a fit does not fix: the statistic reads it back as
    :math:`A^T T`, and its components already map to unit noise.
    """

    def audit_statistic(self, release):
        """The release of the changed row read back into the input space, :math:`A^T T`.

        Parameters
        ----------
        release : ndarray of shape (n_rows, n_components)
            The release of the rows D and D' differ in.

        Returns
        -------
        ndarray of shape (n_rows * n_features,)
        """
        check_is_fitted(self, "components_")
        return (np.asarray(release, dtype=float) @ self.components_).ravel()

    @staticmethod
    def _audit_unit_noise_map(pilot):
        return np.asarray(pilot.components_, dtype=float)
