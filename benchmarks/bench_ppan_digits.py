"""PPAN on scikit-learn's 8x8 digits (ppan-tripathy2017, sec. 3.3, Fig. 7-8, at small scale).

X: the 64 pixels scaled to [0, 1]; S: the digit label; the release is an image
(``release="gaussian"`` on pixel logits, per-pixel cross-entropy distortion).
For every ``lam`` (the distortion weight: smaller hides more), PPAN is fitted on
two thirds of the images, and the other third is released to measure

- the accuracy of a FRESH adversary (a logistic regression trained on the
  releases of the training images, scored on the test releases; chance 0.1),
- the co-trained adversary's variational bound ``adversary_leakage_`` (fit data, nats),
- the distortion: per-pixel cross-entropy and squared error per image.

A second, shorter sweep adds the realism discriminator (``gamma``). Writes
benchmarks/results/ppan_digits.csv, ppan_digits.png (accuracy and distortion
against lam, accuracy against distortion) and ppan_digits_images.png (one test
image per class, released at each lam, without and with the discriminator).

    python benchmarks/bench_ppan_digits.py [--lams 0.01,0.03,...] [--epochs 60]
        [--gamma 1.0] [--device cpu]
"""

import argparse
import csv
import time

import numpy as np
from _common import RESULTS
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_privacy import PPANTransformer

LAMS = "0.01,0.03,0.1,0.3,1,3,10,30,100"
GAMMA_LAMS = "0.03,0.3,3"


def cross_entropy(X, Z):
    """Per-pixel binary cross-entropy of the release ``Z`` against ``X``, mean over pixels."""
    Z = np.clip(Z, 1e-7, 1 - 1e-7)
    return float(np.mean(-(X * np.log(Z) + (1 - X) * np.log1p(-Z))))


