"""What PPAN's networks read: codes of finite records, S one-hot or standardised, scaled floats.

:class:`PPANInputs` (observation and training arrays), :class:`SensitiveEncoding` (S), and the
``*_label_columns`` functions (label columns of X, coded at fit and decoded in the release).
"""

import numpy as np
from sklearn.preprocessing import StandardScaler

from sklearn_privacy.information import entropy, gaussian_entropy
from sklearn_privacy.utils import encode_sensitive, is_continuous
from sklearn_privacy.utils._symbols import RowIndex, encode_rows
from sklearn_privacy.utils._validation import as_numbers

__all__ = [
    "PPANInputs",
    "SensitiveEncoding",
    "code_label_columns",
    "find_label_columns",
    "frame_like",
    "map_label_columns",
    "sensitive_is_discrete",
]


# ---------------------------------------------------------------- label columns
def _numeric_column(column):
    """Whether every value of an object column is a real number (not a label)."""
    try:
        np.asarray(column, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def frame_like(frame, values):
    """``values`` as a DataFrame with ``frame``'s columns and index (numbers where they are)."""
    import pandas as pd

    out = pd.DataFrame(values, columns=frame.columns, index=frame.index)
    for column in out.columns:
        try:
            out[column] = pd.to_numeric(out[column])
        except (TypeError, ValueError):
            pass
    return out


def find_label_columns(values, candidates, skip, *, check=None):
    """``{position: sorted categories}`` of the candidate columns that hold labels, not numbers.

    ``skip`` holds the positions of S, which the base handles. ``check``, when
    given, is called with the positions of the label columns before their
    categories are read (to refuse a column that is no column of labels).
    """
    positions = [j for j in candidates if j not in skip and not _numeric_column(values[:, j])]
    if check is not None:
        check(positions)
    return {
        j: np.array(sorted(set(values[:, j].tolist()), key=str), dtype=object) for j in positions
    }


def code_label_columns(values, positions, names=None, *, unseen="error"):
    """``values`` (object array) with each label column replaced by the codes of its categories.

    A category unseen at fit is an error naming the column (by ``names[j]``
    when given, else by position), or with ``unseen="code"`` the code -1 (a
    value no record holds, for ``handle_unknown="nearest"``).
    """
    coded = values.copy()
    for j, categories in positions.items():
        codes = RowIndex(categories).codes(values[:, j], unknown=-1).astype(float)
        if unseen == "error" and np.any(codes < 0):
            bad = values[int(np.flatnonzero(codes < 0)[0]), j]
            name = names[j] if names is not None else j
            raise ValueError(
                f"column {name!r} of X holds {bad!r}, a category not seen at fit: the "
                "mechanism has no row for it. Set handle_unknown='nearest' to map such rows "
                "to the closest seen record."
            )
        coded[:, j] = codes
    return coded


def map_label_columns(release, positions, released, *, decode):
    """The label columns of a release decoded (codes to categories) or encoded back.

    ``released`` lists the positions in ``X`` of the release's columns. The
    release as given when no column holds labels; ``decode=False`` (for the
    distortion) returns floats, codes of -1 for values that are not categories.
    """
    if not positions:
        return release
    out = np.asarray(release, dtype=object).copy()
    released = list(released)
    for j, categories in positions.items():
        p = released.index(j)
        if decode:
            out[:, p] = categories[np.asarray(out[:, p], dtype=float).astype(np.int64)]
        else:
            out[:, p] = RowIndex(categories).codes(out[:, p], unknown=-1)
    return out if decode else out.astype(float)


# ------------------------------------------------------------------ S and X
def _scaler(values, sample_weight):
    """A ``StandardScaler`` of the weighted rows (a constant column keeps scale 1)."""
    return StandardScaler().fit(values, sample_weight=sample_weight)


def sensitive_is_discrete(S):
    """Whether PPAN reads S as categories: anything but floats that are not all integers.

    As :func:`~sklearn_privacy.utils.is_continuous`, with an object S whose
    cells are all numbers read as those numbers: a float column of a DataFrame
    is continuous also when a label column beside it makes ``X`` an object array.
    """
    return not is_continuous(as_numbers(S))


class SensitiveEncoding:
    """S as the adversary's target and, for ``observation="full"``, as a mechanism input.

    A discrete S (see :func:`sensitive_is_discrete`) is coded by its joint
    symbols (``records``, ``codes``; one-hot as an input); a continuous S is
    standardised. ``entropy`` is ``H(S)`` of the weighted rows (discrete) or
    ``h(S)`` of the Gaussian with the covariance of the standardised S
    (continuous), in nats.
    """

    def __init__(self, S, sample_weight=None):
        self.discrete = sensitive_is_discrete(S)
        if self.discrete:
            codes, records = encode_sensitive(S)
            self.records = np.asarray(records)
            self.codes = codes.astype(np.int64)
            self._index = RowIndex(self.records)
            counts = np.bincount(self.codes, weights=sample_weight, minlength=len(self.records))
            self.entropy = entropy(counts / counts.sum())
            self.n_features = len(self.records)
        else:
            S = np.asarray(S, dtype=np.float64).reshape(len(S), -1)
            self.records = None
            self._scaler = _scaler(S, sample_weight)
            cov = np.cov(self._scaler.transform(S), rowvar=False, aweights=sample_weight)
            self.entropy = gaussian_entropy(np.atleast_2d(cov))
            self.n_features = S.shape[1]

    def target(self, S):
        """What the adversary predicts: codes (int64) or standardised floats (float32)."""
        if self.discrete:
            return self.code(S)
        S = np.asarray(S, dtype=np.float64).reshape(len(S), -1)
        return self._scaler.transform(S).astype(np.float32)

    def code(self, S):
        """Codes of the symbols of a discrete S; a symbol unseen at fit is an error."""
        values = np.asarray(S)
        return self._index.codes(values.reshape(values.shape[0], -1), name="sensitive")

    def features(self, S):
        """S as floats for the mechanism: one-hot of its symbols, or standardised."""
        if self.discrete:
            return np.eye(self.n_features)[self.code(S)]
        return self.target(S).astype(np.float64)


class PPANInputs:
    """The arrays PPAN's networks read, fitted on the training rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_released)
        The released columns (floats).
    S : array-like of shape (n_samples,) or (n_samples, n_sensitive)
    release : str
        The release family (``"categorical"`` reads codes of the distinct rows).
    observation : {"released", "full"}
    sample_weight : ndarray or None

    Attributes
    ----------
    n_samples : int
        Training rows.
    sensitive : SensitiveEncoding
    records : ndarray of shape (n_records, n_released) or None
        The distinct rows of a finite observation (also the release alphabet).
    codes : ndarray of shape (n_samples,) or None
        Each training row's position in ``records``.
    table : bool
        Whether the mechanism is a table over a finite ``W`` (the released
        columns, with a discrete S for ``observation="full"``).
    center, scale : ndarray of shape (n_released,) or None
        The standardisation of a continuous observation.
    total_variance : float
        Sum of the weighted variances of the released columns: the squared
        error of releasing their mean.
    """

    def __init__(self, X, S, *, release, observation, sample_weight=None):
        self.n_samples = len(X)
        self.observation = observation
        self.sample_weight = sample_weight
        self.sensitive = SensitiveEncoding(S, sample_weight)
        self.finite = release == "categorical"
        mean = np.average(X, axis=0, weights=sample_weight)
        self.total_variance = float(
            np.sum(np.average((X - mean) ** 2, axis=0, weights=sample_weight))
        )
        if self.finite:
            codes, records = encode_rows(X, name="X")
            self.records = records.reshape(len(records), -1)
            self.codes = codes
            self._index = RowIndex(self.records)
            # each record's weight at fit: ties of handle_unknown="nearest" go to the heavier
            self.counts = np.bincount(codes, weights=sample_weight, minlength=len(records))
            self.table = observation == "released" or self.sensitive.discrete
            self.center = self.scale = None
        else:
            self.records = self.codes = None
            self.table = False
            scaler = _scaler(X, sample_weight)
            self.center, self.scale = scaler.mean_, scaler.scale_

    @property
    def n_codes(self):
        """Rows of a table mechanism: the records, times the symbols of S for a full observation."""
        full = self.observation == "full"
        return len(self.records) * (self.sensitive.n_features if full else 1)

    def mechanism_input(self, X, S, handle_unknown="error"):
        """What the mechanism observes: a code of a finite ``W``, or floats.

        A finite ``W`` not seen at fit raises, or with ``handle_unknown="nearest"``
        is read as the record agreeing with it on most columns.
        """
        full = self.observation == "full"
        if full and S is None:
            raise ValueError(
                "observation='full': the mechanism reads S; give X with its sensitive columns."
            )
        if self.finite:
            x_codes = self._record_codes(X, handle_unknown)
            if not full:
                return x_codes
            if self.table:
                return self.sensitive.code(S) * len(self.records) + x_codes
            onehot = np.eye(len(self.records))[x_codes]
            return np.hstack([onehot, self.sensitive.features(S)]).astype(np.float32)
        w = X if not full else np.hstack([X, self.sensitive.features(S)])
        return w.astype(np.float32)

    def _record_codes(self, X, handle_unknown):
        if handle_unknown == "error":
            try:
                return self._index.codes(X, name="X")
            except ValueError as exc:
                raise ValueError(
                    f"{exc} Set handle_unknown='nearest' to map such rows to the closest seen "
                    "record."
                ) from exc
        codes = self._index.codes(X, name="X", unknown=-1)
        unseen = np.flatnonzero(codes < 0)
        if unseen.size:
            codes[unseen] = self._index.nearest(X[unseen], self.counts)
        return codes

    def encode_utility(self, y, n):
        """The useful data ``y`` of a mutual-information utility: codes, or standardised floats.

        Sets ``utility_discrete`` and ``n_utility`` (classes, or columns).
        """
        y = np.asarray(y)
        self.utility_discrete = not is_continuous(y)
        if self.utility_discrete:
            codes, symbols = encode_sensitive(y, name="y")
            self.n_utility = len(symbols)
            return codes.astype(np.int64)
        y2 = np.asarray(y, dtype=np.float64).reshape(n, -1)
        self.n_utility = y2.shape[1]
        return _scaler(y2, self.sample_weight).transform(y2).astype(np.float32)

    def training_data(self, X, S, y, *, utility):
        """The dict of training arrays: ``w``, ``s``, and ``t`` or ``code`` (see ``PPANNet``)."""
        data = {"w": self.mechanism_input(X, S), "s": self.sensitive.target(S)}
        if utility:
            data["t"] = self.encode_utility(y, X.shape[0])
        elif self.finite:
            data["code"] = self.codes
        else:
            data["t"] = X.astype(np.float32)
        if self.sample_weight is not None:
            # float32 holds the relative weights down to 1.2e-38: a row lighter than that
            # (beside a weight of 1e300, say) keeps that floor, so that a minibatch of such
            # rows has a positive weight sum (its losses divide by it); the floor is nothing
            # beside the heavier rows
            floor = np.finfo(np.float32).tiny
            data["sw"] = np.maximum(self.sample_weight, floor).astype(np.float32)
        return data

    def cells(self, data):
        """The training arrays of a finite fit grouped by distinct ``(w, s)``, weights summed.

        The exact steps average over these cells with their probabilities
        (``sw``), which is the expectation over the empirical distribution of
        the rows: a row of integer weight k counts as k repeated rows.
        """
        keys = np.stack([data["w"], data["s"]], axis=1)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        weights = np.ones(len(keys)) if self.sample_weight is None else self.sample_weight
        mass = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(first))
        cells = {key: value[first] for key, value in data.items() if key != "sw"}
        cells["sw"] = (mass / mass.sum()).astype(np.float32)
        return cells

    def record_probabilities(self):
        """The weighted frequency of each record of a finite observation."""
        weights = None if self.sample_weight is None else self.sample_weight
        counts = np.bincount(self.codes, weights=weights, minlength=len(self.records))
        return counts / counts.sum()

    def row_probabilities(self, n):
        """The empirical distribution of the fit rows: uniform, or the normalised weights."""
        if self.sample_weight is None:
            return np.full(n, 1.0 / n)
        return self.sample_weight / self.sample_weight.sum()
