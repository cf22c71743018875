"""Display of an audit: the empirical trade-off beside the claimed one (lazy matplotlib)."""

import numpy as np

from sklearn_privacy.audit._audit import audit_privacy
from sklearn_privacy.audit._bounds import dp_tradeoff, gdp_tradeoff
from sklearn_privacy.audit._result import AuditResult
from sklearn_privacy.utils._sklearn_compat import check_matplotlib_support

__all__ = ["AuditDisplay"]

_CURVE_POINTS = 400


class AuditDisplay:
    r"""True against false positive rate of an audit's test, beside what the claim allows.

    The empirical points (evaluation half of the trials) are drawn with their
    pointwise Clopper-Pearson bands; the claimed (epsilon, delta) guarantee
    allows only the region under
    :math:`\min(e^\epsilon \text{FPR} + \delta, 1 - e^{-\epsilon}(1 - \delta - \text{FPR}))`,
    and a claimed :math:`\mu`-GDP guarantee the region under
    :math:`\Phi(\Phi^{-1}(\text{FPR}) + \mu)`. A band above a claimed curve is a
    violation. The audit's power, the largest epsilon its trials could
    certify, is drawn as the (epsilon, delta) curve it allows: a claim whose
    curve lies above it cannot be refuted by these trials.

    Build it with :meth:`from_audit` or :meth:`from_estimator`.

    Read more in the :ref:`User Guide <audit>`.

    Parameters
    ----------
    fpr, tpr : array-like of shape (n_points,)
        The empirical rates.
    fpr_low, fpr_high, tpr_low, tpr_high : array-like of shape (n_points,), default=None
        Their intervals.
    epsilon, delta : float or None, default=None
        The claimed guarantee.
    mu : float or None, default=None
        The claimed Gaussian-DP :math:`\mu`.
    epsilon_lower : float or None, default=None
        The audit's lower bound, for the legend.
    epsilon_max : float or None, default=None
        The audit's power: the largest epsilon its trials could certify.
    estimator_name : str or None, default=None
        Name of the audited estimator.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The empirical curve.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    audit_privacy : Runs the audit drawn.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from sklearn_privacy.audit import AuditDisplay, audit_from_statistics
    >>> rng = np.random.default_rng(0)
    >>> result = audit_from_statistics(
    ...     rng.normal(size=2000), rng.normal(2.0, size=2000),
    ...     delta=1e-5, claimed_epsilon=1.0, random_state=0)
    >>> display = AuditDisplay.from_audit(result)
    >>> [t.get_text() for t in display.ax_.get_legend().get_texts()][:2]
    ['mechanism (epsilon >= 3.21)', 'allowed by (1, 1e-05)-DP']
    >>> plt.close("all")
    """

    def __init__(
        self,
        *,
        fpr,
        tpr,
        fpr_low=None,
        fpr_high=None,
        tpr_low=None,
        tpr_high=None,
        epsilon=None,
        delta=None,
        mu=None,
        epsilon_lower=None,
        epsilon_max=None,
        estimator_name=None,
    ):
        self.fpr = np.asarray(fpr, dtype=float)
        self.tpr = np.asarray(tpr, dtype=float)
        self.fpr_low, self.fpr_high = _optional(fpr_low), _optional(fpr_high)
        self.tpr_low, self.tpr_high = _optional(tpr_low), _optional(tpr_high)
        self.epsilon = epsilon
        self.delta = delta
        self.mu = mu
        self.epsilon_lower = epsilon_lower
        self.epsilon_max = epsilon_max
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, name=None, log_scale=False, legend=True):
        """Draw the empirical trade-off, its bands and the claimed curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure otherwise.
        name : str or None, default=None
            Legend label of the empirical curve (``estimator_name`` otherwise).
        log_scale : bool, default=False
            Logarithmic false positive rate axis, where violations at small
            rates (the region that sets epsilon) show.
        legend : bool, default=True
            Draw the legend.

        Returns
        -------
        display : AuditDisplay
            The display, with ``line_``, ``ax_`` and ``figure_`` set.

        See Also
        --------
        AuditDisplay.from_audit : Build and plot from an audit.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn_privacy.audit import AuditDisplay
        >>> display = AuditDisplay(fpr=[0, 0.2, 1], tpr=[0, 0.7, 1],
        ...                        epsilon=1.0, delta=0.0)
        >>> display = display.plot()
        >>> display.ax_.get_xlabel()
        "false positive rate (D taken for D')"
        >>> plt.close("all")
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        import matplotlib.pyplot as plt  # an optional dependency, imported when drawing

        if ax is None:
            _, ax = plt.subplots()
        label = name or self.estimator_name or "audit"
        if self.epsilon_lower is not None and np.isfinite(self.epsilon_lower):
            label += f" (epsilon >= {self.epsilon_lower:.3g})"
        order = np.argsort(self.fpr, kind="stable")
        (self.line_,) = ax.plot(self.fpr[order], self.tpr[order], marker=".", label=label)
        colour = self.line_.get_color()
        if self.tpr_low is not None and self.tpr_high is not None:
            ax.fill_between(
                self.fpr[order], self.tpr_low[order], self.tpr_high[order], color=colour, alpha=0.25
            )
        if self.fpr_low is not None and self.fpr_high is not None:
            ax.fill_betweenx(
                self.tpr[order], self.fpr_low[order], self.fpr_high[order], color=colour, alpha=0.15
            )
        low = max(float(self.fpr[self.fpr > 0].min(initial=1e-4)) / 2, 1e-6) if log_scale else 0.0
        grid = (np.geomspace if log_scale else np.linspace)(max(low, 1e-12), 1.0, _CURVE_POINTS)
        if self.epsilon is not None and np.isfinite(self.epsilon):
            delta = 0.0 if self.delta is None else float(self.delta)
            ax.plot(
                grid,
                dp_tradeoff(grid, self.epsilon, delta),
                "k--",
                label=f"allowed by ({self.epsilon:.3g}, {delta:.3g})-DP",
            )
        if self.mu is not None and np.isfinite(self.mu):
            ax.plot(grid, gdp_tradeoff(grid, self.mu), "k:", label=f"allowed by {self.mu:.3g}-GDP")
        if self.epsilon_max is not None and np.isfinite(self.epsilon_max):
            delta = 0.0 if self.delta is None else float(self.delta)
            ax.plot(
                grid,
                dp_tradeoff(grid, self.epsilon_max, delta),
                "-.",
                color="0.5",
                label=f"power: the most the trials certify, epsilon {self.epsilon_max:.3g}",
            )
        ax.plot([low, 1], [low, 1], color="0.7", linewidth=0.8, label="chance")
        if log_scale:
            ax.set_xscale("log")
        ax.set_xlabel("false positive rate (D taken for D')")
        ax.set_ylabel("true positive rate (D' recognised)")
        ax.set_ylim(0, 1.02)
        if legend:
            ax.legend(loc="lower right")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_audit(cls, result, *, ax=None, name=None, log_scale=False, legend=True):
        """Plot the result of :func:`audit_privacy` or :func:`audit_from_statistics`.

        Parameters
        ----------
        result : AuditResult
            A differential-privacy audit (a leakage audit has no trade-off to draw).
        ax : matplotlib Axes, default=None
            Axes to draw on.
        name : str or None, default=None
            Legend label of the empirical curve.
        log_scale : bool, default=False
            Logarithmic false positive rate axis.
        legend : bool, default=True
            Draw the legend.

        Returns
        -------
        display : AuditDisplay

        See Also
        --------
        AuditDisplay.from_estimator : Run the audit and plot it.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_privacy.audit import (
        ...     AuditDisplay, audit_from_statistics)
        >>> rng = np.random.default_rng(0)
        >>> result = audit_from_statistics(
        ...     rng.normal(size=500), rng.normal(1.0, size=500),
        ...     delta=1e-5, claimed_mu=1.0, random_state=0)
        >>> AuditDisplay.from_audit(result).mu
        1.0
        >>> plt.close("all")
        """
        if getattr(result, "kind", None) != "dp":
            raise ValueError(
                "from_audit draws the trade-off of a differential-privacy audit; this result "
                "is a leakage audit (no DP ledger): read its leakage and leakage_interval."
            )
        display = cls(
            **result.roc,
            epsilon=_finite_or_none(result.epsilon_claimed),
            delta=result.delta,
            mu=_finite_or_none(result.mu_claimed),
            epsilon_lower=result.epsilon_lower,
            epsilon_max=_finite_or_none(result.epsilon_max),
            estimator_name=result.estimator_name,
        )
        return display.plot(ax=ax, name=name, log_scale=log_scale, legend=legend)

    @classmethod
    def from_estimator(
        cls, estimator, X, y=None, *, ax=None, name=None, log_scale=False, **audit_params
    ):
        """Audit an estimator with :func:`audit_privacy` and plot the result.

        Parameters
        ----------
        estimator : estimator object
            The unfitted mechanism (or a pipeline ending in one).
        X : array-like of shape (n_samples, n_features)
            D.
        y : array-like of shape (n_samples,), default=None
            Target passed to ``fit``.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        name : str or None, default=None
            Legend label.
        log_scale : bool, default=False
            Logarithmic false positive rate axis.
        **audit_params
            Passed to :func:`audit_privacy` (``n_trials``, ``neighbour``...).

        Returns
        -------
        display : AuditDisplay
            With the result in ``result_``.

        See Also
        --------
        audit_privacy : The audit it runs.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_privacy.audit import AuditDisplay
        >>> from sklearn_privacy.gaussian import L2CompressionDP
        >>> X = np.random.default_rng(0).normal(size=(100, 2))
        >>> mech = L2CompressionDP(epsilon=8.0, clip_radius=3.0,
        ...                        fit_data="public")
        >>> display = AuditDisplay.from_estimator(mech, X, n_trials=100,
        ...                                       random_state=0)
        >>> display.result_.n_trials
        100
        >>> plt.close("all")
        """
        result = audit_privacy(estimator, X, y, **audit_params)
        display = cls.from_audit(result, ax=ax, name=name, log_scale=log_scale)
        display.result_ = result
        return display


# AuditResult.plot draws through this class (its module cannot import this one: a cycle)
AuditResult._display_class = AuditDisplay


def _optional(values):
    return None if values is None else np.asarray(values, dtype=float)


def _finite_or_none(value):
    return float(value) if value is not None and np.isfinite(value) else None
