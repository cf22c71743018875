"""An epoch of PPAN's MNIST networks through skorch against a plain PyTorch loop (issue 45).

The paper's networks (sec. 3.3): the universal mechanism ``z = f(w, u)`` with 20 seed-noise
values, two tanh hidden layers of 1000 units, sigmoid image, per-pixel cross-entropy
distortion; the adversary two tanh layers of 1000 units; batches of 100, Adam at 1e-3, one
adversary update per mechanism update (``training="paper"``). ``PPANTransformer.fit`` runs
``--epochs`` epochs on ``--n-images`` MNIST training images (its history's per-epoch
``dur``); the plain loop trains copies of the same two modules on the same rows in batches of
the same size, with the same updates (adversary on the detached release, then mechanism on
``E log Q(S|Z) + lam E d``), and nothing else. Prints the best epoch of each and the ratio.

    python benchmarks/bench_ppan_epoch.py [--data-home ../shared/data] [--n-images 6000]
        [--epochs 3] [--device cpu] [--threads 1]
"""

import argparse
import copy
import platform
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from _common import default_data_home

from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_mnist

LAM = 10.0


def paper_mechanism(epochs, device):
    return PPANTransformer(
        lam=LAM,
        distortion="cross_entropy",
        release="universal",
        n_noise=20,
        hidden_layer_sizes=(1000, 1000),
        activation="tanh",
        training="paper",
        max_epochs=epochs,
        tol=None,
        batch_size=100,
        lr=1e-3,
        device=device,
        random_state=0,
    )


def plain_epochs(mechanism, adversary, X, s, epochs, device):
    """Seconds of each epoch of a bare loop over the same modules and batch size."""
    X = torch.as_tensor(X, dtype=torch.float32, device=device)
    s = torch.as_tensor(s, device=device)
    opt_m = torch.optim.Adam(mechanism.parameters(), lr=1e-3)
    opt_a = torch.optim.Adam(adversary.parameters(), lr=1e-3)
    n, times = len(X), []
    for _ in range(epochs):
        start = time.perf_counter()
        for rows in torch.randperm(n, device=device).split(100):
            w, target = X[rows], s[rows]
            noise = 2 * torch.rand(len(rows), 20, device=device) - 1
            z, _ = mechanism(w, noise)
            opt_a.zero_grad()
            (-adversary.log_prob(torch.sigmoid(z).detach(), target).mean()).backward()
            opt_a.step()
            z, _ = mechanism(w, noise)
            opt_m.zero_grad()
            distortion = F.binary_cross_entropy_with_logits(
                z, w[:, None, :], reduction="none"
            ).mean(-1)
            loss = adversary.log_prob(torch.sigmoid(z), target).mean() + LAM * distortion.mean()
            loss.backward()
            opt_m.step()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-images", type=int, default=6000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    X, s = fetch_mnist(
        subset="train", data_home=args.data_home, return_X_y=True, download_if_missing=False
    )
    X, s = X[: args.n_images].astype(np.float64) / 255.0, s[: args.n_images]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mech = paper_mechanism(args.epochs, args.device).fit(X, sensitive=s)
    skorch_epochs = [float(d) for d in mech.history_[:, "dur"]]
    codes = np.searchsorted(mech.sensitive_records_.ravel(), s)
    plain = plain_epochs(
        copy.deepcopy(mech.net_.module_).train(),
        copy.deepcopy(mech.net_.adversary_).train(),
        X,
        codes,
        args.epochs,
        args.device,
    )
    best_skorch, best_plain = min(skorch_epochs), min(plain)
    print(
        f"{platform.processor() or platform.machine()}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} thread(s), device {args.device}, CPU capability "
        f"{torch.backends.cpu.get_cpu_capability()}; {len(X)} images, batches of 100"
    )
    print(f"skorch epochs (s): {', '.join(f'{t:.2f}' for t in skorch_epochs)}")
    print(f"plain loop epochs (s): {', '.join(f'{t:.2f}' for t in plain)}")
    print(
        f"best epoch: skorch {best_skorch:.2f} s, plain {best_plain:.2f} s, ratio "
        f"{best_skorch / best_plain:.2f}"
    )


if __name__ == "__main__":
    main()
