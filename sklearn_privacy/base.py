"""The base class of every mechanism, for writing new ones.

A mechanism subclasses :class:`BaseMechanism` and implements the hooks
``_fit_mechanism(X, S, y, sample_weight)`` and ``_release(X, S, rng)``; the base resolves S,
validates the input and keeps the random streams. See the :doc:`developer notes </design>`
("Adding a mechanism", "A base PPAN can stand on").

A differentially private estimator, of this library or not, is audited through the methods
that :class:`AuditProtocol` declares (``audit_claim``, ``audit_statistic``, ``audit_plan``).
"""

from sklearn_privacy._base import AuditPlan, AuditProtocol, BaseMechanism, PrivacyClaim

__all__ = ["AuditPlan", "AuditProtocol", "BaseMechanism", "PrivacyClaim"]
