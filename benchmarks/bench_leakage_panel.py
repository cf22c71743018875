"""The default leakage estimate against held-out adversaries, on the release shapes users have.

``leakage_score(S, T)`` (``estimator="auto"``) used to be one estimate (the
copula kNN estimate for a continuous release, the plug-in for a discrete
one); it is now the largest of a panel (held-out logistic and boosting lower
bounds, the kNN and plug-in estimates minus their permutation nulls). Three
tables, the baseline commit and today's code run in child processes of one
run:

1. **Releases that leak**: each release's default estimate (baseline / now)
   against ``H(S)`` minus the held-out cross-entropy of a logistic
   regression (``estimator="logistic"``, a lower bound on ``I(S; T)``), and
   their ratio (the goal: at least 0.9). Fair binary S (``H(S) = 0.693``
   nats) unless said; n = 2000 unless said.
2. **Independent releases**: the default estimate's mean over 10 seeds
   (goal: at most 0.03 nats for n >= 200, 0.05 at n = 50).
3. **Time** on 10 000 rows x 100 columns (CPU seconds, best of 2): the
   default against the kNN estimate alone (the baseline's default on that
   release; goal: at most 5x), and scikit-learn's ``mutual_info_classif``
   (one kNN estimate per column; on a single column it computes the same
   thing as ``estimator="knn"``).

The PPAN releases (the digits example of ``docs/user_guide/ppan.md``, MNIST)
and the ``L2CompressionDP`` pipeline are measured with ``--mechanisms``
(today's code only: they show ``leakage_``, the scorer and a fresh held-out
bound); MNIST needs ``--data-home`` with ``mnist/``.

``--no-tables --adult-cost`` times issue 33's Adult call alone (S = sex, its
other string columns), the ``--adult-baseline`` commit's code and today's.

``--no-tables --speed`` times issue 49's goal under each of ``--cpu-settings`` (numpy's
loops as the CPU has them, AVX-512 off, AVX2 off: ``_common.CPU_SETTINGS``): the default
estimate against the kNN estimate alone (CPU seconds, best of ``--repeats``) on 10 000 rows x 100
columns (goal: at most 2x), 10 000 x 5 and 10 000 x 20 with 10 values of S, today's code and the
``--speed-baseline`` commit's.

``--no-tables --dask`` times issue 49's dask release: ``leakage_score`` of a release computed
lazily by dask (``S + N(0, 1)`` beside 4 N(0, 1) columns, plus dask's own N(0, 0.25) noise;
chunks of 10 000 rows) at 50 000 to 400 000 rows, the default (a draw of ``max_samples`` =
50 000 rows, computed alone) against every row (``max_samples=None``, up to 200 000 rows), CPU
seconds of one call.

``--no-tables --attack`` reads issue 47's cases (a pair among 500 columns, a triple among 33,
atoms, missing and infinite values, a sparse release's row counts) beside a generic held-out
bound whose model is named (one not told which columns carry S).

Run: ``python benchmarks/bench_leakage_panel.py [--baseline REF] [--mechanisms]
[--quick]``
"""

import argparse

import numpy as np
from _common import (
    CPU_SETTINGS,
    REPO,
    checkout_at_ref,
    cpu_note,
    default_data_home,
    remove_checkout,
    run_with_package,
    write_csv,
)

# Release generators shared by both children: name -> (n, function of rng -> (s, T)).
CASES = r'''
import numpy as np
from _common import best_cpu_seconds

def give_away_among_noise(d, n=2000):
    def make(rng):
        s = rng.integers(0, 2, n)
        return s, np.c_[s + 0.1 * rng.normal(size=n), rng.normal(size=(n, d - 1))]
    return make

def give_away_with(levels, d=20, n=2000):
    def make(rng):
        s = rng.integers(0, 2, n)
        return s, np.c_[s + 0.1 * rng.normal(size=n), rng.integers(0, levels, (n, d))]
    return make

def spread_weakly(n=2000, d=100, a=0.45):
    def make(rng):
        s = rng.integers(0, 2, n)
        return s, a * s[:, None] + rng.normal(size=(n, d))
    return make

def one_hot(n=2000, k=20):
    def make(rng):
        s = rng.integers(0, 2, n)
        x = np.where(s == 1, rng.integers(0, k, n), rng.integers(0, k // 2, n))
        return s, np.eye(k)[x]
    return make

def high_cardinality(n=2000, k=500):
    def make(rng):
        s = rng.integers(0, 2, n)
        x = 2 * rng.integers(0, k // 2, n) + s  # S is the parity of the symbol
        return s, x[:, None]
    return make

def three_classes(n=2000, d=30):
    def make(rng):
        s = rng.choice(3, n, p=[0.6, 0.3, 0.1])
        t = rng.normal(size=(n, d))
        t[:, 5] += 1.5 * s
        return s, t
    return make

LEAKING = {
    "S + 0.1 N, 0 noise columns": give_away_among_noise(1),
    "S + 0.1 N, 9 noise columns": give_away_among_noise(10),
    "S + 0.1 N, 49 noise columns": give_away_among_noise(50),
    "S + 0.1 N, 99 noise columns": give_away_among_noise(100),
    "S + 0.1 N, 199 noise columns": give_away_among_noise(200),
    "S + 0.1 N, 20 binary columns": give_away_with(2),
    "S + 0.1 N, 20 columns in {0, 1, 2}": give_away_with(3),
    "0.45 S + N on each of 100 columns": spread_weakly(),
    "S + 0.1 N, 9 noise columns, n = 50": give_away_among_noise(10, 50),
    "one-hot of 20 symbols, P(x | s) differs": one_hot(),
    "one column of 500 symbols, S = parity": high_cardinality(),
    "3 classes (0.6/0.3/0.1) in column 6 of 30": three_classes(),
}

def independent(kind, n, d):
    def make(rng):
        s = rng.integers(0, 2, n)
        if kind == "gaussian":
            t = rng.normal(size=(n, d))
        elif kind == "binary":
            t = rng.integers(0, 2, (n, d))
        elif kind == "skewed":
            t = rng.exponential(size=(n, d)) ** 3
        elif kind == "few-valued":
            t = rng.choice(3, (n, d), p=[0.8, 0.15, 0.05]).astype(float) + 0.5
        elif kind == "500 symbols":
            t = rng.integers(0, 500, (n, d))
        return s, t
    return make

def independent_cases(quick):
    sizes = {50: (1, 10, 100, 200), 200: (1, 10, 100, 200), 2000: (1, 10, 100, 200),
             20000: (1,)}
    if quick:
        sizes = {50: (1, 10), 200: (1, 10), 2000: (1, 10)}
    kinds = ("gaussian", "binary", "skewed", "few-valued", "500 symbols")
    return {(kind, n, d): independent(kind, n, d)
            for n, widths in sizes.items() for d in widths for kind in kinds
            if not (kind == "500 symbols" and d > 10)}

def timing_release():
    """10000 rows x 100 columns: S + 0.1 N among 99 noise columns."""
    rng = np.random.default_rng(1)
    s = rng.integers(0, 2, 10000)
    return s, np.c_[s + 0.1 * rng.normal(size=10000), rng.normal(size=(10000, 99))]
'''

