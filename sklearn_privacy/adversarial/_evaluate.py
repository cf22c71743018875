"""PPAN's operating point on the fit data: leakage, disclosure, distortion, the learned mapping.

Exact for a finite release (eq. 6), else the adversary's bound against a fresh estimate.
"""

from dataclasses import dataclass

import numpy as np
import torch
from sklearn.exceptions import ConvergenceWarning
from skorch.utils import to_tensor

from sklearn_privacy.information import gaussian_mutual_information, mutual_information
from sklearn_privacy.utils import warn_user

__all__ = ["OperatingPoint", "fresh_leakage", "operating_point", "warn_dead_adversary"]


@dataclass(frozen=True)
class OperatingPoint:
    """PPAN's operating point on the fit rows: the fitted attributes of the same names + ``_``.

    ``mapping`` is the learned table of a categorical release (None otherwise);
    ``fresh_leakage`` the estimate from a sampled release, for a continuous release only.
    """

    adversary_leakage: float
    leakage: float
    disclosure: float
    distortion: float
    mapping: object = None
    fresh_leakage: float | None = None


def warn_dead_adversary(adversary, activation, seen):
    """Warn when a ReLU layer of the adversary is off for every fit release.

    The mechanism minimises ``E log Q(S|Z)``; an adversary whose hidden units
    are all inactive outputs a constant ``Q`` (``log Q = log prior``, a
    minimum the mechanism is pulled to) and gets no gradient to recover, so
    the mechanism ends up trained against no adversary at all.
    """
    if activation != "relu":
        return
    h = seen.reshape(-1, seen.shape[-1])
    for i, layer in enumerate(adversary.net):
        h = layer(h)
        if isinstance(layer, torch.nn.ReLU) and not bool((h > 0).any()):
            warn_user(
                f"Every unit of the adversary's hidden layer {i // 2} is inactive on the "
                "fit releases: Q(S | Z) is constant, the mechanism was trained against no "
                "adversary and its releases may leak S to a fresh one. Use "
                "activation='leaky_relu' (or 'tanh').",
                ConvergenceWarning,
            )
            return


# The fresh estimate reads at most this many fit rows, drawn at random: the panel's learned
# members fit at most 2000 rows a fold, and its kNN estimate on all 60000 MNIST training
# releases (784 columns) would cost more than the fit itself.
FRESH_MAX_ROWS = 5000


def fresh_leakage(bound, release, s, *, adversaries=None, verbose=0, rng=None):
    """``(fresh_leakage_, leakage_)`` of a continuous release: a fresh estimate, and the larger.

    The co-trained adversary's bound is only as good as that adversary: an
    undertrained one reads 0 while a fresh estimate of the same release
    finds 0.3 nats. The fresh estimate is
    :func:`~sklearn_privacy.metrics.leakage_score` of the fit rows' release
    (the default panel: held-out logistic, boosting, network, pairs and
    table bounds cross-fitted on those rows, the user's ``adversaries`` beside
    them, and the kNN estimate minus its permutation null; for a continuous
    S the bounds on quantile bins of S and the continuous kNN estimate); a
    bound far below it (or negative) warns. Above :data:`FRESH_MAX_ROWS` rows it reads
    that many, drawn without replacement by ``rng`` (a ``numpy.random.Generator``).
    """
    from sklearn_privacy.estimation import estimate_leakage

    if len(s) > FRESH_MAX_ROWS:
        rows = np.sort(rng.choice(len(s), FRESH_MAX_ROWS, replace=False))
        release, s = release[rows], s[rows]
    try:
        fresh = float(estimate_leakage(s, release, adversaries=adversaries, verbose=verbose))
    except ValueError:  # too few rows per value of S for the estimate
        fresh = float("nan")
    if np.isfinite(fresh) and (bound < 0 or bound < min(0.5 * fresh, fresh - 0.02)):
        warn_user(
            "PPANTransformer: the co-trained adversary's bound on the leakage "
            "(adversary_leakage_) is far below a fresh estimate from the release "
            "(fresh_leakage_): the adversary is undertrained, and its bound says "
            "nothing. leakage_ reports the fresh estimate. Train longer (max_epochs), give "
            "the adversary more capacity, or measure with the scorers on held-out rows.",
            UserWarning,
        )
    return fresh, max(bound, fresh if np.isfinite(fresh) else 0.0, 0.0)


