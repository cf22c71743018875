"""Paper result: IAC-MDSF against the pairwise greedy on the Hungarian heart data.

submodular-funnel-ding, Fig. 3 and 4: S = (age, sex) and X = (sex, cholesterol)
or X = (age, cholesterol), raw values encoded by
:func:`~sklearn_privacy.datasets.discretize_heart_disease`: a missing
cholesterol is a symbol of its own (-1), which gives the paper's |X| = 197 for
(sex, cholesterol) (dropping the 23 rows with a missing cholesterol gives 195).
For the paper's lambda (``lam`` here) in [0, 1] it runs IAC-MDSF
(:func:`iac_mdsf`; SSP and MM solvers for the funnel, MM for the bottleneck
unless ``--bottleneck-solvers`` says otherwise, SSP being slow there) for the
privacy funnel (minimise ``I(S;Y) - lam I(X;Y)``) and the information
bottleneck (maximise it), and records the Pareto points
``(-I(X;Y)/H(X), I(S;Y)/H(S))``, the Lagrangian reached and the number of
iterations.

The paper's baseline (sec. IV-B, Fig. 3 and 4) is the pairwise merge of
makhdoumi2014 with a threshold: Alg. 1 for the funnel (least ``I(S;Y)`` with
``I(X;Y) >= R``) and Alg. 2 for the bottleneck (least ``I(X;Y)`` with
``I(S;Y) >= threshold``), swept over the threshold (:func:`greedy_sweep`),
plus one run at the level each IAC point reached. The figure draws the
threshold greedy as points with their Pareto front (a staircase: the paths are
not monotone in the threshold) and the IAC points beside them. A second
baseline, not in the paper, is labelled as such: the pairwise greedy on the
same Lagrangian (:func:`greedy_merge` with ``lam``), which stops when no pair
improves it. Printed:

- as in the paper's Fig. 3, each IAC point against the threshold greedy at the
  same level (Alg. 1 at ``R = I(X;Y)`` of the IAC point, Alg. 2 at its
  ``I(S;Y)``), and how many IAC points the whole threshold-greedy front
  dominates;
- as in Fig. 4, iterations: IAC-MDSF against the threshold greedy's merges;
- per lam, the Lagrangian reached by IAC-MDSF and by the Lagrangian greedy.

The paper's lambda is the multiplier of the low-level functions. The estimators'
scale-free ``lam`` (``SubmodularFunnel(lam=...)``) is ``lambda / r`` for the
funnel and ``r / lambda`` for the bottleneck, with ``r = I(S;X) / H(X)`` of the
setting; it is printed and written as ``estimator_lam``.

Writes ``benchmarks/results/submodular_heart.csv`` (IAC and Lagrangian greedy),
``submodular_heart_threshold.csv`` (the paper's threshold-greedy baseline) and
``submodular_heart.png``.
"""

import argparse
import time

import numpy as np
from _common import default_data_home, joint_of, pareto_front, pyplot, save_figure, write_csv

from sklearn_privacy.datasets import fetch_heart_disease_hungarian
from sklearn_privacy.discrete._greedy import greedy_merge, greedy_sweep
from sklearn_privacy.discrete._submodular import iac_mdsf
from sklearn_privacy.information import entropy, mutual_information

SETTINGS = {"X=(sex,chol)": ["sex", "chol"], "X=(age,chol)": ["age", "chol"]}
# Alphabet sizes the paper reports (submodular-funnel-ding, sec. IV).
PAPER_ALPHABET = {"X=(sex,chol)": 197}
# The paper's baseline per objective, and the one added here.
PAPER_BASELINE = {"funnel": "Alg. 1 (threshold R)", "bottleneck": "Alg. 2 (threshold on I(S;Y))"}
LAGRANGIAN = "lagrangian-greedy"
# Columns of a record.
SETTING, OBJECTIVE, LAM, ALGO, LEAK, NEG_DISC, LAGR, ITERS, K, SECONDS, EST_LAM = range(11)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-lam", type=int, default=21)
    parser.add_argument("--n-lam-bottleneck", type=int, default=11)
    parser.add_argument(
        "--n-thresholds", type=int, default=41, help="threshold sweep of the paper's baseline"
    )
    parser.add_argument("--solvers", nargs="+", default=["ssp", "mm"])
    parser.add_argument("--bottleneck-solvers", nargs="+", default=["mm"])
    args = parser.parse_args()
    frame = fetch_heart_disease_hungarian(
        data_home=args.data_home, as_frame=True, discretize=True
    ).frame
    records, matched, sweeps = [], [], []
    for name, x_columns in SETTINGS.items():
        joint = joint_of(frame, ["age", "sex"], x_columns)
        h_s, h_x = entropy(joint.sum(axis=1)), entropy(joint.sum(axis=0))
        i_sx = mutual_information(joint)
        rate = i_sx / h_x
        paper = f" (paper: {PAPER_ALPHABET[name]})" if name in PAPER_ALPHABET else ""
        print(
            f"\n{name}: {len(frame)} rows, |X| = {joint.shape[1]}{paper}, |S| = {joint.shape[0]}, "
            f"H(S) = {h_s:.3f}, H(X) = {h_x:.3f}, I(S;X) = {i_sx:.3f} nats, "
            f"r = I(S;X)/H(X) = {rate:.4f}"
        )
        print(
            f"{'objective':10s} {'lam':>5s} {'est. lam':>8s} {'algorithm':>17s} "
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
                        LAGRANGIAN,
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
                        f"{objective:10s} {lam:5.2f} {est_lam:8.3g} {algo:>17s} "
                        f"{leak / h_s:12.4f} {disc / h_x:12.4f} {lagr:11.4f} {iters:6d} "
                        f"{k:5d} {seconds:7.2f}"
                    )
            top = h_x if objective == "funnel" else i_sx
            levels = np.linspace(0, top, args.n_thresholds)
            sweeps.extend(threshold_greedy(joint, name, objective, levels, h_s, h_x))
            matched.extend(compare_fronts(joint, name, objective, records, h_s, h_x))
    summarize(records, matched, sweeps)
    write(records, matched, sweeps, sorted(set(args.solvers) | set(args.bottleneck_solvers)))


