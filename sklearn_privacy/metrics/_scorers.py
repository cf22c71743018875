"""Scorers for ``GridSearchCV`` and friends: leakage, adversary accuracy, distortion.

A scorer finds the mechanism (itself or a Pipeline's step), reads S from the fold's columns or
routed metadata, releases the fold and measures the release.
"""

import threading
import time
from abc import ABC, abstractmethod
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.pipeline import Pipeline
from sklearn.utils.metadata_routing import MetadataRequest

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import routing_advice
from sklearn_privacy.estimation import ESTIMATORS, MAX_SAMPLES, estimate_leakage
from sklearn_privacy.information import encode_symbols, mutual_information
from sklearn_privacy.metrics._leakage import (
    adversary_accuracy_score,
    check_adversaries,
)
from sklearn_privacy.utils import warn_user
from sklearn_privacy.utils._dask import is_dask_collection
from sklearn_privacy.utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _routing_enabled,
    validate_params,
)

# The scorer's estimators: those of leakage_score, and "exact" (from the mechanism).
_SCORER_ESTIMATORS = ESTIMATORS | {"exact"}

__all__ = [
    "exact_leakage_score",
    "find_mechanism",
    "is_privacy_scorer",
    "make_adversary_scorer",
    "make_distortion_scorer",
    "make_leakage_scorer",
]


@validate_params(
    {"estimator": [HasMethods(["fit"])], "X": ["array-like", "sparse matrix", None]},
    prefer_skip_nested_validation=True,
)
def find_mechanism(estimator, X=None):
    """Locate the privacy mechanism in ``estimator`` and its input.

    Parameters
    ----------
    estimator : BaseMechanism or Pipeline
        A fitted mechanism, or a fitted Pipeline (possibly nested) with one.
    X : array-like, default=None
        Data entering ``estimator``; when given it is pushed through the steps
        before the mechanism.

    Returns
    -------
    mechanism : BaseMechanism
        The mechanism (the first step that is or holds one).
    X_mechanism : array-like or None
        ``X`` as the mechanism sees it.

    Raises
    ------
    TypeError
        If ``estimator`` is neither a mechanism nor a Pipeline holding one.

    See Also
    --------
    make_leakage_scorer : Scorer that scores the mechanism this function finds.
    make_distortion_scorer : Scorer of the mechanism's own distortion.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from sklearn_privacy import PrivacyFunnelTransformer
    >>> from sklearn_privacy.metrics import find_mechanism
    >>> funnel = PrivacyFunnelTransformer(threshold=0.5)
    >>> pipe = make_pipeline(FunctionTransformer(np.abs), funnel)
    >>> mechanism, X_mechanism = find_mechanism(pipe, np.array([[-1], [2]]))
    >>> mechanism is funnel, X_mechanism.ravel().tolist()
    (True, [1, 2])
    """
    if isinstance(estimator, BaseMechanism):
        return estimator, X
    if isinstance(estimator, Pipeline) and _holds_mechanism(estimator):
        for _, step in estimator.steps:
            if step is None or step == "passthrough":
                continue
            if isinstance(step, (BaseMechanism, Pipeline)) and _holds_mechanism(step):
                return find_mechanism(step, X)
            if X is not None:
                X = step.transform(X)
    hidden = _branches_holding_mechanism(estimator)
    if hidden:
        raise TypeError(
            f"The mechanism is inside {hidden}: privacy scorers find a mechanism only "
            "among the steps of a Pipeline (nested Pipelines included), as they measure the "
            "whole release and a branch releases only some columns (the others would go "
            "unmeasured). Make the mechanism a step of the Pipeline, on every column that is "
            "released, or score the branch's own Pipeline on its columns."
        )
    raise TypeError(
        f"{type(estimator).__name__} is neither a sklearn_privacy mechanism nor a Pipeline "
        "holding one; privacy scorers need one."
    )