CHILD = (
    CASES
    + r"""
import warnings
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
QUICK = QUICK_FLAG
out = {"leaking": {}, "independent": {}, "time": {}}
for name, make in LEAKING.items():
    s, t = make(np.random.default_rng(0))
    out["leaking"][name] = leakage_score(s, t)
for key, make in independent_cases(QUICK).items():
    out["independent"][key] = [
        leakage_score(*make(np.random.default_rng(seed))) for seed in range(10)
    ]
s, t = timing_release()
out["time"] = best_cpu_seconds({
    "default": lambda: leakage_score(s, t),
    "knn": lambda: leakage_score(s, t, estimator="knn"),
})
print(out)
"""
)

BOUNDS = (
    CASES
    + r"""
import warnings
from sklearn.feature_selection import mutual_info_classif
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
out = {"bound": {}, "member": {}, "knn": {}, "time": {}}
for name, make in LEAKING.items():
    s, t = make(np.random.default_rng(0))
    out["bound"][name] = leakage_score(s, t, estimator="logistic")
    out["knn"][name] = leakage_score(s, t, estimator="knn")  # the docs quote the wide ones
    out["member"][name] = leakage_score(s, t, return_details=True).estimator
s, t = timing_release()
out["time"] = best_cpu_seconds({
    "knn, one column": lambda: leakage_score(s, t[:, :1], estimator="knn"),
    "mutual_info_classif, one column": lambda: mutual_info_classif(t[:, :1], s, random_state=0),
    "mutual_info_classif, 100 columns": lambda: mutual_info_classif(t, s, random_state=0),
})
print(out)
"""
)

MECHANISMS = r'''
import warnings
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn_privacy import L2CompressionDP, PPANTransformer
from sklearn_privacy.information import entropy_from_samples
from sklearn_privacy.metrics import leakage_score, make_adversary_scorer, make_leakage_scorer
warnings.simplefilter("ignore")


def fresh_bound(s_train, z_train, s_test, z_test):
    """H(S) minus the cross-entropy, on new rows, of a logistic regression fitted on others."""
    model = LogisticRegression(max_iter=2000).fit(z_train, s_train)
    columns = np.searchsorted(model.classes_, s_test)
    proba = model.predict_proba(z_test)[np.arange(len(s_test)), columns]
    return entropy_from_samples(s_test) + float(np.mean(np.log(np.maximum(proba, 1e-12))))


out = {}
rng = np.random.default_rng(0)
n = 4000
s = rng.integers(0, 2, n)
X = np.c_[3 * s + 0.3 * rng.normal(size=n), rng.normal(size=(n, 99)), s]
mech = L2CompressionDP(epsilon=500, fit_data="public", sensitive=[100]).fit(X[:2000])
release = mech.transform(X[2000:])
out["L2CompressionDP(epsilon=500, public), 100 columns: scorer on 2000 new rows"] = (
    -make_leakage_scorer()(mech, X[2000:]),
    leakage_score(s[2000:], release, estimator="logistic"),
    -make_adversary_scorer()(mech, X[2000:]),
)
# the digits example of the docs (docs/examples/plot_ppan_digits.py)
digits = load_digits()
Xd, sd = digits.data / 16.0, digits.target
X_train, X_test, s_train, s_test = train_test_split(
    Xd, sd, test_size=1 / 3, random_state=0, stratify=sd
)
for lam in (0.1, 1.0, 30.0):
    ppan = PPANTransformer(
        lam=lam, release="gaussian", distortion="cross_entropy", hidden_layer_sizes=(64,),
        activation="leaky_relu", adversary_steps=5, max_epochs=12, batch_size=128, lr=2e-3,
        adversary_lr=5e-3, random_state=0,
    ).fit(X_train, sensitive=s_train)
    z_train, z_test = ppan.transform(X_train), ppan.transform(X_test)
    accuracy = LogisticRegression(max_iter=2000).fit(z_train, s_train).score(z_test, s_test)
    out[f"PPAN digits lam {lam}: leakage_ (fit rows) / fresh bound (new rows)"] = (
        float(ppan.leakage_), fresh_bound(s_train, z_train, s_test, z_test), accuracy,
    )
    out[f"PPAN digits lam {lam}: fresh_leakage_ / co-trained bound"] = (
        float(ppan.fresh_leakage_), float(ppan.adversary_leakage_), None,
    )
print(out)
'''

