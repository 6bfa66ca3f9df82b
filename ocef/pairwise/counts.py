"""Pairs tables and their counts (Beutel et al. 2019, Sec. 3.4): everything the metrics need, counts first.

A *pairs table* has one row per randomized comparison (:data:`PAIR_COLUMNS`): ``query``, ``j``
(the clicked item), ``jp`` (the unclicked item j′), ``s_j``, ``s_jp`` (the item groups as written
in the data), ``z`` (engagement bucket of the click; one level when absent) and the model's
``score_j``, ``score_jp`` = g(f_θ(q, v)) of each item (or a separate scores table).

Every metric of :mod:`ocef.pairwise.accuracy` is a function of the counts of :class:`PairCounts`.

Two counting backends (``backend=``) give the same counts (a test checks it):

* ``"pandas"`` — in-memory frames, vectorized numpy (factorize, one sort);
* ``"duckdb"`` — pairs (and scores) files in CSV or Parquet, read, joined and checked by DuckDB,
  which returns integer codes only (cluster, clicked group, unclicked group, level, outcome) per
  pair; the profiles are then formed as above.
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ocef.results import Result, presents
from ocef.validation import Options, validate_params
from ocef.errors import DataError, ParameterError, ParameterTypeError

if TYPE_CHECKING:       # annotations only: pandas is imported where a DataFrame is read or built
    import pandas as pd

__all__ = ["PAIR_COLUMNS", "SCORE_COLUMNS", "KINDS", "BACKENDS", "PairCounts", "check_pairs", "attach_scores",
           "pair_counts", "counts_from_arrays", "group_mapping", "grid_frame", "grid_columns"]

#: Required columns of a pairs table (``z`` may be absent: one engagement level).
PAIR_COLUMNS = ["query", "j", "jp", "s_j", "s_jp", "z"]
#: Score columns of a pairs table (or given by a separate scores table ``item, score``).
SCORE_COLUMNS = ["score_j", "score_jp"]
#: Kinds of comparisons, in the order of the count arrays' metric axis.
KINDS = ("overall", "intra", "inter")
BACKENDS = ("auto", "pandas", "duckdb")


@dataclass(frozen=True)
class PairCounts(Result):
    """Counts of a pairs table, reduced to distinct per-cluster profiles (Beutel et al. 2019, Sec. 3.4).

    Every pairwise metric (eq. 1-7, Sec. 6.1, 6.4) is a function of N[s, t, z, o] = #pairs with
    clicked group s, kind t (0 intra: s_j = s_j′, 1 inter), level z and outcome o (0 loss:
    score_j < score_jp, 1 tie, 2 win); the clustered bootstrap needs them per query. Queries with
    identical counts are exchangeable, so only the distinct profiles and their multiplicities are
    kept; ``total`` = Σ multiplicity × profiles.

    Attributes
    ----------
    profiles : numpy.ndarray of int, shape (P, 2, 2, Z, 3)
        N[s, t, z, o] of each distinct profile.
    multiplicity : numpy.ndarray of int, shape (P,)
        Clusters with that profile.
    group_names : tuple
        Groups 0 and 1 of the clicked item; ratios are group 0 / group 1 (the paper's "not
        subgroup" / subgroup).
    z_levels : tuple
        The engagement levels, in order.
    cluster : str
        The column whose values are the bootstrap's independent units.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> pair_counts(make_toy_pairs()).groups[["group", "wins", "ties", "losses"]].values.tolist()
    [['a', 2, 0, 2], ['b', 2, 1, 1]]
    """

    profiles: np.ndarray = dataclasses.field(repr=False)
    multiplicity: np.ndarray = dataclasses.field(repr=False)
    group_names: tuple
    z_levels: tuple
    cluster: str = "query"

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group (as the clicked item's group): ``group`` (name), ``index`` (0 or 1),
        ``n_pairs``, ``n_intra``, ``n_inter`` (pairs whose other item is of the same / the other
        group) and ``wins``, ``ties``, ``losses`` (the clicked item's score above, equal to, below
        the other's)."""
        import pandas as pd

        t = self.total                                       # (group, kind, z, outcome)
        return pd.DataFrame({"group": list(self.group_names), "index": [0, 1],
                             "n_pairs": t.sum(axis=(1, 2, 3)).astype(np.int64),
                             "n_intra": t[:, 0].sum(axis=(1, 2)).astype(np.int64),
                             "n_inter": t[:, 1].sum(axis=(1, 2)).astype(np.int64),
                             "wins": t[..., 2].sum(axis=(1, 2)).astype(np.int64),
                             "ties": t[..., 1].sum(axis=(1, 2)).astype(np.int64),
                             "losses": t[..., 0].sum(axis=(1, 2)).astype(np.int64)})

    @property
    def total(self) -> np.ndarray:
        return np.tensordot(self.multiplicity, self.profiles, axes=1)

    @property
    def n_pairs(self) -> int:
        return int(self.total.sum())

    @property
    def n_queries(self) -> int:
        return int(self.multiplicity.sum())

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per (clicked group, kind intra/inter, z, outcome) with its number of pairs (``total``).

        Columns ``group, kind, z, outcome, n_pairs``; 2 × 2 × Z × 3 rows.
        """
        return grid_frame({"group": self.group_names, "kind": ("intra", "inter"), "z": self.z_levels,
                           "outcome": ("loss", "tie", "win")}, n_pairs=self.total.astype(np.int64))

    @presents
    def to_dict(self) -> dict:
        """The group names, levels, sizes and the counts (:meth:`to_frame` as records), JSON-ready.

        ``groups`` (the names), ``z_levels``, ``n_pairs``, ``n_queries``, ``cluster``, ``counts``.
        """
        from ocef.results import jsonable

        return jsonable({"groups": list(self.group_names), "z_levels": list(self.z_levels),
                         "n_pairs": self.n_pairs, "n_queries": self.n_queries, "cluster": self.cluster,
                         "counts": self.to_frame()})


def grid_frame(labels: dict, **columns) -> pd.DataFrame:
    """A tidy DataFrame of arrays over a labelled grid: label columns then value columns, one row per cell, C order.

    Parameters
    ----------
    labels : dict
        Column name -> the labels along that axis; a numpy array keeps its dtype, others become
        objects (names may mix types, e.g. ``("not 2", 2)``).
    **columns : array_like
        Value columns of the grid's shape.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> grid_frame({"kind": ("intra", "inter"), "z": (1, 2)}, n_pairs=np.array([[3, 1], [0, 2]])).values.tolist()
    [['intra', 1, 3], ['intra', 2, 1], ['inter', 1, 0], ['inter', 2, 2]]
    """
    import pandas as pd

    return pd.DataFrame(grid_columns(labels, **columns))


def grid_columns(labels: dict, **columns) -> dict[str, np.ndarray]:
    """The columns of :func:`grid_frame` as numpy arrays, without pandas (e.g. for JSON records).

    Parameters
    ----------
    labels : dict
        Column name -> the labels along that axis, in order (as in :func:`grid_frame`).
    **columns : array_like
        As in :func:`grid_frame`.

    Returns
    -------
    dict of str to numpy.ndarray

    Examples
    --------
    >>> grid_columns({"kind": ("intra", "inter"), "z": (1, 2)}, n_pairs=np.array([[3, 1], [0, 2]]))["kind"].tolist()
    ['intra', 'intra', 'inter', 'inter']
    """
    shape = tuple(len(v) for v in labels.values())
    idx = np.unravel_index(np.arange(int(np.prod(shape))), shape)
    out = {name: (v if isinstance(v, np.ndarray) else np.asarray(v, dtype=object))[i]
           for (name, v), i in zip(labels.items(), idx)}
    out.update({name: np.asarray(v).reshape(-1) for name, v in columns.items()})
    return out


# --------------------------------------------------------------------------- checks


def check_pairs(pairs: pd.DataFrame, *, need_scores: bool = True, cluster: str = "query") -> pd.DataFrame:
    """Validate a pairs table (Beutel et al. 2019, Sec. 3.4: one row per recorded randomized pair),
    adding ``z = 0`` (one engagement level) when there is no ``z`` column.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs table.
    need_scores : bool
        Require ``score_j`` and ``score_jp`` (False when scores are attached later).
    cluster : str
        The column whose values are the bootstrap's clusters.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ocef.errors.DataError
        For an empty table, a missing column, ``j == jp``, missing group, engagement or cluster
        values, or non-finite scores.

    Examples
    --------
    >>> check_pairs(pd.DataFrame({"query": [0], "j": [0], "jp": [1], "s_j": ["a"], "s_jp": ["b"]}))
    Traceback (most recent call last):
    ...
    ocef.errors.DataError: pairs is missing column(s) ['score_j', 'score_jp'] ...
    """
    import pandas as pd

    if not isinstance(pairs, pd.DataFrame):
        raise ParameterTypeError(f"pairs must be a pandas DataFrame (or a file path), got {type(pairs).__name__}")
    _check_columns(list(pairs.columns), cluster, need_scores)
    if len(pairs) == 0:

        raise DataError("pairs has no row (only a header): give at least one randomized pair")
    if "z" not in pairs.columns:
        pairs = pairs.assign(z=0)
    same = (pairs["j"].to_numpy() == pairs["jp"].to_numpy())
    if same.any():
        first = int(np.flatnonzero(same)[0])
        raise DataError(f"pairs: the clicked item j is also the unclicked item jp in {int(same.sum())} row(s) "
                         f"(first: row {first}, item {pairs['j'].iloc[first]!r}); each pair needs two items")
    for col in ("s_j", "s_jp", "z", cluster):
        if pairs[col].isna().any():
            raise DataError(f"pairs column {col!r} has {int(pairs[col].isna().sum())} missing value(s)")
    if need_scores:
        for col in SCORE_COLUMNS:
            v = pd.to_numeric(pairs[col], errors="coerce").to_numpy(dtype=float)
            if not np.all(np.isfinite(v)):
                raise DataError(f"pairs column {col!r} must hold finite numbers, found "
                                 f"{int((~np.isfinite(v)).sum())} missing or non-finite value(s)")
    return pairs


def _check_cluster(cluster) -> None:
    """``cluster`` must be a non-empty column name (issue 23: ``--cluster ''`` said "pairs is missing column(s) ['']")."""

    if not isinstance(cluster, str):
        raise ParameterTypeError(f"cluster must be the name of a column of pairs (e.g. 'query'), got {cluster!r}")
    if not cluster.strip():
        raise ParameterError(f"cluster must name a column of pairs (the bootstrap's independent units, e.g. "
                             f"'query'), got the empty name {cluster!r}")


def _check_columns(columns: list, cluster: str, need_scores: bool) -> None:
    """ValueError naming the required columns of a pairs table missing from ``columns`` (both engines)."""
    need = [c for c in PAIR_COLUMNS if c != "z"] + ([cluster] if cluster not in PAIR_COLUMNS else [])
    if need_scores:
        need += SCORE_COLUMNS
    missing = [c for c in need if c not in columns]
    if cluster in missing and cluster not in PAIR_COLUMNS:

        raise DataError(f"cluster={cluster!r}: pairs has no column {cluster!r} to cluster by; it has {columns}")
    if missing:
        hint = (" (give scores: a table with columns item, score, or query, item, score)"
                if set(missing) <= set(SCORE_COLUMNS) else "")
        raise DataError(f"pairs is missing column(s) {missing}{hint}; it has {columns}")


def _check_score_columns(columns: list) -> None:
    """ValueError naming the columns ``item, score`` of a scores table missing from ``columns`` (both engines)."""
    missing = [c for c in ("item", "score") if c not in columns]
    if missing:
        raise DataError(f"scores is missing column(s) {missing}; it has {columns}")


def attach_scores(pairs: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Add ``score_j``, ``score_jp`` to a pairs table from a scores table, per item (``item, score``)
    or per query (``query, item, score``); existing score columns are replaced.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs table (``query``, ``j``, ``jp``, ...).
    scores : pandas.DataFrame
        One row per key.

    Returns
    -------
    pandas.DataFrame
        A copy.

    Raises
    ------
    ocef.errors.DataError
        For missing columns, several rows for one key, or a pair item without a score.

    Examples
    --------
    >>> pairs = pd.DataFrame({"query": [0, 1], "j": [0, 1], "jp": [1, 2], "s_j": ["a", "a"], "s_jp": ["a", "b"]})
    >>> attach_scores(pairs, pd.DataFrame({"item": [0, 1, 2], "score": [0.9, 0.5, 0.1]}))["score_jp"].tolist()
    [0.5, 0.1]
    """
    import pandas as pd

    if not isinstance(scores, pd.DataFrame):
        raise ParameterTypeError(f"scores must be a DataFrame with columns item, score, got {type(scores).__name__}")
    _check_score_columns(list(scores.columns))
    keys = ["query", "item"] if "query" in scores.columns else ["item"]
    if scores.duplicated(keys).any():
        raise DataError(f"scores has several rows for the same {'/'.join(keys)}")
    table = scores.set_index(keys)["score"]
    out = pairs.drop(columns=[c for c in SCORE_COLUMNS if c in pairs.columns])
    for col, item in (("score_j", "j"), ("score_jp", "jp")):
        idx = (pd.MultiIndex.from_arrays([out["query"], out[item]]) if len(keys) == 2
               else pd.Index(out[item]))
        vals = table.reindex(idx).to_numpy(dtype=float)
        if np.isnan(vals).any():
            bad = out[item].to_numpy()[np.isnan(vals)][:3]
            raise DataError(f"scores has no score for item(s) {bad.tolist()} (column {item!r} of pairs)")
        out[col] = vals
    return out


def group_mapping(values: Sequence, subgroup=None) -> tuple[tuple, dict]:
    """The two group names and the map from the raw group values to 0/1 (the subgroup is 1).

    Two values: sorted, unless ``subgroup`` names one. More values need ``subgroup``; the others
    become ``"not <subgroup>"``. A string ``subgroup`` matches a numeric value so spelled.

    Parameters
    ----------
    values : sequence
        The group values found in ``s_j`` and ``s_jp``.
    subgroup : optional
        The group compared with the rest.

    Returns
    -------
    names : tuple
    mapping : dict
        Raw value -> 0 or 1.

    Raises
    ------
    ocef.errors.DataError
        If ``subgroup`` is not a value, or without ``subgroup`` when there are not exactly two
        values.

    Examples
    --------
    >>> group_mapping(["x", "y", "z"], subgroup="y")
    (('not y', 'y'), {'x': 0, 'y': 1, 'z': 0})
    """
    vals = sorted(set(values), key=lambda v: (str(type(v)), v))
    if subgroup is not None:
        if subgroup not in set(vals):
            # tolerate the CLI's string spelling of a numeric group value
            match = [v for v in vals if str(v) == str(subgroup)]
            if not match:
                raise DataError(f"subgroup {subgroup!r} is not a group of the pairs; groups are {vals}")
            subgroup = match[0]
        others = [v for v in vals if v != subgroup]
        name0 = others[0] if len(others) == 1 else f"not {subgroup}"
        return (name0, subgroup), {v: (1 if v == subgroup else 0) for v in vals}
    if len(vals) > 2:
        raise DataError(f"the group columns s_j/s_jp hold {len(vals)} values {vals[:6]}; "
                         "choose the subgroup to compare against the rest (subgroup=... / --subgroup)")
    if len(vals) < 2:
        raise DataError(f"the group columns s_j/s_jp hold one value {vals}: two item groups are needed "
                         "(or name the missing subgroup with subgroup=...)")
    return tuple(vals), {v: i for i, v in enumerate(vals)}


# --------------------------------------------------------------------------- counting


def _outcome(score_j: np.ndarray, score_jp: np.ndarray) -> np.ndarray:
    """c_q(j, j′) coded 2 (win, score_j > score_jp), 1 (tie: counts ½), 0 (loss)."""
    return (score_j > score_jp).astype(np.int64) * 2 + (score_j == score_jp)


def counts_from_arrays(query, s_j, s_jp, z, outcome, weight=None, *, subgroup=None,
                       z_levels=None, cluster: str = "query") -> PairCounts:
    """Counts of randomized pairs (:class:`PairCounts`) from per-row arrays, each row ``weight``
    identical pairs of cluster ``query``.

    Parameters
    ----------
    query : array_like
        Cluster of each row.
    s_j, s_jp : array_like
        Groups of the clicked and of the unclicked item.
    z : array_like
        Engagement levels.
    outcome : array_like of int
        0 loss (score_j < score_jp), 1 tie, 2 win.
    weight : array_like of int, optional
        Pairs per row (default 1).
    subgroup : optional
        :func:`group_mapping`.
    z_levels : sequence, optional
        Default: the sorted values found (a level without pairs is kept).
    cluster : str
        Recorded in the counts.

    Returns
    -------
    PairCounts

    Raises
    ------
    ocef.errors.DataError
        As :func:`group_mapping`, and for a level not in ``z_levels``.

    Examples
    --------
    >>> counts = counts_from_arrays(query=[0, 0, 1], s_j=["a", "a", "b"], s_jp=["a", "b", "a"], z=[1, 1, 2], outcome=[2, 0, 1])
    >>> counts.n_pairs, counts.n_queries, counts.z_levels
    (3, 2, (1, 2))
    """
    codes_j, uj = _factorize(s_j)
    codes_jp, ujp = _factorize(s_jp)
    names, mapping = group_mapping(list(uj) + list(ujp), subgroup)
    g_j = np.array([mapping[v] for v in uj], dtype=np.int64)[codes_j]
    g_jp = np.array([mapping[v] for v in ujp], dtype=np.int64)[codes_jp]
    z_codes, z_uniq = _factorize(z)
    zl, pos = _z_levels(z_uniq, z_levels)
    z_idx = np.array([pos[v] for v in z_uniq], dtype=np.int64)[z_codes]
    return _counts_from_codes(query, g_j, g_jp, z_idx, outcome, weight, names, zl, cluster)


def _z_levels(found: list, z_levels=None) -> tuple[list, dict]:
    """Ordered engagement levels (sorted found values, or the given ones) and value -> index."""
    levels = sorted(found, key=lambda v: (str(type(v)), v)) if z_levels is None else list(z_levels)
    pos = {v: i for i, v in enumerate(levels)}
    unknown = [v for v in found if v not in pos]
    if unknown:
        raise DataError(f"engagement values {unknown} are not in z_levels {levels}")
    return (levels if levels else [0]), pos


def _counts_from_codes(query, g_j, g_jp, z_idx, outcome, weight, names, zl, cluster) -> PairCounts:
    """Cells ((g_j, inter), z, outcome) per row, then the distinct query profiles."""
    n_z = len(zl)
    g_j = np.asarray(g_j, dtype=np.int64)
    inter = (g_j != np.asarray(g_jp, dtype=np.int64)).astype(np.int64)
    cell = ((g_j * 2 + inter) * n_z + np.asarray(z_idx, dtype=np.int64)) * 3 + np.asarray(outcome, dtype=np.int64)
    K = 2 * 2 * n_z * 3
    q_codes, _ = _factorize(query, uniques=False)
    weight = np.ones(len(cell), dtype=np.int64) if weight is None else np.asarray(weight, dtype=np.int64)
    profiles, mult = _profiles(q_codes.astype(np.int64), cell, weight, K)
    return PairCounts(profiles.reshape(-1, 2, 2, n_z, 3), mult, tuple(names), tuple(zl), cluster)


def _factorize(values, uniques: bool = True) -> tuple[np.ndarray, list | None]:
    """``(codes, uniques)``; integer columns with a small range skip hashing (bincount)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "iu" and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if hi - lo <= max(4 * arr.size, 1024):
            shifted = (arr - lo) if lo else arr
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            levels = (np.flatnonzero(present) + lo).tolist() if uniques else None
            if present.all():
                return shifted, levels
            return (np.cumsum(present) - 1)[shifted], levels
    import pandas as pd

    codes, found = pd.factorize(arr)
    return codes, (list(found) if uniques else None)


def _one_cell_profiles(cell: np.ndarray, count: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Profiles when every query has one cell: the token cell·top + count names the profile."""
    top = int(count.max()) + 1
    mult = np.bincount(cell * top + count, minlength=K * top)
    tok = np.flatnonzero(mult)
    prof = np.zeros((tok.size, K), dtype=np.int64)
    prof[np.arange(tok.size), tok // top] = tok % top
    return prof, mult[tok]


def _profiles(q: np.ndarray, cell: np.ndarray, weight: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct per-query count vectors (P, K) and how many queries have each (P,). Exact."""
    if q.size == 0:
        return np.zeros((0, K), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if int(q.max()) + 1 == q.size:                    # one row per query: the profile is the row
        return _one_cell_profiles(cell, weight, K)
    comb = q * K + cell
    order = np.argsort(comb, kind="stable")
    comb_s = comb[order]
    first = np.flatnonzero(np.r_[True, comb_s[1:] != comb_s[:-1]])
    uniq = comb_s[first]
    cnt = np.add.reduceat(weight[order], first)
    qq, kk = uniq // K, uniq % K
    starts = np.flatnonzero(np.r_[True, qq[1:] != qq[:-1]])
    lens = np.diff(np.r_[starts, qq.size])
    width = int(lens.max())
    if width == 1:                                    # several rows per query, all in one cell
        return _one_cell_profiles(kk, cnt, K)
    # one token per (cell, count) of a query; queries are equal iff their token rows are equal
    top = int(cnt.max()) + 1
    tok = kk * top + cnt
    pos = np.arange(qq.size) - np.repeat(starts, lens)
    rows = np.repeat(np.arange(starts.size), lens)
    padded = np.full((starts.size, width), -1, dtype=np.int64)
    padded[rows, pos] = tok
    urows, mult = np.unique(padded, axis=0, return_counts=True)
    prof = np.zeros((urows.shape[0], K), dtype=np.int64)
    r, c = np.nonzero(urows >= 0)
    t = urows[r, c]
    prof[r, t // top] = t % top
    return prof, mult


def _is_path(obj) -> bool:
    return isinstance(obj, (str, Path))


@validate_params(backend=Options(*BACKENDS))
def pair_counts(pairs, *, scores=None, subgroup=None, cluster: str = "query", z_levels=None,
                backend: str = "auto") -> PairCounts:
    """Reduce a pairs table to :class:`PairCounts`, the only input the pairwise metrics need.

    Columns in the module docstring; each pair's outcome is c_q(j, j′) (eq. 1; ties kept apart). The
    ``"pandas"`` and ``"duckdb"`` backends give the same counts.

    Parameters
    ----------
    pairs : pandas.DataFrame, str or path
        The table, or a CSV/Parquet file of it (:data:`PAIR_COLUMNS`, plus ``score_j`` /
        ``score_jp`` unless ``scores`` is given).
    scores : pandas.DataFrame, str or path, optional
        :func:`attach_scores`.
    subgroup : optional
        Required with more than two group values (:func:`group_mapping`).
    cluster : str
        The bootstrap's clusters (users, when one user makes many queries).
    z_levels : sequence, optional
        The engagement levels in order (default: the sorted values found).
    backend : {"auto", "pandas", "duckdb"}
        ``"auto"``: DuckDB for file paths, pandas for DataFrames.

    Returns
    -------
    PairCounts

    Raises
    ------
    ocef.errors.DataError
        For a malformed table (:func:`check_pairs`, :func:`attach_scores`), unknown groups or
        levels (:func:`group_mapping`), or a file DuckDB cannot read.
    FileNotFoundError
        For a missing file (DuckDB backend).

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> pair_counts(make_toy_pairs()).n_pairs
    8
    """

    _check_cluster(cluster)
    if backend == "duckdb" or (backend == "auto" and (_is_path(pairs) or _is_path(scores))):
        return _duckdb_counts(pairs, scores, subgroup=subgroup, cluster=cluster, z_levels=z_levels)
    if _is_path(pairs):
        pairs = read_table(pairs)
    if _is_path(scores):
        scores = read_table(scores)
    if scores is not None:
        pairs = attach_scores(check_pairs(pairs, need_scores=False, cluster=cluster), scores)
    pairs = check_pairs(pairs, cluster=cluster)
    a = pairs["score_j"].to_numpy(dtype=float)
    b = pairs["score_jp"].to_numpy(dtype=float)
    return counts_from_arrays(pairs[cluster].to_numpy(), pairs["s_j"].to_numpy(), pairs["s_jp"].to_numpy(),
                              pairs["z"].to_numpy(), _outcome(a, b), subgroup=subgroup, z_levels=z_levels,
                              cluster=cluster)


def read_table(path) -> pd.DataFrame:
    """Read a CSV or Parquet file as a DataFrame (:func:`ocef.environments.logs.read_log`).

    Parameters
    ----------
    path : str or path
        A ``.csv`` or ``.parquet`` file.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> make_toy_pairs().to_csv("pairs.csv", index=False)
    >>> read_table("pairs.csv").shape
    (8, 8)
    """
    from ocef.environments.logs import read_log

    return read_log(path)


def _duckdb_source(obj, name: str, con) -> str:
    """SQL relation text for a file path or a registered DataFrame."""
    if _is_path(obj):
        path = Path(obj)
        if not path.is_file():
            raise FileNotFoundError(f"{name} file not found: {path}")
        text = str(path).replace("'", "''")
        if path.suffix.lower() in (".parquet", ".pq"):
            return f"read_parquet('{text}')"
        return f"read_csv_auto('{text}', header=true)"
    pd = sys.modules.get("pandas")          # not imported: obj cannot be a DataFrame
    if pd is not None and isinstance(obj, pd.DataFrame):
        con.register(f"{name}_df", obj)
        return f"{name}_df"
    raise ParameterTypeError(f"{name} must be a DataFrame or a file path, got {type(obj).__name__}")


def _duckdb_counts(pairs, scores, *, subgroup, cluster: str, z_levels) -> PairCounts:
    """DuckDB path: pairs checked and coded in SQL on a private cursor, then profiled as the pandas path."""
    import duckdb

    from ocef.backends import duckdb_cursor

    con = duckdb_cursor()
    try:
        src = _duckdb_source(pairs, "pairs", con)
        cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()]
        _check_columns(cols, cluster, need_scores=scores is None)
        z = "z" if "z" in cols else "0"
        q = lambda c: '"' + c.replace('"', '""') + '"'
        if scores is None:
            body = f"SELECT {q(cluster)} AS cl, j, jp, s_j, s_jp, {z} AS z, score_j AS a, score_jp AS b FROM {src}"
        else:
            ssrc = _duckdb_source(scores, "scores", con)
            scols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {ssrc}").fetchall()]
            _check_score_columns(scols)
            on = "AND p.query = {t}.query" if "query" in scols else ""
            body = (f"SELECT p.{q(cluster)} AS cl, p.j, p.jp, p.s_j, p.s_jp, {'p.z' if z == 'z' else '0'} AS z, "
                    f"x.score AS a, y.score AS b FROM {src} p "
                    f"LEFT JOIN {ssrc} x ON x.item = p.j {on.format(t='x')} "
                    f"LEFT JOIN {ssrc} y ON y.item = p.jp {on.format(t='y')}")
        # pass 1: the distinct groups and levels, and the invalid rows
        found = con.execute(
            f"SELECT list(DISTINCT s_j), list(DISTINCT s_jp), list(DISTINCT z), count(*) FILTER (WHERE j = jp), "
            f"count(*) FILTER (WHERE a IS NULL OR b IS NULL OR NOT isfinite(a::DOUBLE) OR NOT isfinite(b::DOUBLE)), "
            f"count(*) FILTER (WHERE s_j IS NULL OR s_jp IS NULL OR z IS NULL OR cl IS NULL), count(*) "
            f"FROM ({body})").fetchone()
        # an item scored twice joins its pairs twice (the pandas engine refuses such scores too); the
        # pairs' own count is free for Parquet and DataFrames, a GROUP BY of the scores is not
        if scores is not None and found[6] > con.execute(f"SELECT count(*) FROM {src}").fetchone()[0]:
            keys = "query/item" if "query" in scols else "item"
            raise DataError(f"scores has several rows for the same {keys} (the pairs would count twice)")
        if found[3]:
            raise DataError(f"pairs: the clicked item j is also the unclicked item jp in {found[3]} row(s); "
                             "each pair needs two items")
        where = (" in " + ", ".join(str(o) for o in (pairs, scores) if _is_path(o))
                 if _is_path(pairs) or _is_path(scores) else "")
        if found[0] is None:                 # issue 23: an empty pairs file said "'NoneType' object is not iterable"

            raise DataError(f"pairs{where} has no row (only a header): give at least one randomized pair")
        if found[4]:

            raise DataError(
                f"pairs{where}: {found[4]} of {found[6]} pair(s) have a missing or non-finite score "
                + ("(their items j/jp have no score in scores, or a non-finite one)" if scores is not None
                   else "in column score_j or score_jp (NaN, inf or empty)"))
        if found[5]:
            raise DataError(f"{found[5]} pair(s) have a missing query, group or engagement value")
        names, mapping = group_mapping(list(found[0]) + list(found[1]), subgroup)
        zl, pos = _z_levels(list(found[2]), z_levels)
        # pass 2: integer codes only (groups and levels mapped in SQL), no grouping by cluster
        g_case = "CASE {col} " + " ".join("WHEN ? THEN " + str(int(g)) for g in mapping.values()) + " END"
        z_case = "CASE z " + " ".join("WHEN ? THEN " + str(int(i)) for i in pos.values()) + " END"
        params = list(mapping) + list(mapping) + list(pos)
        codes = con.execute(
            f"SELECT cl, {g_case.format(col='s_j')} AS g_j, {g_case.format(col='s_jp')} AS g_jp, {z_case} AS zi, "
            f"(CASE WHEN a > b THEN 2 WHEN a = b THEN 1 ELSE 0 END) AS o FROM ({body})", params).fetchnumpy()
    except duckdb.Error as exc:            # e.g. a score that is not a number: one clear ValueError
        files = ", ".join(str(o) for o in (pairs, scores) if _is_path(o))
        raise DataError(f"DuckDB cannot read the pairs{' (' + files + ')' if files else ''}: "
                         f"{str(exc).splitlines()[0]}") from None
    finally:
        con.close()
    return _counts_from_codes(_plain(codes["cl"]), _plain(codes["g_j"]), _plain(codes["g_jp"]), _plain(codes["zi"]),
                              _plain(codes["o"]), None, names, zl, cluster)


def _plain(values) -> np.ndarray:
    """DuckDB may return masked or object arrays; give a plain numpy array."""
    return np.ma.getdata(values) if isinstance(values, np.ma.MaskedArray) else np.asarray(values)
