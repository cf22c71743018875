"""Privacy/utility trade-off sweeps, shaped like scikit-learn's ``validation_curve``."""

import numbers
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.utils import Bunch
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import indexable

from sklearn_privacy._base import BaseMechanism
from sklearn_privacy._sensitive import routing_advice
from sklearn_privacy.metrics import find_mechanism, is_privacy_scorer
from sklearn_privacy.utils import user_stacklevel
from sklearn_privacy.utils._sklearn_compat import (
    HasMethods,
    StrOptions,
    _routing_enabled,
    validate_params,
)

__all__ = ["pareto_front", "tradeoff_curve"]


def _fit_and_score(estimator, X, y, split, parameters, scoring, params, error_score):
    """Fit a clone with ``parameters`` on one split's training rows and score its test rows.

    scikit-learn's ``cross_validate`` on that one split does the work: it
    splits the sample-aligned metadata with the rows and routes it to the
    estimator and the scorers (or passes it to ``fit`` when routing is off).
    A fit that fails scores ``error_score`` with a ``FitFailedWarning`` (on one
    split ``cross_validate`` would call it "all the fits failed" and raise).
    """
    try:
        result = cross_validate(
            clone(estimator).set_params(**parameters),
            X,
            y,
            scoring=scoring,
            cv=[split],
            params=params,
            error_score="raise",
            n_jobs=1,
        )
    except Exception as exc:
        if isinstance(error_score, str):  # "raise"
            raise
        warnings.warn(
            f"tradeoff_curve: the fit with {parameters} failed and scores {error_score}: "
            f"{type(exc).__name__}: {exc}",
            FitFailedWarning,
            stacklevel=user_stacklevel(),
        )
        names = list(scoring) if isinstance(scoring, dict) else ["score"]
        return {name: error_score for name in names}, np.nan
    scores = {key[5:]: value[0] for key, value in result.items() if key.startswith("test_")}
    return scores, result["fit_time"][0]


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        "y": ["array-like", None],
        "param_name": [str, None],
        "param_range": ["array-like", None],
        "scoring": [dict, callable, str],
        "cv": ["cv_object"],
        "n_jobs": [int, None],
        "params": [dict, None],
        "verbose": ["verbose"],
        "error_score": [StrOptions({"raise"}), numbers.Real],
    },
    prefer_skip_nested_validation=False,
)
def tradeoff_curve(
    estimator,
    X,
    y=None,
    *,
    param_name=None,
    param_range=None,
    scoring,
    cv=None,
    n_jobs=None,
    params=None,
    verbose=0,
    error_score=np.nan,
):
    """Leakage and utility of an estimator along one trade-off knob.

    For each value of ``param_name`` and each cross-validation split, a clone
    of ``estimator`` (a mechanism, or a Pipeline holding one) is fitted on the
    training rows and every scorer of ``scoring`` is evaluated on the test rows:
    each such job is :func:`~sklearn.model_selection.cross_validate` on that
    one split, so the numbers are those ``cross_validate`` gives at each
    value. The jobs run in one :mod:`joblib` call over (value, split), so a
    dask or ray joblib backend distributes them
    (``with joblib.parallel_backend("dask"): ...``).

    Parameters
    ----------
    estimator : estimator
        Mechanism or Pipeline; cloned for each job.
    X : array-like of shape (n_samples, n_features)
        Data, with the sensitive columns when the mechanism reads S from X.
    y : array-like of shape (n_samples,), default=None
        Target of the downstream task.
    param_name : str, default=None
        The knob, e.g. ``"privacy__epsilon"``. ``None``: the knob the
        mechanism declares (:meth:`~sklearn_privacy.base.BaseMechanism.get_tradeoff_knob`),
        prefixed with its Pipeline step names.
    param_range : array-like, default=None
        Values of the knob. ``None``: five values of the declared knob's
        default range (only when ``param_name`` is None too).
    scoring : dict, callable or str
        Scorers, e.g. ``{"accuracy": "accuracy", "leakage": make_leakage_scorer()}``.
    cv : int, cross-validation generator or iterable, default=None
        As in :func:`~sklearn.model_selection.cross_validate`.
    n_jobs : int, default=None
        Parallel jobs.
    params : dict, default=None
        Metadata such as ``sensitive``. With metadata routing enabled they are
        routed to the estimator's ``fit``, the splitter and the scorers that
        request them; otherwise they are passed to ``fit``. Sample-aligned
        values are split with the rows.
    verbose : int, default=0
        Verbosity of joblib.
    error_score : "raise" or numeric, default=np.nan
        The score of a fit that fails, with a ``FitFailedWarning`` (as in
        :func:`~sklearn.model_selection.validation_curve`); ``"raise"``
        raises the error.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        ``param_name``, ``param_range`` (a float array when every value is a
        number), ``test_scores`` (dict of arrays of
        shape ``(n_values, n_splits)``; a single scorer is named ``"score"``),
        ``mean_test_scores`` (dict of arrays of shape ``(n_values,)``),
        ``fit_times`` of shape ``(n_values, n_splits)``, and
        ``more_leakage_when`` (``"larger"``/``"smaller"``, the declared
        direction of the mechanism's knob, ``None`` for another parameter).

    See Also
    --------
    pareto_front : The non-dominated points of a trade-off.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from sklearn_privacy import L2CompressionDP
    >>> from sklearn_privacy.model_selection import tradeoff_curve
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> # a fixed, public transform (a StandardScaler would be fitted on the
    >>> # private rows)
    >>> pipe = make_pipeline(FunctionTransformer(np.log1p),
    ...                      L2CompressionDP(clip_radius=2.0),
    ...                      LogisticRegression(max_iter=1000))
    >>> result = tradeoff_curve(pipe, X, y,
    ...                         param_name="l2compressiondp__epsilon",
    ...                         param_range=[10.0, 1000.0],
    ...                         scoring={"accuracy": "accuracy"}, cv=3)
    >>> result.test_scores["accuracy"].shape
    (2, 3)
    >>> accuracy = result.mean_test_scores["accuracy"]
    >>> bool(accuracy[1] > accuracy[0])
    True
    """
    X, y = indexable(X, y)
    knob_path, knob = _locate_knob(estimator)
    if param_name is None:
        if knob is None:
            raise ValueError(
                "param_name is None, and estimator holds no sklearn_privacy mechanism whose "
                "knob could be swept: name the parameter."
            )
        param_name = knob_path
        if param_range is None:
            param_range = knob.grid(5)
    elif param_range is None:
        raise ValueError(f"param_range is needed with param_name={param_name!r}.")
    direction = knob.more_leakage_when if param_name == knob_path else None
    params = {} if params is None else dict(params)
    cv = check_cv(cv, y, classifier=is_classifier(estimator))
    scorer = check_scoring(estimator, scoring=scoring, raise_exc=True)
    if _routing_enabled():

        def router(splitter):
            routed = MetadataRouter(owner="tradeoff_curve")
            if splitter is not None:
                mapping = MethodMapping().add(caller="fit", callee="split")
                routed = routed.add(splitter=splitter, method_mapping=mapping)
            mapping = MethodMapping().add(caller="fit", callee="fit")
            routed = routed.add(estimator=estimator, method_mapping=mapping)
            mapping = MethodMapping().add(caller="fit", callee="score")
            return routed.add(scorer=scorer, method_mapping=mapping)

        split_params = process_routing(router(cv), "fit", **params).splitter.split
        # the splits are made here; cross_validate routes the rest again, split by split
        job_params = {key: params[key] for key in router(None).consumes("fit", params)}
    else:
        _check_params_reach_fit(estimator, scoring, params)
        split_params, job_params = {}, params
    splits = list(cv.split(X, y, **split_params))
    param_range = list(param_range)
    results = Parallel(n_jobs=n_jobs, verbose=verbose)(
        delayed(_fit_and_score)(
            estimator, X, y, split, {param_name: value}, scoring, job_params, error_score
        )
        for value in param_range
        for split in splits
    )
    shape = (len(param_range), len(splits))
    names = list(results[0][0])  # the scoring dict's keys, or "score" for one scorer

    def _collect(name):
        return np.asarray([r[0][name] for r in results], dtype=float).reshape(shape)

    test_scores = {name: _collect(name) for name in names}
    values = np.asarray(param_range, dtype=object)
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in param_range):
        values = values.astype(float)  # numeric knobs come back as a float array
    return Bunch(
        param_name=param_name,
        param_range=values,
        test_scores=test_scores,
        mean_test_scores={name: s.mean(axis=1) for name, s in test_scores.items()},
        fit_times=np.asarray([r[1] for r in results]).reshape(shape),
        more_leakage_when=direction,
    )


