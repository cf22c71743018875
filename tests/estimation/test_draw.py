"""The rows a leakage estimate reads: a seeded draw above ``max_samples`` (issue 49).

A dask release is read on the drawn rows only; the estimate is that of the drawn rows in memory.
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy.estimation._draw import draw_rows
from sklearn_privacy.estimation._sample_estimators import is_discrete
from sklearn_privacy.metrics import leakage_score, make_leakage_scorer
from sklearn_privacy.utils._dask import take_rows_lazily

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


def _pair(n=3000, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.choice(classes, n, p=np.linspace(1, 2, classes) / np.linspace(1, 2, classes).sum())
    t = np.c_[s + rng.normal(size=n), rng.normal(size=(n, 2))]
    return s, t


def _drawn_rows(s, t, m):
    """The rows of the draw, found by marking each row with its position."""
    marked = np.c_[t, np.arange(len(s))]
    _, rows, _ = draw_rows(s, marked, m, is_discrete)
    return rows[:, -1].astype(int)


def test_the_draw_keeps_each_value_of_s_its_share_and_is_seeded():
    s, t = _pair()
    drawn = _drawn_rows(s, t, 1000)
    assert drawn.size == 1000 and np.all(np.diff(drawn) > 0)  # distinct, in the rows' order
    shares = np.bincount(s[drawn], minlength=3) / 1000
    np.testing.assert_allclose(shares, np.bincount(s) / s.size, atol=1.5 / 1000)
    np.testing.assert_array_equal(drawn, _drawn_rows(s, t, 1000))  # the same draw again
    # a continuous S: a plain draw, said so
    x = np.random.default_rng(1).normal(size=3000)
    _, _, note = draw_rows(x, t, 1000, is_discrete)
    assert note == "read on 1000 of 3000 rows (a seeded draw, S continuous; max_samples)"


def test_the_estimate_is_that_of_the_drawn_rows():
    s, t = _pair()
    drawn = _drawn_rows(s, t, 1000)
    estimate = leakage_score(s, t, max_samples=1000, return_details=True)
    alone = leakage_score(s[drawn], t[drawn], max_samples=None, return_details=True)
    assert estimate.value == alone.value and estimate.estimates == alone.estimates
    assert estimate.folds == alone.folds + (
        "; read on 1000 of 3000 rows (a seeded draw, stratified on S; max_samples)"
    )
    # at or below max_samples nothing is drawn
    whole = leakage_score(s, t, max_samples=None, return_details=True)
    assert leakage_score(s, t, max_samples=3000, return_details=True) == whole
    assert "read on" not in whole.folds


@pytest.mark.parametrize("kind", ["array", "array of unknown chunks", "frame", "series"])
def test_a_dask_release_is_read_on_the_drawn_rows_only(kind, monkeypatch):
    s, t = _pair(n=2000, seed=2)
    frame = pd.DataFrame(t, columns=["a", "b", "c"])
    lazy = {
        "array": lambda: da.from_array(t, chunks=(300, 2)),
        "array of unknown chunks": lambda: (lambda x: x[x[:, 0] > -np.inf])(
            da.from_array(t, chunks=(300, 3))
        ),
        "frame": lambda: dd.from_pandas(frame, npartitions=7),
        "series": lambda: dd.from_pandas(frame["a"], npartitions=7),
    }[kind]()
    memory = frame["a"].to_numpy() if kind == "series" else t
    positions = np.sort(np.random.default_rng(0).choice(2000, 500, replace=False))
    taken = take_rows_lazily(lazy, positions)
    np.testing.assert_array_equal(np.asarray(taken), memory[positions])
    expected = leakage_score(s, memory, max_samples=500)
    # the whole collection is never computed: only its drawn rows (or its parts)
    monkeypatch.setattr(type(lazy), "compute", _refuse_whole(lazy))
    assert leakage_score(s, lazy, max_samples=500) == expected


def _refuse_whole(collection):
    compute = type(collection).compute

    def refusing(self, *args, **kwargs):
        if self.shape[0] == collection.shape[0] and self.name == collection.name:
            raise AssertionError("the whole release was computed")
        return compute(self, *args, **kwargs)

    return refusing


def test_max_samples_is_validated_and_reaches_the_scorer():
    s, t = _pair(n=300)
    with pytest.raises(ValueError, match="max_samples"):
        leakage_score(s, t, max_samples=1)
    scorer = make_leakage_scorer(estimator="logistic", max_samples=100)
    assert "max_samples=100" in repr(scorer)
    assert "max_samples" not in repr(make_leakage_scorer())
