"""Weight diagnostics, support checks and the trust rule: hand-computed values and reasons."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.errors import DataError, ParameterError
from ocef.offpolicy import diagnostics as dg


def test_effective_sample_size_by_hand():
    assert dg.effective_sample_size([1, 1, 1]) == 3.0
    assert dg.effective_sample_size([0.5, 2, 0.8, 2, 0, 0.9]) == pytest.approx(6.2 ** 2 / 9.7, rel=1e-14)
    assert dg.effective_sample_size([0, 0]) == 0.0


def test_weight_diagnostics_by_hand():
    d = dg.weight_diagnostics([0.5, 2, 0.8, 2, 0, 0.9], [1, 1, 0, 1, 1, 0])
    assert d == (6, pytest.approx(6.2 ** 2 / 9.7), 2.0, pytest.approx(6.2 / 6), 4, 3, pytest.approx(4.5 ** 2 / 8.25),
                 pytest.approx(6.2 ** 2 / 9.7 * 4.5 / 6.2))
    empty = dg.weight_diagnostics([], [])
    assert empty.n_rows == 0 and np.isnan(empty.max_weight)


def test_support():
    pe = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    pb = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    assert dg.support_deficit(pe, pb).tolist() == [0.5, 0.0]
    assert dg.never_logged_mass([0, 1], pe).tolist() == [0.5, 0.0]
    with pytest.raises(DataError, match="alike"):
        dg.support_deficit(pe, pb[:, :2])
    with pytest.raises(DataError, match="action must be"):
        dg.never_logged_mass([0, 3], pe)


def test_trust_reasons():
    good = dg.weight_diagnostics(np.ones(100), np.r_[np.ones(50), np.zeros(50)])
    assert all(dg.trust_reason(good, name) is None for name in dg.TRUST_FLOORS if "/" not in name)
    assert "no logged rows" in dg.trust_reason(dg.weight_diagnostics([], []), "wald")
    assert "effective sample size 0" in dg.trust_reason(dg.weight_diagnostics([0.0], [1.0]), "betting")
    assert "support violation" in dg.trust_reason(good, "betting", support_mass=0.1)
    for key, floor in dg.TRUST_FLOORS.items():
        estimator, _, interval = key.rpartition("/")
        k = int(np.ceil(floor))                 # k clicks in 1000 rows of weight 1: ess_clicks = k
        enough = dg.weight_diagnostics(np.ones(1000), np.r_[np.ones(k), np.zeros(1000 - k)])
        assert enough.ess_clicks == pytest.approx(k)
        assert dg.trust_reason(enough, interval, estimator=estimator or None) is None
        if k > 0:
            few = dg.weight_diagnostics(np.ones(1000), np.r_[np.ones(k - 1), np.zeros(1001 - k)])
            assert key in dg.trust_reason(few, interval, estimator=estimator or None)
    assert dg.TRUST_FLOORS["snips/wald"] > dg.TRUST_FLOORS["wald"] > 0 == dg.TRUST_FLOORS["betting"]
    # one click with a large weight among many small ones counts as about one
    heavy = dg.weight_diagnostics(np.r_[50.0, np.ones(99)], np.r_[1.0, np.ones(9), np.zeros(90)])
    assert heavy.effective_clicks == 10 and heavy.click_ess == pytest.approx(59 ** 2 / 2509)
    with pytest.raises(ParameterError, match="interval must be one of"):
        dg.trust_reason(good, "magic")
    with pytest.raises(ParameterError, match="interval must be one of"):
        dg.trust_reason(good, "snips/wald")
