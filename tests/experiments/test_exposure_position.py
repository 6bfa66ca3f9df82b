"""Experiment exposure-position: logs of each policy, the blind share, the claims (no data needed)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ocef.experiments.exposure_position as exp
from ocef.experiments.claims import check_claims
from ocef.experiments.registry import EXPERIMENTS


def test_registered():
    assert EXPERIMENTS["exposure-position"] == "ocef.experiments.exposure_position"


def test_logs_of_each_policy():
    rng = np.random.default_rng(0)
    scores = rng.random((6, 15))
    top = exp.ranking_log("ranking", scores, rng)
    assert len(top) == 6 * exp.K and top.groupby("user")["rank"].apply(list).iloc[0] == list(range(1, 11))
    assert (top[top["rank"] == 1]["item"].to_numpy() == scores.argmax(axis=1)).all()
    arg = exp.ranking_log("argmax", scores, rng)
    assert len(arg) == 6 and (arg["rank"] == 1).all()
    soft = exp.ranking_log("softmax", scores, rng)
    assert len(soft) == exp.SAMPLES * 6 * exp.K
    assert soft.groupby(["user", "sample"])["item"].nunique().eq(exp.K).all()      # without replacement


def test_softmax_first_position_follows_the_softmax():
    many = np.tile([0.0, 0.05, 0.1], (4000, 1))
    log = exp.ranking_log("softmax", many, np.random.default_rng(1))
    first = log[log["rank"] == 1]["item"].value_counts(normalize=True).sort_index().to_numpy()
    probs = np.exp(30 * many[0]) / np.exp(30 * many[0]).sum()
    # 40000 draws: binomial SE <= 0.0025; 4 SE
    np.testing.assert_allclose(first, probs, atol=0.01)


def test_blind_share_by_hand_and_argmax_identity():
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.1], [0.7, 0.6, 0.0]])
    popular = np.array([True, False, False])
    rows = exp.setting_rows("toy", 1, "argmax", scores, popular, 0)
    by = {r["metric"]: r["estimate"] for r in rows}
    assert by["share_blind"] == pytest.approx(2 / 3)                    # users 0 and 2 see item 0
    assert by["share_geometric"] == pytest.approx(2 / 3) and by["share_dcg"] == pytest.approx(2 / 3)
    top = exp.setting_rows("toy", 1, "ranking", scores, popular, 0)
    by = {r["metric"]: r["estimate"] for r in top}
    assert by["share_blind"] == pytest.approx(3 / 9)                    # item 0 once in each list of 3
    # geometric p = 0.5: item 0 at ranks 1, 2, 1 -> (1 + .5 + 1) / (3 * 1.75)
    assert by["share_geometric"] == pytest.approx(2.5 / 5.25)


def test_claims_checkable_on_synthetic_rows():
    rows = []
    for ds in ("A", "B"):
        for d in (1, 4):
            for policy, gap in (("argmax", 0.0), ("ranking", 0.1)):
                for metric, est in (("share_blind", 0.3), ("share_geometric", 0.3 + gap), ("share_dcg", 0.3 + gap / 2)):
                    rows.append({"dataset": ds, "factors": d, "policy": policy, "metric": metric, "estimate": est,
                                 "ci_low": est - 0.02, "ci_high": est + 0.02})
    out = check_claims(exp.CLAIMS, pd.DataFrame(rows))
    assert [c["holds"] for c in out] == [True, True]
