"""Data set loaders (real data sets of the papers) and the papers' synthetic models.

Loaders read files from a data home folder (:func:`get_data_home`), download a missing file
when allowed, and check every file against the original's checksum (:class:`ChecksumError`).
"""

from sklearn_privacy.datasets._adult import discretize_adult, fetch_adult
from sklearn_privacy.datasets._base import ChecksumError, get_data_home
from sklearn_privacy.datasets._breast_cancer import fetch_breast_cancer_wisconsin
from sklearn_privacy.datasets._drug_consumption import fetch_drug_consumption
from sklearn_privacy.datasets._heart_disease import (
    discretize_heart_disease,
    fetch_heart_disease_hungarian,
)
from sklearn_privacy.datasets._mnist import fetch_mnist
from sklearn_privacy.datasets._synthetic import (
    gaussian_model_covariance,
    make_gaussian_model,
    make_symmetric_pair,
    symmetric_pair_pmf,
)

__all__ = [
    "ChecksumError",
    "discretize_adult",
    "discretize_heart_disease",
    "fetch_adult",
    "fetch_breast_cancer_wisconsin",
    "fetch_drug_consumption",
    "fetch_heart_disease_hungarian",
    "fetch_mnist",
    "gaussian_model_covariance",
    "get_data_home",
    "make_gaussian_model",
    "make_symmetric_pair",
    "symmetric_pair_pmf",
]
