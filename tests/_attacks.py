"""Attacks on the privacy promise of a deployed Gaussian mechanism (the issue on sharing).

Each attack uses the library's public API only (fitted attributes, pickle,
joblib, dask), so that ``benchmarks/bench_privacy_attacks.py`` runs it against the
code of an earlier commit as well as against today's, and the tests assert today's
numbers. Every function returns numbers, not verdicts. It lives beside the tests that
import it (``tests`` is on pytest's ``pythonpath``); the benchmark loads this file by
its path, so neither folder is on the other's import path.
"""

import copy
import io
import os
import pickle
import tempfile

import numpy as np
from scipy.stats import norm

_NOISE_TYPES = (
    np.random.Generator,
    np.random.BitGenerator,
    np.random.SeedSequence,
    np.random.RandomState,
)


def noise_state_objects(obj):
    """Names of the random-number states reachable when ``obj`` is pickled."""
    found = []
    types = _NOISE_TYPES
    try:
        import torch

        types = (*types, torch.Generator)
    except ImportError:  # pragma: no cover - torch is a dependency
        pass

    class Spy(pickle.Pickler):
        def reducer_override(self, item):
            if isinstance(item, types):
                found.append(type(item).__name__)
            return NotImplemented

    Spy(io.BytesIO()).dump(obj)
    return found


def _data(n=4000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d))


def _public_mechanism(public):
    from sklearn_privacy.gaussian import L2CompressionDP

    return L2CompressionDP(epsilon=1.0, clip_radius=3.0, fit_data="public").fit(public)


def _coordinates(mech, X):
    """Noiseless release coordinates ``a * V^T clip(x - c)`` (public fitted attributes)."""
    Xc = np.asarray(X, float) - mech.mean_
    norms = np.linalg.norm(Xc, axis=1)
    Xc = Xc * np.minimum(1.0, mech.radius_ / np.maximum(norms, 1e-300))[:, None]
    return Xc @ mech.components_.T * mech.scale_


def residual_ratio(mech, secret, T_secret, known, T_known):
    """Noise left after ``T_secret - T_known`` minus the noiseless difference, over two draws.

    About 1 when the two releases drew independent noise, 0 when they shared
    it (the difference then gives the secret rows away).
    """
    diff = (T_secret - T_known) @ mech.components_.T
    noiseless = _coordinates(mech, secret) - _coordinates(mech, known)
    residual = diff - noiseless
    return float(np.mean(np.std(residual, axis=0) / np.sqrt(2.0 * mech.noise_variance_)))


def _transform(mech, X):
    return mech.transform(X)


def copies(path, mech, public):
    """Two copies of the fitted ``mech`` made the way ``path`` deploys it."""
    if path == "pickle":
        blob = pickle.dumps(mech)
        return pickle.loads(blob), pickle.loads(blob)
    if path == "deepcopy":
        return copy.deepcopy(mech), copy.deepcopy(mech)
    if path == "joblib":
        import joblib

        with tempfile.TemporaryDirectory() as folder:
            file = os.path.join(folder, "model.joblib")
            joblib.dump(mech, file)
            return joblib.load(file), joblib.load(file)  # two servers
    if path == "pipeline-memory":
        from sklearn.base import clone
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import FunctionTransformer

        folder = tempfile.mkdtemp()
        pipes = [
            Pipeline([("m", clone(mech)), ("id", FunctionTransformer())], memory=folder).fit(public)
            for _ in range(2)
        ]
        return pipes[0].named_steps["m"], pipes[1].named_steps["m"]
    raise ValueError(path)


def copy_difference(path, n=4000):
    """``residual_ratio`` of two copies: one releases the secret rows, one known rows."""
    public, secret, known = _data(n)
    mech = _public_mechanism(public)
    if path == "loky":
        from joblib import Parallel, delayed

        T_secret, T_known = Parallel(n_jobs=2, backend="loky")(
            delayed(_transform)(mech, rows) for rows in (secret, known)
        )
    else:
        a, b = copies(path, mech, public)
        T_secret, T_known = a.transform(secret), b.transform(known)
    return residual_ratio(mech, secret, T_secret, known, T_known)


def pickle_replay(n=4000):
    """From a pickled model: its noise states, and the owner's next release predicted.

    The attacker unpickles the model and releases rows he knows; the owner
    then releases secret rows. Returns the number of random states in the
    pickle and ``residual_ratio`` of the two releases (0: the attacker removes
    the owner's noise).
    """
    public, secret, known = _data(n)
    mech = _public_mechanism(public)
    blob = pickle.dumps(mech)
    spy = pickle.loads(blob)
    T_known = spy.transform(known)
    T_secret = mech.transform(secret)
    states = noise_state_objects(mech)
    return len(states), residual_ratio(mech, secret, T_secret, known, T_known)


