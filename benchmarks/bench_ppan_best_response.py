"""PPAN against fresh adversaries, read by fresh adversaries (issue 45), beside a linear release.

scikit-learn's digits (pixels / 16; S = the digit, H(S) = 2.303 nats), a stratified 60/40
split (seed 0). For each budget ``b``, ``PPANTransformer(max_distortion=b * D0)`` at its other
defaults (``D0``: the distortion of releasing the training mean, the total variance of the
training pixels), trained as the paper does (``training="paper"``) and toward the
adversary's best response (``training="best_response"``, the default). The held-out rows'
releases are read by

- the panel (``leakage_score``, its default: held-out bounds and the kNN estimate),
- a fresh logistic regression trained on the training rows' releases (its accuracy),

beside the mechanism's own training bound (``adversary_leakage_``: the co-trained adversary's
for ``"paper"``, the chosen round's fresh adversary's for ``"best_response"``) and a linear
release at the distortion the PPAN release measured on the held-out rows: shrink the span of
the nine class-mean differences (by half, or less where that alone exceeds the distortion)
and add isotropic Gaussian noise up to the same distortion.

    python benchmarks/bench_ppan_best_response.py [--budgets 0.1 0.3 0.5] [--seed 0]
        [--trainings paper best_response] [--max-rounds 5]

Writes benchmarks/results/ppan_best_response.csv and prints the table.
"""

import argparse
import time
import warnings

import numpy as np
from _common import RESULTS, write_csv
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_privacy import PPANTransformer
from sklearn_privacy.information import entropy
from sklearn_privacy.metrics import leakage_score


def digits(seed=0):
    X, s = load_digits(return_X_y=True)
    return train_test_split(X / 16, s, test_size=0.4, stratify=s, random_state=seed)


class LinearRelease:
    """Shrink the class-mean span of the training rows and add isotropic Gaussian noise."""

    def __init__(self, X, s):
        self.mean = X.mean(axis=0)
        means = np.array([X[s == c].mean(axis=0) for c in np.unique(s)]) - self.mean
        # the span of the class-mean differences (rank: classes - 1)
        self.basis = np.linalg.svd(means, full_matrices=False)[2][: len(means) - 1].T

    def release(self, X, distortion, rng, shrink=0.5):
        """A release of ``X`` at expected squared distortion ``distortion`` per row."""
        projected = (X - self.mean) @ self.basis @ self.basis.T
        span = float(np.mean(np.sum(projected**2, axis=1)))
        shrink = min(shrink, np.sqrt(distortion / span))
        noise_var = max(distortion - shrink**2 * span, 0.0) / X.shape[1]
        return X - shrink * projected + rng.normal(scale=np.sqrt(noise_var), size=X.shape)


def fresh_accuracy(z_train, s_train, z_test, s_test):
    return LogisticRegression(max_iter=2000).fit(z_train, s_train).score(z_test, s_test)


def one_budget(b, training, data, seed, max_rounds=5):
    Xa, Xb, sa, sb = data
    d0 = float(np.sum(Xa.var(axis=0)))
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mech = PPANTransformer(
            max_distortion=b * d0, training=training, max_rounds=max_rounds, random_state=seed
        )
        mech.fit(Xa, sensitive=sa)
    fit_s = time.process_time() - start
    za, zb = mech.transform(Xa), mech.transform(Xb)
    distortion = float(np.mean(np.sum((zb - Xb) ** 2, axis=1)))
    linear = LinearRelease(Xa, sa)
    rng = np.random.default_rng(seed)
    la, lb = linear.release(Xa, distortion, rng), linear.release(Xb, distortion, rng)
    panel, linear_panel = leakage_score(sb, zb), leakage_score(sb, lb)
    return {
        "budget": b,
        "training": training,
        "distortion_over_d0": distortion / d0,
        "own_bound": mech.adversary_leakage_,
        "leakage_": mech.leakage_,
        "panel": panel,
        "fresh_lr_accuracy": fresh_accuracy(za, sa, zb, sb),
        "linear_panel": linear_panel,
        "linear_lr_accuracy": fresh_accuracy(la, sa, lb, sb),
        "below_linear": 1.0 - panel / linear_panel,
        "panel_minus_own": panel - mech.adversary_leakage_,
        "rounds": len(getattr(mech, "fresh_rounds_", [])),
        "epochs": mech.n_iter_,
        "fit_cpu_s": fit_s,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.1, 0.3, 0.5])
    parser.add_argument("--trainings", nargs="+", default=["paper", "best_response"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-rounds", type=int, default=5, help="PPANTransformer's max_rounds")
    args = parser.parse_args()
    data = digits(args.seed)
    print(f"H(S) = {entropy(np.bincount(data[2]) / len(data[2])):.3f} nats")
    header = (
        f"{'b':>4} {'training':>13} {'d/D0':>5} {'own':>6} {'panel':>6} {'LR acc':>6} "
        f"{'linear':>6} {'lin acc':>7} {'below':>6} {'gap':>6} {'rounds':>6} {'cpu s':>6}"
    )
    print(header)
    rows = []
    for b in args.budgets:
        for training in args.trainings:
            row = one_budget(b, training, data, args.seed, args.max_rounds)
            rows.append(row)
            print(
                f"{b:>4} {training:>13} {row['distortion_over_d0']:5.3f} {row['own_bound']:6.3f} "
                f"{row['panel']:6.3f} {row['fresh_lr_accuracy']:6.3f} {row['linear_panel']:6.3f} "
                f"{row['linear_lr_accuracy']:7.3f} {row['below_linear']:6.1%} "
                f"{row['panel_minus_own']:+6.3f} {row['rounds']:6d} {row['fit_cpu_s']:6.0f}",
                flush=True,
            )
    write_csv(rows, RESULTS / "ppan_best_response.csv")


if __name__ == "__main__":
    main()
