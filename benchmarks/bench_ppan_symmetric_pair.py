"""PPAN on the symmetric pair (ppan-tripathy2017, Fig. 3): exact steps and the paper's minibatches.

S and Y on {0..9}, P(Y != S) = 0.4 (eq. 7), Hamming distortion P(Y != Z), 1000
training samples, both observation models (the mechanism sees Y only, or
(S, Y)). Every mechanism is evaluated under the TRUE model (the learned
P(Z | W) combined with the exact pmf, as the paper does) and on the fit rows
(in-sample: under their empirical distribution, ``leakage_``). Three series:

- **exact**: ``PPANTransformer`` at its defaults (``PPANTransformer(
  max_distortion=..., observation=..., sensitive=[0])``). On these finite
  columns the default trains no network: each epoch is one exact step over the
  rows' empirical distribution (the adversary set to the exact posterior, an
  exponentiated-gradient step of the mechanism's table), with the stopping rule;
- **minibatch**: the paper's own algorithm, two networks trained by minibatches
  (sec. 3.1.2): the minimal softmax matrices ``softmax(G w)`` and ``softmax(A z)``,
  minibatches of 100, one adversary update per mechanism update, Adam (Chainer's
  default learning rate 1e-3, the paper names none), ``lam`` 500, 2500 epochs for
  full data and 2000 for useful data only, the stopping rule off (``tol=None``).
  On finite data a ``train_split`` selects this path; :func:`all_rows` is a split
  that keeps every row for training. One difference remains: the paper penalises
  each row's distortion, ``lam max(0, d_i - delta)^2``; the library penalises the
  batch mean's excess and adds a Lagrange multiplier of the budget;
- **convex**: estimate-then-optimise (``ConvexPrivacyMapping``, the convex
  program on the same rows), the paper's "conventional approach".

1. Four budgets (0.1, 0.3, 0.5, 0.7), both observations: leakage against eq. 9
   (useful data) and eq. 8 (full data) at the distortion each mechanism achieves,
   the epochs, and the wall and CPU seconds of each fit. Claim (exact): within
   0.02 nats, each fit at most 30 s.
2. Full data, nine budgets in [0, 0.5]: exact steps against estimate-then-optimise,
   both measured as the gap to eq. 8 at their own distortion. Claim: PPAN's gap is
   at most 0.01 nats above the convex program's. The minibatch series runs at two
   budgets of this grid (``--minibatch some``: 0.125 and 0.375) or all nine
   (``--minibatch all``).

"Behind the convex program" (in-sample) is a mechanism's ``leakage_`` minus the
convex program's optimum on the same rows at the mechanism's own in-sample
distortion: what the optimiser left on the table, with the sampling error of the
1000 rows taken out. A minibatch fit is 75-95 s CPU on this shared CPU (about
0.038 s an epoch), so ``--minibatch some`` adds about 15 min of CPU (10 fits);
``--minibatch none`` runs the exact and convex series alone (seconds).
``--minibatch-seeds k`` trains each minibatch point with k seeds (the same rows).

Writes benchmarks/results/ppan_symmetric_pair.csv and .png.

    python benchmarks/bench_ppan_symmetric_pair.py [--n-samples 1000] [--seed 0]
        [--minibatch some|all|none] [--minibatch-seeds 1] [--budgets 0.1 0.3 0.5 0.7]
        [--no-grid] [--tag SUFFIX]

The spread over training seeds in the user guide: ``--budgets 0.3 --no-grid
--minibatch-seeds 3 --tag _seeds`` (6 minibatch fits, the same rows).
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
CONVEX_BUDGETS = np.linspace(0.0, 0.5, 9)
GAP_CLAIM, SECONDS_CLAIM, CONVEX_CLAIM = 0.02, 30.0, 0.01
# The paper's minibatch training of Fig. 3 (sec. 3.1.2 and 3.1): epochs per observation.
PAPER_EPOCHS = {"full": 2500, "released": 2000}
# Where ``--minibatch some`` runs it in part 2 (0.125 and 0.375): with part 1's 8 points,
# 10 fits, about 15 min of CPU (0.038 s an epoch measured).
SOME_CONVEX = (2, 6)
PAPER_SETTINGS = {"lam": 500.0, "batch_size": 100, "adversary_steps": 1, "lr": 1e-3, "tol": None}


def all_rows(dataset, y=None, **fit_params):
    """A skorch ``train_split`` that trains on every row and validates on none.

    Any ``train_split`` makes ``PPANTransformer`` train its networks by minibatches on
    finite data, where it would otherwise take exact steps.
    """
    return dataset, None


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


def fit_ppan(X, budget, observation, seed, *, path="exact"):
    """A PPAN fit: the mechanism, wall and CPU seconds, and the warnings it raised.

    ``path="exact"``: the defaults (exact steps); ``"minibatch"``: the paper's training.
    """
    params = {}
    if path == "minibatch":
        params = dict(PAPER_SETTINGS, max_epochs=PAPER_EPOCHS[observation], train_split=all_rows)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mech = PPANTransformer(
            max_distortion=float(budget),
            observation=observation,
            sensitive=[0],
            random_state=seed,
            **params,
        ).fit(X)
    return mech, time.perf_counter() - wall, time.process_time() - cpu, caught


def fit_convex(X, budget, observation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return ConvexPrivacyMapping(
            max_distortion=float(budget), observation=observation, sensitive=[0]
        ).fit(X)


def describe(prefix, mech, pmf, X, observation):
    """A fitted mechanism's true and in-sample operating points, and its gaps."""
    theory = THEORY[observation]
    leak, dist = true_operating_point(mech, pmf, observation == "full")
    # the convex program's optimum on the same rows at the mechanism's own in-sample distortion
    optimum = fit_convex(X, max(float(mech.distortion_), 0.0), observation).leakage_
    return {
        f"{prefix}_distortion": dist,
        f"{prefix}_leakage": leak,
        f"{prefix}_theory": float(theory(M, P, min(dist, 1.0))),
        f"{prefix}_gap": leak - float(theory(M, P, min(dist, 1.0))),
        f"{prefix}_insample_distortion": float(mech.distortion_),
        f"{prefix}_insample_leakage": float(mech.leakage_),
        f"{prefix}_behind_convex": float(mech.leakage_) - float(optimum),
    }


