"""Training toward the adversary's best response: rounds of fresh adversaries (issue 45).

The paper's alternating updates (eq. 3-5) keep one adversary a few gradient steps behind the
mechanism, and the mechanism learns to fool that one network: on digits at half the distortion
of releasing the mean, a co-trained bound of 0.73 nats where a fresh logistic regression read
the digit from 48 % of the releases. After the alternating phase, each round trains new
adversaries from scratch on releases of one half of the fit rows, to their best held-out
log-likelihood on the other half; while the best of them beats every adversary the mechanism
trains against by more than a tolerance, it joins them (frozen) and training goes on against
the largest of their bounds. Why and what else was measured: "PPAN against fresh adversaries"
in ``docs/design.md``.
"""

from dataclasses import dataclass

import numpy as np
import torch

from sklearn_privacy.adversarial._settings import budget_slack

__all__ = ["FreshRound", "train_fresh_adversary", "train_in_rounds"]

# Full-batch Adam steps of a fresh adversary, checked on the held-out half every _EVERY steps;
# it stops after _PATIENCE checks without a better held-out log-likelihood.
_MAX_STEPS = 3000
_EVERY = 25
_PATIENCE = 8
_FRESH_LR = 1e-3
_WIDE = (128, 128)


@dataclass(frozen=True)
class FreshRound:
    """One round: the held-out bounds (nats, ``H(S)`` not added) and what followed.

    Attributes
    ----------
    epoch : int
        Epochs trained when the round's fresh adversary was fitted.
    fresh_log_q : float
        ``E log Q(S | Z)`` of the fresh adversary on the held-out half's releases.
    co_trained_log_q : float
        The largest of the same for the adversaries the mechanism trained against (the
        co-trained one and those that joined in earlier rounds), on the same releases.
    distortion : float
        ``E d(X, Z)`` of those releases.
    joined : bool
        Whether the fresh adversary joined the ones the mechanism trains against (it
        beat the best of them by more than the tolerance, and epochs were left).
    """

    epoch: int
    fresh_log_q: float
    co_trained_log_q: float
    distortion: float
    joined: bool

    @property
    def gap(self):
        """How far the fresh adversary beat the co-trained one, nats (negative: it did not)."""
        return self.fresh_log_q - self.co_trained_log_q


def _subset(data, rows):
    return {k: v[rows] for k, v in data.items()}


def _mean_log_q(net, adversary, Xi, seen, weights):
    log_q = adversary.log_prob(seen, Xi["s"])
    return net.batch_mean((weights * log_q).sum(-1), Xi)


def _releases(net, Xi):
    """The adversary's view of one fresh draw of releases of ``Xi``, and their weights."""
    z, weights = net.candidates(Xi)
    return net._adversary_input(z), weights


def train_fresh_adversary(net, fit, held_out):
    """A new adversary trained to its best held-out log-likelihood on releases of ``fit``.

    Three are trained, from a fresh initialisation, all of the co-trained adversary's
    class: one of its architecture, a linear one (no hidden layer: what a logistic
    regression reads, which a small network trained on few rows can miss) and a wider one
    (two leaky-ReLU layers of 128 units); the best on the held-out releases is returned.
    Each full-batch Adam step sees a fresh draw of the releases of the ``fit`` rows (the
    mechanism is known to an attacker), and the kept state is the one with the best
    ``E log Q(S | Z)`` on one fixed draw of the releases of the ``held_out`` rows.

    Parameters
    ----------
    net : PPANNet
        The trained net (its mechanism is only read).
    fit, held_out : dict of str to tensor
        The training arrays of the two halves of the fit rows.

    Returns
    -------
    adversary : torch.nn.Module
        The best fresh adversary, in its best state.
    best : float
        Its ``E log Q(S | Z)`` on the held-out releases.
    held_out_view : tuple
        The held-out releases ``(seen, weights)`` it was scored on.
    """
    with torch.no_grad():
        held_view = _releases(net, held_out)
    params = net.get_params_for("adversary")
    trained = [
        _train_one(net, {**params, **hidden}, fit, held_out, held_view)
        for hidden in ({}, {"hidden": ()}, {"hidden": _WIDE, "activation": "leaky_relu"})
    ]
    adversary, best = max(trained, key=lambda pair: pair[1])
    return adversary, best, held_view


def _train_one(net, params, fit, held_out, held_view):
    """One fresh adversary of the net's adversary class with ``params``, early-stopped."""
    adversary = net.initialized_instance(net.adversary, params)
    optimizer = torch.optim.Adam(adversary.parameters(), lr=_FRESH_LR)
    best, best_state, stale = -np.inf, None, 0
    for step in range(_MAX_STEPS):
        with torch.no_grad():
            seen, weights = _releases(net, fit)
        optimizer.zero_grad()
        loss = -_mean_log_q(net, adversary, fit, seen, weights)
        loss.backward()
        optimizer.step()
        if (step + 1) % _EVERY:
            continue
        with torch.no_grad():
            score = float(_mean_log_q(net, adversary, held_out, *held_view))
        if score > best:
            best, stale = score, 0
            best_state = {k: v.detach().clone() for k, v in adversary.state_dict().items()}
        else:
            stale += 1
            if stale >= _PATIENCE:
                break
    adversary.load_state_dict(best_state)
    return adversary, best


