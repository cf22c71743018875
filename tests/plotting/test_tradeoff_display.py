"""TradeoffDisplay draws what it is given (Agg backend, asserts on the plotted data)."""

import itertools
import sys
import warnings

import numpy as np
import pytest
from _mechanisms import NoisyRelease
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils import Bunch

from sklearn_privacy import ConvexPrivacyMapping, PrivacyFunnelTransformer, SubmodularFunnel
from sklearn_privacy.metrics import make_adversary_scorer, make_leakage_scorer
from sklearn_privacy.plotting import TradeoffDisplay

LEAKAGE = np.array([0.10, 0.30, 0.20, 0.40, 0.25])
UTILITY = np.array([0.70, 0.90, 0.60, 0.85, 0.80])


def _brute_force_front(leakage, utility):
    """Points that no other point weakly dominates with one strict inequality."""
    keep = [
        i
        for i in range(len(leakage))
        if not any(
            leakage[j] <= leakage[i]
            and utility[j] >= utility[i]
            and (leakage[j] < leakage[i] or utility[j] > utility[i])
            for j in range(len(leakage))
        )
    ]
    return sorted(keep, key=lambda i: leakage[i])


def _pixels(ax, x, y):
    return ax.transData.transform(np.c_[x, y])


def test_display_from_estimator(pyplot):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 200)
    X = np.c_[s, s + rng.normal(size=200)]
    y = (X[:, 1] > 0.5).astype(int)
    pipe = Pipeline(
        [("privacy", NoisyRelease(sensitive=[0], random_state=0)), ("clf", LogisticRegression())]
    )
    display = TradeoffDisplay.from_estimator(
        pipe,
        X,
        y,
        param_name="privacy__scale",
        param_range=[0.0, 1.0, 4.0],
        leakage_scorer=make_leakage_scorer(estimator="gaussian"),
        cv=3,
    )
    assert display.leakage.shape == (3,)
    assert np.all(display.leakage >= 0)
    assert display.leakage[0] > display.leakage[2]
    assert display.ax_.get_xlabel() == "leakage (nats)"
    np.testing.assert_allclose(display.line_.get_xdata(), display.leakage)
    assert display.pareto_line_ is not None
    # the error bars are the standard deviations over the three folds
    assert display.leakage_std.shape == (3,) and np.all(display.leakage_std > 0)


def test_points_and_error_bars_are_the_inputs(pyplot):
    leak_std = np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    util_std = np.array([0.005, 0.01, 0.015, 0.02, 0.025])
    display = TradeoffDisplay(LEAKAGE, UTILITY, leakage_std=leak_std, utility_std=util_std).plot()
    np.testing.assert_array_equal(display.line_.get_xdata(), LEAKAGE)
    np.testing.assert_array_equal(display.line_.get_ydata(), UTILITY)
    x_bars, y_bars = display.errorbar_.lines[2]
    for i, segment in enumerate(x_bars.get_segments()):
        np.testing.assert_allclose(
            segment,
            [[LEAKAGE[i] - leak_std[i], UTILITY[i]], [LEAKAGE[i] + leak_std[i], UTILITY[i]]],
        )
    for i, segment in enumerate(y_bars.get_segments()):
        np.testing.assert_allclose(
            segment,
            [[LEAKAGE[i], UTILITY[i] - util_std[i]], [LEAKAGE[i], UTILITY[i] + util_std[i]]],
        )


def test_no_error_bars_without_std(pyplot):
    display = TradeoffDisplay(LEAKAGE, UTILITY).plot()
    assert display.errorbar_.lines[2] == ()


def test_pareto_step_vertices(pyplot):
    display = TradeoffDisplay(LEAKAGE, UTILITY).plot()
    front = _brute_force_front(LEAKAGE, UTILITY)
    assert front == [0, 4, 1]
    assert display.pareto_indices().tolist() == front
    # staircase: hold each utility until the next front point's leakage, then rise
    np.testing.assert_allclose(display.pareto_line_.get_xdata(), [0.10, 0.25, 0.25, 0.30, 0.30])
    np.testing.assert_allclose(display.pareto_line_.get_ydata(), [0.70, 0.70, 0.80, 0.80, 0.90])


