"""PPAN on the symmetric pair (ppan-tripathy2017, sec. 3.1, Fig. 3), at default training settings.

S and Y on {0..9}, P(Y != S) = 0.4 (eq. 7), Hamming distortion P(Y != Z), 1000
training samples, both observation models (the mechanism sees Y only, or
(S, Y)). Every PPAN fit uses the library's defaults (``PPANTransformer(
max_distortion=..., observation=..., sensitive=[0])``: exact steps on the finite
alphabets and the stopping rule), and every mechanism is evaluated under the
TRUE model: the learned P(Z | W) combined with the exact pmf.

1. Four budgets (0.1, 0.3, 0.5, 0.7), both observations: PPAN's leakage against
   eq. 9 (useful data) and eq. 8 (full data) at the distortion it achieves, the
   epochs, and the wall and CPU seconds of each fit. Claim: within 0.02 nats,
   each fit at most 30 s. Beside it, the gap of the convex program on the same
   rows: what is left when the optimisation is exact is the sampling error of
   1000 rows (the mapping is optimal for the rows, not for the model).
2. Full data, nine budgets in [0, 0.5]: PPAN against estimate-then-optimise
   (``ConvexPrivacyMapping``, the convex program on the same 1000 samples),
   both measured as the gap to eq. 8 at their own distortion. Claim: PPAN's gap
   is at most 0.01 nats above the convex program's.

Writes benchmarks/results/ppan_symmetric_pair.csv and .png.

    python benchmarks/bench_ppan_symmetric_pair.py [--n-samples 1000] [--seed 0]
"""

import argparse
import csv
import time
import warnings

import numpy as np
from _common import RESULTS

from sklearn_privacy import ConvexPrivacyMapping, PPANTransformer
from sklearn_privacy.datasets import make_symmetric_pair, symmetric_pair_pmf
from sklearn_privacy.information import mutual_information
from sklearn_privacy.theory import symmetric_pair_full_data, symmetric_pair_useful_data

M, P = 10, 0.4
THEORY = {"released": symmetric_pair_useful_data, "full": symmetric_pair_full_data}
EQUATION = {"released": "eq. 9", "full": "eq. 8"}
BUDGETS = (0.1, 0.3, 0.5, 0.7)
GAP_CLAIM, SECONDS_CLAIM, CONVEX_CLAIM = 0.02, 30.0, 0.01


def true_operating_point(mech, pmf, full):
    """(leakage, distortion) of the fitted mapping under the exact pmf ``pmf[s, y]``."""
    mapping = mech.mapping_
    y_vals = mech.input_records_[:, 0].astype(int)
    z_vals = mech.output_records_[:, 0].astype(int)
    d = (y_vals[:, None] != z_vals[None, :]).astype(float)
    joint_sy = pmf[:, y_vals]  # every value is seen in 1000 samples
    if full:
        s_vals = np.asarray(mech.sensitive_records_).ravel().astype(int)
        cond = np.zeros((M, len(y_vals), len(z_vals)))
        cond[s_vals] = mapping
        s_z = np.einsum("sy,syz->sz", joint_sy, cond)
        dist = float(np.einsum("sy,syz,yz->", joint_sy, cond, d))
    else:
        s_z = joint_sy @ mapping
        dist = float(joint_sy.sum(axis=0) @ (mapping * d).sum(axis=1))
    return mutual_information(s_z), dist


def fit_ppan(X, budget, observation, seed):
    """A default PPAN fit: the mechanism, wall and CPU seconds, and the warnings it raised."""
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mech = PPANTransformer(
            max_distortion=float(budget),
            observation=observation,
            sensitive=[0],
            random_state=seed,
        ).fit(X)
    return mech, time.perf_counter() - wall, time.process_time() - cpu, caught


