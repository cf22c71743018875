"""PPANTransformer: privacy-preserving adversarial networks (ppan-tripathy2017)."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from sklearn_privacy._base import BaseMechanism, sensitive_positions
from sklearn_privacy.exceptions import user_stacklevel
from sklearn_privacy.information import (
    entropy,
    gaussian_entropy,
    gaussian_mutual_information,
    mutual_information,
)
from sklearn_privacy.utils import TradeoffKnob, encode_sensitive, is_continuous
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions

__all__ = ["PPANTransformer"]

_RELEASES = {"auto", "categorical", "gaussian", "mixture", "universal"}
_DISTORTIONS = {"auto", "hamming", "squared", "cross_entropy", "mutual_information"}


def _numeric_column(column):
    """Whether every value of an object column is a real number (not a label)."""
    try:
        np.asarray(column, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def pd_frame_like(frame, values):
    """``values`` as a DataFrame with ``frame``'s columns and index (numbers where they are)."""
    import pandas as pd

    out = pd.DataFrame(values, columns=frame.columns, index=frame.index)
    for column in out.columns:
        try:
            out[column] = pd.to_numeric(out[column])
        except (TypeError, ValueError):
            pass
    return out


# Largest input the float32 networks take: its square (a distortion) stays finite.
_FLOAT32_SAFE = 1e18


def _resolve_device(device):
    import torch

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


