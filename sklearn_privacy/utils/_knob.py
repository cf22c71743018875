"""The trade-off knob a mechanism declares, so that one sweep serves every mechanism."""

from dataclasses import dataclass

import numpy as np

__all__ = ["TradeoffKnob"]


@dataclass(frozen=True)
class TradeoffKnob:
    """The parameter that moves a mechanism along its privacy/utility trade-off.

    Parameters
    ----------
    name : str
        Name of the constructor parameter.
    more_leakage_when : {"larger", "smaller"}
        ``"larger"`` when a larger value releases more about S (less privacy,
        more utility), e.g. ``epsilon``; ``"smaller"`` when a larger value
        hides more, e.g. the distortion budget ``max_distortion``.
    low, high : float
        A range of values that spans the trade-off on typical data: the
        default grid of :func:`~sklearn_privacy.model_selection.tradeoff_curve`.
    log : bool
        Whether the range is best swept on a log scale.

    See Also
    --------
    sklearn_privacy.model_selection.tradeoff_curve : Sweep that reads the knob.
    sklearn_privacy.base.BaseMechanism.get_tradeoff_knob : Where a mechanism declares it.

    Examples
    --------
    >>> from sklearn_privacy import L2CompressionDP
    >>> L2CompressionDP().get_tradeoff_knob().name
    'epsilon'
    """

    name: str
    more_leakage_when: str = "larger"
    low: float = 0.0
    high: float = 1.0
    log: bool = False

    def __post_init__(self):
        if self.more_leakage_when not in ("larger", "smaller"):
            raise ValueError(
                f"more_leakage_when must be 'larger' or 'smaller', got {self.more_leakage_when!r}."
            )

    def grid(self, n=5):
        """``n`` values from ``low`` to ``high`` (geometric when ``log``).

        Parameters
        ----------
        n : int, default=5

        Returns
        -------
        ndarray of shape (n,)
        """
        if self.log:
            return np.geomspace(self.low, self.high, n)
        return np.linspace(self.low, self.high, n)
