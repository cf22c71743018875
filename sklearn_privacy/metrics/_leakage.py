"""The scorer-facing leakage functions: the sample estimate, the discrete-release rule, the attack.

The estimates themselves live in :mod:`sklearn_privacy.estimation`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_privacy.estimation import (
    ESTIMATORS,
    MAX_SAMPLES,
    check_pair,
    estimate_leakage,
    is_discrete,
)
from sklearn_privacy.information import encode_symbols
from sklearn_privacy.utils._routing import without_metadata_routing
from sklearn_privacy.utils._sklearn_compat import HasMethods, Interval, StrOptions, validate_params

__all__ = ["adversary_accuracy_score", "is_discrete_release", "leakage_score"]


@validate_params({"release": ["array-like"]}, prefer_skip_nested_validation=True)
def is_discrete_release(release):
    """Whether a release is read as symbols rather than as a continuous variable.

    A release is discrete when any of these holds:

    - its dtype is not float (integers, booleans, strings, objects);
    - all its values are finite integers (codes, one-hot encodings);
    - it takes few distinct rows: at most ``n_samples / 10``, so that each
      release value is seen 10 times on average (a float release with heavily
      repeated values, such as :math:`x + 0.3 S` with :math:`x` from a few levels).

    A release with continuous noise has (almost) as many distinct rows as
    samples and is not discrete. :func:`leakage_score` uses this rule to pick
    its ``"auto"`` estimator, and :func:`default_adversary` to pick its input
    encoding.

    Parameters
    ----------
    release : array-like of shape (n_samples,) or (n_samples, n_features)
        The release.

    Returns
    -------
    bool
        Whether the release is discrete.

    See Also
    --------
    leakage_score : Picks its estimator with this test.
    adversary_accuracy_score : Picks its default adversary with this test.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import is_discrete_release
    >>> is_discrete_release(np.eye(3))
    True
    >>> rng = np.random.default_rng(0)
    >>> is_discrete_release(rng.normal(size=(100, 2)))
    False
    >>> is_discrete_release(rng.integers(0, 3, 100) + 0.5)
    True
    """
    return is_discrete(release)


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like", "sparse matrix"],
        "estimator": [StrOptions(ESTIMATORS)],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_splits": [Interval(Integral, 2, None, closed="left")],
        "return_details": ["boolean"],
        "adversaries": [None, dict, list],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
        "max_samples": [None, Interval(Integral, 2, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def leakage_score(
    sensitive,
    release,
    *,
    estimator="auto",
    n_neighbors=5,
    n_splits=5,
    return_details=False,
    adversaries=None,
    n_jobs=None,
    verbose=0,
    max_samples=MAX_SAMPLES,
):
    r"""Estimate the leakage :math:`I(S; \text{release})` from paired samples, in nats.

    The default (``estimator="auto"``) is conservative: the largest of a
    panel of estimates, each honest on its own, so that no shape of release
    hides its leakage from all of them (see Notes).

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; rows of a 2-D array form one joint symbol.
        Floats that are not all integers with more than ``n_samples / 10``
        distinct values are read as a continuous S (see ``"auto"``).
    release : {array-like, sparse matrix} of shape (n_samples, n_features)
        What the mechanism released for the same rows; a sparse matrix is
        read as its dense twin (up to 10**8 cells) beside each row's count
        of stored entries. Missing (None, NaN, pd.NA) and infinite values
        are values: a category beside the number, and their count per row.
    estimator : str, default="auto"
        One of ``"auto"``, ``"logistic"``, ``"boosting"``, ``"network"``,
        ``"pairs"``, ``"table"``, ``"knn"``, ``"plugin"``, ``"miller_madow"``, ``"gaussian"``:

        - ``"auto"``: for a discrete S, the largest of the panel
          ``"logistic"``, ``"boosting"``, ``"network"``, ``"pairs"``, ``"table"``, the
          user's ``adversaries``, and ``"knn"`` (a continuous release: one
          with more than ``n_samples / 10`` distinct rows, not all integers;
          see :func:`is_discrete_release`) or ``"plugin"`` (a release with at
          most ``n_samples / 10`` distinct rows), the last two minus their
          permutation null, clipped to :math:`[0, H(S)]`. Above 200 values
          of S the logistic, boosting, network and pairs members are left out
          (their cost grows with the number of classes; the details'
          ``left_out`` says which and why), and the learned members are each
          fitted on at most 2000 of a fold's training rows (a seeded draw; any
          model fitted on other rows gives a held-out bound), so that their
          cost stays flat in ``n_samples``. For a continuous S, the
          held-out members' bounds on 2, 4 and 8 quantile bins of each
          column of S (:math:`I(f(S); T) \le I(S; T)` for any binning
          :math:`f`), beside the kNN estimate of Kraskov et al. (2004) for
          two continuous variables minus its permutation null, the largest
          counted (at least 0, no upper clip);
        - ``"logistic"``: the held-out lower bound
          :math:`H(S) - \text{CE}` of a logistic regression predicting S
          from the release, its cross-entropy CE measured on rows it was
          not fitted on: cross-fitted over ``n_splits`` folds. Columns of
          at most 32 values are one-hot encoded, code columns (integers,
          booleans, strings, objects, integer-valued floats) of more values
          with repeated values target-encoded (scikit-learn's
          :class:`~sklearn.preprocessing.TargetEncoder`, cross-fitted within
          the training rows), the others standardised;
        - ``"boosting"``: the same bound with scikit-learn's
          :class:`~sklearn.ensemble.HistGradientBoostingClassifier` (stopped
          early on its held-out log-loss from 200 rows on), code columns
          encoded as for ``"logistic"`` (ordinal instead of one-hot);
        - ``"network"``: the same bound with a small network (two hidden
          layers of 64 ReLU units, stopped on a held-out fifth's log-loss) on
          each number column's normal scores (its ranks), code columns
          encoded as for ``"logistic"``, and each row's root mean square (its
          geometry): it learns interactions (S the XOR or parity of
          columns) and nonlinear shapes that the others miss;
        - ``"pairs"``: the same bound with a tuned logistic regression on the
          products of the 10 pairs of columns (normal scores, codes encoded as
          for ``"logistic"``) most correlated with S on the training rows, and
          on at most 48 columns of the 10 such triples: S hidden in a product
          of columns among many (sign(z1 z2) among 100 N(0,1), sign(z1 z2 z3)
          among 33), where the network's training does not find it;
        - ``"table"``: the same bound with a table of the counts of S among
          the training rows of each release symbol (whole rows), shrunk
          towards the prior for symbols seen few times: it reads a
          high-cardinality release whose symbols each determine S;
        - ``"knn"``: the k-nearest-neighbour estimate of Ross (2014) for
          discrete S and a continuous release of any dimension, on each
          column's ranks (its empirical copula): invariant to any monotone
          map of a column and moved by one outlier by at most one rank.
          Rows seen more than once (ties) are counted exactly, as atoms, by the chain rule
          :math:`I(S; T) = I(S; A) + P(A = o)\, I(S; T \mid A = o)` (:math:`A` the atom of a
          row, :math:`o` for rows seen once): the plug-in estimate on the atoms
          and the kNN estimate on the rows seen once. On a release with no
          ties it is Ross's estimate, on one whose rows all repeat the
          plug-in estimate. Its neighbourhoods are set by every column, so
          that it cannot see one revealing column among many noise columns;
        - ``"plugin"``: mutual information of the empirical joint pmf, the rows
          of the release taken as symbols (as
          :func:`sklearn.metrics.mutual_info_score`);
        - ``"miller_madow"``: the same with Miller-Madow bias correction,
          clipped at zero;
        - ``"gaussian"``: a Gaussian model. For a discrete S, the release
          given each value of S is Gaussian with that value's mean and a
          shared covariance (linear discriminant analysis) and the estimate
          is :math:`H(S) - \E[-\log P(S \mid T)]` under that model, averaged over the
          samples (so at most :math:`H(S)`); for a continuous S, the mutual
          information of a Gaussian with the sample covariance of
          (S, release). A parametric estimate, exact for Gaussian classes; it
          sees only the class means, so it **can under-estimate the leakage
          of a non-Gaussian release**, down to nearly zero for a release
          that determines S in a nonlinear code. It warns on a release that
          looks discrete (see :func:`is_discrete_release`), where
          ``"plugin"`` is the estimate to use.
    n_neighbors : int, default=5
        Neighbours of the kNN estimate. Five rather than scikit-learn's
        three: on 50 independent rows the permutation-corrected estimate
        spreads by 0.056 nats instead of 0.067, and the default's mean over
        40 seeds of 100 independent columns falls from 0.039 to 0.025 nats.
    n_splits : int, default=5
        Folds of the held-out bounds (at most ``n_samples``): stratified on
        S where every value of S is seen ``n_splits`` times, shuffled with a
        fixed seed, so that the same rows give the same estimate.
    return_details : bool, default=False
        Return a :class:`~sklearn_privacy.metrics.LeakageEstimate` (the
        value, which member of the panel attains it, every member's estimate
        and its spread, and which release columns carry the leakage: each
        column's held-out permutation importance in nats) instead of a float.
    adversaries : dict of str to classifier or list of classifiers, default=None
        The user's own adversaries, added to the panel of ``"auto"``: any
        scikit-learn classifiers with ``predict_proba``, each cross-fitted
        as a held-out bound :math:`H(S) - \text{CE}` on the release as
        given (a DataFrame stays one), named in the details by its key (a
        list: by its class, ``"user: LogisticRegression"``). Each is first
        tried on a slice of 200 rows, and its probabilities must be one
        distribution per row, else an error names it.
    n_jobs : int, default=None
        Threads on which the panel's members and folds are fitted side by
        side (joblib's meaning: ``None`` is 1, ``-1`` all cores); each
        member itself runs on one thread.
    verbose : int, default=0
        Print a line per member of the panel with its estimate and its time.
    max_samples : int or None, default=50000
        The most rows read: above, a seeded draw of this many rows without
        replacement (stratified on a discrete S, each value keeping its
        share), the same rows drawn from the same data; the details'
        ``folds`` say so. ``None`` reads every row. The learned members fit
        on at most 2000 rows a fold whatever the size, and the kNN
        estimate's cost grows faster than the rows. A dask release (Array,
        DataFrame) is computed on the drawn rows only, a few partitions at a
        time, so that memory holds those rows; a dask S is computed whole.

    Returns
    -------
    float or LeakageEstimate
        Estimated :math:`I(S; \text{release})` in nats, non-negative and, for a
        discrete S, at most the plug-in entropy :math:`H(S)` of the sample.

    Raises
    ------
    ValueError
        If S contains missing values (None, NaN, pd.NA) or infinite values,
        or if S and the release differ in length; if a user's adversary
        fails on a slice or gives probabilities that are not a distribution;
        if an estimator for a discrete S (``"logistic"``, ``"boosting"``,
        ``"table"``, ``"knn"``) is given a continuous S.

    Warns
    -----
    UserWarning
        With ``estimator="gaussian"`` on a discrete-looking release.

    See Also
    --------
    LeakageEstimate : What ``return_details=True`` returns.
    make_leakage_scorer : The same estimate as a cross-validation scorer.
    adversary_accuracy_score : Accuracy of an adversary predicting S.
    sklearn_privacy.information.mutual_information_from_samples : The plug-in estimate for symbols.

    Notes
    -----
    **Why a panel.** Every sample estimate fails on some release. The kNN
    estimate cannot resolve one give-away column among noise columns: with
    :math:`S + 0.1 N` among 100 independent Gaussian columns (n = 2000, a fair
    binary S, :math:`H(S) = 0.693` nats) it reads 0.049 nats. The plug-in
    estimate reads a release whose rows are each seen once as revealing
    everything: :math:`H(S)` for 60 binary columns independent of S. A
    held-out bound :math:`H(S) - \text{CE}` is a lower bound on
    :math:`I(S; T)` whatever the release (the cross-entropy of any predictor
    fitted on other rows is at least :math:`H(S \mid T)`), and is as good as
    its adversary. The panel's largest value reads the first release at
    0.69 nats and the second at 0 (``benchmarks/bench_leakage_panel.py``
    measures the release shapes users have against a held-out logistic
    bound).

    **Independence.** The maximum of noisy estimates drifts upwards. The
    held-out bounds are at most 0 on average where S and the release are
    independent; the kNN and plug-in estimates are biased upwards, and are
    corrected by their permutation null (the mean of the estimate over
    permutations of S among the rows, seeded: 20 for the plug-in estimate;
    for the kNN estimate 20 below 224 rows, 2 from 578 rows on). On
    independent releases (Gaussian, binary, skewed, few-valued and
    500-symbol columns, 1 to 200 of them, 10 seeds) the default reads at
    most 0.043 nats on average at n = 50 and 0.017 from n = 200 on.

    **What it cannot see.** A sample estimate sees the dependence that its
    adversaries or neighbourhoods can learn; a code that none of them
    learns is invisible (n = 2000, a fair binary S, x uniform on [0, 1);
    the default adversary of :func:`adversary_accuracy_score` is right 52 %
    of the time on each):

    - S in the tenth decimal, :math:`\operatorname{round}(x, 3) + 10^{-10} S`: 0.37 (the rows that
      repeat show S to the held-out members, which read repeated values as categories, and to
      the kNN estimate's atoms; the others do not);
    - a high-frequency code,
      :math:`x + 10^{-3} \operatorname{sign}(\sin(2 \cdot 10^4 x))\, (2 S - 1)`: 0.00;
    - S in the lowest mantissa bit of x: 0.00.

    Such releases leak S to whoever knows the code. Use a mechanism whose
    leakage is known by construction (its ``leakage_``, or
    :func:`~sklearn_privacy.metrics.exact_leakage_score`), or an adversary
    built for the code, as the complement of these estimates. The plug-in
    estimate alone is biased upwards on finite samples (about
    :math:`(|S| - 1)(|T| - 1) / (2 n)` nats); Miller-Madow removes most of that bias.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import leakage_score
    >>> s = [0, 0, 1, 1]
    >>> round(leakage_score(s, [[0], [0], [1], [1]], estimator="plugin"), 6)
    0.693147

    One column that gives S away among 50 noise columns:

    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 1000)
    >>> revealing = s + 0.1 * rng.normal(size=1000)
    >>> release = np.c_[revealing, rng.normal(size=(1000, 50))]
    >>> estimate = leakage_score(s, release, return_details=True)
    >>> value, entropy = round(estimate.value, 2), round(estimate.entropy, 2)
    >>> value, estimate.estimator, entropy
    (0.69, 'logistic', 0.69)
    >>> members = estimate.estimates
    >>> round(members["logistic"], 2), round(members["knn"], 2)
    (0.69, 0.08)
    """
    result = estimate_leakage(
        sensitive,
        release,
        estimator=estimator,
        n_neighbors=n_neighbors,
        n_splits=n_splits,
        adversaries=check_adversaries(adversaries),
        n_jobs=n_jobs,
        verbose=verbose,
        attribute=return_details,
        max_samples=max_samples,
    )
    return result if return_details else result.value


def check_adversaries(adversaries):
    """The user's adversaries as a dict of name to classifier (``None``: none).

    A list is named by the classes (``"user: LogisticRegression"``, numbered
    where two share one). Each must be a scikit-learn classifier with
    ``predict_proba``, named apart from the panel's own members.
    """
    if adversaries is None:
        return None
    if isinstance(adversaries, list):
        named = {}
        for model in adversaries:
            name = f"user: {type(model).__name__}"
            named[name if name not in named else f"{name} #{len(named) + 1}"] = model
        adversaries = named
    for name, model in adversaries.items():
        if not isinstance(name, str) or name in ESTIMATORS:
            raise ValueError(
                f"adversaries: the name {name!r} must be a string other than the panel's "
                f"own members ({sorted(ESTIMATORS)})."
            )
        if not (hasattr(model, "predict_proba") and is_classifier(model)):
            raise ValueError(
                f"adversaries[{name!r}] must be a scikit-learn classifier with predict_proba "
                f"(its held-out cross-entropy is the bound), got {model!r}."
            )
    return adversaries


def default_adversary(discrete):
    """The adversary used when none is given.

    A logistic regression on standardised features; on a discrete release it
    reads the release one-hot encoded, so that it can represent any posterior
    P(S | symbol) of a single released column.
    """
    if discrete:
        return make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression(C=100.0, max_iter=2000)
        )
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like"],
        "adversary": [None, HasMethods(["fit", "predict"])],
        "train_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@without_metadata_routing
def adversary_accuracy_score(sensitive, release, *, adversary=None, train_size=0.5, random_state=0):
    r"""Accuracy of an adversary that learns to predict S from the release.

    The empirical attack of ppan-tripathy2017 (Fig. 9): the classifier is
    trained on a stratified ``train_size`` share of the rows and scored on the
    rest, so the score measures what a fresh attacker can infer.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; several columns form one joint label.
    release : array-like of shape (n_samples, n_features)
        The release.
    adversary : classifier, default=None
        Any scikit-learn classifier; cloned before fitting. ``None`` uses
        :func:`default_adversary`.
    train_size : float, default=0.5
        Share of the rows the adversary trains on.
    random_state : int, RandomState instance or None, default=0
        Controls the split.

    Returns
    -------
    float
        Accuracy of the adversary on the held-out rows.

    See Also
    --------
    make_adversary_scorer : The same accuracy as a cross-validation scorer.
    leakage_score : Information leakage :math:`I(S; \text{release})`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import adversary_accuracy_score
    >>> s = np.tile([0, 1], 50)
    >>> adversary_accuracy_score(s, s.reshape(-1, 1))
    1.0
    """
    sensitive, release = check_pair(sensitive, release)
    labels, _ = encode_symbols(sensitive, name="sensitive")
    # The default adversary is a small logistic regression: extra BLAS threads only spin
    # (8x the CPU time on a 2-core machine); a user's adversary keeps the user's threads.
    # (threadpool_limits applies its limit when made, not when entered: made in the with.)
    limit = 1 if adversary is None else None
    if adversary is None:
        adversary = default_adversary(is_discrete_release(release))
    elif not is_classifier(adversary):
        raise ValueError(f"adversary must be a classifier, got {adversary!r}.")
    counts = np.bincount(labels)
    stratify = labels if counts[counts > 0].min() >= 2 else None
    r_train, r_test, s_train, s_test = train_test_split(
        release, labels, train_size=train_size, random_state=random_state, stratify=stratify
    )
    if np.unique(s_train).size < 2:
        return float(np.mean(s_test == s_train[0]))
    with threadpool_limits(limit):
        model = clone(adversary).fit(r_train, s_train)
        return float(np.mean(model.predict(r_test) == s_test))
