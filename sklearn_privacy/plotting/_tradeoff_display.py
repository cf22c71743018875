"""Display of a privacy/utility trade-off (matplotlib is imported lazily).

It draws what ``_cv_results.py`` reads, placed by ``_axes_layout.py`` and ``_label_layout.py``.
"""

from numbers import Real

import numpy as np

from sklearn_privacy.model_selection import pareto_front, tradeoff_curve
from sklearn_privacy.plotting._cv_results import (
    SWEEP_LEAKAGE_AXIS,
    axis_name,
    format_value,
    search_display_kwargs,
    tradeoff_display_kwargs,
)
from sklearn_privacy.utils._sklearn_compat import check_matplotlib_support

__all__ = ["TradeoffDisplay"]

# One marker per series drawn on an axes, in order, so that series stay apart in
# black and white too; the colours come from matplotlib's colour cycle.
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "<", ">")
_BASELINE_MARKERS = ("*", "X", "P", "h")
_BASELINE_STYLES = (":", "-.", (0, (5, 2, 1, 2)), (0, (1, 3)))
_SERIES_GID = "sklearn_privacy.tradeoff.series"
_LABEL_GID = "sklearn_privacy.tradeoff.label"
_THEORY_GID = "sklearn_privacy.tradeoff.theory"
_BASELINE_GID = "sklearn_privacy.tradeoff.baseline"
_OVERALL_GID = "sklearn_privacy.tradeoff.overall_front"
_PARETO_LABEL = "Pareto front"
_OVERALL_PARETO_LABEL = "Pareto front, all series"
_CONSTRUCTOR_KEYS = (
    "leakage_std",
    "utility_std",
    "param_range",
    "series",
    "leakage_name",
    "utility_name",
    "estimator_name",
    "baselines",
    "theory",
)


def _as_1d(values, name, size=None):
    if values is None:
        return None
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}.")
    if size is not None and array.size != size:
        raise ValueError(f"{name} has {array.size} values but leakage has {size}.")
    return array


def _check_baselines(baselines):
    if baselines is None:
        return {}
    if not isinstance(baselines, dict):
        raise TypeError(
            "baselines must be a dict mapping a name to a utility (a float, drawn as a "
            f"horizontal line) or a (leakage, utility) pair, got {type(baselines).__name__}."
        )
    checked = {}
    for name, value in baselines.items():
        if isinstance(value, Real):
            checked[str(name)] = float(value)
            continue
        pair = np.asarray(value, dtype=float)
        if pair.shape != (2,):
            raise ValueError(
                f"baselines[{name!r}] must be a float (a utility) or a (leakage, utility) "
                f"pair, got {value!r}."
            )
        checked[str(name)] = (float(pair[0]), float(pair[1]))
    return checked


def _check_theory(theory):
    if theory is None:
        return {}
    if not isinstance(theory, dict):
        theory = {"theoretical optimum": theory}
    checked = {}
    for name, curve in theory.items():
        if len(curve) != 2:
            raise ValueError(
                f"theory[{name!r}] must be a (leakage, utility) pair of arrays, got "
                f"{len(curve)} items."
            )
        x = _as_1d(curve[0], f"theory[{name!r}] leakage")
        y = _as_1d(curve[1], f"theory[{name!r}] utility", x.size)
        checked[str(name)] = (x, y)
    return checked


def _step_vertices(leakage, utility):
    """Vertices of the staircase through Pareto points sorted by leakage.

    From each point the utility it reaches is held until the next point's
    leakage (any leakage at least as large can use that point).
    """
    x, y = [leakage[0]], [utility[0]]
    for i in range(1, leakage.size):
        x += [leakage[i], leakage[i]]
        y += [utility[i - 1], utility[i]]
    return np.asarray(x), np.asarray(y)


