"""PPAN on MNIST (ppan-tripathy2017, sec. 3.3, Figs. 7-9), on its 60000 training images.

The paper trains on MNIST's 60000 training images and scores on its 10000 test images; so does
this script by default (``--images train``: the first ``--n-train`` training images, all 60000
by default, from ``fetch_mnist(subset="train")``, and the 10000 test images). ``--images
test-split`` keeps the earlier setting, made when the training images were not at hand: the
10000 test images split, stratified by digit, into ``--n-train`` training images and the rest.
X: the 784 pixels in [0, 1]; S: the digit.

Kept from the paper (sec. 3.3): the universal mechanism ``z = f(w, u)`` with 20 seed-noise
values ``u ~ U[-1, 1]`` and sigmoid outputs (``release="universal"``, the release is an
image in (0, 1)^784), the per-pixel binary cross-entropy averaged over the 784 pixels as
distortion, two tanh hidden layers of 1000 units in both networks, one adversary update
per mechanism update, minibatches of 100, Adam at 1e-3 (Chainer's default; the paper
gives none), the objective ``E log Q(S|Z) + lam E d`` (``training="paper"``), and both of
its experiments: gamma = 0 (no discriminator, Fig. 7) and gamma = 2 with a discriminator of
one hidden layer of 500 units (eq. 10, Fig. 8).

The schedule (``--schedule``):

- ``paper``: Fig. 7's lams 35, 30, 25, 20, 17, 16, 15, 13, 10, 8 (gamma 0) and Fig. 8's
  15, 13, 11, 9, 7, 5, 4, 3, 2 (gamma 2), 50 epochs of the 60000 images each (19 fits, 57
  million image passes): one command for a GPU, ``--schedule paper --device cuda``;
- ``cpu`` (the default): three lams of each grid (35, 17, 8 and 15, 7, 3) and 8 epochs,
  the six fits run two at a time (``--n-jobs 2``, one thread each), about an hour on 2
  cores; the figure's title states the schedule.

``--epochs`` and ``--lams0`` / ``--lams2`` override either schedule.

For every (gamma, lam), on the test images' releases:

- (Fig. 9a) the accuracy of the co-trained adversary and of a FRESH adversary, a
  logistic regression trained on the releases of the training images (chance 0.1; on
  clean images it reads the digit at the "raw" accuracy printed);
- (Fig. 9b) the co-trained adversary's variational bound ``H(S) + E log Q(S|Z)`` (nats)
  on the test images, and the fresh adversary's bound (its cross-entropy), both lower
  bounds on I(S; Z) (eq. 2) as good as their adversaries;
- the distortion (per-pixel cross-entropy, nats per pixel; its floor, the clean images'
  own per-pixel entropy, is printed).

Prints each fit's CPU time and the run's wall time. Writes
``benchmarks/results/ppan_mnist.csv``, ``ppan_mnist.png`` (Fig. 9a, 9b, both gammas) and
``ppan_mnist_images.png`` (Figs. 7 and 8: one test image per digit released at each lam).

    python benchmarks/bench_ppan_mnist.py [--data-home ../shared/data] [--schedule cpu]
        [--images train] [--n-train 60000] [--epochs N] [--lams0 35,17,8] [--lams2 15,7,3]
        [--hidden 1000,1000] [--n-jobs 2] [--device cpu]
"""

import argparse
import time
import warnings

import numpy as np
from _common import default_data_home, pyplot, save_figure, write_csv
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_mnist

SCHEDULES = {
    "paper": {
        "epochs": 50,
        0.0: "35,30,25,20,17,16,15,13,10,8",  # Fig. 7
        2.0: "15,13,11,9,7,5,4,3,2",  # Fig. 8
    },
    "cpu": {"epochs": 8, 0.0: "35,17,8", 2.0: "15,7,3"},
}
DISCRIMINATOR_HIDDEN = (500,)  # sec. 3.3: one hidden layer of 500 units

SOURCES = {
    "train": "MNIST's training images, scored on its test images",
    "test-split": "MNIST's test images, split stratified",
}


def load(args):
    """Training and test images in [0, 1] and their digits, as ``--images`` says."""

    def fetch(subset):
        X, s = fetch_mnist(
            subset=subset, data_home=args.data_home, return_X_y=True, download_if_missing=False
        )
        return X.astype(np.float64) / 255.0, s

    if args.images == "train":
        (Xa, sa), (Xb, sb) = fetch("train"), fetch("test")
        return Xa[: args.n_train], Xb, sa[: args.n_train], sb
    X, s = fetch("test")
    return train_test_split(X, s, train_size=args.n_train, stratify=s, random_state=args.seed)


