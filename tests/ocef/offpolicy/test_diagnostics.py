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
    assert d == (6, pytest.approx(6.2 ** 2 / 9.7), 2.0, pytest.approx(6.2 / 6), 4, 3)
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
    assert all(dg.trust_reason(good, name) is None for name in dg.TRUST_FLOORS)
    assert "no logged rows" in dg.trust_reason(dg.weight_diagnostics([], []), "wald")
    assert "effective sample size 0" in dg.trust_reason(dg.weight_diagnostics([0.0], [1.0]), "betting")
    assert "support violation" in dg.trust_reason(good, "betting", support_mass=0.1)
    for name, (min_ess, min_clicks) in dg.TRUST_FLOORS.items():
        if min_clicks > 0:
            few = dg.weight_diagnostics(np.ones(1000), np.r_[np.ones(min_clicks - 1), np.zeros(1001 - min_clicks)])
            assert "clicks" in dg.trust_reason(few, name)
        if min_ess > 0:
            small = dg.weight_diagnostics(np.ones(int(min_ess) - 1), np.ones(int(min_ess) - 1))
            assert "effective sample size" in dg.trust_reason(small, name)
    with pytest.raises(ParameterError, match="interval must be one of"):
        dg.trust_reason(good, "magic")
