"""PPAN's skorch net assembled from the fit's resolved settings and the encoded inputs.

:func:`build_net` picks the modules that fit the release family (imported at ``fit``: torch).
"""

import numpy as np
import torch
from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler

from sklearn_privacy.adversarial import _modules as M
from sklearn_privacy.adversarial._net import PPANNet
from sklearn_privacy.adversarial._stopping import SaddleConvergence
from sklearn_privacy.utils._distortion import distortion_matrix

__all__ = ["build_net", "resolve_device"]


def _table_init(settings, inputs, matrix):
    """Logits of the table's first mapping: keep W, or with probability ``a`` draw Z uniformly.

    ``a`` makes the expected distortion equal the budget (at least 1e-3, at most 1), so that
    training starts on the boundary of the constraint, away from the saturated identity and
    the uniform mapping; without a budget, ``None`` (near the uniform mapping).
    """
    if settings.max_distortion is None:
        return None
    k = len(inputs.records)
    spread = float(inputs.record_probabilities() @ matrix.mean(axis=1))
    a = 1.0 if spread <= 0 else min(1.0, max(settings.max_distortion / spread, 1e-3))
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


def _mechanism(settings, inputs, kw, matrix):
    """The mechanism module, its parameters, the release's width, its candidates per row
    and its seed-noise shape."""
    release, d = settings.release, settings.n_features
    if release == "categorical":
        k = len(inputs.records)
        if inputs.table:
            mech_kw = {
                "n_outputs": k,
                "n_codes": inputs.n_codes,
                "init": _table_init(settings, inputs, matrix),
            }
            return M.CategoricalMechanism, mech_kw, k, k, ()
        n_in = k + inputs.sensitive.n_features
        return M.CategoricalMechanism, {"n_outputs": k, "n_in": n_in, **kw}, k, k, ()
    n_in = d + (inputs.sensitive.n_features if settings.observation == "full" else 0)
    images = settings.distortion == "cross_entropy"
    scaling = {
        "center": np.r_[inputs.center, np.zeros(n_in - d)],
        "scale": np.r_[inputs.scale, np.ones(n_in - d)],
        "out_center": 0.0 if images else inputs.center,
        "out_scale": 1.0 if images else inputs.scale,
    }
    if release == "universal":
        mech_kw = {"n_in": n_in, "n_out": d, "n_noise": settings.n_noise, **kw, **scaling}
        return M.UniversalMechanism, mech_kw, d, 1, (settings.n_noise,)
    k = 1 if release == "gaussian" else settings.n_components
    mech_kw = {"n_in": n_in, "n_out": d, "n_components": k, **kw, **scaling}
    return M.GaussianMechanism, mech_kw, d, k, (k, d)


def _adversary(settings, inputs, d_z, kw):
    """The privacy adversary ``Q(s | z)``: a classifier, or a Gaussian for a continuous S."""
    if not inputs.sensitive.discrete:
        return M.GaussianAdversary, {"n_in": d_z, "n_sensitive": inputs.sensitive.n_features, **kw}
    # a finite release: the minimal matrix softmax(A z) over the one-hot candidates
    finite = settings.release == "categorical"
    return M.CategoricalAdversary, {
        "n_in": d_z,
        "n_classes": inputs.sensitive.n_features,
        "activation": kw["activation"],
        "hidden": () if finite else kw["hidden"],
        "bias": not finite,
    }


def build_net(settings, inputs, n_samples):
    """The ``PPANNet`` of a ``PPANTransformer`` being fitted.

    Parameters
    ----------
    settings : PPANSettings
        The fit's resolved settings.
    inputs : PPANInputs
        The encoded training data.
    n_samples : int
        Training rows (the distinct cells for exact steps).

    Returns
    -------
    PPANNet
    """
    exact, d = settings.exact, settings.n_features
    kw = {"hidden": settings.hidden, "activation": settings.activation}
    matrix = None
    if settings.release == "categorical":
        kind = "hamming" if settings.distortion == "hamming" else "sqeuclidean"
        matrix = distortion_matrix(inputs.records, kind=kind)
    mech, mech_kw, d_z, n_candidates, noise_shape = _mechanism(settings, inputs, kw, matrix)
    adv, adv_kw = _adversary(settings, inputs, d_z, kw)
    params = {f"module__{key}": v for key, v in mech_kw.items()}
    params.update({f"adversary__{key}": v for key, v in adv_kw.items()})
    utility = discriminator = None
    if settings.distortion == "mutual_information":
        if inputs.utility_discrete:
            utility, ukw = M.CategoricalAdversary, {"n_in": d_z, "n_classes": inputs.n_utility}
        else:
            utility, ukw = M.GaussianAdversary, {"n_in": d_z, "n_sensitive": inputs.n_utility}
        params.update({f"utility__{key}": v for key, v in {**ukw, **kw}.items()})
        criterion_kw = {"kind": "mutual_information"}
    elif settings.release == "categorical":
        criterion_kw = {"kind": "table", "matrix": matrix}
    else:
        criterion_kw = {"kind": settings.distortion}
    params.update({f"criterion__{key}": v for key, v in criterion_kw.items()})
    if settings.gamma > 0:
        discriminator = M.Discriminator
        params.update(
            {
                "discriminator__n_in": d,
                "discriminator__hidden": settings.discriminator_hidden,
                "discriminator__activation": settings.activation,
            }
        )
        params["discriminator_optimizer__lr"] = settings.adversary_lr
    return PPANNet(
        mech,
        adversary=adv,
        utility=utility,
        discriminator=discriminator,
        release=settings.release,
        n_candidates=n_candidates,
        noise_shape=noise_shape,
        lam=settings.lam,
        max_distortion=settings.max_distortion,
        gamma=settings.gamma,
        adversary_steps=settings.adversary_steps,
        cross_entropy_release=settings.distortion == "cross_entropy",
        exact=exact,
        distortion_scale=settings.distortion_scale,
        optimizer=torch.optim.SGD if exact else torch.optim.Adam,
        lr=settings.lr,
        adversary_optimizer__lr=settings.adversary_lr,
        max_epochs=settings.max_epochs,
        train_split=settings.train_split,
        callbacks=_callbacks(settings),
        **_iterator_params(settings, n_samples),
        verbose=settings.verbose,
        device=settings.device,
        **params,
    )


def _callbacks(settings):
    """The user's callbacks, then the stopping rule (unless ``tol=None``)."""
    callbacks = list(settings.callbacks)
    if settings.tol is not None:
        rule = SaddleConvergence(settings.tol, settings.n_iter_no_change, noisy=not settings.exact)
        callbacks.append(("saddle_convergence", rule))
    return callbacks


def _iterator_params(settings, n):
    """Whole batches drawn at once (``BatchDataset``), unless a split changes the rows.

    Exact steps take every cell in one batch (``n`` counts the cells then).
    """
    exact = settings.exact
    batch_size = n if exact else min(settings.batch_size, n)
    if settings.train_split is not None:
        return {"iterator_train__shuffle": True, "batch_size": batch_size}
    rows = SequentialSampler(range(n)) if exact else RandomSampler(range(n))
    sampler = BatchSampler(rows, batch_size, drop_last=False)
    return {
        "iterator_train__batch_size": None,
        "iterator_train__sampler": sampler,
        "batch_size": batch_size,
    }