def threshold_greedy(joint, name, objective, levels, h_s, h_x):
    """The paper's baseline, makhdoumi2014 Alg. 1 (funnel) or Alg. 2 (bottleneck), per level."""
    t0 = time.perf_counter()
    paths = greedy_sweep(joint, levels, objective=objective)
    seconds = (time.perf_counter() - t0) / max(len(levels), 1)
    return [
        (
            name,
            objective,
            level,
            path.leakage[-1] / h_s,
            -path.disclosure[-1] / h_x,
            len(path.merges),
            path.n_clusters,
            seconds,
        )
        for level, path in zip(levels, paths)
    ]


def compare_fronts(joint, name, objective, records, h_s, h_x):
    """Each IAC point against the threshold greedy (Alg. 1 / Alg. 2) at the same level."""
    sel = [
        r
        for r in records
        if r[SETTING] == name and r[OBJECTIVE] == objective and r[ALGO] != LAGRANGIAN
    ]
    if objective == "funnel":
        levels = [-r[NEG_DISC] * h_x for r in sel]  # I(X;Y) of the IAC point
    else:
        levels = [r[LEAK] * h_s for r in sel]  # I(S;Y) of the IAC point
    levels = [max(v, 0.0) for v in levels]
    paths = greedy_sweep(joint, levels, objective=objective)
    out = []
    for r, path in zip(sel, paths):
        leak, disc = path.leakage[-1] / h_s, -path.disclosure[-1] / h_x
        # funnel: less leakage at the same disclosure; bottleneck: less rate at same relevance.
        if objective == "funnel":
            ok, strict = r[LEAK] <= leak + 1e-9, r[LEAK] < leak - 1e-9
        else:
            ok, strict = r[NEG_DISC] >= disc - 1e-9, r[NEG_DISC] > disc + 1e-9
        out.append(
            {
                "setting": name,
                "objective": objective,
                "lam": r[LAM],
                "algorithm": r[ALGO],
                "iac_leakage_over_HS": r[LEAK],
                "iac_neg_disclosure_over_HX": r[NEG_DISC],
                "iac_iterations": r[ITERS],
                "threshold_leakage_over_HS": leak,
                "threshold_neg_disclosure_over_HX": disc,
                "threshold_merges": len(path.merges),
                "iac_at_least_as_good": ok,
                "iac_strictly_better": strict,
            }
        )
    return out


def front_indices(points, objective):
    """Pareto front of (-I(X;Y)/H(X), I(S;Y)/H(S)) points for the objective."""
    # x = -I(X;Y)/H(X). Funnel: more disclosure (smaller x), less leakage (smaller y);
    # bottleneck: less rate (larger x), more relevance (larger y).
    if objective == "funnel":
        return pareto_front(points[:, 0], points[:, 1], maximize_x=False, maximize_y=False)
    return pareto_front(points[:, 0], points[:, 1], maximize_x=True, maximize_y=True)


def dominated(point, others, objective):
    """Whether some point of ``others`` is at least as good in both coordinates, better in one."""
    x, y = point
    if objective == "funnel":
        ge = (others[:, 0] <= x + 1e-12) & (others[:, 1] <= y + 1e-12)
        gt = (others[:, 0] < x - 1e-9) | (others[:, 1] < y - 1e-9)
    else:
        ge = (others[:, 0] >= x - 1e-12) & (others[:, 1] >= y - 1e-12)
        gt = (others[:, 0] > x + 1e-9) | (others[:, 1] > y + 1e-9)
    return bool(np.any(ge & gt))