def _held_out_distortion(net, held_out):
    with torch.no_grad():
        _, dist, weights, _ = net.terms(held_out)
        return float(net.batch_mean((weights * dist).sum(-1), held_out))


def _halves(tensors, n, rng, device):
    """The training arrays split in two random halves (fit, held out)."""
    order = torch.as_tensor(rng.permutation(n), device=device)
    return _subset(tensors, order[: n // 2]), _subset(tensors, order[n // 2 :])


def train_in_rounds(net, dataset, data, *, max_rounds, tol, rng):
    """Fresh-adversary rounds after ``net``'s alternating phase; returns the rounds.

    Each round splits the fit rows in two halves (at random, from ``rng``), trains a
    fresh adversary on one (:func:`train_fresh_adversary`) and compares it with the
    adversaries it trains against (the co-trained one and those of earlier rounds) on the
    other's releases. When it is better than the best of them by more than ``tol`` nats,
    it joins them (frozen: the mechanism's loss reads the largest of their bounds) and the
    alternating training resumes until the net's stopping rule, within the epochs that
    ``max_epochs`` leaves; otherwise, after ``max_rounds`` rounds or with no epoch left,
    the rounds stop. The mechanism state kept at the end is the one whose round read the
    lowest fresh bound among the rounds that met the net's budget (without one: the lowest
    fresh bound plus ``lam`` times the distortion, the objective). A last fresh adversary,
    on a new split, becomes the net's adversary and reads the kept mechanism's bound.

    Parameters
    ----------
    net : PPANNet
        The net after its first ``fit``.
    dataset : BatchDataset
        What the net trains on.
    data : dict of str to ndarray
        The fit rows' training arrays (as ``dataset`` holds them).
    max_rounds : int
        Most fresh adversaries that join (``max_rounds + 1`` trained at most).
    tol : float
        Smallest gap (nats) for which a fresh adversary joins.
    rng : numpy.random.Generator
        Draws the halves.

    Returns
    -------
    rounds : list of FreshRound
    held_out_log_q : float
        ``E log Q(S | Z)`` of the last fresh adversary on its held-out half.
    """
    tensors = {k: torch.as_tensor(v, device=net.device) for k, v in data.items()}
    n = len(next(iter(tensors.values())))
    rounds, kept = [], []
    for r in range(max_rounds + 1):
        fit, held = _halves(tensors, n, rng, net.device)
        adversary, fresh, (seen, weights) = train_fresh_adversary(net, fit, held)
        with torch.no_grad():
            co_trained = max(
                float(_mean_log_q(net, known, held, seen, weights))
                for known in [net.adversary_, *net.frozen_adversaries_]
            )
        left = net.max_epochs - len(net.history)
        join = r < max_rounds and left > 0 and fresh - co_trained > tol
        distortion = _held_out_distortion(net, held)
        rounds.append(FreshRound(len(net.history), fresh, co_trained, distortion, join))
        kept.append({k: v.detach().clone() for k, v in net.module_.state_dict().items()})
        if not join:
            break
        net.frozen_adversaries_.append(adversary.requires_grad_(False))
        net.game_start_ = len(net.history)
        net.partial_fit(dataset, None, epochs=left)
    net.module_.load_state_dict(kept[_chosen_round(net, rounds)])
    net.frozen_adversaries_ = []
    # The choice read the rounds' held-out bounds, the lowest of several noisy reads: the
    # bound reported is a new one, of a fresh adversary on a new split.
    adversary, held_out_log_q, _ = train_fresh_adversary(net, *_halves(tensors, n, rng, net.device))
    net.adversary_ = adversary
    args, kwargs = net.get_params_for_optimizer("adversary_optimizer", adversary.named_parameters())
    net.adversary_optimizer_ = net.adversary_optimizer(*args, **kwargs)
    return rounds, held_out_log_q


def _chosen_round(net, rounds):
    """The round whose mechanism to keep: the lowest fresh bound within the budget."""
    fresh = np.array([r.fresh_log_q for r in rounds])
    distortion = np.array([r.distortion for r in rounds])
    if net.max_distortion is None:
        return int(np.argmin(fresh + net.lam * distortion))
    slack = budget_slack(net.max_distortion, net.distortion_scale)
    within = distortion <= net.max_distortion + slack
    if not within.any():
        return int(np.argmin(distortion))
    return int(np.flatnonzero(within)[np.argmin(fresh[within])])
