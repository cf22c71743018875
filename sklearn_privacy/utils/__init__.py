"""Shared helpers: random streams for fit-time estimates and releases."""

from sklearn_privacy.utils._random import check_generator, check_seed_sequence

__all__ = ["check_generator", "check_seed_sequence"]
