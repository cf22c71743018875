"""Mechanisms on discrete (categorical) data."""

__all__ = []
