"""
The privacy funnel on the US census (Adult)
===========================================

Makhdoumi et al. (2014, Fig. 1) release ``X = (age, gender, education)`` of
the US 1994 census while protecting ``S = (age, income)``. A deterministic
mapping ``Y = f(X)`` merges symbols of ``X``; the analyst receives ``Y``.
Two greedy algorithms bracket what such mappings can do:

* **Alg. 1, greedy privacy funnel**: merge symbols while ``I(X;Y) >= R``,
  each time choosing the merge that lowers ``I(S;Y)`` the most. It gives the
  *least* leakage found for a disclosure level (the bottom curve).
* **Alg. 2, greedy information bottleneck**: merge while ``I(S;Y)`` stays above
  a threshold, each time lowering ``I(X;Y)`` the most. It keeps as much about
  ``S`` as possible for the disclosure, which is what a careless mapping of
  the same size may leak (the top curve).

The area between the two curves is where mappings with the same disclosure
land; a privacy mechanism should sit on the bottom curve. Both algorithms are
run for many thresholds with :func:`~sklearn_privacy.discrete.greedy_sweep`,
which shares the merges the thresholds have in common. Information is in nats.
"""

# %%
# Load the census data
# --------------------
# :func:`~sklearn_privacy.datasets.fetch_adult` with ``discretize=True`` puts
# age in 7 bins and education in 4 levels, as in the paper. The loader reads
# the data home (``SKLEARN_PRIVACY_DATA``); if Adult is not there, this example
# says so and uses scikit-learn's breast cancer data instead, with three
# features cut into quartiles as ``X`` and (diagnosis, a fourth binarised
# feature) as ``S``.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

from sklearn_privacy.datasets import fetch_adult
from sklearn_privacy.discrete import CategoricalAlphabet, empirical_joint, greedy_sweep
from sklearn_privacy.information import entropy, mutual_information

try:
    frame = fetch_adult(as_frame=True, discretize=True, download_if_missing=False).frame
    s_columns, x_columns = ["age", "income"], ["age", "sex", "education"]
    data_name = "Adult (US 1994 census)"
except OSError as exc:
    print(f"Adult is not available ({type(exc).__name__}); using breast cancer instead.")
    cancer = load_breast_cancer(as_frame=True)
    frame = pd.DataFrame(
        {
            name: pd.qcut(cancer.data[name], 4, labels=False)
            for name in ["mean radius", "mean texture", "mean smoothness"]
        }
    )
    frame["diagnosis"] = cancer.target
    frame["large area"] = (cancer.data["mean area"] > cancer.data["mean area"].median()).astype(int)
    s_columns = ["diagnosis", "large area"]
    x_columns = ["mean radius", "mean texture", "mean smoothness"]
    data_name = "breast cancer (fallback)"


def codes(columns):
    """One integer symbol per distinct combination of the columns."""
    values = frame[columns].to_numpy(dtype=object)
    return CategoricalAlphabet(max_categories=None).fit_encode(values)


s, x = codes(s_columns), codes(x_columns)
joint = empirical_joint(s, x, s.max() + 1, x.max() + 1)
h_x, i_sx = entropy(joint.sum(axis=0)), mutual_information(joint)
print(f"{data_name}: {len(frame)} rows, |S| = {joint.shape[0]}, |X| = {joint.shape[1]}")
print(f"H(X) = {h_x:.3f} nats, I(S;X) = {i_sx:.3f} nats")

# %%
# Run both greedy algorithms
# --------------------------
# Alg. 1 sweeps the disclosure threshold ``R`` over ``[0, H(X)]``, Alg. 2 the
# leakage threshold over ``[0, I(S;X)]``. Each run ends at one mapping: its
# ``I(X;Y)`` and ``I(S;Y)`` are the last entries of the merge path.
funnel_paths = greedy_sweep(joint, np.linspace(0, h_x, 61), objective="funnel")
bottleneck_paths = greedy_sweep(joint, np.linspace(0, i_sx, 61), objective="bottleneck")
alg1 = np.array([(p.disclosure[-1], p.leakage[-1]) for p in funnel_paths])
alg2 = np.array([(p.disclosure[-1], p.leakage[-1]) for p in bottleneck_paths])

# %%
# Envelopes, not sawtooth lines
# -----------------------------
# A greedy run for a looser threshold is not always better than one for a
# tighter threshold, so the points are not monotone. What a user can achieve
# is the envelope: for a disclosure of at least ``d``, the least leakage among
# Alg. 1's mappings disclosing ``>= d``; for Alg. 2, the most leakage among
# mappings disclosing ``<= d``.


def lower_envelope(points):
    """Least leakage among points with at least each disclosure."""
    order = np.argsort(points[:, 0])
    d, leak = points[order, 0], points[order, 1]
    return d, np.minimum.accumulate(leak[::-1])[::-1]


def upper_envelope(points):
    """Most leakage among points with at most each disclosure."""
    order = np.argsort(points[:, 0])
    d, leak = points[order, 0], points[order, 1]
    return d, np.maximum.accumulate(leak)


d1, e1 = lower_envelope(alg1)
d2, e2 = upper_envelope(alg2)
grid = np.linspace(0, h_x, 7)
low = np.array([e1[np.searchsorted(d1, g)] if g <= d1[-1] else np.nan for g in grid])
high = np.array([e2[max(np.searchsorted(d2, g, side="right") - 1, 0)] for g in grid])
table = pd.DataFrame(
    {
        "I(X;Y) at least / at most": grid,
        "min I(S;Y), Alg. 1": low,
        "max I(S;Y), Alg. 2": high,
        "gap": np.abs(high - low),
    }
)
print(table.round(3).to_string(index=False))

# %%
# Plot the two curves
# -------------------
fig, ax = plt.subplots(figsize=(6.5, 4.5))
ax.step(d2, e2, where="post", color="tab:red", label="max I(S;Y), Alg. 2 envelope")
ax.plot(alg2[:, 0], alg2[:, 1], "s", color="tab:red", ms=4, mfc="none", label="Alg. 2 runs")
ax.step(d1, e1, where="pre", color="tab:blue", label="min I(S;Y), Alg. 1 envelope")
ax.plot(alg1[:, 0], alg1[:, 1], "o", color="tab:blue", ms=4, mfc="none", label="Alg. 1 runs")
ax.set_xlabel("disclosure I(X;Y) (nats)")
ax.set_ylabel("leakage I(S;Y) (nats)")
ax.set_title(f"Greedy privacy funnel and bottleneck on {data_name}")
ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()

# %%
# At the same disclosure, Alg. 1 leaks much less about ``S`` than Alg. 2; the
# table's last column is the price of designing the mapping carelessly. Both
# curves meet at the ends: disclosing nothing leaks nothing, and disclosing
# all of ``X`` leaks ``I(S;X)``.
plt.show()
