"""``ocef exposure``: JSON equal to the library call, side tables, errors."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef.exposure import exposure_fairness


def make_log(tmp_path):
    rng = np.random.default_rng(5)
    rows = []
    for u in range(80):
        items = rng.choice(40, size=6, replace=False)
        for r, i in enumerate(items):
            rows.append((u, int(i), r + 1, int(rng.random() < 0.3 + 0.01 * i), "gen" if i < 25 else "niche",
                         "f" if u % 3 == 0 else "m"))
    log = pd.DataFrame(rows, columns=["user", "item", "rank", "relevance", "genre", "gender"])
    path = tmp_path / "log.parquet"
    log.to_parquet(path)
    return log, path


def test_json_equals_the_library(tmp_path, capsys):
    log, path = make_log(tmp_path)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "gender",
                     "--browsing", "cascade", "--patience", "0.7", "--target", "merit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = exposure_fairness(log, item_group="genre", user_group="gender", browsing="cascade", patience=0.7,
                            target="merit")
    got = pd.DataFrame(out["groups"])
    np.testing.assert_allclose(got["estimate"], res.groups["estimate"], rtol=1e-10)
    np.testing.assert_allclose(got["ci_low"], res.groups["ci_low"], rtol=1e-10)
    assert out["pairs"][0]["reference"] == "m" and out["users"]["pairs"]
    assert out["overall"][0]["n_users"] == 80


def test_backend_side_table_and_text(tmp_path, capsys):
    log, path = make_log(tmp_path)
    items = tmp_path / "items.csv"
    log[["item", "genre"]].drop_duplicates().to_csv(items, index=False)
    bare = tmp_path / "bare.csv"
    log.drop(columns=["genre"]).to_csv(bare, index=False)
    assert cli.main(["exposure", "--rankings", str(bare), "--item-group", "genre", "--item-groups", str(items),
                     "--backend", "pandas", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose([r["estimate"] for r in a["groups"]], [r["estimate"] for r in b["groups"]])
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--browsing", "dcg"]) == 0
    text = capsys.readouterr().out
    assert "browsing dcg" in text and "niche" in text


@pytest.mark.parametrize("argv, message", [
    (["--item-group", "nope"], "missing column"),
    (["--item-group", "genre", "--patience", "1.5"], "patience"),
    (["--item-group", "genre", "--target", "merit", "--confidence", "2"], "confidence"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, message):
    _, path = make_log(tmp_path)
    assert cli.main(["exposure", "--rankings", str(path)] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_ranking_metrics_json_console_and_library(tmp_path, capsys):
    from ocef.commands.exposure import RANKING_METRICS as CLI_METRICS
    from ocef.exposure.ranking_metrics import RANKING_METRICS, ranking_fairness

    assert CLI_METRICS == RANKING_METRICS
    log, path = make_log(tmp_path)
    judg = log[log.relevance > 0][["user", "item", "relevance"]]
    jpath = tmp_path / "qrels.csv"
    judg.to_csv(jpath, index=False)
    argv = ["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "gender",
            "--ranking-metrics", "awrf", "ndkl", "ee_relevance", "--judgments", str(jpath)]
    assert cli.main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lib = ranking_fairness(log, item_group="genre", user_group="gender", judgments=judg,
                           metrics=["awrf", "ndkl", "ee_relevance"])
    got = pd.DataFrame(out["ranking"]["groups"])
    np.testing.assert_allclose(got["estimate"], lib.groups["estimate"], rtol=1e-10)
    np.testing.assert_allclose(got["ci_high"], lib.groups["ci_high"], rtol=1e-10)
    assert out["ranking"]["target_source"] == "judgments" and len(out["ranking"]["pairs"]) == 6
    assert cli.main(argv[:-2]) == 0                              # no judgments: the log's relevance, with a note
    text = capsys.readouterr().out
    assert "per-user ranking metrics" in text and "note: target exposure from the log" in text
    # without --ranking-metrics the JSON is the one of before (no "ranking" key)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--json"]) == 0
    assert "ranking" not in json.loads(capsys.readouterr().out)


def test_a_null_interval_points_to_its_reason_on_the_console(tmp_path, capsys):
    # 80 users in two groups of 27 and 53: EE-D's mean per group has no interval (fewer than 60
    # users); the console marks those rows and prints the reason, numbered, at the end
    _, path = make_log(tmp_path)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "gender",
                     "--ranking-metrics", "awrf", "ee_disparity"]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if " ee_disparity " in line and " nan " in line]
    assert rows[0].rstrip().endswith("[1]") and rows[1].rstrip().endswith("[2]")
    assert "\nnotes\n  [1] no valid interval: 27 users, fewer than 60" in text
    assert "  [2] no valid interval: 53 users, fewer than 60" in text


def test_ndkl_against_a_population_target(tmp_path, capsys):
    from ocef.exposure import ranking_fairness

    log, path = make_log(tmp_path)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--ranking-metrics", "ndkl",
                     "--ndkl-target", "gen=0.625", "niche=0.375", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = ranking_fairness(log, item_group="genre", metrics=["ndkl"], ndkl_desired={"gen": 0.625, "niche": 0.375})
    assert out["ranking"]["overall"][0]["estimate"] == pytest.approx(want.overall["estimate"].iloc[0], rel=1e-12)
    assert out["overall"][0]["target"] == "catalogue" and "per item" in out["overall"][0]["target_meaning"]
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--ranking-metrics", "ndkl",
                     "--ndkl-target", "gen"]) == 2
    err = capsys.readouterr().err
    assert "--ndkl-target" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    # issue 28's last campaign: each line names the option typed, not the library's parameter
    (["--ranking-metrics", "ndkl", "--ndkl-target", "gen=0.3 niche=0.7"],
     "--ndkl-target takes one GROUP=PROPORTION pair per argument, got 'gen=0.3 niche=0.7'"),
    (["--ranking-metrics", "ndkl", "--ndkl-target", "gen=-1"], "--ndkl-target['gen'] must be a finite number >= 0"),
    (["--ranking-metrics", "ndkl", "--ndkl-target", "gen=nan"], "--ndkl-target['gen'] must be a finite number"),
    (["--ranking-metrics", "ndkl", "--ndkl-target", "x=1"], "--ndkl-target names item group(s) ['x']"),
    (["--user-group", ""], "user_group must be a non-empty str or None (a column name), got ''"),
])
def test_errors_name_the_option_typed(tmp_path, cli_run, argv, message):
    _, path = make_log(tmp_path)
    code, out, err = cli_run("exposure", "--rankings", path, "--item-group", "genre", "--json", *argv)
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1 and "ndkl_desired" not in err
