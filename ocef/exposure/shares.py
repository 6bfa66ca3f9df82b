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

__all__ = ["TARGETS", "TARGET_MEANING", "SHARE_FLOORS", "share_intervals", "share_floor_reason", "share_table",
           "share_pairs"]

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
        One per item group: ``share, share_se, target, n_eff, difference, difference_se, ratio,
        log_ratio_se`` (and with merit ``n_eff_merit, n_eff_relevance``). ``n_eff`` is Kish's effective
        number of users giving the group exposure, ``(Σ_u X_ug)² / Σ_u X_ug²``; ``n_eff_merit`` the
        same for the group's merit (with 0/1 relevance and one ranking per user: the users with a
        relevant item of the group), ``n_eff_relevance`` for the users' total relevance.

    Examples
    --------
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
            eff_x = s[g] ** 2 / C[g, g] if C[g, g] > 0 else 0.0
            rec = {"share": share, "share_se": np.sqrt(max(var_s, 0.0)), "target": tgt, "n_eff": eff_x,
                   "difference": share - tgt, "difference_se": np.sqrt(max(var_d, 0.0)),
                   "ratio": share / tgt, "log_ratio_se": np.sqrt(max(var_l, 0.0)) if share > 0 else np.nan}
            if target == "merit":
                mb = C[G:2 * G, G:2 * G]
                rec["n_eff_merit"] = s[G + g] ** 2 / mb[g, g] if mb[g, g] > 0 else 0.0
                rec["n_eff_relevance"] = tot_m ** 2 / mb.sum() if mb.sum() > 0 else 0.0
            out.append({key: float(v) for key, v in rec.items()})
    return out


#: Floors of the share family (measured in ``benchmarks/exposure_small_groups.py``; docs/guide/exposure.md):
#: users of the stratum, Kish effective users giving the item group exposure, and for the merit target
#: the effective users with a relevant item of the group and in total. Below any of them the share,
#: difference, ratio and pair rows print no interval (null + ``reason``).
SHARE_FLOORS = {"users": 15, "effective_users": 3, "merit_users": 10, "relevance_users": 20,
                "pair_effective_users": 6}


def share_floor_reason(n, r, *, target: str) -> str | None:
    """Why the share-family interval of one (user group, item group) is withheld, or None.

    Parameters
    ----------
    n : int
        Users of the user group.
    r : dict
        One result of :func:`share_intervals`.
    target : str
        The target (the merit target has two more floors).

    Returns
    -------
    str or None

    Examples
    --------
    >>> share_floor_reason(8, {"n_eff": 5.0}, target="equal")
    'no valid interval: 8 users, fewer than 15 (below that the share intervals covered under 0.93 in simulation)'
    >>> share_floor_reason(40, {"n_eff": 5.0}, target="equal") is None
    True
    """
    f = SHARE_FLOORS
    if n < f["users"]:
        return (f"no valid interval: {int(n)} users, fewer than {f['users']} (below that the share intervals "
                f"covered under 0.93 in simulation)")
    if not r.get("n_eff", 0.0) >= f["effective_users"]:
        return (f"no valid interval: the item group's exposure comes from {r.get('n_eff', 0.0):.1f} effective "
                f"users, fewer than {f['effective_users']}")
    if target == "merit":
        if not r.get("n_eff_relevance", 0.0) >= f["relevance_users"]:
            return (f"no valid interval: the merit target rests on {r.get('n_eff_relevance', 0.0):.1f} effective "
                    f"users with a relevant item, fewer than {f['relevance_users']}")
        if not r.get("n_eff_merit", 0.0) >= f["merit_users"]:
            return (f"no valid interval: the item group's merit comes from {r.get('n_eff_merit', 0.0):.1f} "
                    f"effective users with a relevant item of it, fewer than {f['merit_users']}")
    return None


def _logit_bounds(share, se, q):
    """The share's interval on the logit scale (delta method, ``q`` the quantile), back-transformed."""
    lg, sl = math.log(share / (1.0 - share)), se / (share * (1.0 - share))
    return 1.0 / (1.0 + math.exp(-(lg - q * sl))), 1.0 / (1.0 + math.exp(-(lg + q * sl)))