class PPANTransformer(BaseMechanism):
    """Privacy-preserving adversarial network: a release mechanism trained against an adversary.

    A randomised mechanism ``P(Z | W)`` (a torch network) is trained against an
    adversary ``Q(S | Z)`` that tries to infer the sensitive attribute S from
    the release: the mechanism minimises ``E log Q(S|Z) + lam E d(X, Z)``
    while the adversary maximises ``E log Q(S|Z)`` (ppan-tripathy2017, eq. 3-5),
    so that ``H(S) + E log Q(S|Z)``, a variational lower bound on ``I(S; Z)``
    (eq. 2), falls at the price of the distortion. With ``max_distortion`` the
    distortion term is the penalty ``lam * max(0, E d - max_distortion)^2``,
    which targets a budget. The networks live in a skorch ``NeuralNet``
    (``net_``) whose ``train_step`` alternates ``adversary_steps`` adversary
    updates and one mechanism update, each with its own optimizer.

    Parameters
    ----------
    lam : float, default=10.0
        Weight of the distortion. Without ``max_distortion`` it is the
        trade-off knob: a larger ``lam`` keeps the release closer to ``X``
        and leaks more. With ``max_distortion`` it is the penalty weight
        (large, e.g. 500, to hold the budget).
    max_distortion : float or None, default=None
        Distortion budget ``delta``; when set it is the trade-off knob (a
        larger budget hides more).
    release : {"auto", "categorical", "gaussian", "mixture", "universal"}, default="auto"
        Family of the release (sec. 2.3):

        - ``"categorical"``: a finite alphabet, the distinct training rows of
          the released columns; losses use the exact expectation over Z (eq. 6)
          and, when the observation is finite too, the mechanism is the minimal
          softmax matrix ``softmax(G w)`` (and the adversary ``softmax(A z)``
          for a discrete S);
        - ``"gaussian"``: ``N(mu(w), diag(sigma^2(w)))`` by reparameterisation;
        - ``"mixture"``: a mixture of ``n_components`` Gaussians, the exact
          expectation over the component;
        - ``"universal"``: ``z = f(w, u)`` with seed noise ``u ~ U[-1, 1]^n_noise``;
        - ``"auto"``: ``"categorical"`` for discrete columns (integer values,
          at most ``max_categories`` distinct rows) with Hamming or automatic
          distortion, else ``"universal"``.
    distortion : {"auto", "hamming", "squared", "cross_entropy", \
"mutual_information"}, default="auto"
        ``d(x, z)``: ``"hamming"`` (fraction of differing columns, categorical
        release), ``"squared"`` (``||x - z||^2``), ``"cross_entropy"``
        (per-pixel binary cross-entropy, averaged over pixels; ``X`` in [0, 1],
        the release in (0, 1), sec. 3.3), ``"mutual_information"`` (the
        utility ``I(y; Z)`` of the ``y`` given to ``fit``, through a second
        posterior ``Q(y | Z)``: ``d = -log Q(y | z)``, sec. 5.1); ``"auto"``:
        Hamming for a categorical release, squared error otherwise.
    observation : {"released", "full"}, default="released"
        What the mechanism sees: the released columns only, or S too
        (``W = (S, X)``); ``"full"`` needs S as columns of ``X``.
    hidden_layer_sizes : tuple of int, default=(32, 32)
        Hidden layers of the mechanism, adversary and utility posterior
        (unused by the minimal matrices of the finite case).
    activation : {"relu", "leaky_relu", "tanh"}, default="relu"
        Hidden activation of every network. ``"leaky_relu"`` (slope 0.2) keeps
        a gradient through every unit: with ``"relu"`` the mechanism can switch
        off every hidden unit of the adversary (a constant ``Q``, which it is
        pulled to) and the dead adversary never recovers; ``fit`` warns when it
        finds that (``ConvergenceWarning``). Image and high-dimensional
        releases need ``"leaky_relu"``.
    n_noise : int, default=8
        Length of the seed noise of ``release="universal"``.
    n_components : int, default=3
        Components of ``release="mixture"``.
    gamma : float, default=0.0
        Weight of a realism discriminator that tells releases from real rows
        (eq. 10); 0 trains none. Continuous releases only.
    adversary_steps : int, default=1
        Adversary updates before each mechanism update (k).
    max_epochs : int, default=100
    batch_size : int, default=128
        Capped at the number of rows.
    lr : float, default=1e-3
        Adam's learning rate of the mechanism.
    adversary_lr : float or None, default=None
        Adam's learning rate of the adversary and discriminator (``lr`` by default).
    callbacks : list or None, default=None
        skorch callbacks (``EarlyStopping``, ``Checkpoint``, ``LRScheduler``
        on the mechanism's optimizer ...); the history holds ``train_loss``
        (the mechanism objective), ``train_log_q``, ``train_distortion`` and
        ``adversary_loss``.
    train_split : callable or None, default=None
        skorch's split for a validation set (``skorch.dataset.ValidSplit``);
        ``None`` trains on every row.
    device : str, default="cpu"
        ``"cpu"``, ``"cuda"`` (an error when torch finds no CUDA device) or
        ``"auto"`` (CUDA when available).
    max_categories : int, default=1000
        Largest release alphabet (distinct training rows) of ``release="categorical"``.
    verbose : int, default=0
        Handed to the net: 1 prints skorch's epoch table.
    sensitive : int, str, array-like or None, default=None
        Columns of ``X`` holding S; ``None`` to pass S as ``fit(..., sensitive=S)``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds training (torch, inside ``torch.random.fork_rng``: the global
        torch state is left as it was) and, through an independent stream,
        the release noise; each ``transform`` draws fresh noise.

    Attributes
    ----------
    net_ : skorch.NeuralNet
        The trained net: ``module_`` (mechanism), ``adversary_``, and
        ``utility_`` / ``discriminator_`` when used.
    history_ : skorch.History
        The net's history.
    n_iter_ : int
        Epochs trained.
    leakage_ : float
        ``I(S; Z)`` on the fit data, nats. Finite release and discrete S: exact
        for the empirical distribution and the learned ``P(Z | W)``;
        a continuous release: the larger of the adversary's variational bound
        ``H(S) + E log Q(S|Z)`` (``h(S)`` of the Gaussian with S's covariance
        for a continuous S) and ``fresh_leakage_``, at least 0; a finite
        release with a continuous S: the bound, clipped at 0.
    adversary_leakage_ : float
        The adversary's variational bound ``H(S) + E log Q(S|Z)`` on the fit
        data, nats (may be negative when the adversary is poor).
    fresh_leakage_ : float
        For a continuous release: a fresh estimate of ``I(S; Z)`` from the fit
        rows' release (:func:`~sklearn_privacy.metrics.leakage_score`, kNN for
        a discrete S, Gaussian for a continuous one), independent of the
        co-trained adversary; ``leakage_`` is the larger of the two, and a
        bound far below this warns. Absent for a finite release.
    disclosure_ : float
        ``I(X; Z)`` on the fit data, nats: exact for a finite release and
        observation, else the Gaussian estimate from the covariance of (X, Z).
    distortion_ : float
        ``E d(X, Z)`` on the fit data (``H(y | Z)``'s variational bound
        ``-E log Q(y|Z)`` for the mutual-information utility).
    distortion_measure_ : str
        ``"hamming"``, ``"squared"``, ``"cross_entropy"`` or ``"mutual_information"``.
    release_ : str
        The release family used.
    mapping_ : ndarray of shape (n_inputs, n_outputs) or (n_s, n_inputs, n_outputs)
        ``P(Z=z | X=x)`` (or ``P(Z | S, X)``) when the observation and the
        release are finite; ``None`` otherwise.
    label_categories_ : dict
        For each released column of labels (strings, categories), its
        categories: the networks read their codes and the release decodes
        them. Empty when every released column holds numbers.
    input_records_, output_records_ : ndarray or None
        The finite alphabets of X and Z (rows of ``mapping_``), or ``None``.
    sensitive_records_ : ndarray or None
        The values of a discrete S (classes of the adversary), or ``None``.
    n_features_in_ : int
        Number of columns of ``X`` at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of ``X``, when it has string names.

    See Also
    --------
    sklearn_privacy.discrete.ConvexPrivacyMapping : the estimate-then-optimise mapping.
    sklearn_privacy.theory.symmetric_pair_full_data : the optimum of sec. 3.1.

    Notes
    -----
    For any ``Q``, :math:`I(S; Z) = H(S) + \\mathrm{KL}(P_{S|Z} \\| Q_{S|Z}) +
    E[\\log Q(S|Z)]` (eq. 2), so that the adversary's best response turns the
    minimax problem

    .. math::

        \\min_{P_{Z|W}} \\max_{Q_{S|Z}} E[\\log Q(S|Z)] + \\lambda E[d(X, Z)]

    into the privacy-utility problem (eq. 1, 3). The finite case uses
    :math:`\\sum_z P(z|w) (\\log Q(s|z) + \\lambda d(x, z))` (eq. 6).
    ``leakage_`` is measured on the fit data; on new data use the scorers of
    :mod:`sklearn_privacy.metrics`. torch and skorch are imported at ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy import PPANTransformer
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> x = np.where(rng.random(400) < 0.9, s, 1 - s)
    >>> mech = PPANTransformer(lam=0.5, max_epochs=50, batch_size=400, lr=0.05,
    ...                        sensitive=[0], random_state=0)
    >>> Xt = mech.fit_transform(np.c_[s, x])
    >>> Xt.shape, mech.release_
    ((400, 1), 'categorical')
    >>> bool(mech.leakage_ < 0.1)
    True
    """

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="neither")],
        "max_distortion": [None, Interval(Real, 0, None, closed="left")],
        "release": [StrOptions(_RELEASES)],
        "distortion": [StrOptions(_DISTORTIONS)],
        "observation": [StrOptions({"released", "full"})],
        "hidden_layer_sizes": [tuple, list],
        "activation": [StrOptions({"relu", "leaky_relu", "tanh"})],
        "n_noise": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "adversary_steps": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "adversary_lr": [None, Interval(Real, 0, None, closed="neither")],
        "callbacks": [None, list],
        "train_split": [None, callable],
        "device": [str],
        "max_categories": [Interval(Integral, 2, None, closed="left")],
    }

    _requires_sensitive = True

    def __init__(
        self,
        lam=10.0,
        *,
        max_distortion=None,
        release="auto",
        distortion="auto",
        observation="released",
        hidden_layer_sizes=(32, 32),
        activation="relu",
        n_noise=8,
        n_components=3,
        gamma=0.0,
        adversary_steps=1,
        max_epochs=100,
        batch_size=128,
        lr=1e-3,
        adversary_lr=None,
        callbacks=None,
        train_split=None,
        device="cpu",
        max_categories=1000,
        verbose=0,
        sensitive=None,
        random_state=None,
    ):
        self.lam = lam
        self.max_distortion = max_distortion
        self.release = release
        self.distortion = distortion
        self.observation = observation
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.n_noise = n_noise
        self.n_components = n_components
        self.gamma = gamma
        self.adversary_steps = adversary_steps
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.adversary_lr = adversary_lr
        self.callbacks = callbacks
        self.train_split = train_split
        self.device = device
        self.max_categories = max_categories
        self.verbose = verbose
        self.sensitive = sensitive
        self.random_state = random_state

    def fit(self, X, y=None, *, sensitive=None, sample_weight=None):
        """Train the mechanism against the adversary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Observed data; the columns named by ``sensitive`` hold S.
        y : array-like of shape (n_samples,), default=None
            Passed through, except by ``distortion="mutual_information"``,
            whose utility is ``I(y; Z)``.
        sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
            S as metadata, when it is not a column of ``X``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (rows of weight 0 are left out). Every
            loss term of a row (mechanism, adversary, discriminator, utility
            posterior) is multiplied by its weight and each minibatch's loss
            is divided by the batch's weight sum; ``leakage_``,
            ``disclosure_``, ``distortion_`` and ``H(S)`` use the weighted
            empirical distribution, so that integer weights give the exact
            ``leakage_`` formula of the repeated rows. Rows are still drawn
            uniformly into minibatches, so a weighted fit is not the fit of
            the repeated rows draw for draw; constant weights are the
            unweighted fit.

        Returns
        -------
        self : PPANTransformer
        """
        return super().fit(X, y, sensitive=sensitive, sample_weight=sample_weight)

    def get_tradeoff_knob(self):
        """``lam`` (larger leaks more), or ``max_distortion`` when it is set (smaller leaks more).

        Returns
        -------
        TradeoffKnob
        """
        if self.max_distortion is None:
            return TradeoffKnob("lam", "larger", low=0.1, high=100.0, log=True)
        return TradeoffKnob("max_distortion", "smaller", low=0.0, high=1.0)

    # ------------------------------------------------------------- the hooks
    def _fit_mechanism(self, X, S, y, sample_weight=None):
        import torch

        from sklearn_privacy.adversarial._net import BatchDataset

        device = _resolve_device(self.device)
        X = np.asarray(X, dtype=np.float64)
        if sample_weight is not None and np.ptp(sample_weight) == 0:
            # Constant weights cancel in every batch-normalised loss and in the plug-in
            # estimates: the unweighted fit, draw for draw.
            sample_weight = None
        self._sample_weight = None if sample_weight is None else np.asarray(sample_weight, float)
        self._s_discrete = not is_continuous(S)
        self._prepare_sensitive(S)
        self._choose_release(X, y)
        self._check_images(X)
        self._prepare_observation(X)
        data = self._training_data(X, S, y)
        if self._sample_weight is not None:
            data["sw"] = self._sample_weight.astype(np.float32)
        net = self._build_net(X, device)
        seed = int(self._fit_rng.integers(2**63))
        devices = [torch.device(device)] if str(device).startswith("cuda") else []
        threads = torch.get_num_threads()
        # Seed torch for this fit only: the caller's global torch state is left as it was.
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed)
            if device == "cpu" and X.shape[1] < 256:
                # Small networks: a second thread only adds synchronisation (5x slower
                # measured on 2 loaded cores).
                torch.set_num_threads(1)
            try:
                net.fit(BatchDataset(data), None)
            finally:
                torch.set_num_threads(threads)
        self.net_ = net
        self.history_ = net.history
        self.n_iter_ = len(net.history)
        self._operating_point(X, data)

    def _release(self, X, S, rng):
        import torch

        net = self.net_
        X = np.asarray(X, dtype=np.float64)
        self._check_images(X)
        w = self._mechanism_input(X, S)
        device = net.device
        with torch.no_grad():
            net.module_.eval()
            if self.release_ == "categorical":
                _, probs = net.module_(torch.as_tensor(w, device=device), None)
                probs = probs.cpu().numpy().astype(np.float64)
                return self._map_label_columns(
                    self.output_records_[self._sample(probs, rng)].copy(), decode=True
                )
            noise = self._numpy_noise(X.shape[0], rng)
            z, weights = net.module_(
                torch.as_tensor(w, device=device), torch.as_tensor(noise, device=device)
            )
            if self.distortion_measure_ == "cross_entropy":
                z = torch.sigmoid(z)
            z, weights = z.cpu().numpy().astype(np.float64), weights.cpu().numpy()
        k = self._sample(weights.astype(np.float64), rng) if z.shape[1] > 1 else 0
        return z[np.arange(z.shape[0]), k]

    def _observes_sensitive(self):
        return self.observation == "full"

    # ------------------------------------------------------- string categories
    def _validate_X(self, X, *, reset):
        """Columns of labels (strings, categories) become codes of their sorted values.

        The networks read numbers: a column whose values are not numbers is
        coded at fit (its categories kept in ``label_categories_``) and decoded
        in the release, which is then categorical; a value unseen at fit is an
        error naming the column. S columns are left to the base.
        """
        frame = X if hasattr(X, "iloc") and hasattr(X, "dtypes") else None
        if reset:
            self._label_positions = {}
            self.label_categories_ = {}
            # only columns that are not numbers already can hold labels (dates, durations
            # and complex numbers are refused by the base, naming the column)
            if frame is not None:
                kinds = [getattr(dtype, "kind", "O") for dtype in frame.dtypes]
            else:
                arr = np.asarray(X)
                kinds = [arr.dtype.kind] * (arr.shape[1] if arr.ndim == 2 else 0)
            candidates = [j for j, kind in enumerate(kinds) if kind not in "biufcmM"]
            if not candidates:
                return super()._validate_X(X, reset=reset)
        elif not getattr(self, "_label_positions", None):
            return super()._validate_X(X, reset=reset)
        values = np.asarray(X if frame is None else X.to_numpy(dtype=object), dtype=object)
        if values.ndim != 2:
            return super()._validate_X(X, reset=reset)
        if reset:
            names = None if frame is None else [str(c) for c in frame.columns]
            s_cols = set(sensitive_positions(self.sensitive, names, values.shape[1]))
            for j in candidates:
                if j not in s_cols and not _numeric_column(values[:, j]):
                    self._label_positions[j] = np.array(
                        sorted(set(values[:, j].tolist()), key=str), dtype=object
                    )
            if not self._label_positions:
                return super()._validate_X(X, reset=reset)
            names = list(frame.columns) if frame is not None else None
            self.label_categories_ = {
                (names[j] if names else j): categories
                for j, categories in self._label_positions.items()
            }
        coded = values.copy()
        for j, categories in self._label_positions.items():
            lookup = {v: i for i, v in enumerate(categories.tolist())}
            codes = np.array([lookup.get(v, -1) for v in values[:, j].tolist()], dtype=float)
            if np.any(codes < 0):
                bad = values[int(np.flatnonzero(codes < 0)[0]), j]
                name = frame.columns[j] if frame is not None else j
                raise ValueError(
                    f"column {name!r} of X holds {bad!r}, a category not seen at fit: the "
                    "mechanism has no row for it."
                )
            coded[:, j] = codes
        if frame is not None:
            coded = pd_frame_like(frame, coded)
        return super()._validate_X(coded, reset=reset)

    def _map_label_columns(self, release, decode):
        """The label columns of a release decoded (codes to categories) or encoded back.

        The release as given when every released column holds numbers;
        ``decode=False`` (for the distortion) returns floats, codes of -1 for
        values that are not categories.
        """
        positions = getattr(self, "_label_positions", {})
        if not positions:
            return release
        out = np.asarray(release, dtype=object).copy()
        released = list(self.release_columns_)
        for j, categories in positions.items():
            p = released.index(j)
            if decode:
                out[:, p] = categories[np.asarray(out[:, p], dtype=float).astype(np.int64)]
            else:
                lookup = {v: i for i, v in enumerate(categories.tolist())}
                out[:, p] = [lookup.get(v, -1) for v in out[:, p].tolist()]
        return out if decode else out.astype(float)

    def _release_distribution(self, X, S):
        """``P(Z = z | row)`` of a categorical release (exact leakage); None otherwise."""
        if self.release_ != "categorical":
            return None
        import torch

        w = self._mechanism_input(np.asarray(X, dtype=np.float64), S)
        with torch.no_grad():
            self.net_.module_.eval()
            _, probs = self.net_.module_(torch.as_tensor(w, device=self.net_.device), None)
        probs = probs.cpu().double().numpy()
        # float32 probabilities sum to 1 only to about 1e-7: renormalise in float64
        return probs / probs.sum(axis=1, keepdims=True)

    def _distortion(self, X, Xt):
        X = np.asarray(X, dtype=np.float64)
        Xt = np.asarray(self._map_label_columns(Xt, decode=False), dtype=np.float64)
        kind = self.distortion_measure_
        if kind == "hamming":
            return float(np.mean(np.mean(X != Xt, axis=1)))
        if kind == "cross_entropy":
            Z = np.clip(Xt, 1e-7, 1 - 1e-7)
            return float(np.mean(-(X * np.log(Z) + (1 - X) * np.log1p(-Z))))
        if kind == "mutual_information":
            raise ValueError(
                "distortion='mutual_information' measures H(y | Z) through the fitted "
                "posterior (distortion_); it defines no distortion between X and its release."
            )
        return super()._distortion(X, Xt)

    # ---------------------------------------------------------------- helpers
    def _prepare_sensitive(self, S):
        if self._s_discrete:
            codes, symbols = encode_sensitive(S)
            self.sensitive_records_ = np.asarray(symbols)
            self._s_codes = codes.astype(np.int64)
            self._s_lookup = {tuple(np.atleast_1d(r).tolist()): i for i, r in enumerate(symbols)}
            counts = np.bincount(codes, weights=self._sample_weight)
            self._h_s = entropy(counts / counts.sum())
        else:
            S = np.asarray(S, dtype=np.float64)
            self.sensitive_records_ = None
            self._s_center = S.mean(axis=0)
            self._s_scale = np.where(S.std(axis=0) > 0, S.std(axis=0), 1.0)
            std = (S - self._s_center) / self._s_scale
            cov = np.cov(std, rowvar=False, aweights=self._sample_weight)
            self._h_s = gaussian_entropy(np.atleast_2d(cov))

    def _choose_release(self, X, y):
        distortion, release = self.distortion, self.release
        n_records = np.unique(X, axis=0).shape[0]
        finite = not is_continuous(X) and n_records <= self.max_categories
        if release == "auto":
            release = "categorical" if finite and distortion in ("auto", "hamming") else "universal"
        if distortion == "auto":
            distortion = "hamming" if release == "categorical" else "squared"
        if release == "categorical" and not finite:
            raise ValueError(
                f"release='categorical' needs discrete released columns with at most "
                f"max_categories={self.max_categories} distinct rows; X has {n_records} "
                "distinct rows" + (" with non-integer values." if is_continuous(X) else ".")
            )
        if distortion == "hamming" and release != "categorical":
            raise ValueError(
                f"distortion='hamming' needs release='categorical' (got release={release!r})."
            )
        if distortion == "cross_entropy" and release == "categorical":
            raise ValueError(
                "distortion='cross_entropy' needs a continuous release, not release='categorical'."
            )
        if distortion == "mutual_information" and y is None:
            raise ValueError(
                "distortion='mutual_information' measures the utility I(y; Z): pass y to fit."
            )
        if self.gamma > 0 and release == "categorical":
            raise ValueError(
                "gamma > 0 trains a discriminator on continuous releases; "
                "release='categorical' has none."
            )
        self.release_ = release
        self.distortion_measure_ = distortion

    def _check_images(self, X):
        """Refuse values the networks cannot represent; pixels for cross-entropy."""
        largest = float(np.abs(X).max()) if X.size else 0.0
        if largest > _FLOAT32_SAFE:
            raise ValueError(
                f"X holds values of size {largest:.3g}; the networks compute in float32 "
                f"(standardised rows, squared distortions), which holds nothing beyond "
                f"{_FLOAT32_SAFE:.0e} safely: rescale X by a public constant, or clip it."
            )
        if self.distortion_measure_ == "cross_entropy" and (X.min() < 0 or X.max() > 1):
            raise ValueError(
                "distortion='cross_entropy' treats every column as a pixel in [0, 1]; X "
                f"ranges over [{X.min():.4g}, {X.max():.4g}]. Scale the images to [0, 1] "
                "(e.g. divide by 255 or 16)."
            )

    def _prepare_observation(self, X):
        if self.release_ == "categorical":
            records, codes = np.unique(X, axis=0, return_inverse=True)
            self.input_records_ = self.output_records_ = records
            self._x_lookup = {tuple(r.tolist()): i for i, r in enumerate(records)}
            self._x_codes = codes.ravel().astype(np.int64)
            self._table = self.observation == "released" or self._s_discrete
        else:
            self.input_records_ = self.output_records_ = None
            self._table = False
            self._x_center = X.mean(axis=0)
            self._x_scale = np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)

    def _codes(self, values, lookup, name):
        keys = [tuple(r) for r in np.atleast_2d(values).tolist()]
        codes = np.array([lookup.get(k, -1) for k in keys], dtype=np.int64)
        if np.any(codes < 0):
            bad = keys[int(np.flatnonzero(codes < 0)[0])]
            raise ValueError(
                f"{name} holds a value not seen at fit, {bad!r}: the finite mechanism has "
                "no row for it."
            )
        return codes

    def _sensitive_features(self, S):
        """S as the mechanism's input for ``observation="full"``: one-hot or standardised."""
        if self._s_discrete:
            codes = self._codes(np.asarray(S, dtype=object), self._s_lookup, "sensitive")
            return np.eye(len(self._s_lookup))[codes]
        return (np.asarray(S, dtype=np.float64) - self._s_center) / self._s_scale

    def _mechanism_input(self, X, S):
        """What the mechanism observes: a code of a finite W, or floats."""
        full = self.observation == "full"
        if full and S is None:
            raise ValueError(
                "observation='full': the mechanism reads S; give X with its sensitive columns."
            )
        if self.release_ == "categorical":
            x_codes = self._codes(X, self._x_lookup, "X")
            if not full:
                return x_codes
            if self._table:
                s_codes = self._codes(np.asarray(S, dtype=object), self._s_lookup, "sensitive")
                return s_codes * len(self._x_lookup) + x_codes
            onehot = np.eye(len(self._x_lookup))[x_codes]
            return np.hstack([onehot, self._sensitive_features(S)]).astype(np.float32)
        w = X if not full else np.hstack([X, self._sensitive_features(S)])
        return w.astype(np.float32)

    def _training_data(self, X, S, y):
        data = {"w": self._mechanism_input(X, S)}
        if self._s_discrete:
            data["s"] = self._s_codes
        else:
            data["s"] = ((np.asarray(S, float) - self._s_center) / self._s_scale).astype(np.float32)
        if self.distortion_measure_ == "mutual_information":
            y = np.asarray(y)
            self._y_discrete = not is_continuous(y)
            if self._y_discrete:
                codes, symbols = encode_sensitive(y, name="y")
                self._n_y = len(symbols)
                data["t"] = codes.astype(np.int64)
            else:
                y2 = np.asarray(y, dtype=np.float64).reshape(X.shape[0], -1)
                y2 = (y2 - y2.mean(axis=0)) / np.where(y2.std(axis=0) > 0, y2.std(axis=0), 1)
                self._n_y = y2.shape[1]
                data["t"] = y2.astype(np.float32)
        elif self.release_ == "categorical":
            data["code"] = self._x_codes
        else:
            data["t"] = X.astype(np.float32)
        return data

    def _distortion_table(self):
        records = self.input_records_
        diff = records[:, None, :] - records[None, :, :]
        if self.distortion_measure_ == "hamming":
            return np.mean(diff != 0, axis=2)
        return np.sum(diff**2, axis=2)

    def _build_net(self, X, device):
        from sklearn_privacy.adversarial import _modules as M
        from sklearn_privacy.adversarial._net import PPANNet

        hidden = tuple(self.hidden_layer_sizes)
        d = X.shape[1]
        kw = {"hidden": hidden, "activation": self.activation}
        release = self.release_
        if release == "categorical":
            k = len(self.input_records_)
            if self._table:
                n_codes = k * (len(self._s_lookup) if self.observation == "full" else 1)
                mech, mech_kw = M.CategoricalMechanism, {"n_outputs": k, "n_codes": n_codes}
            else:
                n_in = k + self._sensitive_dim()
                mech, mech_kw = M.CategoricalMechanism, {"n_outputs": k, "n_in": n_in, **kw}
            d_z, noise_shape = k, ()
        else:
            n_in = d + (self._sensitive_dim() if self.observation == "full" else 0)
            w_center = np.r_[self._x_center, np.zeros(n_in - d)]
            w_scale = np.r_[self._x_scale, np.ones(n_in - d)]
            images = self.distortion_measure_ == "cross_entropy"
            scaling = {
                "center": w_center,
                "scale": w_scale,
                "out_center": 0.0 if images else self._x_center,
                "out_scale": 1.0 if images else self._x_scale,
            }
            if release == "universal":
                mech = M.UniversalMechanism
                mech_kw = {"n_in": n_in, "n_out": d, "n_noise": self.n_noise, **kw, **scaling}
                noise_shape, k = (self.n_noise,), 1
            else:
                k = 1 if release == "gaussian" else self.n_components
                mech = M.GaussianMechanism
                mech_kw = {"n_in": n_in, "n_out": d, "n_components": k, **kw, **scaling}
                noise_shape = (k, d)
            d_z = d
        finite_adversary = release == "categorical" and self._s_discrete
        if self._s_discrete:
            adv = M.CategoricalAdversary
            adv_kw = {
                "n_in": d_z,
                "n_classes": len(self._s_lookup),
                "activation": self.activation,
                "hidden": () if finite_adversary else hidden,
                "bias": not finite_adversary,
            }
        else:
            adv = M.GaussianAdversary
            adv_kw = {"n_in": d_z, "n_sensitive": len(self._s_center), **kw}
        params = {f"module__{key}": v for key, v in mech_kw.items()}
        params.update({f"adversary__{key}": v for key, v in adv_kw.items()})
        utility = discriminator = None
        if self.distortion_measure_ == "mutual_information":
            if self._y_discrete:
                utility = M.CategoricalAdversary
                ukw = {"n_in": d_z, "n_classes": self._n_y, **kw}
            else:
                utility = M.GaussianAdversary
                ukw = {"n_in": d_z, "n_sensitive": self._n_y, **kw}
            params.update({f"utility__{key}": v for key, v in ukw.items()})
            criterion_kw = {"kind": "mutual_information"}
        elif release == "categorical":
            criterion_kw = {"kind": "table", "matrix": self._distortion_table()}
        else:
            criterion_kw = {"kind": self.distortion_measure_}
        params.update({f"criterion__{key}": v for key, v in criterion_kw.items()})
        adversary_lr = self.lr if self.adversary_lr is None else self.adversary_lr
        if self.gamma > 0:
            discriminator = M.Discriminator
            params.update({"discriminator__n_in": d, "discriminator__activation": self.activation})
            params["discriminator_optimizer__lr"] = adversary_lr
        n = len(self._s_codes) if self._s_discrete else None
        n = X.shape[0] if n is None else n
        return PPANNet(
            mech,
            adversary=adv,
            utility=utility,
            discriminator=discriminator,
            release=release,
            n_candidates=d_z if release == "categorical" else k,
            noise_shape=noise_shape,
            lam=self.lam,
            max_distortion=self.max_distortion,
            gamma=self.gamma,
            adversary_steps=self.adversary_steps,
            cross_entropy_release=self.distortion_measure_ == "cross_entropy",
            optimizer=__import__("torch").optim.Adam,
            lr=self.lr,
            adversary_optimizer__lr=adversary_lr,
            max_epochs=self.max_epochs,
            train_split=self.train_split,
            callbacks=self.callbacks,
            **self._iterator_params(n),
            verbose=self.verbose,
            device=device,
            **params,
        )

    def _iterator_params(self, n):
        """Whole batches drawn at once (``BatchDataset``), unless a split changes the rows."""
        from torch.utils.data import BatchSampler, RandomSampler

        batch_size = min(self.batch_size, n)
        if self.train_split is not None:
            return {"iterator_train__shuffle": True, "batch_size": batch_size}
        sampler = BatchSampler(RandomSampler(range(n)), batch_size, drop_last=False)
        return {
            "iterator_train__batch_size": None,
            "iterator_train__sampler": sampler,
            "batch_size": batch_size,
        }

    def _warn_dead_adversary(self, seen):
        """Warn when a ReLU layer of the adversary is off for every fit release.

        The mechanism minimises ``E log Q(S|Z)``; an adversary whose hidden units
        are all inactive outputs a constant ``Q`` (``log Q = log prior``, a
        minimum the mechanism is pulled to) and gets no gradient to recover, so
        the mechanism ends up trained against no adversary at all.
        """
        import torch

        if self.activation != "relu":
            return
        h = seen.reshape(-1, seen.shape[-1])
        for i, layer in enumerate(self.net_.adversary_.net):
            h = layer(h)
            if isinstance(layer, torch.nn.ReLU) and not bool((h > 0).any()):
                warnings.warn(
                    f"Every unit of the adversary's hidden layer {i // 2} is inactive on the "
                    "fit releases: Q(S | Z) is constant, the mechanism was trained against no "
                    "adversary and its releases may leak S to a fresh one. Use "
                    "activation='leaky_relu' (or 'tanh').",
                    ConvergenceWarning,
                    stacklevel=user_stacklevel(),
                )
                return

    def _leakage_from_a_fresh_estimate(self, release, s):
        """``leakage_`` of a continuous release: the larger of the co-trained bound and a fresh one.

        The co-trained adversary's bound is only as good as that adversary: an
        undertrained one reads 0 while a fresh estimate of the same release
        finds 0.3 nats. ``fresh_leakage_`` is :func:`~sklearn_privacy.metrics.leakage_score`
        of the fit rows' release (kNN for a discrete S, the Gaussian estimate
        for a continuous one); a bound far below it (or negative) warns.
        """
        from sklearn_privacy.metrics._leakage import leakage_score

        estimator = "auto" if self._s_discrete else "gaussian"
        try:
            self.fresh_leakage_ = float(leakage_score(s, release, estimator=estimator))
        except ValueError:  # too few rows per value of S for the estimate
            self.fresh_leakage_ = float("nan")
        bound, fresh = self.adversary_leakage_, self.fresh_leakage_
        if np.isfinite(fresh) and (bound < 0 or bound < min(0.5 * fresh, fresh - 0.02)):
            warnings.warn(
                f"PPANTransformer: the co-trained adversary's bound on the leakage "
                f"({bound:.3g} nats) is far below a fresh estimate from the release "
                f"({fresh:.3g} nats): the adversary is undertrained, and its bound says "
                "nothing. leakage_ reports the fresh estimate. Train longer (max_epochs), give "
                "the adversary more capacity, or measure with the scorers on held-out rows.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        self.leakage_ = max(bound, fresh if np.isfinite(fresh) else 0.0, 0.0)

    def _row_probabilities(self, n):
        """The empirical distribution of the fit rows: uniform, or the normalised weights."""
        if self._sample_weight is None:
            return np.full(n, 1.0 / n)
        return self._sample_weight / self._sample_weight.sum()

    def _sensitive_dim(self):
        return len(self._s_lookup) if self._s_discrete else len(self._s_center)

    def _numpy_noise(self, n, rng):
        if self.release_ == "universal":
            return rng.uniform(-1.0, 1.0, (n, self.n_noise)).astype(np.float32)
        k = 1 if self.release_ == "gaussian" else self.n_components
        return rng.standard_normal(
            (n, k, self.n_features_in_ - len(self.sensitive_columns_))
        ).astype(np.float32)

    @staticmethod
    def _sample(probs, rng):
        """One index per row drawn from the rows of ``probs`` (inverse CDF)."""
        cdf = np.cumsum(probs, axis=1)
        draws = rng.random(probs.shape[0]) * cdf[:, -1]
        return np.minimum((cdf < draws[:, None]).sum(axis=1), probs.shape[1] - 1)

    def _operating_point(self, X, data):
        """The operating point (``leakage_``, ``disclosure_``, ``distortion_``) on the fit data."""
        import torch
        from skorch.utils import to_tensor

        net = self.net_
        net.module_.eval()
        n = X.shape[0]
        noise = None
        if self.release_ != "categorical":
            noise = torch.as_tensor(self._numpy_noise(n, self._fit_rng), device=net.device)
        with torch.no_grad():
            Xi = to_tensor(data, device=net.device)
            log_q, dist, weights, seen = net.terms(Xi, noise)
            self._warn_dead_adversary(seen)
            log_q, dist = log_q.cpu().double().numpy(), dist.cpu().double().numpy()
            weights = weights.cpu().double().numpy()
            # float32 probabilities sum to 1 only to about 1e-7: renormalise in float64
            weights = weights / weights.sum(axis=1, keepdims=True)
            if weights.shape[0] == 1:
                weights = np.broadcast_to(weights, log_q.shape)
        p = self._row_probabilities(n)
        self.adversary_leakage_ = float(self._h_s + p @ np.sum(weights * log_q, axis=1))
        self.distortion_ = float(p @ np.sum(weights * dist, axis=1))
        self.mapping_ = None
        if self.release_ == "categorical":
            k = weights.shape[1]
            x_joint = np.zeros((len(self.input_records_), k))
            np.add.at(x_joint, self._x_codes, weights * p[:, None])
            self.disclosure_ = float(mutual_information(x_joint))
            if self._s_discrete:
                s_joint = np.zeros((len(self._s_lookup), k))
                np.add.at(s_joint, self._s_codes, weights * p[:, None])
                self.leakage_ = float(mutual_information(s_joint))
            else:
                self.leakage_ = max(self.adversary_leakage_, 0.0)
            if self._table:
                with torch.no_grad():
                    table = torch.softmax(net.module_.table.weight.double(), dim=-1).cpu().numpy()
                if self.observation == "full":
                    table = table.reshape(len(self._s_lookup), len(self.input_records_), k)
                self.mapping_ = table
        else:
            z = seen.cpu().double().numpy()
            pick = weights.argmax(axis=1) if z.shape[1] > 1 else np.zeros(n, dtype=int)
            z = z[np.arange(n), pick]
            self._leakage_from_a_fresh_estimate(z, data["s"])
            cov = np.cov(np.hstack([X, z]), rowvar=False, aweights=self._sample_weight)
            cov = cov + 1e-9 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0])
            d = X.shape[1]
            self.disclosure_ = max(
                float(gaussian_mutual_information(cov, np.arange(d), np.arange(d, 2 * d))), 0.0
            )