def baseline_points(name, objective, matched, sweeps):
    """Every threshold-greedy point of a setting: the sweep and the matched runs."""
    pts = [(r[4], r[3]) for r in sweeps if r[0] == name and r[1] == objective]
    pts += [
        (m["threshold_neg_disclosure_over_HX"], m["threshold_leakage_over_HS"])
        for m in matched
        if m["setting"] == name and m["objective"] == objective
    ]
    return np.array(pts)


def summarize(records, matched, sweeps):
    print(
        "\nPaper's comparison (Fig. 3): each IAC point against the paper's baseline, the "
        "threshold greedy of makhdoumi2014 (funnel: Alg. 1 at R = I(X;Y) of the IAC point, "
        "less I(S;Y) is better; bottleneck: Alg. 2 at its I(S;Y), less I(X;Y) is better)"
    )
    for name in SETTINGS:
        for objective in ["funnel", "bottleneck"]:
            sel_all = [m for m in matched if m["setting"] == name and m["objective"] == objective]
            base = baseline_points(name, objective, matched, sweeps)
            for algo in sorted({m["algorithm"] for m in sel_all}):
                sel = [m for m in sel_all if m["algorithm"] == algo]
                wins = sum(m["iac_at_least_as_good"] for m in sel)
                strict = sum(m["iac_strictly_better"] for m in sel)
                beaten = sum(
                    dominated(
                        (m["iac_neg_disclosure_over_HX"], m["iac_leakage_over_HS"]),
                        base,
                        objective,
                    )
                    for m in sel
                )
                print(
                    f"  {name} {objective:10s} {algo}: at least as good at the same level for "
                    f"{wins}/{len(sel)} points, strictly better for {strict}; dominated by some "
                    f"threshold-greedy point: {beaten}/{len(sel)}"
                )
    print("\nIterations (paper Fig. 4): IAC-MDSF iterations vs threshold-greedy merges")
    for name in SETTINGS:
        for objective in ["funnel", "bottleneck"]:
            sel = [m for m in matched if m["setting"] == name and m["objective"] == objective]
            sweep = [r for r in sweeps if r[0] == name and r[1] == objective]
            for algo in sorted({m["algorithm"] for m in sel}):
                mine = [m for m in sel if m["algorithm"] == algo]
                it_i = np.mean([m["iac_iterations"] for m in mine])
                it_t = np.mean([m["threshold_merges"] for m in mine])
                print(
                    f"  {name} {objective:10s} {algo}: mean {it_i:.1f} iterations vs "
                    f"{it_t:.1f} merges at the same levels ({it_t / max(it_i, 1e-12):.0f}x); "
                    f"threshold sweep: up to {max(r[5] for r in sweep)} merges"
                )
    print(
        "\nNot in the paper: Lagrangian reached per lam, IAC-MDSF vs the pairwise greedy on the "
        "same Lagrangian (funnel: lower is better; bottleneck: higher is better)"
    )
    for name in SETTINGS:
        for objective in ["funnel", "bottleneck"]:
            sel = [r for r in records if r[SETTING] == name and r[OBJECTIVE] == objective]
            greedy = {r[LAM]: r for r in sel if r[ALGO] == LAGRANGIAN}
            sign = 1 if objective == "funnel" else -1
            for algo in sorted({r[ALGO] for r in sel} - {LAGRANGIAN}):
                iac = {r[LAM]: r for r in sel if r[ALGO] == algo}
                wins = sum(sign * (iac[lam][LAGR] - greedy[lam][LAGR]) <= 1e-9 for lam in greedy)
                it_g = np.mean([greedy[lam][ITERS] for lam in greedy])
                it_i = np.mean([iac[lam][ITERS] for lam in greedy])
                print(
                    f"  {name} {objective:10s} {algo}: at least as good for {wins}/{len(greedy)} "
                    f"lam; mean iterations {it_i:.1f} (IAC) vs {it_g:.1f} (Lagrangian greedy)"
                )


def write(records, matched, sweeps, solvers):
    write_csv(
        records,
        "submodular_heart.csv",
        header=[
            "setting",
            "objective",
            "lam",
            "algorithm",
            "leakage_over_HS",
            "neg_disclosure_over_HX",
            "lagrangian",
            "iterations",
            "n_clusters",
            "seconds",
            "estimator_lam",
        ],
    )
    write_csv(
        [(*r[:2], "threshold-sweep", r[2], *r[3:]) for r in sweeps]
        + [
            (
                m["setting"],
                m["objective"],
                f"matched-{m['algorithm']}-lam-{m['lam']:.2f}",
                np.nan,
                m["threshold_leakage_over_HS"],
                m["threshold_neg_disclosure_over_HX"],
                m["threshold_merges"],
                np.nan,
                np.nan,
            )
            for m in matched
        ],
        "submodular_heart_threshold.csv",
        header=[
            "setting",
            "objective",
            "run",
            "threshold_nats",
            "leakage_over_HS",
            "neg_disclosure_over_HX",
            "merges",
            "n_clusters",
            "seconds_per_threshold",
        ],
    )
    plot(records, matched, sweeps, solvers)


