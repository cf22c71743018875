"""PPAN's skorch net assembled from the estimator's parameters and the encoded inputs.

:func:`build_net` picks the mechanism, adversary, utility posterior and
discriminator modules (:mod:`sklearn_privacy.adversarial._modules`) that fit
the release family and the data, and hands their sizes to
:class:`~sklearn_privacy.adversarial._net.PPANNet` as skorch's dunder
parameters. Imported at ``fit`` only (it imports torch).
"""

import numpy as np
import torch
from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler

from sklearn_privacy.adversarial import _modules as M
from sklearn_privacy.adversarial._net import PPANNet
from sklearn_privacy.adversarial._stopping import SaddleConvergence
from sklearn_privacy.utils._distortion import distortion_matrix

__all__ = [
    "build_net",
    "distortion_scale",
    "exact_steps",
    "resolve_activation",
    "resolve_device",
    "training_length",
]

# "auto" settings, by measurement (benchmarks/bench_ppan_symmetric_pair.py): the first
# exponentiated-gradient step of the exact steps (adapted by backtracking), and Adam's
# learning rate of the networks; the epoch limits of both (an exact epoch is one step).
_AUTO_LR = {True: 0.5, False: 1e-3}
_AUTO_MAX_EPOCHS = {True: 2000, False: 100}
# "auto" activation: leaky ReLU for images and wide releases, where a ReLU adversary was
# measured to die (docs/design.md), ReLU otherwise.
_WIDE = 16


def exact_steps(est, inputs):
    """Whether the fit takes exact full-batch steps: finite W and Z, a discrete S, no split."""
    return (
        est.release_ == "categorical"
        and inputs.table
        and inputs.sensitive.discrete
        and est.distortion_measure_ != "mutual_information"
        and est.train_split is None
    )


def training_length(est, exact):
    """``(lr, max_epochs)`` with their ``"auto"`` values resolved."""
    lr = _AUTO_LR[exact] if est.lr == "auto" else est.lr
    max_epochs = _AUTO_MAX_EPOCHS[exact] if est.max_epochs == "auto" else est.max_epochs
    return lr, max_epochs


def resolve_activation(activation, distortion, n_features):
    """The hidden activation of ``activation="auto"``: leaky ReLU for images and wide releases."""
    if activation != "auto":
        return activation
    wide = distortion == "cross_entropy" or n_features > _WIDE
    return "leaky_relu" if wide else "relu"


def distortion_scale(est, inputs):
    """The unit of the budget's excess: 1, or the total variance of X for squared error."""
    if est.distortion_measure_ == "squared" and inputs.total_variance > 0:
        return inputs.total_variance
    return 1.0