def _branches_holding_mechanism(estimator):
    """Name of a ColumnTransformer or FeatureUnion inside ``estimator`` that holds a mechanism."""
    steps = [estimator]
    while steps:
        step = steps.pop()
        if isinstance(step, BaseMechanism):
            continue
        if isinstance(step, Pipeline):
            steps.extend(s for _, s in step.steps)
            continue
        branches = getattr(step, "transformers", None) or getattr(step, "transformer_list", None)
        for branch in branches or []:
            inner = branch[1]
            if isinstance(inner, BaseMechanism) or (
                isinstance(inner, Pipeline) and _holds_mechanism(inner)
            ):
                return f"a {type(step).__name__}"
            steps.append(inner)
    return None


def _holds_mechanism(estimator):
    if isinstance(estimator, BaseMechanism):
        return True
    return isinstance(estimator, Pipeline) and any(
        _holds_mechanism(step) for _, step in estimator.steps
    )


class _MechanismScorer(ABC):
    """Base of the privacy scorers: finds the mechanism, S and the release.

    A subclass measures the release in :meth:`_measure` and names what it
    measures in ``_name`` (also the ``make_*_scorer`` of its repr), read as
    :attr:`measure`. ``_sign`` is scikit-learn's name (its ``_BaseScorer`` has
    one); :attr:`greater_is_better` is the public, read-only face of it.
    With ``verbose`` among its options, it counts its calls and starts each
    printed line with :meth:`_verbose_prefix`.
    """

    _name = "mechanism"

    def __init__(self, sign, kwargs):
        self._sign = sign
        self._kwargs = kwargs
        self._request_sensitive = True
        self._n_calls = 0
        # a search on threads shares one scorer: each call takes its own number
        self._calls_lock = threading.Lock()

    def __getstate__(self):
        # a search on processes pickles the scorer; a lock does not pickle
        state = self.__dict__.copy()
        del state["_calls_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._calls_lock = threading.Lock()

    @property
    def greater_is_better(self):
        """bool: Whether the scorer returns the measure itself (True) or minus it (False)."""
        return self._sign > 0

    @property
    def measure(self):
        """str: What the scorer measures, read-only.

        ``"leakage"`` (an estimate of :math:`I(S; \\text{release})` in nats),
        ``"adversary"`` (the accuracy of an adversary guessing S from the
        release) or ``"distortion"`` (the mechanism's own distortion): the
        ``make_*_scorer`` that built it.
        """
        return self._name

    def __call__(self, estimator, X, y=None, **metadata):
        call = self._count_call()
        start = time.perf_counter()
        sensitive = metadata.pop("sensitive", None)
        if metadata:
            raise TypeError(f"{self!r} got unexpected metadata {sorted(metadata)}.")
        mechanism, X_mech = find_mechanism(estimator, X)
        if is_dask_collection(X_mech):
            # A leakage estimate reads the whole fold: compute it once, keeping its columns.
            X_mech = X_mech.compute()
        X_release, S = mechanism.split_sensitive(X_mech, sensitive)
        prefix = None if call is None else self._verbose_prefix(call, X, X_release.shape[0])
        if S is None and self._needs_sensitive:
            raise ValueError(
                f"{self!r} found no sensitive attribute: the mechanism has no sensitive "
                "columns (sensitive=[...]) and no `sensitive` metadata reached the scorer "
                "(called directly: scorer(estimator, X, y, sensitive=S)). "
                + routing_advice(
                    f"{self!r}.set_score_request(sensitive=True) (the default) and the "
                    "mechanism's .set_fit_request(sensitive=True)",
                    self._request_sensitive,
                )
            )
        if S is not None and len(encode_symbols(S, name="sensitive")[1]) < 2:
            # I(S; U) of a constant S is 0 and an adversary is always right: neither
            # says anything about the release (a LeaveOneOut fold scored 0 nats)
            warn_user(
                f"{self!r}: the rows of a fold hold a single value of S, on which nothing "
                "about the release can be measured; the score is nan. Use larger folds "
                "holding every value of S (fewer splits, or stratify on S).",
                UndefinedMetricWarning,
            )
            if prefix is not None:
                print(f"{prefix} score nan: a single value of S")
            return np.nan
        value = self._measure_without_release(mechanism, X_release, S, prefix)
        if value is None:
            release = np.asarray(mechanism.transform(X_mech))
            value = self._measure(mechanism, X_release, release, S, y, prefix)
        score = self._sign * value
        if prefix is not None:
            print(f"{prefix} score {score:.4f} in {time.perf_counter() - start:.2f} s")
        return score

    _needs_sensitive = True

    def _count_call(self):
        """This call's number, from 1 (None where the scorer is not verbose)."""
        if not self._kwargs.get("verbose"):
            return None
        with self._calls_lock:
            self._n_calls += 1
            return self._n_calls

    def _verbose_prefix(self, call, X, n_rows):
        """Where a line comes from: ``[leakage scorer, call 3, 200 rows, index 400 ... 599]``.

        scikit-learn does not tell a scorer which fold or candidate it scores: the
        call's number, the fold's size and, for a pandas ``X``, the first and last
        labels of its index let the lines be matched to the search's results.
        """
        where = [f"{self._name} scorer", f"call {call}", f"{n_rows} rows"]
        index = getattr(X, "index", None)
        if isinstance(index, pd.Index) and len(index):
            where.append(f"index {index[0]} ... {index[-1]}")
        return f"[{', '.join(where)}]"

    def _measure_without_release(self, mechanism, X_release, S, prefix):
        """A measure that needs no release (None: release the fold and measure it)."""
        return None

    @abstractmethod
    def _measure(self, mechanism, X_release, release, S, y, prefix):
        """The measure of ``release``, the fold's release of ``X_release`` (S: the fold's S).

        ``prefix`` starts each line the measure prints (None: it prints nothing).
        """

    # -- metadata routing: S is requested by default, so routed S reaches the scorer.
    def set_score_request(self, *, sensitive=True):
        """Whether the routed ``sensitive`` metadata is passed to the scorer.

        Parameters
        ----------
        sensitive : bool, default=True
            Requested by default, so that ``fit(X, y, sensitive=S)`` of a
            search with metadata routing enabled reaches the scorer.

        Returns
        -------
        self

        Raises
        ------
        RuntimeError
            With metadata routing off, as scikit-learn's ``set_*_request``: the
            request would not reach a search, which would fail on S later.
        """
        if not _routing_enabled():
            raise RuntimeError(
                f"{self!r}.set_score_request takes effect only with metadata routing on. "
                + routing_advice(f"{self!r}.set_score_request(sensitive=True)", True)
            )
        self._request_sensitive = bool(sensitive)
        return self

    def get_metadata_routing(self):
        """Metadata request of the scorer (``sensitive`` for ``score``)."""
        request = MetadataRequest(owner=self.__class__.__name__)
        if self._needs_sensitive:
            request.score.add_request(param="sensitive", alias=self._request_sensitive)
        return request

    def __repr__(self):
        params = {**self._kwargs, "greater_is_better": self.greater_is_better}
        args = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return f"make_{self._name}_scorer({args})"


@validate_params({"scorer": "no_validation"}, prefer_skip_nested_validation=True)
def is_privacy_scorer(scorer):
    """Whether ``scorer`` is one of the library's privacy scorers.

    A privacy scorer, made by :func:`make_leakage_scorer`,
    :func:`make_adversary_scorer` or :func:`make_distortion_scorer`, scores the
    mechanism of an estimator rather than its predictions; its ``measure``
    (``"leakage"``, ``"adversary"`` or ``"distortion"``) and
    ``greater_is_better`` say how to read its scores (the plots of a search's
    results label their axes from them).

    Parameters
    ----------
    scorer : object
        Any object: a scorer, a scorer's name, a callable, None.

    Returns
    -------
    bool
        True for a scorer made by one of the ``make_*_scorer`` of this module.

    See Also
    --------
    make_leakage_scorer : The leakage scorer.
    find_mechanism : How a privacy scorer finds the mechanism in a pipeline.

    Examples
    --------
    >>> from sklearn.metrics import get_scorer
    >>> from sklearn_privacy.metrics import (
    ...     is_privacy_scorer, make_leakage_scorer)
    >>> scorer = make_leakage_scorer()
    >>> is_privacy_scorer(scorer), scorer.measure
    (True, 'leakage')
    >>> is_privacy_scorer(get_scorer("accuracy")), is_privacy_scorer("leakage")
    (False, False)
    """
    return isinstance(scorer, _MechanismScorer)


def _exact_leakage(mechanism, X_release, S, required=False, n_shuffles=0):
    """``I(S; U)`` on the rows from the mechanism's release distribution.

    With ``n_shuffles``, minus its mean over that many permutations of S among
    the rows (seeded: the same rows give the same score). None when the
    release is not finite with known probabilities, an error saying so when
    ``required``.
    """
    probabilities = mechanism.release_distribution(X_release, S)
    if probabilities is None:
        if required:
            raise ValueError(
                f"{type(mechanism).__name__} does not release finitely many values with "
                "known probabilities: estimate its leakage from a release with leakage_score."
            )
        return None
    codes, symbols = encode_symbols(S, name="sensitive")

    def leakage(s_codes):
        joint = np.zeros((len(symbols), probabilities.shape[1]))
        np.add.at(joint, s_codes, probabilities)
        return float(mutual_information(joint / joint.sum()))

    value = leakage(codes)
    if n_shuffles:
        rng = np.random.default_rng(0)
        value -= float(np.mean([leakage(rng.permutation(codes)) for _ in range(n_shuffles)]))
    return value


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        # resolved by the mechanism's own rules for its ``sensitive`` parameter
        "sensitive": "no_validation",
        "n_shuffles": [Interval(Integral, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def exact_leakage_score(estimator, X, *, sensitive=None, n_shuffles=0):
    r"""The leakage :math:`I(S; \text{release})` on the rows ``X``, computed without sampling.

    For a mechanism whose release takes finitely many values with known
    probabilities (the funnels' merges, the convex mapping, PPAN with a
    categorical release), the joint
    distribution of S and the release on the rows is
    :math:`P(s, u) = \frac{1}{n} \sum_i [s_i = s]\, P(u \mid \text{row } i)`, so its mutual
    information is the leakage of the mechanism on those rows, with none of
    the sampling bias of an estimate from one release (0.009 nats on an
    Adult test fold where the plug-in estimate of one release is used).

    Parameters
    ----------
    estimator : BaseMechanism or Pipeline
        A fitted mechanism, or a fitted Pipeline holding one (the rows are
        pushed through the steps before it).
    X : array-like of shape (n_samples, n_features)
        The rows, with S as columns when the mechanism reads it from columns.
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
        S given separately.
    n_shuffles : int, default=0
        ``0``: the leakage on these rows. Above 0: minus its mean over that
        many permutations of S among the rows, the leakage the rows' own
        sampling of (S, X) shows where S and X are independent. That is the
        bias of reading the mechanism's leakage on new data off few rows: on
        600-row Adult folds the leakage on the rows was 0.067 nats (convex
        mapping) and 0.042 (funnel) where 29561 held-out rows give 0.015 and
        0.011; with 10 shuffles 0.021 and 0.013. Where the release gives S
        away the correction subtracts too much (the bias of a strong relation
        is smaller than that of independence): prefer it for comparing
        mechanisms that leak little. The corrected value can fall slightly
        below 0. The permutations are seeded (the same rows score the same).

    Returns
    -------
    float
        :math:`I(S; \text{release})` in nats (corrected with ``n_shuffles``).

    Raises
    ------
    ValueError
        If the mechanism's release is not finite with known probabilities
        (Gaussian mechanisms, networks): use :func:`leakage_score`.

    See Also
    --------
    leakage_score : Estimates from a sampled release, for any mechanism.
    make_leakage_scorer : Uses this for such mechanisms with ``estimator="auto"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy import ConvexPrivacyMapping
    >>> from sklearn_privacy.metrics import exact_leakage_score
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 500)
    >>> X = np.c_[s, (s + (rng.random(500) < 0.2)) % 2]
    >>> mech = ConvexPrivacyMapping(0.3, sensitive=[0]).fit(X)
    >>> exact = round(exact_leakage_score(mech, X), 4)
    >>> exact <= round(mech.leakage_ + 1e-4, 4)
    True
    """
    mechanism, X_mech = find_mechanism(estimator, X)
    X_release, S = mechanism.split_sensitive(X_mech, sensitive)
    if S is None:
        raise ValueError("exact_leakage_score needs S: as columns of X or as `sensitive`.")
    return _exact_leakage(mechanism, X_release, S, required=True, n_shuffles=n_shuffles)


class _LeakageScorer(_MechanismScorer):
    _name = "leakage"

    def _measure_without_release(self, mechanism, X_release, S, prefix):
        """The exact leakage where the mechanism allows it ("auto", "exact")."""
        estimator = self._kwargs["estimator"]
        if estimator not in ("auto", "exact"):
            return None
        start = time.perf_counter()
        value = _exact_leakage(
            mechanism,
            X_release,
            S,
            required=estimator == "exact",
            n_shuffles=self._kwargs["n_shuffles"],
        )
        if value is not None and prefix is not None:
            print(f"{prefix} exact: {value:.4f} nats in {time.perf_counter() - start:.2f} s")
        return value

    def _measure(self, mechanism, X_release, release, S, y, prefix):
        # leakage_score's work, its parameters validated by make_leakage_scorer; called
        # directly so that the panel's lines start with the call's prefix
        kwargs = {k: v for k, v in self._kwargs.items() if k != "n_shuffles"}
        kwargs["adversaries"] = check_adversaries(kwargs.get("adversaries"))
        return estimate_leakage(S, release, verbose_prefix=prefix or "[leakage]", **kwargs).value


class _AdversaryScorer(_MechanismScorer):
    _name = "adversary"

    def _measure(self, mechanism, X_release, release, S, y, prefix):
        return adversary_accuracy_score(S, release, **self._kwargs)


class _DistortionScorer(_MechanismScorer):
    _name = "distortion"
    _needs_sensitive = False

    def _measure(self, mechanism, X_release, release, S, y, prefix):
        return mechanism.mean_distortion(X_release, release)


@validate_params(
    {
        "estimator": [StrOptions(_SCORER_ESTIMATORS)],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_splits": [Interval(Integral, 2, None, closed="left")],
        "n_shuffles": [Interval(Integral, 0, None, closed="left")],
        "greater_is_better": ["boolean"],
        "adversaries": [None, dict, list],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
        "max_samples": [None, Interval(Integral, 2, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def make_leakage_scorer(
    *,
    estimator="auto",
    n_neighbors=5,
    n_splits=5,
    n_shuffles=0,
    greater_is_better=False,
    adversaries=None,
    n_jobs=None,
    verbose=0,
    max_samples=MAX_SAMPLES,
):
    r"""Scorer of the leakage :math:`I(S; \text{release})` on the test fold, in nats.

    Parameters
    ----------
    estimator : str, default="auto"
        How the mutual information is measured: ``"auto"``, ``"exact"``, or
        one of :func:`leakage_score`'s (``"logistic"``, ``"boosting"``,
        ``"table"``, ``"knn"``, ``"plugin"``, ``"miller_madow"``,
        ``"gaussian"``). ``"exact"``: computed from
        the mechanism's release probabilities on the fold, with no sampling
        (see :func:`exact_leakage_score`; the funnels, the convex mapping and a
        categorical PPAN).
        ``"auto"``: ``"exact"`` where the mechanism allows it, else
        :func:`leakage_score`'s ``"auto"`` on one release of the fold: the
        largest of a panel of held-out adversaries' lower bounds and the
        kNN or plug-in estimate, so that a wide release that gives S away
        cannot read as private (an ``L2CompressionDP`` release of 100
        columns whose first carries S read 0.08 nats with the kNN estimate
        alone while an adversary was right 92 % of the time; it now reads
        0.51, a held-out logistic bound 0.52). The others: see
        :func:`leakage_score`.
    n_neighbors : int, default=5
        Neighbours of the kNN estimate.
    n_splits : int, default=5
        Folds of the held-out bounds, within the test fold.
    n_shuffles : int, default=0
        For the exact leakage: ``0`` scores the leakage on the fold's rows,
        which the fold's own sampling of (S, X) inflates on small folds (0.067
        against 0.015 nats on new data, 600-row Adult folds); above 0, minus
        its mean over this many permutations of S within the fold (see
        :func:`exact_leakage_score`: 0.021 there). The correction is exact
        where S and the release are nearly independent and over-corrects
        where the release gives S away (20-row folds of a release equal to S:
        0.47-0.55 against 0.69 nats), so the default keeps the uncorrected
        score, which errs towards more leakage.
    greater_is_better : bool, default=False
        With the default the scorer returns :math:`-I(S; \text{release})` (a ``neg_``
        score, so that greater is better as scikit-learn expects).
    adversaries : dict of str to classifier or list of classifiers, default=None
        The user's own adversaries, added to the panel (see :func:`leakage_score`).
    n_jobs : int, default=None
        Threads for the panel's members (see :func:`leakage_score`).
    verbose : int, default=0
        Print, for each call, a line per member of the panel with its
        estimate and its time (see :func:`leakage_score`; one ``exact`` line
        where the leakage is exact), then the call's score and time. Every
        line starts with where it comes from, as scikit-learn does not tell a
        scorer which fold or candidate it scores: for example
        ``[leakage scorer, call 2, 100 rows] logistic: 0.0109 nats in 0.19 s``,
        then ``[leakage scorer, call 2, 100 rows] score -0.0967 in 0.51 s``.
        ``call 2``: this scorer object's second call since it was made (one
        count per object, kept across searches). ``100 rows``: the size of the
        scored fold. With a pandas DataFrame ``X``, ``index a ... b`` follows:
        the first and last labels of the fold's index. The ``score`` is the
        value the search records. In a search at ``n_jobs=1`` the calls follow
        scikit-learn's order: ``cross_validate`` scores split 0, 1, ...;
        ``GridSearchCV`` every split of its first candidate, then of the
        second, so that call ``k`` is candidate ``(k - 1) // n_splits``,
        split ``(k - 1) % n_splits`` of ``cv_results_``; with
        ``return_train_score=True`` the training fold of each split is
        scored after its test fold, one more call. With ``n_jobs > 1`` on
        processes each worker scores with its own copy of the scorer, which
        counts from the number it was copied with: the numbers then repeat
        and say nothing of the position; match a line to ``cv_results_`` by
        its rows, index and score.
    max_samples : int or None, default=50000
        The most rows of a fold the panel reads (a seeded draw above; see
        :func:`leakage_score`); shown in the repr where not the default.

    Returns
    -------
    callable
        ``scorer(estimator, X, y=None, *, sensitive=None)``; its read-only
        attributes ``measure`` (``"leakage"``) and ``greater_is_better`` say what
        it measures and whether it returns the measure (True) or minus it (False).

    See Also
    --------
    leakage_score : The estimate this scorer computes.
    make_adversary_scorer : Scorer of an adversary's accuracy.
    sklearn_privacy.model_selection.tradeoff_curve : Sweep that uses these scorers.

    Examples
    --------
    >>> from sklearn_privacy.metrics import make_leakage_scorer
    >>> make_leakage_scorer(estimator="plugin")  # doctest: +NORMALIZE_WHITESPACE
    make_leakage_scorer(estimator='plugin', n_neighbors=5, n_splits=5,
                        n_shuffles=0, greater_is_better=False)
    """
    kwargs = {
        "estimator": estimator,
        "n_neighbors": n_neighbors,
        "n_splits": n_splits,
        "n_shuffles": n_shuffles,
    }
    # the panel's options appear in the repr only where set
    options = {"adversaries": adversaries, "n_jobs": n_jobs, "verbose": verbose}
    kwargs.update({k: v for k, v in options.items() if v})
    if max_samples != MAX_SAMPLES:
        kwargs["max_samples"] = max_samples
    if adversaries is not None:
        check_adversaries(adversaries)
    return _LeakageScorer(1 if greater_is_better else -1, kwargs)


@validate_params(
    {
        "adversary": [None, HasMethods(["fit", "predict"])],
        "train_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "greater_is_better": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_adversary_scorer(
    adversary=None, *, train_size=0.5, random_state=0, greater_is_better=False
):
    """Scorer of the accuracy of an adversary predicting S from the test fold's release.

    The adversary is trained on ``train_size`` of the test fold's release and
    scored on the rest (see :func:`adversary_accuracy_score`).

    Parameters
    ----------
    adversary : classifier, default=None
        Any scikit-learn classifier; ``None`` uses a logistic regression.
    train_size : float, default=0.5
        Share of the test fold the adversary trains on.
    random_state : int, RandomState instance or None, default=0
        Controls the split inside the fold.
    greater_is_better : bool, default=False
        With the default the scorer returns minus the accuracy (higher is more
        private).

    Returns
    -------
    callable
        ``scorer(estimator, X, y=None, *, sensitive=None)``; its read-only
        attributes ``measure`` (``"adversary"``) and ``greater_is_better`` say what
        it measures and whether it returns the measure (True) or minus it (False).

    See Also
    --------
    adversary_accuracy_score : The accuracy this scorer computes.
    make_leakage_scorer : Scorer of the information leakage.

    Examples
    --------
    >>> from sklearn_privacy.metrics import make_adversary_scorer
    >>> make_adversary_scorer()  # doctest: +NORMALIZE_WHITESPACE
    make_adversary_scorer(adversary=None, train_size=0.5, random_state=0,
                          greater_is_better=False)
    """
    kwargs = {"adversary": adversary, "train_size": train_size, "random_state": random_state}
    return _AdversaryScorer(1 if greater_is_better else -1, kwargs)


@validate_params({"greater_is_better": ["boolean"]}, prefer_skip_nested_validation=True)
def make_distortion_scorer(*, greater_is_better=False):
    """Scorer of the mechanism's own distortion between released columns and release.

    Each mechanism defines its distortion (mean squared error for releases
    that keep the columns, the distortion matrix of a convex mapping, ...).

    Parameters
    ----------
    greater_is_better : bool, default=False
        With the default the scorer returns minus the distortion.

    Returns
    -------
    callable
        ``scorer(estimator, X, y=None, *, sensitive=None)``; its read-only
        attributes ``measure`` (``"distortion"``) and ``greater_is_better`` say what
        it measures and whether it returns the measure (True) or minus it (False).

    See Also
    --------
    make_leakage_scorer : Scorer of the information leakage.
    find_mechanism : How the scorer finds the mechanism in a pipeline.

    Examples
    --------
    >>> from sklearn_privacy.metrics import make_distortion_scorer
    >>> make_distortion_scorer()
    make_distortion_scorer(greater_is_better=False)
    >>> make_distortion_scorer().greater_is_better
    False
    """
    return _DistortionScorer(1 if greater_is_better else -1, {})