# PPAN on MNIST with bench_ppan_mnist.py's networks (5000 training images, 10 epochs), lam 0.1
MNIST = r"""
import warnings
import numpy as np
import torch
from scipy.special import xlogy
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_mnist
from sklearn_privacy.information import entropy_from_samples
warnings.simplefilter("ignore")
torch.set_num_threads(1)
X, s = fetch_mnist(subset="test", data_home=DATA_HOME, return_X_y=True, download_if_missing=False)
X = X.astype(np.float64) / 255.0
Xa, Xb, sa, sb = train_test_split(X, s, train_size=5000, stratify=s, random_state=0)
mech = PPANTransformer(
    lam=0.1, distortion="cross_entropy", release="universal", n_noise=20,
    hidden_layer_sizes=(1000, 1000), activation="tanh", adversary_steps=1, max_epochs=10,
    tol=None, batch_size=100, lr=1e-3, random_state=0,
).fit(Xa, sensitive=sa)
accuracy = LogisticRegression(max_iter=1000).fit(mech.transform(Xa), sa).score(
    mech.transform(Xb), sb
)
error = 1 - accuracy
# Fano: I(S; Z) >= H(S) - h(error) - error log(|S| - 1)
h_error = -xlogy(error, error) - xlogy(1 - error, 1 - error)
fano = entropy_from_samples(sb) - h_error - error * np.log(9)
print({"PPAN MNIST lam 0.1: leakage_ / Fano bound of a fresh LR / its accuracy": (
    float(mech.leakage_), float(fano), float(accuracy)),
    "PPAN MNIST lam 0.1: fresh_leakage_ / co-trained bound": (
    float(mech.fresh_leakage_), float(mech.adversary_leakage_), None)})
"""

# The shapes of issue 33: each release's panel read beside a held-out bound of a named model,
# fitted on one half and scored on the other (predictions mixed with 0.001 uniform), n = 2000.
SHAPES = r"""
from _common import cpu_seconds
import warnings
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, PolynomialFeatures, StandardScaler
from sklearn_privacy.information import entropy_from_samples
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
N = 2000


def holdout_bound(model, t, labels):
    t_a, t_b, l_a, l_b = train_test_split(t, labels, train_size=0.5, random_state=0,
                                          stratify=labels)
    fitted = model.fit(t_a, l_a)
    proba = np.zeros((len(l_b), labels.max() + 1))
    proba[:, fitted.classes_] = fitted.predict_proba(t_b)
    proba = 0.999 * proba + 0.001 / proba.shape[1]
    return entropy_from_samples(l_b) + float(np.mean(np.log(proba[np.arange(len(l_b)), l_b])))


def boosting_500():
    return HistGradientBoostingClassifier(max_iter=500, early_stopping=False, random_state=0)


def first_column_one_hot():
    from sklearn.compose import make_column_transformer
    return make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), [0])),
                         LogisticRegression(max_iter=2000))


def xor(rng):
    a, b = rng.integers(0, 2, (2, N))
    return a ^ b, np.c_[a, b, rng.normal(size=(N, 98))]


def parity(rng):
    x = rng.integers(0, 2, (N, 33))
    return x[:, :3].sum(1) % 2, x


def sign(rng):
    z = rng.normal(size=(N, 100))
    return (z[:, 0] * z[:, 1] > 0).astype(int), z


def code(rng, d):
    c = rng.integers(0, 500, N)
    return np.isin(c, np.arange(25)).astype(int), np.c_[c, rng.normal(size=(N, d))]


def strings(rng):
    s, t = code(rng, 10)
    frame = pd.DataFrame(t[:, 1:], columns=[f"x{i}" for i in range(10)])
    frame.insert(0, "code", [f"level {int(v)}" for v in t[:, 0]])
    return s, frame


def square(rng):
    s = rng.normal(size=N)
    return s, (s ** 2 + 0.01 * rng.normal(size=N))[:, None]


def circle(rng):
    s = rng.normal(size=N)
    return s, np.c_[np.sin(3 * s), np.cos(3 * s)]


def radius(rng):
    s = rng.integers(0, 2, N)
    u = rng.normal(size=(N, 50))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return s, u * np.where(s == 1, 1.1, 1.0)[:, None]


def sparse(rng):
    s = rng.integers(0, 2, N)
    t = sp.random(N, 200, density=0.05, random_state=0, format="lil")
    t[:, 0] = (s * rng.uniform(0.5, 1.0, N))[:, None]
    return s, t.tocsr()


def norm_feature(t):
    return np.linalg.norm(t, axis=1, keepdims=True)


# name -> (release, model name, model, labels of the bound from S, features of the bound)
CASES = {
    "S = a XOR b, [a, b, 98 N(0,1)]": (xor, "degree-2 interactions + L1 logistic",
        lambda: make_pipeline(PolynomialFeatures(2, interaction_only=True, include_bias=False),
                              StandardScaler(),
                              LogisticRegression(penalty="l1", solver="liblinear", C=0.1)),
        None, None),
    "S = parity of 3 of 33 binary columns": (parity, "boosting, 500 rounds, no early stopping",
        boosting_500, None, None),
    "S = sign(z1 z2) among 100 N(0,1)": (sign, "boosting, 500 rounds, no early stopping",
        boosting_500, None, None),
    "code of 500 levels (S on 25) + 10 N(0,1)": (lambda r: code(r, 10),
        "one-hot logistic on the code", first_column_one_hot, None, None),
    "code of 500 levels (S on 25) + 50 N(0,1)": (lambda r: code(r, 50),
        "one-hot logistic on the code", first_column_one_hot, None, None),
    "DataFrame: string code + 10 float columns": (strings, "one-hot logistic on the code",
        first_column_one_hot, None, lambda t: t.to_numpy()),
    "continuous S, T = S^2 + 0.01 N": (square, "forest on T, 1[|S| > median]",
        lambda: RandomForestClassifier(200, min_samples_leaf=5, random_state=0),
        lambda s: (np.abs(s) > np.median(np.abs(s))).astype(int), None),
    "continuous S, T = (sin 3S, cos 3S)": (circle, "forest on T, 1[sin 3S > 0]",
        lambda: RandomForestClassifier(200, min_samples_leaf=5, random_state=0),
        lambda s: (np.sin(3 * s) > 0).astype(int), None),
    "50 dims, radius 1 vs 1.1": (radius, "logistic on the row norm",
        lambda: make_pipeline(StandardScaler(), LogisticRegression()), None, norm_feature),
    "scipy sparse CSR, 200 columns": (sparse, "forest",
        lambda: RandomForestClassifier(200, min_samples_leaf=5, random_state=0), None, None),
}
out = {}
for name, (make, model_name, model, labels, features) in CASES.items():
    s, t = make(np.random.default_rng(0))
    seconds, estimate = cpu_seconds(lambda: leakage_score(s, t, return_details=True))
    bound = holdout_bound(model(), (features or (lambda v: v))(t),
                          (labels or (lambda v: v))(s))
    top = next(iter(estimate.columns), "")
    out[name] = (estimate.value, estimate.estimator, bound, model_name, seconds, top)
print(out)
"""

