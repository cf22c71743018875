"""Torch modules of PPAN: release mechanisms, adversaries, discriminator (sec. 2.3, 3).

Each mechanism maps ``(w, noise)`` to K candidate releases and their probabilities.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F

__all__ = [
    "CategoricalAdversary",
    "CategoricalMechanism",
    "Discriminator",
    "GaussianAdversary",
    "GaussianMechanism",
    "UniversalMechanism",
    "mlp",
]


def mlp(n_in, hidden, n_out, *, activation="relu", bias=True):
    """Fully connected layers with ``activation`` after each hidden layer."""
    act = {"relu": nn.ReLU, "tanh": nn.Tanh, "leaky_relu": lambda: nn.LeakyReLU(0.2)}[activation]
    layers, width = [], n_in
    for h in hidden:
        layers += [nn.Linear(width, h), act()]
        width = h
    layers.append(nn.Linear(width, n_out, bias=bias))
    return nn.Sequential(*layers)


class _Scaled(nn.Module):
    """Standardises the observation with fixed training statistics (buffers)."""

    def __init__(self, center, scale):
        super().__init__()
        self.register_buffer("center", torch.as_tensor(center, dtype=torch.float32))
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

    def standardize(self, w):
        return (w - self.center) / self.scale


class CategoricalMechanism(nn.Module):
    """``P(z | w) = softmax(G w)`` over a finite release alphabet (sec. 2.3.1, 3.1.2).

    With ``n_codes`` set, ``w`` is an integer code of a finite observation and
    ``G`` is the minimal ``|Z| x |W|`` matrix (no hidden layer, no bias),
    started at the logits ``init`` when given (else near the uniform mapping);
    otherwise ``w`` is a float vector fed to a perceptron.
    """

    def __init__(
        self, n_outputs, *, n_codes=None, n_in=None, hidden=(32,), activation="relu", init=None
    ):
        super().__init__()
        self.n_outputs = n_outputs
        if n_codes is not None:
            self.table = nn.Embedding(n_codes, n_outputs)
            if init is None:
                nn.init.normal_(self.table.weight, std=0.01)
            else:
                with torch.no_grad():
                    self.table.weight.copy_(torch.as_tensor(init, dtype=torch.float32))
            self.net = None
        else:
            self.table = None
            self.net = mlp(n_in, hidden, n_outputs, activation=activation)

    def forward(self, w, noise=None):
        logits = self.table(w) if self.table is not None else self.net(w)
        return None, torch.softmax(logits, dim=-1)


class GaussianMechanism(nn.Module):
    """Gaussian (``n_components=1``) or Gaussian-mixture release by reparameterisation.

    The network maps ``w`` to means, log-variances (diagonal covariance, the
    ``A`` of sec. 2.3.2 diagonal) and mixture logits; each component is drawn
    as ``mu + sigma * eps`` with ``eps`` given, and the mixture weights enter
    the loss as an exact expectation (``L_GMM``).
    """

    def __init__(
        self,
        n_in,
        n_out,
        *,
        n_components=1,
        hidden=(32, 32),
        activation="relu",
        center=0.0,
        scale=1.0,
        out_center=0.0,
        out_scale=1.0,
    ):
        super().__init__()
        self.n_out, self.n_components = n_out, n_components
        self.inp = _Scaled(center, scale)
        self.out = _Scaled(out_center, out_scale)
        self.net = mlp(n_in, hidden, n_components * (2 * n_out + 1), activation=activation)

    def forward(self, w, noise):
        h = self.net(self.inp.standardize(w))
        k, d = self.n_components, self.n_out
        mean = h[:, : k * d].reshape(-1, k, d)
        log_var = h[:, k * d : 2 * k * d].reshape(-1, k, d).clamp(-12.0, 8.0)
        weights = torch.softmax(h[:, 2 * k * d :], dim=-1)
        z = mean + torch.exp(0.5 * log_var) * noise
        return self.out.center + self.out.scale * z, weights


class UniversalMechanism(nn.Module):
    """``z = f(w, u)``: a perceptron fed the observation and seed noise ``u`` (sec. 2.3.3)."""

    def __init__(
        self,
        n_in,
        n_out,
        *,
        n_noise=8,
        hidden=(32, 32),
        activation="relu",
        center=0.0,
        scale=1.0,
        out_center=0.0,
        out_scale=1.0,
    ):
        super().__init__()
        self.inp = _Scaled(center, scale)
        self.out = _Scaled(out_center, out_scale)
        self.net = mlp(n_in + n_noise, hidden, n_out, activation=activation)

    def forward(self, w, noise):
        z = self.net(torch.cat([self.inp.standardize(w), noise], dim=-1))
        z = self.out.center + self.out.scale * z
        return z[:, None, :], torch.ones(z.shape[0], 1, dtype=z.dtype, device=z.device)


class CategoricalAdversary(nn.Module):
    """``Q(s | z) = softmax(A z)`` for a discrete S (a perceptron when ``hidden``)."""

    def __init__(self, n_in, n_classes, *, hidden=(32, 32), activation="relu", bias=True):
        super().__init__()
        self.net = mlp(n_in, hidden, n_classes, activation=activation, bias=bias)

    def log_prob(self, z, s):
        """``log Q(s | z)`` for ``z`` of shape ``(m, K, d)`` and codes ``s`` of shape ``(n,)``.

        ``m`` is ``n`` or 1 (the same candidates for every row); returns ``(n, K)``.
        """
        logp = torch.log_softmax(self.net(z), dim=-1)
        n, k = s.shape[0], logp.shape[1]
        logp = logp.expand(n, k, logp.shape[-1])
        return logp.gather(-1, s.reshape(n, 1, 1).expand(n, k, 1)).squeeze(-1)


class GaussianAdversary(nn.Module):
    """``Q(s | z) = N(s; mu(z), Sigma(z))`` for a continuous S (sec. 3.2).

    ``Sigma(z)`` is a full covariance, through the Cholesky factor ``L`` of its
    inverse (``Sigma^-1 = L L^T``, ``L`` lower triangular with diagonal
    ``exp(-log_var / 2)``). A diagonal ``Sigma`` would under-state ``I(S; Z)``
    for a multivariate S whenever the posterior of S given Z is correlated
    (its bound is ``sum_i I(S_i; Z)`` at best), and a mechanism trained against it
    learns to hide leakage in those correlations.
    """

    def __init__(self, n_in, n_sensitive, *, hidden=(32, 32), activation="relu"):
        super().__init__()
        d = self.d = n_sensitive
        self.net = mlp(n_in, hidden, 2 * d + d * (d - 1) // 2, activation=activation)
        rows, cols = torch.tril_indices(d, d, offset=-1)
        self.register_buffer("rows", rows, persistent=False)
        self.register_buffer("cols", cols, persistent=False)

    def log_prob(self, z, s):
        """``log Q(s | z)`` for ``z`` of shape ``(m, K, d)``, ``s`` of shape ``(n, d_s)``."""
        h = self.net(z)
        d = self.d
        mean, log_var = h[..., :d], h[..., d : 2 * d].clamp(-12.0, 8.0)
        r = s[:, None, :] - mean
        u = r * torch.exp(-0.5 * log_var)
        if d > 1:
            # u_j = L_jj r_j + sum_{i > j} L_ij r_i, i.e. u = L^T r
            off = h[..., 2 * d :]
            lower = torch.zeros(*off.shape[:-1], d, d, dtype=r.dtype, device=r.device)
            lower[..., self.rows, self.cols] = off
            u = u + torch.einsum("...ij,...i->...j", lower, r)
        return -0.5 * (u**2 + log_var + math.log(2 * math.pi)).sum(-1)


class Discriminator(nn.Module):
    """``D(z)``: logit of the probability that ``z`` is a release, not real data (eq. 10)."""

    def __init__(self, n_in, *, hidden=(64,), activation="relu"):
        super().__init__()
        self.net = mlp(n_in, hidden, 1, activation=activation)

    def forward(self, z):
        return self.net(z).squeeze(-1)


def bernoulli_cross_entropy(logits, target):
    """Per-pixel binary cross-entropy averaged over pixels (sec. 3.3), from logits."""
    return F.binary_cross_entropy_with_logits(
        logits, target.expand_as(logits), reduction="none"
    ).mean(-1)
