"""The main job (``python -m sklearn_privacy``) on small settings."""

import numpy as np
import pytest

from sklearn_privacy._demo import main, run_adult, run_breast_cancer


def test_breast_cancer_job_prints_table_and_writes_plot(tmp_path, capsys, pyplot):
    out = tmp_path / "tradeoff.png"
    assert main(["--splits", "2", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "majority-class accuracy" in text
    assert text.count("\n") > 10
    assert out.stat().st_size > 1000


def test_breast_cancer_accuracy_grows_with_epsilon():
    _, _, result, baselines = run_breast_cancer(n_splits=3, epsilons=(0.5, 1000.0))
    acc = result.mean_test_scores["accuracy"]
    # at epsilon = 0.5 the release is noise: the majority class; at 1000 near the non-private
    assert acc[0] == pytest.approx(baselines["majority"], abs=0.03)
    assert acc[1] > 0.9


def test_adult_job_reduces_leakage(data_home):
    _, table, result, _ = run_adult(data_home, thresholds=(1.0, 0.5), n_splits=2)
    leakage = -result.mean_test_scores["leakage"]
    assert leakage[0] > 0.3  # relationship (husband/wife) reveals sex
    assert leakage[1] < 0.05
    assert np.all(result.mean_test_scores["accuracy"] > 0.7)
    assert "I(sex; release)" in table
