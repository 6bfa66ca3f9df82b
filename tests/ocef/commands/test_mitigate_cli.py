"""``ocef mitigate``: --help, JSON equal to the library call, written logs, bad inputs (exit 2, one line)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef.commands import mitigate as cmd
from ocef.mitigate.loop import METHODS, mitigate


def write_world(tmp_path, n_users=70):
    g = np.random.default_rng(4)
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), 10), "item": np.tile(np.arange(10), n_users),
                         "score": g.random(n_users * 10)})
    cand["genre"] = np.where(cand["item"] < 4, "drama", "other")
    cand.to_parquet(tmp_path / "cand.parquet")
    cand.sample(frac=0.3, random_state=1)[["user", "item"]].assign(relevance=1).to_csv(tmp_path / "rel.csv",
                                                                                        index=False)
    return cand


def test_methods_are_the_library_ones():
    assert cmd.METHODS == METHODS
    from ocef.mitigate.rerank import RERANKERS

    assert set(RERANKERS) <= set(METHODS)


def test_help(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["mitigate", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--candidates" in out and "--grid" in out and "held-out" in out


def test_json_equals_the_library_and_logs_are_written(tmp_path, capsys):
    cand = write_world(tmp_path)
    argv = ["mitigate", "--candidates", str(tmp_path / "cand.parquet"), "--item-group", "genre", "--method", "boost",
            "--grid", "amount=0.2", "--grid", "amount=0.4", "--k", "4", "--relevance", str(tmp_path / "rel.csv"),
            "--protected", "drama", "--out", str(tmp_path / "out"), "--json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    res = mitigate(cand, item_group="genre", method="boost", grid=[{"amount": 0.2}, {"amount": 0.4}], k=4,
                   relevance=pd.read_csv(tmp_path / "rel.csv"), protected="drama", rng=0)
    got = pd.DataFrame(out["statistics"])
    np.testing.assert_allclose(got["estimate"].astype(float), res.statistics["estimate"], rtol=1e-9)
    assert [p["params"] for p in out["points"]][1:] == ["protected=drama,amount=0.2", "protected=drama,amount=0.4"]
    assert (tmp_path / "out/boost/point-01.parquet").exists() and (tmp_path / "out/baseline.parquet").exists()
    assert "Holm" in out["family"]
    assert [p["params"] for p in out["front"]] == res.front()["params"].tolist() and out["front"]
    # the console view
    assert cli.main(argv[:-1]) == 0
    text = capsys.readouterr().out
    assert "front (non-dominated" in text and "certificate:" in text and "family:" in text


@pytest.mark.parametrize("extra, message", [
    (["--item-group", "nope"], "missing column"),
    (["--item-group", "genre", "--grid", "amount"], "name=value"),
    (["--item-group", "genre", "--grid", "nope=1"], "no parameter"),
    (["--item-group", "genre", "--k", "50"], "fewer than k"),
    (["--item-group", "genre", "--protected", "jazz"], "protected"),
    (["--item-group", "genre", "--target", "merit"], "merit"),
    (["--item-group", "genre", "--margin", "2"], "margin"),
])
def test_bad_inputs_one_line_exit_2(tmp_path, capsys, extra, message):
    write_world(tmp_path, n_users=5)
    code = cli.main(["mitigate", "--candidates", str(tmp_path / "cand.parquet"), "--method", "boost", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1 and err.startswith("ocef mitigate: error:")


def test_missing_file_and_bad_method(tmp_path, capsys):
    assert cli.main(["mitigate", "--candidates", str(tmp_path / "x.parquet"), "--item-group", "g",
                     "--method", "boost"]) == 2
    assert "not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        cli.main(["mitigate", "--candidates", "x", "--item-group", "g", "--method", "nope"])
    assert info.value.code == 2
