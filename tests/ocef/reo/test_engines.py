"""DuckDB and pandas give identical counts and REO results on Coat, OBD and a simulated log
(Spark: test_spark.py)."""
from __future__ import annotations

import pandas as pd
import pytest

from ocef import reo
from ocef.datasets import load_logs
from ocef.reo.simulate import make_traffic_world, simulate_traffic, stream_traffic
from tests.conftest import require_data


def all_results(default, random, engines=("pandas", "duckdb"), **kw) -> dict:
    out = {}
    for engine in engines:
        counts = reo.reo_counts({"default": default, "random": random}, backend=engine, **kw)
        res = reo.estimate_reo(default, random, backend=engine, **kw)
        out[engine] = (counts.to_frame().astype(object).values.tolist(), res.to_dict())
    return out


def assert_identical(out: dict) -> None:
    first = next(iter(out.values()))
    for engine, value in out.items():
        assert value == first, engine


@pytest.mark.data
@pytest.mark.parametrize("name", ["coat", "obd"])
def test_engines_identical_on_real_data(tmp_path, name):
    require_data(name)
    default, random = load_logs(name)
    out = all_results(default, random)
    default.to_parquet(tmp_path / "d.parquet")
    random.to_csv(tmp_path / "r.csv", index=False)
    for engine in ("pandas", "duckdb"):
        res = reo.estimate_reo(tmp_path / "d.parquet", tmp_path / "r.csv", backend=engine)
        assert res.to_dict() == out["pandas"][1], engine
    assert_identical(out)


def test_engines_identical_on_a_simulated_log_and_per_day(tmp_path):
    world = make_traffic_world(300, 80, 3, score_bias=[0.4, 0.0, -0.2], rng=0)
    lg = simulate_traffic(world, n_days=3, requests_per_day=2000, p_act=0.2, rng=1)
    assert_identical(all_results(lg.default, lg.random))
    lg.default.to_parquet(tmp_path / "d.parquet")
    lg.random.to_parquet(tmp_path / "r.parquet")
    by = {e: reo.estimate_reo_by(tmp_path / "d.parquet", tmp_path / "r.parquet", backend=e, threshold=0.111)
          for e in ("pandas", "duckdb")}
    assert by["pandas"].to_dict() == by["duckdb"].to_dict()
    t = by["duckdb"].table
    assert t.day.tolist() == [0, 1, 2] and (t.n_default == 20_000).all()
    # each day equals the estimate on that day's rows alone
    for day in range(3):
        one = reo.estimate_reo(lg.default[lg.default.day == day], lg.random[lg.random.day == day])
        assert t.penalty[day] == pytest.approx(one.penalty, rel=1e-12)
        assert t.ci_low[day] == pytest.approx(one.penalty_ci[0], rel=1e-12)
    assert t.significantly_above.tolist() == (t.ci_low > 0.111).tolist()


def test_a_day_without_estimate_gets_a_note_not_an_error():
    default = pd.DataFrame({"day": [0] * 4 + [1] * 4, "S": ["a", "b"] * 4, "Y": [1, 1, 0, 0, 1, 1, 0, 1]})
    random = pd.DataFrame({"day": [0] * 4 + [1] * 4, "S": ["a", "b"] * 4, "Y": [1, 1, 0, 0, 1, 0, 0, 0]})
    daily = reo.estimate_reo_by(default, random)
    assert daily.table.penalty.notna().tolist() == [True, False]
    assert "['b'] have no positive label in the random traffic" in daily.table.note[1]
    # the note is the error estimate_reo gives on that day's rows alone
    with pytest.raises(ValueError) as err:
        reo.estimate_reo(default[default.day == 1], random[random.day == 1])
    assert daily.table.note[1] == str(err.value)
    assert daily.days[1] is None and daily.to_dict()["days"][1]["penalty"] is None
    with pytest.raises(ValueError, match="by must be a column name other than the group column"):
        reo.estimate_reo_by(default, random, by="S")


def test_streamed_parquet_partitions_read_by_every_engine(tmp_path):
    world = make_traffic_world(200, 60, 2, score_bias=[0.5, 0.0], rng=0)
    out = stream_traffic(world, tmp_path / "logs", n_days=2, requests_per_day=3000, k=5, p_act=0.1,
                         chunk_requests=1000, rng=2)
    files = sorted(p.name for p in out.default_dir.glob("*.parquet"))
    assert files == [f"day-{d:05d}-part-{p:04d}.parquet" for d in range(2) for p in range(3)]
    assert out.default_rows == 2 * 3000 * 5 and out.days.default_rows.tolist() == [15_000, 15_000]
    results = {e: reo.estimate_reo(out.default_dir, out.random_dir, backend=e).to_dict() for e in ("pandas", "duckdb")}
    assert results["pandas"] == results["duckdb"]
    assert results["duckdb"]["n_random"] == out.random_rows
    frame = pd.read_parquet(out.default_dir)
    assert list(frame.columns) == ["request", "day", "user", "item", "R", "Y", "S", "source"]
    assert frame.request.is_unique is False and frame.request.max() == 2 * 3000 - 1
    # same seed, same logs
    again = stream_traffic(world, tmp_path / "again", n_days=2, requests_per_day=3000, k=5, p_act=0.1,
                           chunk_requests=1000, rng=2)
    pd.testing.assert_frame_equal(pd.read_parquet(again.default_dir), frame)
    with pytest.raises(ValueError, match="already holds Parquet files"):
        stream_traffic(world, tmp_path / "logs", n_days=1, requests_per_day=10, rng=2)
