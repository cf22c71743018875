"""The package's layering: rooms, floors, and the imports allowed between them.

A *room* is a subpackage (``discrete``, ``utils``, ...) or a top-level module
(``_base``, ``exceptions``, ...). Room A stands above room B when a module of A
imports one of B (function-level imports included). The rooms must form a
DAG; a room's *floor* is the length of the longest chain of imports below it.

Run ``python tests/test_architecture.py [PACKAGE_DIR]`` to print the house.
"""

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_privacy"
# The mechanism families: none may import another (they share only lower floors).
FAMILIES = {"discrete", "gaussian", "adversarial"}
# The floors every other room stands on: they import no other room of the package.
GROUND = {"utils", "exceptions"}


def _room(module):
    """Room of a dotted module name inside the package (None for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "sklearn_privacy" else None


def _module_name(path, package):
    relative = path.relative_to(package.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path, module):
    """Dotted names of the package's modules that ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                base = module.split(".")[: -node.level + (path.name == "__init__.py")]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None))
            in ("__import__", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.add(node.args[0].value)  # an import by name counts as an import
    return {name for name in out if name.split(".")[0] == "sklearn_privacy"}


def house(package=PACKAGE):
    """Rooms with their lines, the room graph and each room's floor."""
    edges = defaultdict(set)
    lines = defaultdict(int)
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path, package)
        room = _room(module)
        if room is None or room == "__main__":
            continue  # the package's public face and its entry point stand above everything
        lines[room] += len(path.read_text(encoding="utf-8").splitlines())
        for name in _imports(path, module):
            target = _room(name)
            if target is not None and target != room:
                edges[room].add(target)
    floors = {}

    def floor(room, seen=()):
        if room in seen:
            raise AssertionError(f"import cycle: {' -> '.join((*seen, room))}")
        if room not in floors:
            floors[room] = 1 + max((floor(t, (*seen, room)) for t in edges[room]), default=-1)
        return floors[room]

    for room in lines:
        floor(room)
    return dict(lines), {k: set(v) for k, v in edges.items()}, floors


def test_rooms_form_a_dag_with_the_ground_floor_below_everything():
    lines, edges, floors = house()
    assert len(lines) >= 15
    for room in GROUND:
        assert edges.get(room, set()) - GROUND == set(), (room, edges.get(room))
        assert floors[room] <= 1


def test_an_import_by_name_is_seen(tmp_path):
    """``__import__("sklearn_privacy")`` on the ground floor once escaped the layering."""
    ground = tmp_path / "sklearn_privacy" / "exceptions.py"
    ground.parent.mkdir()
    ground.write_text('import os\nHOME = __import__("sklearn_privacy.discrete").__file__\n')
    (tmp_path / "sklearn_privacy" / "discrete.py").write_text("X = 1\n")
    _, edges, _ = house(tmp_path / "sklearn_privacy")
    assert edges["exceptions"] == {"discrete"}


def test_the_ground_floor_imports_nothing_by_name():
    """A dynamic import (``__import__(name)``, ``import_module``) hides its target from the
    layering: the ground floor has none."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if _room(_module_name(path, PACKAGE)) not in GROUND:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                assert name not in ("__import__", "import_module"), (path, node.lineno)


def test_no_family_imports_another():
    _, edges, _ = house()
    for family in FAMILIES:
        assert not edges.get(family, set()) & (FAMILIES - {family}), (family, edges[family])


def test_no_family_imports_metrics():
    """The scoring layer stands above the mechanisms: a family that needs a sample estimate of
    its leakage (PPAN's fresh estimate) calls the sample estimates' own room, ``estimation``,
    which stands on the exact measures (``information``) and below ``metrics``, not
    ``metrics`` (function-level imports count)."""
    _, edges, floors = house()
    for family in FAMILIES:
        assert "metrics" not in edges.get(family, set()), (family, edges[family])
    assert floors["information"] < floors["estimation"] < floors["metrics"]
    assert not edges["estimation"] & (FAMILIES | {"metrics", "_base"}), edges["estimation"]


def test_the_base_stands_below_every_mechanism_family():
    _, edges, floors = house()
    for family in FAMILIES:
        assert "_base" in edges[family]
        assert floors[family] > floors["_base"]


def test_ppan_estimator_stands_on_its_layers_and_is_read_in_one_place():
    """``adversarial``: no layer imports the estimator module; the layers that import torch
    or skorch are imported by it inside functions only (``import sklearn_privacy`` stays
    light); and only ``_settings`` takes the estimator (``est``): ``_build`` and the others
    read the resolved ``PPANSettings``."""
    room = PACKAGE / "adversarial"
    heavy = {"torch", "skorch"}
    heavy_layers = set()
    for path in sorted(room.glob("_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {
            alias.name.split(".")[0]
            for node in tree.body
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
        }
        if top & heavy:
            heavy_layers.add(path.stem)
    assert {"_build", "_net", "_modules", "_evaluate", "_stopping"} <= heavy_layers
    for path in sorted(room.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_name(path, PACKAGE)
        if path.stem != "__init__":
            assert "sklearn_privacy.adversarial._ppan" not in _imports(path, module), path.name
        for node in tree.body if path.stem not in heavy_layers else ():
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.rsplit(".", 1)[-1] not in heavy_layers, (path.name, node.module)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and path.stem not in (
                "_ppan",
                "_settings",
            ):
                names = [a.arg for a in node.args.args + node.args.kwonlyargs]
                assert "est" not in names, (path.name, node.name)


def _mechanism_hooks(package=PACKAGE):
    """Names of the private methods of the classes in the base and the mechanism families."""
    hooks = set()
    paths = [package / "_base.py"]
    for family in sorted(FAMILIES):
        paths.extend(sorted((package / family).rglob("*.py")))
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                hooks.update(
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef)
                    and item.name.startswith("_")
                    and not item.name.startswith("__")
                )
    return hooks


def _hook_uses(path, hooks):
    """``(line, name)`` where ``path`` reads a hook (or the ledger) off an object not its own."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in hooks:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append((node.lineno, node.attr))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) in ("hasattr", "getattr", "setattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in hooks
        ):
            found.append((node.lineno, node.args[1].value))  # duck typing by name
    return found