# Independent releases of issue 33's kinds: the panel's read over seeds (S is independent of T,
# so I(S; T) = 0 and every read above 0 is the panel's bias; the rule: a mean of at most 0.05
# nats at n = 50 and 0.03 at n >= 200). S is a fair coin, or N(0, 1) for the continuous-S kind.
INDEPENDENCE = r"""
import warnings
import numpy as np
import scipy.sparse as sp
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
D = 10


def release(kind, n, rng):
    if kind == "gaussian":
        return rng.normal(size=(n, D))
    if kind == "heavy-tailed (Cauchy)":
        return rng.standard_cauchy(size=(n, D))
    if kind == "binary":
        return rng.integers(0, 2, (n, D))
    if kind == "code of 500 levels + 10 N(0,1)":
        return np.c_[rng.integers(0, 500, n), rng.normal(size=(n, D))]
    if kind == "few-valued (3 values, 0.8/0.15/0.05)":
        return rng.choice(3, (n, D), p=[0.8, 0.15, 0.05]) + 0.5
    if kind == "missing values (20 % NaN, 5 % inf)":
        t = rng.normal(size=(n, D))
        t[rng.random((n, D)) < 0.2] = np.nan
        t[rng.random((n, D)) < 0.05] = np.inf
        return t
    if kind == "atoms (10 % of each column on 0 or 1)":
        t = rng.normal(size=(n, D))
        group = rng.random((n, D)) < 0.1
        t[group] = rng.integers(0, 2, group.sum())
        return t
    if kind == "wide (250 binary + 250 N(0,1))":
        return np.c_[rng.integers(0, 2, (n, 250)), rng.normal(size=(n, 250))]
    if kind == "sparse CSR (200 columns, 5 %)":
        return sp.random(n, 200, density=0.05, random_state=rng, format="csr")
    return rng.normal(size=(n, D))  # continuous S


out = {}
for kind in KINDS:
    for n in SIZES:
        reads, winners = [], []
        for seed in range(SEEDS):
            rng = np.random.default_rng(seed)
            s = rng.normal(size=n) if kind == "continuous S, 10 N(0,1)" else rng.integers(0, 2, n)
            estimate = leakage_score(s, release(kind, n, rng), return_details=True)
            reads.append(estimate.value)
            winners.append(estimate.estimator)
        out[(kind, n)] = (reads, max(set(winners), key=winners.count))
print(out)
"""

INDEPENDENT_KINDS = (
    "gaussian",
    "heavy-tailed (Cauchy)",
    "binary",
    "code of 500 levels + 10 N(0,1)",
    "few-valued (3 values, 0.8/0.15/0.05)",
    "continuous S, 10 N(0,1)",
    "missing values (20 % NaN, 5 % inf)",
    "atoms (10 % of each column on 0 or 1)",
    "wide (250 binary + 250 N(0,1))",
    "sparse CSR (200 columns, 5 %)",
)

# The kNN estimate's read of the wide release (one give-away column among noise columns) over
# seeds 0-4: the docs quote seed 0 and this range.
KNN_SEEDS = (
    CASES
    + r"""
import warnings
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
out = {}
for d in (100, 200):
    out[f"S + 0.1 N, {d - 1} noise columns"] = [
        leakage_score(*give_away_among_noise(d)(np.random.default_rng(seed)), estimator="knn")
        for seed in range(5)
    ]
print(out)
"""
)

