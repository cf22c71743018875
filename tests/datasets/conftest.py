"""Fixtures of the data set tests: the shared folder of real data files."""

import os
from pathlib import Path

import pytest

# ``shared/`` sits beside the repository checkout (CI clones elsewhere and copies
# shared/ beside the clone); the environment variable overrides it.
SHARED_DATA = Path(
    os.environ.get(
        "SKLEARN_PRIVACY_TEST_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"
    )
)


@pytest.fixture(scope="session")
def shared_data_home():
    """Path of the shared data folder; skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"the shared data folder {SHARED_DATA} is absent (set SKLEARN_PRIVACY_TEST_DATA "
            "to a folder laid out as documented in docs/user_guide/datasets.md)"
        )
    return SHARED_DATA
