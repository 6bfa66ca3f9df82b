"""ocef.offpolicy.inputs: the three target forms, checks, and a scored target through the audit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError, ParameterError
from ocef.offpolicy import ScoredTarget, check_log, offpolicy_audit, target_table


def log_frame(position=False):
    log = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 1, 2], "reward": [1.0, 0.0, 1.0, 1.0],
                        "propensity": [0.5, 0.5, 0.25, 0.25]})
    return log.assign(position=[1, 2, 1, 2]) if position else log


def test_topk_with_positions_is_deterministic_per_slot():
    topk = pd.DataFrame({"user": [0, 0, 1, 1], "item": [1, 0, 2, 1], "rank": [1, 2, 1, 2]})
    table, info = target_table(topk, log_frame(position=True))
    assert info["keys"] == ["user", "position"] and table["probability"].eq(1.0).all()


def test_topk_with_rewards_is_on_policy_feedback():
    topk = pd.DataFrame({"user": [0, 1], "item": [1, 2], "rank": [1, 1], "reward": [1, 0]})
    table, info = target_table(topk, log_frame())
    assert info["on_policy"]["reward"].tolist() == [1, 0] and "reward" not in table.columns


def test_scored_target_samplers():
    scores = lambda users: np.tile([0.0, 1.0, 2.0], (len(users), 1))    # noqa: E731
    p = ScoredTarget(scores, sampler="softmax", temperature=1.0).probabilities([0])
    np.testing.assert_allclose(p, np.exp([0, 1, 2])[None] / np.exp([0, 1, 2]).sum())
    lottery = ScoredTarget(scores, sampler=lambda s: np.tile([0.5, 0.0, 0.5], (len(s), 1)))
    assert lottery.probabilities([0, 1]).tolist() == [[0.5, 0.0, 0.5]] * 2
    with pytest.raises(ParameterError, match="row-stochastic"):
        ScoredTarget(scores, sampler=lambda s: s).probabilities([0])
    with pytest.raises(ParameterError, match="sampler"):
        ScoredTarget(scores, sampler="boltzmann").probabilities([0])


def test_scored_target_through_the_audit_is_ips():
    rng = np.random.default_rng(0)
    n, n_items = 2000, 5
    log = pd.DataFrame({"user": rng.integers(0, 40, n), "item": rng.integers(0, n_items, n)})
    log["propensity"] = 1 / n_items
    log["reward"] = (rng.random(n) < 0.2 + 0.1 * log["item"]).astype(float)
    score = lambda users: np.tile(np.arange(n_items, dtype=float), (len(users), 1))   # noqa: E731
    target = ScoredTarget(score, sampler="epsilon-greedy", epsilon=0.5)
    res = offpolicy_audit(log, target, estimators=["ips"])
    pi = np.full(n_items, 0.1)
    pi[-1] += 0.5
    w = pi[log["item"]] * n_items
    cell = res.groups[(res.groups.estimand == "utility")].iloc[0]
    assert cell["estimate"] == pytest.approx(float((w * log["reward"]).mean()), rel=1e-12)


def test_checks():
    with pytest.raises(DataError, match="reward must be a finite"):
        check_log(log_frame().assign(reward=[1.0, np.nan, 0.0, 1.0]))
    with pytest.raises(DataError, match="appears twice"):
        target_table(pd.DataFrame({"item": [0, 0], "probability": [0.5, 0.5]}), log_frame())
    with pytest.raises(DataError, match=r"probability must lie in \[0, 1\]"):
        target_table(pd.DataFrame({"item": [0], "probability": [-0.1]}), log_frame())
    with pytest.raises(DataError, match="position column but the log has none"):
        target_table(pd.DataFrame({"item": [0], "position": [1], "probability": [1.0]}), log_frame())


def test_ips_only_intervals_are_null_for_other_estimators():
    rng = np.random.default_rng(1)
    n = 1500
    log = pd.DataFrame({"user": rng.integers(0, 100, n), "item": rng.integers(0, 4, n), "propensity": 0.25})
    log["reward"] = (rng.random(n) < 0.3).astype(float)
    target = pd.DataFrame({"item": range(4), "probability": [0.4, 0.3, 0.2, 0.1]})
    res = offpolicy_audit(log, target, estimators=["ips", "snips"], interval="cressie-read")
    u = res.groups[res.groups.estimand == "utility"].set_index("estimator")
    assert np.isfinite(u.loc["ips", "ci_low"]) and pd.isna(u.loc["ips", "reason"])
    assert np.isnan(u.loc["snips", "ci_low"]) and "IPS value" in u.loc["snips", "reason"]
