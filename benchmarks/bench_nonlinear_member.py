"""The panel's nonlinear member, chosen by measurement: a small network against more boosting.

Candidates, each as a held-out bound ``H(S) - CE`` over 5 stratified folds (seed 0), n = 2000,
on the interaction and geometry shapes of issue 33 (S = a XOR b among 98 noise columns, the
parity of 3 of 33 binary columns, sign(z1 z2) among 100 Gaussian columns, radius 1 against 1.1
in 50 dimensions):

- ``net``: two hidden layers of 64 ReLU units on each column's normal scores and the row's
  root mean square, AdamW (lr 1e-2, batch 256), stopped on a held-out fifth's log-loss
  (patience 20);
- ``hgb500``: ``HistGradientBoostingClassifier(max_iter=500, early_stopping=False)``;
- ``hgb_es``: the same with early stopping on a fifth (patience 30, up to 1000 rounds).

Run: ``python benchmarks/bench_nonlinear_member.py [shapes] [members]`` (CPU seconds per line).
What it printed, and why the panel took the network: "The panel's nonlinear member" in
``docs/design.md``.
"""

import sys
import time

import numpy as np
import torch
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import QuantileTransformer


def xor(rng, n=2000):
    a, b = rng.integers(0, 2, (2, n))
    return a ^ b, np.c_[a, b, rng.normal(size=(n, 98))]


def parity3(rng, n=2000):
    x = rng.integers(0, 2, (n, 33))
    return x[:, :3].sum(1) % 2, x


def sign_z1z2(rng, n=2000):
    z = rng.normal(size=(n, 100))
    return (z[:, 0] * z[:, 1] > 0).astype(int), z


def radius(rng, n=2000, d=50):
    s = rng.integers(0, 2, n)
    u = rng.normal(size=(n, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return s, u * np.where(s == 1, 1.1, 1.0)[:, None]


SHAPES = {"xor": xor, "parity3": parity3, "sign": sign_z1z2, "radius": radius}


torch.set_num_threads(1)


def fit_net(X, y, k, seed=0, hidden=64, epochs=200, patience=20, lr=1e-2, wd=1e-4, batch=256):
    g = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    nv = max(len(y) // 5, 1)
    va, tr = idx[:nv], idx[nv:]
    Xt = torch.as_tensor(X, dtype=torch.float32)
    yt = torch.as_tensor(y)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, k),
    )
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=wd)
    lossf = torch.nn.CrossEntropyLoss()
    best, best_state, wait = np.inf, None, 0
    for ep in range(epochs):  # noqa: B007 (the last epoch is returned)
        perm = tr[torch.randperm(len(tr), generator=g).numpy()]
        net.train()
        for i in range(0, len(perm), batch):
            b = perm[i : i + batch]
            opt.zero_grad()
            lossf(net(Xt[b]), yt[b]).backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            v = float(lossf(net(Xt[va]), yt[va]))
        if v < best - 1e-4:
            best, wait = v, 0
            best_state = {n: p.clone() for n, p in net.state_dict().items()}
        else:
            wait += 1
            if wait >= patience:
                break
    net.load_state_dict(best_state)
    return net, ep


def bound(model_fit, X, s, folds=5):
    k = s.max() + 1
    p = np.bincount(s) / len(s)
    h = -(p * np.log(p)).sum()
    ce = []
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, s):
        proba = model_fit(X[tr], s[tr], X[te], k)
        proba = 0.999 * proba + 0.001 / k
        ce.append(-np.log(proba[np.arange(len(te)), s[te]]))
    return h - np.concatenate(ce).mean()


def net_member(Xtr, ytr, Xte, k):
    q = QuantileTransformer(
        output_distribution="normal", n_quantiles=min(1000, len(ytr)), random_state=0
    ).fit(Xtr)
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-12

    def feat(X):
        z = (X - mu) / sd
        r = np.sqrt((z**2).mean(1, keepdims=True))
        return np.c_[q.transform(X), (r - rm) / rs]

    r0 = np.sqrt((((Xtr - mu) / sd) ** 2).mean(1))
    rm, rs = r0.mean(), r0.std() + 1e-12
    net, ep = fit_net(feat(Xtr), ytr, k)
    print("  epochs", ep, end="")
    with torch.no_grad():
        return torch.softmax(net(torch.as_tensor(feat(Xte), dtype=torch.float32)), 1).numpy()


def hgb_member(Xtr, ytr, Xte, k):
    m = HistGradientBoostingClassifier(
        max_iter=500, early_stopping=False, learning_rate=0.1, random_state=0
    ).fit(Xtr, ytr)
    return m.predict_proba(Xte)


def hgb_es(Xtr, ytr, Xte, k):
    m = HistGradientBoostingClassifier(
        max_iter=1000,
        early_stopping=True,
        n_iter_no_change=30,
        validation_fraction=0.2,
        learning_rate=0.1,
        random_state=0,
    ).fit(Xtr, ytr)
    return m.predict_proba(Xte)


def bin_s(s, q=4):
    edges = np.quantile(s, np.linspace(0, 1, q + 1)[1:-1])
    return np.searchsorted(edges, s)


names = sys.argv[1].split(",") if len(sys.argv) > 1 else list(SHAPES)
members = dict(net=net_member, hgb500=hgb_member, hgb_es=hgb_es)
for name in names:
    s, T = SHAPES[name](np.random.default_rng(0))
    T = np.asarray(T, dtype=float)
    for m in sys.argv[2].split(",") if len(sys.argv) > 2 else members:
        t0 = time.process_time()
        b = bound(members[m], T, s)
        print(f"{name:12s} {m:8s} {b:.3f}  {time.process_time() - t0:.1f}s", flush=True)
