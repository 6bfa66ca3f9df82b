"""Provider side: the exposure share of each item group, its target and their difference and ratio,
with intervals clustered by user, from the sufficient statistics of :mod:`ocef.exposure.statistics`.

Three targets (:data:`TARGETS`), each a claim about what fair exposure is:

- ``"catalogue"`` (the default): each group's share of the catalogue's items, ``N_g / N``; the
  share matches it when an item of any group gets, on average, the same attention — equal exposure
  per item. A head of 20% of the items with 4× the attention per item has share 0.5 against
  target 0.2 here.
- ``"equal"``: ``1/G`` for each group, whatever its size — equal exposure per group; the same head
  (share 0.5 of 2 groups) is on target.
- ``"merit"``: the group's share of the relevance in the lists (Singh & Joachims 2018's
  merit-proportional exposure); estimated, with its own variance.
"""
from __future__ import annotations

import math

import numpy as np

from ocef.errors import DataError

__all__ = ["TARGETS", "TARGET_MEANING", "share_intervals", "share_table", "share_pairs"]

#: The target shares, the default first.
TARGETS = ("catalogue", "equal", "merit")
#: What each target implies, printed with the result.
TARGET_MEANING = {
    "catalogue": "each item group's share of the items ({source}): on target when an item of any group gets "
                 "the same attention on average (equal exposure per item)",
    "equal": "1/G for each item group whatever its size (equal exposure per group): a small group with "
             "more attention per item can be on target",
    "merit": "each item group's share of the relevance in the lists (exposure proportional to merit)",
}