# The costs of issue 33: the panel at 10 000 x 100 against the kNN estimate, Adult's string
# columns, PPAN with 1000 classes of S (CPU seconds, one run each).
COSTS = r"""
import warnings
import numpy as np
from _common import cpu_seconds
warnings.simplefilter("ignore")
from sklearn_privacy import PPANTransformer
from sklearn_privacy.datasets import fetch_adult
from sklearn_privacy.metrics import leakage_score

out = {}
rng = np.random.default_rng(1)
s = rng.integers(0, 2, 10000)
t = np.c_[s + 0.1 * rng.normal(size=10000), rng.normal(size=(10000, 99))]
out["10000 x 100: panel"] = cpu_seconds(lambda: leakage_score(s, t))[0]
out["10000 x 100: kNN estimate alone"] = cpu_seconds(
    lambda: leakage_score(s, t, estimator="knn"))[0]
out["10000 x 100: panel / kNN"] = out["10000 x 100: panel"] / out["10000 x 100: kNN estimate alone"]
try:
    import sklearn_privacy.estimation._heldout as heldout

    X, _ = fetch_adult(data_home=DATA_HOME, return_X_y=True, download_if_missing=False,
                       as_frame=True)
    strings = [c for c in X.columns if str(X[c].dtype) in ("category", "object")]
    others = [c for c in strings if c != "sex"]
    release = X[others].astype(str).fillna("?")  # pandas 3 keeps NaN through astype(str)
    sex = X["sex"].astype(str)
    label = f"Adult ({len(X)} rows): S = sex, its {len(others)} other string columns"
    cap = heldout.MAX_FIT_ROWS
    heldout.MAX_FIT_ROWS = None  # every training row, as before the cap
    out[f"{label}, every training row"] = cpu_seconds(lambda: leakage_score(sex, release))[0]
    heldout.MAX_FIT_ROWS = cap
    out[f"{label}, {cap} training rows a fold"] = cpu_seconds(
        lambda: leakage_score(sex, release))[0]
except FileNotFoundError:
    pass
n = 3000
labels = rng.integers(0, 1000, n).astype(str)
Xp = rng.normal(size=(n, 5))
ppan = PPANTransformer(release="gaussian", max_epochs=2, random_state=0)
out["PPAN, 1000 classes of S (strings), 3000 x 5, max_epochs=2"] = cpu_seconds(
    lambda: ppan.fit(Xp, sensitive=labels))[0]
release = ppan.transform(Xp)
out["  its fresh leakage estimate alone (leakage_score of its release)"] = cpu_seconds(
    lambda: leakage_score(labels, release))[0]
print(out)
"""

# Issue 33's Adult cost alone (--adult-cost): S = sex, its other string columns; the CPU
# seconds of the first call and the least of three warm calls, and the estimates.
ADULT_COST = r"""
from _common import cpu_seconds
import warnings
warnings.simplefilter("ignore")
from sklearn_privacy.datasets import fetch_adult
from sklearn_privacy.metrics import leakage_score

X, _ = fetch_adult(data_home=DATA_HOME, return_X_y=True, download_if_missing=False, as_frame=True)
strings = [c for c in X.columns if str(X[c].dtype) in ("category", "object")]
release = X[[c for c in strings if c != "sex"]].astype(str).fillna("?")
sex = X["sex"].astype(str)


def cpu():
    return cpu_seconds(lambda: leakage_score(sex, release, return_details=True))


first, estimate = cpu()
warm = min(cpu()[0] for _ in range(3))
print((first, warm, float(estimate), estimate.estimates))
"""

