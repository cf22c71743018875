"""Empirical privacy audits: fit a mechanism many times on neighbouring data, bound its epsilon."""

from sklearn_privacy.audit._audit import audit_from_statistics, audit_privacy
from sklearn_privacy.audit._display import AuditDisplay
from sklearn_privacy.audit._result import AuditResult

__all__ = ["AuditDisplay", "AuditResult", "audit_from_statistics", "audit_privacy"]
