"""Builders of randomized-pairs tables (Beutel et al. 2019, Sec. 3.4) from real logs.

A pairs table has one row per comparison: ``query, j, jp, s_j, s_jp, z`` (``j`` the clicked /
liked item, ``jp`` the unclicked one, ``s`` their groups, ``z`` the engagement bucket of ``j``).
The metrics live in :mod:`ocef.pairwise`; this module only turns logs into pairs.

* :func:`pairs_from_ratings` — a log of ratings of uniformly random items (Coat's
  ``test.ascii``: 16 random items per user): every (liked, not liked) pair of a query, z = the
  liked item's rating. Coat (:meth:`ocef.datasets.Coat.pairs`): 8,770 pairs from 237 users.
* :func:`pairs_from_impressions` — single impressions of a uniform-random policy (the Open Bandit
  Dataset's ``random`` log; slates cannot be rebuilt): each clicked row × every unclicked row of
  another item with the same user features and day. OBD (:meth:`ocef.datasets.OpenBanditDataset.pairs`): 38 clicks,
  1,888 pairs — smoke data only.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ocef.validation import as_generator
from ocef.errors import ParameterError

__all__ = ["pairs_from_ratings", "pairs_from_impressions"]

MODES = ("all", "one-per-query")


def _need(log: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    missing = [c for c in columns if c not in log.columns]
    if missing:
        raise ParameterError(f"{name} is missing column(s) {missing}; it has {list(log.columns)}")


def _pair_frame(clicks: pd.DataFrame, others: pd.DataFrame, on: list, query: str, item: str, group: str,
                engagement: str | None) -> pd.DataFrame:
    """Every (clicked row, unclicked row of another item) sharing the ``on`` values, as a pairs table."""
    m = clicks.merge(others[on + [item, group]], on=on, suffixes=("_j", "_jp"))
    m = m[m[f"{item}_j"].to_numpy() != m[f"{item}_jp"].to_numpy()]
    return pd.DataFrame({
        "query": m[query].to_numpy(), "j": m[f"{item}_j"].to_numpy(), "jp": m[f"{item}_jp"].to_numpy(),
        "s_j": m[f"{group}_j"].to_numpy(), "s_jp": m[f"{group}_jp"].to_numpy(),
        "z": m[engagement].to_numpy() if engagement is not None else 0,
    })


def _one_per_query(pairs: pd.DataFrame, rng) -> pd.DataFrame:
    """Keep one uniformly drawn pair per query (Beutel et al.'s one randomized pair per query)."""
    gen = as_generator(rng)
    key = gen.random(len(pairs))
    order = np.lexsort((key, pairs["query"].to_numpy()))
    srt = pairs.iloc[order]
    first = np.r_[True, srt["query"].to_numpy()[1:] != srt["query"].to_numpy()[:-1]]
    return srt[first].sort_values(["query", "j", "jp"]).reset_index(drop=True)


def pairs_from_ratings(random_log: pd.DataFrame, *, label: str = "Y", group: str = "S",
                       engagement: str | None = "rating", query: str = "user", item: str = "item",
                       mode: str = "all", rng=None) -> pd.DataFrame:
    """Randomized pairs (Beutel et al. 2019, Sec. 3.4) from a log of ratings of uniformly random items:
    every ordered (liked, not liked) pair of rows of a query.

    Parameters
    ----------
    random_log : pandas.DataFrame
        One row per rating of a random item.
    label : str
        The 0/1 preference column.
    group : str
        The item-group column.
    engagement : str or None
        The column giving z, the engagement bucket of the liked item; None sets z = 0.
    query : str
        The comparisons are made within one query.
    item : str
        The item column.
    mode : {"all", "one-per-query"}
        Every pair, or one uniformly drawn pair per query (Beutel et al.'s).
    rng : None, int, SeedSequence or Generator, optional
        For ``"one-per-query"``.

    Returns
    -------
    pandas.DataFrame
        ``query, j, jp, s_j, s_jp, z``, sorted by query, j, jp.

    Examples
    --------
    >>> log = pd.DataFrame({"user": [0, 0, 1, 1], "item": [10, 11, 10, 12], "Y": [1, 0, 0, 1],
    ...                     "S": ["a", "b", "a", "a"], "rating": [5, 2, 3, 4]})
    >>> pairs_from_ratings(log)[["j", "jp", "z"]].values.tolist()
    [[10, 11, 5], [12, 10, 4]]
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
    """Randomized pairs (Beutel et al. 2019, Sec. 3.4) from single impressions of a uniform-random log.

    Each clicked row is paired with every unclicked row of a *different* item sharing the values of
    ``match_on`` (e.g. the user features and the day): "the same query" when slates are not logged
    (the Open Bandit Dataset's ``random`` log).

    Parameters
    ----------
    log : pandas.DataFrame
        One row per impression of a uniformly random item.
    match_on : sequence of str
        Columns whose values define "the same query".
    label : str
        The click column (1: clicked).
    group, item : str
    engagement : str, optional
        The column giving z for the clicked row; None sets z = 0.

    Returns
    -------
    pandas.DataFrame
        ``query, j, jp, s_j, s_jp, z`` sorted by query, j, jp; ``query`` is the clicked row's
        position in ``log``.

    Examples
    --------
    >>> log = pd.DataFrame({"context": [7, 7, 7], "day": 0, "item": [1, 2, 3], "Y": [1, 0, 0], "S": [0, 1, 0]})
    >>> pairs_from_impressions(log)[["j", "jp"]].values.tolist()
    [[1, 2], [1, 3]]
    """
    match_on = list(match_on)
    _need(log, match_on + [label, item, group] + ([engagement] if engagement else []), "log")
    base = log.reset_index(drop=True).assign(_row=lambda d: np.arange(len(d)))
    out = _pair_frame(base[base[label] == 1], base[base[label] == 0], match_on, "_row", item, group,
                      engagement or None)
    return out.sort_values(["query", "j", "jp"]).reset_index(drop=True)
