"""ConvexPrivacyMapping: the optimal randomised release (calmon2012, Thm. 1 and 2)."""

from numbers import Integral, Real

import numpy as np

from sklearn_privacy.discrete._categorical import _CategoricalMechanism
from sklearn_privacy.discrete._convex._problem import _check_problem
from sklearn_privacy.discrete._convex._solvers import (
    min_achievable_distortion,
    min_average_leakage_mapping,
    min_maximum_leakage_mapping,
)
from sklearn_privacy.exceptions import DegenerateReleaseWarning
from sklearn_privacy.information import entropy, mutual_information
from sklearn_privacy.utils import TradeoffKnob, warn_user
from sklearn_privacy.utils._distortion import DISTORTIONS, distortion_matrix
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import Interval, StrOptions
from sklearn_privacy.utils._symbols import CategoricalSampler, RowIndex

__all__ = ["ConvexPrivacyMapping"]


@Substitution()
class ConvexPrivacyMapping(_CategoricalMechanism):
    """Optimal randomised mapping ``P(U | Y)`` for average or maximum information leakage.

    Learns the empirical joint pmf ``P(S, Y)`` of the sensitive attribute S and
    the released categorical columns Y (their rows form one joint alphabet), then
    solves for the mapping that leaks least about S while keeping the expected
    distortion ``E[d(Y, U)]`` within ``max_distortion``
    (privacy-statistical-inference-calmon2012, Thm. 1 and Thm. 2). ``transform``
    draws each released row ``U`` from ``P(U | Y=y)`` of its input row ``y``.

    Parameters
    ----------
    max_distortion : float, default=0.1
        The trade-off knob: the budget on the expected distortion of the
        release; a larger budget hides more (leakage falls). It must be at
        least the least achievable distortion ``sum_y P(y) min_u d(y, u)`` (0
        when the output alphabet contains the input alphabet).
    leakage : {"average", "maximum"}, default="average"
        - ``"average"``: minimise ``I(S; U)`` (Thm. 1, a convex program);
        - ``"maximum"``: minimise ``max_u [H(S) - H(S | U=u)]`` (Thm. 2,
          a line search over the leakage level with a convex least-distortion
          program at each step).
    distortion : {"hamming", "absolute", "squared"}, array-like or callable, \
default="hamming"
        Distortion ``d(y, u) >= 0`` between an input record and an output record:

        - ``"hamming"``: fraction of columns that differ;
        - ``"absolute"`` / ``"squared"``: mean absolute / squared difference of
          the ordinal codes (positions among the sorted values of the column);
        - an array of shape ``(n_inputs, n_outputs)`` whose rows follow
          ``input_records_`` (the distinct training rows, sorted) and whose
          columns follow ``output_records_``;
        - a callable ``d(records_y, records_u)`` returning that array from the two
          2-D arrays of records.
    observation : {"released", "full"}, default="released"
        ``"released"``: the mapping sees Y only, ``P(U | Y)``. ``"full"``: it also
        sees S, ``P(U | Y, S)`` (Remark 3); S must then be columns of ``X``
        (``sensitive=...``) so that ``transform`` can read it.
    output_alphabet : array-like of shape (n_outputs, n_columns), default=None
        The records ``U`` may take; the distinct training rows by default.
    solver : str, default="auto"
        ``"auto"``: Clarabel, then SCS (then the first-order path, for average
        leakage, when both fail); alphabets with ``n_inputs * n_outputs`` above
        14400 go to the first-order path directly. ``"first-order"``: the
        first-order path (accelerated mirror descent with a duality-gap
        certificate for average leakage; a smoothed maximum with a certified
        bracket for maximum leakage); or any cvxpy solver name, tried alone.
    solver_options : dict, default=None
        Keyword arguments passed to ``cvxpy.Problem.solve``.
    tol : float, default=1e-7
        Accuracy in nats of the first-order path and of the line search of
        ``leakage="maximum"``.
    max_iter : int, default=20000
        Iteration limit of the first-order path (both leakages).
    {smoothing}
    {max_categories}
    {handle_unknown}
    {sensitive}
        S is read as categories, one per distinct value (a float S of a few
        values, such as 0.5 and 1.5, is two categories); each of its columns
        obeys ``max_categories``, as the columns of ``X`` do.
    {random_state_release}
    {verbose}
        Here ``1`` shows live bars on stderr: the first-order iterations
        against ``max_iter`` with the certified duality gap against ``tol``
        (redrawn at most four times a second), and for ``leakage="maximum"``
        the smoothing levels, the line search's level and bracket width and
        the certificate's bisection; and one line per stage on stdout (which
        solver starts, which ran, why one was abandoned). ``2`` adds the
        first-order path's figures every 10 iterations (on stdout).
        ``solver_options={"verbose": True}`` shows the conic solver's own log.

    Attributes
    ----------
    mapping_ : ndarray of shape (n_inputs, n_outputs) or (n_s, n_inputs, n_outputs)
        ``P(U=u | Y=y)``, or ``P(U=u | S=s, Y=y)`` with ``observation="full"``
        (pairs unseen at fit get ``P(U | Y=y)``).
    leakage_ : float
        The minimised leakage at the training distribution, in nats:
        ``I(S; U)`` or the maximum information leakage.
    average_leakage_ : float
        ``I(S; U)`` in nats.
    maximum_leakage_ : float
        ``max_u [H(S) - H(S | U=u)]`` in nats.
    disclosure_ : float
        ``I(Y; U)`` in nats at the training distribution.
    distortion_ : float
        Expected distortion ``E[d(Y, U)]`` at the training distribution.
    distortion_measure_ : str
        The name of ``d``: ``"hamming"``, ``"absolute"``, ``"squared"`` or
        ``"custom"`` (a matrix or callable).
    min_distortion_ : float
        Least achievable expected distortion.
    solver_ : str
        The solver that produced ``mapping_`` (``"constant"`` when a constant
        release meets the budget, which leaks nothing; ``"HIGHS"`` when a
        release independent of S meets it, ``leakage="maximum"``;
        ``"closest"`` when the budget is the least achievable distortion and
        each record has one closest output, so one mapping is feasible).
    gap_ : float
        Certified bound, in nats, on ``leakage_`` minus the optimum (the
        first-order path's duality gap, or the width of its certified bracket
        on the maximum leakage); ``nan`` for the conic solvers, which give no
        certificate. For maximum leakage the bracket does not close on large
        alphabets (500 symbols: 0.017 nats on a leakage of 0.49): the optimum
        is only proved to lie in ``[leakage_ - gap_, leakage_]``.
    n_iter_ : int
        First-order iterations, line-search steps (``leakage="maximum"``),
        or 1.
    alphabet_ : CategoricalAlphabet
        The joint alphabet of the released columns (the Y alphabet); its
        symbols index the rows of ``mapping_`` and ``input_records_`` decodes
        them.
    joint_ : ndarray of shape (n_s, n_inputs)
        Empirical ``P(S, Y)``.
    distortion_matrix_ : ndarray of shape (n_inputs, n_outputs)
        ``d(y, u)``.
    input_records_ : ndarray of shape (n_inputs, n_features_out)
        The distinct training rows of the released columns (the Y alphabet).
    output_records_ : ndarray of shape (n_outputs, n_features_out)
        The U alphabet.
    sensitive_records_ : ndarray of shape (n_s, n_sensitive)
        The S alphabet.
    {n_unseen_rows_}
    n_features_in_ : int
        Number of columns of ``X`` at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of ``X``, when it has string names.

    See Also
    --------
    sklearn_privacy.discrete.min_average_leakage_mapping : the solver on pmfs.
    sklearn_privacy.discrete.min_maximum_leakage_mapping : Thm. 2 on pmfs.

    Notes
    -----
    Average leakage (Thm. 1):

    .. math::

        \\min_{P_{U|Y}} I(S; U) \\quad \\text{s.t.} \\quad E[d(Y, U)] \\le \\Delta.

    Maximum leakage (Thm. 2): the least :math:`\\epsilon` such that some mapping
    with :math:`H(S | U=u) \\ge H(S) - \\epsilon` for all :math:`u` meets the budget.
    The mapping is optimal for the *empirical* ``P(S, Y)``: ``leakage_`` is the
    training-set operating point; on new data the leakage is estimated by the
    scorers of :mod:`sklearn_privacy.metrics`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import ConvexPrivacyMapping
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> y = np.where(rng.random(500) < 0.8, s, 1 - s)
    >>> X = np.column_stack([s, y])
    >>> mech = ConvexPrivacyMapping(max_distortion=0.2, sensitive=[0])
    >>> Xt = mech.fit_transform(X)
    >>> Xt.shape
    (500, 1)
    >>> bool(mech.leakage_ < 0.1), bool(mech.distortion_ <= 0.2 + 1e-7)
    (True, True)
    """

    _parameter_constraints = {
        **_CategoricalMechanism._parameter_constraints,
        "max_distortion": [Interval(Real, 0, None, closed="left")],
        "leakage": [StrOptions({"average", "maximum"})],
        "distortion": [StrOptions(set(DISTORTIONS)), "array-like", callable],
        "observation": [StrOptions({"released", "full"})],
        "output_alphabet": [None, "array-like"],
        "solver": [str],
        "solver_options": [None, dict],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        max_distortion=0.1,
        *,
        leakage="average",
        distortion="hamming",
        observation="released",
        output_alphabet=None,
        solver="auto",
        solver_options=None,
        tol=1e-7,
        max_iter=20_000,
        smoothing=0.0,
        max_categories=200,
        handle_unknown="nearest",
        sensitive=None,
        random_state=None,
        verbose=0,
    ):
        self.max_distortion = max_distortion
        self.leakage = leakage
        self.distortion = distortion
        self.observation = observation
        self.output_alphabet = output_alphabet
        self.solver = solver
        self.solver_options = solver_options
        self.tol = tol
        self.max_iter = max_iter
        self.smoothing = smoothing
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.sensitive = sensitive
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- the hooks
    def _fit_on_joint(self, joint):
        n_s, n_y = joint.shape
        self.input_records_ = self.alphabet_.decode(np.arange(n_y))
        self.sensitive_records_ = self._sensitive_alphabet.decode(np.arange(n_s))
        self.output_records_ = self._check_output_alphabet(self.alphabet_.n_columns_)
        self.distortion_matrix_ = self._distortion_matrix()
        self.min_distortion_ = min_achievable_distortion(self.joint_, self.distortion_matrix_)
        if self.observation == "full":
            result = self._fit_full()
        else:
            result = self._solve(self.joint_, self.distortion_matrix_)
            self.mapping_ = result["mapping"]
        self.average_leakage_ = result["average_leakage"]
        self.maximum_leakage_ = result["maximum_leakage"]
        self.distortion_ = result["distortion"]
        self.solver_ = result["solver"]
        self.gap_ = float(result["gap"])
        # First-order iterations, line-search steps, or one solve (0 in the result when
        # no iterative solve ran).
        self.n_iter_ = max(1, int(result["n_iter"]))
        self.leakage_ = (
            self.average_leakage_ if self.leakage == "average" else self.maximum_leakage_
        )
        self.distortion_measure_ = self.distortion if isinstance(self.distortion, str) else "custom"
        self._check_not_a_no_op()
        table = np.maximum(self.mapping_.reshape(-1, self.mapping_.shape[-1]), 0.0)
        self._sampler = CategoricalSampler(table)

    def get_tradeoff_knob(self):
        """``max_distortion``: a larger budget hides more.

        Returns
        -------
        TradeoffKnob
        """
        return TradeoffKnob("max_distortion", "smaller", low=0.0, high=0.5)

    def _check_not_a_no_op(self):
        """``disclosure_``, and a warning when the release keeps X or collapses to one record."""
        # P(Y, U) = sum over S of P(S, Y) P(U | Y [, S])
        if self.mapping_.ndim == 3:
            y_u = np.einsum("sy,syu->yu", self.joint_, self.mapping_)
        else:
            y_u = self.joint_.sum(axis=0)[:, None] * self.mapping_
        self.disclosure_ = mutual_information(y_u)
        used = np.flatnonzero(y_u.sum(axis=0) > 1e-9)
        if used.size == 1 and self.input_records_.shape[0] > 1:
            warn_user(
                "ConvexPrivacyMapping: this max_distortion is large enough to release one "
                "record for every row: the release carries no information. Lower "
                "max_distortion.",
                DegenerateReleaseWarning,
            )
        elif self.disclosure_ >= entropy(self.joint_.sum(axis=0)) - 1e-9 and self.leakage_ > 0:
            warn_user(
                "ConvexPrivacyMapping: this max_distortion leaves no room to hide S: the "
                "release determines X (leakage_ is I(S;X)). Raise max_distortion above "
                "min_distortion_.",
                DegenerateReleaseWarning,
            )

    def _release(self, X, S, rng):
        """Each row ``y`` becomes a draw of ``U ~ P(U | Y=y)`` (or ``P(U | Y=y, S=s)``)."""
        rows = self._mapping_rows(X, S, release=True)
        return self.output_records_[self._sampler.draw(rows, rng)]

    def _observes_sensitive(self):
        return self.observation == "full"

    def release_distribution(self, X, S):
        """``P(U = u | row)``: the rows of ``mapping_`` the rows select (exact leakage)."""
        return self.mapping_.reshape(-1, self.mapping_.shape[-1])[self._mapping_rows(X, S)]

    def _mapping_rows(self, X, S, release=False):
        """The row of ``mapping_`` (flattened over S with ``observation="full"``) of each row.

        ``release``: for a release, whose rows unseen at fit are counted and warned of.
        """
        rows = self._encode_release(X) if release else self.alphabet_.encode(X)
        if self.observation == "full":
            rows = self._sensitive_alphabet.encode(S) * self.alphabet_.n_symbols_ + rows
        return rows

    def mean_distortion(self, X, Xt):
        """Mean distortion ``d(y, u)`` between released rows and their release."""
        y_codes = self.alphabet_.encode(X, handle_unknown="nearest")
        u_codes = RowIndex(self.output_records_).codes(Xt, name="Xt", unknown=-1)
        if np.any(u_codes < 0):
            raise ValueError("Xt holds records outside output_records_.")
        return float(np.mean(self.distortion_matrix_[y_codes, u_codes]))

    # ---------------------------------------------------------------- helpers
    def _solve(self, joint, distortion):
        kwargs = dict(
            solver=self.solver,
            solver_options=self.solver_options,
            tol=self.tol,
            verbose=self.verbose,
        )
        if self.leakage == "average":
            return min_average_leakage_mapping(
                joint, distortion, self.max_distortion, max_iter=self.max_iter, **kwargs
            )
        return min_maximum_leakage_mapping(
            joint, distortion, self.max_distortion, max_iter=self.max_iter, **kwargs
        )

    def _fit_full(self):
        """Remark 3: the input alphabet is the pairs (s, y); S is a function of it."""
        n_s, n_y = self.joint_.shape
        s_idx, y_idx = np.nonzero(self.joint_ > 0)
        pair_joint = np.zeros((n_s, s_idx.size))
        pair_joint[s_idx, np.arange(s_idx.size)] = self.joint_[s_idx, y_idx]
        result = self._solve(pair_joint, self.distortion_matrix_[y_idx])
        pairs = result["mapping"]
        # Unseen pairs (s, y) get P(U | Y=y) (eq. 19), or the closest output for unseen y.
        marginal = np.zeros((n_y, pairs.shape[1]))
        np.add.at(marginal, y_idx, pairs * self.joint_[s_idx, y_idx][:, None])
        weights = marginal.sum(axis=1, keepdims=True)
        closest = np.eye(pairs.shape[1])[np.argmin(self.distortion_matrix_, axis=1)]
        marginal = np.where(weights > 0, marginal / np.where(weights > 0, weights, 1), closest)
        mapping = np.repeat(marginal[None], n_s, axis=0)
        mapping[s_idx, y_idx] = pairs
        self.mapping_ = mapping
        return result

    def _check_output_alphabet(self, n_columns):
        if self.output_alphabet is None:
            return self.input_records_
        out = np.asarray(self.output_alphabet)
        if out.ndim == 1 and n_columns == 1:
            out = out.reshape(-1, 1)
        if out.ndim != 2 or out.shape[1] != n_columns or out.shape[0] < 1:
            raise ValueError(
                f"output_alphabet must have shape (n_outputs, {n_columns}): one record per "
                f"row with the {n_columns} released column(s); got shape {out.shape}."
            )
        return out

    def _distortion_matrix(self):
        n_y, n_u = self.input_records_.shape[0], self.output_records_.shape[0]
        if isinstance(self.distortion, str):
            D = distortion_matrix(self.input_records_, self.output_records_, kind=self.distortion)
        else:
            D = (
                self.distortion(self.input_records_, self.output_records_)
                if callable(self.distortion)
                else self.distortion
            )
            D = np.asarray(D, dtype=float)
            if D.shape != (n_y, n_u):
                raise ValueError(
                    f"distortion must have shape (n_inputs, n_outputs) = ({n_y}, {n_u}): one "
                    "row per distinct training row (input_records_, sorted) and one column per "
                    f"output record; got shape {D.shape}."
                )
            _, D = _check_problem(self.joint_, D)  # finite, non-negative
        return D
