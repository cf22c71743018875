"""The base of the discrete mechanisms: one fitted vocabulary of alphabets and joint pmf."""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy.base import BaseMechanism
from sklearn_privacy.discrete import (
    CategoricalAlphabet,
    ConvexPrivacyMapping,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)
from sklearn_privacy.discrete._categorical import _CategoricalMechanism

DISCRETE = (
    PrivacyFunnelTransformer(0.5),
    SubmodularFunnel(1.0),
    ConvexPrivacyMapping(0.2, random_state=0),
)
SHARED = ("handle_unknown", "smoothing", "max_categories", "verbose")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 3, n)
    a = np.array(list("pqrs"))[(s + (rng.random(n) < 0.4) * rng.integers(1, 3, n)) % 4]
    X = pd.DataFrame({"a": a, "b": rng.integers(0, 3, n)})
    return X, np.array(["lo", "mid", "hi"])[s], rng.integers(1, 4, n).astype(float)


@pytest.mark.filterwarnings("ignore:.*(merged nothing|one record for every row):UserWarning")
def test_the_discrete_mechanisms_expose_one_vocabulary():
    X, s, w = _data()
    fits = [est.fit(X, sensitive=s, sample_weight=w) for est in DISCRETE]
    # oracle: the weighted crosstab of S against the rows of X, columns in sorted row order
    oracle = pd.crosstab(s, [X["a"], X["b"]], values=w, aggfunc="sum", normalize=True).fillna(0)
    for est in fits:
        assert isinstance(est, _CategoricalMechanism)
        assert isinstance(est.alphabet_, CategoricalAlphabet)
        assert est.alphabet_.n_symbols_ == oracle.shape[1]
        rows = est.alphabet_.decode(np.arange(est.alphabet_.n_symbols_))
        assert [tuple(r) for r in rows.tolist()] == list(oracle.columns)
        np.testing.assert_allclose(est.joint_, oracle.to_numpy(), rtol=0, atol=1e-15)
        assert not {"_x_alphabet", "_s_alphabet"} & set(vars(est))
    first = fits[0].alphabet_
    for est in fits[1:]:
        np.testing.assert_array_equal(est.alphabet_.symbols_, first.symbols_)
        np.testing.assert_array_equal(est.alphabet_.counts_, first.counts_)
    # the convex mapping's records are the same alphabets, decoded
    convex = fits[2]
    np.testing.assert_array_equal(
        convex.input_records_, convex.alphabet_.decode(np.arange(convex.alphabet_.n_symbols_))
    )
    assert convex.sensitive_records_.ravel().tolist() == sorted(set(s))


def test_the_shared_parameters_are_declared_once_in_the_base():
    base = _CategoricalMechanism._parameter_constraints
    for est in DISCRETE:
        for name in SHARED:
            assert type(est)._parameter_constraints[name] is base[name]
            assert name in est.get_params()
    # the one wording of a bad max_categories, whichever mechanism
    X, s, _ = _data()
    for est in DISCRETE:
        with pytest.raises(ValueError, match=r"an int in the range \[2, inf\) or None"):
            type(est)(max_categories=1).fit(X, sensitive=s)


@pytest.mark.parametrize("est", DISCRETE, ids=lambda e: type(e).__name__)
def test_fit_is_the_base_fit(est):
    assert type(est).fit is BaseMechanism.fit
    assert "categories (numbers or strings)" in type(est).fit.__doc__
