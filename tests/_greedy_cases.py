"""The greedy's reference cases, and the fixture of its paths they write.

``test_greedy.py`` runs the greedy on these joints; ``python tests/_greedy_cases.py`` writes
``tests/discrete/data/greedy_reference.npz``, the paths the tests keep. The fixture was
written once, on 4730279's code (the greedy as it summed over S before issue 38: pairwise on
Fortran-ordered buffers); ``test_greedy.py`` compares today's paths with it (the same
merges; the informations within 1e-12 where |S| >= 8).
"""

from pathlib import Path

import numpy as np

from sklearn_privacy.discrete import greedy_merge
from sklearn_privacy.information import entropy, mutual_information

__all__ = ["reference_cases", "reference_kwargs", "sparse_tied_joint", "tied_joints"]

OUT = Path(__file__).resolve().parent / "discrete" / "data" / "greedy_reference.npz"


def tied_joints(seed, n_cases):
    """Joints with many exactly tied merge costs: repeated columns, sparse counts."""
    rng = np.random.default_rng(seed)
    for case in range(n_cases):
        n_s = int(rng.integers(2, 5))
        n_x = int(rng.integers(70, 90)) if case == 0 else int(rng.integers(5, 30))
        if case % 2:
            base = rng.dirichlet(np.full(n_s * 4, 0.7)).reshape(n_s, 4)
            joint = base[:, rng.integers(0, 4, n_x)]
        else:
            joint = rng.integers(0, 3, (n_s, n_x)) * (rng.random((n_s, n_x)) < 0.4)
            joint[0, joint.sum(axis=0) == 0] = 1
        yield rng, joint / joint.sum()


def sparse_tied_joint(rng, n_x):
    # As in real data: every symbol seen 1-3 times, binary S; many columns are
    # equal and many gains tie exactly (or up to rounding, for the textbook).
    counts = rng.integers(1, 4, n_x)
    ones = rng.binomial(counts, 0.3)
    joint = np.vstack([counts - ones, ones]).astype(float)
    return joint / joint.sum()


def reference_cases(seed):
    """Dense random, sparse tied counts and repeated columns: small and past compaction."""
    rng = np.random.default_rng(seed)
    for n_s, n_x in [(8, 30), (3, 150), (8, 300)]:
        yield rng, rng.dirichlet(np.full(n_s * n_x, 0.5)).reshape(n_s, n_x)
    for n_x in [40, 260]:
        yield rng, sparse_tied_joint(rng, n_x)
    for _, joint in tied_joints(seed, 3):
        yield rng, joint
    # A Fortran-ordered joint: the baseline summed over S pairwise from the start.
    yield rng, np.asfortranarray(rng.dirichlet(np.full(9 * 80, 0.5)).reshape(9, 80))


def reference_kwargs(rng, joint, objective):
    """The five runs of each reference case: three thresholds, two multipliers."""
    top = entropy(joint.sum(axis=0)) if objective == "funnel" else mutual_information(joint)
    return [
        {"threshold": 0.0},
        {"threshold": 0.8 * top},
        {"threshold": float(rng.uniform(0, top))},
        {"lam": 0.3},
        {"lam": 1.2},
    ]


def main():
    arrays = {}
    for objective in ("funnel", "bottleneck"):
        for c, (rng, joint) in enumerate(reference_cases(12)):
            for k, kwargs in enumerate(reference_kwargs(rng, joint, objective)):
                path = greedy_merge(joint, objective=objective, **kwargs)
                key = f"{objective}_{c}_{k}"
                arrays[f"{key}_merges"] = path.merges.astype(np.int16)
                arrays[f"{key}_leakage"] = path.leakage
                arrays[f"{key}_disclosure"] = path.disclosure
    np.savez_compressed(OUT, **arrays)
    print(f"{len(arrays)} arrays -> {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
