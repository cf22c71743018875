"""Information measures: the one mathematical core that every module calls.

All quantities are in nats.
"""

from sklearn_privacy.information._discrete import (
    conditional_entropy,
    contingency_pmf,
    encode_symbols,
    entropy,
    entropy_from_samples,
    kl_divergence,
    max_information_leakage,
    mutual_information,
    mutual_information_from_samples,
    nats_to_bits,
)
from sklearn_privacy.information._gaussian import gaussian_entropy, gaussian_mutual_information
from sklearn_privacy.information._merge import (
    column_potentials,
    merge_cost,
    merge_costs,
    pairwise_merge_costs,
)

__all__ = [
    "column_potentials",
    "conditional_entropy",
    "contingency_pmf",
    "encode_symbols",
    "entropy",
    "entropy_from_samples",
    "gaussian_entropy",
    "gaussian_mutual_information",
    "kl_divergence",
    "max_information_leakage",
    "merge_cost",
    "merge_costs",
    "mutual_information",
    "mutual_information_from_samples",
    "nats_to_bits",
    "pairwise_merge_costs",
]