def measure(X, pmf, budget, observation, seed, *, part, minibatch_seeds=()):
    """One budget: the exact path, the convex program, and the minibatch path per seed."""
    theory = THEORY[observation]
    mech, wall, cpu, caught = fit_ppan(X, budget, observation, seed)
    base = {
        "part": part,
        "observation": observation,
        "budget": float(budget),
        "theory_at_budget": float(theory(M, P, budget)),
    }
    exact = {
        **describe("exact", mech, pmf, X, observation),
        "exact_epochs": mech.n_iter_,
        "exact_converged": mech.converged_,
        "exact_wall_s": wall,
        "exact_cpu_s": cpu,
        "exact_warnings": len(caught),
    }
    cvx = fit_convex(X, budget, observation)
    c_leak, c_dist = true_operating_point(cvx, pmf, observation == "full")
    convex = {
        "convex_distortion": c_dist,
        "convex_leakage": c_leak,
        "convex_theory": float(theory(M, P, min(c_dist, 1.0))),
        "convex_gap": c_leak - float(theory(M, P, min(c_dist, 1.0))),
        "convex_insample_distortion": float(cvx.distortion_),
        "convex_insample_leakage": float(cvx.leakage_),
    }
    rows = []
    for mb_seed in minibatch_seeds or [None]:
        row = {**base, "minibatch_seed": "" if mb_seed is None else mb_seed, **exact, **convex}
        if mb_seed is not None:
            mb, wall, cpu, caught = fit_ppan(X, budget, observation, mb_seed, path="minibatch")
            row.update(describe("minibatch", mb, pmf, X, observation))
            row.update(
                minibatch_epochs=mb.n_iter_,
                minibatch_multiplier=float(mb.net_.multiplier_),
                minibatch_wall_s=wall,
                minibatch_cpu_s=cpu,
                minibatch_warnings=" | ".join(sorted({str(w.message)[:60] for w in caught})),
            )
            print(
                f"  minibatch {observation:8s} budget {budget:.4f} seed {mb_seed}: D "
                f"{row['minibatch_distortion']:.4f} I {row['minibatch_leakage']:.4f} gap "
                f"{row['minibatch_gap']:+.4f} behind convex {row['minibatch_behind_convex']:+.4f}"
                f" ({cpu:.0f} s CPU)",
                flush=True,
            )
        rows.append(row)
    return rows


def _minibatch_seeds(args, part, index):
    """The training seeds of the minibatch series at this point (none where it is not run)."""
    if args.minibatch == "none":
        return ()
    if part == "convex" and args.minibatch == "some" and index not in SOME_CONVEX:
        return ()
    return tuple(args.seed + k for k in range(args.minibatch_seeds))


