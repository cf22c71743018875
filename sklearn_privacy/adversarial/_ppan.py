"""PPANTransformer: privacy-preserving adversarial networks (ppan-tripathy2017).

The estimator only; beside it ``_settings`` (its parameters resolved per fit), ``_inputs``
(what the networks read), ``_build`` (the net), ``_net`` (the training), ``_modules``
(the torch modules), ``_stopping`` (the rule) and ``_evaluate`` (the operating point).
"""

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import check_sensitive_categories, sensitive_positions
from sklearn_privacy.adversarial._inputs import (
    PPANInputs,
    code_label_columns,
    find_label_columns,
    frame_like,
    map_label_columns,
    sensitive_is_discrete,
)
from sklearn_privacy.adversarial._settings import PPANSettings, budget_slack
from sklearn_privacy.exceptions import DegenerateReleaseWarning
from sklearn_privacy.utils import TradeoffKnob, is_continuous, warn_user
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions
from sklearn_privacy.utils._symbols import CategoricalSampler
from sklearn_privacy.utils._validation import (
    BIN_EXAMPLES,
    MAX_READ_CATEGORIES,
    describe_numbers_with_text,
    relative_weights,
)

__all__ = ["PPANTransformer"]

_RELEASES = {"auto", "categorical", "gaussian", "mixture", "universal"}
_DISTORTIONS = {"auto", "hamming", "squared", "cross_entropy", "mutual_information"}
# Without a budget, a release whose distortion is under this share of the distortion's scale
# (every column changed, or the mean released) is X all but unchanged: warn.
_KEPT_X = 0.01

# training="best_response": a fresh adversary joins the training when it reads more than this
# many nats more of S on held-out releases than every adversary the mechanism trains against.
_ROUND_TOL = 0.02

# Largest input the float32 networks take: its square (a distortion) stays finite.
_FLOAT32_SAFE = 1e18


def _ppan_weights(sample_weight):
    """The weights as PPAN's losses use them: None when constant, else relative.

    Constant weights cancel in every batch-normalised loss and in the plug-in
    estimates: the unweighted fit, draw for draw. Every use of the weights is
    relative (batch means, plug-in estimates): scaled exactly to a largest value
    near 1, weights of any size stay finite in the float32 losses and the
    weighted covariances.
    """
    if sample_weight is None or np.ptp(sample_weight) == 0:
        return None
    return relative_weights(sample_weight)[0]