def _check_params_reach_fit(estimator, scoring, params):
    """With metadata routing off, refuse before any fit metadata S that would not arrive.

    Routing off, ``params`` go to ``estimator.fit`` as they are: a Pipeline takes
    only ``<step>__<param>`` names, so every fit would fail with scikit-learn's
    "Pipeline.fit does not accept the sensitive parameter", and no scorer gets
    ``sensitive``, so a privacy scorer of a mechanism without S columns would
    fail: a NaN per split and setting either way.
    """
    refused = sorted(key for key in params if "__" not in key)
    if not refused:
        return
    try:
        mechanism = find_mechanism(estimator, None)[0]
    except TypeError:  # no mechanism inside: say it of any step
        mechanism = None
    scorers = scoring.values() if isinstance(scoring, dict) else [scoring]
    if isinstance(estimator, Pipeline):
        why = "every fit would fail (Pipeline.fit takes only '<step>__<param>' names then)"
    elif (
        "sensitive" in params
        and getattr(mechanism, "sensitive", None) is None
        and any(is_privacy_scorer(scorer) for scorer in scorers)
    ):
        why = "the privacy scorers would get no S (only fit gets the params then)"
    else:
        return
    name = "<step>" if mechanism is None else type(mechanism).__name__
    raise ValueError(
        f"tradeoff_curve got params {refused} while scikit-learn's metadata routing is off: "
        f"{why}. "
        + routing_advice(f"{name}(...).set_fit_request(sensitive=True)", False)
        + " Or give S as columns of X, named by the mechanism's sensitive=[...]."
    )