def _spread(values):
    values = np.asarray([v for v in values if v != ""], dtype=float)
    if len(values) == 1:
        return f"{values[0]:+7.4f}"
    return f"{values.mean():+7.4f}±{values.std(ddof=1):.4f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--minibatch",
        default="some",
        choices=["some", "all", "none"],
        help="where the paper's minibatch training runs: part 1 and every other budget of "
        "part 2 (some), every point (all), nowhere (none)",
    )
    parser.add_argument("--minibatch-seeds", type=int, default=1)
    parser.add_argument(
        "--budgets", type=float, nargs="+", default=BUDGETS, help="part 1's budgets"
    )
    parser.add_argument("--no-grid", action="store_true", help="skip part 2")
    parser.add_argument(
        "--tag", default="", help="suffix of the result files (ppan_symmetric_pair<tag>.csv)"
    )
    args = parser.parse_args()

    start, cpu_start = time.perf_counter(), time.process_time()
    pmf = symmetric_pair_pmf(M, P)
    s, y = make_symmetric_pair(args.n_samples, m=M, p=P, random_state=args.seed)
    X = np.c_[s, y]
    rows = []
    for observation in ("released", "full"):
        for budget in args.budgets:
            seeds = _minibatch_seeds(args, "defaults", 0)
            rows += measure(
                X, pmf, budget, observation, args.seed, part="defaults", minibatch_seeds=seeds
            )
    for i, budget in enumerate(() if args.no_grid else CONVEX_BUDGETS):
        seeds = _minibatch_seeds(args, "convex", i)
        rows += measure(X, pmf, budget, "full", args.seed, part="convex", minibatch_seeds=seeds)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start

    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"ppan_symmetric_pair{args.tag}.csv"
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, restval="")
        writer.writeheader()
        writer.writerows(rows)
    report(rows)
    mb_cpu = sum(r.get("minibatch_cpu_s", 0.0) for r in rows)
    print(
        f"wall time {wall:.1f} s, CPU {cpu:.1f} s (the minibatch fits {mb_cpu:.1f} s, "
        f"{sum('minibatch_cpu_s' in r for r in rows)} fits); wrote {path}"
    )
    _plot(rows, f"ppan_symmetric_pair{args.tag}.png")


