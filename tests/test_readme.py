"""The README's example runs as written (with the offline data as data home) and its
printed output, pasted in the README, shows a real privacy/accuracy trade-off."""

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
NUMBER = re.compile(r"\d+\.\d+")


def _example():
    text = README.read_text()
    example = text[text.index("## Example") :]
    code = re.search(r"```python\n(.*?)```", example, flags=re.S).group(1)
    output = re.search(r"```text\n(.*?)```", example, flags=re.S).group(1)
    return code, output


@pytest.fixture(scope="module")
def run_example(data_home):
    code, pasted = _example()
    namespace = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKLEARN_PRIVACY_DATA", str(data_home))
        from contextlib import redirect_stdout
        from io import StringIO

        printed = StringIO()
        with redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), namespace)
    return namespace, printed.getvalue(), pasted


def test_readme_example_shows_a_tradeoff(run_example):
    namespace, _, _ = run_example
    search = namespace["search"]
    results = search.cv_results_
    thresholds = np.asarray(results["param_privacy__threshold"], dtype=float)
    assert np.all(np.diff(thresholds) > 0)
    leakage = -results["mean_test_leakage"]
    accuracy = results["mean_test_accuracy"]
    adversary = -results["mean_test_adversary"]
    # distinct leakages, falling with the knob (a lower threshold merges more)
    assert len(np.unique(np.round(leakage, 3))) == len(leakage)
    assert np.all(np.diff(leakage) > 0) and leakage[0] < 0.01 and leakage[-1] > 0.2
    assert np.all(np.diff(adversary) > 0)
    # accuracy falls with the leakage, but the chosen point beats the majority class
    y = namespace["y"]
    majority = np.mean(y == y.mode()[0])
    assert np.all(accuracy >= majority - 0.002) and accuracy.max() > majority + 0.05
    best = search.best_index_
    assert leakage[best] <= 0.1 and accuracy[best] > majority + 0.01
    assert accuracy[best] == np.max(accuracy[leakage <= 0.1])
    # the attacker falls to the majority guess of sex where nothing leaks
    majority_sex = np.mean(namespace["X"]["sex"] == "Male")
    assert adversary[0] == pytest.approx(majority_sex, abs=0.01)
    assert adversary[-1] > majority_sex + 0.05


def test_readme_output_is_the_real_output(run_example):
    _, printed, pasted = run_example
    printed_lines, pasted_lines = printed.strip().splitlines(), pasted.strip().splitlines()
    assert len(printed_lines) == len(pasted_lines)
    for got, shown in zip(printed_lines, pasted_lines):
        assert NUMBER.sub("#", got) == NUMBER.sub("#", shown)
        np.testing.assert_allclose(
            [float(v) for v in NUMBER.findall(got)],
            [float(v) for v in NUMBER.findall(shown)],
            atol=0.0021,  # the third decimal may differ with the BLAS
        )
