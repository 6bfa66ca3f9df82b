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
