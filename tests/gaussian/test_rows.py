"""Values, not state (issue 48): the rows interface, the moments record, the weights' meaning.

The rows interface is one ``typing.Protocol`` (``gaussian/_rows.py``) that both implementations
meet member by member and signature by signature; the people beyond a radius come with the
clipped second moment; the moments are a frozen record passed as a value; and what a weight
means is decided in ``gaussian/_weights.py`` alone.
"""

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

from sklearn_privacy import GaussianIBTransformer, L2CompressionDP
from sklearn_privacy.dp import GaussianAccountant
from sklearn_privacy.gaussian._moments import ArrayFitRows, DaskFitRows
from sklearn_privacy.gaussian._private_fit import (
    FitMoments,
    RowStatistics,
    private_mean_covariance_from_statistics,
)
from sklearn_privacy.gaussian._rows import ClippedSecondMoment, FitRows, PrivateRows
from sklearn_privacy.gaussian._weights import PersonWeights, resolve_weights

GAUSSIAN = Path(__file__).resolve().parents[2] / "sklearn_privacy" / "gaussian"


def _members(protocol):
    """The protocol's declared members: annotated attributes, properties and methods."""
    names = set()
    for klass in protocol.__mro__:
        if klass is object or not getattr(klass, "_is_protocol", False):
            continue
        names |= set(getattr(klass, "__annotations__", {}))
        names |= {n for n, v in vars(klass).items() if not n.startswith("_") and callable(v)}
        names |= {n for n, v in vars(klass).items() if isinstance(v, property)}
    return names


@pytest.mark.parametrize(
    "implementation, protocol",
    [(ArrayFitRows, FitRows), (DaskFitRows, FitRows), (RowStatistics, PrivateRows)],
)
def test_each_implementation_meets_the_rows_protocol_signature_by_signature(
    implementation, protocol
):
    attributes = set()  # the attributes an implementation sets in __init__
    source = ast.parse(inspect.getsource(implementation))
    for klass in implementation.__mro__[:-1]:
        tree = ast.parse(inspect.getsource(klass)) if klass is not implementation else source
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                attributes.add(node.attr)
    members = _members(protocol)
    assert {"clipped_second_moment", "norm_histogram", "person_weights"} <= members
    for name in sorted(members):
        ours = inspect.getattr_static(implementation, name, None)
        if ours is None:
            assert name in attributes, (implementation.__name__, name)
            continue
        declared = inspect.getattr_static(protocol, name)
        if callable(declared):
            assert list(inspect.signature(ours).parameters) == list(
                inspect.signature(declared).parameters
            ), (implementation.__name__, name)
        else:
            assert isinstance(declared, property) and isinstance(ours, property), name


def test_people_beyond_come_only_with_the_second_moment_at_its_centre():
    """Before: ``rows.people_beyond(center, radius)`` read the pass of the last
    ``clipped_second_moment`` (dask) and a comment said to call them in that order."""
    for implementation in (ArrayFitRows, DaskFitRows, RowStatistics):
        assert not hasattr(implementation, "people_beyond")
    Z = np.random.default_rng(0).normal(size=(1000, 3))
    w = np.arange(1000) % 3 + 1.0
    rows = RowStatistics(Z, w)
    for center, radius in ((np.zeros(3), 1.0), (np.ones(3), 2.5)):
        clipped = rows.clipped_second_moment(center, radius)
        assert isinstance(clipped, ClippedSecondMoment)
        far = np.linalg.norm(Z - center, axis=1) > radius
        assert clipped.people_beyond == w[far].sum()  # the counts, summed exactly
    with pytest.raises(dataclasses.FrozenInstanceError):
        clipped.people_beyond = 0.0


def test_the_private_moments_are_a_frozen_record():
    Z = np.random.default_rng(0).normal(size=(3000, 3))
    fit = private_mean_covariance_from_statistics(
        RowStatistics(Z), 2.0, rng=np.random.default_rng(0), accountant=GaussianAccountant()
    )
    assert isinstance(fit, FitMoments) and not fit.failed
    assert isinstance(fit.starts, tuple) and len(fit.starts) == 2
    assert isinstance(fit.problems, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.radius = 1.0


def _self_attributes(path):
    """``{attribute: (methods that set it, methods that read it)}`` of ``self._*`` in a file."""
    found = {}
    for klass in ast.parse(path.read_text()).body:
        if not isinstance(klass, ast.ClassDef):
            continue
        for method in klass.body:
            if not isinstance(method, ast.FunctionDef):
                continue
            for node in ast.walk(method):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                ):
                    sets, reads = found.setdefault(node.attr, (set(), set()))
                    where = f"{klass.name}.{method.name}"
                    (sets if isinstance(node.ctx, ast.Store) else reads).add(where)
    return found


