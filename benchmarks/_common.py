"""What the benchmark scripts share.

Where results and data are, the empirical joint pmf, CSV writing, the Agg pyplot, saving a
figure and the Pareto front of a set of points.
"""

import importlib.util
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

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


def _format_cell(value):
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def write_csv(rows, path, header=None):
    """Write ``rows`` as CSV and return the path written.

    ``rows`` is a list of dicts (the header is the first row's keys) or of
    sequences (then ``header`` names the columns). Floats are written with six
    significant digits. A relative ``path`` is taken under :data:`RESULTS`.
    """
    rows = list(rows)
    path = Path(path)
    if not path.is_absolute():
        path = RESULTS / path
    path.parent.mkdir(parents=True, exist_ok=True)
    if rows and isinstance(rows[0], dict):
        header = list(rows[0]) if header is None else list(header)
        rows = [[row[key] for key in header] for row in rows]
    with open(path, "w") as f:
        if header is not None:
            f.write(",".join(header) + "\n")
        for row in rows:
            f.write(",".join(_format_cell(v) for v in row) + "\n")
    return path


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or None when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, name, dpi=120):
    """Save ``fig`` as ``RESULTS / name`` (``.png`` if no suffix), close it, return the path."""
    path = Path(name)
    if not path.suffix:
        path = path.with_suffix(".png")
    if not path.is_absolute():
        path = RESULTS / path
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    fig.clear()
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def pareto_front(x, y, *, maximize_x=True, maximize_y=False):
    """Indices of the points no other point dominates, sorted by increasing ``x``.

    A point dominates another when it is at least as good in both coordinates
    (larger or smaller as ``maximize_x`` and ``maximize_y`` say) and strictly
    better in one; of equal points the first is kept. Greedy paths swept over a
    threshold are not monotone in it: drawing their front (or the points alone)
    instead of joining them in threshold order avoids a sawtooth.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    gx = x if maximize_x else -x
    gy = y if maximize_y else -y
    keep = []
    for i in range(len(x)):
        better_eq = (gx >= gx[i]) & (gy >= gy[i])
        strict = better_eq & ((gx > gx[i]) | (gy > gy[i]))
        same = (gx == gx[i]) & (gy == gy[i])
        if not strict.any() and not (same[:i].any()):
            keep.append(i)
    keep = np.array(keep, dtype=int)
    return keep[np.argsort(x[keep], kind="stable")]


def load_test_reference(name):
    """The tests' reference module ``tests/<name>.py`` (an oracle a benchmark times), loaded
    from its file: neither folder is put on the other's import path."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def module_at_ref(path, ref):
    """The module at ``path`` (relative to the repository) as it was at git ``ref``.

    Loaded from a temporary copy under a new name, so a benchmark can run the
    baseline and the current code in the same process.
    """
    source = subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    name = Path(path).stem + "_baseline"
    copy = Path(tempfile.mkdtemp()) / f"{name}.py"
    copy.write_text(source)
    spec = importlib.util.spec_from_file_location(name, copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checkout_at_ref(ref):
    """A temporary git worktree of the repository at ``ref`` (its folder).

    With :func:`run_with_package`, a benchmark runs the whole package of an
    earlier commit beside today's, in the same run.
    """
    folder = tempfile.mkdtemp(prefix="sklearn_privacy_baseline_")
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--force", folder, ref],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    return folder


def remove_checkout(folder):
    """Remove a worktree made by :func:`checkout_at_ref`."""
    subprocess.run(["git", "worktree", "remove", "--force", folder], cwd=REPO, capture_output=True)


# numpy's CPU settings a speed benchmark runs under (``NPY_DISABLE_CPU_FEATURES``): the CPU as
# it is, its AVX-512 loops off (what a CPU without AVX-512 runs; on one without, the same), and
# its AVX2 loops off too (numpy's X86_V2 baseline). torch follows with ``ATEN_CPU_CAPABILITY``.
CPU_SETTINGS = {
    "as is": {},
    "no AVX-512": {
        "NPY_DISABLE_CPU_FEATURES": "AVX512_SPR AVX512_ICL X86_V4",
        "ATEN_CPU_CAPABILITY": "avx2",
    },
    "no AVX2": {
        "NPY_DISABLE_CPU_FEATURES": "AVX512_SPR AVX512_ICL X86_V4 X86_V3",
        "ATEN_CPU_CAPABILITY": "default",
    },
}

_CPU_NOTE = """
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
import platform
model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
              if line.startswith("model name")), platform.processor())
print(repr((model, [name for name in __cpu_dispatch__ if __cpu_features__.get(name)])))
"""


def cpu_seconds(call):
    """``call()``'s CPU seconds (this process, all its threads) and its result."""
    start = time.process_time()
    result = call()
    return time.process_time() - start, result


def best_cpu_seconds(calls, repeat=2):
    """Best-of-``repeat`` CPU seconds of each named call (a dict of name to call)."""
    return {name: min(cpu_seconds(call)[0] for _ in range(repeat)) for name, call in calls.items()}


def cpu_note(setting="as is"):
    """The CPU's model and the numpy dispatch targets a child under ``setting`` uses."""
    model, used = run_with_package(REPO, _CPU_NOTE, env=CPU_SETTINGS[setting])
    return f"{model}; numpy loops: {' '.join(used) or 'baseline only'}"


def run_with_package(package_root, code, env=None):
    """Run Python ``code`` in a child that imports ``sklearn_privacy`` from ``package_root``.

    The child also sees ``benchmarks/`` (this folder) and the variables ``env`` (such as a
    :data:`CPU_SETTINGS` value); its last line of output is returned, parsed as a Python literal.
    """
    import ast
    import sys

    env = dict(
        os.environ,
        **(env or {}),
        PYTHONPATH=os.pathsep.join([str(package_root), str(REPO / "benchmarks")]),
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])
