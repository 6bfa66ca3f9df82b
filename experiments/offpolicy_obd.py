"""Off-policy audit on the Open Bandit Dataset, OBP's protocol in both directions, per group.

The Open Bandit Dataset (Saito et al., 2021) logs the same traffic of ZOZOTOWN under two policies:
uniformly random and Bernoulli Thompson sampling (BTS), 10,000 impressions each per campaign
(``all``, ``men``, ``women``), three positions. OBP's protocol: estimate one policy's value from the
other policy's log and compare with that policy's on-policy value (the mean click of its own log).
We run it in both directions and per group:

* random -> BTS: log = the random log (propensity 1/n_items), target = BTS's action probabilities
  per (item, position), estimated by its frequencies in the BTS log (the time average of BTS's
  batch-updated policy; its value is the on-policy mean click under stationarity);
* BTS -> random: log = the BTS log with its propensities, target = uniform (1/n_items per position);
* cells: the whole log, each user group (``user_feature_0``) and each item group's contribution
  (price tier: the clicks the tier's items bring); estimator IPS, the audit's trust rule. The logs
  hold a few dozen clicks: every
  Wald cell is below the measured floor of :data:`ocef.offpolicy.diagnostics.TRUST_FLOORS` (null),
  so the experiment uses IPS with the finite-sample Cressie-Read interval (no floor).

For every cell: ``covered`` when the on-policy value lies inside the off-policy interval,
``inconclusive`` with the audit's reason when the cell is null (few clicks, low effective sample
size, support), else ``outside``; and, since the on-policy value is itself an estimate from 10,000
impressions, ``agrees`` when the interval of the difference (off-policy minus on-policy, the two
logs independent) contains 0.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.errors import DatasetNotFoundError
from ocef.experiments._io import note_dataset, run_parts, save_figure, write_csv
from ocef.experiments._offpolicy_common import agreement, judge
from ocef.experiments.claims import Claim

NAME = "offpolicy-obd"
DESCRIPTION = "off-policy audit on the Open Bandit Dataset: random <-> Bernoulli TS, per user and item group"
DATASET = "Open Bandit Dataset (all, men, women; random and Bernoulli-TS logs)"
CAMPAIGNS = ("all", "men", "women")


CLAIMS = [
    Claim("issue 30", "On the Open Bandit Dataset, in both directions and per group, every trusted off-policy "
                      "cell agrees with the on-policy value of the other log; the others are inconclusive "
                      "with their reason", agreement,
          test="one-sided binomial: share of trusted cells whose off - on difference interval contains 0, "
               "against 95%"),
]


def _log(obd, policy: str, tiers: pd.Series) -> pd.DataFrame:
    raw = obd.log(policy)
    return pd.DataFrame({"user": np.arange(len(raw)), "item": raw["item_id"].to_numpy(),
                         "position": raw["position"].to_numpy(), "reward": raw["click"].to_numpy(dtype=float),
                         "propensity": raw["propensity_score"].to_numpy(dtype=float),
                         "user_group": raw["user_feature_0"].astype(str).str[:6].to_numpy(),
                         "tier": raw["item_id"].map(tiers).to_numpy()})


def _target(target_log: pd.DataFrame, uniform: bool, n_items: int) -> pd.DataFrame:
    if uniform:
        pos = np.sort(target_log["position"].unique())
        return pd.DataFrame({"item": np.tile(np.arange(n_items), len(pos)), "position": np.repeat(pos, n_items),
                             "probability": 1.0 / n_items})
    f = target_log.groupby(["position", "item"]).size().rename("c").reset_index()
    f["probability"] = f["c"] / f.groupby("position")["c"].transform("sum")
    return f[["item", "position", "probability"]]


def _truth(target_log: pd.DataFrame, side: str, group: str):
    r = target_log["reward"].to_numpy()
    if side == "user":
        x = r if group == "(all)" else r[(target_log["user_group"] == group).to_numpy()]
    else:
        x = r * (target_log["tier"] == group).to_numpy()
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))


def analyse(campaign: str, data_dir, estimators, confidence: float = 0.95, interval: str = "cressie-read") -> pd.DataFrame:
    """All cells of one campaign, both directions, as a tidy frame."""
    from ocef.datasets import OpenBanditDataset
    from ocef.offpolicy import offpolicy_audit

    obd = OpenBanditDataset(data_dir, campaign=campaign)
    items = obd.items
    tiers = items.set_index("item_id")["tier"]
    logs = {p: _log(obd, p, tiers) for p in ("random", "bts")}
    rows = []
    for source, target_name in (("random", "bts"), ("bts", "random")):
        log, tlog = logs[source], logs[target_name]
        target = _target(tlog, target_name == "random", len(items))
        res = offpolicy_audit(log, target, user_group="user_group", item_group="tier",
                              item_groups=items.rename(columns={"item_id": "item"}), estimators=estimators,
                              interval=interval, confidence=confidence, rng=0)
        cells = res.groups[res.groups.estimand == "utility"]
        for row in judge(cells, lambda side, group: _truth(tlog, side, group), confidence=confidence):
            rows.append({"campaign": campaign, "direction": f"{source} -> {target_name}", **row})
    return pd.DataFrame(rows)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    from ocef.environments.paths import dataset_dir

    if not dataset_dir("obd", data_dir).exists():
        raise DatasetNotFoundError(f"the Open Bandit Dataset is not under {dataset_dir('obd', data_dir)} "
                                   "(use --data-dir)")
    note_dataset(DATASET)
    # a few dozen clicks per log: below the Wald floor of ocef.offpolicy.diagnostics.TRUST_FLOORS
    # everywhere, so the finite-sample Cressie-Read interval of the IPS value (no floor)
    estimators = ["ips"]
    config = {"estimators": estimators, "seed": seed, "interval": "cressie-read"}
    df = run_parts(out_dir, config, list(CAMPAIGNS), lambda c: analyse(c, data_dir, estimators),
                   progress=progress, desc=NAME)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, out_dir / f"{NAME}.png"))
    return paths


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    d = df[df.estimator == "ips"]
    keys = list(dict.fromkeys(zip(d.campaign, d.direction)))
    fig, axes = plotting.subplots(len(keys), 1, figsize=(11, 2.6 * len(keys)), squeeze=False)
    for ax, (camp, direction) in zip(axes[:, 0], keys):
        s = d[(d.campaign == camp) & (d.direction == direction)].reset_index(drop=True)
        x = np.arange(len(s))
        ok = np.isfinite(s.ci_low.to_numpy())
        ax.errorbar(x[ok], s.estimate[ok], yerr=[(s.estimate - s.ci_low)[ok], (s.ci_high - s.estimate)[ok]],
                    fmt="o", capsize=3, label="off-policy (IPS, Cressie-Read 95%)")
        ax.plot(x, s.truth, "k_", ms=14, label="on-policy value")
        for i in np.flatnonzero(~ok):
            ax.text(x[i], s.truth[i], "inconclusive", rotation=90, fontsize=7, va="bottom", ha="center")
        ax.set_xticks(x, [f"{a}: {b}" for a, b in zip(s.side, s.group)], fontsize=7)
        ax.set_title(f"OBD {camp}, {direction}", fontsize=9)
        ax.set_ylabel("click rate")
        plotting.legend_below(ax)
    fig.suptitle("Off-policy value per group vs the other log's on-policy value", fontsize=10)
    return save_figure(fig, path)
