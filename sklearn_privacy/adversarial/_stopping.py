"""PPAN's stopping rule (a skorch callback): the saddle has settled and the budget is met.

Why and its measurements: "PPAN converges by itself" in ``docs/design.md``.
"""

import numpy as np
from skorch.callbacks import Callback, PrintLog

from sklearn_privacy.adversarial._settings import budget_slack

__all__ = ["SaddleConvergence"]

_MONITORED = ("train_loss", "adversary_loss")


class SaddleConvergence(Callback):
    """Stop training when the mechanism objective and the adversary's bound have settled.

    A series' change is the slope of a line fitted to its last ``2 n_iter_no_change``
    epoch values times ``n_iter_no_change`` (for a linear trend, the difference of the
    two windows' means); ``train_loss`` and ``adversary_loss`` must both change by at
    most ``tol``, and a net's distortion budget must be met.

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
        # after a fresh adversary joined (training="best_response"), two whole windows of
        # the new game: the epochs before it belong to another objective
        if len(history) - net.game_start_ < 2 * w:
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
                # one standard error of the slope, from the scatter around the line (a
                # steady trend is not noise); two stopped slow descents too early
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
            # skorch runs its PrintLog after every other callback, so the epoch that stops
            # training would be missing from the printed table: print it first
            for _, callback in net.callbacks_:
                if isinstance(callback, PrintLog):
                    callback.on_epoch_end(net, **kwargs)
            raise KeyboardInterrupt  # skorch's way to end fit_loop (as EarlyStopping does)

    @staticmethod
    def _meets_budget(net, history, w):
        """Whether the last window's mean distortion meets the net's budget (if any).

        At most half the missed-budget warning's slack above it (the operating point is
        measured on a fresh draw), and the whole slack below it only while the multiplier
        is 0 (a positive one says the budget binds, so a release inside it still moves).
        """
        budget = getattr(net, "max_distortion", None)
        if budget is None:
            return True
        distortion = float(np.mean(history[-w:, "train_distortion"]))
        slack = budget_slack(budget, net.distortion_scale)
        if distortion > budget + 0.5 * slack:  # half: the final evaluation draws afresh
            return False
        return net.multiplier_ == 0.0 or distortion >= budget - slack