class TradeoffDisplay:
    """Leakage against utility: one point per operating point of a mechanism.

    The points are drawn with their error bars (when given), the Pareto front
    of each series as a staircase, labels with the knob values, and optional
    baselines (a utility reached without the data, such as the majority class,
    as a horizontal line; an operating point such as "no mechanism" as a
    marked point) and theoretical curves (dashed), for instance from
    :mod:`sklearn_privacy.theory`.

    Build it with :meth:`from_search` (a fitted ``GridSearchCV`` or its
    ``cv_results_``), :meth:`from_estimator` (runs :func:`tradeoff_curve`) or
    :meth:`from_tradeoff` (reuses its result); :meth:`plot` draws it. Several
    displays drawn on one axes (``plot(ax=other.ax_)``) take distinct colours
    and markers and share one legend.

    The point labels and the legend are laid out again each time the figure
    is drawn (after a ``tight_layout``, a resize or a zoom too): a label goes
    beside its point where it covers no marker and no other label, else it is
    hidden; the legend goes where it covers no marker and no label, or beside
    the axes when no such place exists.

    Parameters
    ----------
    leakage : array-like of shape (n_points,)
        Leakage of each point (lower is better), e.g. ``I(S; release)`` in nats.
    utility : array-like of shape (n_points,)
        Utility of each point (higher is better), e.g. accuracy.
    leakage_std : array-like of shape (n_points,), default=None
        Standard deviation of the leakage (e.g. over cross-validation splits),
        drawn as horizontal error bars.
    utility_std : array-like of shape (n_points,), default=None
        Standard deviation of the utility, drawn as vertical error bars.
    param_range : array-like of shape (n_points,), default=None
        Knob value of each point, used as point labels (``None`` entries are
        not labelled).
    series : array-like of shape (n_points,), default=None
        Name of the series (e.g. the mechanism) of each point; each series is
        drawn with its own colour, marker and Pareto front. ``None``: one series.
    leakage_name : str, default="leakage (nats)"
        Label of the leakage axis.
    utility_name : str, default="accuracy"
        Label of the utility axis.
    estimator_name : str, default=None
        Legend label of a single series.
    baselines : dict, default=None
        Reference points by name. A float is a utility reached at no leakage
        cost worth plotting (e.g. ``{"majority class": 0.76}``), drawn as a
        horizontal line; a ``(leakage, utility)`` pair is an operating point
        (e.g. ``{"no mechanism": (0.36, 0.83)}``), drawn as a marked point.
    theory : tuple of two arrays or dict, default=None
        A theoretical curve ``(leakage, utility)``, labelled "theoretical
        optimum", or a dict mapping labels to such pairs; drawn dashed.

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The points of each series (a list when there are several series).
    errorbar_ : matplotlib ErrorbarContainer or list of them
        The error bar containers of each series (``line_`` is their data line).
    pareto_line_ : matplotlib Line2D, list of Line2D or None
        The Pareto staircase of each series with at least two points.
    overall_pareto_line_ : matplotlib Line2D or None
        With several series on the axes (this display's, or those of displays
        drawn there before): the Pareto staircase over all of them (the best
        utility any series reaches at each leakage), or None. A display drawn
        later on the same axes replaces it with the front over all series.
    baseline_lines_ : dict of str to matplotlib Line2D
        The drawn baselines, by name.
    theory_lines_ : dict of str to matplotlib Line2D
        The drawn theoretical curves, by name.
    annotations_ : list of matplotlib Annotation
        The point labels shown by the last layout (a label with no free place
        beside its point is hidden).
    ax_ : matplotlib Axes
        Axes with the trade-off.
    figure_ : matplotlib Figure
        Figure containing the axes.

    See Also
    --------
    sklearn_privacy.model_selection.tradeoff_curve : Leakage and utility along one knob.
    sklearn_privacy.model_selection.pareto_front : The non-dominated points of a trade-off.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_privacy.plotting import TradeoffDisplay
    >>> display = TradeoffDisplay(
    ...     [0.02, 0.30, 0.10], [0.76, 0.81, 0.79],
    ...     param_range=[0.6, 0.99, 0.9],
    ...     baselines={"majority class": 0.75, "no mechanism": (0.36, 0.82)},
    ... )
    >>> display.pareto_indices().tolist()
    [0, 2, 1]
    >>> display = display.plot()
    >>> display.ax_.get_xlabel()
    'leakage (nats)'
    >>> plt.close("all")
    """

    def __init__(
        self,
        leakage,
        utility,
        *,
        leakage_std=None,
        utility_std=None,
        param_range=None,
        series=None,
        leakage_name="leakage (nats)",
        utility_name="accuracy",
        estimator_name=None,
        baselines=None,
        theory=None,
    ):
        self.leakage = _as_1d(leakage, "leakage")
        self.utility = _as_1d(utility, "utility", self.leakage.size)
        self.leakage_std = _as_1d(leakage_std, "leakage_std", self.leakage.size)
        self.utility_std = _as_1d(utility_std, "utility_std", self.leakage.size)
        if param_range is not None and len(param_range) != self.leakage.size:
            raise ValueError(
                f"param_range has {len(param_range)} values but leakage has {self.leakage.size}."
            )
        self.param_range = param_range
        if series is not None:
            series = np.asarray(series, dtype=object)
            if series.shape != self.leakage.shape:
                raise ValueError(
                    f"series has {series.size} values but leakage has {self.leakage.size}."
                )
        self.series = series
        self.leakage_name = leakage_name
        self.utility_name = utility_name
        self.estimator_name = estimator_name
        self.baselines = _check_baselines(baselines)
        self.theory = _check_theory(theory)

    def pareto_indices(self):
        """Indices of the Pareto-optimal points over all series, by increasing leakage.

        Returns
        -------
        ndarray of int
            Indices into ``leakage`` and ``utility``; points with a non-finite
            value are left out.

        See Also
        --------
        sklearn_privacy.model_selection.pareto_front : The function it calls.

        Examples
        --------
        >>> from sklearn_privacy.plotting import TradeoffDisplay
        >>> display = TradeoffDisplay([0.1, 0.3, 0.2], [0.7, 0.9, 0.6])
        >>> display.pareto_indices().tolist()
        [0, 1]
        """
        return self._pareto(np.arange(self.leakage.size))

    def _pareto(self, index):
        finite = index[np.isfinite(self.leakage[index]) & np.isfinite(self.utility[index])]
        if finite.size == 0:
            return finite
        return finite[pareto_front(self.leakage[finite], self.utility[finite])]

    def _series_groups(self):
        if self.series is None:
            return [(None, np.arange(self.leakage.size))]
        keys = list(dict.fromkeys(self.series.tolist()))
        return [(key, np.flatnonzero(self.series == key)) for key in keys]

    def plot(
        self,
        ax=None,
        *,
        name=None,
        show_pareto=True,
        overall_front=True,
        annotate=True,
        legend=True,
        **kwargs,
    ):
        """Draw the points, their error bars, Pareto fronts, baselines and theory.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure otherwise. Series already drawn there
            by another display keep their colours, and the new ones take the
            next colour and marker.
        name : str or list of str, default=None
            Legend label of the series (a list: one per series). ``None``:
            ``estimator_name`` for a single series, the series names otherwise;
            a string with several series prefixes each series name.
        show_pareto : bool, default=True
            Draw the Pareto front of each series as a staircase and, with
            several series, the front over all of them (``overall_front``).
        overall_front : bool, default=True
            With ``show_pareto``, draw the Pareto front over every series on
            the axes (thick, grey): this display's, and those of the displays
            drawn there before it (one per mechanism, say, each from
            :meth:`from_estimator`), which says which mechanism to pick at
            each leakage. Each display drawn on the axes redraws it over all
            of them; drawn while the axes hold at least two series. False
            leaves the axes' front as it is.
        annotate : bool, default=True
            Label points with their knob value (``param_range``), beside the
            point on the side its curve leaves free when possible. A label
            that would cover a marker, another label or the edge of the axes,
            or sit nearer to another point than to its own, is hidden.
        legend : bool, default=True
            Draw (or redraw) the legend of the axes where it covers no marker
            and no label, crossing the fewest lines; when no such place exists
            inside the axes, beside them on the right (a figure the display
            creates is widened for it; on your own axes, make room with
            ``figure.tight_layout()`` or a constrained layout).
        **kwargs
            Passed to ``ax.errorbar`` for every series (e.g. ``color``,
            ``marker``, ``markersize``, ``linestyle``).

        Returns
        -------
        display : TradeoffDisplay
            The display, with ``ax_``, ``figure_`` and the artists set.

        See Also
        --------
        TradeoffDisplay.from_search : Build and plot from a search's results.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn_privacy.plotting import TradeoffDisplay
        >>> funnel = TradeoffDisplay([0.0, 0.1, 0.3], [0.75, 0.78, 0.80],
        ...                          param_range=[0.5, 0.9, 0.99],
        ...                          estimator_name="funnel")
        >>> funnel = funnel.plot()
        >>> other = TradeoffDisplay([0.05, 0.2], [0.74, 0.79])
        >>> other = other.plot(ax=funnel.ax_, name="other")
        >>> [text.get_text() for text in other.ax_.get_legend().get_texts()]
        ['funnel', 'other', 'Pareto front', 'Pareto front, all series']
        >>> plt.close("all")
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        import matplotlib.pyplot as plt

        from sklearn_privacy.plotting._axes_layout import AxesLayout

        own_figure = ax is None
        if own_figure:
            _, ax = plt.subplots()
        groups = self._series_groups()
        names = self._series_names(groups, name)
        n_before = sum(line.get_gid() == _SERIES_GID for line in ax.get_lines())
        lines, containers, fronts = [], [], []
        for k, ((_, index), label) in enumerate(zip(groups, names)):
            style = {
                "marker": _MARKERS[(n_before + k) % len(_MARKERS)],
                "linestyle": "none",
                "markersize": 6,
                "capsize": 2,
                "elinewidth": 0.8,
                **kwargs,
            }
            if label is not None:
                style.setdefault("label", label)
            container = ax.errorbar(
                self.leakage[index],
                self.utility[index],
                xerr=None if self.leakage_std is None else self.leakage_std[index],
                yerr=None if self.utility_std is None else self.utility_std[index],
                **style,
            )
            line = container.lines[0]
            line.set_gid(_SERIES_GID)
            lines.append(line)
            containers.append(container)
            step = self._plot_series_pareto(ax, index, line) if show_pareto else None
            if step is not None:
                fronts.append(step)
        self.overall_pareto_line_ = (
            self._plot_overall_pareto(ax) if show_pareto and overall_front else None
        )
        self.baseline_lines_ = self._plot_baselines(ax)
        self.theory_lines_ = self._plot_theory(ax)
        ax.set_xlabel(self.leakage_name)
        ax.set_ylabel(self.utility_name)
        ax.margins(0.08)
        ax.autoscale_view()
        layout = AxesLayout.of(ax)
        self._labels = []
        if annotate and self.param_range is not None:
            for _, index in groups:
                self._labels += self._annotate(ax, layout, index)
        self.line_ = lines[0] if len(lines) == 1 else lines
        self.errorbar_ = containers[0] if len(containers) == 1 else containers
        self.pareto_line_ = (fronts[0] if len(fronts) == 1 else fronts) if fronts else None
        layout.owns_figure |= own_figure
        if legend and ax.get_legend_handles_labels()[1]:
            layout.legend = _draw_legend(ax)
            # several series: beside the axes, where it never hides a point
            n_series = sum(line.get_gid() == _SERIES_GID for line in ax.get_lines())
            layout.legend_outside |= n_series > 1
        renderer = _renderer(ax.figure)
        layout.update_layout(renderer)
        if layout.owns_figure and layout.legend_outside:
            layout.make_room_for_legend(renderer)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @property
    def annotations_(self):
        """The point labels shown by the last layout (see the class Attributes)."""
        return [text for text in getattr(self, "_labels", []) if text.get_visible()]

    def _series_names(self, groups, name):
        if isinstance(name, (list, tuple)):
            if len(name) != len(groups):
                raise ValueError(f"name has {len(name)} entries for {len(groups)} series.")
            return [str(n) for n in name]
        if len(groups) == 1:
            key = groups[0][0]
            label = name if name is not None else self.estimator_name
            return [label if label is not None else (None if key is None else str(key))]
        if name is None:
            return [str(key) for key, _ in groups]
        return [f"{name}: {key}" for key, _ in groups]

    def _plot_series_pareto(self, ax, index, line):
        """The Pareto staircase of one series, in its colour (None below two points)."""
        front = self._pareto(index)
        if front.size <= 1:
            return None
        has_label = _PARETO_LABEL in ax.get_legend_handles_labels()[1]
        x, y = _step_vertices(self.leakage[front], self.utility[front])
        (step,) = ax.plot(
            x,
            y,
            linestyle="-",
            linewidth=1.0,
            color=line.get_color(),
            alpha=0.5,
            zorder=line.get_zorder() - 0.5,
            label="_nolegend_" if has_label else _PARETO_LABEL,
        )
        return step

    def _plot_overall_pareto(self, ax):
        """The Pareto front across every series on the axes, this display's and others'.

        The front an earlier display drew there is replaced, so that one front
        covers them all; None with a single series, or one point on the front.
        """
        for line in ax.get_lines():
            if line.get_gid() == _OVERALL_GID:
                line.remove()
        series = [line for line in ax.get_lines() if line.get_gid() == _SERIES_GID]
        if len(series) <= 1:
            return None
        leakage = np.concatenate([np.asarray(line.get_xdata(), float) for line in series])
        utility = np.concatenate([np.asarray(line.get_ydata(), float) for line in series])
        finite = np.isfinite(leakage) & np.isfinite(utility)
        leakage, utility = leakage[finite], utility[finite]
        overall = pareto_front(leakage, utility)
        if overall.size <= 1:
            return None
        x, y = _step_vertices(leakage[overall], utility[overall])
        (line,) = ax.plot(
            x,
            y,
            color="0.3",
            linewidth=2.5,
            alpha=0.35,
            zorder=1.5,
            label=_OVERALL_PARETO_LABEL,
            gid=_OVERALL_GID,
        )
        return line

    def _plot_theory(self, ax):
        lines = {}
        for label, (x, y) in self.theory.items():
            (lines[label],) = ax.plot(
                x, y, linestyle="--", color="0.2", linewidth=1.2, label=label, gid=_THEORY_GID
            )
        return lines

    def _plot_baselines(self, ax):
        artists = {}
        n_lines = n_points = 0
        for label, value in self.baselines.items():
            if isinstance(value, float):
                artists[label] = ax.axhline(
                    value,
                    linestyle=_BASELINE_STYLES[n_lines % len(_BASELINE_STYLES)],
                    color="0.4",
                    linewidth=1.2,
                    label=label,
                    gid=_BASELINE_GID,
                )
                n_lines += 1
            else:
                (artists[label],) = ax.plot(
                    [value[0]],
                    [value[1]],
                    marker=_BASELINE_MARKERS[n_points % len(_BASELINE_MARKERS)],
                    markersize=12,
                    linestyle="none",
                    color="0.15",
                    markerfacecolor="gold",
                    label=label,
                    gid=_BASELINE_GID,
                )
                n_points += 1
        return artists

    def _annotate(self, ax, layout, index):
        """Labels of the points of one series, handed to the axes' layout to place.

        Each label knows its neighbours along the series (sorted by leakage),
        from which the layout finds the side of the curve that is free.
        """
        labels = [format_value(self.param_range[i]) for i in index]
        finite = np.isfinite(self.leakage[index]) & np.isfinite(self.utility[index])
        keep = index[[k for k in range(index.size) if labels[k] is not None and finite[k]]]
        if keep.size == 0:
            return []
        points = np.c_[self.leakage, self.utility]
        by_leakage = keep[np.argsort(self.leakage[keep], kind="stable")]
        rank = {i: r for r, i in enumerate(by_leakage)}
        texts = []
        for i in keep:
            r = rank[i]
            text = ax.annotate(
                format_value(self.param_range[i]),
                (self.leakage[i], self.utility[i]),
                textcoords="offset points",
                xytext=(0, 0),
                fontsize=8,
                color="0.2",
                gid=_LABEL_GID,
            )
            left = points[by_leakage[max(r - 1, 0)]]
            right = points[by_leakage[min(r + 1, by_leakage.size - 1)]]
            layout.add_label(text, left, right)
            texts.append(text)
        return texts

    @classmethod
    def from_tradeoff(
        cls, result, *, leakage="leakage", utility="accuracy", negate_leakage=None, **kwargs
    ):
        """Display of a :func:`tradeoff_curve` result (not drawn yet: call :meth:`plot`).

        The means over the splits are the points and the standard deviations
        their error bars.

        Parameters
        ----------
        result : Bunch
            What :func:`~sklearn_privacy.model_selection.tradeoff_curve` returned.
        leakage : str, default="leakage"
            Key of the leakage scorer in ``result.test_scores``.
        utility : str, default="accuracy"
            Key of the utility scorer.
        negate_leakage : bool, default=None
            Whether the leakage scores are negated (the library's leakage and
            adversary scorers return ``-I`` and ``-accuracy`` by default, so
            that greater is better). ``None``: negate them back when every
            score is at most 0.
        **kwargs
            Passed to the constructor (e.g. ``baselines``, ``leakage_name``).
            The axis names default to readable names of the scorer keys
            (``"adversary"`` gives "adversary accuracy").

        Returns
        -------
        display : TradeoffDisplay
            Not drawn; call :meth:`plot`.

        See Also
        --------
        TradeoffDisplay.from_estimator : Run the sweep and plot it.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.utils import Bunch
        >>> from sklearn_privacy.plotting import TradeoffDisplay
        >>> scores = {"leakage": np.array([[-0.1, -0.2], [-0.5, -0.7]]),
        ...           "accuracy": np.array([[0.7, 0.8], [0.9, 0.9]])}
        >>> result = Bunch(param_range=np.array([1, 10], dtype=object),
        ...                test_scores=scores)
        >>> display = TradeoffDisplay.from_tradeoff(result)
        >>> (display.leakage.round(2).tolist(),
        ...  display.leakage_std.round(2).tolist())
        ([0.15, 0.6], [0.05, 0.1])
        """
        points = tradeoff_display_kwargs(
            result, leakage=leakage, utility=utility, negate_leakage=negate_leakage
        )
        return cls(**{**points, **kwargs})

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

        Parameters
        ----------
        estimator : estimator
            A mechanism or a Pipeline holding one.
        X : array-like of shape (n_samples, n_features)
            Data, with the sensitive columns when the mechanism reads S from X.
        y : array-like of shape (n_samples,), default=None
            Target of the downstream task.
        param_name : str
            The knob, e.g. ``"privacy__threshold"``.
        param_range : array-like
            Its values.
        leakage_scorer : callable
            E.g. :func:`~sklearn_privacy.metrics.make_leakage_scorer` ``()``
            or :func:`~sklearn_privacy.metrics.make_adversary_scorer` ``()``.
        utility_scorer : str or callable, default="accuracy"
            A scikit-learn scorer.
        cv : int, cross-validation generator or iterable, default=None
            As in :func:`~sklearn.model_selection.cross_validate`.
        n_jobs : int, default=None
            Parallel jobs.
        params : dict, default=None
            Metadata such as ``sensitive``.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        **kwargs
            Constructor parameters (``baselines``, ``theory``, ``leakage_name``,
            ...) and :meth:`plot` parameters (``name``, ``show_pareto``,
            ``overall_front``, line style). The axis names default to readable
            names of the scorers.

        Returns
        -------
        display : TradeoffDisplay
            Drawn.

        See Also
        --------
        TradeoffDisplay.from_search : The same from a ``GridSearchCV``.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import Pipeline
        >>> from sklearn_privacy import PrivacyFunnelTransformer
        >>> from sklearn_privacy.metrics import make_leakage_scorer
        >>> from sklearn_privacy.plotting import TradeoffDisplay
        >>> rng = np.random.default_rng(0)
        >>> s = rng.integers(0, 2, 400)
        >>> x = 2 * rng.integers(0, 4, 400) + (s ^ (rng.random(400) < 0.2))
        >>> X, y = np.c_[s, x], (x > 3).astype(int)
        >>> privacy = PrivacyFunnelTransformer(sensitive=[0])
        >>> pipe = Pipeline([("privacy", privacy),
        ...                  ("clf", LogisticRegression())])
        >>> display = TradeoffDisplay.from_estimator(
        ...     pipe, X, y, param_name="privacy__threshold",
        ...     param_range=[0.5, 0.9],
        ...     leakage_scorer=make_leakage_scorer(estimator="plugin"), cv=2)
        >>> display.leakage.shape
        (2,)
        >>> plt.close("all")
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
        init_kwargs, plot_kwargs = _split_kwargs(kwargs)
        init_kwargs.setdefault(
            "leakage_name", axis_name("leakage", leakage_scorer, leakage=SWEEP_LEAKAGE_AXIS)
        )
        utility_key = utility_scorer if isinstance(utility_scorer, str) else "utility"
        init_kwargs.setdefault("utility_name", axis_name(utility_key, utility_scorer))
        display = cls.from_tradeoff(result, leakage="leakage", utility="utility", **init_kwargs)
        return display.plot(ax=ax, **plot_kwargs)

    @classmethod
    def from_search(
        cls,
        search,
        *,
        leakage="leakage",
        utility="accuracy",
        param_name=None,
        estimator_name=None,
        baselines=None,
        theory=None,
        negate_leakage=None,
        ax=None,
        **kwargs,
    ):
        """Plot the candidates of a hyper-parameter search over privacy knobs.

        Each candidate is a point at its mean test leakage and mean test
        utility, with the standard deviations over the splits
        (``std_test_<name>``) as error bars and its knob value as label. When
        the grid holds several mechanisms (a list of grids with different
        ``privacy`` steps, or any parameter whose values are estimators), each
        mechanism is a series of its own, named after its class.

        Not ``from_cv_results``: scikit-learn's displays give that name to a
        constructor taking ``cross_validate`` output.

        Parameters
        ----------
        search : fitted search or dict
            A fitted ``GridSearchCV`` or ``RandomizedSearchCV`` (then the
            sign of the leakage scorer and the axis names are read from its
            scorers, and the mechanism's class names the single series), or
            its ``cv_results_``.
        leakage : str, default="leakage"
            Name of the leakage scorer in the search's ``scoring`` dict (keys
            ``mean_test_<leakage>`` and ``std_test_<leakage>``). An adversary
            scorer works too.
        utility : str, default="accuracy"
            Name of the utility scorer.
        param_name : str, default=None
            Parameter whose values label the points (``param_<param_name>``).
            ``None``: in each series, the parameter that varies.
        estimator_name : str, default=None
            Legend label when there is one series.
        baselines : dict, default=None
            See the class parameters, e.g.
            ``{"majority class": 0.76, "no mechanism": (0.36, 0.83)}``.
        theory : tuple of two arrays or dict, default=None
            Theoretical curve(s); see the class parameters.
        negate_leakage : bool, default=None
            Whether ``mean_test_<leakage>`` holds minus the leakage. The
            library's scorers return ``-I(S; release)`` (and minus the
            adversary's accuracy) unless made with ``greater_is_better=True``.
            ``None``: the sign the scorer of a fitted search declares;
            otherwise negate back when every mean is at most 0.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        **kwargs
            Constructor parameters (``leakage_name``, ``utility_name``: by
            default readable names of the scorers, such as "adversary
            accuracy" for an adversary scorer, else the key) and :meth:`plot`
            parameters (``name``, ``show_pareto``, ``overall_front``, ``annotate``,
            line style).

        Returns
        -------
        display : TradeoffDisplay
            Drawn.

        See Also
        --------
        TradeoffDisplay.from_estimator : Run a sweep along one knob and plot it.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.model_selection import GridSearchCV
        >>> from sklearn.pipeline import Pipeline
        >>> from sklearn_privacy import PrivacyFunnelTransformer
        >>> from sklearn_privacy.metrics import (
        ...     make_adversary_scorer, make_leakage_scorer)
        >>> from sklearn_privacy.plotting import TradeoffDisplay
        >>> rng = np.random.default_rng(0)
        >>> s = rng.integers(0, 2, 400)
        >>> x = 2 * rng.integers(0, 4, 400) + (s ^ (rng.random(400) < 0.2))
        >>> X, y = np.c_[s, x], (x > 3).astype(int)
        >>> privacy = PrivacyFunnelTransformer(sensitive=[0])
        >>> pipe = Pipeline([("privacy", privacy),
        ...                  ("clf", LogisticRegression())])
        >>> scoring = {"accuracy": "accuracy",
        ...            "adversary": make_adversary_scorer(),
        ...            "leakage": make_leakage_scorer(estimator="plugin")}
        >>> search = GridSearchCV(
        ...     pipe, {"privacy__threshold": [0.5, 0.7, 0.9]}, cv=2,
        ...     refit=False, scoring=scoring).fit(X, y)
        >>> majority = max(np.mean(y), 1 - np.mean(y))
        >>> display = TradeoffDisplay.from_search(
        ...     search, baselines={"majority class": majority})
        >>> bool(np.all(display.leakage >= 0))
        True
        >>> display = TradeoffDisplay.from_search(search, leakage="adversary")
        >>> display.ax_.get_xlabel()
        'adversary accuracy'
        >>> plt.close("all")
        """
        init_kwargs, plot_kwargs = _split_kwargs(kwargs)
        points = search_display_kwargs(
            search,
            leakage=leakage,
            utility=utility,
            param_name=param_name,
            estimator_name=estimator_name,
            negate_leakage=negate_leakage,
        )
        display = cls(**{**points, **init_kwargs}, baselines=baselines, theory=theory)
        return display.plot(ax=ax, **plot_kwargs)


def _renderer(figure):
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    return get_renderer() if get_renderer is not None else figure._get_renderer()


def _split_kwargs(kwargs):
    init = {k: v for k, v in kwargs.items() if k in _CONSTRUCTOR_KEYS}
    return init, {k: v for k, v in kwargs.items() if k not in _CONSTRUCTOR_KEYS}


def _draw_legend(ax):
    """One legend entry per label, the Pareto front shown neutral."""
    from matplotlib.container import ErrorbarContainer
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    seen, entries = set(), []
    for handle, label in zip(handles, labels):
        if label in seen:
            continue
        seen.add(label)
        if label == _PARETO_LABEL:
            handle = Line2D([], [], color="0.5", linewidth=1.0, alpha=0.7)
        entries.append((handle, label))

    def rank(entry):
        handle, label = entry
        if isinstance(handle, ErrorbarContainer):
            return 0
        if label == _PARETO_LABEL:
            return 1
        return {_THEORY_GID: 2, _BASELINE_GID: 3}.get(handle.get_gid(), 4)

    entries.sort(key=rank)
    # the axes' layout moves it by its lower-left corner
    return ax.legend(
        *zip(*entries),
        loc="lower left",
        bbox_to_anchor=(1.0, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        framealpha=0.85,
    )
