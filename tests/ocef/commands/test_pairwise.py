import json

import numpy as np
import pandas as pd
import pytest

from ocef.cli import main
from tests.conftest import require_data


def _pairs(tmp_path, n=200, scores=True):
    rng = np.random.default_rng(0)
    p = pd.DataFrame({"query": rng.integers(0, 50, n), "j": np.arange(n), "jp": np.arange(n) + n,
                      "s_j": rng.choice(["x", "y"], n), "s_jp": rng.choice(["x", "y"], n), "z": rng.integers(1, 3, n)})
    if scores:
        p["score_j"], p["score_jp"] = rng.normal(size=n), rng.normal(size=n)
    path = tmp_path / "pairs.csv"
    p.to_csv(path, index=False)
    return path


def _strict(text):
    def refuse(name):
        raise ValueError(f"non-strict JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_json_output(tmp_path, capsys):
    assert main(["pairwise", "--pairs", str(_pairs(tmp_path)), "--resamples", "50", "--json"]) == 0
    out = _strict(capsys.readouterr().out)
    assert {"kind", "group", "z", "n_pairs", "accuracy", "ci_low", "ci_high"} <= set(out["cells"][0])
    assert {"kind", "accuracy_0", "accuracy_1", "ratio", "gap", "p_value", "p_adjusted", "significant",
            "z_levels", "z_levels_dropped", "reason"} <= set(out["summary"][0])
    assert out["interval"] == "cluster-wilson" and {"n_clusters", "reason"} <= set(out["cells"][0])
    assert {c["group"] for c in out["cells"]} == {"x", "y"} and len(out["cells"]) == 12


def test_scores_file_and_text_output(tmp_path, capsys):
    path = _pairs(tmp_path, scores=False)
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"item": np.arange(400), "score": np.arange(400) % 7}).to_csv(scores, index=False)
    assert main(["pairwise", "--pairs", str(path), "--scores", str(scores), "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "comparisons" in out and "p-value of gap = 0, Holm-adjusted" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    # the text reports the scored pairs: every pair found its items' scores, groups x (0) and y (1)
    flat = " ".join(out.split())
    assert "200 pairs" in flat and "group 0 = x, group 1 = y" in flat
    assert main(["pairwise", "--pairs", str(path), "--scores", str(scores), "--resamples", "0", "--json"]) == 0
    from ocef.pairwise import pairwise_accuracy
    expected = pairwise_accuracy(pd.read_csv(path), scores=pd.read_csv(scores), n_resamples=0)
    got = [c["accuracy"] for c in json.loads(capsys.readouterr().out)["cells"]]
    np.testing.assert_allclose(np.array(got, dtype=float), expected.cells.accuracy.to_numpy(), equal_nan=True)


def test_json_is_strict_with_empty_cells_and_infinite_ratios(tmp_path, capsys):
    # group y never wins its inter pairs (accuracy 0: ratio inf) and has no pairs at z = 2 (NaN)
    p = pd.DataFrame({"query": [0, 1, 2, 3], "j": [1, 2, 3, 4], "jp": [5, 6, 7, 8], "s_j": ["x", "y", "x", "x"],
                      "s_jp": ["y", "x", "x", "y"], "z": [1, 1, 2, 2], "score_j": [1.0, 0.0, 1.0, 1.0],
                      "score_jp": [0.0, 1.0, 0.0, 0.0]})
    p.to_csv(tmp_path / "p.csv", index=False)
    assert main(["pairwise", "--pairs", str(tmp_path / "p.csv"), "--json", "--resamples", "20"]) == 0
    out = _strict(capsys.readouterr().out)
    cell = [c for c in out["cells"] if c["group"] == "y" and c["z"] == 2 and c["kind"] == "overall"][0]
    assert cell["n_pairs"] == 0 and cell["accuracy"] is None
    assert [r["ratio"] for r in out["summary"] if r["kind"] == "inter"] == [None]
    # z = 2 has no pairs of group y: the summary averages z = 1 only and says so
    overall = [r for r in out["summary"] if r["kind"] == "overall"][0]
    assert overall["z_levels"] == "1" and overall["z_levels_dropped"] == "2" and "dropped" in overall["reason"]


@pytest.mark.parametrize("args, message", [
    (["--resamples", "10"], "missing column(s) ['score_j', 'score_jp']"),
    (["--resamples", "-1"], "--n-resamples must be >= 0"),
])
def test_errors_are_one_line(tmp_path, capsys, args, message):
    path = _pairs(tmp_path, scores=False)
    assert main(["pairwise", "--pairs", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ocef pairwise: error:") and message in err and err.count("\n") == 1


def test_three_groups_need_subgroup(tmp_path, capsys):
    p = pd.read_csv(_pairs(tmp_path))
    p.loc[:10, "s_j"] = "w"
    p.to_csv(tmp_path / "three.csv", index=False)
    assert main(["pairwise", "--pairs", str(tmp_path / "three.csv")]) == 2
    assert "--subgroup" in capsys.readouterr().err
    assert main(["pairwise", "--pairs", str(tmp_path / "three.csv"), "--subgroup", "w", "--json",
                 "--resamples", "0"]) == 0
    assert {c["group"] for c in json.loads(capsys.readouterr().out)["cells"]} == {"not w", "w"}


@pytest.mark.data
def test_obd_dataset(capsys):
    require_data("obd", "random", "all", "all.csv")
    assert main(["pairwise", "--dataset", "obd", "--json", "--resamples", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_pairs"] == 1888 and out["n_queries"] == 38


def test_a_pairs_file_duckdb_cannot_read_is_a_one_line_error(tmp_path, capsys):
    # a score that is not a number: DuckDB's ConversionException used to escape as a traceback
    path = tmp_path / "bad.csv"
    path.write_text("query,j,jp,s_j,s_jp,score_j,score_jp\n0,1,4,a,b,1.0,0.5\n1,2,5,b,a,x,0.5\n")
    assert main(["pairwise", "--pairs", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ocef pairwise: error: DuckDB cannot read the pairs") and str(path) in err
    assert "Could not convert string 'x'" in err and err.count("\n") == 1