# Fitted state that the release reads, as it reads components_: not a result of one step of
# the fit handed to another.
_FITTED_STATE = {"_release_bound"}


def test_no_fit_step_hands_a_result_to_another_through_self():
    """Before: ``_private_fit`` and ``_estimates_failed`` (set in ``_base.py``, read in
    ``_l2.py`` and ``_gib.py``, popped in ``_fit_and_warn``), ``_fit_causes`` (set in
    ``_fit_and_warn``, appended in ``_note_cause``)."""
    sets, reads = {}, {}
    for name in ("_base.py", "_l2.py", "_gib.py", "_audit_protocol.py"):
        for attribute, (s, r) in _self_attributes(GAUSSIAN / name).items():
            sets.setdefault(attribute, set()).update(s)
            reads.setdefault(attribute, set()).update(r)
    handed = {a: sorted(reads[a] - s) for a, s in sets.items() if s and reads[a] - s}
    assert set(handed) == _FITTED_STATE, handed


def test_the_meaning_of_a_weight_is_decided_in_one_module():
    """No module of ``gaussian/`` but ``_weights.py`` compares a value with "person" or
    "counts" or makes a ``PersonWeights``; ``resolve_weights`` is called once by the mechanisms."""
    calls = 0
    for path in sorted(GAUSSIAN.glob("*.py")):
        if path.name == "_weights.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                strings = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant)]
                assert not {"person", "counts", "none"} & set(strings), (path.name, node.lineno)
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                assert name != "PersonWeights", (path.name, node.lineno)
                calls += path.name == "_base.py" and name == "resolve_weights"
    assert calls == 1


@pytest.mark.parametrize(
    "weights, w, expected_units, expected_people",
    [
        ("person", None, [1, 1, 1], 3.0),
        ("counts", None, [1, 1, 1], 3.0),
        ("person", [1.0, 4.0, 0.5], [0.5, 1.0, 0.25], 3.0),  # clipped to 2, in units of 2
        ("counts", [2.0, 4.0, 6.0], [1, 2, 3], 6.0),  # counts of people of weight 2
    ],
)
def test_resolve_weights(weights, w, expected_units, expected_people):
    meaning = resolve_weights(weights, 2.0, has_weights=w is not None)
    assert isinstance(meaning, PersonWeights)
    units, n_heavy = meaning.units(w, 3)
    np.testing.assert_array_equal(units, expected_units)
    assert n_heavy == (1 if weights == "person" and w is not None else 0)
    assert meaning.n_people(units.sum(), 3) == expected_people
    assert meaning.total_is_public == (weights == "counts" or w is None)


@pytest.mark.parametrize("weights", ["person", "counts"])
@pytest.mark.parametrize("cls", [L2CompressionDP, GaussianIBTransformer])
def test_rows_without_weights_fit_on_dask_as_in_memory_whatever_the_person_weight(weights, cls):
    """Rows without sample_weight are one person each, whatever max_person_weight says. The
    dask fit decided it apart: at max_person_weight=2 it counted each row as half a person
    ("person": another fit) or refused ("counts": "some weights are not" whole counts)."""
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).normal(size=(2000, 3))
    y = X[:, 0] + np.random.default_rng(1).normal(size=2000)
    params = dict(max_person_weight=2.0, weights=weights, random_state=0)
    params.update(epsilon=2.0) if cls is L2CompressionDP else params.update(beta=10.0)
    eager = cls(**params).fit(X, y)
    lazy = cls(**params).fit(da.from_array(X, chunks=500), da.from_array(y, chunks=500))
    assert lazy.radius_ == eager.radius_
    np.testing.assert_array_equal(lazy.mean_, eager.mean_)
    assert lazy.epsilon_ == eager.epsilon_
