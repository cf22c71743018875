"""The package's layering: rooms, floors, and the imports allowed between them.

A *room* is a subpackage (``discrete``, ``utils``, ...) or a top-level module
(``_base``, ``exceptions``, ...). Room A stands above room B when a module of A
imports one of B (function-level imports included). The rooms must form a
DAG; a room's *floor* is the length of the longest chain of imports below it.

Run ``python tests/test_architecture.py [PACKAGE_DIR]`` to print the house.
"""

import ast
import re
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


def _imports(path, module, modules=()):
    """Dotted names of the package's modules that ``path`` imports.

    ``from package import name`` counts as an import of ``package.name`` when that is one of
    ``modules`` (a submodule), of ``package`` otherwise.
    """
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
            for alias in node.names:
                submodule = f"{name}.{alias.name}"
                out.add(submodule if submodule in modules else name)
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


def test_the_audit_stands_above_what_it_audits():
    """``audit`` fits any mechanism and scores the ledgerless ones with ``metrics``: it stands
    above the families, ``dp`` and ``metrics``, none of which imports it."""
    _, edges, floors = house()
    for room in FAMILIES | {"dp", "metrics"}:
        assert floors["audit"] > floors[room], room
        assert "audit" not in edges.get(room, set()), room


# What the audit may not name (issue 48): the parameters and fitted attributes by which it once
# recognised the Gaussian family. It asks an estimator through the protocol (``AuditProtocol``).
_FAMILY_NAMES = (
    "components_",
    "scale_",
    "noise_variance_",
    "max_person_weight",
    "relevance",
    "privacy_spent",
    "epsilon_",
    "delta_",
    "accountant_",
    "fit_data",
)


def _mechanism_classes():
    """The public classes of the mechanism families."""
    import importlib
    import inspect

    names = set()
    for family in FAMILIES:
        module = importlib.import_module(f"sklearn_privacy.{family}")
        names.update(name for name in module.__all__ if inspect.isclass(getattr(module, name)))
    return names


