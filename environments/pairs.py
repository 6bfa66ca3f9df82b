"""Builders of randomized-pairs tables (seed 003, Sec. 3.4) from real logs.

A pairs table has one row per comparison: ``query, j, jp, s_j, s_jp, z`` (``j`` the clicked /
liked item, ``jp`` the unclicked one, ``s`` their groups, ``z`` the engagement bucket of ``j``).
The metrics live in :mod:`ocef.pairwise`; this module only turns logs into pairs.

* :func:`pairs_from_ratings` — a log of ratings of uniformly random items (Coat's
  ``test.ascii``: 16 random items per user): every (liked, not liked) pair of a query, z = the
  liked item's rating. Coat (:func:`coat_pairs`): 8,770 pairs from 237 users.
* :func:`pairs_from_impressions` — single impressions of a uniform-random policy (the Open Bandit
  Dataset's ``random`` log; slates cannot be rebuilt): each clicked row × every unclicked row of
  another item with the same user features and day. OBD (:func:`obd_pairs`): 38 clicks,
  1,888 pairs — smoke data only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ocef.environments.logs import load_coat, obd_price_tier, read_log
from ocef.environments.paths import dataset_dir
from ocef.validation import as_generator
from ocef.errors import ParameterError

__all__ = ["pairs_from_ratings", "pairs_from_impressions", "coat_pairs", "obd_pairs", "OBD_USER_FEATURES"]

OBD_USER_FEATURES = ("user_feature_0", "user_feature_1", "user_feature_2", "user_feature_3")
MODES = ("all", "one-per-query")


def _need(log: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    missing = [c for c in columns if c not in log.columns]
    if missing:
        raise ParameterError(f"{name} is missing column(s) {missing}; it has {list(log.columns)}")


def _pair_frame(clicks: pd.DataFrame, others: pd.DataFrame, on: list, query: str, item: str, group: str,
                engagement: str | None) -> pd.DataFrame:
    """Every (clicked row, unclicked row of another item) sharing the ``on`` values, as a pairs
    table (``query`` column of the clicked row; z = its ``engagement``, or 0)."""
    m = clicks.merge(others[on + [item, group]], on=on, suffixes=("_j", "_jp"))
    m = m[m[f"{item}_j"].to_numpy() != m[f"{item}_jp"].to_numpy()]
    return pd.DataFrame({
        "query": m[query].to_numpy(), "j": m[f"{item}_j"].to_numpy(), "jp": m[f"{item}_jp"].to_numpy(),
        "s_j": m[f"{group}_j"].to_numpy(), "s_jp": m[f"{group}_jp"].to_numpy(),
        "z": m[engagement].to_numpy() if engagement is not None else 0,
    })


def _one_per_query(pairs: pd.DataFrame, rng) -> pd.DataFrame:
    """Keep one uniformly drawn pair per query (the seed's one randomized pair per query)."""
    gen = as_generator(rng)
    key = gen.random(len(pairs))
    order = np.lexsort((key, pairs["query"].to_numpy()))
    srt = pairs.iloc[order]
    first = np.r_[True, srt["query"].to_numpy()[1:] != srt["query"].to_numpy()[:-1]]
    return srt[first].sort_values(["query", "j", "jp"]).reset_index(drop=True)


def pairs_from_ratings(random_log: pd.DataFrame, *, label: str = "Y", group: str = "S",
                       engagement: str | None = "rating", query: str = "user", item: str = "item",
                       mode: str = "all", rng=None) -> pd.DataFrame:
    """Pairs from a log of ratings of uniformly random items.

    For every query (``query`` column, e.g. the user), every ordered pair (j, j′) of its rows with
    ``label`` = 1 for j and 0 for j′; ``s_j, s_jp`` from ``group``; ``z`` = ``engagement`` of j
    (e.g. the rating: 4 or 5 on Coat), or 0 when ``engagement`` is None. ``mode="one-per-query"``
    keeps one uniformly drawn pair per query (``rng``). Returns a DataFrame sorted by query, j, jp.
    """
    if mode not in MODES:
        raise ParameterError(f"mode must be one of {MODES}, got {mode!r}")
    cols = [query, item, label, group] + ([engagement] if engagement is not None else [])
    _need(random_log, cols, "random_log")
    lab = random_log[label]
    if not lab.isin([0, 1]).all():
        raise ParameterError(f"random_log column {label!r} must hold only 0/1")
    out = _pair_frame(random_log[lab == 1][cols], random_log[lab == 0], [query], query, item, group, engagement)
    if mode == "one-per-query":
        return _one_per_query(out, rng)
    return out.sort_values(["query", "j", "jp"]).reset_index(drop=True)


def pairs_from_impressions(log: pd.DataFrame, *, match_on: Sequence[str] = ("context", "day"), label: str = "Y",
                           group: str = "S", item: str = "item", engagement: str | None = None) -> pd.DataFrame:
    """Pairs from single impressions of a uniform-random log.

    Each clicked row (``label`` = 1) is paired with every unclicked row of a *different* item
    that shares the values of ``match_on`` (e.g. the user-feature tuple and the day): the best
    reconstruction of "the same query" when slates are not logged. ``query`` = the clicked row's
    index in ``log``. ``z`` = ``engagement`` of the click, or 0.
    """
    match_on = list(match_on)
    _need(log, match_on + [label, item, group] + ([engagement] if engagement else []), "log")
    base = log.reset_index(drop=True).assign(_row=lambda d: np.arange(len(d)))
    out = _pair_frame(base[base[label] == 1], base[base[label] == 0], match_on, "_row", item, group,
                      engagement or None)
    return out.sort_values(["query", "j", "jp"]).reset_index(drop=True)


def coat_pairs(data_dir: str | Path | None = None, *, mode: str = "all", rng=None) -> pd.DataFrame:
    """Coat's random ratings (``test.ascii``) as pairs: query = user, Y = rating >= 4, s = item
    gender (men/women), z = rating of the liked item (4 or 5)."""
    _, random = load_coat(data_dir)
    return pairs_from_ratings(random, label="Y", group="S", engagement="rating", query="user", item="item",
                              mode=mode, rng=rng)


def obd_pairs(data_dir: str | Path | None = None, *, campaign: str = "all") -> pd.DataFrame:
    """The Open Bandit Dataset's uniform-random log as pairs: matched on the four user features
    and the day; s = price tier (``item_feature_0`` above its median over items: "high", else
    "low", as in :func:`ocef.environments.logs.load_obd`). The loader of ``logs`` drops the user
    features, so the raw file is read here."""
    folder = dataset_dir("obd", data_dir) / "random" / campaign
    log = read_log(folder / f"{campaign}.csv", columns=["timestamp", "item_id", "click", *OBD_USER_FEATURES])
    tier = obd_price_tier(folder, log)
    frame = pd.DataFrame({
        "day": log["timestamp"].astype(str).str[:10], "item": log["item_id"].to_numpy(),
        "Y": log["click"].to_numpy(), "S": tier.reindex(log["item_id"]).to_numpy(),
        **{c: log[c].to_numpy() for c in OBD_USER_FEATURES},
    })
    return pairs_from_impressions(frame, match_on=list(OBD_USER_FEATURES) + ["day"])
