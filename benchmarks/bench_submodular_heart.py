"""Paper result: IAC-MDSF against the pairwise greedy on the Hungarian heart data.

submodular-funnel-ding, Fig. 3 and 4: S = (age, sex) and X = (sex, cholesterol)
or X = (age, cholesterol), raw values encoded by
:func:`~sklearn_privacy.datasets.discretize_heart_disease`: a missing
cholesterol is a symbol of its own (-1), which gives the paper's |X| = 197 for
(sex, cholesterol) (dropping the 23 rows with a missing cholesterol gives 195).
For the paper's lambda (``lam`` here) in [0, 1] it runs IAC-MDSF
(:func:`iac_mdsf`; SSP and MM solvers for the funnel, MM for the bottleneck
unless ``--bottleneck-solvers`` says otherwise, SSP being slow there) and the
pairwise greedy on the same Lagrangian (:func:`greedy_merge` with ``lam``), for
the privacy funnel (minimise ``I(S;Y) - lam I(X;Y)``) and the information
bottleneck (maximise it). It
records the Pareto points ``(I(S;Y)/H(S), -I(X;Y)/H(X))``, the Lagrangian
reached and the number of iterations (merges). Two comparisons are printed:

- per lam, the Lagrangian reached by IAC-MDSF and by the pairwise greedy;
- as in the paper's Fig. 3, each IAC-MDSF point against the threshold greedy
  (Alg. 1 for the funnel at ``R = I(X;Y)`` of the IAC point, Alg. 2 for the
  bottleneck at its ``I(S;Y)``): is it at least as good at the same level?

The paper's lambda is the multiplier of the low-level functions. The estimators'
scale-free ``lam`` (``SubmodularFunnel(lam=...)``) is ``lambda / r`` for the
funnel and ``r / lambda`` for the bottleneck, with ``r = I(S;X) / H(X)`` of the
setting; it is printed and written as ``estimator_lam``.

Writes ``benchmarks/results/submodular_heart.csv`` and ``.png``.
"""

import argparse
import time

import numpy as np
from _common import RESULTS, default_data_home, joint_of

from sklearn_privacy.datasets import fetch_heart_disease_hungarian
from sklearn_privacy.discrete._greedy import greedy_merge, greedy_sweep
from sklearn_privacy.discrete._submodular import iac_mdsf
from sklearn_privacy.information import entropy, mutual_information

SETTINGS = {"X=(sex,chol)": ["sex", "chol"], "X=(age,chol)": ["age", "chol"]}
# Alphabet sizes the paper reports (submodular-funnel-ding, sec. IV).
PAPER_ALPHABET = {"X=(sex,chol)": 197}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-lam", type=int, default=21)
    parser.add_argument("--n-lam-bottleneck", type=int, default=11)
    parser.add_argument("--solvers", nargs="+", default=["ssp", "mm"])
    parser.add_argument("--bottleneck-solvers", nargs="+", default=["mm"])
    args = parser.parse_args()
    frame = fetch_heart_disease_hungarian(
        data_home=args.data_home, as_frame=True, discretize=True
    ).frame
    records, fronts = [], []
    for name, x_columns in SETTINGS.items():
        joint = joint_of(frame, ["age", "sex"], x_columns)
        h_s, h_x = entropy(joint.sum(axis=1)), entropy(joint.sum(axis=0))
        rate = mutual_information(joint) / h_x
        paper = f" (paper: {PAPER_ALPHABET[name]})" if name in PAPER_ALPHABET else ""
        print(
            f"\n{name}: {len(frame)} rows, |X| = {joint.shape[1]}{paper}, |S| = {joint.shape[0]}, "
            f"H(S) = {h_s:.3f}, H(X) = {h_x:.3f}, I(S;X) = {mutual_information(joint):.3f} nats, "
            f"r = I(S;X)/H(X) = {rate:.4f}"
        )
        print(
            f"{'objective':10s} {'lam':>5s} {'est. lam':>8s} {'algorithm':>10s} "
            f"{'I(S;Y)/H(S)':>12s} {'I(X;Y)/H(X)':>12s} {'Lagrangian':>11s} {'iters':>6s} "
            f"{'|Y|':>5s} {'s':>7s}"
        )
        for objective in ["funnel", "bottleneck"]:
            n_lam = args.n_lam if objective == "funnel" else args.n_lam_bottleneck
            solvers = args.solvers if objective == "funnel" else args.bottleneck_solvers
            for lam in np.linspace(0, 1, n_lam):
                if objective == "funnel":
                    est_lam = lam / rate
                else:
                    est_lam = rate / lam if lam > 0 else np.inf
                runs = []
                t0 = time.perf_counter()
                path = greedy_merge(joint, objective=objective, lam=lam)
                runs.append(
                    (
                        "pairwise",
                        path.leakage[-1],
                        path.disclosure[-1],
                        len(path.merges),
                        path.n_clusters,
                        time.perf_counter() - t0,
                    )
                )
                for solver in solvers:
                    t0 = time.perf_counter()
                    iac = iac_mdsf(joint, lam, objective=objective, solver=solver)
                    runs.append(
                        (
                            f"iac-{solver}",
                            iac.leakage[-1],
                            iac.disclosure[-1],
                            iac.n_iter,
                            iac.n_clusters,
                            time.perf_counter() - t0,
                        )
                    )
                for algo, leak, disc, iters, k, seconds in runs:
                    lagr = leak - lam * disc
                    records.append(
                        (
                            name,
                            objective,
                            lam,
                            algo,
                            leak / h_s,
                            -disc / h_x,
                            lagr,
                            iters,
                            k,
                            seconds,
                            est_lam,
                        )
                    )
                    print(
                        f"{objective:10s} {lam:5.2f} {est_lam:8.3g} {algo:>10s} {leak / h_s:12.4f} "
                        f"{disc / h_x:12.4f} {lagr:11.4f} {iters:6d} {k:5d} {seconds:7.2f}"
                    )
            fronts.extend(compare_fronts(joint, name, objective, records, h_s, h_x))
    summarize(records, fronts)
    write(records, sorted(set(args.solvers) | set(args.bottleneck_solvers)))