def _table_init(est, inputs, matrix):
    """Logits of the table's first mapping: keep W, or with probability ``a`` draw Z uniformly.

    ``a`` makes the expected distortion equal the budget (at least 1e-3, at most 1), so that
    training starts on the boundary of the constraint, away from the saturated identity and
    the uniform mapping; without a budget, ``None`` (near the uniform mapping).
    """
    if est.max_distortion is None:
        return None
    k = len(inputs.records)
    spread = float(inputs.record_probabilities() @ matrix.mean(axis=1))
    a = 1.0 if spread <= 0 else min(1.0, max(est.max_distortion / spread, 1e-3))
    logits = np.log((1.0 - a) * np.eye(k) + a / k)
    return np.tile(logits, (inputs.n_codes // k, 1))


def resolve_device(device):
    """The torch device of ``device`` (``"auto"``: CUDA when available), or a clear error."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"device={device!r} is not a torch device ({exc}). Use 'cpu', 'cuda', "
            "'cuda:N' or 'auto'."
        ) from None
    if kind == "mps" and not torch.backends.mps.is_available():
        raise ValueError(
            f"device={device!r} asks for Apple's MPS, which this torch {torch.__version__} "
            "cannot use here. Use device='cpu' or device='auto'."
        )
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} asks for CUDA, but torch finds no CUDA device "
            f"(torch {torch.__version__}, built with CUDA {torch.version.cuda}). "
            "Use device='cpu' or device='auto'."
        )
    return device


def _mechanism(est, inputs, d, kw, matrix):
    """The mechanism module, its parameters, the release's width, its candidates per row
    and its seed-noise shape."""
    release = est.release_
    if release == "categorical":
        k = len(inputs.records)
        if inputs.table:
            mech_kw = {
                "n_outputs": k,
                "n_codes": inputs.n_codes,
                "init": _table_init(est, inputs, matrix),
            }
            return M.CategoricalMechanism, mech_kw, k, k, ()
        n_in = k + inputs.sensitive.n_features
        return M.CategoricalMechanism, {"n_outputs": k, "n_in": n_in, **kw}, k, k, ()
    n_in = d + (inputs.sensitive.n_features if est.observation == "full" else 0)
    images = est.distortion_measure_ == "cross_entropy"
    scaling = {
        "center": np.r_[inputs.center, np.zeros(n_in - d)],
        "scale": np.r_[inputs.scale, np.ones(n_in - d)],
        "out_center": 0.0 if images else inputs.center,
        "out_scale": 1.0 if images else inputs.scale,
    }
    if release == "universal":
        mech_kw = {"n_in": n_in, "n_out": d, "n_noise": est.n_noise, **kw, **scaling}
        return M.UniversalMechanism, mech_kw, d, 1, (est.n_noise,)
    k = 1 if release == "gaussian" else est.n_components
    mech_kw = {"n_in": n_in, "n_out": d, "n_components": k, **kw, **scaling}
    return M.GaussianMechanism, mech_kw, d, k, (k, d)


def _adversary(est, inputs, d_z, kw):
    """The privacy adversary ``Q(s | z)``: a classifier, or a Gaussian for a continuous S."""
    if not inputs.sensitive.discrete:
        return M.GaussianAdversary, {"n_in": d_z, "n_sensitive": inputs.sensitive.n_features, **kw}
    # a finite release: the minimal matrix softmax(A z) over the one-hot candidates
    finite = est.release_ == "categorical"
    return M.CategoricalAdversary, {
        "n_in": d_z,
        "n_classes": inputs.sensitive.n_features,
        "activation": kw["activation"],
        "hidden": () if finite else kw["hidden"],
        "bias": not finite,
    }


def build_net(est, inputs, n_samples, n_features, device):
    """The ``PPANNet`` of a ``PPANTransformer`` being fitted.

    Parameters
    ----------
    est : PPANTransformer
        Its parameters and its fitted ``release_`` and ``distortion_measure_``.
    inputs : PPANInputs
        The encoded training data.
    n_samples : int
        Training rows.
    n_features : int
        Released columns.
    device : str
        A resolved torch device.

    Returns
    -------
    PPANNet
    """
    exact = exact_steps(est, inputs)
    lr, max_epochs = training_length(est, exact)
    kw = {"hidden": tuple(est.hidden_layer_sizes), "activation": est.activation_}
    matrix = None
    if est.release_ == "categorical":
        kind = "hamming" if est.distortion_measure_ == "hamming" else "sqeuclidean"
        matrix = distortion_matrix(inputs.records, kind=kind)
    mech, mech_kw, d_z, n_candidates, noise_shape = _mechanism(est, inputs, n_features, kw, matrix)
    adv, adv_kw = _adversary(est, inputs, d_z, kw)
    params = {f"module__{key}": v for key, v in mech_kw.items()}
    params.update({f"adversary__{key}": v for key, v in adv_kw.items()})
    utility = discriminator = None
    if est.distortion_measure_ == "mutual_information":
        if inputs.utility_discrete:
            utility, ukw = M.CategoricalAdversary, {"n_in": d_z, "n_classes": inputs.n_utility}
        else:
            utility, ukw = M.GaussianAdversary, {"n_in": d_z, "n_sensitive": inputs.n_utility}
        params.update({f"utility__{key}": v for key, v in {**ukw, **kw}.items()})
        criterion_kw = {"kind": "mutual_information"}
    elif est.release_ == "categorical":
        criterion_kw = {"kind": "table", "matrix": matrix}
    else:
        criterion_kw = {"kind": est.distortion_measure_}
    params.update({f"criterion__{key}": v for key, v in criterion_kw.items()})
    adversary_lr = lr if est.adversary_lr is None else est.adversary_lr
    if est.gamma > 0:
        discriminator = M.Discriminator
        params.update(
            {"discriminator__n_in": n_features, "discriminator__activation": est.activation_}
        )
        params["discriminator_optimizer__lr"] = adversary_lr
    return PPANNet(
        mech,
        adversary=adv,
        utility=utility,
        discriminator=discriminator,
        release=est.release_,
        n_candidates=n_candidates,
        noise_shape=noise_shape,
        lam=est.lam,
        max_distortion=est.max_distortion,
        gamma=est.gamma,
        adversary_steps=est.adversary_steps,
        cross_entropy_release=est.distortion_measure_ == "cross_entropy",
        exact=exact,
        distortion_scale=distortion_scale(est, inputs),
        optimizer=torch.optim.SGD if exact else torch.optim.Adam,
        lr=lr,
        adversary_optimizer__lr=adversary_lr,
        max_epochs=max_epochs,
        train_split=est.train_split,
        callbacks=_callbacks(est, exact),
        **_iterator_params(est, n_samples, exact),
        verbose=est.verbose,
        device=device,
        **params,
    )


def _callbacks(est, exact):
    """The user's callbacks, then the stopping rule (unless ``tol=None``)."""
    callbacks = list(est.callbacks or [])
    if est.tol is not None:
        rule = SaddleConvergence(est.tol, est.n_iter_no_change, noisy=not exact)
        callbacks.append(("saddle_convergence", rule))
    return callbacks


def _iterator_params(est, n, exact):
    """Whole batches drawn at once (``BatchDataset``), unless a split changes the rows.

    Exact steps take every cell in one batch (``n`` counts the cells then).
    """
    batch_size = n if exact else min(est.batch_size, n)
    if est.train_split is not None:
        return {"iterator_train__shuffle": True, "batch_size": batch_size}
    rows = SequentialSampler(range(n)) if exact else RandomSampler(range(n))
    sampler = BatchSampler(rows, batch_size, drop_last=False)
    return {
        "iterator_train__batch_size": None,
        "iterator_train__sampler": sampler,
        "batch_size": batch_size,
    }
