"""Tests of ocef.environments.logs: generic schema, published schema, Coat and OBD loaders."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.environments import logs
from tests.conftest import require_data


def small_log(source: str) -> pd.DataFrame:
    return pd.DataFrame({"request": [0, 0, 1, 2], "Y": [1, 0, 1, 0], "S": ["a", "b", "b", "a"],
                         "source": source, "day": [0, 0, 1, 1]})


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_read_log_formats(tmp_path, suffix):
    df = small_log("default")
    path = tmp_path / f"log{suffix}"
    df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
    back = logs.read_log(path, columns=["Y", "S"])
    pd.testing.assert_frame_equal(back, df)


def test_read_log_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="log file not found"):
        logs.read_log(tmp_path / "nope.csv")
    path = tmp_path / "x.csv"
    small_log("default").to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['click'\]"):
        logs.read_log(path, columns=["click", "S"])
    # the same header checks as the log engines (ocef.backends.check_csv_header)
    (tmp_path / "dup.csv").write_text("Y,S,Y\n1,a,0\n")
    with pytest.raises(ValueError, match=r"duplicate column name\(s\) \['Y'\]"):
        logs.read_log(tmp_path / "dup.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="is empty"):
        logs.read_log(tmp_path / "empty.csv")
    (tmp_path / "bad.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="cannot read log"):
        logs.read_log(tmp_path / "bad.csv.gz")


def test_load_logs_two_files_and_combined(tmp_path):
    d, r = small_log("default"), small_log("random")
    d.to_csv(tmp_path / "d.csv", index=False)
    r.to_parquet(tmp_path / "r.parquet")
    default, random = logs.load_logs(tmp_path / "d.csv", tmp_path / "r.parquet")
    assert len(default) == 4 and (random.source == "random").all()
    pd.concat([d, r]).to_csv(tmp_path / "both.csv", index=False)
    default, random = logs.load_logs(combined=tmp_path / "both.csv")
    assert (default.source == "default").all() and (random.source == "random").all()
    assert len(default) == len(random) == 4
    with pytest.raises(ValueError, match=r"missing column\(s\) \['click'\]"):
        logs.load_logs(tmp_path / "d.csv", tmp_path / "r.parquet", label="click")
    with pytest.raises(ValueError, match="give both"):
        logs.load_logs(tmp_path / "d.csv")


def test_split_by_source_rejects_unknown_values():
    bad = small_log("default").assign(source=["default", "rand", "random", "default"])
    with pytest.raises(ValueError, match=r"must hold 'default' or 'random', found \['rand'\]"):
        logs.split_by_source(bad)
    with pytest.raises(ValueError, match="traffic-source column 'source'"):
        logs.split_by_source(bad.drop(columns="source"))


def test_load_published_any_signal(tmp_path):
    cols = list(logs.PUBLISHED_SIGNALS) + ["young_adult"]
    rows = np.zeros((4, 7), dtype=int)
    rows[0, 3] = 1           # finish only
    rows[1, [0, 5]] = 1      # like + long_view
    rows[:, 6] = [1, 0, 1, 0]
    df = pd.DataFrame(rows, columns=cols)
    df.to_csv(tmp_path / "d.csv", index=False)
    df.to_parquet(tmp_path / "r.parquet")
    default, random = logs.load_published(tmp_path / "d.csv", tmp_path / "r.parquet")
    assert default.Y.tolist() == [1, 1, 0, 0]
    assert default.S.tolist() == [1, 0, 1, 0]
    assert random.source.unique().tolist() == ["random"]
    df.assign(share=[0, 2, 0, 0]).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="'share' must hold only 0/1"):
        logs.load_published(tmp_path / "bad.csv", tmp_path / "r.parquet")
    df.drop(columns="follow").to_csv(tmp_path / "miss.csv", index=False)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['follow'\]"):
        logs.load_published(tmp_path / "miss.csv", tmp_path / "r.parquet")
