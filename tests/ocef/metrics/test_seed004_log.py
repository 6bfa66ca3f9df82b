"""holisticai's metrics from a top-k log (ocef.metrics.from_log.seed004_from_log): equal to the
score-matrix path (ocef.metrics.recommender) on shared inputs with every backend, hand-computed
values, null + reason where a log cannot give the matrix's value, bad inputs."""
from __future__ import annotations

import itertools
import math
import os
import shutil

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError, ParameterError
from ocef.metrics import recommender as rec
from ocef.metrics.from_log import SEED004_LOG_REASONS, seed004_from_log

RATIOS = {"avg_precision_ratio": rec.avg_precision_ratio, "avg_recall_ratio": rec.avg_recall_ratio,
          "avg_f1_ratio": rec.avg_f1_ratio}


def shared_inputs(seed=0, n_users=60, n_items=30, k=5):
    """A score matrix, a 0/1 truth matrix, three user groups, and the top-k log of the scores."""
    rng = np.random.default_rng(seed)
    scores = rng.random((n_users, n_items))
    truth = (rng.random((n_users, n_items)) < 0.15).astype(int)
    truth[:3] = 0                                   # users without any relevant item: recall 0
    truth[3, :k] = 1
    scores[3, :k] = 2.0                             # a user shown only relevant items
    groups = np.array(["x", "y", "z"])[rng.integers(0, 3, n_users)]
    shown = rec.exposure(scores, k=k).astype(bool)
    users, items = np.nonzero(shown)
    log = pd.DataFrame({"user": users, "item": items, "ug": groups[users], "score": scores[users, items],
                        "relevance": truth[users, items], "n_relevant": truth.sum(axis=1)[users]})
    shown_only = np.where(shown, scores, np.nan)    # MAD's shared input: NaN outside each user's top-k
    return scores, shown_only, truth, groups, log, k


def assert_equals_matrix_path(out, scores, shown_only, truth, groups, k, bounds=None):
    for ga, gb in itertools.permutations(np.unique(groups), 2):
        a, b = (groups == ga).astype(int), (groups == gb).astype(int)
        pair = out["pairs"][(ga, gb)]
        assert pair["mad"] == pytest.approx(rec.mad_score(a, b, shown_only, normalize=bounds is not None),
                                            rel=1e-12, abs=1e-14)
        for key, fn in RATIOS.items():
            assert pair[key] == pytest.approx(fn(a, b, scores, truth, k=k), rel=1e-12)
            assert pair[f"{key}_reason"] is None
        assert pair["exposure_total_variation"] == pytest.approx(rec.exposure_total_variation(a, b, scores, k=k))


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_the_score_matrix_path_on_random_inputs(backend, seed):
    scores, shown_only, truth, groups, log, k = shared_inputs(seed)
    out = seed004_from_log(log, n_items=scores.shape[1], user_group="ug", backend=backend)
    assert_equals_matrix_path(out, scores, shown_only, truth, groups, k)
    assert out["gini_index"] == pytest.approx(rec.gini_index(scores, k=k), rel=1e-12)
    # normalize=True with the matrix's bounds (here those of its scored entries)
    bounds = (np.nanmin(shown_only), np.nanmax(shown_only))
    norm = seed004_from_log(log, n_items=scores.shape[1], user_group="ug", backend=backend, normalize=True,
                            score_bounds=bounds)
    assert_equals_matrix_path(norm, scores, shown_only, truth, groups, k, bounds=bounds)


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_relevant_items_table_equals_the_columns(backend):
    scores, shown_only, truth, groups, log, k = shared_inputs(4)
    u, i = np.nonzero(truth)
    table = pd.DataFrame({"user": np.r_[u, 7], "item": np.r_[i, 0], "relevance": np.r_[np.ones(len(u)), 0.0]})
    table = table.drop_duplicates(["user", "item"], keep="first")
    out = seed004_from_log(log.drop(columns=["relevance", "n_relevant"]), n_items=scores.shape[1], user_group="ug",
                           relevant_items=table, backend=backend)
    assert_equals_matrix_path(out, scores, shown_only, truth, groups, k)


def test_a_parquet_file_gives_the_dataframe_numbers(tmp_path):
    scores, shown_only, truth, groups, log, k = shared_inputs(5)
    path = tmp_path / "log.parquet"
    log.to_parquet(path)
    a = seed004_from_log(log, n_items=scores.shape[1], user_group="ug", backend="pandas")
    b = seed004_from_log(str(path), n_items=scores.shape[1], user_group="ug")       # DuckDB on the file
    for pair in a["pairs"]:
        for key, v in a["pairs"][pair].items():
            assert b["pairs"][pair][key] == (pytest.approx(v, rel=1e-12) if isinstance(v, float) else v)
    for g in a["groups"]:
        for key, v in a["groups"][g].items():
            assert b["groups"][g][key] == pytest.approx(v, rel=1e-12)


