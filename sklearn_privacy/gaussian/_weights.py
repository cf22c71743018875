"""What a row's weight means in a private fit, decided once: :func:`resolve_weights`.

A fit reads ``sample_weight`` through the :class:`PersonWeights` this returns, in memory and
per dask partition alike; nothing else asks which ``weights`` was declared. Why:
"Weights in private fits" and "Values, not state" in ``docs/design.md``.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["PersonWeights", "resolve_weights"]

# Whole counts add up exactly in float64 below 2^53: the number of people is then the
# same, bit for bit, for every table that holds the same people.
_MOST_PEOPLE = 2.0**53


@dataclass(frozen=True)
class PersonWeights:
    """The meaning of the rows' weights, in people (units of ``max_person_weight``).

    ``meaning`` is ``"none"`` (no ``sample_weight``: every row is one person),
    ``"person"`` (each row is one person, whose weight is clipped to
    ``max_person_weight``) or ``"counts"`` (a row of weight ``w`` is ``w /
    max_person_weight`` people, a whole number). Made by :func:`resolve_weights`.
    """

    meaning: str
    max_person_weight: float = 1.0

    @property
    def weights(self):
        """The declared ``weights`` parameter (``"counts"`` when none were given), for messages."""
        return "person" if self.meaning == "person" else "counts"

    @property
    def total_is_public(self):
        """Whether the total weight in people is public: counts, or no weights at all."""
        return self.meaning != "person"

    def units(self, sample_weight, n_rows):
        """Each row's weight in people, and the number of rows above ``max_person_weight``.

        ``"person"``: ``min(w, W) / W``, at most 1. ``"counts"``: ``w / W``, a
        whole number; other weights are refused (a neighbour table moves one
        person, which only whole counts do exactly). ``"none"``: ones.
        """
        if self.meaning == "none":
            return np.ones(n_rows), 0
        w = np.asarray(sample_weight, dtype=float)
        bound = float(self.max_person_weight)
        if self.meaning == "person":
            return np.minimum(w, bound) / bound, int(np.count_nonzero(w > bound))
        units = w / bound
        whole = np.rint(units)
        with np.errstate(invalid="ignore"):  # a count beyond float64 is refused by n_people
            whole_counts = np.isinf(units) | (
                np.abs(units - whole) <= 1e-9 * np.maximum(whole, 1.0)
            )
        if not np.all(whole_counts):
            raise ValueError(
                "weights='counts' reads sample_weight as numbers of people, whole multiples of "
                f"max_person_weight={self.max_person_weight!r}; some weights are not. Declare "
                "weights='person' when each row is one person (its weight clipped to "
                "max_person_weight), or give counts."
            )
        return whole, 0

    def n_people(self, total_units, n_rows):
        """The public number of people: the rows (``"person"``, ``"none"``) or the counts' sum.

        Replace-one neighbours share the number of rows; tables that move one
        person from a row to another share the number of people, a sum of whole
        numbers, exact in float64 whatever the order of the rows.
        """
        n_people = float(total_units) if self.meaning == "counts" else float(n_rows)
        if not n_people >= 1.0:
            raise ValueError(
                f"The rows hold {n_people:.6g} people (weights={self.weights!r}): a private fit "
                "needs at least one. Give rows of positive sample_weight."
            )
        if not n_people <= _MOST_PEOPLE:
            raise ValueError(
                f"sample_weight counts more than 2^53 people in units of max_person_weight "
                f"(about {_MOST_PEOPLE:.3g}; weights={self.weights!r}): counts that large no "
                "longer add up exactly in float64, so the number of people would not be "
                "public. Check the counts, or raise max_person_weight to the weight of one "
                "person."
            )
        return n_people


def resolve_weights(weights, max_person_weight, has_weights):
    """The one place where ``weights``, ``max_person_weight`` and a given weight meet.

    Parameters
    ----------
    weights : {"counts", "person"}
        The declared meaning of ``sample_weight``.
    max_person_weight : float
        The public weight of one person (never read off the weights).
    has_weights : bool
        Whether ``sample_weight`` was given (else every row weighs one person).

    Returns
    -------
    PersonWeights
    """
    return PersonWeights("none" if not has_weights else weights, float(max_person_weight))
