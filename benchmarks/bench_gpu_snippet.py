"""The GPU page's MNIST snippet (docs/user_guide/gpu.md): how much of the digit its release hides.

The snippet's ``PPANTransformer`` (``lam=1``, cross-entropy distortion, Gaussian release, one
hidden layer of 128 leaky-ReLU units, 5 adversary steps, 15 epochs, batches of 128) fitted on
``--n-fit`` (5000) of MNIST's 10000 test images (stratified split, seed 0) instead of all of
them, so that the release is measured on images the mechanism never saw: the other 5000 are
released, and a fresh logistic regression trained on half of those releases reads the digit
from the other half, beside the same classifier on the clean images. Prints both accuracies
and the CPU time of the fit.

Run: ``python benchmarks/bench_gpu_snippet.py [--n-fit 5000] [--device auto] [--data-home DIR]``
"""

import argparse
import time

from _common import default_data_home
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_mnist


def fresh_accuracy(X, digit):
    """A logistic regression trained on half of ``X`` reading the digit of the other half."""
    X_a, X_b, d_a, d_b = train_test_split(X, digit, test_size=0.5, stratify=digit, random_state=0)
    return LogisticRegression(max_iter=1000).fit(X_a, d_a).score(X_b, d_b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-fit", type=int, default=5000)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--data-home", default=default_data_home())
    args = parser.parse_args()
    X, digit = fetch_mnist(
        subset="test", return_X_y=True, data_home=args.data_home, download_if_missing=False
    )
    X = X / 255.0
    X_fit, X_new, d_fit, d_new = train_test_split(
        X, digit, train_size=args.n_fit, stratify=digit, random_state=0
    )
    mech = PPANTransformer(
        lam=1.0, distortion="cross_entropy", release="gaussian",
        hidden_layer_sizes=(128,), activation="leaky_relu",
        adversary_steps=5, adversary_lr=1e-2, lr=2e-3, max_epochs=15, batch_size=128,
        device=args.device, random_state=0,
    )  # fmt: skip
    start = time.process_time()
    mech.fit(X_fit, sensitive=d_fit)
    cpu = time.process_time() - start
    released = mech.transform(X_new)
    print(f"fit on {len(X_fit)} images ({mech.net_.device}): {cpu:.0f} s of CPU")
    print(
        f"fresh classifier on {len(X_new)} other images: released "
        f"{fresh_accuracy(released, d_new):.3f}, clean {fresh_accuracy(X_new, d_new):.3f}"
    )


if __name__ == "__main__":
    main()