def test_pareto_front_random_points_against_brute_force(pyplot):
    rng = np.random.default_rng(3)
    leak, util = rng.random(30), rng.random(30)
    display = TradeoffDisplay(leak, util).plot()
    front = _brute_force_front(leak, util)
    x, y = display.pareto_line_.get_xdata(), display.pareto_line_.get_ydata()
    np.testing.assert_allclose(x[::2], leak[front])  # the corners on the front itself
    np.testing.assert_allclose(y[::2], util[front])
    assert np.all(np.diff(x) >= 0) and np.all(np.diff(y) >= 0)


def test_baselines_and_theory(pyplot):
    theory = (np.linspace(0, 0.5, 11), 0.6 + 0.5 * np.linspace(0, 0.5, 11))
    display = TradeoffDisplay(
        LEAKAGE,
        UTILITY,
        estimator_name="funnel",
        baselines={"majority class": 0.76, "no mechanism": (0.65, 0.83)},
        theory=theory,
    ).plot()
    majority = display.baseline_lines_["majority class"]
    np.testing.assert_allclose(majority.get_ydata(), [0.76, 0.76])
    point = display.baseline_lines_["no mechanism"]
    np.testing.assert_allclose(np.c_[point.get_xdata(), point.get_ydata()], [[0.65, 0.83]])
    curve = display.theory_lines_["theoretical optimum"]
    np.testing.assert_allclose(curve.get_xdata(), theory[0])
    np.testing.assert_allclose(curve.get_ydata(), theory[1])
    assert curve.get_linestyle() == "--"
    labels = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert labels == ["funnel", "Pareto front", "theoretical optimum", "majority class",
                      "no mechanism"]  # fmt: skip


def test_theory_dict(pyplot):
    curves = {"GIB optimum": ([0, 1], [0.5, 1.0]), "L2 optimum": ([0, 1], [0.5, 0.9])}
    display = TradeoffDisplay(LEAKAGE, UTILITY, theory=curves).plot()
    assert set(display.theory_lines_) == set(curves)
    np.testing.assert_allclose(display.theory_lines_["L2 optimum"].get_ydata(), [0.5, 0.9])


def test_several_displays_on_one_axis(pyplot):
    first = TradeoffDisplay(LEAKAGE, UTILITY, param_range=[1, 2, 3, 4, 5]).plot(name="funnel")
    second = TradeoffDisplay(LEAKAGE + 0.05, UTILITY - 0.1).plot(ax=first.ax_, name="convex")
    third = TradeoffDisplay(LEAKAGE * 2, UTILITY - 0.2).plot(ax=first.ax_, name="PPAN")
    lines = [first.line_, second.line_, third.line_]
    assert len({line.get_color() for line in lines}) == 3
    assert len({line.get_marker() for line in lines}) == 3
    legend = first.ax_.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    # one entry for the fronts of the series, one for the front across them (issue 46)
    assert labels == ["funnel", "convex", "PPAN", "Pareto front", "Pareto front, all series"]
    # the legend covers no data point
    fig = first.figure_
    fig.canvas.draw()
    box = legend.get_window_extent()
    for line in lines:
        for px, py in _pixels(first.ax_, line.get_xdata(), line.get_ydata()):
            assert not (box.x0 <= px <= box.x1 and box.y0 <= py <= box.y1)