def _first(rows):
    """One row per (part, observation, budget): the exact and convex series repeat per seed."""
    seen, out = set(), []
    for r in rows:
        key = (r["part"], r["observation"], r["budget"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def report(rows):
    print("1. default settings (exact steps), leakage under the true model against the optimum")
    print(
        f"{'obs':8s} {'budget':>6s} {'D':>7s} {'I(S;Z)':>7s} {'optimum':>8s} {'gap':>7s} "
        f"{'gap_cvx':>7s} {'behind':>7s} {'epochs':>6s} {'conv':>5s} {'wall s':>6s} "
        f"{'cpu s':>6s} {'warn':>4s}"
    )
    ok = True
    first = [r for r in _first(rows) if r["part"] == "defaults"]
    for r in first:
        good = abs(r["exact_gap"]) <= GAP_CLAIM and r["exact_wall_s"] <= SECONDS_CLAIM
        ok &= good
        print(
            f"{r['observation']:8s} {r['budget']:6.2f} {r['exact_distortion']:7.4f} "
            f"{r['exact_leakage']:7.4f} {r['exact_theory']:8.4f} {r['exact_gap']:+7.4f} "
            f"{r['convex_gap']:+7.4f} {r['exact_behind_convex']:+7.4f} {r['exact_epochs']:6d} "
            f"{str(r['exact_converged']):>5s} {r['exact_wall_s']:6.2f} {r['exact_cpu_s']:6.2f} "
            f"{r['exact_warnings']:4d}"
        )
    for obs in ("released", "full"):
        sub = [r for r in first if r["observation"] == obs]
        print(
            f"{obs}: largest |gap| to {EQUATION[obs]} = "
            f"{max(abs(r['exact_gap']) for r in sub):.4f} nats (claim <= {GAP_CLAIM}); "
            f"slowest fit {max(r['exact_wall_s'] for r in sub):.2f} s wall (claim <= "
            f"{SECONDS_CLAIM:.0f}); the convex program's largest gap on the same rows "
            f"{max(abs(r['convex_gap']) for r in sub):.4f}"
        )
    print(
        "training's share (PPAN's gap minus the convex program's on the same rows), largest: "
        f"{max(r['exact_gap'] - r['convex_gap'] for r in first):+.4f} nats"
    )
    if any(r["part"] == "convex" for r in rows):
        ok &= _report_grid(rows)
    print(f"claims {'hold' if ok else 'FAIL'}")
    _report_minibatch(rows)


def _report_grid(rows):
    """Part 2's table; whether its claim holds."""
    print()
    print("2. full data: PPAN (defaults) against estimate-then-optimise, gaps to eq. 8")
    print(
        f"{'budget':>6s} {'D_ppan':>7s} {'I_ppan':>7s} {'gap':>7s} {'D_cvx':>7s} {'I_cvx':>7s} "
        f"{'gap_cvx':>7s} {'excess':>7s} {'behind':>7s} {'epochs':>6s} {'wall s':>6s}"
    )
    worst = -np.inf
    for r in _first(rows):
        if r["part"] != "convex":
            continue
        excess = r["exact_gap"] - r["convex_gap"]
        worst = max(worst, excess)
        print(
            f"{r['budget']:6.4f} {r['exact_distortion']:7.4f} {r['exact_leakage']:7.4f} "
            f"{r['exact_gap']:+7.4f} {r['convex_distortion']:7.4f} {r['convex_leakage']:7.4f} "
            f"{r['convex_gap']:+7.4f} {excess:+7.4f} {r['exact_behind_convex']:+7.4f} "
            f"{r['exact_epochs']:6d} {r['exact_wall_s']:6.2f}"
        )
    print(
        f"largest excess of PPAN's gap over estimate-then-optimise's: {worst:+.4f} nats "
        f"(claim <= {CONVEX_CLAIM}); largest in-sample lag behind the convex optimum "
        f"{max(r['exact_behind_convex'] for r in _first(rows)):+.4f}"
    )
    return worst <= CONVEX_CLAIM


def _report_minibatch(rows):
    mb = [r for r in rows if "minibatch_cpu_s" in r]
    if not mb:
        return
    print()
    print(
        "3. the paper's minibatch training (lam 500, batches of 100, 1 adversary step, Adam 1e-3, "
        f"{PAPER_EPOCHS['full']} / {PAPER_EPOCHS['released']} epochs) beside exact steps and the "
        "convex program; true = under the exact pmf, in-sample = on the fit rows"
    )
    print(
        f"{'part':8s} {'obs':8s} {'budget':>6s} | {'D_true':>7s} {'I_true':>7s} {'gap':>7s} "
        f"{'D_fit':>7s} {'I_fit':>7s} {'behind':>7s} {'cpu s':>6s} | exact {'gap':>7s} "
        f"{'behind':>7s} | convex {'gap':>7s} {'D':>7s}"
    )
    for key in dict.fromkeys((r["part"], r["observation"], r["budget"]) for r in mb):
        sub = [r for r in mb if (r["part"], r["observation"], r["budget"]) == key]
        r = sub[0]
        print(
            f"{key[0]:8s} {key[1]:8s} {key[2]:6.4f} | "
            f"{np.mean([x['minibatch_distortion'] for x in sub]):7.4f} "
            f"{np.mean([x['minibatch_leakage'] for x in sub]):7.4f} "
            f"{_spread([x['minibatch_gap'] for x in sub])} "
            f"{np.mean([x['minibatch_insample_distortion'] for x in sub]):7.4f} "
            f"{np.mean([x['minibatch_insample_leakage'] for x in sub]):7.4f} "
            f"{_spread([x['minibatch_behind_convex'] for x in sub])} "
            f"{np.mean([x['minibatch_cpu_s'] for x in sub]):6.1f} | "
            f"      {r['exact_gap']:+7.4f} {r['exact_behind_convex']:+7.4f} | "
            f"       {r['convex_gap']:+7.4f} {r['convex_distortion']:7.4f}"
        )
    print(
        "minibatch: largest in-sample lag behind the convex optimum "
        f"{max(r['minibatch_behind_convex'] for r in mb):+.4f} nats, largest true gap "
        f"{max(r['minibatch_gap'] for r in mb):+.4f} (the convex program's, same points: "
        f"{max(r['convex_gap'] for r in mb):+.4f}); budgets missed by more than 2% + 0.005: "
        f"{sum(r['minibatch_insample_distortion'] > 1.02 * r['budget'] + 0.005 for r in mb)}"
        f"/{len(mb)}"
    )


def _plot(rows, name):
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
        sub = [r for r in _first(rows) if r["observation"] == obs]
        ax.plot(
            [r["exact_distortion"] for r in sub],
            [r["exact_leakage"] for r in sub],
            "o",
            mfc="none",
            label="PPAN, default settings (exact steps)",
        )
        mb = [r for r in rows if r["observation"] == obs and "minibatch_cpu_s" in r]
        if mb:
            ax.plot(
                [r["minibatch_distortion"] for r in mb],
                [r["minibatch_leakage"] for r in mb],
                "s",
                ms=4,
                label="PPAN, the paper's minibatch training",
            )
        ax.plot(
            [r["convex_distortion"] for r in sub],
            [r["convex_leakage"] for r in sub],
            "x",
            label="estimate-then-optimise (convex program)",
        )
        ax.set(title=title, xlabel="distortion P(Y != Z) (true model)", ylabel="I(S; Z) [nats]")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / name, dpi=120)


if __name__ == "__main__":
    main()