@pytest.mark.slow
def test_spark_equals_the_score_matrix_path():
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[spark]')")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java for Spark")
    scores, shown_only, truth, groups, log, k = shared_inputs(6, n_users=30, n_items=15, k=4)
    out = seed004_from_log(log, n_items=scores.shape[1], user_group="ug", backend="spark")
    assert_equals_matrix_path(out, scores, shown_only, truth, groups, k)
    assert out["gini_index"] == pytest.approx(rec.gini_index(scores, k=k), rel=1e-12)
    u, i = np.nonzero(truth)
    side = seed004_from_log(log.drop(columns=["relevance", "n_relevant"]), n_items=scores.shape[1], user_group="ug",
                            relevant_items=pd.DataFrame({"user": u, "item": i}), backend="spark")
    assert_equals_matrix_path(side, scores, shown_only, truth, groups, k)


def hand_log():
    # u0 (a): shown 0, 1; relevant {0, 3}      tp 1: P 1/2, R 1/2, F1 2/(2+2) = 1/2
    # u1 (a): shown 2, 3; relevant {}          tp 0: P 0,   R 0,   F1 0
    # u2 (b): shown 0, 2; relevant {0, 2, 4}   tp 2: P 1,   R 2/3, F1 4/5
    # u3 (b): shown 1;    relevant {1}         tp 1: P 1,   R 1,   F1 2/2 = 1
    return pd.DataFrame({"user": [0, 0, 1, 1, 2, 2, 3], "item": [0, 1, 2, 3, 0, 2, 1],
                         "ug": ["a", "a", "a", "a", "b", "b", "b"],
                         "score": [0.9, 0.5, 0.6, 0.2, 0.8, 0.4, 0.7],
                         "relevance": [1, 0, 0, 0, 1, 1, 1], "n_relevant": [2, 2, 0, 0, 3, 3, 1]})


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_hand_computed_values(backend):
    out = seed004_from_log(hand_log(), n_items=5, user_group="ug", backend=backend)
    ab = out["pairs"][("a", "b")]
    # MAD: a's shown scores average 2.2/4 = 0.55, b's 1.9/3
    assert ab["mad"] == pytest.approx(0.55 - 1.9 / 3)
    assert out["pairs"][("b", "a")]["mad"] == pytest.approx(1.9 / 3 - 0.55)
    # average precision a = (1/2 + 0)/2 = 1/4, b = (1 + 1)/2 = 1
    assert ab["avg_precision_ratio"] == pytest.approx(0.25)
    # average recall a = (1/2 + 0)/2 = 1/4, b = (2/3 + 1)/2 = 5/6
    assert ab["avg_recall_ratio"] == pytest.approx(0.25 / (5 / 6))
    # average F1 a = (1/2 + 0)/2 = 1/4, b = (4/5 + 1)/2 = 9/10
    assert ab["avg_f1_ratio"] == pytest.approx(0.25 / 0.9)
    assert out["groups"]["b"] == pytest.approx({"n_users": 2, "mean_score": 1.9 / 3, "avg_precision": 1.0,
                                                "avg_recall": 5 / 6, "avg_f1": 0.9})
    # normalize with the matrix's bounds (0, 2): MAD / (2 - 0)
    norm = seed004_from_log(hand_log(), n_items=5, user_group="ug", backend=backend, normalize=True,
                            score_bounds=(0, 2))
    assert norm["pairs"][("a", "b")]["mad"] == pytest.approx((0.55 - 1.9 / 3) / 2)
    # EKL(a || b): a is shown item 3, b never is
    assert ab["exposure_kl"] == math.inf and ab["exposure_kl_reason"].startswith("infinite:")
    assert out["pairs"][("b", "a")]["exposure_kl_reason"] is None
    # item metrics: counts (2, 2, 2, 1, 0) over 7 recommendations
    assert out["aggregate_diversity"] == pytest.approx(4 / 5)
    # ARP: per user the mean count of its items: u0 (2+2)/2, u1 (2+1)/2, u2 (2+2)/2, u3 2/1 -> 7.5/4
    assert out["avg_recommendation_popularity"] == pytest.approx(7.5 / 4)


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_null_with_a_reason_where_the_log_cannot_give_the_value(backend):
    log = hand_log()
    norm = seed004_from_log(log, n_items=5, user_group="ug", backend=backend, normalize=True)["pairs"][("a", "b")]
    assert norm["mad"] is None and norm["mad_reason"] == SEED004_LOG_REASONS["normalize"]
    assert "whole users x items matrix" in norm["mad_reason"]
    assert norm["avg_precision_ratio"] == pytest.approx(0.25)        # normalize does not change the shown items
    no_nrel = seed004_from_log(log.drop(columns="n_relevant"), n_items=5, user_group="ug",
                               backend=backend)["pairs"][("a", "b")]
    assert no_nrel["avg_precision_ratio"] == pytest.approx(0.25)
    for key in ("avg_recall_ratio", "avg_f1_ratio"):
        assert no_nrel[key] is None and "number of relevant items" in no_nrel[f"{key}_reason"]
    bare = seed004_from_log(log[["user", "item", "ug"]], n_items=5, user_group="ug", backend=backend)
    pair = bare["pairs"][("a", "b")]
    assert pair["mad"] is None and pair["mad_reason"].startswith("undefined: the log has no score column")
    for key in RATIOS:
        assert pair[key] is None and "no relevance column" in pair[f"{key}_reason"]
    assert bare["groups"]["a"]["avg_precision"] is None
    assert bare["aggregate_diversity"] == pytest.approx(4 / 5)


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_infinite_and_undefined_ratios_say_so(backend):
    log = hand_log()
    log.loc[log.ug == "b", "relevance"] = 0                     # b: precision, recall, F1 all 0
    pairs = seed004_from_log(log, n_items=5, user_group="ug", backend=backend)["pairs"]
    assert pairs[("a", "b")]["avg_precision_ratio"] == math.inf
    assert pairs[("a", "b")]["avg_precision_ratio_reason"].startswith("infinite:")
    assert pairs[("b", "a")]["avg_precision_ratio"] == 0.0 and pairs[("b", "a")]["avg_precision_ratio_reason"] is None
    log.loc[:, "relevance"] = 0
    pair = seed004_from_log(log, n_items=5, user_group="ug", backend=backend)["pairs"][("a", "b")]
    assert math.isnan(pair["avg_f1_ratio"]) and pair["avg_f1_ratio_reason"].startswith("undefined: both groups'")


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_bad_logs_raise_clear_errors(backend):
    log = hand_log()
    with pytest.raises(DataError, match="more relevant items than their n_relevant"):
        seed004_from_log(log.assign(n_relevant=0), n_items=5, user_group="ug", backend=backend)
    with pytest.raises(DataError, match="constant per user"):
        bad = log.copy()
        bad.loc[0, "n_relevant"] = 5
        seed004_from_log(bad, n_items=5, user_group="ug", backend=backend)
    with pytest.raises(DataError, match="outside score_bounds"):
        seed004_from_log(log, n_items=5, user_group="ug", backend=backend, normalize=True, score_bounds=(0.5, 1))
    with pytest.raises(DataError, match="no 'score'"):
        seed004_from_log(log.assign(score=[0.1, None, 0.3, 0.4, 0.5, 0.6, 0.7]), n_items=5, backend=backend)
    with pytest.raises(DataError, match="relevance must be a number >= 0"):
        seed004_from_log(log.assign(relevance=-1), n_items=5, backend=backend)
    with pytest.raises(DataError, match="twice for a user"):
        seed004_from_log(pd.concat([log, log.iloc[:1]]), n_items=5, backend=backend)
    with pytest.raises(DataError, match=r"integers in \[0, 2\]"):
        seed004_from_log(log, n_items=3, backend=backend)
    with pytest.raises(ParameterError, match="relevance given twice"):
        seed004_from_log(log, n_items=5, backend=backend, relevant_items=pd.DataFrame({"user": [0], "item": [0]}))
    with pytest.raises(ParameterError, match="score_bounds"):
        seed004_from_log(log, n_items=5, backend=backend, normalize=True, score_bounds=(1, 1))
    with pytest.raises(DataError, match="more than once"):
        seed004_from_log(log.drop(columns=["relevance", "n_relevant"]), n_items=5, backend=backend,
                         relevant_items=pd.DataFrame({"user": [0, 0], "item": [0, 0]}))