def test_point_labels_do_not_collide(pyplot):
    # a dense curve: 40 points; labels that would overlap are left out
    leak = np.linspace(0, 0.4, 40)
    util = 0.75 + 0.2 * np.sqrt(leak / 0.4)
    fig, ax = pyplot.subplots(figsize=(5, 4))
    display = TradeoffDisplay(leak, util, param_range=np.round(np.linspace(0.5, 1, 40), 3)).plot(
        ax=ax
    )
    texts = display.annotations_
    assert 3 <= len(texts) < 40
    fig.canvas.draw()
    boxes = [t.get_window_extent() for t in texts]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    # every label names its own point's knob value
    for text in texts:
        i = int(np.argmin(np.abs(leak - text.xy[0])))
        assert text.get_text() == f"{np.round(np.linspace(0.5, 1, 40), 3)[i]:g}"


def test_sparse_points_all_labelled(pyplot):
    display = TradeoffDisplay(LEAKAGE, UTILITY, param_range=["a", "b", "c", "d", "e"]).plot()
    assert sorted(t.get_text() for t in display.annotations_) == ["a", "b", "c", "d", "e"]


def _census_search_data():
    """S, a release column x correlated with S, a target y, and the pipeline the searches tune."""
    rng = np.random.default_rng(0)
    n = 600
    s = rng.integers(0, 2, n)
    x = 2 * rng.integers(0, 4, n) + (s ^ (rng.random(n) < 0.2))
    y = ((x // 2) >= 2) ^ (rng.random(n) < 0.1)
    pipe = Pipeline(
        [
            ("privacy", PrivacyFunnelTransformer(sensitive=[0])),
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("clf", LogisticRegression()),
        ]
    )
    return s, x, y, pipe


@pytest.fixture(scope="module")
def two_mechanism_search():
    s, x, y, pipe = _census_search_data()
    X = np.c_[s, x]
    grid = [
        {
            "privacy": [PrivacyFunnelTransformer(sensitive=[0])],
            "privacy__threshold": [0.6, 0.75, 0.9],
        },
        {
            "privacy": [ConvexPrivacyMapping(sensitive=[0], random_state=0)],
            "privacy__max_distortion": [0.1, 0.3, 0.6],
        },
    ]
    scoring = {"accuracy": "accuracy", "leakage": make_leakage_scorer(estimator="plugin")}
    return GridSearchCV(pipe, grid, cv=2, refit=False, scoring=scoring).fit(X, y)


def test_from_search_two_mechanisms(pyplot, two_mechanism_search):
    results = two_mechanism_search.cv_results_
    display = TradeoffDisplay.from_search(results, baselines={"majority class": 0.5})
    funnel, convex = display.line_
    np.testing.assert_allclose(funnel.get_xdata(), -results["mean_test_leakage"][:3])
    np.testing.assert_allclose(funnel.get_ydata(), results["mean_test_accuracy"][:3])
    np.testing.assert_allclose(convex.get_xdata(), -results["mean_test_leakage"][3:])
    np.testing.assert_allclose(convex.get_ydata(), results["mean_test_accuracy"][3:])
    assert funnel.get_color() != convex.get_color()
    assert funnel.get_marker() != convex.get_marker()
    labels = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert labels[:2] == [
        "PrivacyFunnelTransformer (threshold)",
        "ConvexPrivacyMapping (max_distortion)",
    ]
    assert "majority class" in labels
    # error bars are the standard deviations over the splits
    _, y_bars = display.errorbar_[1].lines[2]
    half = np.diff(np.asarray(y_bars.get_segments())[:, :, 1], axis=1).ravel() / 2
    np.testing.assert_allclose(half, results["std_test_accuracy"][3:])
    x_bars, _ = display.errorbar_[0].lines[2]
    half = np.diff(np.asarray(x_bars.get_segments())[:, :, 0], axis=1).ravel() / 2
    np.testing.assert_allclose(half, results["std_test_leakage"][:3])
    # points labelled with each mechanism's own knob
    assert display.param_range == ["0.6", "0.75", "0.9", "0.1", "0.3", "0.6"]
    assert display.ax_.get_xlabel() == "leakage I(S; release) (nats)"


def test_from_search_sign(pyplot, two_mechanism_search):
    results = two_mechanism_search.cv_results_
    raw = TradeoffDisplay.from_search(results, negate_leakage=False)
    np.testing.assert_allclose(raw.leakage, results["mean_test_leakage"])
    # a fitted search says how its scorer is signed
    from_search = TradeoffDisplay.from_search(two_mechanism_search)
    np.testing.assert_allclose(from_search.leakage, -results["mean_test_leakage"])


def test_from_search_param_name(pyplot, two_mechanism_search):
    display = TradeoffDisplay.from_search(
        two_mechanism_search.cv_results_, param_name="privacy__threshold"
    )
    assert display.param_range == ["0.6", "0.75", "0.9", None, None, None]
    assert [t.get_text() for t in display.annotations_] == ["0.6", "0.75", "0.9"]


def test_from_search_single_mechanism(pyplot):
    results = {
        "params": [{"privacy__threshold": t} for t in (0.5, 0.9)],
        "param_privacy__threshold": np.ma.masked_array([0.5, 0.9], dtype=object),
        "mean_test_leakage": np.array([-0.01, -0.2]),
        "std_test_leakage": np.array([0.001, 0.02]),
        "mean_test_accuracy": np.array([0.76, 0.8]),
        "std_test_accuracy": np.array([0.01, 0.01]),
    }
    display = TradeoffDisplay.from_search(results, estimator_name="funnel")
    np.testing.assert_allclose(display.line_.get_xdata(), [0.01, 0.2])
    assert display.param_range == ["0.5", "0.9"]
    assert [t.get_text() for t in display.ax_.get_legend().get_texts()][0] == "funnel"


def test_errors(pyplot):
    with pytest.raises(ValueError, match="mean_test_privacy"):
        TradeoffDisplay.from_search(
            {"params": [{}], "mean_test_accuracy": [0.5], "mean_test_leakage": [0.1]},
            leakage="privacy",
        )
    with pytest.raises(ValueError, match="utility has 2 values"):
        TradeoffDisplay([0.1, 0.2, 0.3], [0.5, 0.6])
    with pytest.raises(ValueError, match="baselines\\['x'\\]"):
        TradeoffDisplay([0.1], [0.5], baselines={"x": (1, 2, 3)})
    with pytest.raises(TypeError, match="baselines must be a dict"):
        TradeoffDisplay([0.1], [0.5], baselines=[0.5])
    with pytest.raises(ValueError, match="name has 1 entries for 2 series"):
        TradeoffDisplay([0.1, 0.2], [0.5, 0.6], series=["a", "b"]).plot(name=["a"])


def test_from_search_refuses_cross_validate_output(pyplot):
    X = np.c_[np.arange(20) % 2, np.arange(20)]
    y = (np.arange(20) > 9).astype(int)
    results = cross_validate(LogisticRegression(), X, y, cv=2)
    with pytest.raises(TypeError, match="cross_validate output"):
        TradeoffDisplay.from_search(results)
    with pytest.raises(TypeError, match="fitted search"):
        TradeoffDisplay.from_search([0.1, 0.2])


def test_plot_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="TradeoffDisplay.plot requires matplotlib"):
        TradeoffDisplay(LEAKAGE, UTILITY).plot()


def _result_bunch(keys):
    scores = {key: -np.array([[0.1, 0.2], [0.3, 0.4]]) for key in keys}
    scores["accuracy"] = np.array([[0.7, 0.8], [0.9, 0.9]])
    return Bunch(param_range=np.array([1.0, 2.0]), test_scores=scores)


def test_axis_names_are_readable(pyplot, two_mechanism_search):
    # a known key is named; an unknown one labels its axis as it is
    results = {
        "params": [{"privacy__threshold": t} for t in (0.5, 0.9)],
        "param_privacy__threshold": np.ma.masked_array([0.5, 0.9], dtype=object),
        "mean_test_adversary": np.array([-0.6, -0.7]),
        "mean_test_attack_rate": np.array([0.6, 0.7]),
        "mean_test_balanced_accuracy": np.array([0.7, 0.8]),
    }
    display = TradeoffDisplay.from_search(results, leakage="adversary", utility="balanced_accuracy")
    assert display.ax_.get_xlabel() == "adversary accuracy"
    assert display.ax_.get_ylabel() == "balanced accuracy"
    np.testing.assert_allclose(display.leakage, [0.6, 0.7])
    display = TradeoffDisplay.from_search(results, leakage="attack_rate", utility="adversary")
    assert display.ax_.get_xlabel() == "attack_rate"
    # a fitted search names its scorers by what they are, whatever their keys
    search = two_mechanism_search
    renamed = {
        "params": search.cv_results_["params"],
        "mean_test_util": search.cv_results_["mean_test_accuracy"],
        "mean_test_priv": search.cv_results_["mean_test_leakage"],
    }
    search = Bunch(
        cv_results_=renamed,
        scoring={"util": "accuracy", "priv": make_leakage_scorer(estimator="plugin")},
        estimator=search.estimator,
    )
    display = TradeoffDisplay.from_search(search, leakage="priv", utility="util")
    assert display.ax_.get_xlabel() == "leakage I(S; release) (nats)"
    assert display.ax_.get_ylabel() == "accuracy"
    # from_tradeoff and from_estimator name the axes the same way
    display = TradeoffDisplay.from_tradeoff(_result_bunch(["adversary"]), leakage="adversary")
    assert display.leakage_name == "adversary accuracy"
    assert display.utility_name == "accuracy"
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 200)
    X = np.c_[s, s + rng.normal(size=200)]
    pipe = Pipeline(
        [("privacy", NoisyRelease(sensitive=[0], random_state=0)), ("clf", LogisticRegression())]
    )
    display = TradeoffDisplay.from_estimator(
        pipe,
        X,
        (X[:, 1] > 0.5).astype(int),
        param_name="privacy__scale",
        param_range=[0.0, 4.0],
        leakage_scorer=make_adversary_scorer(),
        utility_scorer="balanced_accuracy",
        cv=2,
    )
    assert display.ax_.get_xlabel() == "adversary accuracy"
    assert display.ax_.get_ylabel() == "balanced accuracy"


