"""A new public mechanism is registered in every place the checklist names.

The checklist ("Adding a mechanism" in docs/design.md) lists the places; this
test fails, naming the place, when a public mechanism misses one, and when a
mechanism class of the package is not public.
"""

import inspect
import pkgutil
import re
from importlib import import_module
from pathlib import Path

import pytest

import sklearn_privacy
from sklearn_privacy.base import BaseMechanism

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = sorted(
    (getattr(sklearn_privacy, name) for name in sklearn_privacy.__all__),
    key=lambda cls: cls.__name__,
)


def _text(path):
    return (ROOT / path).read_text(encoding="utf-8")


def _defined_mechanisms():
    """Every concrete, non-private BaseMechanism subclass defined in the package."""
    found = set()
    for info in pkgutil.walk_packages(sklearn_privacy.__path__, "sklearn_privacy."):
        if info.name.endswith("__main__"):
            continue
        module = import_module(info.name)
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseMechanism)
                and obj.__module__ == module.__name__
                and not name.startswith("_")
                and not inspect.isabstract(obj)
                and obj is not BaseMechanism
            ):
                found.add(obj)
    return found


def test_every_mechanism_class_of_the_package_is_public():
    assert _defined_mechanisms() == set(PUBLIC)


def _places(cls):
    """Where ``cls`` must appear: (place, whether it does)."""
    from test_bad_inputs import ALL as BAD_INPUTS
    from test_common import INIT_PARAMS, NO_OP

    name = cls.__name__
    design = _text("docs/design.md")
    vocabulary = design[design.index("**One vocabulary.**") :]
    vocabulary = vocabulary[: vocabulary.index("\n\n", vocabulary.index("|---"))]
    guide = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs/user_guide").glob("*.md"))
    return {
        "sklearn_privacy.__all__ (the package's public face)": name in sklearn_privacy.__all__,
        "tests/test_common.py INIT_PARAMS (scikit-learn's checks, contract tests)": (
            cls in INIT_PARAMS
        ),
        "tests/test_common.py NO_OP (a no-op parameter warns or refuses)": cls in NO_OP,
        "tests/test_bad_inputs.py ALL (the bad-input battery)": name in BAD_INPUTS,
        "docs/api.rst (API reference)": re.search(rf"^\s+{name}\s*$", _text("docs/api.rst"), re.M)
        is not None,
        "docs/design.md vocabulary table": f"| `{name}` |" in vocabulary,
        "docs/user_guide (a page explains it)": f"{name}" in guide,
        "README.md mechanism table": f"| `{name}` |" in _text("README.md"),
        "a declared trade-off knob (get_tradeoff_knob)": _declares_knob(cls),
    }


def _declares_knob(cls):
    try:
        knob = cls().get_tradeoff_knob()
    except NotImplementedError:
        return False
    return knob.name in cls().get_params()


@pytest.mark.parametrize("cls", PUBLIC, ids=lambda c: c.__name__)
def test_a_public_mechanism_is_registered_everywhere(cls):
    missing = [place for place, present in _places(cls).items() if not present]
    assert not missing, f"{cls.__name__} is missing from: {missing}"


def test_the_checklist_names_every_place_this_test_checks():
    design = _text("docs/design.md")
    checklist = design[design.index("**Adding a mechanism.**") :]
    checklist = " ".join(checklist[: checklist.index("\n\n**")].replace("`", "").split())
    for place in _places(PUBLIC[0]):
        key = place.split(" (")[0]
        assert key in checklist, f"the checklist in docs/design.md does not name {key!r}"
