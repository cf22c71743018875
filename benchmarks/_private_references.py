"""Reference private mean and covariance estimators, written from their papers for comparison.

Not used by the library: ``bench_private_fit.py`` sets them beside its private fit.
Both receive the same Gaussian-DP budget ``mu`` (split evenly over their
Gaussian mechanisms, ``mu^2`` adding up) and a loose public prior: the rows lie
in a ball of radius ``prior_radius`` around the origin and ``I <= Sigma <= K I``
for CoinPress.

- :func:`analyze_gauss`: Dwork, Talwar, Thakurta and Zhang (2014) in one shot:
  rows clipped to the prior ball, the mean and the second moment each with
  Gaussian noise (sensitivities ``2 R / n`` and ``sqrt(2) R^2 / n``).
- :func:`coinpress`: Biswas, Dong, Kamath and Ullman (2020), Algorithms 1-2
  (MVMRec and MVCRec iterated ``t`` times): the covariance from differences of
  row pairs (mean zero), each step clipping the whitened rows to the ball the
  current bounds justify, estimating the second moment and tightening the
  whitening; then the mean of the whitened rows, each step shrinking the ball
  around the current centre to the radius its noise justifies.
"""

import numpy as np


def _clip(X, radius, center=None):
    Xc = X if center is None else X - center
    norms = np.linalg.norm(Xc, axis=1)
    return Xc * np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None]


def _symmetric_noise(d, sigma, rng):
    noise = np.triu(sigma * rng.standard_normal((d, d)))
    return noise + np.triu(noise, 1).T


def _psd(M, floor=0.0):
    w, v = np.linalg.eigh(0.5 * (M + M.T))
    return (v * np.maximum(w, floor)) @ v.T


def analyze_gauss(X, mu, prior_radius, rng):
    """One-shot Analyze Gauss in the prior ball: ``(mean, covariance)``."""
    n, d = X.shape
    share = mu / np.sqrt(2.0)
    Xc = _clip(X, prior_radius)
    mean = Xc.mean(axis=0) + (2.0 * prior_radius / n / share) * rng.standard_normal(d)
    sigma = np.sqrt(2.0) * prior_radius**2 / n / share
    second = Xc.T @ Xc / n + _symmetric_noise(d, sigma, rng)
    return mean, _psd(second - np.outer(mean, mean))


def coinpress(X, mu, prior_radius, rng, t=4, K=None, beta=0.01):
    """CoinPress (t covariance steps, then t mean steps): ``(mean, covariance)``."""
    n, d = X.shape
    K = prior_radius**2 if K is None else K
    step = mu / np.sqrt(2.0 * t)  # 2t Gaussian mechanisms share mu^2 evenly
    # covariance from differences of pairs: mean zero, covariance Sigma
    m = n // 2
    Y = (X[0 : 2 * m : 2] - X[1 : 2 * m : 2]) / np.sqrt(2.0)
    gamma = np.sqrt(d + 2.0 * np.sqrt(d * np.log(m / beta)) + 2.0 * np.log(m / beta))
    A = np.eye(d)  # whitening: I <= A Sigma A^T <= u I
    upper = K
    for _ in range(t):
        W = _clip(Y @ A.T, np.sqrt(upper) * gamma)
        sigma = np.sqrt(2.0) * upper * gamma**2 / m / step
        Z = W.T @ W / m + _symmetric_noise(d, sigma, rng)
        # the estimate of A Sigma A^T of this step, back in the original coordinates
        inverse = np.linalg.inv(A)
        cov = _psd(inverse @ Z @ inverse.T)
        eta = 2.0 * sigma * (np.sqrt(d) + np.sqrt(2.0 * np.log(1.0 / beta)))
        w, v = np.linalg.eigh(0.5 * (Z + Z.T) + eta * np.eye(d))
        root = (v / np.sqrt(np.maximum(w, 1e-12))) @ v.T
        A = root @ A  # A Sigma A^T <= I with high probability
        upper = 1.0
    inverse = np.linalg.inv(A)
    # mean: whitened rows have covariance about I; prior ball scaled by the whitening
    Xw = X @ A.T
    center = np.zeros(d)
    radius = prior_radius * np.linalg.norm(A, 2)
    g1 = np.sqrt(d + 2.0 * np.sqrt(d * np.log(n / beta)) + 2.0 * np.log(n / beta))
    g2 = np.sqrt(d + 2.0 * np.sqrt(d * np.log(1.0 / beta)) + 2.0 * np.log(1.0 / beta))
    for _ in range(t):
        reach = radius + g1
        sigma = 2.0 * reach / n / step
        center = center + _clip(Xw, reach, center).mean(axis=0) + sigma * rng.standard_normal(d)
        radius = g2 * np.sqrt(sigma**2 + 1.0 / n)
    return center @ inverse.T, cov