def _names_in_code(path, names):
    """The ``names`` that ``path``'s code names (docstrings, user documentation, left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                body[0].value.value = ""
    code = ast.unparse(tree)
    return sorted(name for name in names if re.search(rf"(?<!\w){re.escape(name)}\b", code))


def test_the_audit_names_no_mechanism_class_or_family_parameter():
    """The audit asks an estimator for its claim, statistic and plan through the protocol,
    so that a DP estimator from outside the package is audited as the library's are: no
    module of ``audit/`` names a mechanism class or a family's parameter, attribute or ledger
    (its docstrings' examples may use a mechanism, as a user would)."""
    classes = _mechanism_classes()
    assert {"GaussianIBTransformer", "L2CompressionDP", "PPANTransformer"} <= classes
    for path in sorted((PACKAGE / "audit").glob("*.py")):
        assert _names_in_code(path, classes | set(_FAMILY_NAMES)) == [], path


def test_the_name_check_sees_a_name_in_code_but_not_in_a_docstring(tmp_path):
    path = tmp_path / "_trials.py"
    path.write_text(
        '"""Reads components_ (a docstring)."""\n'
        "from sklearn_privacy.gaussian import GaussianIBTransformer\n"
        "def f(step):\n"
        '    """The L2CompressionDP and fit_data of a docstring."""\n'
        '    return step.get_params()["fit_data"], step.epsilon_lower, step.epsilon_\n'
    )
    names = {"GaussianIBTransformer", "L2CompressionDP", "components_", "fit_data", "epsilon_"}
    assert _names_in_code(path, names) == ["GaussianIBTransformer", "epsilon_", "fit_data"]


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
    ``_split_for_release``, ``_release_generator``...) and reads no ledger (``accountant_``),
    not even by duck typing (``hasattr(m, "_record_release")``). What a mechanism does with
    a dask collection stands above the ground floor (``_lazy.dask_release``, which
    ``BaseMechanism.transform`` calls), and a family specialises it through a declared hook
    (``_start_lazy_release``)."""
    hooks = _mechanism_hooks() | {"accountant_"}
    assert {"_release", "_split_for_release", "_release_generator", "_record_release"} <= hooks
    for room in sorted(GROUND):
        paths = [PACKAGE / f"{room}.py"] if (PACKAGE / f"{room}.py").exists() else []
        paths += sorted((PACKAGE / room).rglob("*.py")) if (PACKAGE / room).is_dir() else []
        for path in paths:
            assert _hook_uses(path, hooks) == [], (path, _hook_uses(path, hooks))


# The base and the modules it delegates to: they call the hooks the base declares.
_MECHANISM_MACHINERY = {"_base", "_lazy", "_sensitive"}


def test_only_the_mechanisms_call_their_hooks():
    """What another room asks of a mechanism is public: the scorers read its release
    distribution and distortion through ``release_distribution`` and ``mean_distortion``
    (they called the private ``_release_distribution`` and ``_distortion``), and S through
    ``split_sensitive``. Only the base, the modules it delegates to and the families call
    the private hooks. The ledger ``accountant_`` is public: the audit reads it as a user
    would."""
    hooks = _mechanism_hooks()
    for path in sorted(PACKAGE.rglob("*.py")):
        room = _room(_module_name(path, PACKAGE))
        if room is None or room in FAMILIES | _MECHANISM_MACHINERY:
            continue
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
    to name S in its messages (it imports ``_sensitive.S_COLUMNS`` now), the plotting once
    tested ``isinstance`` against ``metrics._scorers._MechanismScorer`` (the public
    ``metrics.is_privacy_scorer`` now), and ``dp`` is a public toolbox whose private-fit
    engine, used only by the Gaussian mechanisms, lives in ``gaussian/_private_fit.py``.
    scikit-learn's private names come through ``utils._sklearn_compat``."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path, PACKAGE)
        assert _private_names_from_other_rooms(path, module) == [], path


# (importer room, imported room) pairs still reaching a private module, with what closes them.
_PRIVATE_MODULES_LEFT = set()  # none left since the sample estimates' own room (issue 37)


def _private_modules_of_other_rooms(path, module):
    """``(line, module)`` where ``path`` imports a private module of another room that
    does not stand on the ground floor (``utils`` is the shared toolbox)."""
    room = _room(module)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        target = _room(node.module)
        if target in (None, room) or target in GROUND:
            continue
        if any(part.startswith("_") for part in node.module.split(".")[2:]):
            found.append((node.lineno, node.module))
    return found


def test_no_room_imports_a_private_module_of_another_room():
    """A room reaches another through its public modules: ``gaussian`` imported eleven
    kernels from ``dp._grid_noise``, ``dp._clipping`` and ``dp._radius``; it imports them
    from ``dp.kernels`` now, the internal API that names them. The pairs left are listed
    with what closes them, and none may be added."""
    pairs = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path, PACKAGE)
        for _, target in _private_modules_of_other_rooms(path, module):
            pairs.add((_room(module), _room(target)))
    assert pairs <= _PRIVATE_MODULES_LEFT, pairs - _PRIVATE_MODULES_LEFT
    assert ("gaussian", "dp") not in pairs


def test_the_private_module_check_sees_a_private_module(tmp_path):
    path = tmp_path / "sklearn_privacy" / "gaussian" / "_l2.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "from sklearn_privacy.dp._grid_noise import grid_step\n"
        "from sklearn_privacy.dp.kernels import grid_step\n"
        "from sklearn_privacy.utils._validation import as_2d\n"
        "from sklearn_privacy.gaussian._base import X\n"
        "from sklearn_privacy._base import BaseMechanism\n"
    )
    module = _module_name(path, tmp_path / "sklearn_privacy")
    assert _private_modules_of_other_rooms(path, module) == [(1, "sklearn_privacy.dp._grid_noise")]


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


def module_graph(package=PACKAGE):
    """Each module of the package with the package's modules it imports (function-level
    imports included; a package stands for its ``__init__``)."""
    paths = {_module_name(path, package): path for path in sorted(package.rglob("*.py"))}
    return {
        module: _imports(path, module, paths) & set(paths) - {module}
        for module, path in paths.items()
    }


def find_cycle(graph):
    """One import cycle of ``graph`` as a list of modules (first == last), or ``[]``."""
    state = {}  # 1: on the current path, 2: done (no cycle through it)
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def test_modules_form_a_dag():
    """No circle at any scale: rooms form a DAG, and so do the modules inside a room (``utils``
    had one: ``_encoding`` imported ``_validation``, which imported ``is_continuous`` back
    inside a function)."""
    graph = module_graph()
    assert len(graph) >= 80
    assert find_cycle(graph) == []


def test_the_module_check_catches_a_planted_cycle(tmp_path):
    """A cycle closed by a function-level import, a relative import and ``from package import
    module`` is found; the same modules without the closing import are a DAG."""
    room = tmp_path / "sklearn_privacy" / "utils"
    room.mkdir(parents=True)
    (tmp_path / "sklearn_privacy" / "__init__.py").write_text("")
    (room / "__init__.py").write_text("from sklearn_privacy.utils._b import g\n")
    (room / "_a.py").write_text("from ._b import g\n")
    (room / "_b.py").write_text("def g():\n    from sklearn_privacy.utils import _c\n")
    (room / "_c.py").write_text("def h():\n    from sklearn_privacy.utils._a import f\n")
    graph = module_graph(tmp_path / "sklearn_privacy")
    assert graph["sklearn_privacy.utils._b"] == {"sklearn_privacy.utils._c"}
    assert find_cycle(graph) == [  # entered from the package's __init__, which imports _b
        "sklearn_privacy.utils._b",
        "sklearn_privacy.utils._c",
        "sklearn_privacy.utils._a",
        "sklearn_privacy.utils._b",
    ]
    (room / "_c.py").write_text("def h():\n    return 1\n")
    assert find_cycle(module_graph(tmp_path / "sklearn_privacy")) == []


def _code_lines(node, lines):
    """Lines of a function that hold code: no docstring, blank or comment-only lines."""
    body = node.body
    docstring = set()
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        docstring = set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(
        1
        for i in range(node.lineno, node.end_lineno + 1)
        if i not in docstring and lines[i - 1].strip() and not lines[i - 1].strip().startswith("#")
    )


def longest_functions(package=PACKAGE, n=6):
    """The ``n`` longest functions of the package: ``(code lines, module, name)``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((_code_lines(node, lines), _module_name(path, package), node.name))
    return sorted(found, reverse=True)[:n]