def cross_entropy(X, Z):
    """Per-pixel binary cross-entropy of the release ``Z`` against ``X``, mean over pixels."""
    Z = np.clip(Z, 1e-7, 1 - 1e-7)
    return float(np.mean(-(X * np.log(Z) + (1 - X) * np.log1p(-Z))))


def entropy_of(s):
    """Plug-in entropy of the labels ``s``, nats."""
    p = np.bincount(s) / len(s)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def co_trained(mech, Z, s):
    """The co-trained adversary on releases ``Z``: its accuracy and ``H(S) + E log Q(s|Z)``."""
    import torch

    classes = list(mech.sensitive_records_.ravel())
    codes = np.array([classes.index(v) for v in s])
    adversary = mech.net_.adversary_  # documented: the trained adversary network
    adversary.eval()
    with torch.no_grad():
        param = next(adversary.parameters())
        logits = adversary.net(torch.as_tensor(Z, dtype=param.dtype, device=param.device))
        log_q = torch.log_softmax(logits, dim=-1).double().cpu().numpy()
    accuracy = float(np.mean(log_q.argmax(axis=1) == codes))
    bound = entropy_of(s) + float(np.mean(log_q[np.arange(len(s)), codes]))
    return accuracy, bound


def fresh(Za, sa, Zb, sb):
    """A logistic regression trained on released training images: accuracy and bound."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs's iteration cap: a weaker adversary, still a bound
        model = LogisticRegression(max_iter=500).fit(Za, sa)
    log_p = model.predict_log_proba(Zb)
    codes = np.searchsorted(model.classes_, sb)
    bound = entropy_of(sb) + float(np.mean(log_p[np.arange(len(sb)), codes]))
    return float(model.score(Zb, sb)), bound


def mechanism(args, gamma, lam, epochs):
    """The paper's MNIST mechanism at ``gamma`` and ``lam``."""
    return PPANTransformer(
        training="paper",  # the paper's algorithm (issue 45: the default adds rounds)
        lam=lam,
        gamma=gamma,
        discriminator_hidden_layer_sizes=DISCRIMINATOR_HIDDEN,
        distortion="cross_entropy",
        release="universal",
        n_noise=20,
        hidden_layer_sizes=tuple(int(h) for h in args.hidden.split(",")),
        activation="tanh",
        adversary_steps=args.adversary_steps,
        max_epochs=epochs,
        tol=None,
        batch_size=100,
        lr=1e-3,
        device=args.device,
        random_state=args.seed,
    )


