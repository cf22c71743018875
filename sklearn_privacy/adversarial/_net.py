"""The skorch net of PPAN: mechanism, adversary and their alternating updates (eq. 3-5, 10).

Imported at ``fit`` only (it imports torch and skorch).
"""

import re
import sys

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import PassthroughScoring, PrintLog
from skorch.dataset import unpack_data
from skorch.utils import TeeGenerator, to_tensor
from torch.nn import functional as F

from sklearn_privacy.adversarial._modules import bernoulli_cross_entropy

__all__ = ["PPANNet"]


# The budget multiplier's ascent per epoch of minibatch training, per unit of excess
# distortion (nats). Measured on the scalar Gaussian model (budgets 0.1/0.3/0.6, both
# observations, the defaults): 2 met every budget; 2 lam (20 at the default lam, as exact
# steps use) overshot at lam 50 (distortion 0.085 against 0.4) and 0.5 was too slow (0.111
# against 0.1 after max_epochs). The multipliers these models need are 0.2-1.3.
_MINIBATCH_DUAL_STEP = 2.0
# An ANSI colour code ("\x1b[31m", "\x1b[0m").
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _PrintLog(PrintLog):
    """skorch's epoch table (``verbose=1``), in plain text unless it prints to a terminal.

    skorch marks each improved score with ANSI colour codes, which a log file or a
    notebook captured to text would keep as ``ESC[31m`` noise.
    """

    def format_row(self, row, key, color):
        text = super().format_row(row, key, color)
        terminal = self.sink is print and sys.stdout.isatty()
        return text if terminal or not isinstance(text, str) else _ANSI.sub("", text)


class _Distortion(torch.nn.Module):
    """The distortion ``d(t, z)`` of every candidate release, shape ``(n, K)``.

    Held as skorch's criterion so that its table moves with the net's device.
    ``kind``: ``"table"`` (a finite alphabet: row ``code`` of ``matrix``),
    ``"squared"``, ``"cross_entropy"`` (``z`` holds logits) or
    ``"mutual_information"`` (computed by the net from the utility posterior).
    """

    def __init__(self, kind="squared", matrix=None):
        super().__init__()
        self.kind = kind
        self.register_buffer(
            "matrix",
            torch.as_tensor(np.zeros((1, 1)) if matrix is None else matrix, dtype=torch.float32),
        )

    def forward(self, z, target, code):
        if self.kind == "table":
            return self.matrix[code]
        if self.kind == "squared":
            return ((target[:, None, :] - z) ** 2).sum(-1)
        return bernoulli_cross_entropy(z, target[:, None, :])


