"""Every number the README's prose states is registered with the script that produces it.

Issue 36: claims that no script re-ran went stale ("R in 3/3" after the noise grid changed).
Each entry of ``SOURCES`` is a phrase of the README (a regular expression over its prose,
code blocks left out) and where its numbers come from: a script, a test or a file of this
repository (which must exist). A number outside every phrase fails, as does a phrase the
README no longer holds; numbers that the README's pasted example output also shows must be
in it (``tests/test_readme.py`` checks that output against a real run).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PROSE = re.sub(r"```.*?```", lambda m: " " * len(m.group()), README, flags=re.S)
OUTPUT = re.search(r"## Example.*?```text\n(.*?)```", README, flags=re.S).group(1)
NUMBER = re.compile(r"(?<![\w.\-/=>])\d+(?:\.\d+)?(?![\w.]*\*)")

SOURCES = [
    # the main job: python -m sklearn_privacy
    (r"falling from 0\.28 nats to 0\.02", "sklearn_privacy/_demo.py"),
    (r"error bars over 5 random splits", "sklearn_privacy/_demo.py"),
    # CPU times, checked by CI within 2x
    (
        r"about \d+ s of CPU time, measured by CI on a 2-core machine shared with other\s+jobs "
        r"at a load of about 5",
        ".ci/readme_figures.py",
    ),
    (
        r"\(\d+ min \d+ s of CPU time and \d+ min of\s+wall-clock time, measured on a "
        r"2-core machine shared with other\s+jobs at a load of about \d+(?:\.\d+)?;\s+CI fails "
        r"when a stated CPU time is off by more than 2x\)",
        ".ci/readme_figures.py",
    ),
    (
        r"5-fold cross-validation on the 32561 Adult records: about \d+ s of CPU time, measured"
        r"\s+by CI on a 2-core machine shared with other jobs; about [\d-]+ s of wall-clock time",
        ".ci/readme_figures.py",
    ),
    (r"the build takes about \d+ minutes on 2 cores", ".ci/run"),
    # the example's printed output (tests/test_readme.py) and its code
    (r"falls from (0\.\d+) to (0\.\d+)", "OUTPUT"),
    (r"never falls below the (0\.\d+) of guessing", "OUTPUT"),
    (r"keeps threshold (0\.9) \((0\.\d+)\)", "OUTPUT"),
    (r"leaks at most 0\.1 nats", "README.md"),  # most_accurate_below(0.1) in the example
    # the leakage panel
    (
        r"One revealing column among \d+ noise columns.*?on \d+ rows",
        "benchmarks/bench_leakage_panel.py",
    ),
    (r"the largest read over 10 seeds per", "benchmarks/bench_leakage_panel.py"),
    # versions and names, not measurements
    (r"torch==2\.13\.\*|torch>=2\.2|\(CUDA 12\.6\)", "pyproject.toml"),
    (
        r"Makhdoumi et al\. 2014|Calmon and Fawaz 2012|Kohler 2018|Tripathy et al\. 2017",
        "docs/references.bib",
    ),
    (r"SHA-256|^\d\. \*\*", "README.md"),
]


def _covered(pattern):
    return [m.span() for m in re.finditer(pattern, PROSE, flags=re.S | re.M)]


@pytest.mark.parametrize("pattern, source", SOURCES, ids=[s[0][:30] for s in SOURCES])
def test_each_registered_phrase_is_in_the_readme_and_names_a_real_source(pattern, source):
    matches = list(re.finditer(pattern, PROSE, flags=re.S | re.M))
    assert matches, f"the README no longer says {pattern!r}: update SOURCES"
    if source == "OUTPUT":
        for match in matches:
            for number in match.groups():
                assert number in OUTPUT, f"{number} is not in the README's example output"
    else:
        assert (ROOT / source).exists(), source


def test_every_number_of_the_readme_prose_has_a_registered_source():
    spans = [span for pattern, _ in SOURCES for span in _covered(pattern)]
    orphans = []
    for match in NUMBER.finditer(PROSE):
        start, end = match.span()
        if not any(a <= start and end <= b for a, b in spans):
            line = PROSE[:start].count("\n") + 1
            orphans.append(f"line {line}: {match.group()} in {PROSE.splitlines()[line - 1]!r}")
    assert not orphans, "numbers with no registered source (add to SOURCES):\n" + "\n".join(orphans)
