"""Display of a privacy/utility trade-off (matplotlib is imported lazily)."""

import numpy as np

from sklearn_privacy.model_selection import pareto_front, tradeoff_curve

__all__ = ["TradeoffDisplay"]


class TradeoffDisplay:
    """Leakage against utility, one point per value of a trade-off knob.

    Build it with :meth:`from_estimator` (runs :func:`tradeoff_curve`) or
    :meth:`from_tradeoff` (reuses its result); :meth:`plot` draws it.

    Parameters
    ----------
    leakage : ndarray of shape (n_points,)
        Leakage of each point (lower is better), e.g. in nats.
    utility : ndarray of shape (n_points,)
        Utility of each point (higher is better), e.g. accuracy.
    param_range : array-like of shape (n_points,), default=None
        Knob values, used as point labels.
    leakage_name, utility_name : str
        Axis labels.
    estimator_name : str, default=None
        Legend label.

    Attributes
    ----------
    line_ : matplotlib Line2D
    pareto_line_ : matplotlib Line2D or None
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> from sklearn_privacy.plotting import TradeoffDisplay
    >>> display = TradeoffDisplay([0.1, 0.3, 0.2], [0.7, 0.9, 0.6], param_range=[1, 10, 5])
    >>> display.pareto_indices().tolist()
    [0, 1]
    """

    def __init__(
        self,
        leakage,
        utility,
        *,
        param_range=None,
        leakage_name="leakage (nats)",
        utility_name="accuracy",
        estimator_name=None,
    ):
        self.leakage = np.asarray(leakage, dtype=float)
        self.utility = np.asarray(utility, dtype=float)
        self.param_range = param_range
        self.leakage_name = leakage_name
        self.utility_name = utility_name
        self.estimator_name = estimator_name

    def pareto_indices(self):
        """Indices of the Pareto-optimal points, by increasing leakage."""
        return pareto_front(self.leakage, self.utility)

    def plot(self, ax=None, *, show_pareto=True, annotate=True, **kwargs):
        """Draw the points (and their Pareto front).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure otherwise.
        show_pareto : bool, default=True
            Draw the Pareto front as a step line.
        annotate : bool, default=True
            Label each point with its knob value.
        **kwargs
            Passed to ``ax.plot`` for the points.

        Returns
        -------
        self
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        kwargs = {"marker": "o", "linestyle": "-", **kwargs}
        if self.estimator_name is not None:
            kwargs.setdefault("label", self.estimator_name)
        (self.line_,) = ax.plot(self.leakage, self.utility, **kwargs)
        self.pareto_line_ = None
        if show_pareto and self.leakage.size > 1:
            front = self.pareto_indices()
            (self.pareto_line_,) = ax.step(
                self.leakage[front],
                self.utility[front],
                where="post",
                linestyle="--",
                color=self.line_.get_color(),
                alpha=0.6,
                label="Pareto front",
            )
        if annotate and self.param_range is not None:
            for x, y, value in zip(self.leakage, self.utility, self.param_range):
                ax.annotate(
                    f"{value:g}"
                    if np.isscalar(value) and not isinstance(value, str)
                    else str(value),
                    (x, y),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=8,
                )
        ax.set_xlabel(self.leakage_name)
        ax.set_ylabel(self.utility_name)
        if "label" in kwargs or self.pareto_line_ is not None:
            ax.legend(loc="lower right")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_tradeoff(cls, result, *, leakage="leakage", utility="accuracy", **kwargs):
        """Display of a :func:`tradeoff_curve` result.

        ``neg_`` leakage scores (scorers with ``greater_is_better=False``) are
        given as negative numbers: they are negated back for the axis.
        """
        leak = np.asarray(result.mean_test_scores[leakage])
        if np.all(leak <= 0):
            leak = -leak
        kwargs.setdefault("param_range", list(result.param_range))
        return cls(leak, result.mean_test_scores[utility], **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y=None,
        *,
        param_name,
        param_range,
        leakage_scorer,
        utility_scorer="accuracy",
        cv=None,
        n_jobs=None,
        params=None,
        ax=None,
        **kwargs,
    ):
        """Run :func:`tradeoff_curve` and plot the mean leakage against mean utility.

        Returns
        -------
        display : TradeoffDisplay
        """
        result = tradeoff_curve(
            estimator,
            X,
            y,
            param_name=param_name,
            param_range=param_range,
            scoring={"leakage": leakage_scorer, "utility": utility_scorer},
            cv=cv,
            n_jobs=n_jobs,
            params=params,
        )
        display = cls.from_tradeoff(result, leakage="leakage", utility="utility", **kwargs)
        return display.plot(ax=ax)
