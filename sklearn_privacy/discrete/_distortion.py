"""The distortion tables of the discrete mechanisms (they live in :mod:`sklearn_privacy.utils`)."""

from sklearn_privacy.utils._distortion import DISTORTIONS, distortion_matrix

__all__ = ["DISTORTIONS", "distortion_matrix"]
