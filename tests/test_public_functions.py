"""Every public function validates its parameters as scikit-learn's do.

The functions exported by the subpackages are found by walking their
``__all__``; each must be decorated with ``validate_params`` (scikit-learn's
decorator, through ``utils._sklearn_compat``) with a constraint for every
parameter, and a value of the wrong type or range for any one parameter must
raise ``InvalidParameterError`` naming that parameter and the function, before
any work is done.

Three rooms are exempt, with the reason:

- ``information``: the measures are the primitives every mechanism calls in its
  inner loops (the greedy merges evaluate them thousands of times per fit);
  each checks its pmf's values itself (shape, finiteness, sign, sum), which a
  type constraint would not add to.
- ``estimation``: the sample estimates' building blocks, called by
  ``metrics.leakage_score`` (their validated, documented face) and by PPAN with
  values already validated.
- ``utils``: developer helpers for writing a mechanism (as ``sklearn.utils``),
  called with already-validated values.

and two functions: ``dp.compose_basic`` takes ``*budgets`` (scikit-learn's
decorator cannot constrain variadic arguments); it checks each pair itself,
tested in ``tests/dp``. ``dp.clip_to_ball`` is the clipping primitive of the
Gaussian mechanisms' releases and fits, for validated arrays: its validated twin
is ``dp.clip_rows`` (validation costs about 100 microseconds a call, half of a
100-row release).
"""

import importlib
import inspect
import pkgutil
from numbers import Integral, Real

import pytest

# scikit-learn's own test helpers of its validation (private; tests only)
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)

import sklearn_privacy

EXEMPT_ROOMS = {"estimation", "information", "utils"}
EXEMPT_FUNCTIONS = {"sklearn_privacy.dp.compose_basic", "sklearn_privacy.dp.clip_to_ball"}


def _public_functions():
    rooms = [
        m.name
        for m in pkgutil.iter_modules(sklearn_privacy.__path__)
        if m.ispkg and not m.name.startswith("_")
    ]
    found = {}
    for room in sorted(set(rooms) - EXEMPT_ROOMS):
        module = importlib.import_module(f"sklearn_privacy.{room}")
        for name in module.__all__:
            obj = getattr(module, name)
            qualified = f"sklearn_privacy.{room}.{name}"
            if inspect.isfunction(obj) and qualified not in EXEMPT_FUNCTIONS:
                found.setdefault(obj, qualified)
    return sorted(found.items(), key=lambda item: item[1])


PUBLIC_FUNCTIONS = _public_functions()


def _parameters(func):
    return [
        p
        for p in inspect.signature(func).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _valid_value(constraints):
    if constraints == "no_validation":
        return 1
    return generate_valid_param(make_constraint(constraints[0]))


def _invalid_values(constraints):
    """A value of no allowed type, and one out of range for each interval or option set."""
    yield type("BadType", (), {})()
    constraints = [make_constraint(c) for c in constraints]
    for constraint in constraints:
        try:
            value = generate_invalid_param_val(constraint)
        except NotImplementedError:
            continue
        # an out-of-range value may satisfy another constraint of the list
        # (an integer interval beside a real one, a string beside None)
        if not any(c.is_satisfied_by(value) for c in constraints):
            yield value


def test_the_walk_finds_the_public_functions():
    names = {qualified for _, qualified in PUBLIC_FUNCTIONS}
    assert len(names) >= 60
    for expected in (
        "sklearn_privacy.discrete.min_average_leakage_mapping",
        "sklearn_privacy.discrete.greedy_merge",
        "sklearn_privacy.metrics.leakage_score",
        "sklearn_privacy.theory.rate_distortion",
        "sklearn_privacy.dp.gaussian_sigma",
        "sklearn_privacy.model_selection.tradeoff_curve",
    ):
        assert expected in names
    assert "sklearn_privacy.dp.compose_basic" not in names


@pytest.mark.parametrize("func, qualified", PUBLIC_FUNCTIONS, ids=[q for _, q in PUBLIC_FUNCTIONS])
def test_public_function_validates_every_parameter(func, qualified):
    constraints = getattr(func, "_skl_parameter_constraints", None)
    assert constraints is not None, f"{qualified} is not decorated with validate_params"
    names = [p.name for p in _parameters(func)]
    assert set(constraints) == set(names), (
        f"{qualified}: constraints for {sorted(set(constraints) - set(names))} that are not "
        f"parameters, none for {sorted(set(names) - set(constraints))}"
    )
    required = {
        p.name: _valid_value(constraints[p.name]) for p in _parameters(func) if p.default is p.empty
    }
    func_name = func.__name__
    for name in names:
        if constraints[name] == "no_validation":
            continue
        # a real interval beside an integer one admits integers: no invalid integer
        if any(isinstance(c, Interval) and c.type is Integral for c in constraints[name]) and any(
            isinstance(c, Interval) and c.type is Real for c in constraints[name]
        ):
            continue
        for bad in _invalid_values(constraints[name]):
            with pytest.raises(
                InvalidParameterError, match=f"The '{name}' parameter of {func_name} must be"
            ):
                func(**{**required, name: bad})
