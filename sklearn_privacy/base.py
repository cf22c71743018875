"""The base class of every mechanism, for writing new ones.

A mechanism subclasses :class:`BaseMechanism`, lists its parameters in
``__init__`` and ``_parameter_constraints``, and implements
``_fit_mechanism(X, S, y)`` and ``_release(X, S, rng)``; the base resolves S,
validates the input, keeps the random streams and declares the trade-off knob.
See the :doc:`developer notes </design>` ("A base PPAN can stand on") for a
mechanism that owns a trained network.
"""

from sklearn_privacy._base import BaseMechanism

__all__ = ["BaseMechanism"]
