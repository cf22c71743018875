"""The merge paths: their shared base, IACPath's deprecated ``objective`` and the labels."""

import dataclasses
import warnings

import numpy as np
import pytest

from sklearn_privacy.discrete import IACPath, MergePath, greedy_merge, iac_mdsf
from sklearn_privacy.discrete._path import _MergePathBase, cluster_labels

JOINT = np.array([[0.3, 0.1, 0.05, 0.05], [0.05, 0.2, 0.05, 0.2]])


def test_iac_path_lagrangian_is_leakage_minus_lam_disclosure():
    lam = 0.2
    path = iac_mdsf(JOINT, lam=lam)
    assert path.n_iter == 1
    np.testing.assert_allclose(
        path.lagrangian, path.leakage - lam * path.disclosure, rtol=0, atol=1e-15
    )


def test_iac_path_objective_is_deprecated_and_reads_the_lagrangian():
    path = iac_mdsf(JOINT, lam=0.2)
    with pytest.warns(FutureWarning, match=r"`objective` was deprecated.*Use `lagrangian`"):
        values = path.objective
    assert values is path.lagrangian
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert path.lagrangian.shape == (2,)  # the new name does not warn


def test_the_path_types_keep_their_fields_in_their_constructor_order():
    """The base holds no field, so the positional constructors are those of before."""
    assert [f.name for f in dataclasses.fields(MergePath)] == [
        "merges",
        "leakage",
        "disclosure",
        "labels",
    ]
    assert [f.name for f in dataclasses.fields(IACPath)] == [
        "merged_sets",
        "leakage",
        "disclosure",
        "lagrangian",
        "labels",
        "ds_iterations",
        "n_solves",
    ]
    path = IACPath([np.array([0, 3])], np.zeros(2), np.ones(2), -np.ones(2), np.array([0, 1, 2, 0]))
    assert (path.n_iter, path.n_clusters, path.ds_iterations, path.n_solves) == (1, 3, [], 0)


def test_both_paths_share_the_base():
    greedy = greedy_merge(JOINT, threshold=0.0)
    iac = iac_mdsf(JOINT, lam=0.0)
    for path in (greedy, iac):
        assert isinstance(path, _MergePathBase)
        assert path.n_clusters == len(np.unique(path.labels))
        assert path.leakage.shape == path.disclosure.shape
    assert (greedy.n_clusters, iac.n_clusters) == (1, 2)


def test_cluster_labels_number_the_clusters_by_their_smallest_member():
    roots = np.array([0, 0, 2, 0, 4, 2])
    assert cluster_labels(roots).tolist() == [0, 0, 1, 0, 2, 1]
    assert cluster_labels(np.arange(3)).tolist() == [0, 1, 2]