@Substitution()
class PPANTransformer(BaseMechanism):
    """Privacy-preserving adversarial network: a release mechanism trained against an adversary.

    A randomised mechanism ``P(Z | W)`` (a torch network) is trained against an
    adversary ``Q(S | Z)`` that tries to infer the sensitive attribute S from
    the release: the mechanism minimises ``E log Q(S|Z) + lam E d(X, Z)``
    while the adversary maximises ``E log Q(S|Z)`` (ppan-tripathy2017, eq. 3-5),
    so that ``H(S) + E log Q(S|Z)``, a variational lower bound on ``I(S; Z)``
    (eq. 2), falls at the price of the distortion. With ``max_distortion`` the
    distortion term is a penalty on the excess over the budget, with a
    Lagrange multiplier, so that the budget is met when training converges.
    The networks live in a skorch ``NeuralNet`` (``net_``) whose
    ``train_step`` alternates ``adversary_steps`` adversary updates and one
    mechanism update, each with its own optimizer; where the observation, the
    release and S are all finite, each epoch is one exact step instead (the
    adversary's maximiser and an exponentiated-gradient step of the mechanism
    over the empirical distribution). Training stops by itself when the
    mechanism objective and the adversary's bound have settled (``tol``).

    Parameters
    ----------
    lam : float, default=10.0
        Weight of the distortion. Without ``max_distortion`` it is the
        trade-off knob: a larger ``lam`` keeps the release closer to ``X``
        and leaks more. With ``max_distortion`` it weighs the budget's
        penalty, whose multiplier meets the budget at convergence whatever
        ``lam``: it only sets how hard the first epochs push (10 was measured
        best for exact steps; 500 takes about ten times more steps). The
        update rule is in the User Guide.
    max_distortion : float or None, default=None
        Distortion budget ``delta``, in the unit of ``distortion`` (see
        there: for squared error a sum over the released columns per row);
        when set it is the trade-off knob (a larger budget hides more).
        ``fit`` warns (``ConvergenceWarning``) when ``distortion_`` ends more
        than 2% above it (plus 0.005, times the total variance of the
        released columns for squared error).
    release : {"auto", "categorical", "gaussian", "mixture", "universal"}, default="auto"
        Family of the release (sec. 2.3):

        - ``"categorical"``: a finite alphabet, the distinct training rows of
          the released columns, with exact expectations over Z (eq. 6);
        - ``"gaussian"``: ``N(mu(w), diag(sigma^2(w)))`` by reparameterisation;
        - ``"mixture"``: a mixture of ``n_components`` Gaussians, exact over the
          component;
        - ``"universal"``: ``z = f(w, u)`` with seed noise ``u ~ U[-1, 1]^n_noise``;
        - ``"auto"``: ``"categorical"`` for discrete columns (integer values,
          at most ``max_records`` distinct rows) with Hamming or automatic
          distortion, else ``"universal"``.
    distortion : {"auto", "hamming", "squared", "cross_entropy", \
"mutual_information"}, default="auto"
        ``d(x, z)``: ``"hamming"`` (fraction of differing columns, categorical
        release), ``"squared"`` (``||x - z||^2``, summed over the released
        columns of a row, not averaged: a budget for 64 pixels is 64 times
        the per-pixel error), ``"cross_entropy"``
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
    activation : {"auto", "relu", "leaky_relu", "tanh"}, default="auto"
        Hidden activation of every network (unused by the tables of exact
        steps). ``"leaky_relu"`` (slope 0.2) keeps a gradient through every
        unit: with ``"relu"`` the mechanism can switch off every hidden unit of
        the adversary (a constant ``Q``, which it is pulled to) and the dead
        adversary never recovers; ``fit`` warns when it finds that
        (``ConvergenceWarning``). ``"auto"`` chooses by the data:
        ``"leaky_relu"`` for images (``distortion="cross_entropy"``) and for
        releases of more than 16 columns, ``"relu"`` otherwise
        (``activation_``).
    n_noise : int, default=8
        Length of the seed noise of ``release="universal"``.
    n_components : int, default=3
        Components of ``release="mixture"``.
    gamma : float, default=0.0
        Weight of a realism discriminator that tells releases from real rows
        (eq. 10); 0 trains none. Continuous releases only.
    discriminator_hidden_layer_sizes : tuple of int, default=(64,)
        Hidden layer sizes of the discriminator (``gamma > 0``), with the
        hidden activation of the other networks. The paper's MNIST
        experiment uses one layer of 500 units (sec. 3.3).
    adversary_steps : int, default=1
        Adversary updates before each mechanism update (k). Exact steps set
        the adversary to its maximiser instead.
    training : {"best_response", "paper"}, default="best_response"
        How the networks are trained (continuous releases; exact steps already
        take the adversary's best response):

        - ``"paper"``: the paper's alternating updates alone (eq. 3-5,
          ``adversary_steps`` adversary updates per mechanism update), until
          the stopping rule;
        - ``"best_response"``: the same, then rounds toward the adversary's
          best response: new adversaries (of the co-trained one's architecture,
          a linear one and a wider one) are trained from scratch on releases of
          half the fit rows, to their best log-likelihood on the other half's
          releases; while the best of them beats every adversary the mechanism
          trains against by more than 0.02 nats, it joins them (frozen: the
          mechanism's loss reads the largest of their bounds) and the
          alternating training resumes, at most ``max_rounds`` times, within
          ``max_epochs`` in all. The mechanism kept is the round's that the
          fresh adversaries read lowest (within the budget); a last fresh
          adversary, on a new split, becomes ``net_.adversary_`` and its
          held-out bound is ``adversary_leakage_``. ``fresh_rounds_`` lists
          the rounds. The co-trained adversary alone is fooled: on digits at
          half the distortion of releasing the mean its bound read 1.09 nats
          where the leakage panel read 1.62 on new rows (the User Guide).
    max_rounds : int, default=5
        Most fresh adversaries that join the training
        (``training="best_response"``; 0 trains as ``"paper"``).
    max_epochs : int or "auto", default="auto"
        Most epochs; ``"auto"``: 2000 exact steps (an exact epoch is one step
        over the distinct rows, a few milliseconds), else 100 epochs of
        minibatches and at least 10000 minibatch updates, chosen from the
        number of rows (2000 epochs of 5 batches for 569 rows, 100 epochs from
        12800 rows at ``batch_size=128``): a small table takes few updates per
        epoch. Reaching it before the stopping rule is met warns
        (``ConvergenceWarning``).
    tol : float or None, default=1e-4
        Stopping rule, in nats: training stops when both the mechanism
        objective and the adversary's loss change by at most ``tol`` from one
        window of ``n_iter_no_change`` epochs to the next (the slope of a line
        fitted to their last ``2 n_iter_no_change`` epoch values, times
        ``n_iter_no_change``); with minibatches a change within one standard
        error of the epoch-to-epoch noise counts as settled too, so a noisy
        plateau stops. With a budget it also waits until the budget is met
        (and used, while its multiplier is positive). ``None`` trains
        ``max_epochs`` epochs.
    n_iter_no_change : int, default=10
        Epochs per window of the stopping rule.
    batch_size : int, default=128
        Capped at the number of rows; unused by exact steps (one batch of
        every distinct row).
    lr : float or "auto", default="auto"
        Adam's learning rate of the mechanism (``"auto"``: 1e-3); for exact
        steps, the first step size of the exponentiated-gradient update
        (``"auto"``: 0.5), halved while a step raises the objective and
        raised by 1.2 after each step that lowers it.
    adversary_lr : float or None, default=None
        Adam's learning rate of the adversary and discriminator (``lr`` by
        default); unused by exact steps.
    callbacks : list or None, default=None
        skorch callbacks (``EarlyStopping``, ``Checkpoint``, ``LRScheduler``
        on the mechanism's optimizer ...); the history holds ``train_loss``
        (the mechanism objective), ``train_log_q``, ``train_distortion`` and
        ``adversary_loss``.
    train_split : callable or None, default=None
        skorch's split for a validation set (``skorch.dataset.ValidSplit``);
        ``None`` trains on every row. A split trains by minibatches of rows
        even where exact steps could be taken.
    device : str, default="cpu"
        ``"cpu"``, ``"cuda"`` (an error when torch finds no CUDA device) or
        ``"auto"`` (CUDA when available).
    max_records : int, default=1000
        Largest release alphabet of ``release="categorical"``: the number of
        distinct rows (records) of the released columns, the size of the
        table the mechanism learns. ``release="auto"`` chooses a continuous
        release above it.
    {handle_unknown}
        A categorical release only (a continuous one reads any row); a label
        category unseen at fit agrees with no record.
    leakage_adversaries : dict of str to classifier or list of classifiers, default=None
        The user's own adversaries, added to the panel of the fresh estimate
        of a continuous release's leakage (``fresh_leakage_``; see
        :func:`~sklearn_privacy.metrics.leakage_score`'s ``adversaries``).
    {sensitive}
        S is continuous when it holds floats that are not all integers (see
        :func:`~sklearn_privacy.utils.is_continuous`; a float S of a few
        values, such as 0.5 and 1.5, included): the adversary is a Gaussian.
        Otherwise it is read as categories, one adversary class per distinct
        value, and a column of more than 200 distinct numbers is refused as
        probably continuous (bin it, or standardise it to have it read as
        continuous; strings are categories and are not bounded).
    random_state : int, RandomState, Generator or None, default=None
        Seeds training (torch, inside ``torch.random.fork_rng``: the global
        torch state is left as it was) and, through an independent stream,
        the release noise; each ``transform`` draws fresh noise.
    {verbose}
        Here it is handed to the net (``1`` prints skorch's epoch table) and
        to the fresh estimate (a line per member of its panel with its time).

    Attributes
    ----------
    net_ : skorch.NeuralNet
        The trained net: ``module_`` (mechanism), ``adversary_``, and
        ``utility_`` / ``discriminator_`` when used.
    history_ : skorch.History
        The net's history.
    n_iter_ : int
        Epochs trained (exact steps: one step per epoch).
    converged_ : bool
        Whether the stopping rule ended training (``False`` with ``tol=None``).
    fresh_rounds_ : list of FreshRound
        ``training="best_response"`` with a continuous release: each round's
        held-out ``E log Q(S|Z)`` of the fresh adversary and of the best of
        those the mechanism trained against (``H(S)`` not added), the
        distortion of those releases, and whether the fresh adversary joined.
        Empty otherwise.
    activation_ : str
        The hidden activation used.
    leakage_ : float
        ``I(S; Z)`` on the fit data, nats. Finite release and discrete S: exact
        for the empirical distribution and the learned ``P(Z | W)``;
        a continuous release: the larger of the adversary's variational bound
        ``H(S) + E log Q(S|Z)`` (``h(S)`` of the Gaussian with S's covariance
        for a continuous S) and ``fresh_leakage_``, at least 0; a finite
        release with a continuous S: the bound, clipped at 0.
    adversary_leakage_ : float
        The adversary's variational bound ``H(S) + E log Q(S|Z)`` on the fit
        data, nats (may be negative when the adversary is poor); after rounds
        of fresh adversaries (``training="best_response"``), the last fresh
        adversary's bound on the half of the fit rows it did not train on.
    fresh_leakage_ : float
        For a continuous release: a fresh estimate of ``I(S; Z)`` from the fit
        rows' release (:func:`~sklearn_privacy.metrics.leakage_score`'s
        default panel: held-out bounds cross-fitted on the fit rows, the kNN
        estimate minus its permutation null, and for a continuous S the
        bounds on quantile bins of S; above 200 values of S only the table
        and the kNN estimate; of at most 5000 fit rows, drawn at random),
        independent of the co-trained adversary; ``leakage_`` is the larger
        of the two, and a bound far below this warns. Absent for a finite
        release.
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

    ``fit``'s ``y`` is read only by ``distortion="mutual_information"`` (the
    utility ``I(y; Z)``). Its ``sample_weight`` multiplies every loss term of a
    row (mechanism, adversary, discriminator, utility posterior), each
    minibatch's loss divided by the batch's weight sum; ``leakage_``,
    ``disclosure_``, ``distortion_`` and ``H(S)`` use the weighted empirical
    distribution, so integer weights give the exact ``leakage_`` formula of the
    repeated rows, but rows are still drawn uniformly into minibatches: a
    weighted fit is not the fit of the repeated rows draw for draw. Only the
    weights' ratios matter (constant weights are the unweighted fit); weights
    under which all other rows vanish beside one (in float64) are refused.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy import PPANTransformer
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> x = np.where(rng.random(400) < 0.9, s, 1 - s)
    >>> mech = PPANTransformer(max_distortion=0.1, sensitive=[0],
    ...                        random_state=0)
    >>> Xt = mech.fit_transform(np.c_[s, x])
    >>> Xt.shape, mech.release_, mech.converged_
    ((400, 1), 'categorical', True)
    >>> round(mech.distortion_, 3), round(mech.leakage_, 2)
    (0.1, 0.23)
    """

    _parameter_constraints = {
        **BaseMechanism._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="neither")],
        "max_distortion": [None, Interval(Real, 0, None, closed="left")],
        "release": [StrOptions(_RELEASES)],
        "distortion": [StrOptions(_DISTORTIONS)],
        "observation": [StrOptions({"released", "full"})],
        "verbose": ["verbose"],
        "hidden_layer_sizes": [tuple, list],
        "activation": [StrOptions({"auto", "relu", "leaky_relu", "tanh"})],
        "n_noise": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "discriminator_hidden_layer_sizes": [tuple, list],
        "adversary_steps": [Interval(Integral, 1, None, closed="left")],
        "training": [StrOptions({"best_response", "paper"})],
        "max_rounds": [Interval(Integral, 0, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "tol": [None, Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "adversary_lr": [None, Interval(Real, 0, None, closed="neither")],
        "callbacks": [None, list],
        "train_split": [None, callable],
        "device": [str],
        "max_records": [Interval(Integral, 2, None, closed="left")],
        "handle_unknown": [StrOptions({"error", "nearest"})],
        "leakage_adversaries": [None, dict, list],
    }

    def __init__(
        self,
        lam=10.0,
        *,
        max_distortion=None,
        release="auto",
        distortion="auto",
        observation="released",
        hidden_layer_sizes=(32, 32),
        activation="auto",
        n_noise=8,
        n_components=3,
        gamma=0.0,
        discriminator_hidden_layer_sizes=(64,),
        adversary_steps=1,
        training="best_response",
        max_rounds=5,
        max_epochs="auto",
        tol=1e-4,
        n_iter_no_change=10,
        batch_size=128,
        lr="auto",
        adversary_lr=None,
        callbacks=None,
        train_split=None,
        device="cpu",
        max_records=1000,
        handle_unknown="nearest",
        leakage_adversaries=None,
        sensitive=None,
        random_state=None,
        verbose=0,
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
        self.discriminator_hidden_layer_sizes = discriminator_hidden_layer_sizes
        self.adversary_steps = adversary_steps
        self.training = training
        self.max_rounds = max_rounds
        self.max_epochs = max_epochs
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.batch_size = batch_size
        self.lr = lr
        self.adversary_lr = adversary_lr
        self.callbacks = callbacks
        self.train_split = train_split
        self.device = device
        self.max_records = max_records
        self.handle_unknown = handle_unknown
        self.leakage_adversaries = leakage_adversaries
        self.sensitive = sensitive
        self.random_state = random_state
        self.verbose = verbose

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
    def _fit_mechanism(self, X, S, y, sample_weight):
        from sklearn_privacy.adversarial._build import resolve_device

        self._check_discrete_sensitive(S)
        device = resolve_device(self.device)
        X = np.asarray(X, dtype=np.float64)
        self._check_fit_settings(X, y)
        inputs, settings = self._initialize_inputs(X, S, _ppan_weights(sample_weight), device)
        data = inputs.training_data(X, S, y, utility=settings.distortion == "mutual_information")
        held_out_log_q = self._train_net(settings, inputs, data, device)
        self._set_operating_point(X, inputs, data, held_out_log_q)
        self._warn_unsettled(self.net_)
        self._warn_budget_missed(settings.distortion_scale, X.shape[1])
        self._warn_kept_x(settings.distortion_scale)

    def _check_fit_settings(self, X, y):
        """Warn about a budget of zero, choose the release, and check image settings."""
        if self.max_distortion == 0:
            warn_user(
                "PPANTransformer(max_distortion=0) allows no distortion: the only mechanism "
                "within the budget releases X unchanged and hides nothing (leakage_ is "
                "I(S; X)). Raise max_distortion.",
                DegenerateReleaseWarning,
            )
        self._choose_release(X, y)
        self._check_images(X)
        for name in ("hidden_layer_sizes", "discriminator_hidden_layer_sizes"):
            sizes = getattr(self, name)
            if not all(isinstance(k, Integral) and k >= 1 for k in sizes):
                raise ValueError(
                    f"The '{name}' parameter of PPANTransformer must hold positive integers "
                    f"(units of each hidden layer). Got {sizes!r} instead."
                )

    def _initialize_inputs(self, X, S, sample_weight, device):
        """The encoded inputs and the resolved settings; sets the records and ``activation_``."""
        inputs = PPANInputs(
            X, S, release=self.release_, observation=self.observation, sample_weight=sample_weight
        )
        settings = PPANSettings.resolve(
            self,
            inputs,
            release=self.release_,
            distortion=self.distortion_measure_,
            n_features=X.shape[1],
            device=device,
        )
        self.activation_ = settings.activation
        self._inputs = inputs
        self.sensitive_records_ = inputs.sensitive.records
        self.input_records_ = self.output_records_ = inputs.records
        return inputs, settings

    def _train_net(self, settings, inputs, data, device):
        """Build the net and train it under a torch seed of this fit; sets ``net_`` and its
        history (``history_``, ``n_iter_``, ``converged_``, ``fresh_rounds_``). Returns the
        last fresh adversary's held-out ``E log Q(S|Z)``, or None without rounds."""
        import torch

        from sklearn_privacy.adversarial._best_response import train_in_rounds
        from sklearn_privacy.adversarial._build import build_net
        from sklearn_privacy.adversarial._net import BatchDataset

        # exact steps average over the distinct (w, s) cells, weighted: the empirical expectation
        train = inputs.cells(data) if settings.exact else data
        net = build_net(settings, inputs, len(train["w"]))
        dataset = BatchDataset(train)
        best_response = self.training == "best_response" and not settings.exact
        seed = int(self._fit_rng.integers(2**63))
        devices = [torch.device(device)] if str(device).startswith("cuda") else []
        threads = torch.get_num_threads()
        # Seed torch for this fit only: the caller's global torch state is left as it was.
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed)
            if device == "cpu" and settings.n_features < 256:
                # Small networks: a second thread only adds synchronisation (5x slower
                # measured on 2 loaded cores).
                torch.set_num_threads(1)
            try:
                net.fit(dataset, None)
                self.fresh_rounds_, held_out_log_q = [], None
                if best_response and self.max_rounds and len(net.history) < net.max_epochs:
                    self.fresh_rounds_, held_out_log_q = train_in_rounds(
                        net,
                        dataset,
                        train,
                        max_rounds=self.max_rounds,
                        tol=_ROUND_TOL,
                        rng=self._fit_rng,
                    )
            finally:
                torch.set_num_threads(threads)
        self.net_ = net
        self.history_ = net.history
        self.n_iter_ = len(net.history)
        self.converged_ = bool(net.history[-1].get("converged", False))
        return held_out_log_q

    def _set_operating_point(self, X, inputs, data, held_out_log_q=None):
        """``leakage_``, ``adversary_leakage_``, ``disclosure_``, ``distortion_``, ``mapping_``
        and, for a continuous release, ``fresh_leakage_`` on the fit rows (the adversary's
        bound from ``held_out_log_q`` when the rounds measured it on held-out rows)."""
        from sklearn_privacy.adversarial._evaluate import operating_point

        noise = (
            None if self.release_ == "categorical" else self._numpy_noise(X.shape[0], self._fit_rng)
        )
        point = operating_point(
            self.net_,
            inputs,
            X,
            data,
            noise,
            release=self.release_,
            activation=self.activation_,
            fresh={
                "adversaries": self.leakage_adversaries,
                "verbose": self.verbose,
                "rng": self._fit_rng,
            },
            held_out_log_q=held_out_log_q,
        )
        self.adversary_leakage_ = point.adversary_leakage
        self.leakage_ = point.leakage
        self.disclosure_ = point.disclosure
        self.distortion_ = point.distortion
        self.mapping_ = point.mapping
        if point.fresh_leakage is not None:  # a continuous release only
            self.fresh_leakage_ = point.fresh_leakage
        elif hasattr(self, "fresh_leakage_"):  # a refit to a finite release
            del self.fresh_leakage_

    def _warn_unsettled(self, net):
        """``ConvergenceWarning`` when ``max_epochs`` ended training before the stopping rule."""
        if self.tol is None or self.converged_ or self.n_iter_ < net.max_epochs:
            return  # no rule, the rule stopped it, or a callback (EarlyStopping) did
        rule = dict(net.callbacks_)["saddle_convergence"]
        moved = (
            f" the rule compares two windows of n_iter_no_change={self.n_iter_no_change} "
            "epochs, more than were trained;"
        )
        if rule.changes_ is not None:
            # the moves themselves differ per fit (history_ has them): a text that does
            # not lets the default filter show the warning once per line, not per fold
            moved = (
                f" over the last {2 * self.n_iter_no_change} epochs the mechanism objective "
                f"or the adversary's loss still moved by more than tol={self.tol} (see "
                "history_);"
            )
        warn_user(
            f"PPANTransformer stopped at max_epochs={net.max_epochs} before the saddle "
            f"objective settled:{moved} the mechanism may be short of its optimum. Raise "
            "max_epochs (or tol).",
            ConvergenceWarning,
        )

    def _warn_kept_x(self, scale):
        """``UserWarning`` when, with no budget, the release keeps X all but unchanged and leaks."""
        if self.max_distortion is not None or self.distortion_measure_ not in (
            "hamming",
            "squared",
        ):
            return
        if self.distortion_ < _KEPT_X * scale and self.leakage_ >= 0.01:
            warn_user(
                f"PPANTransformer kept the release almost equal to X: distortion_ is under "
                f"{_KEPT_X:.0%} of "
                + (
                    "changing every column"
                    if self.distortion_measure_ == "hamming"
                    else "releasing the mean"
                )
                + ", and leakage_ at least 0.01 nats: this lam weighs the distortion too "
                "much to hide S. Lower lam, or set a budget with max_distortion.",
                DegenerateReleaseWarning,
            )

    def _warn_budget_missed(self, scale, n_features):
        """``ConvergenceWarning`` when ``distortion_`` ends above ``max_distortion``."""
        budget = self.max_distortion
        if budget is None or self.distortion_ <= budget + budget_slack(budget, scale):
            return
        unit = {
            "hamming": "the fraction of released columns changed, per row",
            "squared": f"squared error summed over the {n_features} released columns, per row",
            "cross_entropy": "binary cross-entropy averaged over the pixels, nats per pixel",
            "mutual_information": "H(y | Z) through the utility posterior, nats",
        }[self.distortion_measure_]
        warn_user(
            "PPANTransformer did not meet the distortion budget: distortion_ ended above "
            f"max_distortion ({unit}). Check that the budget is in this unit, and raise "
            "max_epochs or lam (the penalty weight).",
            ConvergenceWarning,
        )

    def _release(self, X, S, rng):
        import torch

        net = self.net_
        X = np.asarray(X, dtype=np.float64)
        self._check_images(X)
        w = self._inputs.mechanism_input(X, S, self.handle_unknown)
        device = net.device
        with torch.no_grad():
            net.module_.eval()
            if self.release_ == "categorical":
                _, probs = net.module_(torch.as_tensor(w, device=device), None)
                rows = CategoricalSampler(probs.cpu().double().numpy()).draw(np.arange(len(w)), rng)
                return self._map_label_columns(self.output_records_[rows].copy(), decode=True)
            noise = self._numpy_noise(X.shape[0], rng)
            z, weights = net.module_(
                torch.as_tensor(w, device=device), torch.as_tensor(noise, device=device)
            )
            if self.distortion_measure_ == "cross_entropy":
                z = torch.sigmoid(z)
            z, weights = z.cpu().numpy().astype(np.float64), weights.cpu().double().numpy()
        n = z.shape[0]
        k = CategoricalSampler(weights).draw(np.arange(n), rng) if z.shape[1] > 1 else 0
        return z[np.arange(n), k]

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
        # a DataFrame (a Series has iloc and dtypes too: validate_data refuses its one dimension)
        frame = X if hasattr(X, "iloc") and getattr(X, "ndim", None) == 2 else None
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
        names = None if frame is None else list(frame.columns)
        if reset:
            str_names = None if names is None else [str(c) for c in names]
            skip = set(sensitive_positions(self.sensitive, str_names, values.shape[1]))
            self._label_positions = find_label_columns(
                values,
                candidates,
                skip,
                check=lambda labels: self._check_numbers_with_text(values, labels, frame, names),
            )
            if not self._label_positions:
                return super()._validate_X(X, reset=reset)
            self.label_categories_ = {
                (names[j] if names else j): categories
                for j, categories in self._label_positions.items()
            }
        unseen = "code" if not reset and self.handle_unknown == "nearest" else "error"
        coded = code_label_columns(values, self._label_positions, names, unseen=unseen)
        if frame is not None:
            coded = frame_like(frame, coded)
        return super()._validate_X(coded, reset=reset)

    def _check_numbers_with_text(self, values, labels, frame, names):
        """Refuse a column of numbers with stray text (``"n/a"``, ``"?"``) rather than code it.

        ``labels``: the columns about to be read as labels, where it would be
        one category per distinct value, released in code units. A pandas
        categorical column declares its categories and is left alone.
        """
        declared = set()
        if frame is not None:
            declared = {
                j for j, dtype in enumerate(frame.dtypes) if isinstance(dtype, pd.CategoricalDtype)
            }
        stray = describe_numbers_with_text(
            values, columns=[j for j in labels if j not in declared], feature_names=names
        )
        if stray is not None:
            raise ValueError(
                f"PPANTransformer reads each column of X as numbers or as labels, but {stray}; "
                "if it holds categories, make it a pandas categorical column "
                "(.astype('category')) to have it read as labels."
            )

    def _map_label_columns(self, release, decode):
        """The label columns of a release decoded (codes to categories) or encoded back."""
        positions = getattr(self, "_label_positions", {})
        return map_label_columns(release, positions, self.release_columns_, decode=decode)

    def release_distribution(self, X, S):
        """``P(Z = z | row)`` of a categorical release (exact leakage); None otherwise."""
        if self.release_ != "categorical":
            return None
        import torch

        w = self._inputs.mechanism_input(np.asarray(X, dtype=np.float64), S, self.handle_unknown)
        with torch.no_grad():
            self.net_.module_.eval()
            _, probs = self.net_.module_(torch.as_tensor(w, device=self.net_.device), None)
        probs = probs.cpu().double().numpy()
        # float32 probabilities sum to 1 only to about 1e-7: renormalise in float64
        return probs / probs.sum(axis=1, keepdims=True)

    def mean_distortion(self, X, Xt):
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
        return super().mean_distortion(X, Xt)

    # ---------------------------------------------------------------- helpers
    def _check_discrete_sensitive(self, S):
        """Refuse numbers read as categories that look continuous (more than 200 values).

        A discrete S is one adversary class per distinct value (one-hot as an
        input): numbers with hundreds of values are a measurement, and would
        make a softmax over every value. Strings declare their categories
        and are not bounded; a continuous S is never checked.
        """
        if not sensitive_is_discrete(S):
            return
        check_sensitive_categories(
            self,
            S,
            MAX_READ_CATEGORIES,
            f"Bin it first ({BIN_EXAMPLES}), or give it as floats that are not all integers "
            "(e.g. standardised, (S - S.mean()) / S.std()) to have it read as a continuous "
            "S; if these really are categories, give them as strings (e.g. S.astype(str)).",
            bound=f"{MAX_READ_CATEGORIES} (the limit on numbers read as categories)",
            numbers_only=True,
        )

    def _choose_release(self, X, y):
        distortion, release = self.distortion, self.release
        max_records = self.max_records
        n_records = np.unique(X, axis=0).shape[0]
        finite = not is_continuous(X) and n_records <= max_records
        if release == "auto":
            release = "categorical" if finite and distortion in ("auto", "hamming") else "universal"
        if distortion == "auto":
            distortion = "hamming" if release == "categorical" else "squared"
        if release == "categorical" and not finite:
            raise ValueError(
                f"release='categorical' needs discrete released columns with at most "
                f"max_records={max_records} distinct rows; X has {n_records} "
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

    def _numpy_noise(self, n, rng):
        """Seed noise of a continuous release: uniform (universal) or Gaussian draws."""
        if self.release_ == "universal":
            return rng.uniform(-1.0, 1.0, (n, self.n_noise)).astype(np.float32)
        k = 1 if self.release_ == "gaussian" else self.n_components
        return rng.standard_normal(
            (n, k, self.n_features_in_ - len(self.sensitive_columns_))
        ).astype(np.float32)
