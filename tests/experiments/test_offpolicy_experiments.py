"""The off-policy experiments: exact truth of the MovieLens study, the logger's draws, the judging of
cells, and the real-data analyses (skipped without the data)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.experiments import offpolicy_movielens as ml
from ocef.experiments._offpolicy_common import agreement, judge


def test_truth_is_the_exact_value():
    rho = np.array([[0.2, 0.8], [0.5, 0.1]])
    pi = np.array([[0.0, 1.0], [0.5, 0.5]])
    t = ml.truth(rho, pi, np.array(["a", "b"], dtype=object), np.array(["x", "y"], dtype=object), ["a", "b"],
                 ["x", "y"])
    assert t[("user", "(all)")] == pytest.approx((0.8 + 0.3) / 2)
    assert t[("user", "b")] == pytest.approx(0.3)
    assert t[("item", "x")] == pytest.approx((0.0 + 0.25) / 2)
    assert t[("U", "y")] == pytest.approx((0.8 + 0.05) / 0.9)


def test_draws_follow_the_logger():
    logger = np.array([[0.1, 0.9], [0.6, 0.4]])
    rho = np.ones((2, 2))
    users, items, reward = ml.draw(np.cumsum(logger, axis=1), rho, 40000, np.random.default_rng(0))
    for u in (0, 1):
        share = np.mean(items[users == u] == 1)
        assert share == pytest.approx(logger[u, 1], abs=0.015)
    assert reward.all()


def test_judge_and_agreement():
    cells = pd.DataFrame({"side": ["user", "user", "item"], "user_group": ["a", "b", "(all)"],
                          "item_group": ["(all)", "(all)", "x"], "estimator": "ips", "estimate": [0.5, np.nan, 0.2],
                          "ci_low": [0.4, np.nan, 0.25], "ci_high": [0.6, np.nan, 0.3],
                          "reason": [None, "untrusted: effective sample size 3.0 < 30", None], "n_rows": 10,
                          "ess": 10.0, "max_weight": 1.0, "support": 1.0, "clicks": 5})
    rows = pd.DataFrame(judge(cells, lambda side, g: (0.45, 0.0)))
    assert rows["verdict"].tolist() == ["covered", "inconclusive", "outside"]
    assert rows["agrees"].tolist() == [True, False, False]
    v = agreement(rows)
    assert "1 of 3 cells inconclusive" in v.evidence


@pytest.mark.slow
def test_obd_analysis_runs_both_directions():
    from ocef.errors import DatasetNotFoundError
    from ocef.experiments import offpolicy_obd

    try:
        df = offpolicy_obd.analyse("all", None, ["ips"])
    except DatasetNotFoundError as e:
        pytest.skip(f"Open Bandit Dataset absent: {e}")
    assert set(df["direction"]) == {"random -> bts", "bts -> random"}
    inc = df[df.verdict == "inconclusive"]
    assert inc["reason"].str.startswith("untrusted").all()
    trusted = df[df.verdict != "inconclusive"]
    assert trusted["agrees"].mean() >= 0.8