def private_pickle_states(n=2000):
    """Random states reachable from a privately fitted model (default parameters)."""
    from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP

    X = np.random.default_rng(0).normal(size=(n, 3))
    l2 = L2CompressionDP().fit(X)
    gib = GaussianIBTransformer(beta=1e4, fit_epsilon=50.0).fit(X, (X[:, 0] > 0).astype(int))
    return len(noise_state_objects(l2)) + len(noise_state_objects(gib))


def dask_average(n_computes=200, scheduler="threads", n=1000):
    """Noise of the average of ``n_computes`` computes of one lazy release, over one compute.

    1 when every compute yields the same rows; ``1 / sqrt(n_computes)`` when
    each compute redraws the noise. Also returns ``privacy_spent()`` before
    and after the computes.
    """
    import dask
    import dask.array as da

    public, secret, _ = _data(n)
    mech = _public_mechanism(public)
    lazy = mech.transform(da.from_array(secret, chunks=n // 4))
    spent = mech.privacy_spent()[0]
    noiseless = _coordinates(mech, secret)
    with dask.config.set(scheduler=scheduler):
        draws = [
            (np.asarray(lazy.compute()) - mech.mean_) @ mech.components_.T
            for _ in range(n_computes)
        ]
    single = np.std(draws[0] - noiseless)
    average = np.std(np.mean(draws, axis=0) - noiseless)
    return float(average / single), spent, mech.privacy_spent()[0]


def gib_structure(y, seed):
    """The structure a private GIB fit publishes: shapes, and eigenvalues away from 1."""
    from sklearn_privacy.gaussian import GaussianIBTransformer

    X = np.random.default_rng(0).normal(size=(len(y), 3))
    X[:, 0] += np.asarray(y) == 1  # two classes move two directions
    X[:, 1] += 2.0 * (np.asarray(y) == 2)
    try:
        gib = GaussianIBTransformer(beta=1000.0, random_state=np.random.default_rng(seed)).fit(X, y)
    except ValueError as exc:
        return ("error", str(exc).split(" value")[0])  # the kind of refusal, not its numbers
    away = int(np.sum(np.abs(gib.eigenvalues_ - 1.0) > 0.05))
    return (gib.components_.shape, gib.eigenvalues_.shape, away)


def gib_neighbours(n=2000, n_fits=20):
    """Share of seeds whose published structure differs between D and a neighbour.

    D has a 3-class integer label y; its neighbours change one person's y to
    0.5 or to a new class 3; the last makes y a single class (one person's
    change away from a two-class y).
    """
    y = np.arange(n) % 3
    half, new = y.astype(float), y.copy()
    half[0], new[0] = 0.5, 3
    single = np.zeros(n, dtype=int)
    pair = single.copy()
    pair[0] = 1
    out = {}
    for name, (a, b) in {
        "y=0.5": (y, half),
        "y=3": (y, new),
        "single class": (pair, single),
    }.items():
        differ = [gib_structure(a, seed) != gib_structure(b, seed) for seed in range(n_fits)]
        out[name] = float(np.mean(differ))
    return out


def weighted_row(n=200000, weight=100.0, n_fits=300, epsilon=4.0, seed=0):
    """Tell a weight-``weight`` row from its neighbour by ``mean_`` alone.

    Returns the attacker's true-positive rate at a 5 % false-positive
    rate and the most any test can reach under the reported fit-time
    guarantee (Gaussian DP trade-off ``Phi(Phi^-1(0.05) + mu)``). The rows
    are many enough (2000 people of that weight) for the private
    estimates to work, so that the test is not passed by a failed fit.
    """
    from sklearn_privacy.gaussian import L2CompressionDP

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    w = np.ones(n)
    w[0] = weight
    Xp = X.copy()
    X[0], Xp[0] = [2.0, 0.0], [-2.0, 0.0]
    stats, mus = [[], []], []
    # the row is one person of that weight: declared where the code has the parameter
    # (before it, a private fit read the largest weight off the rows)
    declared = _declared_person_weight(L2CompressionDP, weight)
    for trial in range(n_fits):
        for k, data in enumerate((X, Xp)):
            mech = L2CompressionDP(
                epsilon=epsilon, random_state=np.random.default_rng([seed, trial, k]), **declared
            ).fit(data, sample_weight=w)
            stats[k].append(mech.mean_[0])
            fit = [e for e in mech.accountant_.spends if e.name != "release"]
            mus.append(np.sqrt(sum(e.mu**2 for e in fit)))
    threshold = np.quantile(stats[1], 0.95)
    tpr = float(np.mean(np.asarray(stats[0]) > threshold))
    bound = float(norm.cdf(norm.ppf(0.05) + max(mus)))
    return tpr, bound


def _declared_person_weight(cls, weight):
    return {"max_person_weight": weight} if "max_person_weight" in cls().get_params() else {}


def _declared_counts():
    """``weights="counts"`` where the code has the parameter (a weight counted people before)."""
    from sklearn_privacy.gaussian import L2CompressionDP

    return {"weights": "counts"} if "weights" in L2CompressionDP().get_params() else {}


def _count_table(seed=0):
    """About 600 distinct rows of 60000 people, and the neighbour that moves one person
    onto the most common row (its count 280 -> 281 in the issue's case)."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(600, 3)).round(1)
    people = values[rng.choice(600, size=60000, p=rng.dirichlet(np.ones(600)))]
    rows, counts = np.unique(people, axis=0, return_counts=True)
    moved = counts.astype(float)
    top = int(np.argmax(counts))
    moved[top] += 1
    moved[(top + 1) % len(counts)] -= 1
    return rows, counts.astype(float), moved, people


def count_table(n_fits=20, epsilon=4.0):
    """A count table told from its neighbour by the published ledger.

    Returns the share of fits whose ``accountant_`` (each estimate's
    sensitivity and noise scale) differs between the table and its neighbour
    (one person moved onto the most common row), and the mean's sensitivity on
    the table over the one on the expanded rows (1 when the table fits as the
    expanded rows do).
    """
    from sklearn_privacy.gaussian import L2CompressionDP

    rows, counts, moved, people = _count_table()

    def ledger(weights, trial, data=rows):
        mech = L2CompressionDP(epsilon=epsilon, random_state=trial, **_declared_counts())
        mech.fit(data, sample_weight=weights)
        return [(e.name, e.sensitivity, e.sigma) for e in mech.accountant_.spends]

    differs = np.mean([ledger(counts, t) != ledger(moved, t) for t in range(n_fits)])
    table, expanded = ledger(counts, 0), ledger(None, 0, people)

    def mean_sensitivity(entries):  # nan when the fit read no scale and estimated nothing
        return next((sens for name, sens, _ in entries if name == "mean"), float("nan"))

    return float(differs), float(mean_sensitivity(table) / mean_sensitivity(expanded))


def leakage_membership(n=5000, n_fits=30):
    """Recover the S of a target row from ``leakage_`` of a private fit.

    The attacker knows every row but the target's S and the published map;
    for each value of that S he computes the Gaussian leakage the fit would
    report and picks the one that matches ``leakage_``. Returns the share of
    fits where he is right (ties count half).
    """
    from sklearn_privacy.gaussian import L2CompressionDP
    from sklearn_privacy.gaussian._moments import leakage_from_covariance

    rng = np.random.default_rng(0)
    right = 0.0
    for trial in range(n_fits):
        X = rng.normal(size=(n, 2))
        s = (X[:, 0] + rng.normal(size=n) > 0).astype(float)
        s[0] = trial % 2
        mech = L2CompressionDP(
            epsilon=4.0, clip_radius=4.0, sensitive=[2], random_state=np.random.default_rng(trial)
        ).fit(np.c_[X, s])
        gaps = []
        for guess in (0.0, 1.0):
            t = s.copy()
            t[0] = guess
            joint = np.cov(np.c_[t, X], rowvar=False)
            predicted = leakage_from_covariance(
                joint, 1, mech.components_, mech.scale_, mech.noise_variance_
            )
            gaps.append(abs(predicted - mech.leakage_))
        if gaps[0] == gaps[1]:
            right += 0.5
        else:
            right += float(np.argmin(gaps) == s[0])
    return right / n_fits


def clip_overshoot(n_cases=3000, seed=0):
    """Largest ``||clip_rows(x, R)|| / R`` over rows and radii from 1e-300 to 1e300."""
    from sklearn_privacy.dp import clip_rows

    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(n_cases):
        d = int(rng.integers(1, 5))
        radius = 10.0 ** rng.uniform(-300, 300)
        X = rng.normal(size=(4, d)) * 10.0 ** rng.uniform(-300, 307)
        try:
            out = clip_rows(X, radius)
        except ValueError:
            continue
        scaled = out / radius
        worst = max(worst, float(np.max(np.linalg.norm(scaled, axis=1))))
    issue = np.linalg.norm(clip_rows([[7.37e306, 0.0]], 1.83e-17)) / 1.83e-17
    return worst, float(issue)