def share_intervals(n, sums, cross, *, target: str = "equal", n_groups: int | None = None,
                    item_counts=None) -> list[dict]:
    """Exposure share of each item group, its target and their difference and ratio, with
    delta-method intervals clustered by user (users independent), from :class:`RankingStats` moments.

    ``share_g = Σ_u X_ug / Σ_u T_u`` (``T_u = Σ_g X_ug``), a ratio of means; its influence per user is
    ``(X_ug - share_g T_u) / mean(T)``, so ``Var ≈ Σ_u IF_u² / (n (n - 1))``, a quadratic form in
    ``cross``. Target ``"equal"``: ``1/G``; ``"merit"``: ``Σ_u M_ug / Σ_u R_u`` (estimated; its
    influence enters the difference and the log-ratio). p-values: two-sided z tests of
    share = target (difference) — the ratio tests the same null.

    Parameters
    ----------
    n : int
        Users.
    sums : array_like, shape (V,)
    cross : array_like, shape (V, V)
        ``V = G`` (exposure only) or ``2G`` (exposure then merit).
    target : {"catalogue", "equal", "merit"}
        The target shares (:data:`TARGETS`).
    n_groups : int, optional
        Number of item groups G (default: ``len(sums)``, or half with merit).
    item_counts : sequence of int, optional
        Items per item group (needed by ``target="catalogue"``).

    Returns
    -------
    list of dict
        One per item group: ``share, share_se, target, difference, difference_se, ratio,
        log_ratio_se``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.5], [0.5, 1.0], [1.0, 0.5]])
    >>> r = share_intervals(3, X.sum(0), X.T @ X)
    >>> round(r[0]["share"], 4), r[0]["target"]
    (0.5556, 0.5)
    >>> share_intervals(3, X.sum(0), X.T @ X, target="catalogue", item_counts=[1, 3])[0]["target"]
    0.25
    """
    s = np.asarray(sums, dtype=float)
    C = np.asarray(cross, dtype=float)
    G = n_groups if n_groups is not None else (len(s) // 2 if target == "merit" else len(s))
    if target == "merit" and len(s) != 2 * G:
        raise DataError("target='merit' needs the merit statistics: the log has no relevance column")
    if target == "catalogue":
        if item_counts is None or len(item_counts) != G or sum(item_counts) <= 0:
            raise DataError("target='catalogue' needs the items of each item group: an item column in the log "
                            "or an item_groups table")
        catalogue = np.asarray(item_counts, dtype=float) / float(sum(item_counts))
    n = float(n)
    tot_x = s[:G].sum()
    out = []
    denom = n * (n - 1.0)
    for g in range(G):
        share = s[g] / tot_x if tot_x > 0 else np.nan
        a_x = np.zeros(len(s))
        a_x[:G] = -share
        a_x[g] += 1.0
        a_x /= tot_x / n
        if target == "merit":
            tot_m = s[G:2 * G].sum()
            tgt = s[G + g] / tot_m if tot_m > 0 else np.nan
            a_m = np.zeros(len(s))
            a_m[G:2 * G] = -tgt
            a_m[G + g] += 1.0
            a_m /= tot_m / n
        else:
            tgt = 1.0 / G if target == "equal" else float(catalogue[g])
            a_m = np.zeros(len(s))
        with np.errstate(divide="ignore", invalid="ignore"):
            var_s = a_x @ C @ a_x / denom if n > 1 else np.nan
            a_d = a_x - a_m
            var_d = a_d @ C @ a_d / denom if n > 1 else np.nan
            a_l = a_x / share - (a_m / tgt if target == "merit" else 0.0)
            var_l = a_l @ C @ a_l / denom if n > 1 else np.nan
            rec = {"share": share, "share_se": np.sqrt(max(var_s, 0.0)), "target": tgt,
                   "difference": share - tgt, "difference_se": np.sqrt(max(var_d, 0.0)),
                   "ratio": share / tgt, "log_ratio_se": np.sqrt(max(var_l, 0.0)) if share > 0 else np.nan}
            out.append({key: float(v) for key, v in rec.items()})
    return out


def _share_rows(ug, ig, n, r, z):
    from scipy.stats import norm

    reason = None if n >= 2 else "no valid interval: fewer than 2 users"
    rows = []
    est, se = r["share"], r["share_se"]
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "share", "target": r["target"],
                 # a share lies in [0, 1]: the interval is cut to it (the cut keeps its coverage)
                 "estimate": est, "ci_low": max(est - z * se, 0.0), "ci_high": min(est + z * se, 1.0),
                 "p_value": np.nan, "reason": reason})
    d, dse = r["difference"], r["difference_se"]
    p = float(2 * norm.sf(abs(d) / dse)) if dse > 0 and n >= 2 else np.nan
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "difference", "target": r["target"],
                 # share - target lies in [-target, 1 - target]
                 "estimate": d, "ci_low": max(d - z * dse, -r["target"]), "ci_high": min(d + z * dse, 1.0 - r["target"]),
                 "p_value": p,
                 "reason": reason if dse > 0 or n < 2 else "no valid interval: the share does not vary across users"})
    lr, lse = r["ratio"], r["log_ratio_se"]
    ok = lr > 0 and np.isfinite(lr) and lse == lse
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "ratio", "target": r["target"],
                 "estimate": lr, "ci_low": float(np.exp(np.log(lr) - z * lse)) if ok else np.nan,
                 "ci_high": float(np.exp(np.log(lr) + z * lse)) if ok else np.nan, "p_value": p,
                 "reason": reason if ok else (reason or "no valid interval: the share is 0")})
    if n < 2:
        for row in rows:
            row["ci_low"] = row["ci_high"] = row["p_value"] = np.nan
    return rows


