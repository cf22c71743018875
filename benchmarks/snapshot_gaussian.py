"""A snapshot of Gaussian fits, to compare two versions of the code bit for bit (issue 48).

``python benchmarks/snapshot_gaussian.py save PATH`` fits 18 configurations (L2 and GIB,
private and public, counts and person weights, a public radius, the funnel, fits that read no
scale, three dask fits) and pickles every fitted attribute, the ledger before and after one
release, that release and the warnings' texts. ``compare A B`` prints each value that differs
(arrays compared with ``np.array_equal``, NaN equal to NaN, dtypes too). Run ``save`` on two
checkouts (``PYTHONPATH=<worktree>``), then ``compare``.
"""

import pickle
import sys
import warnings

import numpy as np

from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP

rng = np.random.default_rng(0)
X = rng.normal(size=(500, 4)) @ rng.normal(size=(4, 4)) + 2.0
y = X[:, 0] + rng.normal(size=500)
s = (X[:, 1] + rng.normal(size=500) > 2).astype(int)
w_counts = rng.integers(1, 4, 500).astype(float)
w_person = rng.uniform(0.2, 3.0, 500)
X200 = np.random.default_rng(0).normal(size=(200, 3))

cases = {
    "l2": (L2CompressionDP(epsilon=2.0, random_state=0), (X,), {}),
    "l2_clip": (L2CompressionDP(epsilon=2.0, clip_radius=3.0, random_state=1), (X,), {}),
    "l2_counts": (
        L2CompressionDP(epsilon=2.0, weights="counts", random_state=2),
        (X,),
        {"sample_weight": w_counts},
    ),
    "l2_person": (
        L2CompressionDP(epsilon=2.0, max_person_weight=2.0, random_state=3),
        (X,),
        {"sample_weight": w_person},
    ),
    "l2_person_clip": (
        L2CompressionDP(epsilon=2.0, max_person_weight=2.0, clip_radius=4.0, random_state=3),
        (X,),
        {"sample_weight": w_person},
    ),
    "l2_beta_public": (
        L2CompressionDP(epsilon=None, beta=5.0, fit_data="public", random_state=4),
        (X,),
        {"sample_weight": w_counts},
    ),
    "l2_s": (L2CompressionDP(epsilon=2.0, sensitive=[3], random_state=5), (np.c_[X, s],), {}),
    "l2_6304": (L2CompressionDP(epsilon=2.0, random_state=6304), (X200,), {}),
    "l2_14490": (L2CompressionDP(epsilon=2.0, random_state=14490), (X200,), {}),
    "gib": (GaussianIBTransformer(beta=10.0, fit_epsilon=1.0, random_state=6), (X, y), {}),
    "gib_person": (
        GaussianIBTransformer(beta=10.0, fit_epsilon=1.0, max_person_weight=2.0, random_state=6),
        (X, y),
        {"sample_weight": w_person},
    ),
    "gib_public": (
        GaussianIBTransformer(beta=10.0, fit_data="public", random_state=7),
        (X, y),
        {"sample_weight": w_counts},
    ),
    "gib_clip": (
        GaussianIBTransformer(beta=10.0, fit_epsilon=1.0, clip_radius=5.0, random_state=8),
        (X, y),
        {},
    ),
    "funnel": (
        GaussianIBTransformer(
            objective="funnel", disclosure=0.3, fit_epsilon=1.0, random_state=9, sensitive=[4]
        ),
        (np.c_[X, s], None),
        {},
    ),
    "gib_failed": (
        GaussianIBTransformer(beta=10.0, fit_epsilon=0.01, random_state=10),
        (X200, X200[:, 0]),
        {},
    ),
}


def dump(mech):
    out = {}
    for k, v in sorted(vars(mech).items()):
        if k.endswith("_") and not k.startswith("_") and k != "accountant_":
            if isinstance(
                v, (np.ndarray, float, int, np.floating, str, type(None), bool, tuple, list)
            ):
                out[k] = v
    out["ledger"] = [(e.name, e.sensitivity, e.sigma) for e in mech.accountant_.spends]
    for k in ("_refinement_starts", "_moments_mean"):
        if hasattr(mech, k):
            out[k] = getattr(mech, k)
    return out


def save(path):
    result = {}
    for name, (mech, args, kw) in cases.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                mech.fit(*args, **kw)
                d = dump(mech)
                d["release"] = mech.transform(args[0][:50])
                d["ledger_after"] = [
                    (e.name, e.sensitivity, e.sigma) for e in mech.accountant_.spends
                ]
            except Exception as exc:
                d = {"error": repr(exc)}
        d["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
        result[name] = d

    try:
        import dask.array as da

        for name, mech, args in [
            (
                "dask_l2",
                L2CompressionDP(epsilon=2.0, random_state=11),
                (da.from_array(X, chunks=120),),
            ),
            (
                "dask_l2_person",
                L2CompressionDP(
                    epsilon=2.0, max_person_weight=2.0, clip_radius=4.0, random_state=12
                ),
                (da.from_array(X, chunks=120),),
            ),
            (
                "dask_gib",
                GaussianIBTransformer(beta=10.0, fit_epsilon=1.0, random_state=13),
                (da.from_array(X, chunks=120), da.from_array(y, chunks=120)),
            ),
        ]:
            kw = {"sample_weight": da.from_array(w_person, chunks=120)} if "person" in name else {}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mech.fit(*args, **kw)
                d = dump(mech)
                d["release"] = mech.transform(X[:50])
            d["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
            result[name] = d
    except ImportError:
        print("no dask")
    with open(path, "wb") as f:
        pickle.dump(result, f)
    print("cases", len(result), "errors", [k for k, v in result.items() if "error" in v])


def _same(x, y):
    if isinstance(x, (list, tuple)):
        return (
            isinstance(y, (list, tuple))
            and len(x) == len(y)
            and all(_same(u, v) for u, v in zip(x, y))
        )
    if isinstance(x, (np.ndarray, float, np.floating)):
        x, y = np.asarray(x), np.asarray(y)
        return x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
    return x == y


def compare(path_a, path_b):
    with open(path_a, "rb") as f:
        a = pickle.load(f)
    with open(path_b, "rb") as f:
        b = pickle.load(f)
    bad = sorted(a.keys() ^ b.keys())
    for case in sorted(a.keys() & b.keys()):
        bad += [(case, k) for k in sorted(a[case].keys() ^ b[case].keys())]
        bad += [(case, k) for k in a[case] if k in b[case] and not _same(a[case][k], b[case][k])]
    for item in bad:
        print("DIFFERS", item)
    n_values = sum(len(v) for v in a.values())
    print(f"compared {len(a)} cases, {n_values} values: {len(bad)} differences")
    return len(bad)


if __name__ == "__main__":
    if sys.argv[1] == "save":
        save(sys.argv[2])
    else:
        sys.exit(1 if compare(sys.argv[2], sys.argv[3]) else 0)
