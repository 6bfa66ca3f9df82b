"""Spark (local mode) gives the same counts and REO results as DuckDB and pandas. One Spark
session for the whole module; skipped with a reason where pyspark or Java is absent."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from ocef import reo
from ocef.datasets import load_logs
from ocef.reo.simulate import make_traffic_world, simulate_traffic
from tests.conftest import DATA

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install -e '.[spark]' in a checkout)")
    import os

    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Spark needs Java 17: no java on PATH and JAVA_HOME is not set")
    from ocef.backends import spark_session

    session = spark_session("local[2]")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_spark_identical_on_simulated_coat_and_obd(spark, tmp_path):
    world = make_traffic_world(300, 80, 3, score_bias=[0.4, 0.0, -0.2], rng=0)
    lg = simulate_traffic(world, n_days=2, requests_per_day=1000, p_act=0.3, rng=1)
    cases = {"simulated": (lg.default, lg.random)}
    for name in ("coat", "obd"):
        if (DATA / name).exists():
            cases[name] = load_logs(name)
    for name, (default, random) in cases.items():
        ref = reo.estimate_reo(default, random, backend="pandas").to_dict()
        sdf, srf = (spark.createDataFrame(f[["Y", "S"]]) for f in (default, random))
        assert reo.estimate_reo(sdf, srf, backend="spark", spark=spark).to_dict() == ref, name
    lg.default.to_parquet(tmp_path / "simulated-d.parquet")
    lg.random.to_parquet(tmp_path / "simulated-r.parquet")
    # per day and A/B through Spark
    d, r = tmp_path / "simulated-d.parquet", tmp_path / "simulated-r.parquet"
    assert (reo.estimate_reo_by(d, r, backend="spark", spark=spark).to_dict()
            == reo.estimate_reo_by(d, r, backend="duckdb").to_dict())
    assert (reo.ab_test(d, d, r, interval="delta-shared", backend="spark", spark=spark).to_dict()
            == reo.ab_test(d, d, r, interval="delta-shared", backend="duckdb").to_dict())


def test_spark_errors_match_the_other_engines(spark):
    frame = pd.DataFrame({"Y": [1, 2, 0], "S": ["a", "b", "b"]})
    with pytest.raises(ValueError, match=r"label column 'Y' must hold only 0 and 1, found \[2\]"):
        reo.reo_counts({"default": spark.createDataFrame(frame)}, backend="spark")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['click'\]"):
        reo.reo_counts({"default": spark.createDataFrame(frame)}, label="click", backend="spark")
    with pytest.raises(ValueError, match="a Spark DataFrame needs backend='spark'"):
        reo.reo_counts({"default": spark.createDataFrame(frame)}, backend="duckdb")


def test_cli_spark_engine_matches_duckdb(spark, tmp_path, capsys):
    import json

    from ocef import cli

    world = make_traffic_world(200, 60, 2, score_bias=[0.5, 0.0], rng=0)
    lg = simulate_traffic(world, n_days=1, requests_per_day=1000, p_act=0.3, rng=1)
    lg.default.to_parquet(tmp_path / "d.parquet")
    lg.random.to_parquet(tmp_path / "r.parquet")
    outs = {}
    for engine in ("duckdb", "spark"):
        for command in (["reo", "--default"], ["reo-ab", "--interval", "delta-shared", "--treatment",
                                               str(tmp_path / "d.parquet"), "--control"]):
            assert cli.main(command + [str(tmp_path / "d.parquet"), "--random", str(tmp_path / "r.parquet"),
                                       "--backend", engine, "--json"]) == 0
            out = json.loads(capsys.readouterr().out)
            assert out.pop("backend") == engine
            outs[(engine, command[0])] = out
    assert outs[("duckdb", "reo")] == outs[("spark", "reo")]
    assert outs[("duckdb", "reo-ab")] == outs[("spark", "reo-ab")]
