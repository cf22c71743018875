"""The README's example runs as written (with the offline data as data home)."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(data_home, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a python example"
    monkeypatch.setenv("SKLEARN_PRIVACY_DATA", str(data_home))
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    search = namespace["search"]
    results = search.cv_results_
    leakage = -results["mean_test_leakage"]
    accuracy = results["mean_test_accuracy"]
    # a real trade-off: distinct leakages and accuracies, both growing with the threshold
    assert len(np.unique(np.round(leakage, 3))) >= 3
    assert len(np.unique(np.round(accuracy, 3))) >= 3
    assert np.all(np.diff(leakage) > 0) and leakage[0] < 0.01 < 0.2 < leakage[-1]
    majority = np.mean(namespace["y"] == namespace["y"].mode()[0])
    assert accuracy.max() > majority + 0.05
    # the chosen point leaks at most 0.1 nats and beats the majority class
    best = search.best_index_
    assert leakage[best] <= 0.1 and accuracy[best] > majority + 0.01
    assert "chosen:" in capsys.readouterr().out
