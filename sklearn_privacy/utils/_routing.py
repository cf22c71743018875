"""Measurements that fit scikit-learn models of their own, whatever the global routing setting.

Metadata routing (``sklearn.set_config(enable_metadata_routing=True)``) is how a user's S
reaches a mechanism in a search; the models a measurement fits internally (the panel's
adversaries, an adversary's accuracy) receive no metadata, and with routing on some of
scikit-learn's own meta-estimators fail on them (1.9.1's ``TargetEncoder`` inside a
``ColumnTransformer`` raises ``KeyError: 'groups'``). Why: "Measurements ignore the global
routing setting" in ``docs/design.md``.
"""

import functools

from sklearn import config_context

__all__ = ["without_metadata_routing"]


def without_metadata_routing(function):
    """Run ``function`` with metadata routing off in this thread.

    scikit-learn's configuration is thread-local: the threads and processes the
    function starts begin from scikit-learn's defaults (routing off) as well.
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with config_context(enable_metadata_routing=False):
            return function(*args, **kwargs)

    return wrapper
