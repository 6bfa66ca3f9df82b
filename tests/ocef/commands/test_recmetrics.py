"""Tests of ``ocef recmetrics``: files (.npy/.csv with NaN and names), JSON keys, holisticai's
orientation with --group-a, intervals, data sets, and one-line errors."""
import json

import numpy as np
import pytest

import ocef.cli
import ocef.metrics as M
from tests.conftest import require_data


@pytest.fixture
def run_cli(capsys):
    def run(*argv):
        code = ocef.cli.main(["recmetrics", *map(str, argv)])
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    scores = np.round(rng.random((12, 6)), 6)
    truth = np.round(rng.random((12, 6)), 6)
    names = np.array(["women", "men"])[np.arange(12) % 2]
    np.save(tmp_path / "s.npy", scores)
    np.save(tmp_path / "t.npy", truth)
    (tmp_path / "g.csv").write_text("gender\n" + "\n".join(names) + "\n")
    return tmp_path, scores, truth, names


def test_json_with_group_a_is_holisticai_orientation(run_cli, files):
    d, scores, truth, names = files
    code, out, err = run_cli("--scores", d / "s.npy", "--truth", d / "t.npy", "--groups", d / "g.csv",
                             "--group-a", "women", "--top", 2, "--json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert set(payload["overall"]) >= {"aggregate_diversity", "gini_index", "exposure_entropy",
                                       "avg_recommendation_popularity"}
    assert [g["group"] for g in payload["groups"]] == ["men", "women"]
    assert all(g["n_users"] == 6 for g in payload["groups"])
    (pair,) = payload["pairs"]
    assert (pair["group_a"], pair["group_b"]) == ("women", "men")
    a, b = (names == "women").astype(int), (names == "men").astype(int)
    table = M.recommender_bias_metrics(a, b, scores, truth, k=2, thresh=None, metric_type="all")
    assert pair["mad"]["value"] == pytest.approx(table.Value["Mean Absolute Deviation"])
    assert pair["exposure_total_variation"]["value"] == pytest.approx(table.Value["Exposure Total Variation"])
    assert pair["avg_recall_ratio"]["value"] == pytest.approx(table.Value["Average Recall Ratio"])
    assert pair["mae_ratio"]["value"] == pytest.approx(table.Value["Recommender MAE Ratio"])
    assert payload["overall"]["gini_index"]["value"] == pytest.approx(table.Value["GINI index"])
    assert set(pair["mad"]) >= {"estimate", "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "reason"}


def test_csv_scores_with_empty_cells_and_text_output_with_intervals(run_cli, tmp_path):
    (tmp_path / "s.csv").write_text("i1,i2,i3\n0.9,0.1,\n0.2,0.8,0.6\n0.7,,0.4\n0.4,0.6,0.55\n")
    (tmp_path / "g.csv").write_text("1\n1\n0\n0\n")
    code, out, _ = run_cli("--scores", tmp_path / "s.csv", "--groups", tmp_path / "g.csv", "--resamples", 50,
                           "--interval", "basic")
    assert code == 0
    flat = " ".join(out.split())
    assert "reference group '0'" in flat and "95% intervals (basic; 50 bootstrap resamples" in flat
    assert "exposure_total_variation" in out and "[" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    code, out, _ = run_cli("--scores", tmp_path / "s.csv", "--groups", tmp_path / "g.csv", "--json",
                           "--gini-convention", "formula")
    payload = json.loads(out)
    scores = np.array([[0.9, 0.1, np.nan], [0.2, 0.8, 0.6], [0.7, np.nan, 0.4], [0.4, 0.6, 0.55]])
    assert payload["overall"]["gini_index"]["value"] == pytest.approx(M.gini_index(scores, convention="formula"))
    assert payload["pairs"][0]["mad"]["value"] == pytest.approx(np.nanmean(scores[:2]) - np.nanmean(scores[2:]))
    assert "avg_recall_ratio" not in payload["pairs"][0]                   # no truth: no ratios


def test_seed_reproduces_intervals(run_cli, files):
    d = files[0]
    args = ("--scores", d / "s.npy", "--groups", d / "g.csv", "--resamples", 40, "--seed", 3, "--json")
    first, second = run_cli(*args)[1], run_cli(*args)[1]
    pair = json.loads(first)["pairs"][0]
    mad, etv = pair["mad"], pair["exposure_total_variation"]
    assert first == second and mad["ci_low"] is not None                  # t interval: floor 3 <= 6 users
    # ETV's interval needs 12 users a group (measured floor): none, no test, and the reason says why
    assert etv["ci_low"] is None and etv["significant"] is None and "measured floor" in etv["reason"]
    big = np.random.default_rng(1).random((40, 6))
    np.save(d / "big.npy", big)
    (d / "g40.csv").write_text("g\n" + "\n".join(["a", "b"] * 20) + "\n")
    out = json.loads(run_cli("--scores", d / "big.npy", "--groups", d / "g40.csv", "--n-resamples", 40, "--json")[1])
    assert out["pairs"][0]["mad"]["ci_low"] is not None and out["n_resamples"] == 40 and out["family"] == "report"


def test_console_fits_100_columns_and_says_why_precision_recall_f1_coincide(run_cli, files):
    d = files[0]
    code, out, _ = run_cli("--scores", d / "s.npy", "--truth", d / "t.npy", "--groups", d / "g.csv", "--k", 2,
                           "--resamples", 30)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert "precision, recall and F1 coincide" in out and "p (Holm)" in out
    # a threshold reads different numbers of items shown and relevant: no such note
    code, out, _ = run_cli("--scores", d / "s.npy", "--truth", d / "t.npy", "--groups", d / "g.csv",
                           "--thresh", 0.5, "--resamples", 30)
    assert code == 0 and "coincide" not in out


@pytest.mark.parametrize("extra,message", [
    (("--group-a", "other"), "--group-a 'other' is not a group"),
    (("--reference", "x"), "reference 'x' is not a group"),
    (("--group-a", "women", "--reference", "women"), "must be the other group"),
    (("--top", 7), "k must be an integer in [1, 6]"),
    (("--resamples", -2), "--n-resamples must be an integer >= 0"),
    (("--dataset", "coat"), "either --dataset or files"),
    # options of the movielens data set are not silently ignored with files (or with coat)
    (("--n-users", 5), "--n-users applies to --dataset movielens only"),
    (("--n-items", 3), "--n-items applies to --dataset movielens only"),
    (("--train-fraction", 0.5), "--train-fraction applies to --dataset movielens only"),
])
def test_errors_are_one_line(run_cli, files, extra, message):
    d = files[0]
    code, out, err = run_cli("--scores", d / "s.npy", "--groups", d / "g.csv", *extra)
    assert code == 2 and out == ""
    assert err.startswith("ocef recmetrics: error: ") and message in err and err.count("\n") == 1


def test_file_errors(run_cli, tmp_path):
    np.save(tmp_path / "v.npy", np.zeros(4))
    np.save(tmp_path / "nan.npy", np.full((3, 2), np.nan))
    (tmp_path / "bad.csv").write_text("0.1,0.2\n0.3,abc\n")
    (tmp_path / "g.csv").write_text("a\nb\nb\n")
    cases = [(("--scores", tmp_path / "missing.npy", "--groups", tmp_path / "g.csv"), "file not found"),
             (("--scores", tmp_path / "v.npy", "--groups", tmp_path / "g.csv"), "2-d"),
             (("--scores", tmp_path / "nan.npy", "--groups", tmp_path / "g.csv"), "every entry is NaN"),
             (("--scores", tmp_path / "bad.csv", "--groups", tmp_path / "g.csv"), "non-numeric value 'abc'"),
             (("--scores", tmp_path / "nan.npy"), "give --scores and --groups")]
    for argv, message in cases:
        code, _, err = run_cli(*argv)
        assert code == 2 and message in err, (argv, err)
    np.save(tmp_path / "s.npy", np.random.default_rng(0).random((3, 2)))
    (tmp_path / "g2.csv").write_text("a\nb\n")
    code, _, err = run_cli("--scores", tmp_path / "s.npy", "--groups", tmp_path / "g2.csv")
    assert code == 2 and "one label per user" in err
    code, _, err = run_cli("--scores", tmp_path / "s.npy", "--groups", tmp_path / "g.csv", "--truth", tmp_path / "v.npy")
    assert code == 2 and "truth must be a 2-d" in err


def test_group_a_needs_two_groups(run_cli, tmp_path):
    np.save(tmp_path / "s.npy", np.random.default_rng(0).random((3, 4)))
    (tmp_path / "g.csv").write_text("a\nb\nc\n")
    code, _, err = run_cli("--scores", tmp_path / "s.npy", "--groups", tmp_path / "g.csv", "--group-a", "a")
    assert code == 2 and "--group-a needs exactly two groups" in err


@pytest.mark.data
def test_coat_dataset(run_cli):
    require_data("coat", "train.ascii")
    code, out, _ = run_cli("--dataset", "coat", "--data-dir", require_data("coat").parent, "--top", 5, "--json")
    assert code == 0
    payload = json.loads(out)
    assert sorted(g["group"] for g in payload["groups"]) == ["men", "women"]
    assert sum(g["n_users"] for g in payload["groups"]) == 290
    assert payload["pairs"][0]["group_b"] == "men"                # the larger group
    assert payload["pairs"][0]["rmse_ratio"]["value"] > 0
    code, _, err = run_cli("--dataset", "coat", "--data-dir", require_data("coat").parent, "--partition", "zodiac")
    assert code == 2 and "--partition must be one of" in err


@pytest.mark.data
def test_movielens_dataset(run_cli, tmp_path, monkeypatch):
    require_data("ml-100k", "u.data")
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path / "cache"))
    code, out, _ = run_cli("--dataset", "movielens", "--data-dir", require_data("ml-100k").parent, "--n-users", 200,
                           "--n-items", 100, "--factors", 2, "--partition", "age", "--top", 5, "--json")
    assert code == 0
    payload = json.loads(out)
    assert sum(g["n_users"] for g in payload["groups"]) == 200 and len(payload["groups"]) >= 5
    largest = max(payload["groups"], key=lambda g: g["n_users"])["group"]
    assert all(p["group_b"] == largest for p in payload["pairs"]) and len(payload["pairs"]) == len(payload["groups"]) - 1
    assert all(0 <= p["exposure_total_variation"]["value"] <= 1 and p["rmse_ratio"]["value"] > 0
               for p in payload["pairs"])
    assert "age" in payload["source"] and "2-factor" in payload["source"]
