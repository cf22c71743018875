"""The result of an audit: the claim, what the trials refute, and the trade-off they traced."""

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from sklearn_privacy.audit._bounds import trials_to_refute

__all__ = ["AuditResult"]


@dataclass(frozen=True)
class AuditResult:
    r"""What an audit measured, beside what the estimator claims.

    Returned by :func:`audit_privacy` and :func:`audit_from_statistics`; drawn
    by :class:`AuditDisplay` (:meth:`plot` is a shortcut to it).

    A differential-privacy audit (``kind="dp"``) reports lower bounds: each
    holds with probability at least ``confidence`` over the trials, whatever
    the mechanism (the test was chosen on half of the trials and its error
    rates bounded on the other half, Clopper-Pearson). A bound above the claim
    refutes the claim; a bound below it does not prove it (another
    neighbour, statistic or more trials may find more).

    A leakage audit (``kind="leakage"``, a mechanism without a DP ledger)
    reports the leakage panel's estimate in nats with an interval over
    half-samples of the scored rows.

    Attributes
    ----------
    kind : {"dp", "leakage"}
        Which audit was run.
    estimator_name : str
        The audited estimator's class.
    n_trials : int
        DP: fits on each of D and D' (``2 n_trials`` fits). Leakage: half-samples.
    confidence : float
        Level of every bound and interval.
    epsilon_claimed, delta : float
        The ledger's claim for one fit and one release of the audited rows
        (the largest over the trials), and the delta at which every bound is
        computed (nan for a leakage audit).
    mu_claimed : float
        The ledger's Gaussian-DP :math:`\mu` (largest over the trials); nan when
        the estimator keeps no ``accountant_``.
    epsilon_lower : float
        Lower bound on epsilon at ``delta`` from the chosen test's error
        rates: :math:`\log((1 - \delta - \text{FNR}^+) / \text{FPR}^+)` or symmetric.
    mu_lower : float
        Lower bound on the :math:`\mu` of any Gaussian-DP guarantee the mechanism has.
    epsilon_gdp : float
        Epsilon at ``delta`` of ``mu_lower``: the epsilon the trials imply for a
        mechanism whose trade-off is Gaussian (as every ledger of this library
        assumes); not a bound for other mechanisms.
    epsilon_max, mu_max : float
        The audit's **power**: the largest epsilon (at ``delta``) and mu that
        these trials could certify at ``confidence``, reached by a test that
        never errs on the evaluation half (about :math:`\log(n / 3.7)` for
        :math:`n` evaluation trials at 95 %). A claim above them cannot be
        refuted by this audit, whatever the mechanism: "not refuted" then says
        nothing. :meth:`trials_needed` says how many trials a rare event needs.
    roc : dict of ndarray
        The empirical trade-off on the evaluation half: ``fpr``, ``tpr`` and
        their pointwise intervals ``fpr_low``, ``fpr_high``, ``tpr_low``,
        ``tpr_high``.
    neighbour : str
        The neighbour relation and the rows the trials changed, in words.
    about_claim : bool
        Whether D and D' differ in one person under the relation the claim
        protects. False for a given D' declared ``"custom"``: its bounds are
        about that pair of data sets, never a refutation of the claim
        (``violated`` is then False).
    outside_ledger : tuple of str
        The fitted steps of a pipeline, before the audited one, that saw the
        private rows and keep no ledger, each as ``"name (Class)"``: what they
        publish (their fitted attributes) is outside the claim, and the
        default statistic reads it.
    n_failed : tuple of int
        The fits that failed, on D and on D': left out of the bounds (the
        audit stops when more than 1 % of its fits fail).
    failures : tuple of AuditWarning
        The failures' causes, each with the number of fits that raised it.
    leakage : float
        Leakage audit: the panel's estimate in nats (nan for a DP audit).
    leakage_interval : tuple of float
        Leakage audit: the interval at ``confidence``.
    leakage_details : object
        Leakage audit: the :class:`~sklearn_privacy.metrics.LeakageEstimate`.
    note : str
        What the numbers mean and do not mean, in words.
    warnings : tuple of AuditWarning
        The warnings raised by the audit's own fits, one entry per cause
        (``category``, ``message``, ``count``: the number of trials that
        raised it, of ``total``), most frequent first. The audit says each
        cause once at its end instead of once per fit; empty for
        :func:`audit_from_statistics`, which fits nothing.

    See Also
    --------
    audit_privacy : Runs an audit.
    AuditDisplay : Draws it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.audit import audit_from_statistics
    >>> rng = np.random.default_rng(0)
    >>> result = audit_from_statistics(
    ...     rng.normal(size=4000), rng.normal(1.0, size=4000), delta=1e-5,
    ...     claimed_epsilon=1.0, random_state=0)
    >>> result.violated, round(result.mu_lower, 2)
    (True, 0.89)
    """

    kind: str
    estimator_name: str
    n_trials: int
    confidence: float
    epsilon_claimed: float = float("nan")
    delta: float = float("nan")
    mu_claimed: float = float("nan")
    epsilon_lower: float = float("nan")
    mu_lower: float = float("nan")
    epsilon_gdp: float = float("nan")
    epsilon_max: float = float("nan")
    mu_max: float = float("nan")
    roc: dict = field(default_factory=dict, repr=False)
    neighbour: str = ""
    about_claim: bool = True
    outside_ledger: tuple = ()
    n_failed: tuple = (0, 0)
    failures: tuple = field(default=(), repr=False)
    leakage: float = float("nan")
    leakage_interval: tuple = (float("nan"), float("nan"))
    leakage_details: object = field(default=None, repr=False)
    note: str = ""
    warnings: tuple = field(default=(), repr=False)
    # AuditDisplay, set by its module: this one cannot import it, since the display's
    # from_estimator runs the audit, which builds this result (an import cycle)
    _display_class: ClassVar[type] = None

    @property
    def violated(self):
        """Whether a lower bound exceeds the claim (epsilon, or mu when the ledger gives it)."""
        if self.kind != "dp" or not self.about_claim:
            return False
        over_eps = self.epsilon_lower > self.epsilon_claimed
        over_mu = bool(np.isfinite(self.mu_claimed) and self.mu_lower > self.mu_claimed)
        return bool(over_eps or over_mu)

    def plot(self, ax=None, **kwargs):
        """Draw the audit: a shortcut for :meth:`AuditDisplay.from_audit` of this result.

        A thin convenience: the display object is the library's way to plot
        (as scikit-learn's), and this builds it, draws it and returns it.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure otherwise.
        **kwargs : dict
            ``name``, ``log_scale`` and ``legend``, as :meth:`AuditDisplay.plot` takes them.

        Returns
        -------
        display : AuditDisplay
            The display, with ``line_``, ``ax_`` and ``figure_`` set.

        Raises
        ------
        ValueError
            For a leakage audit, which has no trade-off to draw.

        See Also
        --------
        AuditDisplay.from_audit : What this calls.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_privacy.audit import audit_from_statistics
        >>> rng = np.random.default_rng(0)
        >>> result = audit_from_statistics(
        ...     rng.normal(size=500), rng.normal(1.0, size=500),
        ...     delta=1e-5, claimed_mu=1.0, random_state=0)
        >>> display = result.plot()
        >>> type(display).__name__, display.mu
        ('AuditDisplay', 1.0)
        >>> plt.close("all")
        """
        return self._display_class.from_audit(self, ax=ax, **kwargs)

    def trials_needed(self, probability=0.01):
        """Trials an audit needs to refute this claim by an event of ``probability``.

        The event gives D' away (a release that publishes the rows as they
        are in a fraction ``probability`` of the fits, replayed noise) and
        never happens on D. With a test that isolates it (the default
        statistic for rows published far out, ``statistic="exact"`` for a
        repeated value), an audit of this many trials on each of D and D'
        refutes the claim about half the time, at the expected counts.

        Parameters
        ----------
        probability : float, default=0.01
            How often a fit on D' gives it away, in (0, 1].

        Returns
        -------
        int or float
            The number of trials (``inf`` when no audit can refute the claim,
            nan without a claim).

        See Also
        --------
        audit_privacy : Runs an audit of a given number of trials.

        Examples
        --------
        >>> from sklearn_privacy.audit import AuditResult
        >>> result = AuditResult(
        ...     kind="dp", estimator_name="m", n_trials=1000,
        ...     confidence=0.95, epsilon_claimed=2.0, delta=1e-5)
        >>> result.trials_needed(0.01)
        7701
        """
        if not 0.0 < probability <= 1.0:
            raise ValueError(f"probability must lie in (0, 1]; got {probability!r}.")
        return trials_to_refute(
            probability,
            epsilon=self.epsilon_claimed,
            mu=self.mu_claimed,
            delta=self.delta,
            confidence=self.confidence,
        )

    def __repr__(self):
        if self.kind == "leakage":
            low, high = self.leakage_interval
            return (
                f"AuditResult(leakage of {self.estimator_name}: {self.leakage:.4g} nats,\n"
                f"    {self.confidence:.0%} interval [{low:.4g}, {high:.4g}] over "
                f"{self.n_trials} half-samples; no DP claim to audit)"
            )
        if not self.about_claim:
            verdict = "a custom D', not a test of the claim"
        else:
            verdict = "VIOLATED" if self.violated else "not refuted"
        mu = "" if np.isnan(self.mu_claimed) else f", mu {self.mu_claimed:.4g}"
        lines = [
            f"AuditResult({self.estimator_name}: claims epsilon {self.epsilon_claimed:.4g} at "
            f"delta {self.delta:.3g}{mu};",
            f"{self.n_trials} trials find epsilon >= {self.epsilon_lower:.4g}, mu >= "
            f"{self.mu_lower:.4g} at {self.confidence:.0%} confidence: {verdict};",
            f"power: these trials could certify at most epsilon {self.epsilon_max:.4g}, mu "
            f"{self.mu_max:.4g}",
        ]
        rare = self._rare_event()
        if rare:
            lines.append(rare)
        if self.outside_ledger:
            lines.append(f"published outside the ledger: {', '.join(self.outside_ledger)}")
        if sum(self.n_failed):
            lines.append(
                f"{sum(self.n_failed)} of {2 * self.n_trials} fits failed ({self.n_failed[0]} on "
                f"D, {self.n_failed[1]} on D'), left out"
            )
        return "\n    ".join(lines[:-1] + [lines[-1] + ")"])

    def _rare_event(self):
        """The trials that a release giving D' away in 1 % of fits needs, in words."""
        needed = self.trials_needed(0.01)
        if not np.isfinite(needed):
            return ""
        return f"a release that gives D' away in 1 % of fits needs {needed:,} trials"