def _share_rows(ug, ig, n, r, confidence, target):
    from ocef.inference import student_t as student

    n = int(n)
    q = float(student.ppf(0.5 + confidence / 2, n - 1)) if n >= 2 else np.nan
    reason = share_floor_reason(n, r, target=target)
    est, se, tgt = r["share"], r["share_se"], r["target"]
    base = {"user_group": ug, "item_group": ig, "n_users": n, "target": tgt}
    nan = (np.nan, np.nan)
    if reason is None and not (0.0 < est < 1.0 and se > 0 and np.isfinite(q)):
        reason = ("no valid interval: the share is 0 in every user's list" if est == 0 else
                  "no valid interval: the share is 1 in every user's list" if est == 1 else
                  "no valid interval: the share does not vary across users")
    # the share: logit-scale delta interval with t_{n-1} (inside (0, 1), asymmetric near the edges)
    lo, hi = _logit_bounds(est, se, q) if reason is None else nan
    rows = [{**base, "statistic": "share", "estimate": est, "ci_low": lo, "ci_high": hi, "p_value": np.nan,
             "reason": reason}]
    d, dse = r["difference"], r["difference_se"]
    if target != "merit":
        # a fixed target: difference and ratio are the share's interval moved and scaled; the test is
        # share = target on the same (logit) scale, so interval and test agree
        p = np.nan
        if reason is None and 0.0 < tgt < 1.0:
            zl = abs(math.log(est / (1 - est)) - math.log(tgt / (1 - tgt))) * est * (1 - est) / se
            p = float(2 * student.sf(zl, n - 1))
        rows.append({**base, "statistic": "difference", "estimate": d, "ci_low": lo - tgt, "ci_high": hi - tgt,
                     "p_value": p, "reason": reason})
        rows.append({**base, "statistic": "ratio", "estimate": r["ratio"], "ci_low": lo / tgt if tgt > 0 else np.nan,
                     "ci_high": hi / tgt if tgt > 0 else np.nan, "p_value": p, "reason": reason})
        return rows
    # the merit target is estimated: t_{n-1} interval of share - merit share, and of the log ratio
    if reason is None and not (dse > 0 and np.isfinite(tgt)):
        reason = "no valid interval: share minus merit share does not vary across users"
    ok = reason is None
    p = float(2 * student.sf(abs(d) / dse, n - 1)) if ok else np.nan
    rows.append({**base, "statistic": "difference", "estimate": d,
                 # share - target lies in [-target, 1 - target]
                 "ci_low": max(d - q * dse, -tgt) if ok else np.nan,
                 "ci_high": min(d + q * dse, 1.0 - tgt) if ok else np.nan, "p_value": p, "reason": reason})
    lr, lse = r["ratio"], r["log_ratio_se"]
    rok = ok and lr > 0 and np.isfinite(lr) and lse == lse
    rows.append({**base, "statistic": "ratio", "estimate": lr,
                 "ci_low": float(np.exp(np.log(lr) - q * lse)) if rok else np.nan,
                 "ci_high": float(np.exp(np.log(lr) + q * lse)) if rok else np.nan, "p_value": p,
                 "reason": reason if not ok else None if rok else
                 "no valid interval for the ratio: the merit share is 0"})
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
    >>> from ocef.exposure.statistics import ranking_statistics
    >>> st = ranking_statistics(pd.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "g": list("abba")}),
    ...                         item_group="g")
    >>> share_table(st, target="equal", confidence=0.95, by_user_group=False)[0]["statistic"].tolist()
    ['share', 'difference', 'ratio', 'share', 'difference', 'ratio']
    """
    from ocef.results import column_frame

    columns, per_group = _share_columns(stats, target=target, confidence=confidence, by_user_group=by_user_group)
    return column_frame(columns, objects=("significant",)), per_group


#: the columns of :func:`share_table`'s table
_SHARE_COLUMNS = ["user_group", "item_group", "n_users", "statistic", "target", "estimate", "ci_low", "ci_high",
                 "confidence", "p_value", "p_adjusted", "significant", "reason"]
#: the columns of :func:`share_pairs`' table
_PAIR_COLUMNS = ["user_group", "reference", "item_group", "statistic", "estimate", "ci_low", "ci_high", "p_value",
                "reason", "p_adjusted", "significant"]


def _share_columns(stats, *, target: str, confidence: float, by_user_group: bool):
    """:func:`share_table` without pandas: its table as columns (``_SHARE_COLUMNS``, lists of
    values; ``significant`` True, False or None) and the per-stratum results."""
    from ocef.exposure.frame import significance
    from ocef.inference import holm_adjust

    if target == "merit" and not stats.has_relevance:
        raise DataError("target='merit' needs a relevance column in the log")
    G = len(stats.item_groups)
    strata = list(zip(stats.user_groups, stats.n_users, stats.sums, stats.cross))
    if len(strata) > 1 or by_user_group:
        strata = [("(all)", stats.n_users.sum(), stats.sums.sum(axis=0), stats.cross.sum(axis=0))] + strata
    rows, per_group = [], {}
    for ug, n, s, c in strata:
        res = share_intervals(n, s, c, target=target, n_groups=G, item_counts=stats.item_counts)
        per_group[ug] = (n, res)
        for ig, r in zip(stats.item_groups, res):
            rows.extend(_share_rows(ug, ig, int(n), r, confidence, target))
    statistic = np.array([r["statistic"] for r in rows], dtype=object)
    p_value = np.array([r["p_value"] for r in rows], dtype=float)
    adj = holm_adjust(p_value[statistic == "difference"])
    p_adjusted = np.full(len(rows), np.nan)
    p_adjusted[statistic == "difference"] = adj
    p_adjusted[statistic == "ratio"] = adj
    extra = {"p_adjusted": p_adjusted, "confidence": [confidence] * len(rows),
             "significant": significance(p_adjusted, confidence)}   # None: no test (share rows, or no interval)
    return {c: extra[c] if c in extra else [r[c] for r in rows] for c in _SHARE_COLUMNS}, per_group


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
    >>> r = {"share": 0.5, "share_se": 0.1, "n_eff": 30.0}
    >>> share_pairs(["a"], {"x": (40, [r]), "y": (40, [r])}, ["x", "y"], "x", confidence=0.95)["estimate"].tolist()
    [0.0]
    """
    from ocef.results import column_frame

    columns = _share_pair_columns(item_groups, per_group, user_groups, reference, confidence=confidence)
    return column_frame(columns, objects=("significant",))


