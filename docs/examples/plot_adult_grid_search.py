"""
Cross-validated privacy/accuracy search on Adult
================================================

A data owner wants to release census records so that an analyst can predict
income, while limiting what the release says about each person's sex. The
privacy mechanism is a step of a scikit-learn :class:`~sklearn.pipeline.Pipeline`,
so its knob is searched like any hyper-parameter with
:class:`~sklearn.model_selection.GridSearchCV`. Three scorers are computed on
every test fold:

* ``accuracy``: the analyst's income classifier, trained on the release;
* ``leakage``: the mutual information ``I(sex; release)`` in nats
  (:func:`~sklearn_privacy.metrics.make_leakage_scorer`);
* ``adversary``: the accuracy of an attacker that learns to guess sex from
  the release (:func:`~sklearn_privacy.metrics.make_adversary_scorer`).

``refit`` then picks the most accurate candidate whose leakage stays under a
cap, and :meth:`~sklearn_privacy.plotting.TradeoffDisplay.from_search`
draws the grid against the majority-class and no-mechanism baselines.
"""

# %%
# The data
# --------
# UCI Adult with age in 7 bins and education in 4 levels. The released
# columns are age, education and relationship; ``sex`` is the sensitive
# column (the mechanism reads it and never releases it). If Adult is not in
# the data home, the example uses scikit-learn's breast cancer data with three
# quantile-binned features, a binarised fourth feature as the sensitive
# column and the diagnosis as the target.
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy import PrivacyFunnelTransformer
from sklearn_privacy.datasets import fetch_adult
from sklearn_privacy.exceptions import UnseenCategoryWarning
from sklearn_privacy.metrics import make_adversary_scorer, make_leakage_scorer
from sklearn_privacy.plotting import TradeoffDisplay

try:
    adult = fetch_adult(as_frame=True, discretize=True, download_if_missing=False)
    X = adult.frame[["age", "education", "relationship", "sex"]].astype(str)
    y = (adult.frame["income"] == ">50K").astype(int)
    data_name, target_name, s_name = "Adult", "income > 50K", "sex"
except OSError as exc:
    print(f"Adult is not available ({type(exc).__name__}); using breast cancer instead.")
    cancer = load_breast_cancer(as_frame=True)
    X = pd.DataFrame(
        {
            name: pd.qcut(cancer.data[name], 4, labels=False).astype(str)
            for name in ["mean radius", "mean texture", "mean smoothness"]
        }
    )
    X["sex"] = (cancer.data["mean area"] > cancer.data["mean area"].median()).astype(str)
    y = cancer.target
    data_name, target_name, s_name = "breast cancer (fallback)", "diagnosis", "large area"

majority = max(np.mean(y), 1 - np.mean(y))
s_share = X["sex"].value_counts(normalize=True).max()
print(
    f"{data_name}: {len(X)} rows; majority class of {target_name}: {majority:.3f}; "
    f"majority guess of {s_name}: {s_share:.3f}"
)

# %%
# The pipeline and the search
# ---------------------------
# :class:`~sklearn_privacy.PrivacyFunnelTransformer` merges records so that
# the release keeps at least ``threshold`` of the entropy of the released
# columns while losing as much information about sex as it can. The leakage
# and adversary scorers return *negated* values (greater is better for
# scikit-learn), hence the minus signs below.
pipe = Pipeline(
    [
        ("privacy", PrivacyFunnelTransformer(sensitive=["sex"])),
        ("onehot", OneHotEncoder(handle_unknown="ignore")),
        ("clf", LogisticRegression(solver="newton-cholesky")),
    ]
)
scoring = {
    "accuracy": "accuracy",
    "leakage": make_leakage_scorer(),
    "adversary": make_adversary_scorer(),
}
max_leakage = 0.1


def most_accurate_below(results):
    """Index of the most accurate candidate leaking at most ``max_leakage`` nats."""
    ok = -results["mean_test_leakage"] <= max_leakage
    return int(np.argmax(np.where(ok, results["mean_test_accuracy"], -np.inf)))


