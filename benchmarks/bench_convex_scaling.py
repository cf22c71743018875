"""ConvexPrivacyMapping at scale and for every distortion (issue 11, part 3).

Every case runs in a fresh subprocess (time, peak RSS from ``getrusage``):

- ``avg-2000`` / ``avg-5000``: Thm. 1 (average leakage), |S| = 6,
  |Y| = |U| = n, ``P(S, Y)`` Dirichlet(0.5) (seeded), Hamming, budget 0.05,
  fitted through the estimator from the table of distinct rows ``(s, y)`` with
  their probabilities as ``sample_weight``;
- ``adult``: Adult's workclass, education, marital-status and occupation
  (2142 joint symbols, real sparse counts; S = sex), Hamming, budget 0.1;
  ``adult-1634``: the same with education, marital-status, relationship and
  native-country (1634 joint symbols, the size of the issue's 1639);
- ``max-500``: Thm. 2 (maximum leakage), as ``avg`` with n = 500 (first-order
  path: smoothed maximum, certified bracket);
- ``10-symbol``: a 16-row table with 10 distinct values of Y (binary S), every
  distortion and both objectives, budgets 0.2, 0.5 and 1.0 (the case of
  issue 11).

``new`` is ``ConvexPrivacyMapping.fit`` of this tree; ``baseline`` is the solver
function of git ``--baseline-ref`` (the code before this change; the solver
alone, so a lower bound on its estimator time) where it finishes in reasonable
time (a run stopped at ``--baseline-timeout`` is reported as such). The
baseline runs the whole package of that commit (a temporary git worktree put
first on ``PYTHONPATH`` of its worker process), so any commit compares as it
was, also since the solvers are split over several ``_convex_*`` modules; its
table ``P(S, Y)`` and distortion are that commit's too. One case by hand:
``PYTHONPATH=<worktree> python bench_convex_scaling.py --worker adult baseline``
then ``--worker adult new``. ``gap``
is the certified bound on the distance to the optimum (first-order path), in
nats. Targets: avg-2000 <= 15 s with gap <= 1e-5, adult <= 15 s,
each 10-symbol fit <= 1 s. Writes ``benchmarks/results/convex_scaling.csv`` and
``.png``.

    python benchmarks/bench_convex_scaling.py [--cases avg-2000 adult ...] [--no-baseline]
        [--baseline-timeout 600]
"""

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _common import REPO, RESULTS, checkout_at_ref, default_data_home, remove_checkout

# The commit before issue 11's part 3: the old first-order path and line search.
BASELINE_REF = "b84e99c"
CASES = ["10-symbol", "max-500", "avg-2000", "adult", "adult-1634", "avg-5000"]


def synthetic_table(n, n_s=6, seed=0):
    """Distinct rows ``(s, y)`` and their probabilities: ``P(S, Y)`` Dirichlet(0.5)."""
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(n_s * n, 0.5)).reshape(n_s, n)
    s, y = np.nonzero(joint > 0)
    return np.column_stack([s, y]), joint[s, y]


ADULT_COLUMNS = {
    "adult": ["workclass", "education", "marital-status", "occupation"],  # 2142 symbols
    "adult-1634": ["education", "marital-status", "relationship", "native-country"],
}


def adult_table(case="adult"):
    import pandas as pd

    from sklearn_privacy.datasets import fetch_adult

    data = fetch_adult(data_home=default_data_home())
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    columns = ["sex", *ADULT_COLUMNS[case]]
    counts = frame[columns].value_counts().reset_index()
    return counts[columns].to_numpy(dtype=object), counts["count"].to_numpy(dtype=float)


def ten_symbol_table(seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, 16)
    y = rng.integers(0, 12, 16)
    return np.column_stack([s, y])


def _baseline_module():
    """The solver functions of the baseline package (its worker runs with the commit first on
    ``PYTHONPATH``); refuses this tree's package, which would compare it with itself."""
    import sklearn_privacy
    from sklearn_privacy import discrete

    if REPO in Path(sklearn_privacy.__file__).resolve().parents:
        raise RuntimeError(
            "the baseline worker imported this tree's sklearn_privacy: put the checkout of "
            "the baseline commit first on PYTHONPATH."
        )
    return discrete