def _share_pair_columns(item_groups, per_group: dict, user_groups, reference, *, confidence: float) -> dict:
    """:func:`share_pairs` without pandas: its table as columns (``_PAIR_COLUMNS``, lists of values)."""
    from ocef.exposure.frame import significance
    from ocef.inference import student_t as student

    from ocef.inference import holm_adjust

    prow = []
    nb, rb = per_group[reference]
    for ug in user_groups:
        if ug == reference:
            continue
        na, ra = per_group[ug]
        for ig, a, b in zip(item_groups, ra, rb):
            d = a["share"] - b["share"]
            se = math.hypot(a["share_se"], b["share_se"])
            # the share family's floors hold for both groups (a pair is no better than its smaller group)
            reason = share_floor_reason(na, a, target="equal") or share_floor_reason(nb, b, target="equal")
            fewest = min(a.get("n_eff", 0.0), b.get("n_eff", 0.0))
            if reason is None and fewest < SHARE_FLOORS["pair_effective_users"]:
                reason = (f"no valid interval: the item group's exposure in a user group comes from {fewest:.1f} "
                          f"effective users, fewer than {SHARE_FLOORS['pair_effective_users']} for a comparison")
            if reason is None and not se > 0:
                reason = "no valid interval: the shares do not vary across users"
            ok = reason is None
            q = float(student.ppf(0.5 + confidence / 2, min(na, nb) - 1)) if ok else np.nan
            prow.append({"user_group": ug, "reference": reference, "item_group": ig, "statistic": "share difference",
                         "estimate": d, "ci_low": d - q * se if ok else np.nan,
                         "ci_high": d + q * se if ok else np.nan,
                         "p_value": float(2 * student.sf(abs(d) / se, min(na, nb) - 1)) if ok else np.nan,
                         "reason": reason})
    pairs = {c: [r[c] for r in prow] for c in _PAIR_COLUMNS[:9]}
    pairs["p_adjusted"] = holm_adjust(np.array(pairs["p_value"], dtype=float)) if prow else np.zeros(0)
    pairs["significant"] = significance(pairs["p_adjusted"], confidence)      # None: no test, no label
    return pairs
