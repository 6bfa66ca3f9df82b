"""ocef.backends: per-key counts with DuckDB and pandas (Spark: tests/ocef/reo/test_spark.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef import backends as le


@pytest.fixture
def frame():
    return pd.DataFrame({"Y": [1, 0, 1, 1, 0, 0], "L2": [False, True, False, False, False, True],
                         "S": ["a", "a", "b", "b", "b", "c"], "day": [0, 0, 0, 1, 1, 1]})


def expected() -> pd.DataFrame:
    # Y = Y or L2: rows (day, S): (0,a): 2 rows, 2 pos; (0,b): 1, 1; (1,b): 2, 1; (1,c): 1, 1
    return pd.DataFrame({"day": [0, 0, 1, 1], "S": ["a", "b", "b", "c"], "n": [2, 1, 2, 1], "positives": [2, 1, 1, 1]})


def assert_same(table: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert list(table.columns) == list(ref.columns)
    assert table.astype(object).values.tolist() == ref.astype(object).values.tolist()


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_hand_computed_counts_from_frames_and_files(tmp_path, frame, engine):
    frame.to_csv(tmp_path / "log.csv", index=False)
    frame.to_parquet(tmp_path / "log.parquet")
    (tmp_path / "parts").mkdir()
    frame.iloc[:3].to_parquet(tmp_path / "parts" / "a.parquet")
    frame.iloc[3:].to_parquet(tmp_path / "parts" / "b.parquet")
    for source in (frame, tmp_path / "log.csv", str(tmp_path / "log.parquet"), tmp_path / "parts",
                   str(tmp_path / "parts" / "*.parquet")):
        table = le.group_counts(source, by=["day", "S"], label=["Y", "L2"], backend=engine)
        assert_same(table, expected())


def test_duckdb_relation_and_sql_sources(tmp_path, frame):
    import duckdb

    frame.to_parquet(tmp_path / "log.parquet")
    con = duckdb.connect()
    rel = con.read_parquet(str(tmp_path / "log.parquet"))
    assert le.resolve_backend("auto", rel) == "duckdb"
    assert_same(le.group_counts(rel, by=["day", "S"], label=["Y", "L2"]), expected())
    q = le.Sql(f"SELECT * FROM read_parquet('{tmp_path / 'log.parquet'}') WHERE day = 1")
    assert_same(le.group_counts(q, by=["day", "S"], label=["Y", "L2"]), expected().iloc[2:].reset_index(drop=True))
    assert_same(le.group_counts(q, by=["day", "S"], label=["Y", "L2"], backend="pandas"),
                expected().iloc[2:].reset_index(drop=True))


def test_auto_engine_and_bad_engine(frame, tmp_path):
    assert le.resolve_backend("auto", frame) == "pandas"
    assert le.resolve_backend("auto", tmp_path / "x.parquet") == "duckdb"
    with pytest.raises(ValueError, match=r"backend must be one of .*got 'numba'"):
        le.group_counts(frame, by=["S"], backend="numba")
    with pytest.raises(TypeError, match="pandas DataFrame, a DuckDB relation"):
        le.group_counts(np.zeros(3), by=["S"])


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_same_errors_in_every_engine(tmp_path, frame, engine):
    with pytest.raises(ValueError, match=r"label column 'Y' must hold only 0 and 1, found \[2"):
        le.group_counts(frame.assign(Y=frame.Y * 2), by=["S"], backend=engine)
    with pytest.raises(ValueError, match=r"label column 'Y' must hold only 0 and 1, found \[(nan|None)\]"):
        le.group_counts(frame.assign(Y=np.where(frame.Y == 1, np.nan, 0.0)), by=["S"], backend=engine)
    with pytest.raises(ValueError, match="label column 'Y' must hold 0/1 values"):
        le.group_counts(frame.assign(Y="yes"), by=["S"], backend=engine)
    with pytest.raises(ValueError, match="column 'S' has missing values"):
        le.group_counts(frame.assign(S=[None, "a", "a", "b", "b", "b"]), by=["S"], backend=engine)
    frame.to_csv(tmp_path / "log.csv", index=False)
    with pytest.raises(ValueError, match=r"log .*log.csv is missing column\(s\) \['click'\]"):
        le.group_counts(tmp_path / "log.csv", by=["S"], label="click", backend=engine)
    with pytest.raises(FileNotFoundError, match="log file not found"):
        le.group_counts(tmp_path / "nope.parquet", by=["S"], backend=engine)
    with pytest.raises(FileNotFoundError, match="no log file matches"):
        le.group_counts(str(tmp_path / "*.parquet"), by=["S"], backend=engine)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="empty"):
        le.group_counts(tmp_path / "empty.csv", by=["S"], backend=engine)
    frame.iloc[:0].to_csv(tmp_path / "header.csv", index=False)
    assert len(le.group_counts(tmp_path / "header.csv", by=["S"], backend=engine)) == 0


def test_only_the_needed_columns_are_read(tmp_path, frame):
    # a column that pandas could not parse as anything useful is never touched
    frame.assign(junk=["x"] * 6).to_parquet(tmp_path / "log.parquet")
    assert_same(le.group_counts(tmp_path / "log.parquet", by=["day", "S"], label=["Y", "L2"], backend="pandas"),
                expected())


def test_spark_without_java_is_a_clear_error(monkeypatch):
    pytest.importorskip("pyspark", reason="pyspark is not installed")
    monkeypatch.setattr(le.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(ValueError, match="backend='spark' needs Java"):
        le.spark_session()


def _parquet(path, y, **kw):
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(y)
    pq.write_table(pa.table({"Y": y, "S": ["a", "b"] * (n // 2) + ["a"] * (n % 2)}), path, **kw)
    return str(path)


def test_parquet_statistics_spare_the_label_check_only_when_they_prove_0_1(tmp_path):
    import pyarrow as pa

    types = {"Y": "BIGINT"}
    ok = _parquet(tmp_path / "ok.parquet", pa.array([0, 1, 1, 0], pa.int32()))
    assert le._labels_proven_binary(ok, ["Y"], types)
    assert le._labels_proven_binary(_parquet(tmp_path / "b.parquet", [True, False, True]), ["Y"], {"Y": "BOOLEAN"})
    # statistics that do not prove 0/1: a 2, a NULL, floats (0.5 fits in [0, 1]), no statistics at all
    two = _parquet(tmp_path / "two.parquet", [0, 1, 2, 1])
    null = _parquet(tmp_path / "null.parquet", pa.array([0, None, 1, 1], pa.int64()))
    flt = _parquet(tmp_path / "flt.parquet", [0.0, 1.0, 1.0, 0.0])
    nostats = _parquet(tmp_path / "nostats.parquet", [0, 1, 1, 0], write_statistics=False)
    assert not le._labels_proven_binary(two, ["Y"], types)
    assert not le._labels_proven_binary(null, ["Y"], types)
    assert not le._labels_proven_binary(flt, ["Y"], {"Y": "DOUBLE"})
    assert not le._labels_proven_binary(nostats, ["Y"], types)
    assert not le._labels_proven_binary(pd.DataFrame({"Y": [0, 1]}), ["Y"], types)   # not a file
    # ... and then the scan checks every value, so the bad ones are still refused
    with pytest.raises(ValueError, match=r"label column 'Y' must hold only 0 and 1, found \[2\]"):
        le.group_counts(two, by=["S"])
    with pytest.raises(ValueError, match=r"found \[None\]"):
        le.group_counts(null, by=["S"])
    for path in (ok, flt, nostats):
        assert le.group_counts(path, by=["S"]).values.tolist() == [["a", 2, 1], ["b", 2, 1]]


def test_ocef_reo_on_files_imports_neither_pandas_nor_pyarrow(tmp_path):
    """The 10^8-row path (issue 9): counts fetched as tuples, a lazy ocef.reo, a lazy groups table."""
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    for name, n in (("default", 400), ("random", 300)):
        pd.DataFrame({"Y": rng.integers(0, 2, n), "S": rng.integers(0, 3, n)}).to_parquet(tmp_path / f"{name}.parquet")
    code = ("import contextlib, io, json, sys\nfrom ocef import cli\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            f"    cli.main(['reo', '--default', {str(tmp_path / 'default.parquet')!r}, "
            f"'--random', {str(tmp_path / 'random.parquet')!r}, '--json'])\n"
            "print(json.dumps({'out': json.loads(buf.getvalue()), "
            "'loaded': sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'scipy'})}))")
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    cwd=tmp_path).stdout)
    assert out["loaded"] == []
    from ocef.reo import estimate_reo

    ref = estimate_reo(pd.read_parquet(tmp_path / "default.parquet"), pd.read_parquet(tmp_path / "random.parquet"))
    assert out["out"]["groups"] == json.loads(json.dumps(ref.to_dict()["groups"]))
    assert out["out"]["penalty"] == pytest.approx(ref.penalty, rel=1e-12)


def test_counts_share_one_duckdb_database_and_count_in_parallel_threads(tmp_path, frame):
    frame.to_parquet(tmp_path / "a.parquet")
    frame.iloc[::-1].to_parquet(tmp_path / "b.parquet")
    le.duckdb_cursor()
    le.duckdb_cursor()
    import os

    assert list(le._DATABASE) == [os.getpid()]          # one database per process, cursors on it
    finish = le.start_counts({"a": tmp_path / "a.parquet", "b": tmp_path / "b.parquet"}, by=["day", "S"],
                             label=["Y", "L2"], backend="duckdb")
    for counted in finish().values():
        assert_same(counted.table.to_frame(), expected())


def test_hive_partition_columns_in_every_engine(tmp_path, frame):
    # logs/day=0/..., logs/date=2024-01-0d/...: the partition values are columns for pandas too
    # (it used to name the key column missing), with DuckDB's types: integers, dates, text
    import datetime

    for day, part in frame.groupby("day"):
        for root, key in (("ints", f"day={day}"), ("dates", f"date=2024-01-0{day + 1}"), ("text", f"tag=t{day}")):
            (tmp_path / root / key).mkdir(parents=True)
            part.drop(columns="day").to_parquet(tmp_path / root / key / "part.parquet")
    cases = {"ints": ("day", list(range(2))), "dates": ("date", [datetime.date(2024, 1, 1), datetime.date(2024, 1, 2)]),
             "text": ("tag", ["t0", "t1"])}
    for root, (key, values) in cases.items():
        ref = expected().rename(columns={"day": key}).assign(**{key: lambda d: [values[v] for v in d[key]]})
        for engine in ("duckdb", "pandas"):
            for source in (tmp_path / root, str(tmp_path / root / "*" / "*.parquet")):
                table = le.group_counts(source, by=[key, "S"], label=["Y", "L2"], backend=engine)
                assert_same(table, ref)
                assert [type(v) for v in table[key]] == [type(v) for v in ref[key]], (engine, root)


def test_a_file_named_parquet_that_is_not_one_is_named_as_such(tmp_path):
    """Issue 31: a CSV inside a .parquet file says so, not DuckDB's "No magic bytes found"."""
    import gzip

    import pandas as pd

    from ocef.backends import check_parquet_file, count_keys
    from ocef.errors import DataError

    csv = tmp_path / "log.parquet"
    csv.write_text("S,Y\n0,1\n1,0\n")
    for backend in ("duckdb", "pandas"):
        with pytest.raises(DataError, match=r"log\.parquet is not a Parquet file \(it looks like CSV\)"):
            count_keys(csv, by=["S"], label=["Y"], backend=backend)
    gz = tmp_path / "gz.parquet"
    gz.write_bytes(gzip.compress(b"S,Y\n0,1\n"))
    with pytest.raises(DataError, match=r"gz\.parquet is not a Parquet file \(it looks like gzip\)"):
        check_parquet_file(gz)
    good = tmp_path / "good.parquet"
    pd.DataFrame({"S": [0, 1], "Y": [1, 0]}).to_parquet(good)
    check_parquet_file(good)                                     # no error
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(good.read_bytes()[:-8])
    with pytest.raises(DataError, match="not a complete Parquet file"):
        check_parquet_file(cut)
