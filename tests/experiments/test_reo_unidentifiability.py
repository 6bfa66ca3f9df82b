"""Tests of ocef.experiments.reo_unidentifiability (Table 1 of Dong et al. 2024 (REO from random traffic))."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.experiments import reo_unidentifiability as exp
from ocef import reo


def test_table1_counts_and_truth():
    A, B = exp.table1_counts("A"), exp.table1_counts("B")
    assert A.sum() == B.sum() == 200_200
    np.testing.assert_array_equal(A[1], B[1])          # identical recommended subsets
    np.testing.assert_allclose(exp.true_utilities(A), [1.0, 1.0])
    np.testing.assert_allclose(exp.true_utilities(B), [0.5, 1.0])
    assert reo.reo_penalty(exp.true_utilities(B)) == pytest.approx(1 / 3)


def test_naive_and_imputation_cannot_tell_a_from_b():
    A, B = exp.table1_counts("A"), exp.table1_counts("B")
    np.testing.assert_array_equal(exp.naive_utilities(A), exp.naive_utilities(B))
    UA, pA = exp.imputed_utilities(A)
    UB, pB = exp.imputed_utilities(B)
    np.testing.assert_array_equal(UA, UB)
    np.testing.assert_allclose(pA, [101 / 102, 101 / 102])   # Beta(1,1) on 100 liked of 100


def test_random_traffic_separates_a_and_b():
    rng = np.random.default_rng(0)
    est_a = exp.random_traffic_estimates(exp.table1_counts("A"), 150_000, 300, rng)
    est_b = exp.random_traffic_estimates(exp.table1_counts("B"), 150_000, 300, rng)
    # 3/4 of the pairs sampled: B's estimate is close to 1/3, A's far below it
    assert np.median(est_b.penalty) == pytest.approx(1 / 3, abs=0.05)
    assert np.median(est_a.penalty) < 0.1
    lo, hi = est_b.ci_penalty()
    assert 0.85 <= np.mean((lo <= 1 / 3) & (1 / 3 <= hi)) <= 1.0


def test_quick_run_writes_outputs(tmp_path):
    paths = exp.run(tmp_path, quick=True, seed=0, data_dir=None, progress=False)
    assert [p.suffix for p in paths] == [".csv", ".png"]
    df = pd.read_csv(paths[0])
    truth = df[df.method == "truth"].set_index("dataset")
    assert truth.loc["A", "penalty"] == 0 and truth.loc["B", "penalty"] == pytest.approx(1 / 3)
    assert truth.loc["B", "range_over_mean"] == pytest.approx(2 / 3)   # the value the seed prints