class PPANNet(NeuralNet):
    """A skorch ``NeuralNet`` training a release mechanism against an adversary.

    ``module`` is the mechanism (``module_``), ``adversary`` the privacy
    adversary ``Q(s | z)`` (``adversary_``), ``utility`` the optional posterior
    ``Q(y | z)`` of a mutual-information utility (``utility_``, sec. 5.1),
    ``discriminator`` the optional realism discriminator (``discriminator_``,
    eq. 10). Each has its own optimizer: ``optimizer_`` (mechanism and utility
    posterior: both minimise), ``adversary_optimizer_`` and
    ``discriminator_optimizer_`` (both maximise).

    ``train_step`` alternates ``adversary_steps`` adversary (and
    discriminator) updates, with the release detached, and one mechanism
    update, which steps ``optimizer_`` only. The batch ``X`` is a dict:
    ``w`` (mechanism input: floats, or integer codes of a finite observation),
    ``s`` (S: integer codes or standardised floats), ``t`` (the useful data the
    distortion compares with: floats, or integer codes for a mutual-information
    utility with a discrete ``y``), ``code`` (the row of the distortion table)
    ``u`` (seed noise is drawn in the step, never carried) and, for a weighted
    fit, ``sw`` (row weights: every row term is averaged with the weights,
    normalised by the batch's weight sum).

    With ``max_distortion`` the distortion term is an augmented Lagrangian of
    the budget (eq. 3-5 with a budget),
    ``lam * (max(0, e + mu / (2 lam))^2 - (mu / (2 lam))^2)`` with ``e`` the
    excess ``E d - max_distortion`` and the multiplier ``mu`` (``multiplier_``,
    0 at the start, so that the first penalty is the paper's quadratic
    ``lam * max(0, e)^2``) raised after every epoch by a step times ``e``, the
    epoch's mean excess (and kept at least 0): the budget is met at
    convergence whatever ``lam``. Exact steps solve the inner problem: the
    excess is divided by ``distortion_scale`` and the step is ``2 lam`` (the
    method of multipliers). Minibatch epochs do not, so the step is a
    constant 2 (nats per unit of distortion) and the excess that raises ``mu``
    is clipped to ``[-max_distortion, max_distortion]`` (the budget's own
    size): a fresh network's release is far from X, and the unclipped
    ``2 lam e`` jumped and oscillated.

    ``exact=True`` (a finite observation, a finite release and a discrete S;
    the batch holds every distinct ``(w, s)`` cell with its probability in
    ``sw``) replaces both updates by exact ones: the adversary is set to its
    maximiser, the posterior ``P(s | z)`` of the current mechanism, so that
    the mechanism objective is ``I(S; Z) - H(S)`` plus the penalty (Danskin),
    and the mechanism takes an exponentiated-gradient step on its table,
    ``P(z | w) <- P(z | w) exp(-eta g(w, z)) / norm`` with ``g`` the gradient
    per unit of ``P(w)``, by plain gradient descent on the logits (``optimizer``
    is SGD, ``lr`` the first ``eta``); a step that raises the objective is
    halved until it does not, and an accepted one lets the next grow by 1.2.
    The budget's multiplier rises after every exact step, by the unclipped
    excess.
    """

    def __init__(
        self,
        module,
        *,
        adversary,
        utility=None,
        discriminator=None,
        release="universal",
        n_candidates=1,
        noise_shape=(8,),
        lam=10.0,
        max_distortion=None,
        gamma=0.0,
        adversary_steps=1,
        cross_entropy_release=False,
        exact=False,
        distortion_scale=1.0,
        adversary_optimizer=torch.optim.Adam,
        discriminator_optimizer=torch.optim.Adam,
        criterion=_Distortion,
        **kwargs,
    ):
        self.adversary = adversary
        self.utility = utility
        self.discriminator = discriminator
        self.release = release
        self.n_candidates = n_candidates
        self.noise_shape = noise_shape
        self.lam = lam
        self.max_distortion = max_distortion
        self.gamma = gamma
        self.adversary_steps = adversary_steps
        self.cross_entropy_release = cross_entropy_release
        self.exact = exact
        self.distortion_scale = distortion_scale
        self.adversary_optimizer = adversary_optimizer
        self.discriminator_optimizer = discriminator_optimizer
        super().__init__(module, criterion=criterion, **kwargs)

    # ------------------------------------------------------------ initialise
    def initialize(self):
        super().initialize()
        self.multiplier_ = 0.0
        # frozen adversaries of earlier fresh rounds (training="best_response"): the mechanism
        # is trained against the best of them and the co-trained one
        self.frozen_adversaries_ = []
        self.game_start_ = 0  # the epoch the current set of adversaries began
        return self

    def initialize_module(self):
        super().initialize_module()
        self.adversary_ = self.initialized_instance(
            self.adversary, self.get_params_for("adversary")
        )
        if self.utility is not None:
            self.utility_ = self.initialized_instance(self.utility, self.get_params_for("utility"))
        if self.discriminator is not None:
            self.discriminator_ = self.initialized_instance(
                self.discriminator, self.get_params_for("discriminator")
            )
        return self

    def initialize_optimizer(self, *args, **kwargs):
        named = list(self.module_.named_parameters())
        if self.utility is not None:
            named += [("utility." + k, v) for k, v in self.utility_.named_parameters()]
        args_, kwargs_ = self.get_params_for_optimizer("optimizer", named)
        self.optimizer_ = self.optimizer(*args_, **kwargs_)
        args_, kwargs_ = self.get_params_for_optimizer(
            "adversary_optimizer", self.adversary_.named_parameters()
        )
        self.adversary_optimizer_ = self.adversary_optimizer(*args_, **kwargs_)
        if self.discriminator is not None:
            args_, kwargs_ = self.get_params_for_optimizer(
                "discriminator_optimizer", self.discriminator_.named_parameters()
            )
            self.discriminator_optimizer_ = self.discriminator_optimizer(*args_, **kwargs_)
        return self

    # ------------------------------------------------------------- the loss
    def draw_noise(self, n, generator=None):
        """Seed noise for ``n`` rows: Uniform[-1, 1] (universal) or N(0, 1) (Gaussian)."""
        shape = (n, *self.noise_shape)
        if self.release == "universal":
            return 2 * torch.rand(shape, generator=generator, device=self.device) - 1
        if self.release == "categorical":
            return None
        return torch.randn(shape, generator=generator, device=self.device)

    def candidates(self, Xi, noise=None):
        """Candidate releases ``z`` (``(n, K, d)``, or ``None`` for a finite alphabet:
        the identity one-hots) and their weights ``(n, K)``."""
        w = Xi["w"]
        if noise is None:
            noise = self.draw_noise(w.shape[0])
        return self.module_(w, noise)

    def _adversary_input(self, z):
        if z is None:  # finite alphabet: every one-hot candidate, shared by all rows
            k = self.n_candidates
            return torch.eye(k, device=self.device)[None]
        return torch.sigmoid(z) if self.cross_entropy_release else z

    def terms(self, Xi, noise=None, *, detach_release=False):
        """``log Q(s | z)``, ``d(t, z)`` (each ``(n, K)``), the weights and the release."""
        z, weights = self.candidates(Xi, noise)
        if detach_release:
            z = None if z is None else z.detach()
            weights = weights.detach()
        seen = self._adversary_input(z)
        log_q = self.adversary_.log_prob(seen, Xi["s"])
        if self.utility is not None:
            dist = -self.utility_.log_prob(seen, Xi["t"])
        else:
            dist = self.criterion_(z, Xi.get("t"), Xi.get("code"))
        return log_q, dist, weights, seen

    @staticmethod
    def batch_mean(values, Xi):
        """Mean of per-row ``values`` over the batch, weighted by ``Xi["sw"]`` when given."""
        sw = Xi.get("sw")
        if sw is None:
            return values.mean()
        return (sw * values).sum() / sw.sum()

    def loss_terms(self, log_q, dist, weights, Xi=None):
        """The mechanism loss's terms ``(privacy, distortion, penalty)`` (eq. 3-6).

        ``E log Q(S|Z)``, ``E d`` and the distortion's weight in the loss: ``lam E d``, or
        the budget's augmented-Lagrangian penalty; the loss is ``privacy + penalty``.
        """
        Xi = {} if Xi is None else Xi
        privacy = self.batch_mean((weights * log_q).sum(-1), Xi)
        distortion = self.batch_mean((weights * dist).sum(-1), Xi)
        if self.max_distortion is None:
            penalty = self.lam * distortion
        else:
            excess = (distortion - self.max_distortion) / self._excess_unit
            shift = self.multiplier_ / (2.0 * self.lam)
            penalty = self.lam * (torch.clamp(excess + shift, min=0.0) ** 2 - shift**2)
        return privacy, distortion, penalty

    # -------------------------------------------------------------- steps
    def train_step(self, batch, **fit_params):
        self._set_training(True)
        Xi, _ = unpack_data(batch)
        Xi = to_tensor(Xi, device=self.device)
        if self.exact:
            return self._exact_step(Xi, batch)
        for _ in range(self.adversary_steps):
            self.adversary_optimizer_.zero_grad()
            log_q, _, weights, seen = self.terms(Xi, detach_release=True)
            adversary_loss = -self.batch_mean((weights * log_q).sum(-1), Xi)
            adversary_loss.backward()
            self.adversary_optimizer_.step()
            if self.discriminator is not None and self.gamma > 0:
                self.discriminator_optimizer_.zero_grad()
                fake = self.discriminator_(seen.detach())
                real = self.discriminator_(Xi["t"])
                disc_loss = self.batch_mean(
                    (weights * F.softplus(-fake)).sum(-1) + F.softplus(real), Xi
                )
                disc_loss.backward()
                self.discriminator_optimizer_.step()
        self.optimizer_.zero_grad()
        log_q, dist, weights, seen = self.terms(Xi)
        privacy, distortion, penalty = self.loss_terms(log_q, dist, weights, Xi)
        for frozen in self.frozen_adversaries_:
            # the largest of the lower bounds E log Q(S|Z) + H(S): the mechanism hides S
            # from every adversary found so far, not only from the one it trains beside
            other = self.batch_mean((weights * frozen.log_prob(seen, Xi["s"])).sum(-1), Xi)
            privacy = torch.maximum(privacy, other)
        loss = privacy + penalty
        if self.discriminator is not None and self.gamma > 0:
            fake = self.discriminator_(seen)
            loss = loss + self.gamma * self.batch_mean((weights * F.softplus(fake)).sum(-1), Xi)
        loss.backward()
        self.notify(
            "on_grad_computed",
            named_parameters=TeeGenerator(self.module_.named_parameters()),
            batch=batch,
            training=True,
        )
        self.optimizer_.step()
        self.history.record_batch("train_log_q", privacy.item())
        self.history.record_batch("train_distortion", distortion.item())
        self.history.record_batch("adversary_loss", adversary_loss.item())
        return {"loss": loss.detach(), "y_pred": None}

    # ------------------------------------------------------ exact steps
    def best_response(self, Xi):
        """Set the adversary ``softmax(A z)`` to its maximiser: ``A[s, z] = log P(s | z)``."""
        with torch.no_grad():
            _, weights = self.candidates(Xi)
            layer = self.adversary_.net[-1]
            joint = torch.zeros_like(layer.weight).index_add_(
                0, Xi["s"], Xi["sw"][:, None] * weights
            )
            # a release never drawn gets the same value for every s: Q uniform there
            log_q = torch.log(joint / joint.sum(0, keepdim=True).clamp(min=1e-30))
            layer.weight.copy_(log_q.clamp(min=-60.0))

    def _exact_loss_terms(self, Xi):
        """``(privacy, distortion, penalty, weights)`` with the adversary at its maximiser."""
        self.best_response(Xi)
        log_q, dist, weights, _ = self.terms(Xi)
        return (*self.loss_terms(log_q, dist, weights, Xi), weights)

    def _exact_step(self, Xi, batch):
        """One exact step: the adversary's maximiser, then the mechanism's mirror step."""
        table = self.module_.table.weight
        self.optimizer_.zero_grad()
        privacy, distortion, penalty, weights = self._exact_loss_terms(Xi)
        weights.retain_grad()
        loss = privacy + penalty
        loss.backward()
        with torch.no_grad():
            # the gradient per unit of P(w): dL/dP(z|w) / P(w), the exponentiated-gradient step
            rows = Xi["w"]
            mass = torch.zeros(table.shape[0], dtype=table.dtype, device=table.device)
            mass.index_add_(0, rows, Xi["sw"] / Xi["sw"].sum())
            grad = torch.zeros_like(table).index_add_(0, rows, weights.grad)
            table.grad = torch.where(mass[:, None] > 0, grad / mass[:, None].clamp(min=1e-30), 0.0)
        self.notify(
            "on_grad_computed",
            named_parameters=TeeGenerator(self.module_.named_parameters()),
            batch=batch,
            training=True,
        )
        group = self.optimizer_.param_groups[0]
        start, value = table.detach().clone(), loss.item()
        for _ in range(40):
            self.optimizer_.step()
            with torch.no_grad():
                new_privacy, _, new_penalty, _ = self._exact_loss_terms(Xi)
            if (new_privacy + new_penalty).item() <= value + 1e-7 * (1.0 + abs(value)):
                group["lr"] *= 1.2
                break
            with torch.no_grad():
                table.copy_(start)
            group["lr"] *= 0.5
        self.history.record_batch("train_log_q", privacy.item())
        self.history.record_batch("train_distortion", distortion.item())
        self.history.record_batch("adversary_loss", -privacy.item())
        return {"loss": loss.detach(), "y_pred": None}

    @property
    def _excess_unit(self):
        """The unit of the budget's excess: ``distortion_scale`` in exact steps, else 1."""
        return self.distortion_scale if self.exact else 1.0

    def on_epoch_end(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        """Raise the budget's multiplier by a step times the epoch's excess (at least 0)."""
        super().on_epoch_end(net, dataset_train=dataset_train, dataset_valid=dataset_valid)
        if self.max_distortion is None:
            return
        batches = [b for b in self.history[-1, "batches"] if "train_distortion" in b]
        distortion = np.average(
            [b["train_distortion"] for b in batches],
            weights=[b["train_batch_size"] for b in batches],
        )
        excess = (distortion - self.max_distortion) / self._excess_unit
        step = 2.0 * self.lam
        if not self.exact:
            reach = self.max_distortion
            excess, step = np.clip(excess, -reach, reach), _MINIBATCH_DUAL_STEP
        self.multiplier_ = max(0.0, self.multiplier_ + step * float(excess))
        self.history.record("multiplier", self.multiplier_)

    def validation_step(self, batch, **fit_params):
        self._set_training(False)
        Xi, _ = unpack_data(batch)
        Xi = to_tensor(Xi, device=self.device)
        with torch.no_grad():
            log_q, dist, weights, _ = self.terms(Xi)
            privacy, distortion, penalty = self.loss_terms(log_q, dist, weights, Xi)
            loss = privacy + penalty
        self.history.record_batch("valid_distortion", distortion.item())
        return {"loss": loss, "y_pred": loss}

    @property
    def _default_callbacks(self):
        """skorch's defaults, with the epoch means of the batch terms before the printed log.

        ``PassthroughScoring`` averages each batch score weighted by the batch
        size, so that callbacks (``EarlyStopping``, the stopping rule) can
        monitor ``train_log_q``, ``train_distortion``, ``adversary_loss`` and
        ``valid_distortion``.
        """
        defaults = super()._default_callbacks
        terms = [
            (name, PassthroughScoring(name=name, lower_is_better=None, on_train=on_train))
            for name, on_train in (
                ("train_log_q", True),
                ("train_distortion", True),
                ("adversary_loss", True),
                ("valid_distortion", False),
            )
        ]
        name, _ = defaults[-1]  # skorch's PrintLog: colours only on a terminal
        return defaults[:-1] + terms + [(name, _PrintLog())]


class BatchDataset(torch.utils.data.Dataset):
    """The dict of training arrays, indexed by one row or by a whole batch of rows.

    Fetched batch by batch through a ``BatchSampler`` it skips the per-row
    fetch and collate of a plain dataset (half the time of a small net's step).
    """

    def __init__(self, data):
        self.data = {k: torch.as_tensor(v) for k, v in data.items()}
        self.n = len(next(iter(self.data.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        Xi = {k: v[index] for k, v in self.data.items()}
        return Xi, torch.zeros(()) if np.ndim(index) == 0 else torch.zeros(len(index))
