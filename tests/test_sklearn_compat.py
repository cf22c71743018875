"""scikit-learn's private names are imported in one module only (utils/_sklearn_compat.py)."""

import re
from pathlib import Path

import sklearn_privacy

PACKAGE = Path(sklearn_privacy.__file__).parent
IMPORT = re.compile(r"^from (sklearn(?:\.\w+)*) import (\([^)]*\)|[^\n]+)", re.M)


def test_private_scikit_learn_names_come_from_the_compat_module():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_sklearn_compat.py":
            continue
        for match in IMPORT.finditer(path.read_text()):
            module, names = match.group(1), match.group(2)
            names = [n.strip().split(" as ")[0] for n in names.strip("()").split(",") if n.strip()]
            if any(part.startswith("_") for part in module.split(".")) or any(
                n.startswith("_") for n in names
            ):
                offenders.append(f"{path.relative_to(PACKAGE)}: {match.group(0)[:60]}")
    assert not offenders, offenders
