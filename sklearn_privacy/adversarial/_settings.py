"""PPAN's parameters resolved once per fit: ``"auto"`` values chosen, the data's facts read.

:class:`PPANSettings` is what ``_build`` and the fit read instead of the estimator itself.
"""

from dataclasses import dataclass

__all__ = ["PPANSettings", "budget_slack"]

# "auto" settings, by measurement (benchmarks/bench_ppan_symmetric_pair.py): the first
# exponentiated-gradient step of the exact steps (adapted by backtracking), and Adam's
# learning rate of the networks; the epoch limits of both (an exact epoch is one step).
_AUTO_LR = {True: 0.5, False: 1e-3}
_AUTO_MAX_EPOCHS = {True: 2000, False: 100}
# Minibatch training is allowed at least this many Adam updates: 100 epochs of a small
# table are a few hundred (breast cancer, 569 rows: 500), and at the defaults its
# standardised columns settled after 1085-1351 epochs of 5 updates
# (benchmarks/bench_ppan_small_table.py).
_AUTO_MIN_UPDATES = 10000
# "auto" activation: leaky ReLU for images and wide releases, where a ReLU adversary was
# measured to die (docs/design.md), ReLU otherwise.
_WIDE = 16


@dataclass(frozen=True)
class PPANSettings:
    """The settings of one PPAN fit, every ``"auto"`` resolved.

    Parameters
    ----------
    release : str
        The release family (``release_``).
    distortion : str
        The distortion measure (``distortion_measure_``).
    observation : str
        ``"released"`` or ``"full"``.
    activation : str
        The hidden activation (``activation_``).
    hidden : tuple of int
        Hidden layer sizes.
    n_noise, n_components : int
        Seed-noise length (universal) and mixture components.
    n_features : int
        Released columns.
    exact : bool
        Whether each epoch is one exact full-batch step: a finite observation and
        release, a discrete S, a distortion other than mutual information, no split.
    distortion_scale : float
        The unit of the budget's excess: the total variance of the released
        columns for squared error (when positive), else 1.
    lam, max_distortion, gamma, adversary_steps
        As the estimator's parameters.
    discriminator_hidden : tuple of int
        The discriminator's hidden layer sizes (``gamma > 0``).
    lr, adversary_lr : float
        The mechanism's and the adversary's (and discriminator's) learning rates.
    max_epochs : int
        Most epochs.
    tol, n_iter_no_change, batch_size, callbacks, train_split, verbose
        As the estimator's parameters (``callbacks`` a tuple).
    device : str
        The resolved torch device.
    """

    release: str
    distortion: str
    observation: str
    activation: str
    hidden: tuple
    n_noise: int
    n_components: int
    n_features: int
    exact: bool
    distortion_scale: float
    lam: float
    max_distortion: object
    gamma: float
    discriminator_hidden: tuple
    adversary_steps: int
    lr: float
    adversary_lr: float
    max_epochs: int
    tol: object
    n_iter_no_change: int
    batch_size: int
    callbacks: tuple
    train_split: object
    verbose: int
    device: str

    @classmethod
    def resolve(cls, est, inputs, *, release, distortion, n_features, device):
        """The settings of ``est`` (a ``PPANTransformer``) for a fit on ``inputs``.

        Parameters
        ----------
        est : PPANTransformer
            Its constructor parameters (read here only).
        inputs : PPANInputs
            The encoded training data.
        release, distortion : str
            The chosen release family and distortion measure.
        n_features : int
            Released columns.
        device : str
            The resolved torch device.

        Returns
        -------
        PPANSettings
        """
        exact = (
            release == "categorical"
            and inputs.table
            and inputs.sensitive.discrete
            and distortion != "mutual_information"
            and est.train_split is None
        )
        scale = 1.0
        if distortion == "squared" and inputs.total_variance > 0:
            scale = inputs.total_variance
        lr = _AUTO_LR[exact] if est.lr == "auto" else est.lr
        return cls(
            release=release,
            distortion=distortion,
            observation=est.observation,
            activation=resolve_activation(est.activation, distortion, n_features),
            hidden=tuple(est.hidden_layer_sizes),
            n_noise=est.n_noise,
            n_components=est.n_components,
            n_features=n_features,
            exact=bool(exact),
            distortion_scale=scale,
            lam=est.lam,
            max_distortion=est.max_distortion,
            gamma=est.gamma,
            discriminator_hidden=tuple(est.discriminator_hidden_layer_sizes),
            adversary_steps=est.adversary_steps,
            lr=lr,
            adversary_lr=lr if est.adversary_lr is None else est.adversary_lr,
            max_epochs=(
                auto_max_epochs(exact, inputs.n_samples, est.batch_size)
                if est.max_epochs == "auto"
                else est.max_epochs
            ),
            tol=est.tol,
            n_iter_no_change=est.n_iter_no_change,
            batch_size=est.batch_size,
            callbacks=tuple(est.callbacks or ()),
            train_split=est.train_split,
            verbose=est.verbose,
            device=device,
        )


def budget_slack(budget, scale):
    """How far above ``budget`` a distortion still meets it: 2 % plus 0.005 of the
    distortion's ``scale`` (the missed-budget warning, the stopping rule, the rounds' choice)."""
    return 0.02 * budget + 0.005 * scale


def resolve_activation(activation, distortion, n_features):
    """The hidden activation of ``activation="auto"``: leaky ReLU for images and wide releases."""
    if activation != "auto":
        return activation
    wide = distortion == "cross_entropy" or n_features > _WIDE
    return "leaky_relu" if wide else "relu"


def auto_max_epochs(exact, n_samples, batch_size):
    """``max_epochs="auto"``: 2000 exact steps, or 100 epochs and at least 10000 updates."""
    if exact:
        return _AUTO_MAX_EPOCHS[True]
    updates_per_epoch = -(-n_samples // min(batch_size, n_samples))
    return max(_AUTO_MAX_EPOCHS[False], -(-_AUTO_MIN_UPDATES // updates_per_epoch))