def test_the_log_values_say_they_have_no_interval():
    import pandas as pd

    from ocef.metrics.from_log import SEED004_LOG_NO_INTERVAL, seed004_from_log

    log = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 1, 2], "rank": [1, 2, 1, 2]})
    out = seed004_from_log(log, n_items=3, backend="pandas")
    assert out["reason"] == SEED004_LOG_NO_INTERVAL and out["reason"].startswith("no valid interval:")
    assert out["aggregate_diversity"] == 1.0


# ------------------------------------------------------------------ holisticai's bias metrics from the log = score-matrix path

def test_seed004_from_log_equals_score_matrix_path():
    from ocef.metrics import recommender as rec

    rng = np.random.default_rng(3)
    scores = rng.random((40, 25))
    k = 5
    shown = rec.exposure(scores, k=k)
    users, items = np.nonzero(shown)
    groups = np.where(np.arange(40) < 15, "f", "m")
    log = pd.DataFrame({"user": users, "item": items, "ug": groups[users]})
    out = seed004_from_log(log, n_items=25, user_group="ug")
    assert out["aggregate_diversity"] == pytest.approx(rec.aggregate_diversity(scores, k=k))
    assert out["gini_index"] == pytest.approx(rec.gini_index(scores, k=k))
    assert out["exposure_entropy"] == pytest.approx(rec.exposure_entropy(scores, k=k))
    assert out["avg_recommendation_popularity"] == pytest.approx(rec.avg_recommendation_popularity(scores, k=k))
    a, b = (groups == "f").astype(int), (groups == "m").astype(int)
    assert out["pairs"][("f", "m")]["exposure_total_variation"] == pytest.approx(
        rec.exposure_total_variation(a, b, scores, k=k))
    assert out["pairs"][("f", "m")]["exposure_kl"] == pytest.approx(rec.exposure_kl(a, b, scores, k=k))
    dk = seed004_from_log(log, n_items=25, user_group="ug", backend="duckdb")
    assert dk["gini_index"] == pytest.approx(out["gini_index"])