def _locate_knob(estimator, prefix=""):
    """``(param path, TradeoffKnob)`` of the mechanism inside ``estimator``, or ``(None, None)``."""
    if isinstance(estimator, BaseMechanism):
        knob = estimator.get_tradeoff_knob()
        return prefix + knob.name, knob
    if isinstance(estimator, Pipeline):
        for name, step in estimator.steps:
            path, knob = _locate_knob(step, f"{prefix}{name}__")
            if knob is not None:
                return path, knob
    return None, None


@validate_params(
    {"leakage": ["array-like"], "utility": ["array-like"]}, prefer_skip_nested_validation=True
)
def pareto_front(leakage, utility):
    """Indices of the Pareto-optimal points: none has both less leakage and more utility.

    Parameters
    ----------
    leakage : array-like of shape (n_points,)
        Leakage of each operating point (lower is better).
    utility : array-like of shape (n_points,)
        Utility of each point (higher is better).

    Returns
    -------
    ndarray of int
        Indices of the non-dominated points, by increasing leakage. Among
        exact ties only the first index is kept.

    See Also
    --------
    tradeoff_curve : Leakage and utility along a mechanism's knob.
    sklearn_privacy.plotting.TradeoffDisplay : Plot that draws this front.

    Examples
    --------
    >>> from sklearn_privacy.model_selection import pareto_front
    >>> pareto_front([0.1, 0.2, 0.3, 0.15], [0.6, 0.9, 0.8, 0.5])
    array([0, 1])
    """
    leakage = np.asarray(leakage, dtype=float).ravel()
    utility = np.asarray(utility, dtype=float).ravel()
    if leakage.shape != utility.shape:
        raise ValueError(
            f"leakage and utility must have the same length, got {leakage.size} and {utility.size}."
        )
    if not (np.all(np.isfinite(leakage)) and np.all(np.isfinite(utility))):
        raise ValueError("leakage and utility must be finite.")
    order = np.lexsort((-utility, leakage))
    front, best = [], -np.inf
    for i in order:
        if utility[i] > best:
            front.append(i)
            best = utility[i]
    return np.asarray(front, dtype=int)