def share_table(stats, *, target: str, confidence: float, by_user_group: bool):
    """The ``groups`` table of :class:`ocef.exposure.ExposureResult`: share, difference and ratio rows
    per user group (``"(all)"`` first when there are several) and item group, Holm-adjusted over the
    differences; and the per-stratum results of :func:`share_intervals`.

    Parameters
    ----------
    stats : RankingStats
        The log's statistics.
    target : {"catalogue", "equal", "merit"}
        The target shares.
    confidence : float
        Two-sided level.
    by_user_group : bool
        Whether the log was split by a user-group column (adds the ``"(all)"`` stratum).

    Returns
    -------
    (pandas.DataFrame, dict)
        The table, and ``{user group: (n users, share_intervals results)}``.

    Examples
    --------
    >>> import pandas as pd
    >>> from ocef.exposure.statistics import ranking_statistics
    >>> st = ranking_statistics(pd.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "g": list("abba")}),
    ...                         item_group="g")
    >>> share_table(st, target="equal", confidence=0.95, by_user_group=False)[0]["statistic"].tolist()
    ['share', 'difference', 'ratio', 'share', 'difference', 'ratio']
    """
    import pandas as pd
    from scipy.stats import norm

    from ocef.inference import holm_adjust

    if target == "merit" and not stats.has_relevance:
        raise DataError("target='merit' needs a relevance column in the log")
    z = norm.ppf(0.5 + confidence / 2)
    G = len(stats.item_groups)
    strata = list(zip(stats.user_groups, stats.n_users, stats.sums, stats.cross))
    if len(strata) > 1 or by_user_group:
        strata = [("(all)", stats.n_users.sum(), stats.sums.sum(axis=0), stats.cross.sum(axis=0))] + strata
    rows, per_group = [], {}
    for ug, n, s, c in strata:
        res = share_intervals(n, s, c, target=target, n_groups=G, item_counts=stats.item_counts)
        per_group[ug] = (n, res)
        for ig, r in zip(stats.item_groups, res):
            rows.extend(_share_rows(ug, ig, int(n), r, z))
    groups = pd.DataFrame(rows)
    diff = groups["statistic"] == "difference"
    adj = holm_adjust(groups.loc[diff, "p_value"].to_numpy(dtype=float))
    groups["p_adjusted"] = np.nan
    groups.loc[diff, "p_adjusted"] = adj
    groups.loc[groups["statistic"] == "ratio", "p_adjusted"] = adj
    sig = (groups["p_adjusted"] <= 1 - confidence).astype(object)
    sig[groups["p_adjusted"].isna()] = None                     # no test (the share rows, or no interval)
    groups["significant"] = sig
    groups["confidence"] = confidence
    groups = groups[["user_group", "item_group", "n_users", "statistic", "target", "estimate", "ci_low", "ci_high",
                     "confidence", "p_value", "p_adjusted", "significant", "reason"]]
    return groups, per_group


def share_pairs(item_groups, per_group: dict, user_groups, reference, *, confidence: float):
    """Consumer side: each user group's exposure shares minus the reference group's (z intervals of
    independent groups), Holm-adjusted together.

    Parameters
    ----------
    item_groups : sequence
        Item-group labels.
    per_group : dict
        ``{user group: (n users, share_intervals results)}`` (:func:`share_table`).
    user_groups : sequence
        The user groups (without ``"(all)"``).
    reference : object
        The reference user group.
    confidence : float
        Two-sided level.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> r = {"share": 0.5, "share_se": 0.1}
    >>> share_pairs(["a"], {"x": (10, [r]), "y": (10, [r])}, ["x", "y"], "x", confidence=0.95)["estimate"].tolist()
    [0.0]
    """
    import pandas as pd
    from scipy.stats import norm

    from ocef.inference import holm_adjust

    z = norm.ppf(0.5 + confidence / 2)
    prow = []
    nb, rb = per_group[reference]
    for ug in user_groups:
        if ug == reference:
            continue
        na, ra = per_group[ug]
        for ig, a, b in zip(item_groups, ra, rb):
            d = a["share"] - b["share"]
            se = math.hypot(a["share_se"], b["share_se"])
            ok = na >= 2 and nb >= 2 and se > 0
            prow.append({"user_group": ug, "reference": reference, "item_group": ig, "statistic": "share difference",
                         "estimate": d, "ci_low": d - z * se if ok else np.nan,
                         "ci_high": d + z * se if ok else np.nan,
                         "p_value": float(2 * norm.sf(abs(d) / se)) if ok else np.nan,
                         "reason": None if ok else "no valid interval: fewer than 2 users or no variation"})
    pairs = pd.DataFrame(prow, columns=["user_group", "reference", "item_group", "statistic", "estimate", "ci_low",
                                        "ci_high", "p_value", "reason"])
    pairs["p_adjusted"] = holm_adjust(pairs["p_value"].to_numpy(dtype=float)) if len(pairs) else []
    pairs["significant"] = pairs["p_adjusted"] <= 1 - confidence
    return pairs
