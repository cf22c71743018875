"""The rows interface: what a Gaussian mechanism reads of its fit rows, declared once.

:class:`FitRows` is implemented by :class:`~sklearn_privacy.gaussian._moments.ArrayFitRows`
(in memory) and :class:`~sklearn_privacy.gaussian._moments.DaskFitRows` (a dask collection,
pass by pass); :class:`PrivateRows`, its part that a private fit reads, by
:class:`~sklearn_privacy.gaussian._private_fit.RowStatistics` too. The people beyond a radius
are read in the pass of the clipped second moment: :meth:`PrivateRows.clipped_second_moment`
returns them with it (:class:`ClippedSecondMoment`), so no call can ask for them at another
centre. Why: "Values, not state" in ``docs/design.md``.
"""

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sklearn_privacy.gaussian._weights import PersonWeights

__all__ = ["ClippedSecondMoment", "FitRows", "PrivateRows"]


@dataclass(frozen=True)
class ClippedSecondMoment:
    """The second moment of the rows minus a centre clipped to a radius, and who lies beyond.

    ``moment``: the sum over the people of ``c c^T`` (``c`` a clipped row) divided
    by their number, as :meth:`PrivateRows.clipped_mean`; ``people_beyond``: the
    people (a sum of their units) whose row lies beyond the radius from the centre.
    """

    moment: np.ndarray
    people_beyond: float


class PrivateRows(Protocol):
    """The statistics of the fit rows that a private fit reads.

    Counts are in people (units of ``max_person_weight``, :class:`PersonWeights`);
    sums are over the people, divided by their public number (or, when the total
    weight is not public, times :meth:`weight_share`).
    """

    person_weights: PersonWeights
    n_features: int

    @property
    def n_people(self) -> float:
        """The public number of people (:meth:`PersonWeights.n_people`)."""

    @property
    def n_heavy(self) -> int:
        """Rows whose weight exceeds ``max_person_weight`` (clipped to it)."""

    def weight_share(self) -> float:
        """The people's total weight over their number, in units of ``max_person_weight``."""

    def norm_histogram(self, center=None) -> np.ndarray:
        """:func:`~sklearn_privacy.dp.kernels.log2_histogram` of ``||z - center||``, in people."""

    def clipped_mean(self, radius, center=None) -> np.ndarray:
        """The rows minus ``center`` clipped to ``radius``, summed over the people, per person."""

    def clipped_second_moment(self, center, radius) -> ClippedSecondMoment:
        """As :meth:`clipped_mean`, of ``c c^T``; with the people beyond ``radius``."""


class FitRows(PrivateRows, Protocol):
    """Everything a Gaussian mechanism reads of its fit rows, private or public.

    ``Z`` holds the released features, then the design matrix of the relevance
    variable; ``extra`` (``n_extra`` columns), the design matrix of S when only
    ``leakage_`` reads it.
    """

    n_extra: int
    n_released: int

    @property
    def total_weight(self) -> float:
        """The sum of the weights (the number of rows without ``sample_weight``)."""

    def peaks(self) -> np.ndarray:
        """The largest absolute value of each column of ``Z``."""

    def moments(self) -> tuple:
        """The weighted mean and unbiased covariance of ``Z`` (public fits)."""

    def leakage_covariance(self) -> np.ndarray:
        """The covariance of ``[extra, Z[:, :n_released]]``."""

    def max_norm(self, center, stop=None) -> float:
        """The largest norm of ``Z[:, :stop] - center``."""