def compare_fronts(joint, name, objective, records, h_s, h_x):
    """Each IAC point against the threshold greedy (Alg. 1 / Alg. 2) at the same level."""
    sel = [r for r in records if r[0] == name and r[1] == objective and r[3] != "pairwise"]
    if objective == "funnel":
        levels = [-r[5] * h_x for r in sel]  # I(X;Y) of the IAC point
    else:
        levels = [r[4] * h_s for r in sel]  # I(S;Y) of the IAC point
    levels = [min(max(v, 0.0), 1e9) for v in levels]
    paths = greedy_sweep(joint, levels, objective=objective)
    out = []
    for r, path in zip(sel, paths):
        leak, disc = path.leakage[-1] / h_s, -path.disclosure[-1] / h_x
        # funnel: less leakage at the same disclosure; bottleneck: less rate at same relevance.
        if objective == "funnel":
            ok, strict = r[4] <= leak + 1e-9, r[4] < leak - 1e-9
        else:
            ok, strict = r[5] >= disc - 1e-9, r[5] > disc + 1e-9
        out.append((name, objective, r[2], r[3], ok, leak, disc, len(path.merges), strict))
    return out


def summarize(records, fronts):
    print("\nPer lam: Lagrangian reached, IAC-MDSF vs pairwise greedy on the same Lagrangian")
    print("(funnel: lower is better; bottleneck: higher is better)")
    for name in SETTINGS:
        for objective in ["funnel", "bottleneck"]:
            sel = [r for r in records if r[0] == name and r[1] == objective]
            greedy = {r[2]: r for r in sel if r[3] == "pairwise"}
            sign = 1 if objective == "funnel" else -1
            for algo in sorted({r[3] for r in sel} - {"pairwise"}):
                iac = {r[2]: r for r in sel if r[3] == algo}
                wins = sum(sign * (iac[lam][6] - greedy[lam][6]) <= 1e-9 for lam in greedy)
                it_g = np.mean([greedy[lam][7] for lam in greedy])
                it_i = np.mean([iac[lam][7] for lam in greedy])
                print(
                    f"  {name} {objective:10s} {algo}: at least as good for {wins}/{len(greedy)} "
                    f"lam; mean iterations {it_i:.1f} (IAC) vs {it_g:.1f} (pairwise)"
                )
    print("\nFront (paper Fig. 3): IAC point vs threshold greedy at the same level")
    for name in SETTINGS:
        for objective in ["funnel", "bottleneck"]:
            for algo in sorted({f[3] for f in fronts if f[0] == name and f[1] == objective}):
                sel = [f for f in fronts if f[0] == name and f[1] == objective and f[3] == algo]
                wins = sum(f[4] for f in sel)
                iters = np.mean([f[7] for f in sel])
                print(
                    f"  {name} {objective:10s} {algo}: at least as good for {wins}/{len(sel)} "
                    f"points, strictly better for {sum(f[8] for f in sel)} "
                    f"(threshold greedy: mean {iters:.1f} merges)"
                )


def write(records, solvers):
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "submodular_heart.csv", "w") as f:
        f.write(
            "setting,objective,lam,algorithm,leakage_over_HS,neg_disclosure_over_HX,"
            "lagrangian,iterations,n_clusters,seconds,estimator_lam\n"
        )
        for r in records:
            f.write(",".join(str(v) if isinstance(v, str) else f"{v:.6g}" for v in r) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    for col, name in enumerate(SETTINGS):
        for objective, marker in [("funnel", "o"), ("bottleneck", "s")]:
            ax = axes[0, col]
            for algo in ["pairwise"] + [f"iac-{s}" for s in solvers]:
                pts = np.array(
                    [
                        (r[5], r[4])
                        for r in records
                        if r[0] == name and r[1] == objective and r[3] == algo
                    ]
                )
                if pts.size == 0:
                    continue
                ax.plot(
                    pts[:, 0],
                    pts[:, 1],
                    marker=marker,
                    ms=4,
                    ls="-" if objective == "funnel" else "--",
                    label=f"{objective} {algo}",
                )
            ax.set_xlabel("-I(X;Y)/H(X)")
            ax.set_ylabel("I(S;Y)/H(S)")
            ax.set_title(f"Pareto points, S=(age,sex), {name}")
        ax.legend(fontsize=7)
        ax = axes[1, col]
        for algo in ["pairwise"] + [f"iac-{s}" for s in solvers]:
            pts = np.array(
                [
                    (r[2], r[7])
                    for r in records
                    if r[0] == name and r[1] == "funnel" and r[3] == algo
                ]
            )
            if pts.size == 0:
                continue
            ax.semilogy(pts[:, 0], np.maximum(pts[:, 1], 0.8), marker="o", ms=4, label=algo)
        ax.set_xlabel("lam")
        ax.set_ylabel("iterations (funnel)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "submodular_heart.png", dpi=110)


if __name__ == "__main__":
    main()
