"""Robustness defects closed in issue 28 (helper E): errors name --grid, rewards outside [0, 1] in the
off-policy audit, non-finite ranks and sizes (one line, exit 2)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef.errors import DataError, ParameterError
from ocef.validation import parse_size


def _cand(tmp_path, n_users=5):
    g = np.random.default_rng(4)
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), 10), "item": np.tile(np.arange(10), n_users),
                         "score": g.random(n_users * 10)})
    cand["genre"] = np.where(cand["item"] < 4, "drama", "other")
    cand.to_csv(tmp_path / "cand.csv", index=False)
    return tmp_path / "cand.csv"


@pytest.mark.parametrize("grid, words", [("p=2", ("--grid", "grid[0]", "'p=2'", "got 2")),
                                         ("p=nan", ("grid",)), ("p=abc", ("grid", "abc")),
                                         ("x=1", ("grid", "no parameter")), ("nonsense", ("--grid", "name=value"))])
def test_mitigate_grid_errors_name_the_grid(tmp_path, capsys, grid, words):
    code = cli.main(["mitigate", "--candidates", str(_cand(tmp_path)), "--item-group", "genre", "--method", "fair",
                     "--json", "--grid", grid])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert any(w in err for w in words) and "grid" in err


def test_memory_limit_overflow_is_one_line():
    with pytest.raises(ParameterError, match="finite"):
        parse_size("1e400GB", "--memory-limit")


def _oplog(reward):
    log = pd.DataFrame({"user": np.arange(8) % 4, "item": [0, 1] * 4, "reward": reward, "propensity": 0.5,
                        "g": ["a", "a", "b", "b"] * 2})
    return log, pd.DataFrame({"item": [0, 1], "probability": [1.0, 0.0]})


def test_offpolicy_rewards_outside_unit_interval():
    from ocef.offpolicy import offpolicy_audit

    log, target = _oplog([1, 0, -1, 1, 0, 0, 2, 0])
    res = offpolicy_audit(log, target, estimators=["ips"])
    assert any("outside [0, 1]" in n and "[-1, 2]" in n for n in res.notes)
    assert res.to_dict()["notes"]
    for interval in ("clopper-pearson", "betting", "cressie-read"):
        with pytest.raises(DataError, match=f"log: rewards in .*{interval}"):
            offpolicy_audit(log, target, estimators=["ips"], interval=interval)
    with pytest.raises(DataError, match="negative rewards .* merit"):
        offpolicy_audit(log, target, estimators=["ips"], item_group="g")
    log, target = _oplog([1, 0, 1, 1, 0, 0, 1, 0])               # [0, 1]: no note
    assert offpolicy_audit(log, target, estimators=["ips"]).notes == ()


@pytest.mark.parametrize("rank", ["1e400", "-1e400", "nan", "inf"])
@pytest.mark.parametrize("backend", ["duckdb", "pandas"])
def test_exposure_non_finite_rank_one_line(tmp_path, capsys, rank, backend):
    path = tmp_path / "log.csv"
    path.write_text(f"user,item,rank,genre\n1,10,1,a\n1,20,{rank},b\n2,20,1,b\n2,10,2,a\n")
    code = cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--json", "--backend", backend])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "rank" in err, err