# -- layout of the labels and the legend on a three-mechanism plot --------------------


def _marker_boxes(ax):
    """Pixel boxes of the data markers (error bar caps are not points)."""
    dpi = ax.figure.dpi
    boxes = []
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "none", "", " ", "|", "_"):
            continue
        half = (line.get_markersize() + line.get_markeredgewidth()) * dpi / 72 / 2
        xy = np.c_[line.get_xdata(), line.get_ydata()].astype(float)
        for px, py in line.get_transform().transform(xy[np.isfinite(xy).all(axis=1)]):
            boxes.append((px - half, py - half, px + half, py + half))
    return boxes


def _overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _overlap_counts(ax):
    """Rendered label boxes against markers and each other; the legend against both."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    labels = [
        tuple(t.get_window_extent(renderer).extents)
        for t in ax.texts
        if t.get_gid() == "sklearn_privacy.tradeoff.label" and t.get_visible()
    ]
    markers = _marker_boxes(ax)
    counts = {
        "labels": len(labels),
        "label_label": sum(_overlaps(a, b) for a, b in itertools.combinations(labels, 2)),
        "label_marker": sum(_overlaps(a, m) for a in labels for m in markers),
        "legend_marker": 0,
        "legend_point": 0,
        "legend_label": 0,
    }
    legend = ax.get_legend()
    if legend is not None:
        box = tuple(legend.get_window_extent(renderer).extents)
        counts["legend_marker"] = sum(_overlaps(box, m) for m in markers)
        counts["legend_point"] = sum(
            box[0] <= (m[0] + m[2]) / 2 <= box[2] and box[1] <= (m[1] + m[3]) / 2 <= box[3]
            for m in markers
        )
        counts["legend_label"] = sum(_overlaps(box, a) for a in labels)
    return counts


@pytest.fixture(scope="module")
def three_mechanism_search():
    s, x, y, pipe = _census_search_data()
    grid = [
        {
            "privacy": [PrivacyFunnelTransformer(sensitive=[0])],
            "privacy__threshold": [0.5, 0.6, 0.75, 0.9, 0.97],
        },
        {"privacy": [SubmodularFunnel(sensitive=[0])], "privacy__lam": [0.5, 0.75, 1, 2, 5]},
        {
            "privacy": [ConvexPrivacyMapping(sensitive=[0], random_state=0)],
            "privacy__max_distortion": [0.05, 0.1, 0.2, 0.3, 0.6],
        },
    ]
    scoring = {
        "accuracy": "accuracy",
        "leakage": make_leakage_scorer(estimator="plugin"),
        "adversary": make_adversary_scorer(),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "merged nothing" at the extremes
        search = GridSearchCV(pipe, grid, cv=2, refit=False, scoring=scoring)
        return search.fit(np.c_[s, x], y)


@pytest.mark.parametrize("leakage", ["leakage", "adversary"])
def test_three_mechanisms_labels_and_legend_cover_nothing(pyplot, three_mechanism_search, leakage):
    display = TradeoffDisplay.from_search(
        three_mechanism_search, leakage=leakage, baselines={"majority class": 0.5}
    )
    ax = display.ax_
    assert len(display.line_) == 3
    counts = _overlap_counts(ax)
    assert counts["labels"] >= 10  # of 15 points: hiding every label is no way out
    assert counts == {**counts, "label_label": 0, "label_marker": 0}
    assert counts["legend_marker"] == counts["legend_point"] == counts["legend_label"] == 0
    # several series: the legend is beside the axes, in the widened figure
    fig_box = display.figure_.bbox
    legend_box = ax.get_legend().get_window_extent()
    assert legend_box.x0 > ax.bbox.x1 and legend_box.x1 <= fig_box.x1
    # each label names its own point's knob, and its point is the nearest to it
    renderer = display.figure_.canvas.get_renderer()
    points = np.c_[display.leakage, display.utility]
    pixels = ax.transData.transform(points)
    for text in display.annotations_:
        i = int(np.argmin(np.hypot(*(points - text.xy).T)))
        assert text.get_text() == display.param_range[i]
        centre = np.asarray(text.get_window_extent(renderer).get_points()).mean(axis=0)
        assert int(np.argmin(np.hypot(*(pixels - centre).T))) == i
    expected = {"leakage": "leakage I(S; release) (nats)", "adversary": "adversary accuracy"}
    assert ax.get_xlabel() == expected[leakage]


def test_layout_follows_resizes_and_shared_axes(pyplot, three_mechanism_search):
    # two panels sharing y: the second display rescales the first one's axes, and
    # tight_layout and a resize happen after both were plotted
    fig, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, key in ((left, "leakage"), (right, "adversary")):
        TradeoffDisplay.from_search(three_mechanism_search, leakage=key, ax=ax)
    fig.tight_layout()
    for size in ((10, 4.2), (8, 3.5)):
        fig.set_size_inches(*size)
        for ax in (left, right):
            counts = _overlap_counts(ax)
            assert counts["labels"] >= 6
            assert counts["label_label"] == counts["label_marker"] == 0
            assert counts["legend_marker"] == counts["legend_label"] == 0


def test_single_series_legend_inside_where_free(pyplot):
    # points along the diagonal: the upper-left corner is free
    display = TradeoffDisplay(
        [0.1, 0.2, 0.3, 0.4],
        [0.6, 0.7, 0.8, 0.9],
        param_range=[1, 2, 3, 4],
        estimator_name="funnel",
        baselines={"no mechanism": (0.45, 0.92)},
    ).plot()
    ax = display.ax_
    counts = _overlap_counts(ax)
    assert counts["labels"] == 4
    assert counts["legend_marker"] == counts["legend_label"] == 0
    legend_box = ax.get_legend().get_window_extent()
    assert ax.bbox.x0 < legend_box.x0 and legend_box.x1 < ax.bbox.x1  # inside
    assert legend_box.y0 > ax.bbox.y0 + ax.bbox.height / 2  # in the upper half, which is free


def test_axis_name_reads_what_a_privacy_scorer_measures():
    """A privacy scorer under any key labels its axis by its public ``measure``."""
    from sklearn_privacy.metrics import make_distortion_scorer
    from sklearn_privacy.plotting._cv_results import axis_name

    for make, label in [
        (make_leakage_scorer, "leakage I(S; release) (nats)"),
        (make_adversary_scorer, "adversary accuracy"),
        (make_distortion_scorer, "distortion"),
    ]:
        assert axis_name("score_1", make()) == label
    assert axis_name("score_1", make_leakage_scorer(), leakage="leakage (nats)") == "leakage (nats)"
    assert axis_name("score_1", "balanced_accuracy") == "balanced accuracy"
    assert axis_name("score_1") == "score_1"


def test_several_series_draw_one_pareto_front_across_them(pyplot):
    # issue 36: one front per mechanism and none across them, the comparison a user makes
    rng = np.random.default_rng(7)
    leak, util = rng.random(24), rng.random(24)
    series = np.repeat(["funnel", "convex", "ppan"], 8)
    display = TradeoffDisplay(leak, util, series=series).plot()
    front = _brute_force_front(leak, util)  # over all 24 points, whatever their series
    assert len(set(series[front])) > 1  # the overall front mixes mechanisms here
    line = display.overall_pareto_line_
    x, y = line.get_xdata(), line.get_ydata()
    np.testing.assert_allclose(x[::2], leak[front])
    np.testing.assert_allclose(y[::2], util[front])
    assert len(display.pareto_line_) == 3  # the per-series fronts stay
    labels = display.ax_.get_legend_handles_labels()[1]
    assert labels.count("Pareto front, all series") == 1
    # one series, or show_pareto=False: no overall front
    assert TradeoffDisplay(leak, util).plot().overall_pareto_line_ is None
    hidden = TradeoffDisplay(leak, util, series=series).plot(show_pareto=False)
    assert hidden.overall_pareto_line_ is None


def test_displays_drawn_on_one_axes_share_one_pareto_front_across_them(pyplot):
    """Issue 46: one display per mechanism (from_estimator each), drawn on one axes, drew a
    front per mechanism and none across them."""
    from sklearn_privacy.model_selection import pareto_front

    rng = np.random.default_rng(11)
    points = {name: (rng.random(7), rng.random(7)) for name in ("funnel", "convex", "ppan")}
    ax = None
    for name, (leak, util) in points.items():
        display = TradeoffDisplay(leak, util, estimator_name=name).plot(ax=ax)
        ax = display.ax_
    leak = np.concatenate([leak for leak, _ in points.values()])
    util = np.concatenate([util for _, util in points.values()])
    front = pareto_front(leak, util)  # over the union of the three displays' points
    series = np.repeat(list(points), 7)
    assert len(set(series[front])) > 1  # the front mixes mechanisms here
    line = display.overall_pareto_line_
    np.testing.assert_array_equal(line.get_xdata()[::2], leak[front])
    np.testing.assert_array_equal(line.get_ydata()[::2], util[front])
    np.testing.assert_array_equal(line.get_ydata()[1::2], util[front][:-1])  # the staircase
    # one front on the axes: the ones the first displays drew were replaced
    overall = [ln for ln in ax.get_lines() if ln.get_label() == "Pareto front, all series"]
    assert overall == [line]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels.count("Pareto front, all series") == 1
    # overall_front=False: the display draws none (its own front stays)
    solo = TradeoffDisplay(*points["funnel"]).plot()
    other = TradeoffDisplay(*points["ppan"]).plot(ax=solo.ax_, overall_front=False)
    assert other.overall_pareto_line_ is None and other.pareto_line_ is not None
    assert "Pareto front, all series" not in [ln.get_label() for ln in solo.ax_.get_lines()]
