"""Information measures: the one mathematical core that every module calls.

All quantities are in nats.
"""

from sklearn_privacy.information._discrete import (
    binary_entropy,
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
    posterior_entropies,
)
from sklearn_privacy.information._gaussian import (
    gaussian_channel_rate,
    gaussian_entropy,
    gaussian_mutual_information,
    gaussian_mutual_information_from_correlation,
)
from sklearn_privacy.information._merge import (
    column_potentials,
    merge_cost,
    merge_costs,
    pairwise_merge_costs,
)

__all__ = [
    "binary_entropy",
    "column_potentials",
    "conditional_entropy",
    "contingency_pmf",
    "encode_symbols",
    "entropy",
    "entropy_from_samples",
    "gaussian_channel_rate",
    "gaussian_entropy",
    "gaussian_mutual_information",
    "gaussian_mutual_information_from_correlation",
    "kl_divergence",
    "max_information_leakage",
    "merge_cost",
    "merge_costs",
    "mutual_information",
    "mutual_information_from_samples",
    "nats_to_bits",
    "pairwise_merge_costs",
    "posterior_entropies",
]
