"""What the benchmark scripts share: where results and data are, the empirical joint pmf."""

import os
from pathlib import Path

from sklearn_privacy.discrete._alphabet import CategoricalAlphabet, empirical_joint

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]


def default_data_home():
    """``$SKLEARN_PRIVACY_DATA``, else ``../shared/data`` beside the repository checkout."""
    return os.environ.get("SKLEARN_PRIVACY_DATA", str(REPO.parent / "shared" / "data"))


def joint_of(frame, s_columns, x_columns):
    """Empirical ``P(S, X)`` of two groups of categorical columns."""
    x_codes = CategoricalAlphabet(max_categories=None).fit_encode(
        frame[x_columns].to_numpy(dtype=object)
    )
    s_codes = CategoricalAlphabet(max_categories=None).fit_encode(
        frame[s_columns].to_numpy(dtype=object)
    )
    return empirical_joint(s_codes, x_codes, s_codes.max() + 1, x_codes.max() + 1)
