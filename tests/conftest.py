"""Shared fixtures: the offline data folder and a clean scikit-learn config."""

import os
from pathlib import Path

import pytest
import sklearn

SHARED_DATA = Path(
    os.environ.get(
        "SKLEARN_PRIVACY_TEST_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)


@pytest.fixture(scope="session")
def data_home():
    """The real data sets (``../shared/data`` beside the checkout)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"offline data folder {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture
def routing():
    """Enable scikit-learn metadata routing for one test."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture
def pyplot():
    """matplotlib's pyplot on the Agg backend; closes figures afterwards."""
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def pytest_sessionfinish(session):
    """Write the session's CPU time where ``SKLEARN_PRIVACY_SUITE_TIME`` says (CI compares it
    with the README's figure, ``.ci/readme_figures.py``)."""
    import json
    import os
    import resource

    target = os.environ.get("SKLEARN_PRIVACY_SUITE_TIME")
    if target:
        cpu = sum(
            usage.ru_utime + usage.ru_stime
            for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        )
        with open(target, "w") as f:
            json.dump({"cpu_s": cpu}, f)