def test_the_ground_floor_calls_no_mechanism_hook():
    """``utils`` knows no mechanism: it calls none of their private hooks (``_release``,
    ``_split_for_release``, ``_release_seeds``...) and reads no ledger (``accountant_``),
    not even by duck typing (``hasattr(m, "_record_release")``). What a mechanism does with
    a dask collection is a method of the base (``BaseMechanism._release_dask``), which a
    family specialises through a declared hook (``_start_lazy_release``)."""
    hooks = _mechanism_hooks() | {"accountant_"}
    assert {"_release", "_split_for_release", "_release_seeds", "_record_release"} <= hooks
    for room in sorted(GROUND):
        paths = [PACKAGE / f"{room}.py"] if (PACKAGE / f"{room}.py").exists() else []
        paths += sorted((PACKAGE / room).rglob("*.py")) if (PACKAGE / room).is_dir() else []
        for path in paths:
            assert _hook_uses(path, hooks) == [], (path, _hook_uses(path, hooks))


def test_the_hook_check_sees_duck_typing(tmp_path):
    """The check above finds a call, a read and a ``hasattr`` by name."""
    path = tmp_path / "helper.py"
    path.write_text(
        "def f(m):\n"
        "    if hasattr(m, '_record_release'):\n"
        "        m._release(None, None, None)\n"
        "    return m.accountant_\n"
    )
    hooks = {"_release", "_record_release", "accountant_"}
    assert sorted(_hook_uses(path, hooks)) == [
        (2, "_record_release"),
        (3, "_release"),
        (4, "accountant_"),
    ]


# Re-exports scikit-learn's private names, imported in one place (not names of a room).
_SKLEARN_SHIM = "sklearn_privacy.utils._sklearn_compat"


def _private_names_from_other_rooms(path, module):
    """``(line, module, names)`` where ``path`` imports underscore names of another room."""
    room = _room(module)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or node.level or node.module == _SKLEARN_SHIM:
            continue
        target = _room(node.module or "")
        private = [alias.name for alias in node.names if alias.name.startswith("_")]
        if target is not None and target != room and private:
            found.append((node.lineno, node.module, private))
    return found


def test_no_room_imports_a_private_name_of_another_room():
    """A room reaches another through its public names (and a family the base through its
    hooks), never an underscore name: the Gaussian family once imported ``_base._S_COLUMNS``
    to name S in its messages (``BaseMechanism._s_label`` says it now), the plotting once
    tested ``isinstance`` against ``metrics._scorers._MechanismScorer``
    (``is_privacy_scorer`` now), and ``dp`` is a public toolbox whose private-fit engine,
    used only by the Gaussian mechanisms, lives in ``gaussian/_private_fit.py``.
    scikit-learn's private names come through ``utils._sklearn_compat``."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path, PACKAGE)
        assert _private_names_from_other_rooms(path, module) == [], path


def test_the_private_import_check_sees_a_private_name(tmp_path):
    path = tmp_path / "sklearn_privacy" / "gaussian" / "_base.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "from sklearn_privacy._base import _S_COLUMNS, BaseMechanism\n"
        "from sklearn_privacy.gaussian._other import _own_room\n"
        "from sklearn_privacy.utils._sklearn_compat import _fit_context\n"
        "def f():\n"
        "    from sklearn_privacy.metrics._scorers import _MechanismScorer\n"
    )
    module = _module_name(path, tmp_path / "sklearn_privacy")
    assert _private_names_from_other_rooms(path, module) == [
        (1, "sklearn_privacy._base", ["_S_COLUMNS"]),
        (5, "sklearn_privacy.metrics._scorers", ["_MechanismScorer"]),
    ]


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE
    lines, edges, floors = house(root)
    print(f"{len(lines)} rooms, {max(floors.values()) + 1} floors, {sum(lines.values())} lines")
    for room in sorted(lines, key=lambda r: (floors[r], r)):
        below = ", ".join(sorted(edges.get(room, ())))
        print(f"  floor {floors[room]}  {room:16s} {lines[room]:6d} lines  imports: {below}")
