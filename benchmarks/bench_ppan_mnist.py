"""PPAN on an MNIST subset (ppan-tripathy2017, sec. 3.3, Fig. 9), sized for a CPU.

X: the 784 pixels scaled to [0, 1]; S: the digit label; Gaussian release on pixel
logits, per-pixel cross-entropy distortion. Reads MNIST's 10000 test images from
``--data-home`` (``fetch_mnist(subset="test")``), trains on ``--n-train`` of them
and releases ``--n-test`` others. For every ``lam``: the distortion against
(a) the accuracy of a fresh adversary (logistic regression trained on the
releases of the training images) and (b) the co-trained adversary's variational
bound ``H(S) + E log Q(S|Z)`` (``leakage_``, nats). Writes
benchmarks/results/ppan_mnist.csv and .png and prints the CPU time.

    python benchmarks/bench_ppan_mnist.py [--data-home /work/shared/data] [--n-train 3000]
        [--n-test 1000] [--epochs 15] [--lams 0.01,0.1,1,10,100] [--device cpu|cuda|auto]
"""

import argparse
import csv
import time

import numpy as np
from _common import RESULTS, default_data_home
from sklearn.linear_model import LogisticRegression

from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_mnist


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-train", type=int, default=3000)
    parser.add_argument("--n-test", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--lams", default="0.01,0.1,1,10,100")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import skorch  # noqa: F401  (imported here so that no fit time holds the import)

    start, cpu_start = time.perf_counter(), time.process_time()
    X, s = fetch_mnist(subset="test", data_home=args.data_home, return_X_y=True)
    order = np.random.default_rng(args.seed).permutation(len(s))
    tr, te = order[: args.n_train], order[args.n_train : args.n_train + args.n_test]
    X = X.astype(np.float64) / 255.0
    Xa, Xb, sa, sb = X[tr], X[te], s[tr], s[te]
    base = LogisticRegression(max_iter=300).fit(Xa, sa).score(Xb, sb)
    rows = []
    for lam in [float(v) for v in args.lams.split(",")]:
        t0 = time.perf_counter()
        mech = PPANTransformer(
            lam=lam,
            distortion="cross_entropy",
            release="gaussian",
            hidden_layer_sizes=(128,),
            activation="leaky_relu",  # a ReLU adversary dies (bench_ppan_digits.py)
            adversary_steps=5,
            max_epochs=args.epochs,
            batch_size=128,
            lr=2e-3,
            adversary_lr=1e-2,
            device=args.device,
            random_state=args.seed,
        ).fit(Xa, sensitive=sa)
        fit_s = time.perf_counter() - t0
        za, zb = mech.transform(Xa), mech.transform(Xb)
        acc = LogisticRegression(max_iter=300).fit(za, sa).score(zb, sb)
        rows.append(
            {
                "lam": lam,
                "adversary_accuracy": float(acc),
                "variational_leakage": mech.leakage_,
                "cross_entropy": mech._distortion(Xb, zb),
                "fit_s": fit_s,
                "device": str(mech.net_.device),
            }
        )
        r = rows[-1]
        print(
            f"lam {lam:7.3f}  acc {acc:.3f}  bound {r['variational_leakage']:.3f} nats  "
            f"CE {r['cross_entropy']:.3f}  fit {fit_s:.1f} s",
            flush=True,
        )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "ppan_mnist.csv"
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"raw images: adversary accuracy {base:.3f}; H(S) = log 10 = {np.log(10):.3f} nats")
    print(f"{'lam':>7s} {'acc':>6s} {'bound':>6s} {'CE':>6s} {'fit s':>6s}")
    for r in rows:
        print(
            f"{r['lam']:7.3f} {r['adversary_accuracy']:6.3f} {r['variational_leakage']:6.3f} "
            f"{r['cross_entropy']:6.3f} {r['fit_s']:6.1f}"
        )
    print(
        f"device {args.device}; {args.n_train} training images; wall time {wall:.1f} s, "
        f"CPU time {cpu:.1f} s; wrote {path}"
    )
    _plot(rows, base)


def _plot(rows, base):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    ce = [r["cross_entropy"] for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].plot(ce, [r["adversary_accuracy"] for r in rows], "o-", label="PPAN")
    axes[0].axhline(0.1, color="k", ls=":", label="chance")
    axes[0].axhline(base, color="gray", ls="--", label="raw images")
    axes[0].set(xlabel="distortion (per-pixel cross-entropy)", ylabel="adversary accuracy")
    axes[1].plot(ce, [r["variational_leakage"] for r in rows], "o-", label="PPAN")
    axes[1].set(xlabel="distortion (per-pixel cross-entropy)", ylabel="variational bound [nats]")
    for ax, r in zip([axes[0]] * len(rows), rows):
        ax.annotate(f"lam={r['lam']:g}", (r["cross_entropy"], r["adversary_accuracy"]))
    for ax in axes:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "ppan_mnist.png", dpi=120)


if __name__ == "__main__":
    main()
