"""What every benchmark script shares: where results go and where the data is."""

import os
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]


def default_data_home():
    """``$SKLEARN_PRIVACY_DATA``, else ``../shared/data`` beside the repository checkout."""
    return os.environ.get("SKLEARN_PRIVACY_DATA", str(REPO.parent / "shared" / "data"))
