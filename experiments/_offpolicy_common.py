"""Shared by the off-policy experiments: judge each audited cell against a known value, and the claim."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from ocef.experiments.claims import Verdict, rate_at_least


def judge(cells: pd.DataFrame, truth, *, confidence: float = 0.95) -> list[dict]:
    """One row per utility cell of an audit: ``covered`` when the known value ``truth(side, group) ->
    (value, se)`` lies in the interval, ``inconclusive`` when the cell is null (its reason kept), else
    ``outside`` (``exact`` for a structural zero: the target never shows the group); ``agrees`` when the interval of (estimate - value) with both standard errors (the
    two samples independent; se = 0 for an exact value) contains 0."""
    z = norm.ppf(0.5 + confidence / 2)
    rows = []
    for c in cells.itertuples():
        group = c.user_group if c.side == "user" else c.item_group
        value, value_se = truth(c.side, group)
        ok = bool(np.isfinite(c.ci_low))
        se_off = (c.ci_high - c.ci_low) / (2 * z) if ok else np.nan
        covered = ok and c.ci_low <= value <= c.ci_high
        exact = ok and c.ci_low == c.ci_high == value == c.estimate      # the target never shows the group
        rows.append({"estimator": c.estimator, "side": c.side, "group": group, "estimate": c.estimate,
                     "ci_low": c.ci_low, "ci_high": c.ci_high, "truth": value, "truth_se": value_se,
                     "agrees": bool(ok and abs(c.estimate - value) <= z * np.hypot(se_off, value_se)),
                     "verdict": "exact" if exact else "covered" if covered else ("inconclusive" if not ok else "outside"),
                     "reason": c.reason, "n_rows": c.n_rows, "ess": c.ess, "max_weight": c.max_weight,
                     "support": c.support, "clicks": c.clicks})
    return rows


def agreement(df: pd.DataFrame) -> Verdict:
    """The claim's check: the share of trusted cells that agree with the known value, against 95%."""
    trusted = df[df.verdict.isin(["covered", "outside"])]
    v = rate_at_least(int(trusted.agrees.sum()), len(trusted), 0.95, what="agreement rate")
    n_inc = int((df.verdict == "inconclusive").sum())
    ev = f"{v.evidence}; {n_inc} of {len(df)} cells inconclusive (null, with their reason)"
    return Verdict(v.verdict, ev, v.reason, v.value)
