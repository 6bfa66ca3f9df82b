"""The toy factories of ocef.datasets.toy: exact contents and clear errors."""
from __future__ import annotations

import pytest

from ocef.datasets import (make_toy_movielens, make_toy_obd, make_toy_pairs, make_toy_reo_daily, make_toy_reo_log,
                           make_toy_reo_logs)
from ocef.errors import ParameterError


def test_reo_log_counts_per_group():
    log = make_toy_reo_log((1, 2, 0), n_per_group=3)
    assert log["S"].tolist() == list("aaabbbccc")
    assert log.groupby("S")["Y"].sum().tolist() == [1, 2, 0]


def test_reo_logs_penalty_is_one_third():
    from ocef.reo import estimate_reo
    # U = (0.1/0.15, 0.2/0.15) = (2/3, 4/3): delta_U = (-1/3, 1/3), penalty = 1/3 (eq. 2)
    res = estimate_reo(*make_toy_reo_logs())
    assert res.penalty == pytest.approx(1 / 3, abs=1e-12)


def test_reo_daily_days_and_errors():
    default, random = make_toy_reo_daily()
    assert sorted(default["day"].unique()) == [1, 2] and len(random) == 4000
    with pytest.raises(ParameterError, match="days"):
        make_toy_reo_daily(((1, 1),), ((1, 1), (1, 1)), n_per_group=2)


@pytest.mark.parametrize("positives", [(-1, 2), (5, 1)])
def test_reo_log_bad_positives(positives):
    with pytest.raises(ParameterError, match="positives"):
        make_toy_reo_log(positives, n_per_group=4)


def test_pairs_movielens_obd(tmp_path):
    pairs = make_toy_pairs()
    assert pairs is not make_toy_pairs() and len(pairs) == 8
    assert make_toy_movielens().ratings.shape == (24, 4)
    root = make_toy_obd(tmp_path / "obd")
    assert (root / "bts" / "all" / "all.csv").exists()


def test_make_toy_rankings_is_a_top_k_log_with_group_a_over_exposed():
    from ocef.datasets import make_toy_rankings
    log = make_toy_rankings(n_users=200, k=3, n_items=6, rng=1)
    assert log.shape == (600, 6)
    assert (log.groupby("user")["item"].nunique() == 3).all()            # distinct items per list
    assert log["rank"].tolist()[:6] == [1, 2, 3, 1, 2, 3]
    share_a = (log["genre"] == "a").mean()
    assert 0.6 < share_a < 0.74                                          # exact: 0.667 (weights 2:1)
    assert set(log["gender"]) == {"F", "M"} and set(log["relevance"]) == {0, 1}
    assert make_toy_rankings(rng=3).equals(make_toy_rankings(rng=3))


def test_make_toy_rankings_refuses_k_above_n_items():
    from ocef.datasets import make_toy_rankings
    from ocef.errors import ParameterError
    with pytest.raises(ParameterError, match="k must be at most n_items"):
        make_toy_rankings(k=7, n_items=6)


def test_make_toy_propensity_log_ips_recovers_the_target_value():
    from ocef.datasets import make_toy_propensity_log
    log, target = make_toy_propensity_log(30000, rng=2)
    pe = target.set_index("item")["probability"].reindex(log["item"]).to_numpy()
    ips = float((pe / log["propensity"] * log["reward"]).mean())
    truth = 0.6 * 0.5 * 0.75 + 0.3 * 0.3 + 0.1 * 0.1                    # group b halves item 0's rate
    assert abs(ips - truth) < 0.02


def test_make_toy_propensity_log_slates_hold_two_distinct_items():
    from ocef.datasets import make_toy_propensity_log
    log, target = make_toy_propensity_log(50, slate=True, rng=0)
    assert target is None and log.shape == (100, 6)
    assert (log.groupby("slate_id")["item"].nunique() == 2).all()
    assert set(log["target_probability"]) <= {0.5, 0.3, 0.2, 0.35}
