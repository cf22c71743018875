"""Write ``tests/discrete/data/greedy_reference.npz``: the greedy's paths on the reference cases.

Run once, on the code whose paths the fixture keeps (the greedy as it summed over S before
issue 38: pairwise on Fortran-ordered buffers); ``test_greedy.py`` compares today's paths
with it (the same merges; the informations within 1e-12 where |S| >= 8).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "discrete"))

from test_greedy import _reference_cases, _reference_kwargs  # noqa: E402

from sklearn_privacy.discrete import greedy_merge  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "discrete" / "data" / "greedy_reference.npz"


def main():
    arrays = {}
    for objective in ("funnel", "bottleneck"):
        for c, (rng, joint) in enumerate(_reference_cases(12)):
            for k, kwargs in enumerate(_reference_kwargs(rng, joint, objective)):
                path = greedy_merge(joint, objective=objective, **kwargs)
                key = f"{objective}_{c}_{k}"
                arrays[f"{key}_merges"] = path.merges.astype(np.int16)
                arrays[f"{key}_leakage"] = path.leakage
                arrays[f"{key}_disclosure"] = path.disclosure
    np.savez_compressed(OUT, **arrays)
    print(f"{len(arrays)} arrays -> {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
