"""
Auditing a privacy guarantee yourself
=====================================

A differentially private fit reports its guarantee (``epsilon_``, ``delta_``,
``privacy_spent()``; to the audit, ``audit_claim()``, the method of
:class:`~sklearn_privacy.base.AuditProtocol`).
:func:`~sklearn_privacy.audit.audit_privacy` checks such a claim from the
outside: it fits the mechanism many times on two data sets that differ in one
person, publishes what a user would publish, and bounds from below the epsilon
that a test telling the two apart proves. A bound above the claim refutes it; a
bound below it is a lower bound, not a proof.

We audit :class:`~sklearn_privacy.L2CompressionDP`, and a deliberately broken
mechanism whose ledger claims twice the noise it adds.
"""

# %%
# A sound mechanism
# -----------------
# ``L2CompressionDP`` with a public fit (the mean, components and clipping radius
# computed from rows declared public): epsilon counts the release of the rows.
# The audit's default canary is one row set far out along the direction the
# release keeps, on one side in D and on the other in D'; each trial publishes the
# release of that row.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from sklearn_privacy import L2CompressionDP
from sklearn_privacy.audit import AuditDisplay, audit_privacy
from sklearn_privacy.base import PrivacyClaim
from sklearn_privacy.dp import GaussianAccountant, clip_rows

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 2)) * [3.0, 1.0]

sound = audit_privacy(
    L2CompressionDP(epsilon=8.0, clip_radius=4.0, fit_data="public"),
    X,
    n_trials=300,
    random_state=0,
)
print(sound)

# %%
# The result states its power: the most these 300 trials could certify (an
# epsilon below the claimed 8), so "not refuted" here says only that no test
# did better than that; ``trials_needed`` says how many trials a rare release
# would need.

# %%
# A broken mechanism
# ------------------
# A clipped sum plus Gaussian noise whose ledger records the noise of a
# ``mu = 1`` mechanism (epsilon 4.38 at delta 1e-5) but adds half of it: its true
# ``mu`` is 2. Written outside the library, it answers the audit's protocol with
# ``audit_claim()``.


class HalvedNoiseSum(TransformerMixin, BaseEstimator):
    """Publishes the sum of the rows clipped to radius 1, with half the claimed noise."""

    def fit(self, X, y=None):
        sigma = 2.0  # sensitivity 2 (replace one row in the unit ball), mu = 2 / 2 = 1
        noise = 0.5 * sigma * np.random.default_rng().standard_normal(X.shape[1])
        self.sum_ = clip_rows(X, 1.0).sum(axis=0) + noise
        self.accountant_ = GaussianAccountant()
        self.accountant_.spend("sum", sensitivity=2.0, sigma=sigma)
        return self

    def transform(self, X):
        return np.tile(self.sum_, (len(X), 1))

    def audit_claim(self):
        epsilon = self.accountant_.epsilon(1e-5)
        return PrivacyClaim(epsilon, 1e-5, self.accountant_.mu)


broken = audit_privacy(HalvedNoiseSum(), X, n_trials=1000, random_state=0)
print(broken)

# %%
# The picture
# -----------
# Each panel draws the test's true positive rate against its false positive
# rate on the evaluation half of the trials, with 95 % Clopper-Pearson bands,
# beside the curves that the claimed (epsilon, delta) and Gaussian-DP ``mu``
# allow: a mechanism that keeps its promise stays under them. The broken
# mechanism's curve crosses its claimed ``mu`` curve by far.
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
AuditDisplay.from_audit(sound, ax=axes[0], name="L2CompressionDP")
axes[0].set_title("L2CompressionDP(epsilon=8): claim not refuted")
AuditDisplay.from_audit(broken, ax=axes[1], name="halved noise")
axes[1].set_title("Noise halved, ledger unchanged: violated")
fig.tight_layout()

# %%
# The numbers
# -----------
# Epsilon is bounded at the ledger's delta (1e-5), where 150 to 500
# evaluation trials can certify little: the ``mu`` bound is the sharper check of
# a Gaussian-DP ledger.
for name, result in (("L2CompressionDP", sound), ("halved noise", broken)):
    print(
        f"{name:16s} claims epsilon {result.epsilon_claimed:5.2f}, mu "
        f"{result.mu_claimed:4.2f}; audit: epsilon >= {result.epsilon_lower:4.2f}, mu >= "
        f"{result.mu_lower:4.2f}, violated: {result.violated}"
    )
plt.show()
