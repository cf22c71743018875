"""A cross-validated sweep shows each warning cause once under the default filter (issue 27).

Every warning a mechanism emits per fit has a text that does not vary per fit (the
numbers are fitted attributes), and goes through ``utils.warn_user``, which keeps
Python's "default" action (once per line of the caller) across the tasks of
scikit-learn's ``Parallel``: those re-install the filters around every fold, which
resets Python's own memory of what it showed. Before, a 5x4-fold study over 9 budgets of
``L2CompressionDP`` printed a warning per fit, each with its own numbers.
"""

import re
import warnings
from collections import Counter

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline

from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    L2CompressionDP,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)
from sklearn_privacy.exceptions import (
    DegenerateReleaseWarning,
    PrivacyLeakWarning,
    PrivateFitWarning,
)
from sklearn_privacy.utils import warn_user

NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?")


def _continuous(n=400):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


def _categorical(n=400):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, n)
    X = np.column_stack([s, np.where(rng.random(n) < 0.8, s, 1 - s), rng.integers(0, 3, n)])
    return X, rng.integers(0, 2, n)


CASES = {
    # a small private fit at small budgets, seeded: a PrivateFitWarning per estimate that
    # failed, and the seed's PrivacyLeakWarning
    "l2-private": (
        L2CompressionDP(random_state=0),
        "epsilon",
        [0.3, 0.5, 1.0],
        _continuous,
        {PrivateFitWarning, PrivacyLeakWarning},
    ),
    "l2-almost-pure-noise": (
        L2CompressionDP(fit_data="public", random_state=0),
        "epsilon",
        [0.01, 0.02, 0.05],
        _continuous,
        {DegenerateReleaseWarning},
    ),
    "gib-private-below-critical": (
        GaussianIBTransformer(beta=1.01),
        "fit_epsilon",
        [2.0, 4.0, 8.0],
        _continuous,
        {PrivateFitWarning},
    ),
    "gib-public-below-critical": (
        GaussianIBTransformer(fit_data="public"),
        "beta",
        [1.001, 1.002, 1.003],
        _continuous,
        {DegenerateReleaseWarning},
    ),
    "funnel-merged-nothing": (
        PrivacyFunnelTransformer(sensitive=[0]),
        "lam",
        [1e3, 1e4, 1e5],
        _categorical,
        {DegenerateReleaseWarning},
    ),
    "submodular-merged-all": (
        SubmodularFunnel(sensitive=[0], objective="bottleneck", solver="mm"),
        "lam",
        [0.01, 0.02, 0.03],
        _categorical,
        {DegenerateReleaseWarning},
    ),
    "convex-one-record": (
        ConvexPrivacyMapping(sensitive=[0]),
        "max_distortion",
        [1.0, 2.0, 3.0],
        _categorical,
        {DegenerateReleaseWarning},
    ),
}


def _cause(warning):
    """A warning's category and text with its numbers blanked: what differs per fit."""
    return warning.category, NUMBER.sub("#", str(warning.message))


@pytest.mark.parametrize("case", list(CASES))
def test_a_5_fold_sweep_over_3_settings_shows_each_cause_once(case):
    mechanism, knob, values, data, expected = CASES[case]
    X, y = data()
    pipe = make_pipeline(mechanism, LogisticRegression())
    step = pipe.steps[0][0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for value in values:
            cross_validate(clone(pipe).set_params(**{f"{step}__{knob}": value}), X, y, cv=5)
    causes = Counter(_cause(w) for w in caught)
    assert {category for category, _ in causes} == expected
    assert max(causes.values()) == 1, causes.most_common(1)
    # the warning points at the user's line, the one that ran the cross-validation
    assert {w.filename for w in caught} == {__file__}


def test_a_grid_search_and_its_refit_show_each_cause_once():
    X, y = _continuous()
    pipe = make_pipeline(L2CompressionDP(), LogisticRegression())
    search = GridSearchCV(pipe, {"l2compressiondp__epsilon": [0.3, 0.5, 1.0]}, cv=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        search.fit(X, y)
    causes = Counter(_cause(w) for w in caught)
    assert causes and max(causes.values()) == 1, causes.most_common(1)


def test_warn_user_keeps_the_meaning_of_each_action():
    def emit(n):
        for _ in range(n):
            warn_user("a cause", UserWarning)  # one line: the caller's location

    for action, shown in [("default", 1), ("always", 3), ("once", 1), ("module", 1)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter(action)
            emit(3)
        assert len(caught) == shown, action
        assert caught[0].filename == __file__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        emit(3)
    assert not caught
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="a cause"):
            emit(1)
        # another filter set (here "error" again after "ignore") is a fresh start
        with pytest.raises(UserWarning, match="a cause"):
            emit(1)
    # a filter aimed at the message applies as in warnings.warn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message="a cause")
        emit(2)
    assert not caught


def test_warn_user_reads_the_filters_the_running_python_defines(monkeypatch):
    """Python 3.14's concurrent-safe warnings keep the filters in a context variable that
    ``warnings.filters`` does not show; ``warnings._get_filters()`` reads them where it exists
    (as scikit-learn's ``Parallel`` does). A stand-in that says "ignore" while the global list
    says "always" decides the action, and the memory is keyed by what it returns."""
    from sklearn_privacy.utils import _warnings

    context = [("ignore", None, Warning, None, 0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        monkeypatch.setattr(warnings, "_get_filters", lambda: context, raising=False)
        assert _warnings._current_filters() is context
        assert _warnings._action(context, "a cause", UserWarning, __name__, 1) == "ignore"
        # "default" in the context's filters: shown once, remembered under the context's content
        context[:] = [("default", None, Warning, None, 0)]
        for _ in range(3):
            warn_user("a context cause", UserWarning)
    assert len(caught) == 1
