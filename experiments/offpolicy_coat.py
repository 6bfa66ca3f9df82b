"""Off-policy audit on Coat: the self-selected ratings as the log, the uniformly random ratings as the truth.

Coat (Schnabel et al., ICML 2016): 290 users each rated 24 coats they chose (``train``, missing not
at random) and 16 coats drawn uniformly (``test``); ``propensities.ascii`` holds the authors'
estimated probability ``P_ui`` that user u rates coat i (about 24 per user). The log: every train
rating, reward ``Y = rating >= 4``, logging propensity ``P_ui / sum_j P_uj`` (the probability of coat
i in one of the user's draws; the audit's estimate is a mean over rows, so the per-row propensity is
this per-draw probability). The targets: uniform over all coats, over the men's coats, over the
women's coats; their value per user gender and per item gender is known from the random ``test``
ratings (a mean over uniform draws, with its own standard error). Cells are judged as in
``offpolicy-obd`` (covered / inconclusive with reason / outside; ``agrees`` with both errors).

The propensities are estimated (naive Bayes on a small uniform sample), so a disagreement can be
their bias rather than the intervals' — the experiment measures how far the audit can be trusted on
real MNAR data.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.errors import DatasetNotFoundError
from ocef.experiments._io import note_dataset, run_parts, save_figure, write_csv
from ocef.experiments._offpolicy_common import agreement, judge
from ocef.experiments.claims import Claim, Verdict

NAME = "offpolicy-coat"
DESCRIPTION = "off-policy audit on Coat: self-selected ratings + propensities vs the random test ratings"
DATASET = "Coat (train + propensities.ascii as the log, random test ratings as truth)"
TARGETS = ("uniform", "men", "women")

def _agreement(df: pd.DataFrame) -> Verdict:
    v = agreement(df)
    if v.verdict == "holds":
        return v
    d = df[df.verdict.isin(["covered", "outside"])]
    bias = float((d.estimate - d.truth).mean())
    return Verdict(v.verdict, v.evidence + f"; mean estimate - truth {bias:+.3f}",
                   v.reason + "; the estimates sit above the random-test values on average: Coat's propensities are "
                              "themselves estimated and leave part of the self-selection bias, which no interval "
                              "of the audit can correct", v.value)


CLAIMS = [
    Claim("issue 30", "On Coat, the off-policy values of uniform targets per user gender and item gender, "
                      "from the self-selected ratings and their propensities, agree with the values measured "
                      "on the uniformly random ratings", _agreement,
          test="one-sided binomial: share of trusted cells whose estimate - truth interval contains 0, "
               "against 95%"),
]


def logs(data_dir=None):
    """``(log, test, items)``: the off-policy log, the random ratings and the item genders."""
    from ocef.datasets import Coat

    coat = Coat(data_dir)
    P = np.loadtxt(coat.path / "propensities.ascii")
    gender = coat.user_attribute("gender")
    train = coat.ratings("train")
    u, i = train["user"].to_numpy(), train["item"].to_numpy()
    log = pd.DataFrame({"user": u, "item": i, "reward": (train["rating"] >= 4).to_numpy(dtype=float),
                        "propensity": P[u, i] / P.sum(axis=1)[u], "gender": gender[u]})
    test = coat.ratings("test")
    test = test.assign(reward=(test["rating"] >= 4).astype(float), gender=gender[test["user"].to_numpy()],
                       item_gender=coat.item_gender[test["item"].to_numpy()])
    items = coat.items.rename(columns={"gender": "item_gender"})
    return log, test, items


def _target(items: pd.DataFrame, which: str) -> pd.DataFrame:
    keep = items if which == "uniform" else items[items["item_gender"] == which]
    return pd.DataFrame({"item": keep["item"].to_numpy(), "probability": 1.0 / len(keep)})


def _truth(test: pd.DataFrame, which: str):
    t = test if which == "uniform" else test[test["item_gender"] == which]

    def value(side, group):
        if side == "user":
            x = t if group == "(all)" else t[t["gender"] == group]
            r = x["reward"].to_numpy()
        else:
            r = t["reward"].to_numpy() * (t["item_gender"] == group).to_numpy()
        return float(r.mean()), float(r.std(ddof=1) / np.sqrt(len(r)))
    return value


def analyse(which: str, data_dir, estimators, confidence: float = 0.95) -> pd.DataFrame:
    """Every cell of one target as a tidy frame."""
    from ocef.offpolicy import offpolicy_audit

    log, test, items = logs(data_dir)
    res = offpolicy_audit(log, _target(items, which), user_group="gender", item_group="item_gender",
                          item_groups=items, estimators=estimators, confidence=confidence, rng=0)
    cells = res.groups[res.groups.estimand == "utility"]
    return pd.DataFrame([{"target": which, **r} for r in judge(cells, _truth(test, which), confidence=confidence)])


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    from ocef.environments.paths import dataset_dir

    if not dataset_dir("coat", data_dir).exists():
        raise DatasetNotFoundError(f"Coat is not under {dataset_dir('coat', data_dir)} (use --data-dir)")
    note_dataset(DATASET)
    estimators = ["ips", "snips"] if quick else ["ips", "snips", "dr"]
    df = run_parts(out_dir, {"estimators": estimators, "seed": seed}, list(TARGETS),
                   lambda t: analyse(t, data_dir, estimators), progress=progress, desc=NAME)
    return [write_csv(df, out_dir / f"{NAME}.csv"), _plot(df, out_dir / f"{NAME}.png")]


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    d = df[df.estimator == "snips"]
    fig, axes = plotting.subplots(1, len(TARGETS), figsize=(13, 3.8), squeeze=False)
    for ax, which in zip(axes[0], TARGETS):
        s = d[d.target == which].reset_index(drop=True)
        x = np.arange(len(s))
        ok = np.isfinite(s.ci_low.to_numpy())
        ax.errorbar(x[ok], s.estimate[ok], yerr=[(s.estimate - s.ci_low)[ok], (s.ci_high - s.estimate)[ok]],
                    fmt="o", capsize=3, label="off-policy (SNIPS, 95%)")
        ax.errorbar(x + 0.15, s.truth, yerr=1.96 * s.truth_se, fmt="ks", ms=4, capsize=2,
                    label="random test ratings")
        ax.set_xticks(x, [f"{a}: {b}" for a, b in zip(s.side, s.group)], fontsize=7, rotation=30)
        ax.set_title(f"target: uniform over {'all' if which == 'uniform' else which + chr(39) + 's'} coats",
                     fontsize=9)
        ax.set_ylabel("P(rating >= 4)")
        plotting.legend_below(ax)
    fig.suptitle("Coat: off-policy values from self-selected ratings vs the random test ratings", fontsize=10)
    return save_figure(fig, path)