# The longest a function of the package may be, in code lines (docstring, blanks and
# comments aside): a longer one reads as named steps (issue 37).
MAX_FUNCTION_LINES = 80


def test_no_function_is_over_80_code_lines():
    """Long fits became named steps (PPAN's ``_fit_mechanism``, 83 lines; L2's ``_fit_rows``,
    116; the Gaussian private estimates): none may grow back past the bound."""
    (n_lines, module, name), *_ = longest_functions(n=1)
    assert n_lines <= MAX_FUNCTION_LINES, f"{module}.{name} has {n_lines} code lines"


def test_the_function_count_skips_docstrings_and_comments():
    text = 'def f():\n    """Doc.\n\n    More."""\n    # why\n\n    x = 1\n    return x\n'
    node = ast.parse(text).body[0]
    assert _code_lines(node, text.splitlines()) == 3


def _class_lines(path, name):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node.end_lineno - node.lineno + 1
    return 0


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE
    lines, edges, floors = house(root)
    print(f"{len(lines)} rooms, {max(floors.values()) + 1} floors, {sum(lines.values())} lines")
    for room in sorted(lines, key=lambda r: (floors[r], r)):
        below = ", ".join(sorted(edges.get(room, ())))
        print(f"  floor {floors[room]}  {room:16s} {lines[room]:6d} lines  imports: {below}")
    graph = module_graph(root)
    arrows = sum(len(targets) for targets in edges.values())
    print(
        f"{arrows} arrows between rooms; {len(graph)} modules, "
        f"{sum(len(t) for t in graph.values())} arrows between modules, "
        f"cycle: {' -> '.join(find_cycle(graph)) or 'none'}"
    )
    base = root / "_base.py"
    print(
        f"_base.py {len(base.read_text(encoding='utf-8').splitlines())} lines, "
        f"class BaseMechanism {_class_lines(base, 'BaseMechanism')} lines"
    )
    print("longest functions (code lines):")
    for n_lines, module, name in longest_functions(root):
        print(f"  {n_lines:4d}  {module}.{name}")
