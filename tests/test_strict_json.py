"""Every ``--json`` output is strict JSON: ``json.loads(..., parse_constant=<raise>)`` reads it
(no NaN or Infinity), including the corner cases that used to print NaN."""
import json

import numpy as np
import pandas as pd
import pytest

import ocef.cli
from ocef.results import dumps, jsonable


def _strict(text: str):
    def refuse(name):
        raise ValueError(f"non-strict JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "rho.npy", rng.uniform(size=(8, 4)))
    np.save(tmp_path / "probs.npy", rng.dirichlet(np.ones(4), size=8))
    np.save(tmp_path / "groups.npy", np.repeat([0, 1], 4))
    for name in ("default", "random"):
        n = 400
        day = rng.integers(0, 3, n)
        y = rng.integers(0, 2, n) * (day < 2)   # day 2 has no positive: no estimate that day, a note
        pd.DataFrame({"Y": y, "S": rng.integers(0, 2, n), "day": day}).to_csv(tmp_path / f"{name}.csv", index=False)
    n = 300                                     # randomized pairs of Beutel et al. 2019 (pairwise fairness), with model scores
    pd.DataFrame({"query": np.arange(n) // 2, "j": rng.integers(0, 50, n), "jp": rng.integers(50, 100, n),
                  "s_j": rng.integers(0, 2, n), "s_jp": rng.integers(0, 2, n), "score_j": rng.normal(size=n),
                  "score_jp": rng.normal(size=n)}).to_csv(tmp_path / "pairs.csv", index=False)
    users = pd.DataFrame({"gender": rng.integers(0, 2, 60), "age": rng.integers(0, 3, 60),
                          "mrr": rng.uniform(size=60)})                  # per-user metrics (Guo et al. 2023)
    users.to_csv(tmp_path / "users.csv", index=False)
    return tmp_path


def commands(d):
    arrays = ["--rho", d / "rho.npy", "--policy-probs", d / "probs.npy", "--groups", d / "groups.npy"]
    logs = ["--default", d / "default.csv", "--random", d / "random.csv"]
    return {
        "bandit": ["bandit", "--means", "0.6,0.3", "--trials", "2", "--max-steps", "10"],
        "envy": ["envy", *arrays],
        "audit (max-steps 10: timeouts, NaN correctness)": ["audit", *arrays, "--max-steps", "10"],
        "reo": ["reo", *logs],
        "reo-ab": ["reo-ab", "--control", d / "default.csv", "--treatment", d / "default.csv", "--random",
                   d / "random.csv"],
        "reo --by (a day without positives: null estimates)": ["reo", *logs, "--by", "day"],
        "recmetrics (infinite EKL and ratios)": ["recmetrics", "--scores", d / "rho.npy", "--groups",
                                                 d / "groups.npy", "--truth", d / "probs.npy", "--top", "1",
                                                 "--resamples", "20"],
        "pairwise": ["pairwise", "--pairs", d / "pairs.csv", "--resamples", "20"],
        "fairrec": ["fairrec", "--user-metrics", d / "users.csv", "--attributes", "gender,age", "--metric", "mrr",
                    "--min-users", "2", "--method", "exhaustive"],
    }


@pytest.mark.parametrize("name", list(commands(__import__("pathlib").Path("."))))
def test_every_json_output_is_strict(name, files, capsys):
    argv = [str(a) for a in commands(files)[name]] + ["--json"]
    assert ocef.cli.main(argv) == 0
    out = capsys.readouterr().out
    payload = _strict(out)
    assert isinstance(payload, dict) and payload


def test_jsonable_converts_what_results_hold():
    frame = pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]})
    got = jsonable({"f": np.float64("nan"), "i": np.int64(3), "inf": float("inf"), "arr": np.array([1.0, np.inf]),
                    "frame": frame, "b": np.bool_(True)})
    assert got == {"f": None, "i": 3, "inf": None, "arr": [1.0, None],
                   "frame": [{"a": 1.0, "b": "x"}, {"a": None, "b": "y"}], "b": True}
    assert _strict(dumps(got)) == got
    with pytest.raises(TypeError, match="complex"):
        jsonable(1 + 2j)


def test_jsonable_writes_dates_and_times_in_iso_8601():
    import datetime
    got = jsonable({"d": datetime.date(2026, 1, 2), "dt": datetime.datetime(2026, 1, 2, 3, 4, 5),
                    "t": datetime.time(3, 4), "np": np.datetime64("2026-01-02"), "ts": pd.Timestamp("2026-01-02"),
                    "nat": pd.NaT})
    assert got == {"d": "2026-01-02", "dt": "2026-01-02T03:04:05", "t": "03:04:00", "np": "2026-01-02",
                   "ts": "2026-01-02T00:00:00", "nat": None}


def test_reo_by_a_date_column_prints_strict_json(tmp_path, capsys):
    # A Parquet DATE key (or a hive partition day=2026-01-02) comes back as datetime.date.
    rng = np.random.default_rng(0)
    for name in ("default", "random"):
        n = 600
        days = pd.Timestamp("2026-01-01") + pd.to_timedelta(rng.integers(0, 2, n), "D")
        pd.DataFrame({"Y": rng.integers(0, 2, n), "S": rng.integers(0, 2, n),
                      "date": days.date}).to_parquet(tmp_path / f"{name}.parquet")
    argv = ["reo", "--default", str(tmp_path / "default.parquet"), "--random", str(tmp_path / "random.parquet"),
            "--by", "date", "--json"]
    assert ocef.cli.main(argv) == 0
    payload = _strict(capsys.readouterr().out)
    assert "2026-01-02" in json.dumps(payload)
