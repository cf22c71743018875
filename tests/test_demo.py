"""The main job (``python -m sklearn_privacy``) on small settings."""

import re

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy import _demo
from sklearn_privacy._demo import (
    load_adult,
    main,
    make_synthetic_census,
    run_breast_cancer,
    run_funnel,
)


def _plugin_mutual_information(a, b):
    """I(a; b) in nats from the contingency table (independent of the library)."""
    table = pd.crosstab(a, b).to_numpy(dtype=float)
    p = table / table.sum()
    outer = p.sum(axis=1, keepdims=True) * p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float(np.sum(p[nz] * np.log(p[nz] / outer[nz])))


def _joint(frame):
    first, *rest = (frame[c].astype(str) for c in _demo.RELEASED)
    return first.str.cat(rest, sep="|")  # agg(axis=1) transposes: minutes at 30000 rows


def test_synthetic_job_prints_table_and_writes_plot(tmp_path, capsys, pyplot):
    out = tmp_path / "tradeoff.png"
    argv = ["--synthetic", "--splits", "2", "--thresholds", "0.95,0.8", "--output", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith("SYNTHETIC census-like data")
    for row in ("none (no mechanism)", "0.95", "0.8", "majority guess"):
        assert row in text
    assert "always guessing the majority sex" in text  # the adversary's comparison
    assert out.stat().st_size > 10_000


def test_missing_adult_falls_back_with_one_line(tmp_path, capsys, monkeypatch, pyplot):
    def offline(remote, path):
        raise FileNotFoundError(f"Data file not found: {path}")

    monkeypatch.setattr("sklearn_privacy.datasets._base._download", offline)
    home = tmp_path / "home"
    argv = ["--data-home", str(home), "--splits", "2", "--thresholds", "0.8",
            "--output", str(tmp_path / "t.png")]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert str(home / "adult" / "adult.data") in lines[0]
    assert "SYNTHETIC" in lines[0] and "--data-home" in lines[0]
    assert lines[1].startswith("SYNTHETIC census-like data")


def test_synthetic_data_leaks_sex_through_relationship():
    frame, y, name = make_synthetic_census(n_samples=5000, random_state=1)
    assert list(frame.columns) == _demo.RELEASED + ["sex"]
    assert "SYNTHETIC" in name
    husbands = frame["relationship"] == "Husband"
    assert set(frame.loc[husbands, "sex"]) == {"Male"}
    assert _plugin_mutual_information(frame["sex"], frame["relationship"]) > 0.2
    assert 0.6 < max(y.mean(), 1 - y.mean()) < 0.8


def test_funnel_story_on_synthetic_data():
    frame, y, _ = make_synthetic_census(n_samples=8000)
    result, baselines = run_funnel(frame, y, thresholds=(0.95, 0.8), n_splits=2)
    leak = -result.mean_test_scores["leakage"]
    plain_leak = -baselines["no mechanism"].mean_test_scores["leakage"][0]
    assert plain_leak > leak[0] > leak[1]
    assert plain_leak == pytest.approx(_plugin_mutual_information(frame["sex"], _joint(frame)),
                                       abs=0.03)  # fmt: skip
    assert result.mean_test_scores["accuracy"][1] > np.mean(baselines["majority class"])


def test_adult_story(data_home):
    frame, y, name = load_adult(data_home)
    assert "UCI Adult" in name and len(frame) == 32561
    result, baselines = run_funnel(frame, y, thresholds=(0.95, 0.8), n_splits=2)
    leak = -result.mean_test_scores["leakage"]
    accuracy = result.mean_test_scores["accuracy"]
    adversary = -result.mean_test_scores["adversary"]
    plain = baselines["no mechanism"].mean_test_scores
    # no mechanism: the release is the columns, whose leakage is I(sex; columns)
    oracle = _plugin_mutual_information(frame["sex"], _joint(frame))
    assert -plain["leakage"][0] == pytest.approx(oracle, abs=0.02)
    assert oracle > 0.25  # relationship (husband, wife) reveals sex
    # leakage falls with the threshold, income accuracy stays above the majority class
    assert -plain["leakage"][0] > leak[0] > leak[1] and leak[1] < 0.03
    majority = max(np.mean(y), 1 - np.mean(y))
    assert np.mean(baselines["majority class"]) == pytest.approx(majority, abs=0.005)
    assert np.all(accuracy > majority) and plain["accuracy"][0] > accuracy[0] > accuracy[1]
    # the adversary falls to the majority guess of sex as the leakage goes
    majority_sex = np.mean(frame["sex"] == "Male")
    assert np.mean(baselines["majority sex"]) == pytest.approx(majority_sex, abs=0.005)
    assert -plain["adversary"][0] > adversary[0] > adversary[1]
    assert adversary[1] == pytest.approx(majority_sex, abs=0.01)


def test_dp_job_prints_table_and_writes_plot(tmp_path, capsys, pyplot):
    out = tmp_path / "dp.png"
    assert main(["--dp", "--splits", "2", "--output", str(out)]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "majority class" in text and "no mechanism" in text
    # every column of every epsilon's row has its spread over the splits, and the
    # distortion has the features' variance as its reference
    rows = [line for line in text.splitlines() if re.match(r"^\s+\d+(\.\d+)?\s{2}", line)]
    assert len(rows) == 8 and all(row.count("±") == 4 for row in rows)
    assert "the features' variance E||x - mean||^2 = 1.684" in text
    # progress: one line per epsilon and fit
    assert captured.err.count(" done (") == 16
    # no runaway estimate: every number of the table is sane
    numbers = [float(v) for v in re.findall(r"\d+\.?\d*(?:e[-+]?\d+)?", text)]
    assert max(numbers) < 1e6
    assert out.stat().st_size > 10_000


@pytest.mark.filterwarnings("ignore::sklearn_privacy.exceptions.PrivacyLeakWarning")
def test_breast_cancer_private_fit_is_never_much_worse_than_nothing():
    # seeded noise: with fresh noise these medians over 4 splits are random, and in 300
    # fresh runs |private - public| at epsilon 10 had 99th percentile 0.049 and maximum
    # 0.058 (one CI run failed the bound below at 0.054); epsilon 2's worst was 0.030
    # under the majority. The seed makes the assertion a regression test of the numbers.
    _, _, results, baselines = run_breast_cancer(
        n_splits=4, epsilons=(0.5, 2.0, 10.0, 1000.0), random_state=0
    )
    private = np.median(results["private"].test_scores["accuracy"], axis=1)
    public = np.median(results["public"].test_scores["accuracy"], axis=1)
    majority = baselines["majority"].mean()
    # at epsilon 2 the release carries little: about the majority class, not far below
    # (at 0.5 the private covariance is noise and the fit warns; a classifier trained on
    # that noise can fall to 0.57)
    assert private[1] >= majority - 0.03
    assert abs(private[2] - public[2]) <= 0.05  # epsilon 10
    assert private[3] > 0.85 and private[3] >= public[3] - 0.03  # epsilon 1000


def _fake_dp_results():
    """Two fits over 3 epsilons and 5 splits; one split's distortion is 100x the others'."""
    from sklearn.utils import Bunch

    distortion = np.array([[1.0, 1.0, 1.0, 1.0, 100.0], [2.0, 2.1, 1.9, 2.0, 2.0], [1.0] * 5])
    accuracy = np.full((3, 5), 0.9)
    result = Bunch(
        param_range=np.array([0.5, 5.0, 50.0]),
        test_scores={"accuracy": accuracy, "distortion": -distortion},
    )
    baselines = {"majority": np.full(5, 0.63), "no mechanism": np.full(5, 0.95), "variance": 1.7}
    return {"private": result, "public": result}, baselines


def test_dp_job_writes_its_own_figure_by_default(tmp_path, capsys, monkeypatch, pyplot):
    # issue 36: both jobs printed "plot written to tradeoff.png", the second overwriting the first
    results, baselines = _fake_dp_results()
    monkeypatch.setattr(
        _demo, "run_breast_cancer", lambda **kwargs: ("title", "table", results, baselines)
    )
    monkeypatch.chdir(tmp_path)
    assert main(["--dp"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "plot written to tradeoff_dp.png"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tradeoff_dp.png"]


def test_dp_figure_error_bars_stay_on_the_log_axis(tmp_path, pyplot, monkeypatch):
    # issue 36: mean - std of a skewed distortion fell below 0, off the log axis
    results, baselines = _fake_dp_results()
    figures = []
    monkeypatch.setattr(pyplot, "close", figures.append)
    _demo.plot_breast_cancer(results, baselines, tmp_path / "dp.png")
    right = figures[0].axes[1]
    assert right.get_yscale() == "log"
    for container in right.containers:
        for segment in container.lines[2][0].get_segments():
            low, high = sorted(segment[:, 1])
            assert 0 < low <= high
    # the bars reach over the middle of the splits: 1 to 100 at epsilon 0.5
    bars = [sorted(s[:, 1]) for s in right.containers[0].lines[2][0].get_segments()]
    assert bars[0][0] == pytest.approx(1.0) and bars[0][1] > 20.0