def _fit(X, weights, budget, objective, distortion="hamming", solver="auto"):
    from sklearn_privacy.discrete import ConvexPrivacyMapping

    # The parameter was `objective="average_leakage"` before it became `leakage="average"`.
    if "leakage" in ConvexPrivacyMapping().get_params():
        mode = {"leakage": objective.split("_")[0]}
    else:
        mode = {"objective": objective}
    mech = ConvexPrivacyMapping(
        max_distortion=budget,
        **mode,
        distortion=distortion,
        solver=solver,
        max_categories=None,
        sensitive=[0],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        mech.fit(X, sample_weight=weights)
        seconds = time.perf_counter() - start
    return mech, seconds


def run_case(case, impl):
    """One measurement (in its own process); returns a list of rows."""
    rows = []
    if case == "10-symbol":
        X = ten_symbol_table()
        _fit(X, None, 0.2, "maximum_leakage")  # warm-up: imports, cvxpy's first compile
        for distortion in ("hamming", "absolute", "squared"):
            for objective in ("average_leakage", "maximum_leakage"):
                for budget in (0.2, 0.5, 1.0):
                    if impl == "new":
                        mech, seconds = _fit(X, None, budget, objective, distortion)
                        leak, gap, solver = mech.leakage_, mech.gap_, mech.solver_
                    else:
                        mech, _ = _fit(X, None, budget, objective, distortion)
                        old = _baseline_module()
                        fn = (
                            old.min_average_leakage_mapping
                            if objective == "average_leakage"
                            else old.min_maximum_leakage_mapping
                        )
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            start = time.perf_counter()
                            result = fn(mech.joint_, mech.distortion_matrix_, budget)
                            seconds = time.perf_counter() - start
                        key = "average" if objective == "average_leakage" else "maximum"
                        leak, gap = result[f"{key}_leakage"], result.get("gap", np.nan)
                        solver = result["solver"]
                    rows.append(
                        {
                            "case": f"10-symbol {distortion} {objective.split('_')[0]} {budget:g}",
                            "seconds": seconds,
                            "gap": gap,
                            "leakage": leak,
                            "solver": solver,
                        }
                    )
        return rows
    if case.startswith("adult"):
        X, weights = adult_table(case)
        budget, objective = 0.1, "average_leakage"
    else:
        kind, n = case.split("-")
        X, weights = synthetic_table(int(n))
        budget = 0.05
        objective = "average_leakage" if kind == "avg" else "maximum_leakage"
    if impl == "new":
        mech, seconds = _fit(X, weights, budget, objective)
        leak, gap, solver = mech.leakage_, mech.gap_, mech.solver_
    else:
        # The old solver function alone on the same joint and distortion.
        from sklearn_privacy.discrete import distortion_matrix
        from sklearn_privacy.discrete._alphabet import CategoricalAlphabet, empirical_joint

        old = _baseline_module()
        x_alpha = CategoricalAlphabet(max_categories=None)
        x_codes = x_alpha.fit_encode(X[:, 1:], weights)
        s_codes = CategoricalAlphabet(max_categories=None).fit_encode(X[:, :1], weights)
        joint = empirical_joint(
            s_codes, x_codes, s_codes.max() + 1, x_codes.max() + 1, sample_weight=weights
        )
        records = x_alpha.decode(np.arange(joint.shape[1]))
        D = distortion_matrix(records, kind="hamming")
        start = time.perf_counter()
        result = old.min_average_leakage_mapping(joint, D, budget, solver="first-order")
        seconds = time.perf_counter() - start
        leak, gap, solver = result["average_leakage"], result.get("gap", np.nan), "first-order"
    return [{"case": case, "seconds": seconds, "gap": gap, "leakage": leak, "solver": solver}]


def measure(case, impl, package_root=None, timeout=None):
    """Run one case in a fresh interpreter: rows plus its peak RSS (``timeout``: stop it).

    ``package_root``: a checkout whose ``sklearn_privacy`` the worker imports (the baseline).
    """
    env = dict(os.environ)
    if package_root is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(package_root), env.get("PYTHONPATH", "")])
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", case, impl],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        nan = float("nan")
        return [
            {"case": case, "seconds": timeout, "gap": nan, "leakage": nan, "solver": "stopped"}
            | {"impl": impl, "peak_mb": nan}
        ]
    if out.returncode:
        raise RuntimeError(f"{case} ({impl}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", nargs="+", default=CASES, choices=CASES)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--baseline-ref", default=BASELINE_REF)
    parser.add_argument(
        "--baseline-timeout", type=float, default=600.0, help="stop a baseline run after this"
    )
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        case, impl = args.worker
        rows = run_case(case, impl)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for row in rows:
            row["impl"], row["peak_mb"] = impl, peak
        print(json.dumps(rows, default=float))
        return
    # The old path where it finishes in reasonable time (5000: minutes; max-500:
    # 23 interior-point solves of 250000 variables).
    baseline_cases = {"avg-2000", "adult", "10-symbol"}
    rows = []
    print(
        f"{'case':34s} {'impl':8s} {'seconds':>8} {'gap':>9} {'leakage':>12} {'peak MB':>8} solver"
    )
    with_baseline = not args.no_baseline and baseline_cases & set(args.cases)
    checkout = checkout_at_ref(args.baseline_ref) if with_baseline else None
    try:
        for case in args.cases:
            impls = ["new"]
            if with_baseline and case in baseline_cases:
                impls.append("baseline")
            for impl in impls:
                root, timeout = (
                    (checkout, args.baseline_timeout) if impl == "baseline" else (None, None)
                )
                for row in measure(case, impl, root, timeout):
                    rows.append(row)
                    print(
                        f"{row['case']:34s} {impl:8s} {row['seconds']:8.3f} {row['gap']:9.2e} "
                        f"{row['leakage']:12.8f} {row['peak_mb']:8.0f} {row['solver']}",
                        flush=True,
                    )
    finally:
        if checkout is not None:
            remove_checkout(checkout)
    by = {(r["case"], r["impl"]): r for r in rows}
    for (case, impl), row in by.items():
        if impl == "new" and (case, "baseline") in by:
            base = by[(case, "baseline")]
            print(
                f"{case}: baseline / new time = {base['seconds'] / row['seconds']:.1f}x, "
                f"leakage new - baseline = {row['leakage'] - base['leakage']:+.2e} nats"
            )
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "convex_scaling.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    big = [r for r in rows if not r["case"].startswith("10-symbol")]
    labels = list(dict.fromkeys(r["case"] for r in big))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.4
    for k, impl in enumerate(("baseline", "new")):
        heights = [by.get((c, impl), {}).get("seconds", np.nan) for c in labels]
        ax.bar(np.arange(len(labels)) + (k - 0.5) * width, heights, width, label=impl)
    ax.axhline(15, color="grey", linestyle="--", linewidth=1, label="15 s target")
    ax.set_xticks(np.arange(len(labels)), labels)
    ax.set_yscale("log")
    ax.set_ylabel("fit time (s)")
    ax.set_title("ConvexPrivacyMapping, Hamming")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "convex_scaling.png", dpi=120)


if __name__ == "__main__":
    main()
