"""``ocef offpolicy``: JSON equal to the library call, side tables, light copies, errors."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef.commands import offpolicy as command
from ocef.offpolicy import AUDIT_INTERVALS, UTILITY_ESTIMATORS, offpolicy_audit


def make(tmp_path):
    rng = np.random.default_rng(3)
    n = 3000
    log = pd.DataFrame({"user": rng.integers(0, 300, n), "item": rng.integers(0, 6, n)})
    log["propensity"] = 1 / 6
    log["reward"] = (rng.random(n) < 0.1 + 0.05 * log["item"]).astype(int)
    log["gender"] = np.where(log["user"] % 3 == 0, "f", "m")
    items = pd.DataFrame({"item": range(6), "genre": ["a", "a", "b", "b", "b", "c"]})
    target = pd.DataFrame({"item": range(6), "probability": [0.1, 0.1, 0.2, 0.2, 0.2, 0.2]})
    paths = {}
    for name, frame in (("log", log), ("items", items), ("target", target)):
        paths[name] = tmp_path / f"{name}.parquet"
        frame.to_parquet(paths[name])
    return log, items, target, paths


def test_json_equals_the_library(tmp_path, capsys):
    log, items, target, paths = make(tmp_path)
    assert cli.main(["offpolicy", "--log", str(paths["log"]), "--target", str(paths["target"]), "--item-group",
                     "genre", "--item-groups", str(paths["items"]), "--user-group", "gender", "--estimator", "ips",
                     "snips", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = offpolicy_audit(log, target, item_group="genre", item_groups=items, user_group="gender",
                          estimators=["ips", "snips"], rng=0)
    got = pd.DataFrame(out["groups"])
    np.testing.assert_allclose(got["estimate"].astype(float), res.groups["estimate"].astype(float), rtol=1e-12)
    assert out["overall"][0]["family"].startswith("every row of pairs")
    assert {r["verdict"] for r in out["pairs"]} <= {"inconclusive", "group higher", "reference higher"}


def test_console_output(tmp_path, capsys):
    _, _, _, paths = make(tmp_path)
    assert cli.main(["offpolicy", "--log", str(paths["log"]), "--target", str(paths["target"]),
                     "--user-group", "gender"]) == 0
    text = capsys.readouterr().out
    assert "effective sample size" in text and "no importance weighting" in text


def test_light_copies_match_the_library():
    assert command.ESTIMATORS == UTILITY_ESTIMATORS
    assert command.INTERVALS == AUDIT_INTERVALS


def test_bad_log_is_one_line_exit_2(tmp_path, capsys):
    log, _, _, paths = make(tmp_path)
    bad = tmp_path / "bad.parquet"
    log.assign(propensity=0.0).to_parquet(bad)
    assert cli.main(["offpolicy", "--log", str(bad), "--target", str(paths["target"])]) == 2
    err = capsys.readouterr().err
    assert "propensity" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("flag", ["--estimator", "--interval"])
def test_unknown_choice(tmp_path, flag):
    _, _, _, paths = make(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli.main(["offpolicy", "--log", str(paths["log"]), "--target", str(paths["target"]), flag, "magic"])
    assert e.value.code == 2
