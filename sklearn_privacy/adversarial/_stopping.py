"""PPAN's stopping rule on the saddle objective (a skorch callback).

A minimax game has no loss that only falls: the mechanism lowers its
objective while the adversary raises its bound, and each can undo the other's
progress. Training has settled when *both* stop moving, so the rule watches
the two epoch series that the net records:

- ``train_loss``: the mechanism objective ``E log Q(S|Z) + penalty``;
- ``adversary_loss``: ``-E log Q(S|Z)``, the adversary's bound
  ``H(S) + E log Q(S|Z)`` up to the constant ``H(S)``.

Over the last ``2 * n_iter_no_change`` epochs a straight line is fitted to
each; its slope times ``n_iter_no_change`` is the change of the series' mean
from one window of ``n_iter_no_change`` epochs to the next (for a linear
trend, exactly the difference of the two windows' means). Training stops when
both changes are at most ``tol`` (nats). With minibatches the epoch values are
noisy: a change within one standard error (from the scatter around the
line, so that a steady trend is not mistaken for noise) also counts as
settled, so that the rule stops a plateau instead of waiting for a noise-free
value that never comes (two standard errors stopped slow descents measured on
the binary and scalar Gaussian test models; one lets them run on). Exact full-batch
steps are deterministic and get no
such allowance.

With a distortion budget the objectives can settle while the budget's
multiplier is still climbing (an augmented Lagrangian moves it once per
epoch), so training has also to meet the budget: the mean distortion of the
last window within half of ``0.02 max_distortion + 0.005 distortion_scale``
above the budget (half the tolerance of the missed-budget warning, as the
operating point is measured on a fresh draw), and that whole tolerance below
it only while the multiplier is 0 (a positive multiplier says the budget binds, so a
release well inside it is still moving towards it).
"""

import numpy as np
from skorch.callbacks import Callback

__all__ = ["SaddleConvergence"]

_MONITORED = ("train_loss", "adversary_loss")


class SaddleConvergence(Callback):
    """Stop training when the mechanism objective and the adversary's bound have settled.

    Parameters
    ----------
    tol : float
        Largest change (nats) between the means of two consecutive windows.
    n_iter_no_change : int
        Epochs per window.
    noisy : bool, default=True
        Whether epoch values carry minibatch noise (allow one standard error).

    Attributes
    ----------
    converged_ : bool
        Whether the rule stopped training.
    changes_ : tuple of float or None
        The last measured changes per window (objective, adversary's loss).
    """

    def __init__(self, tol, n_iter_no_change, *, noisy=True):
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.noisy = noisy

    def initialize(self):
        self.converged_ = False
        self.changes_ = None
        return self

    def on_epoch_end(self, net, **kwargs):
        w = self.n_iter_no_change
        history = net.history
        if len(history) < 2 * w:
            return
        t = np.arange(2 * w, dtype=float)
        t -= t.mean()
        settled, changes = True, []
        for key in _MONITORED:
            values = np.asarray(history[-2 * w :, key], dtype=float)
            slope = float(t @ (values - values.mean()) / (t @ t))
            change = abs(slope) * w
            changes.append(change)
            allowance = 0.0
            if self.noisy and w > 1:
                residual = values - values.mean() - slope * t
                scatter = np.sqrt(residual @ residual / (2 * w - 2))
                allowance = w * scatter / np.sqrt(t @ t)
            settled &= bool(change <= self.tol + allowance)
        self.changes_ = tuple(changes)
        if settled and not self._meets_budget(net, history, w):
            settled = False
        if settled:
            self.converged_ = True
            history.record("converged", True)
            raise KeyboardInterrupt  # skorch's way to end fit_loop (as EarlyStopping does)

    @staticmethod
    def _meets_budget(net, history, w):
        """Whether the last window's mean distortion meets the net's budget (if any)."""
        budget = getattr(net, "max_distortion", None)
        if budget is None:
            return True
        distortion = float(np.mean(history[-w:, "train_distortion"]))
        slack = 0.02 * budget + 0.005 * net.distortion_scale
        if distortion > budget + 0.5 * slack:  # half: the final evaluation draws afresh
            return False
        return net.multiplier_ == 0.0 or distortion >= budget - slack