def plot(records, matched, sweeps, solvers):
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(2, 3, figsize=(16, 11))
    iac_style = {
        "iac-ssp": dict(marker="o", ms=7, mfc="none", color="tab:green"),
        "iac-mm": dict(marker="x", ms=6, color="tab:purple"),
    }
    for row, name in enumerate(SETTINGS):
        for col, objective in enumerate(["funnel", "bottleneck"]):
            ax = axes[row, col]
            base = np.array([(r[4], r[3]) for r in sweeps if r[0] == name and r[1] == objective])
            both = baseline_points(name, objective, matched, sweeps)
            front = both[front_indices(both, objective)]
            paper = PAPER_BASELINE[objective]
            ax.plot(
                base[:, 0],
                base[:, 1],
                ls="none",
                marker="s",
                ms=4,
                mfc="none",
                color="tab:blue",
                alpha=0.5,
                label=f"{paper}: one run per threshold",
            )
            ax.plot(
                front[:, 0],
                front[:, 1],
                color="tab:blue",
                lw=2,
                drawstyle="steps-post" if objective == "funnel" else "steps-pre",
                label=f"{paper}: Pareto front (paper's baseline)",
            )
            lagr = np.array(
                [
                    (r[NEG_DISC], r[LEAK])
                    for r in records
                    if r[SETTING] == name and r[OBJECTIVE] == objective and r[ALGO] == LAGRANGIAN
                ]
            )
            ax.plot(
                lagr[:, 0],
                lagr[:, 1],
                ls="none",
                marker="^",
                ms=5,
                color="tab:orange",
                alpha=0.8,
                label="pairwise greedy on the Lagrangian (not in the paper)",
            )
            for algo in [f"iac-{s}" for s in solvers]:
                pts = np.array(
                    [
                        (r[NEG_DISC], r[LEAK])
                        for r in records
                        if r[SETTING] == name and r[OBJECTIVE] == objective and r[ALGO] == algo
                    ]
                )
                if pts.size == 0:
                    continue
                ax.plot(
                    pts[:, 0],
                    pts[:, 1],
                    ls="none",
                    **iac_style.get(algo, dict(marker="D", ms=5)),
                    label=f"IAC-MDSF ({algo[4:].upper()}), one point per lambda",
                )
            what = "privacy funnel" if objective == "funnel" else "information bottleneck"
            ax.set_title(f"{what}, S=(age, sex), {name}", fontsize=10)
            ax.set_xlabel("-I(X;Y)/H(X) (nats per nat)")
            ax.set_ylabel("I(S;Y)/H(S) (nats per nat)")
            ax.legend(fontsize=7, loc="upper right" if objective == "funnel" else "lower left")
        ax = axes[row, 2]
        for objective, ls in [("funnel", "-"), ("bottleneck", "--")]:
            sel = [m for m in matched if m["setting"] == name and m["objective"] == objective]
            for algo in sorted({m["algorithm"] for m in sel}):
                mine = [m for m in sel if m["algorithm"] == algo]
                lam = [m["lam"] for m in mine]
                ax.semilogy(
                    lam,
                    np.maximum([m["iac_iterations"] for m in mine], 0.8),
                    ls=ls,
                    marker="o",
                    ms=3,
                    color=iac_style.get(algo, {}).get("color"),
                    label=f"IAC-MDSF ({algo[4:].upper()}), {objective}",
                )
                if algo == sorted({m["algorithm"] for m in sel})[0]:
                    ax.semilogy(
                        lam,
                        np.maximum([m["threshold_merges"] for m in mine], 0.8),
                        ls=ls,
                        marker="s",
                        ms=3,
                        color="tab:blue" if objective == "funnel" else "tab:cyan",
                        label=f"{PAPER_BASELINE[objective]} at the IAC level",
                    )
        ax.set_xlabel("lambda of the IAC run")
        ax.set_ylabel("iterations or merges (0 drawn at 0.8)")
        ax.set_title(f"iterations (paper Fig. 4), {name}", fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    fig.suptitle(
        "Hungarian heart disease: IAC-MDSF against the pairwise merge of makhdoumi2014 "
        "(Ding et al. Fig. 3, 4)"
    )
    fig.tight_layout()
    save_figure(fig, "submodular_heart.png", dpi=100)


if __name__ == "__main__":
    main()
