"""Closed-form optimal trade-off curves and the papers' reference results."""

__all__ = []
