"""The base class of every mechanism, for writing new ones.

A mechanism subclasses :class:`BaseMechanism` and implements the hooks
``_fit_mechanism(X, S, y, sample_weight)`` and ``_release(X, S, rng)``; the base resolves S,
validates the input and keeps the random streams. See the :doc:`developer notes </design>`
("Adding a mechanism", "A base PPAN can stand on").
"""

from sklearn_privacy._base import BaseMechanism

__all__ = ["BaseMechanism"]
