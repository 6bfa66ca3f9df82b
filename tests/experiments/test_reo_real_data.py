"""Tests of ocef.experiments.reo_real_data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.experiments import reo_real_data as exp
from ocef import reo
from tests.conftest import require_data


def test_analyse_small_logs():
    rng = np.random.default_rng(0)
    s_d, s_r = rng.integers(0, 2, 4000), rng.integers(0, 2, 4000)
    default = pd.DataFrame({"S": s_d, "Y": (rng.random(4000) < np.where(s_d == 0, 0.2, 0.1)).astype(int)})
    random = pd.DataFrame({"S": s_r, "Y": (rng.random(4000) < 0.1).astype(int)})
    df = exp.analyse("toy", default, random, n_resamples=50, seed=0)
    assert set(df.method) == {"delta", "bootstrap-standard", "bootstrap-bca", "naive"}
    pen = df[(df.quantity == "penalty") & (df.method == "delta")].iloc[0]
    ref = reo.estimate_reo(default, random)
    assert pen.estimate == pytest.approx(ref.penalty) and pen.ci_low == pytest.approx(ref.penalty_ci[0])
    np.testing.assert_allclose(df.threshold_80, 1 / 9)


@pytest.mark.data
def test_quick_run_on_real_data(tmp_path):
    require_data("coat")
    require_data("obd")
    paths = exp.run(tmp_path, quick=True, seed=0, data_dir=None, progress=False)
    df = pd.read_csv(paths[0])
    assert set(df.dataset) == {"coat", "obd"}
    coat = df[(df.dataset == "coat") & (df.quantity == "penalty") & (df.method == "delta")].iloc[0]
    assert coat.estimate == pytest.approx(0.12446734, rel=1e-6)
    assert paths[1].stat().st_size > 10_000


def test_missing_data_dir(tmp_path):
    with pytest.raises(FileNotFoundError, match="none of the data sets"):
        exp.run(tmp_path / "out", quick=True, seed=0, data_dir=tmp_path / "empty", progress=False)
