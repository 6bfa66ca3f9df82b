"""ocef.offpolicy.scale on Spark (local mode): group_sums through the same SQL equals DuckDB's, on
pandas frames, Spark DataFrames and Parquet files. Skipped with a reason without pyspark or Java."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.offpolicy.scale import SUM_COLUMNS, group_sums, group_values

pytestmark = pytest.mark.slow


def _world(n=3000, n_users=50, n_items=12, seed=0):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, n_users, n)
    item = rng.integers(0, n_items, n)
    log = pd.DataFrame({"user": user, "item": item, "reward": (rng.random(n) < 0.3).astype(float),
                        "propensity": np.full(n, 1.0 / n_items), "g": np.where(user % 3 == 0, "a", "b")})
    pi = rng.dirichlet(np.ones(n_items), n_users)
    target = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_items), "item": np.tile(np.arange(n_items), n_users),
                           "probability": pi.ravel()})
    return log, target[target.item != 11]            # item 11: no target row (weight 0 through the LEFT JOIN)


def test_spark_group_sums_equal_duckdb(spark, tmp_path):
    log, target = _world()
    ref = group_sums(log, target, by=["g"])
    for lg, tg in [(log, target), (spark.createDataFrame(log), spark.createDataFrame(target))]:
        got = group_sums(lg, tg, by=["g"], backend="spark", spark=spark)
        assert got["g"].tolist() == ref["g"].tolist() == ["a", "b"]
        for c in SUM_COLUMNS:
            np.testing.assert_allclose(got[c].to_numpy(dtype=float), ref[c].to_numpy(dtype=float), rtol=1e-12)
        pd.testing.assert_frame_equal(group_values(got), group_values(ref), rtol=1e-12, check_dtype=False)
    log.to_parquet(tmp_path / "log.parquet")
    target.to_parquet(tmp_path / "target.parquet")
    whole = group_sums(str(tmp_path / "log.parquet"), str(tmp_path / "target.parquet"), backend="spark", spark=spark)
    assert int(whole["n"].iloc[0]) == len(log)
    np.testing.assert_allclose(whole["sum_wr"].iloc[0], ref["sum_wr"].sum(), rtol=1e-12)


def test_spark_checks_the_log(spark):
    log, target = _world(n=200)
    from ocef.errors import DataError

    with pytest.raises(DataError, match="propensity must lie in"):
        group_sums(log.assign(propensity=1.5), target, backend="spark", spark=spark)


def test_unknown_backend():
    from ocef.errors import ParameterError

    log, target = _world(n=20)
    with pytest.raises(ParameterError, match="backend must be"):
        group_sums(log, target, backend="polars")