# Issue 47's panel cases: each release's panel read beside a generic held-out bound (its model
# is not told which columns carry S), fitted on one half and scored on the other (predictions
# mixed with 0.001 uniform), n = 2000; the goal: the panel reads at least half the bound.
ATTACK = r"""
from _common import cpu_seconds
import warnings
from itertools import combinations
import numpy as np
import scipy.sparse as sp
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn_privacy.information import entropy_from_samples
from sklearn_privacy.metrics import leakage_score
warnings.simplefilter("ignore")
N = 2000


def halves(t, s):
    return train_test_split(t, s, train_size=0.5, random_state=0, stratify=s)


def score(proba, s_b):
    proba = 0.999 * proba + 0.001 / proba.shape[1]
    return entropy_from_samples(s_b) + float(np.mean(np.log(proba[np.arange(len(s_b)), s_b])))


def model_bound(model, features):
    def bound(t, s):
        t_a, t_b, s_a, s_b = halves(features(t), s)
        return score(model().fit(t_a, s_a).predict_proba(t_b), s_b)
    return bound


def best_pair_table(t, s):
    # every pair of columns as a 4 x 4 table of quantile bins (add-one smoothing); the pair of
    # largest log-likelihood on the fitting half is scored on the other half
    t_a, t_b, s_a, s_b = halves(t, s)
    edges = np.quantile(t_a, [0.25, 0.5, 0.75], axis=0)
    bins = lambda v: np.stack([np.searchsorted(edges[:, j], v[:, j], side="right")  # noqa: E731
                               for j in range(v.shape[1])], 1)
    b_a, b_b = bins(t_a), bins(t_b)
    d = t.shape[1]
    one_hot = np.zeros((len(s_a), 4 * d))
    one_hot[np.arange(len(s_a))[:, None], 4 * np.arange(d) + b_a] = 1.0
    counts = [one_hot[s_a == c].T @ one_hot[s_a == c] for c in (0, 1)]
    total = counts[0] + counts[1]
    like = sum(c * np.log((c + 1) / (total + 2)) for c in counts)
    like = like.reshape(d, 4, d, 4).sum(axis=(1, 3))
    like[np.tril_indices(d)] = -np.inf
    i, j = np.unravel_index(np.argmax(like), like.shape)
    cell_a, cell_b = 4 * i + b_b[:, i], 4 * j + b_b[:, j]
    ones = counts[1][cell_a, cell_b]
    p1 = (ones + 1) / (total[cell_a, cell_b] + 2)
    return score(np.c_[1 - p1, p1], s_b)


def triple_signs(t):
    signs = np.sign(t)
    return np.stack([signs[:, i] * signs[:, j] * signs[:, k]
                     for i, j, k in combinations(range(t.shape[1]), 3)], 1)


def repeated_values(t):
    # each column's values seen twice or more, as categories (others: one category), beside it
    cols = []
    for j in range(t.shape[1]):
        values, inverse, counts = np.unique(t[:, j], return_inverse=True, return_counts=True)
        cols.append(np.where(counts[inverse] > 1, inverse, -1))
    return np.c_[t, np.stack(cols, 1)]


def row_count(t):
    return np.asarray(t.getnnz(axis=1)).reshape(-1, 1)


def xor_wide(rng):
    a, b = rng.integers(0, 2, (2, N))
    return a ^ b, np.c_[a, b, rng.normal(size=(N, 498))]


def triple(rng):
    z = rng.normal(size=(N, 33))
    return (z[:, 0] * z[:, 1] * z[:, 2] > 0).astype(int), z


def atoms(rng):
    s = rng.integers(0, 2, N)
    x = rng.normal(size=N)
    group = rng.random(N) < 0.1
    x[group] = s[group]
    return s, np.c_[x, rng.normal(size=(N, 9))]


def missing(rng):
    s = rng.integers(0, 2, N)
    t = rng.normal(size=(N, 10))
    t[s == 1, 0] = np.nan
    return s, t


def infinite(rng):
    s = rng.integers(0, 2, N)
    t = rng.normal(size=(N, 10))
    t[(s == 1) & (rng.random(N) < 0.3), 3] = np.inf
    return s, t


def sparse_count(rng):
    s = rng.integers(0, 2, N)
    density = np.where(s == 1, 0.05, 0.04)
    mask = rng.random((N, 200)) < density[:, None]
    return s, sp.csr_matrix(mask * rng.uniform(0.5, 1.0, (N, 200)))


L1 = lambda: make_pipeline(StandardScaler(),  # noqa: E731
                           LogisticRegression(penalty="l1", solver="liblinear", C=0.1))
CASES = {
    "S = a XOR b, [a, b, 498 N(0,1)]": (xor_wide, (0,),
        "best 4x4 quantile table of all 125 250 pairs", best_pair_table),
    "S = sign(z1 z2 z3) among 33 N(0,1)": (triple, (0,),
        "L1 logistic on all 5456 triple sign products", model_bound(L1, triple_signs)),
    "x = S on a 10 % subgroup, N(0,1) else; + 9 N(0,1)": (atoms, (0, 1, 2, 3),
        "logistic on one-hot of each column's repeated values",
        model_bound(lambda: make_pipeline(
            __import__("sklearn.compose").compose.make_column_transformer(
                (OneHotEncoder(handle_unknown="ignore"), list(range(10, 20))),
                remainder=StandardScaler()), LogisticRegression(max_iter=2000)),
            repeated_values)),
    "NaN exactly when S = 1 in x; + 9 N(0,1)": (missing, (0,),
        "logistic on SimpleImputer(add_indicator=True)",
        model_bound(lambda: make_pipeline(SimpleImputer(add_indicator=True), StandardScaler(),
                                          LogisticRegression(max_iter=2000)), lambda t: t)),
    "+inf on 30 % of the S = 1 rows in x; + 9 N(0,1)": (infinite, (0,),
        "logistic on SimpleImputer(add_indicator=True)",
        model_bound(lambda: make_pipeline(SimpleImputer(add_indicator=True), StandardScaler(),
                                          LogisticRegression(max_iter=2000)),
                    lambda t: np.where(np.isinf(t), np.nan, t))),
    "CSR 200 columns, density 0.04 + 0.01 S": (sparse_count, (0, 1, 2, 3),
        "logistic on each row's count of stored entries",
        model_bound(lambda: make_pipeline(StandardScaler(), LogisticRegression()), row_count)),
}
out = {}
for name, (make, seeds, model_name, bound) in CASES.items():
    for seed in seeds:
        s, t = make(np.random.default_rng(seed))
        seconds, estimate = cpu_seconds(lambda: leakage_score(s, t, return_details=True))
        top = next(iter(estimate.columns), "")
        out[(name, seed)] = (estimate.value, estimate.estimator, bound(t, s), model_name, seconds,
                             top)
print(out)
"""


# Issue 49's goal: the default estimate's CPU seconds against the kNN estimate's alone (best of
# REPEATS), at 10 000 rows.
SPEED = r"""
import warnings
import numpy as np
from _common import best_cpu_seconds
warnings.simplefilter("ignore")
from sklearn_privacy.metrics import leakage_score

out = {}
for d, classes in ((100, 2), (5, 2), (20, 10)):
    rng = np.random.default_rng(1)
    s = rng.integers(0, classes, 10000)
    t = np.c_[s + 0.1 * rng.normal(size=10000), rng.normal(size=(10000, d - 1))]
    out.update(best_cpu_seconds({
        (d, classes, name): lambda name=name: leakage_score(s, t, estimator=name)
        for name in ("auto", "knn")
    }, repeat=REPEATS))
print(out)
"""


# Issue 49's dask release: the default's CPU seconds against every row's, by rows.
DASK = r"""
import warnings
import dask.array as da
import numpy as np
from _common import cpu_seconds
warnings.simplefilter("ignore")
from sklearn_privacy.metrics import leakage_score

warm = np.random.default_rng(1)
leakage_score(warm.integers(0, 2, 500), warm.normal(size=(500, 5)))  # imports, torch's start
out = {}
for n in (50_000, 100_000, 200_000, 400_000):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, n)
    X = np.c_[s + rng.normal(size=n), rng.normal(size=(n, 4))]
    noise = da.random.default_rng(1).standard_normal((n, 5), chunks=(10_000, 5))
    lazy = da.from_array(X, chunks=(10_000, 5)) + 0.5 * noise  # computed only when read
    out[(n, "default")] = cpu_seconds(lambda: leakage_score(s, lazy))
    if n <= 200_000:
        out[(n, "every row")] = cpu_seconds(lambda: leakage_score(s, lazy, max_samples=None))
print(out)
"""


def dask_release(args):
    """Issue 49's dask release: the default (a draw) against every row, by rows."""
    found = run_with_package(REPO, DASK)
    print(f"\n{'dask release (5 columns)':<28}{'rows read':>10}{'CPU s':>8}{'value':>8}")
    rows = []
    for (n, how), (seconds, value) in found.items():
        read = n if how == "every row" else min(n, 50_000)
        print(f"{n:>8} rows, {how:<13}{read:>10}{seconds:>8.1f}{value:>8.3f}")
        rows.append(["dask", f"{n} rows, {how}", read, seconds, value, ""])
    return rows


