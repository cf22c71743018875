"""The README's example runs as written (with the offline data as data home)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(data_home, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a python example"
    monkeypatch.setenv("SKLEARN_PRIVACY_DATA", str(data_home))
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    search = namespace["search"]
    leakage = -search.cv_results_["mean_test_leakage"]
    # the funnel trades leakage of sex for disclosure: lower threshold, less leakage
    assert leakage[0] < leakage[-1]
    assert search.best_score_ > 0.75
