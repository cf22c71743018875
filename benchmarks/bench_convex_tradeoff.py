"""Leakage-distortion curves of the optimal mapping (calmon2012, Thm. 1) against other mechanisms.

Two data sets, one pmf each, every mechanism scored under that same pmf:

- the counting query of Examples 1-2 (n = 8 entries, S the database, Y the
  count, absolute distortion |y - u|): the optimal mapping, the geometric
  (discrete Laplace) mechanism clamped to {0..n} over a sweep of eps, randomised
  response over the Y alphabet, and the greedy privacy funnel;
- Adult (S = income, Y = age bins x education levels x sex, 56 records,
  Hamming distortion over the three columns): the optimal mapping, the greedy
  privacy funnel (each merge releases its cluster's most central record, a
  deterministic mapping), and randomised response over the Y alphabet.

For every mechanism point (distortion D, leakage L) the optimal mapping is
solved at the matched budget D; the gap L - L*(D) must be >= 0 (up to the
solver's accuracy) and is printed. Writes benchmarks/results/convex_tradeoff.csv
and .png.

    python benchmarks/bench_convex_tradeoff.py [--data-home PATH]
"""

import argparse
import csv

import numpy as np
from _common import RESULTS, default_data_home

from sklearn_privacy.discrete import distortion_matrix, min_average_leakage_mapping
from sklearn_privacy.discrete._greedy import greedy_sweep
from sklearn_privacy.information import contingency_pmf, entropy, mutual_information
from sklearn_privacy.theory import counting_query_joint


def leakage(joint, Q):
    return mutual_information(joint @ Q)


def expected_distortion(joint, Q, D):
    return float(joint.sum(axis=0) @ (Q * D).sum(axis=1))


def optimal(joint, D, budget):
    return min_average_leakage_mapping(joint, D, budget)["average_leakage"]


def geometric_mapping(n, epsilon):
    """U = clamp(Y + Z, 0, n), Z two-sided geometric, P(z) ~ exp(-eps |z|): eps-DP."""
    a = np.exp(-epsilon)
    y = np.arange(n + 1)[:, None]
    u = np.arange(n + 1)[None, :]
    Q = (1 - a) / (1 + a) * a ** np.abs(u - y)
    Q[:, 0] = a ** y[:, 0] / (1 + a)
    Q[:, n] = a ** (n - y[:, 0]) / (1 + a)
    return Q


def randomized_response(n_y, keep):
    """Keep Y with probability ``keep``, else draw U uniformly from the alphabet."""
    return keep * np.eye(n_y) + (1 - keep) / n_y


def greedy_mappings(joint, D, n_points=12):
    """Greedy funnel merges at several disclosure thresholds, as deterministic mappings.

    A cluster is released as the output record of least expected distortion for
    its members (its most central record).
    """
    p_y = joint.sum(axis=0)
    thresholds = np.linspace(0.0, entropy(p_y), n_points)
    out = []
    for threshold, path in zip(thresholds, greedy_sweep(joint, thresholds)):
        Q = np.zeros(D.shape)
        for c in np.unique(path.labels):
            members = np.flatnonzero(path.labels == c)
            centre = np.argmin(p_y[members] @ D[members])
            Q[members, centre] = 1.0
        out.append((f"R={threshold:.3f}", Q))
    return out


def adult_problem(data_home):
    from sklearn_privacy.datasets import fetch_adult

    frame = fetch_adult(
        data_home=data_home, as_frame=True, discretize=True, download_if_missing=False
    ).frame
    columns = ["age", "education", "sex"]
    records = frame[columns].astype(str).to_numpy().astype("U")
    alphabet, y = np.unique(records, axis=0, return_inverse=True)
    s = (frame["income"].astype(str) == ">50K").to_numpy().astype(int)
    return contingency_pmf(s, y.ravel()), distortion_matrix(alphabet, kind="hamming")


