"""
Adversarial privacy (PPAN) on handwritten digits
================================================

Here the sensitive attribute is the digit itself: the release is an image
that should stay close to the original, pixel by pixel, while hiding which
digit it shows. :class:`~sklearn_privacy.PPANTransformer` trains a mechanism
network against an adversary network that tries to read the digit from the
release; ``lam`` weighs the distortion, so a smaller ``lam`` hides more.

We use scikit-learn's 8x8 digits (1797 images, pixels scaled to ``[0, 1]``),
train on two thirds and release the other third. To judge what is hidden we
do not trust the co-trained adversary: a *fresh* logistic regression is
trained on the released training images and scored on the released test
images (chance is 0.1).
"""

# %%
# Data and the no-mechanism baseline
# ----------------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_privacy import PPANTransformer

digits = load_digits()
X, s = digits.data / 16.0, digits.target
X_train, X_test, s_train, s_test = train_test_split(
    X, s, test_size=1 / 3, random_state=0, stratify=s
)
raw_accuracy = LogisticRegression(max_iter=2000).fit(X_train, s_train).score(X_test, s_test)
print(f"fresh adversary on the original images: accuracy {raw_accuracy:.3f} (chance 0.100)")

# %%
# Train PPAN for three values of ``lam``
# --------------------------------------
# ``release="gaussian"`` makes the release an image (pixel logits plus noise);
# ``distortion="cross_entropy"`` is the per-pixel cross-entropy to the original.
# The adversary takes 5 steps per mechanism step, and a leaky ReLU keeps its
# units alive. Twelve epochs keep the example short on a CPU (see
# :doc:`/user_guide/gpu` for longer runs on a GPU), and ``fit`` says so: the
# ``fit warnings`` column lists the warnings each fit raised (a
# ``ConvergenceWarning`` when training stops before its stopping rule is met;
# a ``UserWarning`` when the co-trained adversary's bound is far below a fresh
# estimate of the leakage, which ``leakage_`` then reports).
lams = [0.1, 1.0, 30.0]
rows, releases = [], {}
for lam in lams:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ppan = PPANTransformer(
            lam=lam,
            release="gaussian",
            distortion="cross_entropy",
            hidden_layer_sizes=(64,),
            activation="leaky_relu",
            adversary_steps=5,
            max_epochs=12,
            batch_size=128,
            lr=2e-3,
            adversary_lr=5e-3,
            random_state=0,
        ).fit(X_train, sensitive=s_train)
    Z_train, Z_test = ppan.transform(X_train), ppan.transform(X_test)
    releases[lam] = Z_test
    adversary = LogisticRegression(max_iter=2000).fit(Z_train, s_train)
    rows.append(
        {
            "lam": lam,
            "fresh adversary accuracy": adversary.score(Z_test, s_test),
            "squared error per image": float(np.mean(np.sum((Z_test - X_test) ** 2, axis=1))),
            "fit warnings": ", ".join(sorted({w.category.__name__ for w in caught})) or "none",
        }
    )
table = pd.DataFrame(rows)
print(table.round(3).to_string(index=False))

# %%
# Accuracy of the adversary against distortion
# --------------------------------------------
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.plot(
    table["squared error per image"],
    table["fresh adversary accuracy"],
    "o-",
    color="tab:purple",
    label="PPAN releases",
)
for _, row in table.iterrows():
    ax.annotate(
        f"lam = {row['lam']:g}",
        (row["squared error per image"], row["fresh adversary accuracy"]),
        textcoords="offset points",
        xytext=(6, 4),
    )
ax.plot(0, raw_accuracy, "s", color="tab:green", label="original images")
ax.axhline(0.1, color="k", ls=":", label="chance (0.1)")
ax.set_xlabel("squared error per image")
ax.set_ylabel("accuracy of a fresh adversary")
ax.set_ylim(0, 1.05)
ax.set_title("Digits: what the release reveals about the digit")
ax.set_xlim(-0.5, 1.25 * table["squared error per image"].max())
ax.legend(loc="upper right")
fig.tight_layout()

# %%
# Original and released images
# ----------------------------
# One test image per digit (columns), the original on top and its release
# for each ``lam`` below.
examples = [np.flatnonzero(s_test == digit)[0] for digit in range(10)]
fig, axes = plt.subplots(1 + len(lams), 10, figsize=(9, 1.1 * (1 + len(lams)) + 0.3))
for col, index in enumerate(examples):
    images = [X_test[index]] + [releases[lam][index] for lam in lams]
    for row, image in enumerate(images):
        axes[row, col].imshow(np.clip(image, 0, 1).reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
        axes[row, col].set_xticks([])
        axes[row, col].set_yticks([])
for row, label in enumerate(["original"] + [f"lam = {lam:g}" for lam in lams]):
    axes[row, 0].set_ylabel(label, rotation=0, ha="right", va="center", fontsize=9)
fig.suptitle("Digits released by PPAN (columns: one test image per digit)")
fig.tight_layout()
plt.show()

# %%
# With a large ``lam`` the release stays close to the original and the
# fresh adversary reads the digit almost as well as from the originals. As
# ``lam`` falls, the mechanism gives up fidelity to hide the digit: images of
# different digits turn into the same shape or into noise-like patterns, and
# the adversary's accuracy drops towards chance, at the price of a larger
# distortion. The table gives the numbers for this short training run.
