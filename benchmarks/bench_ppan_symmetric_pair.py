"""PPAN on the symmetric pair (ppan-tripathy2017, sec. 3.1, Fig. 3).

S and Y on {0..9}, P(Y != S) = 0.4 (eq. 7), Hamming distortion P(Y != Z), 1000
training samples, both observation models (the mechanism sees Y only, or
(S, Y)). For every distortion budget, PPAN (finite alphabets: the minimal
softmax matrices and the exact expectation over Z, eq. 6, with the budget
penalty lam * max(0, E d - delta)^2) and estimate-then-optimise
(``ConvexPrivacyMapping`` on the same 1000 samples) are both evaluated under the
TRUE model: the learned P(Z | W) combined with the exact pmf. PPAN's leakage is
compared with eq. 8 / eq. 9 at the distortion it achieves. Writes
benchmarks/results/ppan_symmetric_pair.csv and .png.

    python benchmarks/bench_ppan_symmetric_pair.py [--n-budgets 9] [--epochs 1000] [--seed 0]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-budgets", type=int, default=9)
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--lam", type=float, default=500.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    pmf = symmetric_pair_pmf(M, P)
    s, y = make_symmetric_pair(args.n_samples, m=M, p=P, random_state=args.seed)
    X = np.c_[s, y]
    rows = []
    # (observation, optimum, largest budget, Adam's lr, adversary steps, epochs factor)
    for observation, theory, top, lr, k, factor in (
        ("released", symmetric_pair_useful_data, 0.85, 0.02, 1, 1.0),
        ("full", symmetric_pair_full_data, 0.5, 0.1, 5, 1.5),
    ):
        full = observation == "full"
        for budget in np.linspace(0.0, top, args.n_budgets):
            t0 = time.perf_counter()
            ppan = PPANTransformer(
                max_distortion=float(budget),
                lam=args.lam,
                observation=observation,
                max_epochs=int(args.epochs * factor),
                adversary_steps=k,
                batch_size=args.n_samples,
                lr=lr,
                sensitive=[0],
                random_state=args.seed,
            ).fit(X)
            t_ppan = time.perf_counter() - t0
            leak, dist = true_operating_point(ppan, pmf, full)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                convex = ConvexPrivacyMapping(
                    max_distortion=float(budget), observation=observation, sensitive=[0]
                ).fit(X)
            c_leak, c_dist = true_operating_point(convex, pmf, full)
            rows.append(
                {
                    "observation": observation,
                    "budget": float(budget),
                    "ppan_distortion": dist,
                    "ppan_leakage": leak,
                    "theory_at_ppan": float(theory(M, P, min(dist, 1.0))),
                    "convex_distortion": c_dist,
                    "convex_leakage": c_leak,
                    "theory_at_convex": float(theory(M, P, min(c_dist, 1.0))),
                    "ppan_fit_s": t_ppan,
                }
            )
    wall = time.perf_counter() - start

    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "ppan_symmetric_pair.csv"
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    header = (
        f"{'obs':8s} {'budget':>6s} {'D_ppan':>7s} {'I_ppan':>7s} {'I*(D)':>7s} {'gap':>7s} "
        f"{'D_cvx':>7s} {'I_cvx':>7s} {'gap_cvx':>7s} {'ppan<=cvx':>9s} {'fit s':>6s}"
    )
    print(header)
    for r in rows:
        gap = r["ppan_leakage"] - r["theory_at_ppan"]
        gap_c = r["convex_leakage"] - r["theory_at_convex"]
        print(
            f"{r['observation']:8s} {r['budget']:6.3f} {r['ppan_distortion']:7.4f} "
            f"{r['ppan_leakage']:7.4f} {r['theory_at_ppan']:7.4f} {gap:7.4f} "
            f"{r['convex_distortion']:7.4f} {r['convex_leakage']:7.4f} {gap_c:7.4f} "
            f"{str(gap <= gap_c + 1e-3):>9s} {r['ppan_fit_s']:6.2f}"
        )
    for obs in ("released", "full"):
        sub = [r for r in rows if r["observation"] == obs]
        gaps = [r["ppan_leakage"] - r["theory_at_ppan"] for r in sub]
        better = sum(
            g <= r["convex_leakage"] - r["theory_at_convex"] + 1e-3 for g, r in zip(gaps, sub)
        )
        print(
            f"{obs}: max gap to eq. {'9' if obs == 'released' else '8'} = {max(gaps):.4f} nats; "
            f"within 0.05 at {sum(g <= 0.05 for g in gaps)}/{len(gaps)} budgets; PPAN's gap <= "
            f"estimate-then-optimise's at {better}/{len(gaps)}"
        )
    print(f"wall time {wall:.1f} s; wrote {path}")
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
    for ax, obs, theory, title in (
        (axes[0], "full", symmetric_pair_full_data, "(a) full data, eq. 8"),
        (axes[1], "released", symmetric_pair_useful_data, "(b) useful data only, eq. 9"),
    ):
        sub = [r for r in rows if r["observation"] == obs]
        ax.plot(grid, theory(M, P, grid), "k-", label="optimal (true model)")
        ax.plot(
            [r["ppan_distortion"] for r in sub],
            [r["ppan_leakage"] for r in sub],
            "o",
            label="PPAN (true model)",
        )
        ax.plot(
            [r["convex_distortion"] for r in sub],
            [r["convex_leakage"] for r in sub],
            "x",
            label="estimate-then-optimise",
        )
        ax.set(title=title, xlabel="distortion P(Y != Z)", ylabel="I(S; Z) [nats]")
        ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "ppan_symmetric_pair.png", dpi=120)


if __name__ == "__main__":
    main()