def operating_point(
    net, inputs, X, data, noise, *, release, activation, fresh=None, held_out_log_q=None
):
    """The operating point on the fit rows.

    Parameters
    ----------
    net : PPANNet
    inputs : PPANInputs
    X : ndarray of shape (n_samples, n_released)
    data : dict
        The training arrays.
    noise : ndarray or None
        Seed noise of a continuous release, one draw per row.
    release : str
    activation : str
    fresh : dict, default=None
        Options of the fresh estimate (``adversaries``, ``verbose``).
    held_out_log_q : float, default=None
        ``E log Q(S|Z)`` of the net's adversary on releases of fit rows it was not trained
        on (``training="best_response"``); the bound is ``H(S)`` plus it, instead of the
        adversary's bound on every fit row.

    Returns
    -------
    OperatingPoint
    """
    net.module_.eval()
    n = X.shape[0]
    sens = inputs.sensitive
    if noise is not None:
        noise = torch.as_tensor(noise, device=net.device)
    with torch.no_grad():
        Xi = to_tensor(data, device=net.device)
        log_q, dist, weights, seen = net.terms(Xi, noise)
        warn_dead_adversary(net.adversary_, activation, seen)
        log_q, dist = log_q.cpu().double().numpy(), dist.cpu().double().numpy()
        weights = weights.cpu().double().numpy()
        # float32 probabilities sum to 1 only to about 1e-7: renormalise in float64
        weights = weights / weights.sum(axis=1, keepdims=True)
        if weights.shape[0] == 1:
            weights = np.broadcast_to(weights, log_q.shape)
    p = inputs.row_probabilities(n)
    log_q_mean = p @ np.sum(weights * log_q, axis=1) if held_out_log_q is None else held_out_log_q
    bound = float(sens.entropy + log_q_mean)
    distortion = float(p @ np.sum(weights * dist, axis=1))
    if release == "categorical":
        k = weights.shape[1]
        x_joint = np.zeros((len(inputs.records), k))
        np.add.at(x_joint, inputs.codes, weights * p[:, None])
        disclosure = float(mutual_information(x_joint))
        if sens.discrete:
            s_joint = np.zeros((sens.n_features, k))
            np.add.at(s_joint, sens.codes, weights * p[:, None])
            leakage = float(mutual_information(s_joint))
        else:
            leakage = max(bound, 0.0)
        mapping = None
        if inputs.table:
            with torch.no_grad():
                mapping = torch.softmax(net.module_.table.weight.double(), dim=-1).cpu().numpy()
            if inputs.observation == "full":
                mapping = mapping.reshape(sens.n_features, len(inputs.records), k)
        return OperatingPoint(bound, leakage, disclosure, distortion, mapping)
    z = seen.cpu().double().numpy()
    pick = weights.argmax(axis=1) if z.shape[1] > 1 else np.zeros(n, dtype=int)
    z = z[np.arange(n), pick]
    fresh_value, leakage = fresh_leakage(bound, z, data["s"], **(fresh or {}))
    cov = np.cov(np.hstack([X, z]), rowvar=False, aweights=inputs.sample_weight)
    cov = cov + 1e-9 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0])
    d = X.shape[1]
    disclosure = max(
        float(gaussian_mutual_information(cov, np.arange(d), np.arange(d, 2 * d))), 0.0
    )
    return OperatingPoint(bound, leakage, disclosure, distortion, fresh_leakage=fresh_value)