def fit_one(args, gamma, lam, epochs, examples):
    """Fit one mechanism and read its test releases (run in a worker: loads its own images)."""
    import torch

    torch.set_num_threads(1)  # a shared 2-core CPU: one thread per worker
    Xa, Xb, sa, sb = load(args)
    mech = mechanism(args, gamma, lam, epochs)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mech.fit(Xa, sensitive=sa)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    Za, Zb = mech.transform(Xa), mech.transform(Xb)
    co_acc, co_bound = co_trained(mech, Zb, sb)
    c1 = time.process_time()
    fr_acc, fr_bound = fresh(Za, sa, Zb, sb)
    row = {
        "gamma": gamma,
        "lam": lam,
        "epochs": epochs,
        "distortion": cross_entropy(Xb, Zb),
        "co_trained_accuracy": co_acc,
        "co_trained_bound": co_bound,
        "fresh_accuracy": fr_acc,
        "fresh_bound": fr_bound,
        "fit_bound": mech.adversary_leakage_,
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu,
        "fresh_cpu_s": time.process_time() - c1,
        "device": str(mech.net_.device),
        "warnings": " | ".join(sorted({str(w.message)[:90] for w in caught})),
    }
    return row, Zb[examples]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--schedule", choices=sorted(SCHEDULES), default="cpu")
    parser.add_argument("--images", choices=["train", "test-split"], default="train")
    parser.add_argument("--n-train", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--lams0", default=None, help="lams of gamma = 0 (Fig. 7)")
    parser.add_argument("--lams2", default=None, help="lams of gamma = 2 (Fig. 8); '' for none")
    parser.add_argument("--hidden", default="1000,1000")
    parser.add_argument("--adversary-steps", type=int, default=1)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    schedule = SCHEDULES[args.schedule]
    epochs = schedule["epochs"] if args.epochs is None else args.epochs
    grids = {0.0: args.lams0, 2.0: args.lams2}
    grids = {g: schedule[g] if v is None else v for g, v in grids.items()}
    fits = [(g, float(v)) for g, lams in grids.items() for v in lams.split(",") if v]
    args.schedule_text = f"{args.schedule} schedule: {epochs} epochs; lams " + "; ".join(
        f"gamma {g:g}: {grids[g]}" for g in grids if grids[g]
    )
    start = time.perf_counter()
    Xa, Xb, sa, sb = load(args)
    c0 = time.process_time()
    raw_acc, raw_bound = fresh(Xa, sa, Xb, sb)
    raw_cpu = time.process_time() - c0
    floor = cross_entropy(Xb, Xb)
    print(
        f"{len(sa)} training / {len(sb)} test images ({SOURCES[args.images]}); "
        f"clean images: fresh adversary accuracy {raw_acc:.3f}, its bound {raw_bound:.3f} nats "
        f"(H(S) = {entropy_of(sb):.3f}; {raw_cpu:.0f} s CPU); distortion floor (the images' "
        f"own per-pixel entropy) {floor:.3f} nats/pixel; {args.schedule_text}; "
        f"{len(fits)} fits, {args.n_jobs} at a time",
        flush=True,
    )
    examples = np.array([np.flatnonzero(sb == c)[0] for c in range(10)])
    del Xa, sa
    results = Parallel(n_jobs=args.n_jobs, backend="loky", return_as="generator")(
        delayed(fit_one)(args, g, lam, epochs, examples) for g, lam in fits
    )
    rows, grid = [], {}
    for row, images in results:
        rows.append(row)
        grid[row["gamma"], row["lam"]] = images
        print(
            f"gamma {row['gamma']:g} lam {row['lam']:6.2f}  CE {row['distortion']:.4f}  acc "
            f"co-trained {row['co_trained_accuracy']:.3f} fresh {row['fresh_accuracy']:.3f}  "
            f"bound co-trained {row['co_trained_bound']:+.3f} fresh {row['fresh_bound']:+.3f} "
            f"nats  fit {row['fit_s']:.0f} s ({row['fit_cpu_s']:.0f} s CPU), fresh LR "
            f"{row['fresh_cpu_s']:.0f} s CPU",
            flush=True,
        )
    wall = time.perf_counter() - start
    for row in rows:
        row.update(clean_fresh_accuracy=raw_acc, distortion_floor=floor)
    write_csv(rows, "ppan_mnist.csv")
    report(rows, raw_acc, floor)
    cpu = sum(r["fit_cpu_s"] + r["fresh_cpu_s"] for r in rows) + raw_cpu
    print(
        f"device {args.device}; {len(rows)} fits on {args.n_train} training images "
        f"({args.schedule_text}), hidden {args.hidden}; wall time {wall:.0f} s with "
        f"{args.n_jobs} workers, CPU time of the fits and fresh adversaries {cpu:.0f} s"
    )
    plot(rows, raw_acc, floor, args)
    plot_images(grid, Xb[examples])


def plot_images(grid, originals):
    """Figs. 7 and 8: one test image per digit, then its release at each lam (largest first)."""
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    gammas = sorted({g for g, _ in grid})
    panels = []
    for gamma in gammas:
        lams = sorted((lam for g, lam in grid if g == gamma), reverse=True)
        rows = [originals] + [grid[gamma, lam] for lam in lams]
        tiles = np.vstack([np.hstack([x.reshape(28, 28) for x in row]) for row in rows])
        panels.append((gamma, lams, tiles))
    height = sum(0.75 * (len(lams) + 1) + 0.6 for _, lams, _ in panels)
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(7, height),
        squeeze=False,
        gridspec_kw={"height_ratios": [len(lams) + 1 for _, lams, _ in panels]},
    )
    for ax, (gamma, lams, tiles) in zip(axes[:, 0], panels):
        ax.imshow(tiles, cmap="gray", vmin=0, vmax=1)
        ax.set_yticks(14 + 28 * np.arange(len(lams) + 1))
        ax.set_yticklabels(["original"] + [f"lam={lam:g}" for lam in lams])
        ax.set_xticks([])
        fig_no = "7" if gamma == 0 else "8"
        ax.set_title(
            f"Fig. {fig_no} analogue: test images and their releases (gamma = {gamma:g})",
            fontsize=10,
        )
    fig.tight_layout()
    save_figure(fig, "ppan_mnist_images.png")