def speed(args):
    """Issue 49's goal: the default estimate against the kNN estimate, on each CPU setting."""
    code = SPEED.replace("REPEATS", str(args.repeats))
    folder = checkout_at_ref(args.speed_baseline)
    rows = []
    try:
        for setting in args.cpu_settings:
            print(f"\nCPU setting {setting!r}: {cpu_note(setting)}")
            print(f"{'10 000 rows (CPU s, best of ' + str(args.repeats) + ')':<34}{'commit':>9}"
                  f"{'default':>9}{'kNN':>8}{'ratio':>7}")  # fmt: skip
            found = {
                ref: run_with_package(root, code, env=CPU_SETTINGS[setting])
                for ref, root in ((args.speed_baseline, folder), ("today", REPO))
            }
            for d, classes, _ in [key for key in found["today"] if key[2] == "auto"]:
                for ref, times in found.items():
                    auto, knn = times[(d, classes, "auto")], times[(d, classes, "knn")]
                    label = f"{d} columns, {classes} values of S"
                    print(f"{label:<34}{ref:>9}{auto:>9.2f}{knn:>8.2f}{auto / knn:>6.2f}x")
                    rows.append(["speed", f"{setting}: {label}", ref, auto, knn, auto / knn])
    finally:
        remove_checkout(folder)
    return rows


def adult_cost(args):
    """Issue 33's Adult call, the baseline commit's code and today's in one run."""
    code = ADULT_COST.replace("DATA_HOME", repr(str(args.data_home)))
    folder = checkout_at_ref(args.adult_baseline)
    try:
        found = {args.adult_baseline: run_with_package(folder, code)}
    finally:
        remove_checkout(folder)
    found["today"] = run_with_package(REPO, code)
    print(f"\n{'Adult, S = sex (CPU s)':<24}{'first':>7}{'warm':>7}{'value':>9}  members")
    rows = []
    for ref, (first, warm, value, estimates) in found.items():
        members = ", ".join(f"{name} {read:.6f}" for name, read in estimates.items())
        print(f"{ref:<24}{first:>7.2f}{warm:>7.2f}{value:>9.6f}  {members}")
        rows.append(["adult cost", ref, first, warm, value, ""])
    (_, base, _, _), (_, now, _, _) = found.values()
    print(f"warm CPU, today / {args.adult_baseline}: {now / base:.2f}")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="67237ea")
    parser.add_argument("--quick", action="store_true", help="fewer independent settings")
    parser.add_argument("--mechanisms", action="store_true", help="PPAN and L2 pipeline rows")
    parser.add_argument("--mnist", action="store_true", help="PPAN on MNIST (needs the data)")
    parser.add_argument("--no-tables", action="store_true", help="only the mechanism rows")
    parser.add_argument("--shapes", action="store_true", help="issue 33's shapes and costs")
    parser.add_argument("--attack", action="store_true", help="issue 47's panel cases")
    parser.add_argument("--no-costs", action="store_true", help="--shapes without the costs")
    parser.add_argument(
        "--adult-cost", action="store_true", help="issue 33's Adult call, baseline and today"
    )
    parser.add_argument("--adult-baseline", default="66f015a", help="baseline of --adult-cost")
    parser.add_argument(
        "--independence", action="store_true", help="issue 33's independent releases, 10 seeds"
    )
    parser.add_argument("--sizes", default="50,200,2000", help="rows of --independence")
    parser.add_argument("--kinds", default="", help="--independence kinds (substrings, comma)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds of --independence")
    parser.add_argument("--speed", action="store_true", help="issue 49's default against kNN")
    parser.add_argument("--dask", action="store_true", help="issue 49's dask release by rows")
    parser.add_argument("--speed-baseline", default="452a57f", help="baseline of --speed")
    parser.add_argument("--repeats", type=int, default=2, help="--speed's repeats (best of)")
    parser.add_argument(
        "--cpu-settings",
        nargs="+",
        default=["as is", "no AVX-512"],
        choices=list(CPU_SETTINGS),
        help="numpy's CPU settings of --speed",
    )
    parser.add_argument("--data-home", default=default_data_home())
    args = parser.parse_args()
    rows = [] if args.no_tables else tables(args)
    if args.shapes:
        rows += shapes(args)
    if args.speed:
        rows += speed(args)
    if args.dask:
        rows += dask_release(args)
    if args.attack:
        rows += attack()
    if args.adult_cost:
        rows += adult_cost(args)
    if args.independence:
        rows += independence(args)
    mechanisms = {}
    if args.mechanisms:
        mechanisms.update(run_with_package(REPO, MECHANISMS))
    if args.mnist:
        code = MNIST.replace("DATA_HOME", repr(str(args.data_home)))
        mechanisms.update(run_with_package(REPO, code))
    if mechanisms:
        print(f"\n{'mechanism release':<76}{'reported':>9}{'bound':>9}{'adversary':>10}")
    for name, (value, bound, accuracy) in mechanisms.items():
        accuracy = float("nan") if accuracy is None else accuracy
        print(f"{name:<76}{value:>9.3f}{bound:>9.3f}{accuracy:>10.3f}")
        rows.append(["mechanism", name, "", value, bound, accuracy])
    path = write_csv(
        rows, "leakage_panel.csv", header=["table", "case", "baseline", "now", "bound", "ratio"]
    )
    print(f"\nwrote {path}")