# A test fold can hold a few combinations of (age, education, relationship) that its
# training folds never saw; the funnel releases them as the nearest seen one, counts them
# (``n_unseen_rows_``) and warns once a search; this page leaves that warning out.
warnings.filterwarnings("ignore", category=UnseenCategoryWarning)
search = GridSearchCV(
    pipe,
    {"privacy__threshold": [0.5, 0.8, 0.9, 0.95, 0.99]},
    scoring=scoring,
    refit=most_accurate_below,
    cv=5,
).fit(X, y)

# %%
# The no-mechanism baseline
# -------------------------
# The same scorers on a pipeline that releases the three columns unchanged:
# a funnel with ``threshold=1`` keeps every record.
no_privacy = clone(pipe).set_params(privacy__threshold=1.0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # "merged nothing": intended here
    baseline = cross_validate(no_privacy, X, y, scoring=scoring, cv=5)
no_mechanism = {
    "accuracy": baseline["test_accuracy"].mean(),
    "leakage": -baseline["test_leakage"].mean(),
    "adversary": -baseline["test_adversary"].mean(),
}

# %%
# The results
# -----------
results = search.cv_results_
table = pd.DataFrame(
    {
        "threshold": results["param_privacy__threshold"],
        f"{target_name} accuracy": results["mean_test_accuracy"],
        "sd": results["std_test_accuracy"],
        f"I({s_name}; release) nats": -results["mean_test_leakage"],
        f"adversary accuracy ({s_name})": -results["mean_test_adversary"],
    }
)
table["threshold"] = table["threshold"].astype(object)
table.loc[len(table)] = [
    "none (no mechanism)",
    no_mechanism["accuracy"],
    baseline["test_accuracy"].std(),
    no_mechanism["leakage"],
    no_mechanism["adversary"],
]
print(table.round(3).to_string(index=False))
print(f"chosen (most accurate with leakage <= {max_leakage} nats): {search.best_params_}")

# %%
# Plot the grid
# -------------
# Left: accuracy against leakage, each candidate labelled with its threshold,
# the Pareto front as a staircase. Right: the same against the adversary's
# accuracy; the dotted vertical line is the adversary that always guesses the
# more frequent value of the sensitive attribute.
fig, (ax_leak, ax_adv) = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
TradeoffDisplay.from_search(
    search,
    leakage="leakage",
    utility="accuracy",
    estimator_name="privacy funnel",
    baselines={
        "majority class": majority,
        "no mechanism": (no_mechanism["leakage"], no_mechanism["accuracy"]),
    },
    leakage_name=f"I({s_name}; release) (nats)",
    utility_name=f"{target_name} accuracy",
    ax=ax_leak,
)
ax_leak.set_title("accuracy against leakage")
TradeoffDisplay.from_search(
    search,
    leakage="adversary",
    utility="accuracy",
    estimator_name="privacy funnel",
    baselines={
        "majority class": majority,
        "no mechanism": (no_mechanism["adversary"], no_mechanism["accuracy"]),
    },
    leakage_name=f"adversary accuracy on {s_name}",
    utility_name=f"{target_name} accuracy",
    ax=ax_adv,
)
ax_adv.axvline(s_share, color="0.4", ls=":", lw=1)
ax_adv.set_title("accuracy against an attacker")
fig.suptitle(f"{data_name}: cross-validated search over the funnel's threshold")
fig.tight_layout()
plt.show()

# %%
# Reading the table: lowering the threshold merges more records, so the
# release says less about sex (leakage falls) and the income classifier loses
# accuracy towards the majority class; releasing the columns unchanged (last
# row) is the most accurate and the most revealing. ``refit`` picked the most
# accurate candidate under the leakage cap. An attacker who always guesses the
# more frequent sex is right as often as the "majority guess" printed at the
# top (the dotted vertical line); at the lowest thresholds the trained
# attacker does no better than that guess, but the income classifier is then
# no better than the majority class either. The chosen threshold sits between:
# income accuracy above the majority class, leakage under the cap.
