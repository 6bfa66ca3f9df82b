"""ocef.offpolicy.scale: DuckDB group sums equal numpy on the rows; IPS/SNIPS from the sums."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student

from ocef.errors import DataError
from ocef.offpolicy.scale import group_sums, group_values


def make(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    log = pd.DataFrame({"user": rng.integers(0, 50, n), "item": rng.integers(0, 8, n)})
    log["propensity"] = 1 / 8
    log["reward"] = (rng.random(n) < 0.05 + 0.02 * log["item"]).astype(int)
    log["g"] = np.where(log["user"] < 20, "a", "b")
    target = pd.DataFrame({"item": np.arange(8), "probability": np.linspace(1, 3, 8) / np.linspace(1, 3, 8).sum()})
    return log, target


@pytest.mark.parametrize("as_file", [False, True])
def test_group_values_equal_numpy(tmp_path, as_file):
    log, target = make()
    src = log
    if as_file:
        src = tmp_path / "log.parquet"
        log.to_parquet(src)
    v = group_values(group_sums(src, target, by=["g"])).set_index(["g", "estimator"])
    w = target.set_index("item")["probability"].reindex(log["item"]).to_numpy() / 0.125
    r = log["reward"].to_numpy(dtype=float)
    for g in ("a", "b"):
        m = (log["g"] == g).to_numpy()
        z = student.ppf(0.975, m.sum() - 1)
        x = w[m] * r[m]
        se = x.std(ddof=1) / np.sqrt(m.sum())
        assert v.loc[(g, "ips"), "estimate"] == pytest.approx(x.mean(), rel=1e-12)
        assert v.loc[(g, "ips"), "ci_low"] == pytest.approx(x.mean() - z * se, rel=1e-10)
        sn = x.sum() / w[m].sum()
        lin = sn + w[m] * (r[m] - sn) / w[m].mean()
        assert v.loc[(g, "snips"), "estimate"] == pytest.approx(sn, rel=1e-12)
        assert v.loc[(g, "snips"), "ci_high"] == pytest.approx(sn + z * lin.std(ddof=1) / np.sqrt(m.sum()), rel=1e-10)
        assert v.loc[(g, "ips"), "ess"] == pytest.approx(w[m].sum() ** 2 / (w[m] @ w[m]), rel=1e-12)


def test_bad_propensity_is_refused():
    log, target = make(100)
    with pytest.raises(DataError, match="propensity"):
        group_sums(log.assign(propensity=0.0), target)


def test_group_values_equal_the_audit():
    from ocef.offpolicy import offpolicy_audit

    log, target = make()
    v = group_values(group_sums(log, target, by=["g"])).set_index(["g", "estimator"])
    res = offpolicy_audit(log, target, user_group="g", estimators=["ips", "snips"])
    u = res.groups[(res.groups.estimand == "utility") & (res.groups.side == "user")].set_index(
        ["user_group", "estimator"])
    for key in [("a", "ips"), ("b", "snips")]:
        for col in ("estimate", "ci_low", "ci_high", "ess", "max_weight"):
            assert u.loc[key, col] == pytest.approx(v.loc[key, col], rel=1e-10)
