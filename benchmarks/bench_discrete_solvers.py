"""The discrete solvers of issue 38, a baseline commit against this tree in the same run.

``python benchmarks/bench_discrete_solvers.py [--baseline 4730279] [--cpu-settings ...]
[parts...]``, parts among ``pages`` (the greedy triangle's first touch on ``np.empty`` against
``mmap`` pages, in this process), ``certificate`` (maximum leakage at 500 symbols, |S| = 6,
Dirichlet(0.5) joint drawn with each of ``--seeds``, Hamming, budget 0.05: CPU time and certified
gap), ``greedy`` (the greedy funnel at 20 000 dense symbols) and ``convex`` (average leakage on
Adult's 2142 symbols, the table of ``bench_convex_scaling.adult_table``; its data from
``$SKLEARN_PRIVACY_DATA``); each of the last three alternates baseline and new child processes, at 1
and at 2 BLAS/OpenMP threads under ``threadpool_limits`` (the greedy's ``n_jobs`` set to the same
count; the convex path takes its thread count from those limits) and under each of
``--cpu-settings`` (numpy's CPU settings of ``_common.CPU_SETTINGS``, by default "as is" and "no
AVX-512"; the CPU's model and the numpy loops each leaves on are printed once per setting), and
prints wall and CPU seconds, the new/baseline ratios of each setting (best of ``--repeats``), and
the load average before and after each part (wall ratios on a loaded machine are pessimistic). So
one run prints the ratios against the baseline on both CPU settings. The new tree runs on the
compiled kernels where numba (the ``fast`` extra) is installed, their loading included in its time.
"""

import argparse
import mmap
import os
import resource

import numpy as np
from _common import (
    CPU_SETTINGS,
    REPO,
    checkout_at_ref,
    cpu_note,
    default_data_home,
    remove_checkout,
    run_with_package,
)

_CHILD = """
import os, resource, time
import numpy as np
from threadpoolctl import threadpool_limits
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
{setup}
with threadpool_limits({threads}):
    wall, c = time.perf_counter(), cpu()
    out = {run}
    wall, c = time.perf_counter() - wall, cpu() - c
print(repr((wall, c, out)))
"""

_PARTS = {
    "certificate": (
        "from sklearn_privacy.discrete import min_maximum_leakage_mapping\n"
        "rng = np.random.default_rng({seed})\n"
        "joint = rng.dirichlet(np.full(6 * 500, 0.5)).reshape(6, 500)\n"
        "D = 1 - np.eye(500)",
        "(lambda r: (float(r['gap']), float(r['maximum_leakage'])))("
        "min_maximum_leakage_mapping(joint, D, 0.05, solver='first-order'))",
    ),
    "greedy": (
        "from sklearn_privacy.discrete import greedy_merge\n"
        "rng = np.random.default_rng(0)\n"
        "joint = rng.dirichlet(np.full(8 * 20000, 0.5)).reshape(8, 20000)",
        "(lambda p: (len(p.merges), float(p.leakage[-1])))(greedy_merge(joint, threshold=0.8 * "
        "float(-(joint.sum(0) * np.log(joint.sum(0))).sum()){jobs}))",
    ),
    "convex": (
        "import warnings\n"
        "from bench_convex_scaling import adult_table\n"
        "from sklearn_privacy.discrete import ConvexPrivacyMapping\n"
        "warnings.simplefilter('ignore')\n"
        "X, w = adult_table()  # S = sex; workclass, education, marital-status, occupation",
        "(lambda m: (float(m.leakage_), float(m.gap_), m.n_iter_))(ConvexPrivacyMapping("
        "max_distortion=0.1, sensitive=[0], max_categories=None).fit(X, sample_weight=w))",
    ),
}


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def pages(size=50_000_000, repeats=6):
    """First touch of a ``size``-float triangle on ``np.empty`` and on ``mmap`` pages."""
    makers = {
        "np.empty": lambda: np.empty(size),
        "mmap": lambda: np.frombuffer(mmap.mmap(-1, 8 * size), dtype=np.float64),
    }
    times = {name: [] for name in makers}
    for _ in range(repeats):
        for name, make in makers.items():
            start = _cpu()
            a = make()
            for i in range(0, size, 1_000_000):
                a[i : i + 1_000_000] = 1.0
            times[name].append(_cpu() - start)
            del a
    for path in ("enabled", "defrag"):
        try:
            with open(f"/sys/kernel/mm/transparent_hugepage/{path}") as f:
                print(f"THP {path}: {f.read().strip()}")
        except OSError:
            pass
    for name, values in times.items():
        each = ", ".join(f"{v:.3f}" for v in values)
        print(f"{name}: median {np.median(values):.3f} s CPU ({each})")


def compare(part, baseline, repeats, threads, data_home, settings, seed=0):
    setup, run = _PARTS[part]
    setup = setup.format(data_home=data_home, seed=seed)
    os.environ.setdefault("SKLEARN_PRIVACY_DATA", data_home)
    folder = checkout_at_ref(baseline)
    try:
        for setting in settings:
            for n_threads in threads:
                codes = {
                    name: _CHILD.format(setup=setup, run=run.format(jobs=jobs), threads=n_threads)
                    for name, jobs in (("baseline", ""), ("new", f", n_jobs={n_threads}"))
                }
                rows = {"baseline": [], "new": []}
                for _ in range(repeats):
                    for name, root in (("baseline", folder), ("new", REPO)):
                        rows[name].append(
                            run_with_package(root, codes[name], env=CPU_SETTINGS[setting])
                        )
                label = f"{part}{f' seed {seed}' if seed else ''} [{setting}] {n_threads} thread(s)"
                for name, values in rows.items():
                    print(
                        f"{label} {name}: "
                        + "; ".join(f"wall {w:.2f} s CPU {c:.2f} s -> {o}" for w, c, o in values)
                    )
                best = {k: (min(v[0] for v in vs), min(v[1] for v in vs)) for k, vs in rows.items()}
                print(
                    f"{label}: new/baseline wall {best['new'][0] / best['baseline'][0]:.2f}, CPU "
                    f"{best['new'][1] / best['baseline'][1]:.2f} (best of {repeats})",
                    flush=True,
                )
    finally:
        remove_checkout(folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["pages", "certificate", "greedy", "convex"])
    parser.add_argument("--baseline", default="4730279")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="certificate's joints")
    parser.add_argument(
        "--cpu-settings", nargs="+", choices=list(CPU_SETTINGS), default=["as is", "no AVX-512"]
    )
    args = parser.parse_args()
    if set(args.parts) - {"pages"}:
        for setting in args.cpu_settings:
            print(f"[{setting}] {cpu_note(setting)}", flush=True)
    for part in args.parts:
        if part == "pages":
            pages()
            continue
        for seed in args.seeds if part == "certificate" else [0]:
            print(f"load average before {part}: {os.getloadavg()}", flush=True)
            compare(
                part,
                args.baseline,
                args.repeats,
                args.threads,
                args.data_home,
                args.cpu_settings,
                seed,
            )
            print(f"load average after {part}: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
