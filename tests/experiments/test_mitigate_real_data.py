"""Experiment mitigate-real-data: candidates from scores, registration, and (with the data) a quick run."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ocef.experiments.mitigate_real_data as exp
from ocef.experiments.registry import EXPERIMENTS, RUN_SECONDS


def test_registered():
    assert EXPERIMENTS["mitigate-real-data"] == "ocef.experiments.mitigate_real_data"
    assert "mitigate-real-data" in RUN_SECONDS


def test_candidates_are_the_top_unseen_items():
    scores = np.array([[0.9, 0.8, 0.1, 0.5], [0.2, 0.3, 0.4, 0.1]])
    seen = np.array([[True, False, False, False], [False, False, False, False]])
    c = exp.candidates_from_scores(scores, seen, 2)
    assert c["item"].tolist() == [1, 3, 2, 1] and c["score"].tolist() == [0.8, 0.5, 0.4, 0.3]


def test_protected_is_the_least_exposed_group():
    cand = pd.DataFrame({"user": [0] * 12, "item": range(12), "score": np.linspace(1, 0, 12),
                         "g": ["a"] * 10 + ["b"] * 2})
    assert exp._protected_by_baseline(cand, "g") == "b"


@pytest.mark.slow
@pytest.mark.data
def test_quick_run_on_real_data(tmp_path, monkeypatch):
    from ocef.errors import DatasetNotFoundError

    monkeypatch.setattr(exp, "MAX_USERS_QUICK", 50)          # the quick run's shape, on fewer users

    try:
        paths = exp.run(tmp_path, quick=True, seed=0, progress=False)
    except DatasetNotFoundError as e:
        pytest.skip(f"MovieLens-100K / Coat not found: {e}")
    table = pd.read_csv(paths[0])
    ran = table[table["point"] != -2]                          # point -2: a method that failed, with its error
    assert {"MovieLens-100K", "Coat", "MovieLens environment"} <= set(table["dataset"])
    assert len(table[table["method"] == "baseline"]) == 4
    assert table.groupby(["dataset", "item_grouping"])["on_front"].any().all()
    env = ran[ran["dataset"] == "MovieLens environment"]
    assert env["envy"].isin(["envy", "envy-free", "inconclusive"]).all()
    lotteries = ran[ran["method"].isin(["lp", "expohedron"])]    # every grid point of every setting, none failed
    assert (lotteries.groupby(["dataset", "item_grouping", "method"])["point"].nunique() == 3).all()
    assert len(lotteries.groupby(["dataset", "item_grouping"])) == 4
    assert not (table["method"].isin(["lp", "expohedron"]) & (table["point"] == -2)).any()
    assert ran["certificate"].isin(["within", "outside", "inconclusive"]).all()
    assert table.loc[table["point"] == -2, "certificate_reason"].str.contains("failed").all()
    assert paths[-1].suffix == ".png" and paths[-1].stat().st_size > 10_000