def fit_one(lam, gamma, Xa, sa, Xb, sb, args, seed):
    t0 = time.perf_counter()
    mech = PPANTransformer(
        training="paper",  # the paper's algorithm (issue 45: the default adds rounds)
        lam=lam,
        distortion="cross_entropy",
        release="gaussian",
        hidden_layer_sizes=(64,),
        # leaky ReLU: with ReLU the mechanism drives every hidden unit of the adversary
        # inactive (a constant Q, log Q = log prior) and the dead adversary never recovers
        activation="leaky_relu",
        gamma=gamma,
        adversary_steps=5,
        max_epochs=args.epochs,
        batch_size=128,
        lr=2e-3,
        adversary_lr=5e-3,
        device=args.device,
        random_state=seed,
    ).fit(Xa, sensitive=sa)
    fit_s = time.perf_counter() - t0
    za, zb = mech.transform(Xa), mech.transform(Xb)
    acc = LogisticRegression(max_iter=2000).fit(za, sa).score(zb, sb)
    return (
        mech,
        zb,
        {
            "lam": lam,
            "gamma": gamma,
            "adversary_accuracy": float(acc),
            # the co-trained adversary's own bound (leakage_ is the larger of it and a
            # fresh estimate, so it is not the co-trained bound)
            "co_trained_bound": mech.adversary_leakage_,
            "cross_entropy": cross_entropy(Xb, zb),
            "squared_error": float(np.mean(np.sum((zb - Xb) ** 2, axis=1))),
            "fit_s": fit_s,
            # the stopping rule (tol) may end training before max_epochs
            "epochs": mech.n_iter_,
        },
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lams", default=LAMS)
    parser.add_argument("--gamma-lams", default=GAMMA_LAMS)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import skorch  # noqa: F401  (imported here so that no fit time holds the import)

    start = time.perf_counter()
    digits = load_digits()
    X, s = digits.data / 16.0, digits.target
    Xa, Xb, sa, sb = train_test_split(X, s, test_size=1 / 3, random_state=args.seed, stratify=s)
    base = LogisticRegression(max_iter=2000).fit(Xa, sa).score(Xb, sb)
    examples = np.array([np.flatnonzero(sb == c)[0] for c in range(10)])
    rows, images = [], {}
    sweeps = [(0.0, args.lams)]
    if args.gamma > 0:
        sweeps.append((args.gamma, args.gamma_lams))
    for gamma, lams in sweeps:
        for lam in [float(v) for v in lams.split(",")]:
            _, zb, row = fit_one(lam, gamma, Xa, sa, Xb, sb, args, args.seed)
            rows.append(row)
            images[gamma, lam] = zb[examples]
            print(
                f"gamma {gamma:4.2f} lam {lam:7.3f}  "
                f"adversary acc {row['adversary_accuracy']:.3f}  "
                f"bound {row['co_trained_bound']:.3f} nats  CE {row['cross_entropy']:.3f}  "
                f"SE/image {row['squared_error']:.2f}  fit {row['fit_s']:.1f} s",
                flush=True,
            )
    wall = time.perf_counter() - start

    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "ppan_digits.csv"
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nraw images: adversary accuracy {base:.3f} (chance 0.100)")
    print(
        f"{'gamma':>5s} {'lam':>7s} {'acc':>6s} {'bound':>6s} {'CE':>6s} "
        f"{'SE/img':>7s} {'fit s':>6s} {'epochs':>6s}"
    )
    for r in rows:
        print(
            f"{r['gamma']:5.2f} {r['lam']:7.3f} {r['adversary_accuracy']:6.3f} "
            f"{r['co_trained_bound']:6.3f} {r['cross_entropy']:6.3f} "
            f"{r['squared_error']:7.2f} {r['fit_s']:6.1f} {r['epochs']:6d}"
        )
    main_sweep = [r for r in rows if r["gamma"] == 0]
    acc = np.array([r["adversary_accuracy"] for r in main_sweep])
    ce = np.array([r["cross_entropy"] for r in main_sweep])
    # lam ascends: accuracy should rise and distortion fall, up to 0.03 of noise
    print(
        "as lam falls: accuracy never rises by more than 0.03: "
        f"{bool(np.all(np.diff(acc) >= -0.03))}; distortion never falls by more than 0.01: "
        f"{bool(np.all(np.diff(ce) <= 0.01))}"
    )
    print(f"wall time {wall:.1f} s; wrote {path}")
    _plot(rows, base)
    _grid(images, X[:0], Xb[examples], sorted({r["gamma"] for r in rows}))


def _plt():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return None
    return plt


def _plot(rows, base):
    plt = _plt()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for gamma in sorted({r["gamma"] for r in rows}):
        sub = [r for r in rows if r["gamma"] == gamma]
        lams = [r["lam"] for r in sub]
        label = f"gamma={gamma:g}"
        axes[0].semilogx(lams, [r["adversary_accuracy"] for r in sub], "o-", label=label)
        axes[1].semilogx(lams, [r["cross_entropy"] for r in sub], "o-", label=label)
        axes[2].plot(
            [r["cross_entropy"] for r in sub],
            [r["adversary_accuracy"] for r in sub],
            "o-",
            label=label,
        )
    for ax in (axes[0], axes[2]):
        ax.axhline(0.1, color="k", ls=":", label="chance")
        ax.axhline(base, color="gray", ls="--", label="raw images")
    axes[0].set(xlabel="lam", ylabel="adversary accuracy (test releases)")
    axes[1].set(xlabel="lam", ylabel="distortion (per-pixel cross-entropy)")
    axes[2].set(xlabel="distortion (per-pixel cross-entropy)", ylabel="adversary accuracy")
    for ax in axes:
        ax.legend(fontsize=8)
    fig.suptitle("PPAN on 8x8 digits, S = digit label")
    fig.tight_layout()
    fig.savefig(RESULTS / "ppan_digits.png", dpi=120)


def _grid(images, _, originals, gammas):
    plt = _plt()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, len(gammas), figsize=(6 * len(gammas), 7), squeeze=False)
    for ax, gamma in zip(axes[0], gammas):
        lams = sorted(lam for g, lam in images if g == gamma)
        rows = [originals] + [images[gamma, lam] for lam in reversed(lams)]
        tiles = np.vstack([np.hstack([r.reshape(8, 8) for r in row]) for row in rows])
        ax.imshow(tiles, cmap="gray_r", vmin=0, vmax=1)
        ax.set_yticks(4 + 8 * np.arange(len(rows)))
        ax.set_yticklabels(["original"] + [f"lam={lam:g}" for lam in reversed(lams)])
        ax.set_xticks([])
        ax.set_title(f"gamma={gamma:g}" + (" (realism discriminator)" if gamma else ""))
    fig.tight_layout()
    fig.savefig(RESULTS / "ppan_digits_images.png", dpi=120)


if __name__ == "__main__":
    main()