def shapes(args):
    """Issue 33's shapes (panel read beside a named held-out bound) and the costs."""
    found = run_with_package(REPO, SHAPES)
    print(f"\n{'release (n = 2000)':<44}{'panel':>7}{'bound':>7}{'ratio':>7}{'CPU s':>7}"
          f"  winner / top column / bound's model")  # fmt: skip
    rows = []
    for name, (value, winner, bound, model, seconds, top) in found.items():
        ratio = value / bound if bound > 0 else float("nan")
        print(f"{name:<44}{value:>7.3f}{bound:>7.3f}{ratio:>7.2f}{seconds:>7.1f}"
              f"  {winner} / {top} / {model}")  # fmt: skip
        rows.append(["shapes", name, model, value, bound, ratio])
    if args.no_costs:
        return rows
    print("\nkNN estimate alone, seeds 0-4")
    for name, reads in run_with_package(REPO, KNN_SEEDS).items():
        print(f"  {name:<44}" + " ".join(f"{v:.3f}" for v in reads))
        rows.append(["knn seeds", name, "", min(reads), max(reads), ""])
    costs = run_with_package(REPO, COSTS.replace("DATA_HOME", repr(str(args.data_home))))
    print("\nCPU seconds")
    for label, seconds in costs.items():
        print(f"  {label:<60}{seconds:>8.2f}")
        rows.append(["cost", label, "", seconds, "", ""])
    return rows


def attack():
    """Issue 47's cases: the panel's read beside a generic held-out bound, per seed."""
    found = run_with_package(REPO, ATTACK)
    print(f"\n{'release (n = 2000)':<52}{'seed':>5}{'panel':>7}{'bound':>7}{'ratio':>7}"
          f"{'CPU s':>7}  winner / top column / bound's model")  # fmt: skip
    rows = []
    for (name, seed), (value, winner, bound, model, seconds, top) in found.items():
        ratio = value / bound if bound > 0 else float("nan")
        flag = "" if ratio >= 0.5 else "  MISSED"
        print(f"{name:<52}{seed:>5}{value:>7.3f}{bound:>7.3f}{ratio:>7.2f}{seconds:>7.1f}"
              f"  {winner} / {top} / {model}{flag}")  # fmt: skip
        rows.append(["attack", f"{name}, seed {seed}", model, value, bound, ratio])
    return rows


def independence(args):
    """Issue 33's independent releases: mean and largest read over seeds, per kind and n."""
    wanted = [k for k in args.kinds.split(",") if k]
    kinds = [k for k in INDEPENDENT_KINDS if not wanted or any(w in k for w in wanted)]
    sizes = [int(n) for n in args.sizes.split(",")]
    code = (
        INDEPENDENCE.replace("KINDS", repr(kinds))
        .replace("SIZES", repr(sizes))
        .replace("SEEDS", str(args.seeds))
    )
    found = run_with_package(REPO, code)
    print(f"\n{'independent release (10 columns)':<40}{'n':>6}{'mean':>7}{'max':>7}{'goal':>6}"
          f"  most frequent winner")  # fmt: skip
    rows = []
    for (kind, n), (reads, winner) in found.items():
        mean, goal = float(np.mean(reads)), 0.05 if n < 200 else 0.03
        flag = "" if mean <= goal else "  MISSED"
        print(f"{kind:<40}{n:>6}{mean:>7.3f}{max(reads):>7.3f}{goal:>6}  {winner}{flag}")
        rows.append(["independence", f"{kind}, n = {n}", args.seeds, mean, max(reads), goal])
    return rows


def tables(args):
    """The three tables: baseline and today's code in child processes, their rows for the CSV."""
    child = CHILD.replace("QUICK_FLAG", str(args.quick))
    folder = checkout_at_ref(args.baseline)
    try:
        base = run_with_package(folder, child)
    finally:
        remove_checkout(folder)
    now = run_with_package(REPO, child)
    ref = run_with_package(REPO, BOUNDS)

    rows = []
    print(f"{'release (leaking)':<44}{'baseline':>9}{'now':>8}{'logistic':>9}"
          f"{'now/bound':>10}  attained by")  # fmt: skip
    for name, bound in ref["bound"].items():
        b, v = base["leaking"][name], now["leaking"][name]
        ratio = v / bound if bound > 0 else float("nan")
        print(f"{name:<44}{b:>9.3f}{v:>8.3f}{bound:>9.3f}{ratio:>10.2f}  {ref['member'][name]}"
              f" (kNN alone {ref['knn'][name]:.3f})")  # fmt: skip
        rows.append(["leaking", name, b, v, bound, ratio])

    print(f"\n{'independent release (mean of 10 seeds)':<44}{'baseline':>9}{'now':>8}"
          f"{'max seed':>9}{'goal':>6}")  # fmt: skip
    worst = {}
    for key, values in now["independent"].items():
        kind, n, d = key
        mean_now, mean_base = sum(values) / len(values), sum(base["independent"][key]) / 10
        goal = 0.05 if n < 200 else 0.03
        label = f"{kind}, n = {n}, {d} column(s)"
        flag = "" if mean_now <= goal else "  MISSED"
        print(f"{label:<44}{mean_base:>9.3f}{mean_now:>8.3f}{max(values):>9.3f}{goal:>6}{flag}")
        rows.append(["independent", label, mean_base, mean_now, max(values), goal])
        worst[n] = max(worst.get(n, 0.0), mean_now)
    print("largest mean by n:", {n: round(v, 4) for n, v in worst.items()})

    print("\nCPU seconds, 10000 x 100 (best of 2)")
    times = {**{f"{k} (now)": v for k, v in now["time"].items()}, **ref["time"]}
    times["baseline default"] = base["time"]["default"]
    for label, seconds in times.items():
        print(f"  {label:<40}{seconds:>8.2f}")
        rows.append(["time", label, "", seconds, "", ""])
    print(f"  default / kNN (both now): {now['time']['default'] / now['time']['knn']:.2f}x")
    return rows


if __name__ == "__main__":
    main()