def report(rows, raw_acc, floor):
    rows = sorted(rows, key=lambda r: (r["gamma"], -r["lam"]))
    heads = f"{'acc co':>7s} {'acc fresh':>9s} {'bnd co':>7s} {'bnd fresh':>9s}"
    print(f"\n{'gamma':>5s} {'lam':>6s} {'CE':>7s} {heads}")
    for r in rows:
        print(
            f"{r['gamma']:5g} {r['lam']:6.2f} {r['distortion']:7.4f} "
            f"{r['co_trained_accuracy']:7.3f} {r['fresh_accuracy']:9.3f} "
            f"{r['co_trained_bound']:+7.3f} {r['fresh_bound']:+9.3f}"
        )
    for gamma in sorted({r["gamma"] for r in rows}):
        group = [r for r in rows if r["gamma"] == gamma]
        by_d = sorted(group, key=lambda r: r["distortion"])

        def monotone(key, by_d=by_d):
            values = [r[key] for r in by_d]
            return all(b <= a + 1e-9 for a, b in zip(values, values[1:]))

        dists = [r["distortion"] for r in group]  # lam falls along the group
        gaps = [r["fresh_bound"] - r["co_trained_bound"] for r in group]
        print(
            f"gamma {gamma:g}: distortion grows as lam falls: "
            f"{all(b >= a for a, b in zip(dists, dists[1:]))}; as distortion grows, the "
            f"accuracy falls: co-trained {monotone('co_trained_accuracy')}, fresh "
            f"{monotone('fresh_accuracy')}; the bound falls: co-trained "
            f"{monotone('co_trained_bound')}, fresh {monotone('fresh_bound')}; the fresh "
            f"bound exceeds the co-trained one by {min(gaps):+.3f} to {max(gaps):+.3f} nats"
        )
        for key, name in [("co_trained_accuracy", "co-trained"), ("fresh_accuracy", "fresh")]:
            hidden = [r["lam"] for r in group if r[key] < 0.5 * (raw_acc + 0.1)]
            print(
                f"  {name} adversary: largest lam whose release halves its edge over chance "
                f"(accuracy < {0.5 * (raw_acc + 0.1):.2f}): "
                + (f"{max(hidden):g}" if hidden else f"none down to lam {group[-1]['lam']:g}")
            )
    print(
        "the paper's Figs. 7-8 go from accurate reconstructions at the largest lam to digits "
        f"hard to recognise at the smallest; the distortion's floor here is {floor:.3f} nats/pixel"
    )


def plot(rows, raw_acc, floor, args):
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    styles = {0.0: ("C0", "o"), 2.0: ("C1", "^")}
    for gamma in sorted({r["gamma"] for r in rows}):
        group = sorted((r for r in rows if r["gamma"] == gamma), key=lambda r: r["distortion"])
        color, marker = styles.get(gamma, ("C2", "s"))
        ce = [r["distortion"] for r in group]
        for ax, key in zip(axes, ["accuracy", "bound"]):
            ax.plot(
                ce,
                [r[f"co_trained_{key}"] for r in group],
                marker + "-",
                color=color,
                label=f"gamma {gamma:g}: co-trained adversary",
            )
            ax.plot(
                ce,
                [r[f"fresh_{key}"] for r in group],
                marker + "--",
                color=color,
                mfc="none",
                label=f"gamma {gamma:g}: fresh logistic regression",
            )
        for r in group:
            axes[0].annotate(
                f"{r['lam']:g}",
                (r["distortion"], r["fresh_accuracy"]),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
                color=color,
            )
    axes[0].axhline(0.1, color="k", ls=":", label="chance (0.1)")
    axes[0].axhline(raw_acc, color="gray", ls="--", label="fresh, clean images")
    axes[0].set(
        title="Fig. 9a: adversary accuracy on test releases (labels: lam)",
        xlabel="distortion (per-pixel cross-entropy, nats)",
        ylabel="accuracy",
        ylim=(0, 1),
    )
    axes[1].axhline(np.log(10), color="k", ls=":", label="H(S) = log 10")
    axes[1].set(
        title="Fig. 9b: variational lower bound on I(S; Z), test releases",
        xlabel="distortion (per-pixel cross-entropy, nats)",
        ylabel="H(S) + E log Q(S|Z) [nats]",
    )
    for ax in axes:
        ax.axvline(floor, color="0.8", lw=0.8)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(
        f"PPAN on MNIST: {args.n_train} training images ({SOURCES[args.images]}), "
        f"{args.schedule_text}; universal mechanism, tanh hidden {args.hidden} (the paper: "
        "50 epochs, Figs. 7-8's lams)",
        fontsize=9,
    )
    fig.tight_layout()
    save_figure(fig, "ppan_mnist.png")


if __name__ == "__main__":
    main()