def run_dataset(name, joint, D, mechanisms, n_budgets=12):
    rows = []
    least = float(joint.sum(axis=0) @ D.min(axis=1))
    constant = float(min(joint.sum(axis=0) @ D))
    for b in np.linspace(least, constant, n_budgets):
        rows.append(
            {
                "dataset": name,
                "mechanism": "optimal",
                "param": f"{b:.4f}",
                "distortion": b,
                "leakage": optimal(joint, D, b),
            }
        )
    for mech, points in mechanisms.items():
        for param, Q in points:
            d = expected_distortion(joint, Q, D)
            leak = leakage(joint, Q)
            best = optimal(joint, D, max(d, least))
            rows.append(
                {
                    "dataset": name,
                    "mechanism": mech,
                    "param": param,
                    "distortion": d,
                    "leakage": leak,
                    "optimal_at_distortion": best,
                    "gap": leak - best,
                }
            )
    print(f"\n{name}: I(S;Y) = {mutual_information(joint):.4f} nats, |Y| = {joint.shape[1]}")
    print(
        f"{'mechanism':10s} {'param':>10s} {'E[d]':>8s} {'I(S;U)':>9s} {'optimal':>9s} {'gap':>10s}"
    )
    for r in rows:
        print(
            f"{r['mechanism']:10s} {r['param']:>10s} {r['distortion']:8.4f} {r['leakage']:9.5f} "
            f"{r.get('optimal_at_distortion', np.nan):9.5f} {r.get('gap', np.nan):10.2e}"
        )
    for mech in mechanisms:
        gaps = [r["gap"] for r in rows if r["mechanism"] == mech]
        status = "OK" if min(gaps) >= -1e-6 else "VIOLATED"
        print(
            f"check {name}/{mech}: optimal at or below at matched distortion: {status} "
            f"(least gap {min(gaps):+.2e}, median {np.median(gaps):.3e} nats)"
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--data-home",
        default=default_data_home(),
    )
    parser.add_argument("--n", type=int, default=8, help="entries of the counting query")
    args = parser.parse_args()

    n = args.n
    joint = counting_query_joint(n)
    D = distortion_matrix(np.arange(n + 1), kind="absolute")
    mechanisms = {
        "geometric": [
            (f"eps={e:.2f}", geometric_mapping(n, e)) for e in np.geomspace(0.1, 5.0, 10)
        ],
        "rr": [(f"keep={k:.2f}", randomized_response(n + 1, k)) for k in np.linspace(0, 1, 10)],
        "greedy": greedy_mappings(joint, D),
    }
    rows = run_dataset(f"counting query n={n}", joint, D, mechanisms)

    try:
        joint_a, D_a = adult_problem(args.data_home)
    except (FileNotFoundError, OSError) as exc:
        print(f"\nAdult skipped: {exc}")
    else:
        mechanisms = {
            "greedy": greedy_mappings(joint_a, D_a),
            "rr": [
                (f"keep={k:.2f}", randomized_response(joint_a.shape[1], k))
                for k in np.linspace(0, 1, 10)
            ],
        }
        rows += run_dataset("adult income | age x education x sex", joint_a, D_a, mechanisms)

    RESULTS.mkdir(parents=True, exist_ok=True)
    fields = [
        "dataset",
        "mechanism",
        "param",
        "distortion",
        "leakage",
        "optimal_at_distortion",
        "gap",
    ]
    with open(RESULTS / "convex_tradeoff.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 3.8), squeeze=False)
    for ax, name in zip(axes[0], datasets):
        for mech in dict.fromkeys(r["mechanism"] for r in rows if r["dataset"] == name):
            pts = sorted(
                (r["distortion"], r["leakage"])
                for r in rows
                if r["dataset"] == name and r["mechanism"] == mech
            )
            style = "-" if mech == "optimal" else "o"
            ax.plot(*zip(*pts), style, label=mech, ms=4)
        ax.set_xlabel("expected distortion E[d(Y, U)]")
        ax.set_ylabel("I(S; U) (nats)")
        ax.set_title(name, fontsize=9)
        ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "convex_tradeoff.png", dpi=120)


if __name__ == "__main__":
    main()