def fit_convex(X, budget, observation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return ConvexPrivacyMapping(
            max_distortion=float(budget), observation=observation, sensitive=[0]
        ).fit(X)


def measure(X, pmf, budget, observation, seed, *, part):
    full = observation == "full"
    theory = THEORY[observation]
    mech, wall, cpu, caught = fit_ppan(X, budget, observation, seed)
    leak, dist = true_operating_point(mech, pmf, full)
    row = {
        "part": part,
        "observation": observation,
        "budget": float(budget),
        "ppan_distortion": dist,
        "ppan_leakage": leak,
        "theory_at_ppan": float(theory(M, P, min(dist, 1.0))),
        "theory_at_budget": float(theory(M, P, budget)),
        "ppan_epochs": mech.n_iter_,
        "ppan_converged": mech.converged_,
        "ppan_wall_s": wall,
        "ppan_cpu_s": cpu,
        "ppan_warnings": len(caught),
    }
    row["ppan_gap"] = row["ppan_leakage"] - row["theory_at_ppan"]
    # estimate-then-optimise on the same rows
    c_leak, c_dist = true_operating_point(fit_convex(X, budget, observation), pmf, full)
    row.update(
        convex_distortion=c_dist,
        convex_leakage=c_leak,
        theory_at_convex=float(theory(M, P, min(c_dist, 1.0))),
    )
    row["convex_gap"] = c_leak - row["theory_at_convex"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    pmf = symmetric_pair_pmf(M, P)
    s, y = make_symmetric_pair(args.n_samples, m=M, p=P, random_state=args.seed)
    X = np.c_[s, y]
    rows = [
        measure(X, pmf, budget, observation, args.seed, part="defaults")
        for observation in ("released", "full")
        for budget in BUDGETS
    ]
    rows += [
        measure(X, pmf, budget, "full", args.seed, part="convex")
        for budget in np.linspace(0.0, 0.5, 9)
    ]
    wall = time.perf_counter() - start

    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "ppan_symmetric_pair.csv"
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)

    print("1. default settings, leakage under the true model against the optimum")
    print(
        f"{'obs':8s} {'budget':>6s} {'D':>7s} {'I(S;Z)':>7s} {'optimum':>8s} {'gap':>7s} "
        f"{'gap_cvx':>7s} {'epochs':>6s} {'conv':>5s} {'wall s':>6s} {'cpu s':>6s} {'warn':>4s}"
    )
    ok = True
    for r in rows:
        if r["part"] != "defaults":
            continue
        good = abs(r["ppan_gap"]) <= GAP_CLAIM and r["ppan_wall_s"] <= SECONDS_CLAIM
        ok &= good
        print(
            f"{r['observation']:8s} {r['budget']:6.2f} {r['ppan_distortion']:7.4f} "
            f"{r['ppan_leakage']:7.4f} {r['theory_at_ppan']:8.4f} {r['ppan_gap']:+7.4f} "
            f"{r['convex_gap']:+7.4f} {r['ppan_epochs']:6d} {str(r['ppan_converged']):>5s} "
            f"{r['ppan_wall_s']:6.2f} {r['ppan_cpu_s']:6.2f} {r['ppan_warnings']:4d}"
        )
    for obs in ("released", "full"):
        sub = [r for r in rows if r["part"] == "defaults" and r["observation"] == obs]
        print(
            f"{obs}: largest |gap| to {EQUATION[obs]} = "
            f"{max(abs(r['ppan_gap']) for r in sub):.4f} nats (claim <= {GAP_CLAIM}); "
            f"slowest fit {max(r['ppan_wall_s'] for r in sub):.2f} s wall (claim <= "
            f"{SECONDS_CLAIM:.0f}); the convex program's largest gap on the same rows "
            f"{max(abs(r['convex_gap']) for r in sub):.4f}"
        )
    first = [r for r in rows if r["part"] == "defaults"]
    print(
        "training's share (PPAN's gap minus the convex program's on the same rows), largest: "
        f"{max(r['ppan_gap'] - r['convex_gap'] for r in first):+.4f} nats"
    )
    print()
    print("2. full data: PPAN (defaults) against estimate-then-optimise, gaps to eq. 8")
    print(
        f"{'budget':>6s} {'D_ppan':>7s} {'I_ppan':>7s} {'gap':>7s} {'D_cvx':>7s} {'I_cvx':>7s} "
        f"{'gap_cvx':>7s} {'excess':>7s} {'epochs':>6s} {'wall s':>6s}"
    )
    worst = -np.inf
    for r in rows:
        if r["part"] != "convex":
            continue
        excess = r["ppan_gap"] - r["convex_gap"]
        worst = max(worst, excess)
        print(
            f"{r['budget']:6.4f} {r['ppan_distortion']:7.4f} {r['ppan_leakage']:7.4f} "
            f"{r['ppan_gap']:+7.4f} {r['convex_distortion']:7.4f} {r['convex_leakage']:7.4f} "
            f"{r['convex_gap']:+7.4f} {excess:+7.4f} {r['ppan_epochs']:6d} "
            f"{r['ppan_wall_s']:6.2f}"
        )
    ok &= worst <= CONVEX_CLAIM
    print(
        f"largest excess of PPAN's gap over estimate-then-optimise's: {worst:+.4f} nats "
        f"(claim <= {CONVEX_CLAIM})"
    )
    print(f"claims {'hold' if ok else 'FAIL'}; wall time {wall:.1f} s; wrote {path}")
    _plot(rows)


def _plot(rows):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    grid = np.linspace(0, 1, 201)
    for ax, obs, title in (
        (axes[0], "full", "(a) full data, eq. 8"),
        (axes[1], "released", "(b) useful data only, eq. 9"),
    ):
        ax.plot(grid, THEORY[obs](M, P, grid), "k-", label="optimal (true model)")
        sub = [r for r in rows if r["observation"] == obs]
        ax.plot(
            [r["ppan_distortion"] for r in sub],
            [r["ppan_leakage"] for r in sub],
            "o",
            label="PPAN, default settings (true model)",
        )
        cvx = [r for r in sub if r["part"] == "convex"]
        if cvx:
            ax.plot(
                [r["convex_distortion"] for r in cvx],
                [r["convex_leakage"] for r in cvx],
                "x",
                label="estimate-then-optimise",
            )
        ax.set(title=title, xlabel="distortion P(Y != Z)", ylabel="I(S; Z) [nats]")
        ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "ppan_symmetric_pair.png", dpi=120)


if __name__ == "__main__":
    main()
