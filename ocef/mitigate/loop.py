"""The mitigate → re-audit loop: re-rank any recommender's candidates, write the re-ranked top-k
logs and judge each setting against the unmitigated top-k over the same users.

For each method and grid point of :data:`ocef.mitigate.rerank.RERANKERS`, the candidates (``user,
item, score``) are streamed from DuckDB a chunk of users at a time, re-ranked, written as a top-k
log (docs/formats/rankings.md) and reduced to per-user vectors whose moments give, for every
statistic (exposure shares and their disparity, exposure/merit, AWRF, NDKL; nDCG, precision and
recall against held-out relevance; the expected score), the estimate under the remedy and the
baseline and their **paired** difference (:mod:`ocef.mitigate.paired`), all Holm-adjusted as one
family; each grid point also gets its equivalence certificate and, with ``preferences=``, OCEF's
envy audit. Stochastic methods are written as ``samples`` draws per user, which ``ocef exposure``
averages as the loop does. The statistics and the measured coverage: ``docs/guide/mitigate.md``.
"""
from __future__ import annotations

import dataclasses
import os
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.results import Result
from ocef.validation import Integer, Label, Name, OneOrMore, Options, OrNone, Real, as_generator, validate_params
from ocef._progress import PROGRESS

__all__ = ["MitigationResult", "mitigate", "arm_values", "METHODS", "STATISTICS"]

#: the methods of ``ocef mitigate --method`` (the keys of ocef.mitigate.rerank.RERANKERS)
METHODS = ("fair", "detconstsort", "epsilon-greedy", "calibrated", "lp", "expohedron", "boost")
#: statistics of the re-audit: (name, needs held-out relevance, per item group)
STATISTICS = (("share", False, True), ("disparity", False, False), ("exposure_merit", True, True),
              ("awrf", False, False), ("ndkl", False, False), ("expected_score", False, False),
              ("ndcg", True, False), ("precision", True, False), ("recall", True, False))
_ALL = "(all)"
#: DuckDB's memory limit during :func:`mitigate` when none is given or in force (beyond it DuckDB spills to
#: the system's temporary folder): the loop's own memory is about 1 GB at any number of users
DEFAULT_MEMORY_LIMIT = "1GB"


# ------------------------------------------------------------------ per-user values of one arm

def arm_values(rankings, groups, scores, *, n_groups: int, target, relevance=None, n_relevant=None,
               browsing: str = "geometric", patience: float = 0.5) -> dict:
    """Per-user values of one arm from its rankings of the users' candidates.

    Parameters
    ----------
    rankings : array_like of int, shape (n_users, S, k)
        S rankings per user (S = 1 for a deterministic list; a user's rankings are averaged),
        each a list of candidate indices.
    groups : array_like of int, shape (n_users, N)
        Item-group code (0..n_groups-1) of each candidate.
    scores : array_like of float, shape (n_users, N)
        The model's score of each candidate.
    n_groups : int
    target : array_like of float, shape (n_groups,)
        Target group distribution of AWRF and NDKL.
    relevance : array_like of float, shape (n_users, N), optional
        Held-out relevance of each candidate (0 = not relevant or not judged).
    n_relevant : array_like of float, shape (n_users,), optional
        Held-out relevant items of each user in the whole catalog (recall, ideal DCG).
    browsing : {"geometric", "dcg"}
    patience : float

    Returns
    -------
    dict
        ``exposure`` (n_users, n_groups): exposure of each item group (mean over the rankings);
        ``awrf``, ``ndkl``, ``expected_score`` (n_users,); with relevance also ``ndcg``,
        ``precision``, ``recall`` (NaN for a user without held-out relevant item).

    Examples
    --------
    >>> v = arm_values([[[1, 0]]], [[0, 1, 1]], [[0.9, 0.5, 0.1]], n_groups=2, target=[0.5, 0.5],
    ...                relevance=[[1.0, 0.0, 0.0]], n_relevant=[1.0])
    >>> v["exposure"].tolist(), round(float(v["ndcg"][0]), 4), float(v["precision"][0])
    ([[0.5, 1.0]], 0.6309, 0.5)
    """
    from ocef.exposure.formulas import attention_weights_trec, awrf_rows, ndkl_rows, position_weights
    from ocef.exposure.user_metrics import list_aggregates, list_values

    R = np.asarray(rankings, dtype=np.int64)
    g = np.asarray(groups)
    s = np.asarray(scores, dtype=float)
    n, S, k = R.shape
    rows = np.arange(n)[:, None, None]
    codes = g[rows, R]                                             # (n, S, k)
    w = position_weights(np.arange(1, k + 1), browsing=browsing, patience=patience)
    X = np.zeros((n, n_groups))
    for gi in range(n_groups):
        X[:, gi] = ((codes == gi) * w).sum(axis=(1, 2)) / S
    t = np.asarray(target, dtype=float)
    onehot = codes.reshape(n * S, k)[..., None] == np.arange(n_groups)
    out = {"exposure": X,
           "awrf": awrf_rows(onehot, t, weights=attention_weights_trec(k)).reshape(n, S).mean(axis=1),
           "ndkl": ndkl_rows(onehot, t).reshape(n, S).mean(axis=1),
           "expected_score": (s[rows, R] * w).sum(axis=2).mean(axis=1) / w.sum()}
    if relevance is not None:
        y = np.asarray(relevance, dtype=float)[rows, R].reshape(n * S, k)
        nrel = np.repeat(np.asarray(n_relevant, dtype=float), S)
        a = list_aggregates(y, k, nrel)
        for name in ("ndcg", "precision", "recall"):
            out[name] = list_values(name, a).reshape(n, S).mean(axis=1)
    return out


# ------------------------------------------------------------------ the result

def _example():
    """A small result for the examples: 60 users, 6 candidates, the boost of the tail."""
    g = np.random.default_rng(0)
    cand = pd.DataFrame({"user": np.repeat(np.arange(60), 6), "item": np.tile(np.arange(6), 60),
                         "score": g.random(360), "pop": np.tile(["head"] * 3 + ["tail"] * 3, 60)})
    return mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.5}], k=3, protected="tail", rng=0)


@dataclasses.dataclass(frozen=True)
class MitigationResult(Result):
    """The mitigate → re-audit loop's result (:func:`mitigate`).

    Attributes
    ----------
    statistics : pandas.DataFrame
        One row per (method, point, user group, statistic, item group, arm) with ``arm`` in
        ``baseline, mitigated, difference`` (difference: paired with the baseline over the same users):
        ``estimate, ci_low, ci_high, confidence, p_value, p_adjusted, significant, n_users, reason``.
    points : pandas.DataFrame
        One row per grid point (and the baseline): utility, disparity and their paired differences,
        the certificate, the envy verdict, ``on_front`` and the written log.
    family : str
        The family of the Holm adjustment.
    settings : dict
        ``k, browsing, patience, target, margin, confidence, n_users, utility, samples``.
    envy : pandas.DataFrame or None
        OCEF's per-group verdicts of each point (when preferences were given).

    Examples
    --------
    >>> res = _example()
    >>> res.points["method"].tolist(), res.settings["utility"]
    (['baseline', 'boost'], 'expected_score')
    """

    statistics: pd.DataFrame
    points: pd.DataFrame
    family: str
    settings: dict
    envy: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """The ``statistics`` table (tidy: one row per statistic and arm).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> sorted(set(_example().to_frame()["arm"]))
        ['baseline', 'difference', 'mitigated']
        """
        return self.statistics

    def to_dict(self) -> dict:
        """Strict JSON: ``points``, ``front`` (the non-dominated points), ``statistics``, ``family``,
        ``settings``, ``envy``.

        Returns
        -------
        dict

        Examples
        --------
        >>> sorted(_example().to_dict())
        ['envy', 'family', 'front', 'points', 'settings', 'statistics']
        """
        from ocef.results import jsonable

        return {"points": jsonable(self.points), "front": jsonable(self.front()),
                "statistics": jsonable(self.statistics), "family": self.family,
                "settings": jsonable(self.settings), "envy": jsonable(self.envy)}

    def front(self) -> pd.DataFrame:
        """The non-dominated points (highest utility, lowest disparity; point estimates), by disparity.

        Returns
        -------
        pandas.DataFrame
            The rows of ``points`` with ``on_front``.

        Examples
        --------
        >>> bool(_example().front()["on_front"].all())
        True
        """
        return self.points[self.points["on_front"]].sort_values("disparity").reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """The points table (one row per grid point and the baseline).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> len(_example().summary())
        2
        """
        return self.points

    def plot(self, ax=None, path=None):
        """Utility against disparity of every point, paired intervals as error bars, the front joined.

        Each point's error bars are the baseline's value plus the paired interval of the difference
        (so their length is that of the paired interval, not of two unpaired ones).

        Parameters
        ----------
        ax : matplotlib Axes, optional
        path : str or Path, optional
            Save the figure there (PNG).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> _example().plot().get_xlabel().startswith("disparity")
        True
        """
        import matplotlib

        if ax is None:
            matplotlib.use("Agg") if path is not None and matplotlib.get_backend() == "" else None
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(7, 4.5))
        p = self.points
        base = p[p["method"] == "baseline"].iloc[0]
        colors = {}
        for method, rows in p[p["method"] != "baseline"].groupby("method", sort=False):
            x, y = rows["disparity"].to_numpy(float), rows["utility"].to_numpy(float)
            xerr = np.abs(np.vstack([base["disparity"] + rows["disparity_diff_low"] - x,
                                     base["disparity"] + rows["disparity_diff_high"] - x]))
            yerr = np.abs(np.vstack([base["utility"] + rows["utility_diff_low"] - y,
                                     base["utility"] + rows["utility_diff_high"] - y]))
            eb = ax.errorbar(x, y, xerr=np.nan_to_num(xerr), yerr=np.nan_to_num(yerr), fmt="o", capsize=2,
                             label=method, alpha=0.85)
            colors[method] = eb[0].get_color()
        ax.plot([base["disparity"]], [base["utility"]], "k*", markersize=12, label="baseline (unmitigated)")
        f = self.front()
        ax.plot(f["disparity"], f["utility"], "k--", linewidth=0.8, label="front (non-dominated)")
        ax.set_xlabel(f"disparity (total variation from {self.settings['target']} exposure)")
        ax.set_ylabel(f"{self.settings['utility']}@{self.settings['k']}")
        ax.set_title("utility vs disparity; bars: intervals paired with the baseline", fontsize=10)
        ax.legend(fontsize=8)
        if path is not None:
            ax.figure.tight_layout()
            ax.figure.savefig(path, dpi=120)
        return ax


# ------------------------------------------------------------------ reading the candidates

def _open(candidates, relevance, item_group, user_group, item_groups):
    """A DuckDB cursor with temp views ``c`` (candidates [+ side groups]) and ``r`` (relevance)."""
    from ocef.backends import _check_path, _is_parquet, _lit, _parquet_pattern, duckdb_cursor

    con = duckdb_cursor()
    tag = uuid.uuid4().hex[:10]
    names = {"c": f"_mit_c_{tag}", "r": f"_mit_r_{tag}", "ig": f"_mit_ig_{tag}"}

    def view(name, src, what):
        if isinstance(src, pd.DataFrame):
            con.register(name + "_df", src)
            con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM {name}_df")
            return
        if not isinstance(src, (str, os.PathLike)):
            raise ParameterError(f"{what} must be a file, folder, glob or pandas DataFrame, got {type(src).__name__}")
        try:
            path = _check_path(src)
        except FileNotFoundError as exc:
            raise DataError(f"{what}: {exc}") from None
        if _is_parquet(path):
            con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM read_parquet({_lit(_parquet_pattern(path))}, "
                        "hive_partitioning = true)")
        else:
            con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM read_csv({_lit(os.fspath(path))}, header = true)")

    view(names["c"], candidates, "candidates")
    have = [r[0] for r in con.execute(f"DESCRIBE {names['c']}").fetchall()]
    need = ["user", "item", "score"] + ([user_group] if user_group else [])
    if item_groups is None:
        need.append(item_group)
    missing = [c for c in need if c not in have]
    if missing:
        raise DataError(f"candidates: missing column(s) {missing} (have {have}); need user, item, score, "
                        f"the item-group column{' and the user-group column' if user_group else ''}")
    if item_groups is not None:
        view(names["ig"], item_groups, "item_groups")
        ig_have = [r[0] for r in con.execute(f"DESCRIBE {names['ig']}").fetchall()]
        if "item" not in ig_have or item_group not in ig_have:
            raise DataError(f"item_groups: needs columns item and {item_group!r}, has {ig_have}")
        cols = ", ".join(f'c."{h}"' for h in have if h != item_group)
        con.execute(f"CREATE TEMP VIEW {names['c']}_j AS SELECT {cols}, g.\"{item_group}\" FROM {names['c']} c "
                    f"LEFT JOIN {names['ig']} g ON c.item = g.item")
        names["c"] = names["c"] + "_j"
    if relevance is not None:
        view(names["r"], relevance, "relevance")
        r_have = [r[0] for r in con.execute(f"DESCRIBE {names['r']}").fetchall()]
        miss = [c for c in ("user", "item", "relevance") if c not in r_have]
        if miss:
            raise DataError(f"relevance: missing column(s) {miss} (have {r_have}); need user, item, relevance")
    return con, names


def _stream_sql(names, item_group, user_group, has_rel) -> str:
    """The candidates joined with the held-out relevance, unordered (``_u, _i, _s, _g[, _ug][, _y, _nrel]``)."""
    c, r = names["c"], names["r"]
    sel = ['c."user" AS _u', 'c.item AS _i', 'CAST(c.score AS DOUBLE) AS _s', f'c."{item_group}" AS _g']
    if user_group:
        sel.append(f'c."{user_group}" AS _ug')
    join = ""
    if has_rel:
        sel += ["coalesce(CAST(rr.relevance AS DOUBLE), 0.0) AS _y", "coalesce(nr._nrel, 0) AS _nrel"]
        join = (f" LEFT JOIN (SELECT \"user\", item, max(relevance) AS relevance FROM {r} GROUP BY ALL) rr "
                f"ON c.\"user\" = rr.\"user\" AND c.item = rr.item"
                f" LEFT JOIN (SELECT \"user\", count(DISTINCT item) FILTER (WHERE relevance > 0) AS _nrel FROM {r} "
                f"GROUP BY \"user\") nr ON c.\"user\" = nr.\"user\"")
    return f"SELECT {', '.join(sel)} FROM {c} c{join}"


_ORDER = " ORDER BY _u"      # DuckDB only brings each user's rows together; their order is compiled (order_users)


def _runs(con, table) -> int:
    """The number of runs of equal users in the scan order of ``table`` (one pass over the user column)."""
    import pyarrow as pa

    runs, last = 0, None
    for batch in con.sql(f'SELECT "user" FROM {table}').to_arrow_reader(1 << 20):
        if not batch.num_rows:
            continue
        u = batch.column(0)
        v = u.to_numpy(zero_copy_only=False) if pa.types.is_integer(u.type) else \
            np.asarray(u.cast(pa.string()).to_pylist(), dtype=object)
        runs += int(np.count_nonzero(v[1:] != v[:-1])) + int(last is None or v[0] != last)
        last = v[-1]
    return runs


_INTEGER = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
#: the largest bit sets of :func:`_scan_counts` (distinct users, distinct (item group, item) pairs)
_BITSET_BYTES = 1 << 27


def _scan_counts(con, names, item_group, labels, catalogue: bool) -> dict | None:
    """Rows, bad rows, runs of users (scan order), distinct users and, with ``catalogue``, distinct items
    per item group code, in one pass over the candidates with bit sets of the integer keys.

    The counts ``count(DISTINCT ...)`` gives, without its hash tables (10^7 distinct items took 2.1 CPU s
    per 10^7 rows, and the aggregate 9.45 GB at 10^7 users): one bit per key of the users' and items' ranges,
    at most ``_BITSET_BYTES`` in all. None when ``user`` or ``item`` is not an integer column or the
    ranges are wider (the caller then asks DuckDB).
    """
    from ocef.mitigate._select import count_bits, mark_bits

    c = names["c"]
    types = {r[0]: str(r[1]) for r in con.execute(f"DESCRIBE {c}").fetchall()}
    if types.get("user") not in _INTEGER or types.get("item") not in _INTEGER:
        return None
    lo_u, hi_u, lo_i, hi_i = con.execute(
        f'SELECT min("user"), max("user"), min(item), max(item) FROM {c}').fetchall()[0]
    if lo_u is None or lo_i is None or max(abs(lo_u), abs(hi_u), abs(lo_i), abs(hi_i)) >= 2 ** 62:
        return None
    stride = ((hi_i - lo_i) // 8 + 1) * 8 if catalogue else 0          # bits of one item group's items
    if (hi_u - lo_u) // 8 + 1 + len(labels) * stride // 8 > _BITSET_BYTES:
        return None
    users = np.zeros((hi_u - lo_u) // 8 + 1, np.uint8)
    items = np.zeros(len(labels) * stride // 8, np.uint8)
    cols = '"user", item, ("user" IS NULL OR item IS NULL OR score IS NULL OR isnan(CAST(score AS DOUBLE))) AS bad'
    if catalogue:
        cols += f', CAST(list_position($labels, "{item_group}") - 1 AS BIGINT) AS g'
    rows = bad = runs = 0
    last = None
    reader = con.sql(f"SELECT {cols} FROM {c}", params={"labels": list(labels)} if catalogue else None)
    for batch in reader.to_arrow_reader(1 << 20):
        rows += batch.num_rows
        n_bad = int(np.count_nonzero(batch.column(2).to_numpy(zero_copy_only=False)))
        bad += n_bad
        if bad or not batch.num_rows:                  # an error follows: count the bad rows only
            continue
        u = batch.column(0).to_numpy().astype(np.int64, copy=False)
        first = np.flatnonzero(np.r_[last is None or u[0] != last, u[1:] != u[:-1]])     # the first row of each run
        runs += first.size
        last = u[-1]
        mark_bits(users, u[first] - lo_u)
        if catalogue:
            g = batch.column(3).to_numpy(zero_copy_only=False)
            if g.dtype.kind == "f" and np.isnan(g).any():
                return None                           # an item group outside the labels: the SQL path's answer
            i = batch.column(1).to_numpy().astype(np.int64, copy=False)
            mark_bits(items, i - lo_i + g.astype(np.int64) * stride)
    out = {"rows": rows, "bad": bad, "runs": runs, "users": int(count_bits(users))}
    if catalogue:
        per = stride // 8
        out["items"] = {g: int(count_bits(items[g * per:(g + 1) * per])) for g in range(len(labels))}
    return out


def _user_blocks(con, sql, rows_per_batch, parts: int = 1, clustered: bool = False, note=None):
    """Yield Arrow tables of whole users (each user's rows contiguous, in no particular order).

    ``clustered`` (each user's rows already contiguous in the input, checked by :func:`_runs`): the
    input is streamed once in its own order, no sort. Otherwise with ``parts > 1`` the rows are first
    written once to ``parts`` hash partitions of the users (Parquet, in a temporary folder; one scan
    of the input) and each partition is grouped by user by DuckDB and streamed on its own: the sort's
    memory is bounded by a partition, not by the whole candidates table. ``note(text)`` is told of
    the partitioning pass (the progress bar's postfix).
    """
    import shutil
    import tempfile

    import pyarrow as pa

    from ocef.backends import _lit

    spill = None
    try:
        if clustered:
            queries = [sql]
        elif parts == 1:
            queries = [sql + _ORDER]
        else:
            spill = Path(tempfile.mkdtemp(prefix="ocef-mitigate-"))
            if note is not None:
                note(f"grouping the users: {parts} hash partitions")
            con.execute("SET partitioned_write_flush_threshold = 65536")
            con.execute(f"COPY (SELECT *, hash(_u) % {parts} AS _p FROM ({sql})) TO {_lit(os.fspath(spill))} "
                        "(FORMAT parquet, PARTITION_BY (_p), COMPRESSION snappy)")
            con.execute("RESET partitioned_write_flush_threshold")
            queries = [f"SELECT * FROM read_parquet({_lit(os.fspath(d / '*.parquet'))}, "
                       f"hive_partitioning = false){_ORDER}" for d in sorted(spill.glob("_p=*"))]
            if note is not None:
                note("")
        for q in queries:
            reader = con.sql(q).to_arrow_reader(rows_per_batch)
            carry = None
            for batch in reader:
                tbl = pa.Table.from_batches([batch])
                if carry is not None:
                    tbl = pa.concat_tables([carry, tbl])
                if not tbl.num_rows:
                    continue
                tbl = tbl.combine_chunks()
                u = _codes(tbl.column("_u"))
                cut = int(np.flatnonzero(u != u[-1])[-1]) + 1 if (u != u[-1]).any() else 0
                carry = tbl.slice(cut)
                if cut:
                    yield tbl.slice(0, cut)
            if carry is not None and carry.num_rows:
                yield carry
            del reader
    finally:
        if spill is not None:
            shutil.rmtree(spill, ignore_errors=True)


def _codes(col) -> np.ndarray:
    """Integer codes of an Arrow column, equal where the values are equal (the values when integer)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_integer(col.type) and not col.null_count:
        return col.to_numpy()
    return pc.dictionary_encode(col, null_encoding="encode").indices.to_numpy(zero_copy_only=False)


def _sort_keys(col) -> np.ndarray:
    """Integer keys ordered as the values of an Arrow column (the values when integer, else their dense rank)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_integer(col.type):
        return col.to_numpy().astype(np.int64, copy=False)
    return pc.rank(col, sort_keys="ascending", tiebreaker="dense").to_numpy().astype(np.int64)


# ------------------------------------------------------------------ the loop

def _grid_points(method, grid, protected_code, labels):
    from ocef.mitigate.rerank import get_reranker

    methods = [method] if isinstance(method, str) else list(method)
    if not methods:
        raise ParameterError("method must name at least one re-ranking method")
    points = []
    for m in methods:
        r = get_reranker(m)
        g = grid.get(m) if isinstance(grid, dict) else grid
        default = g is None
        if default:
            g = r.grid
        if isinstance(g, dict):
            g = [g]
        if not isinstance(g, (list, tuple)) or not g:
            raise ParameterError(f"grid must be a non-empty list of parameter dicts, got {grid!r}")
        for i, params in enumerate(g):
            if not isinstance(params, dict):
                raise ParameterError(f"grid[{i}] must be a dict of parameters, got {params!r}")
            params = dict(params)
            if isinstance(params.get("protected"), str) and params["protected"] in labels:
                params["protected"] = labels.index(params["protected"])   # a group label -> its code
            if protected_code is not None and "protected" in r.params and (default or "protected" not in params):
                params["protected"] = protected_code          # --protected GROUP overrides the default grid's
            try:
                full = r.check_params(params)
            except (ParameterError, ParameterTypeError) as exc:     # name the grid point (--grid in the command)
                raise type(exc)(f"grid[{i}] of method {m!r}: {exc}") from None
            shown = {k: (labels[v] if k == "protected" and isinstance(v, int) and 0 <= v < len(labels) else v)
                     for k, v in full.items()}
            points.append({"method": m, "point": len([p for p in points if p["method"] == m]), "params": full,
                           "label": ",".join(f"{k}={v}" for k, v in shown.items()) or "(defaults)", "reranker": r})
    return points


def _rerank_chunk(pt, scores, groups, k, samples, rng):
    """(rankings (n, S, k), probability (n, S) or None) of one grid point on a block of users."""
    from ocef.mitigate.rerank import rerank_batch

    r = pt["reranker"]
    n = scores.shape[0]
    if r.batch is not None and not r.stochastic:
        return rerank_batch(pt["method"], scores, groups, k, **pt["params"])[:, None, :], None
    S = samples if r.stochastic else 1
    R = np.empty((n, S, k), dtype=np.int64)
    P = np.empty((n, S))
    try:
        for u in range(n):
            lot = r.rerank(scores[u], groups[u], k, rng=rng, **pt["params"])
            if lot.rankings.shape[0] == 1 and r.stochastic and S > 1:       # a randomized method: S independent draws
                R[u, 0], P[u, 0] = lot.rankings[0], lot.probabilities[0]
                for s in range(1, S):
                    lot = r.rerank(scores[u], groups[u], k, rng=rng, **pt["params"])
                    R[u, s], P[u, s] = lot.rankings[0], lot.probabilities[0]
            else:
                j = rng.choice(lot.rankings.shape[0], size=S, p=lot.probabilities) if S > 1 else \
                    np.array([int(np.argmax(lot.probabilities))])
                R[u], P[u] = lot.rankings[j], lot.probabilities[j]
    except (DataError, ParameterError) as exc:          # name the method and the setting that failed
        err = type(exc)(f"method {pt['method']!r} ({pt['label']}) failed on a user's candidates: {exc}")
        err.method = pt["method"]
        raise err from None
    return R, (P if r.stochastic else None)


def _log_table(tbl, idx, R, P, s_all, y_all, nrel_all, item_group, user_group):
    """The top-k log of one arm on a block of users, as an Arrow table (columns taken, no pandas)."""
    import pyarrow as pa

    n, S, k = R.shape
    at = idx[np.arange(n)[:, None, None], R].ravel()          # row of the block of each listed candidate
    data = {"user": tbl.column("_u").take(at), "item": tbl.column("_i").take(at),
            "rank": np.tile(np.arange(1, k + 1), n * S), "score": s_all[at], item_group: tbl.column("_g").take(at)}
    if user_group:
        data[user_group] = tbl.column("_ug").take(at)
    if y_all is not None:
        data["relevance"] = y_all[at]
        data["n_relevant"] = nrel_all[at]
    if P is not None:
        data["sample"] = np.tile(np.repeat(np.arange(S), k), n)
        data["probability"] = np.repeat(P.ravel(), k)
    return pa.table(data)


class _Writer:
    """A Parquet log written in row groups of about ``ROW_GROUP`` rows under a temporary name."""

    ROW_GROUP = 1 << 20

    def __init__(self, path):
        self.path, self.writer, self.buffer, self.rows = Path(path), None, [], 0

    def write(self, table):
        self.buffer.append(table)
        self.rows += table.num_rows
        if self.rows >= self.ROW_GROUP:
            self._flush()

    def _flush(self):
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.buffer:
            return
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.tmp = self.path.with_name("." + self.path.name + ".part")
            self.writer = pq.ParquetWriter(self.tmp, self.buffer[0].schema)
        table = pa.concat_tables([t.cast(self.writer.schema) for t in self.buffer])
        self.writer.write_table(table, row_group_size=max(table.num_rows, 1))
        self.buffer, self.rows = [], 0

    def close(self, complete: bool = True):
        """Finish the file; an interrupted run leaves no partial log under the final name."""
        if complete:
            self._flush()
        self.buffer = []
        if self.writer is not None:
            self.writer.close()
            if complete:
                os.replace(self.tmp, self.path)
            else:
                os.unlink(self.tmp)


def _layout(G, has_rel):
    """Index of each block of the per-user vector of the 'all users' moments."""
    idx, at = {}, 0
    for name, size in (("Xb", G), ("Xm", G), ("awrf", 2), ("ndkl", 2), ("expected_score", 2),
                       ("M", G if has_rel else 0)):
        idx[name] = np.arange(at, at + size)
        at += size
    return idx, at


@validate_params(item_group=Name(), user_group=Name(none=True), method=OneOrMore(Name(), max_size=100),
                 protected=OrNone(Label()), k=Integer(1, 2 ** 31 - 1), confidence=Real(0.5, 1.0, closed="neither"), margin=Real(0.0, 1.0, closed="neither"),
                 target=Options("catalogue", "equal", "merit"), browsing=Options("geometric", "dcg"),
                 patience=Real(0.0, 1.0, closed="neither"), samples=Integer(1, 10000),
                 chunk_users=Integer(1, 10 ** 9), progress=PROGRESS, envy_epsilon=Real(0.0, 1.0, closed="right"),
                 envy_alpha=Real(0.0, 1.0, closed="right"))
def mitigate(candidates, *, item_group: str, user_group: str | None = None, method="boost", grid=None, k: int = 10,
             relevance=None, protected=None, out=None, confidence: float = 0.95, margin: float = 0.05,
             target: str = "catalogue", browsing: str = "geometric", patience: float = 0.5, samples: int = 10,
             item_groups=None, preferences=None, envy_epsilon: float = 0.05, envy_alpha: float = 0.05,
             chunk_users: int = 20000, memory_limit: str | None = None, progress: bool = False,
             rng=None) -> MitigationResult:
    """Re-rank candidates with fair re-rankers and re-audit each setting against the unmitigated top-k.

    The statistics, the pairing, the family and the certificate: the module docstring and
    ``docs/guide/mitigate.md``.

    Parameters
    ----------
    candidates : str, path or pandas.DataFrame
        ``user, item, score``, the item-group column (and the user-group column): the system's top-N
        per user (N >= k), read by DuckDB in chunks of users.
    item_group : str
        Column of the candidates (or of ``item_groups``) giving each item's group.
    user_group : str, optional
        Column giving each user's group (constant per user).
    method : str or list of str, default "boost"
        Keys of :data:`ocef.mitigate.rerank.RERANKERS` (:data:`METHODS`).
    grid : list of dict, or dict {method: list of dict}, optional
        Parameter settings (default: each method's default grid).
    k : int, default 10
        Length of the re-ranked lists.
    relevance : str, path or pandas.DataFrame, optional
        Held-out relevance ``user, item, relevance`` (a split the candidates' model never saw): nDCG,
        precision, recall, the merit of exposure/merit and the ``"merit"`` target.
    protected : optional
        The protected item group, passed to the methods that take one.
    out : str or path, optional
        Folder for the logs: ``baseline.parquet`` and ``<method>/<point>.parquet``.
    confidence : float, default 0.95
        1 - δ of the intervals, of the family-wise error (Holm) and of the certificates.
    margin : float, default 0.05
        ε of the certificate, on the share scale.
    target : {"catalogue", "equal", "merit"}, default "catalogue"
        Target exposure shares, as ``ocef exposure``'s (:data:`ocef.exposure.shares.TARGETS`): each
        group's share of the candidates' distinct items (equal exposure per item), 1/G, or the held-out
        merit share of the candidates (pooled over the users). AWRF and NDKL use the same distribution.
    browsing : {"geometric", "dcg"}, default "geometric"
        Browsing model of the exposure.
    patience : float, default 0.5
        Its patience.
    samples : int, default 10
        Draws per user from a stochastic method's lottery.
    item_groups : str, path or pandas.DataFrame, optional
        Side table ``item, <item_group>``.
    preferences : array_like, shape (n_users, n_items), optional
        Known expected rewards ρ in [0, 1]: OCEF's envy audit of every point (needs ``user_group``).
    envy_epsilon, envy_alpha : float, default 0.05
        ε and α of OCEF.
    chunk_users : int, default 20000
        Users per chunk (the memory bound of the Python side). Candidates whose rows are already
        grouped by user are read once in their order; otherwise (or with ``relevance`` or
        ``item_groups``) beyond two chunks they are first written once to hash partitions of the users
        in the system's temporary folder (disk: about the size of the candidates).
    memory_limit : str, optional
        DuckDB's memory limit during the run (e.g. ``"4GB"``; beyond it DuckDB spills to the system's
        temporary folder); default: the limit in force (``ocef --memory-limit``,
        :func:`ocef.backends.set_memory_limit`), else 1 GB (``DEFAULT_MEMORY_LIMIT``).
    progress : bool, default False
        A progress bar with the time left (stderr).
    rng : None, int, SeedSequence or Generator
        Randomness of the stochastic methods and of the draws.

    Returns
    -------
    MitigationResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> g = np.random.default_rng(0)
    >>> cand = pd.DataFrame({"user": np.repeat(np.arange(60), 6), "item": np.tile(np.arange(6), 60),
    ...                      "score": g.random(360), "pop": np.tile(["head"] * 3 + ["tail"] * 3, 60)})
    >>> res = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.5}], k=3,
    ...                protected="tail", rng=0)
    >>> res.points[["method", "certificate"]].to_dict("list")["method"]
    ['baseline', 'boost']
    """
    from ocef.validation import parse_size

    gen = as_generator(rng)
    if memory_limit is not None:               # the one size syntax of every --memory-limit
        if not isinstance(memory_limit, str):
            raise ParameterError(f"memory_limit must be a size such as '512MB' or '2GB', got {memory_limit!r}")
        parse_size(memory_limit, "memory_limit")
    has_rel = relevance is not None
    if target == "merit" and not has_rel:
        raise ParameterError("target='merit' needs relevance (the held-out merit of the candidates)")
    if preferences is not None and user_group is None:
        raise ParameterError("preferences (the envy audit) need user_group: the groups OCEF compares")
    from ocef.backends import _MEMORY_LIMIT, memory_limited

    if memory_limit is None and _MEMORY_LIMIT["bytes"] is None:     # no --memory-limit / set_memory_limit in force
        memory_limit = DEFAULT_MEMORY_LIMIT
    # the limit covers every query of the run: the counts and the catalogue target before the loop too
    # (entered at the loop only, a 1 GB limit let the catalogue aggregate reach 10 GB at 10^7 users)
    with memory_limited(memory_limit):     # ocef.backends' one mechanism (the CLI's --memory-limit too)
        con, names = _open(candidates, relevance, item_group, user_group, item_groups)
        labels = [r[0] for r in con.execute(f'SELECT DISTINCT "{item_group}" FROM {names["c"]}').fetchall()]
        if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in labels):
            raise DataError(f"candidates: column {item_group!r} has missing item groups")
        labels = sorted(labels, key=lambda v: (str(type(v)), v))
        G = len(labels)
        if G < 2:
            raise DataError(f"candidates: column {item_group!r} has {G} item group; need at least 2")
        protected_code = None
        if protected is not None:
            if protected not in labels:
                raise ParameterError(f"protected must be an item group of {item_group!r} ({labels}), got {protected!r}")
            protected_code = labels.index(protected)
        points = _grid_points(method, grid, protected_code, labels)
        scan = _scan_counts(con, names, item_group, labels, catalogue=target == "catalogue")
        if scan is None:                        # keys not integers, or too wide a range: DuckDB's aggregates
            n_users_total, n_rows, n_bad = con.execute(
                f'SELECT count(DISTINCT "user"), count(*), count(*) FILTER (WHERE "user" IS NULL OR item IS NULL OR '
                f'score IS NULL OR isnan(CAST(score AS DOUBLE))) FROM {names["c"]}').fetchall()[0]
            scan = {}
        else:
            n_users_total, n_rows, n_bad = scan["users"], scan["rows"], scan["bad"]
        if n_bad:
            raise DataError(f"candidates: {n_bad} row(s) with a missing user, item or score")
        if not n_users_total:
            raise DataError("candidates: no rows")
        list_target = _target_shares(con, names, item_group, labels, target, has_rel, scan.get("items"))
        layout, dim = _layout(G, has_rel)
        out_dir = Path(out) if out is not None else None
        writers = {}
        if out_dir is not None:
            writers["baseline"] = _Writer(out_dir / "baseline.parquet")
            for pt in points:
                writers[(pt["method"], pt["point"])] = _Writer(out_dir / pt["method"] / f"point-{pt['point']:02d}.parquet")
        moments: dict = {}
        ug_seen: dict = {}

        def acc(key, ug_labels, block, z):
            from ocef.mitigate.paired import Moments

            for lab in [_ALL] + (sorted(set(ug_labels), key=str) if ug_labels is not None else []):
                sel = slice(None) if lab == _ALL else (ug_labels == lab)
                m = moments.setdefault((key, lab, block), Moments(z.shape[1]))
                m.add(z[sel])

        envy_pi = None
        if preferences is not None:
            rho = np.asarray(preferences, dtype=float)
            if rho.ndim != 2 or np.isnan(rho).any() or rho.min() < 0 or rho.max() > 1:
                raise DataError("preferences must be a (users, items) matrix of expected rewards in [0, 1]")
            envy_pi = {key: np.zeros_like(rho) for key in ["baseline"] + [(p["method"], p["point"]) for p in points]}
            envy_users = np.full(rho.shape[0], None, dtype=object)
        from ocef._progress import progress_bar

        bar = progress_bar(progress, total=int(n_users_total), desc="mitigate", unit="user")
        from ocef.exposure.formulas import position_weights
        from ocef.validation import check_resources

        # issue 28: --k 10**12 tried a 7 TiB array of position weights (a traceback)
        check_resources(f"k={k} (list length)", memory=8.0 * 4 * float(k))
        w = position_weights(np.arange(1, k + 1), browsing=browsing, patience=patience)
        sql = _stream_sql(names, item_group, user_group, has_rel)

        import pyarrow as pa
        import pyarrow.compute as pc

        from ocef.mitigate._select import order_users
        label_set = None
        complete = False
        rows_per_batch = max(chunk_users * -(-int(n_rows) // int(n_users_total)), 1024)   # about chunk_users users
        try:
            parts = max(1, -(-int(n_rows) // (2 * rows_per_batch)))     # partitions of about two chunks each
            # input already grouped by user (a recommender's per-user top-N usually is): one read, no sort
            if parts > 1:
                bar.set_postfix_str("checking that the users' rows are grouped")
            clustered = parts > 1 and not has_rel and item_groups is None and \
                (scan["runs"] if "runs" in scan else _runs(con, names["c"])) == n_users_total
            bar.set_postfix_str("")
            n_runs = 0
            for tbl in _user_blocks(con, sql, rows_per_batch, parts, clustered,
                                    note=bar.set_postfix_str):
                gcol = tbl.column("_g")
                if label_set is None or label_set.type != gcol.type:
                    label_set = pa.array(labels).cast(gcol.type)
                gcode_all = pc.index_in(gcol, value_set=label_set)
                if gcode_all.null_count:
                    raise DataError(f"candidates: {gcode_all.null_count} row(s) have no item group "
                                    f"(column {item_group!r} missing or not in item_groups)")
                gcode_all = gcode_all.to_numpy().astype(np.int64)
                ucode = _codes(tbl.column("_u"))
                starts = np.flatnonzero(np.r_[True, ucode[1:] != ucode[:-1]])
                counts = np.diff(np.r_[starts, ucode.size])
                n_runs += starts.size
                if counts.min() < k:
                    bad = tbl.column("_u")[int(starts[np.argmin(counts)])].as_py()
                    raise DataError(f"candidates: user {bad!r} has {counts.min()} candidate(s), fewer than k = {k}")
                if user_group:
                    ucol = tbl.column("_ug")
                    ugc = _codes(ucol)
                    if (ugc != np.repeat(ugc[starts], counts)).any():
                        raise DataError(f"candidates: a user has several values of {user_group!r}: a user group "
                                        "must be constant per user")
                s_all = tbl.column("_s").to_numpy()
                perm = order_users(s_all, _sort_keys(tbl.column("_i")), starts, counts)
                icode = _codes(tbl.column("_i"))
                y_all = tbl.column("_y").to_numpy() if has_rel else None
                nrel_all = tbl.column("_nrel").to_numpy().astype(float) if has_rel else None
                for N in np.unique(counts):
                    sel_u = np.flatnonzero(counts == N)
                    n = sel_u.size
                    # idx: row of the block of each user's candidates, by descending score (ties: item)
                    idx = perm.reshape(n, N) if n == starts.size else perm[starts[sel_u][:, None] + np.arange(N)]
                    scores, gc = s_all[idx], gcode_all[idx]
                    srt = np.sort(icode[idx], axis=1)
                    dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
                    if dup.any():
                        bad = tbl.column("_u")[int(idx[np.argmax(dup), 0])].as_py()
                        raise DataError(f"candidates: user {bad!r} lists an item twice")
                    first = idx[:, 0]
                    ug = ucol.take(first).to_numpy(zero_copy_only=False) if user_group else None
                    if ug is not None and pd.isna(ug).any():
                        raise DataError(f"candidates: the user-group column {user_group!r} has missing values")
                    rel = y_all[idx] if has_rel else None
                    nrel = nrel_all[first] if has_rel else None
                    if has_rel and (rel < 0).any():
                        raise DataError("relevance: values must be >= 0")
                    items = tbl.column("_i").to_numpy(zero_copy_only=False)[idx] if envy_pi is not None else None
                    base_R = np.broadcast_to(np.arange(k), (n, 1, k))
                    base = arm_values(base_R, gc, scores, n_groups=G, target=list_target, relevance=rel, n_relevant=nrel,
                                      browsing=browsing, patience=patience)
                    if "baseline" in writers:
                        writers["baseline"].write(_log_table(tbl, idx, base_R, None, s_all, y_all, nrel_all, item_group,
                                                             user_group))
                    if envy_pi is not None:
                        uid = tbl.column("_u").take(first).to_numpy(zero_copy_only=False)
                        _policy(envy_pi["baseline"], uid, items, base_R, w, rho.shape)
                        if ug is not None:
                            envy_users[np.asarray(uid, dtype=np.int64)] = ug
                    for pt in points:
                        key = (pt["method"], pt["point"])
                        R, P = _rerank_chunk(pt, scores, gc, k, samples, gen)
                        mit = arm_values(R, gc, scores, n_groups=G, target=list_target, relevance=rel, n_relevant=nrel,
                                         browsing=browsing, patience=patience)
                        if key in writers:
                            writers[key].write(_log_table(tbl, idx, R, P, s_all, y_all, nrel_all, item_group, user_group))
                        if envy_pi is not None:
                            _policy(envy_pi[key], uid, items, R, w, rho.shape)
                        parts_z = [base["exposure"], mit["exposure"]]
                        for name in ("awrf", "ndkl", "expected_score"):
                            parts_z.append(np.column_stack([base[name], mit[name]]))
                        if has_rel:
                            M = np.zeros((n, G))
                            for gi in range(G):
                                M[:, gi] = (rel * (gc == gi)).sum(axis=1)
                            parts_z.append(M)
                        acc(key, ug, "all", np.hstack(parts_z))
                        if has_rel:
                            ok = nrel > 0
                            zu = np.column_stack([base["ndcg"], mit["ndcg"], base["precision"], mit["precision"],
                                                  base["recall"], mit["recall"]])[ok]
                            acc(key, ug[ok] if ug is not None else None, "utility", zu)
                    if ug is not None:
                        for lab in set(ug.tolist()):
                            ug_seen[lab] = True
                    if bar is not None:
                        bar.update(n)
            if n_runs != n_users_total:                 # the second read of a clustered input in another order
                raise DataError(f"candidates: read {n_runs} runs of users for {n_users_total} users; the input "
                                "changed while it was read")
            complete = True
        finally:
            if bar is not None:
                bar.close()
            for wr in writers.values():
                wr.close(complete)
    return _result(points, moments, G, labels, layout, has_rel, ug_seen, target, margin, confidence, k, browsing,
                   patience, samples, n_users_total, out_dir, envy_pi, preferences, envy_users if envy_pi else None,
                   envy_epsilon, envy_alpha, gen, user_group, list_target=list_target)


def _policy(pi, uid, items, R, w, shape):
    """Add each user's attention distribution over items (position weights normalised, mean over samples)."""
    n, S, k = R.shape
    u = np.asarray(uid, dtype=np.int64)
    it = np.asarray(items)[np.arange(n)[:, None, None], R].astype(np.int64)
    if u.min() < 0 or u.max() >= shape[0] or it.min() < 0 or it.max() >= shape[1]:
        raise DataError(f"preferences: users and items of the candidates must be indices into the "
                        f"{shape[0]} x {shape[1]} preference matrix")
    np.add.at(pi, (np.repeat(u, S * k), it.ravel()), np.tile(w / w.sum() / S, n * S))


def _target_shares(con, names, item_group, labels, target, has_rel, items=None) -> np.ndarray:
    """The target distribution over the item groups (``labels`` order): the candidates' distinct items
    per group ("catalogue"; ``items``: their counts by group code when :func:`_scan_counts` counted
    them), 1/G ("equal"), or the relevance of the candidates per group ("merit", the pooled point
    estimate the share statistics use), for AWRF and NDKL and the fixed targets."""
    G = len(labels)
    if target == "equal":
        return np.full(G, 1.0 / G)
    c, r = names["c"], names["r"]
    if target == "catalogue" and items is not None:
        amount = items
    elif target == "catalogue":
        # the distinct (group code, item) pairs: fixed-width keys, so DuckDB's aggregate spills to disk under
        # a memory limit (count(DISTINCT item) GROUP BY a text label held 10^8 items in memory: 20 GB at 10^7 users)
        sql = (f'SELECT g, count(*) FROM (SELECT DISTINCT list_position(?, "{item_group}") - 1 AS g, item '
               f'FROM {c} WHERE item IS NOT NULL) GROUP BY 1')
    else:
        sql = (f'SELECT list_position(?, c."{item_group}") - 1, sum(coalesce(CAST(rr.relevance AS DOUBLE), 0.0)) '
               f'FROM {c} c LEFT JOIN (SELECT "user", item, max(relevance) AS relevance FROM {r} GROUP BY ALL) rr '
               f'ON c."user" = rr."user" AND c.item = rr.item GROUP BY 1')
    if not (target == "catalogue" and items is not None):
        amount = dict(con.execute(sql, [list(labels)]).fetchall())      # group code -> amount
    v = np.array([float(amount.get(g) or 0.0) for g in range(G)])
    if v.sum() <= 0:
        raise DataError("target='merit': no candidate has held-out relevance > 0")
    return v / v.sum()


def _stat_fns(G, layout, has_rel, target, list_target=None):
    """{(statistic, item group index or None): {arm: fn(mean vector)}} of the 'all' block."""
    from ocef.exposure.formulas import exposure_shares, share_disparity

    fixed = np.full(G, 1.0 / G) if list_target is None else np.asarray(list_target, dtype=float)

    def tgt(z):
        return exposure_shares(z[layout["M"]]) if target == "merit" else fixed

    def shares(z, arm):
        return exposure_shares(z[layout["X" + arm]])

    def tv(z, arm):
        return float(share_disparity(shares(z, arm), tgt(z))["total_variation"])

    fns = {}
    for g in range(G):
        fns[("share", g)] = {a: (lambda z, a=a, g=g: shares(z, a)[g]) for a in ("b", "m")}
        if has_rel:
            fns[("exposure_merit", g)] = {a: (lambda z, a=a, g=g: share_disparity(
                shares(z, a), exposure_shares(z[layout["M"]]))["ratio"][g]) for a in ("b", "m")}
    fns[("disparity", None)] = {a: (lambda z, a=a: tv(z, a)) for a in ("b", "m")}
    for j, name in enumerate(("awrf", "ndkl", "expected_score")):
        fns[(name, None)] = {"b": (lambda z, name=name: z[layout[name][0]]),
                             "m": (lambda z, name=name: z[layout[name][1]])}
    return fns, tgt, shares


def _result(points, moments, G, labels, layout, has_rel, ug_seen, target, margin, confidence, k, browsing, patience,
            samples, n_users_total, out_dir, envy_pi, preferences, envy_users, envy_epsilon, envy_alpha, gen,
            user_group, list_target=None):
    from ocef.inference import holm_adjust
    from ocef.mitigate.paired import delta_interval

    fns, tgt, shares = _stat_fns(G, layout, has_rel, target, list_target)
    ufns = {name: {"b": (lambda z, j=j: z[2 * j]), "m": (lambda z, j=j: z[2 * j + 1])}
            for j, name in enumerate(("ndcg", "precision", "recall"))}
    ug_labels = [_ALL] + sorted(ug_seen, key=str)
    rows, prow = [], []
    baseline_done = False
    for pt in points:
        key = (pt["method"], pt["point"])
        for lab in ug_labels:
            for block, table in (("all", fns), ("utility", ufns if has_rel else {})):
                mom = moments.get((key, lab, block))
                if mom is None:
                    continue
                for skey, f in table.items():
                    stat, g = skey if isinstance(skey, tuple) else (skey, None)
                    common = {"method": pt["method"], "point": pt["point"], "params": pt["label"], "user_group": lab,
                              "statistic": stat, "item_group": labels[g] if g is not None else None}
                    arms = [("mitigated", f["m"], None), ("difference", lambda z, f=f: f["m"](z) - f["b"](z), 0.0)]
                    if not baseline_done:
                        arms.insert(0, ("baseline", f["b"], None))
                    for arm, fn, null in arms:
                        r = delta_interval(mom, fn, confidence=confidence, null=null)
                        r.pop("df")
                        if stat == "disparity" and r["reason"] is None and _at_kink(mom, arm, G, shares, tgt, confidence):
                            r.update(se=np.nan, ci_low=np.nan, ci_high=np.nan, p_value=np.nan, reason=_KINK)
                        rows.append({**common, "arm": arm, **r})
        baseline_done = True
    stats = pd.DataFrame(rows)
    diff = stats["arm"] == "difference"
    stats["p_adjusted"] = np.nan
    stats.loc[diff, "p_adjusted"] = holm_adjust(stats.loc[diff, "p_value"].to_numpy(float))
    stats["significant"] = pd.array([None] * len(stats), dtype="boolean")
    ok = diff & stats["p_adjusted"].notna()
    stats.loc[ok, "significant"] = stats.loc[ok, "p_adjusted"] <= 1 - confidence
    n_tests = int(stats.loc[diff, "p_value"].notna().sum())
    family = (f"Holm over all {n_tests} paired differences of this call (statistics x item groups x user groups x "
              f"grid points x methods), family-wise error {1 - confidence:g}")
    util = "ndcg" if has_rel else "expected_score"
    # the points table: baseline + each grid point
    index = {(r["method"], r["point"], r["statistic"], r["arm"]): r for r in stats[
        (stats["user_group"] == _ALL) & stats["item_group"].isna()].to_dict("records")}

    def pick(pt_key, stat, arm):
        return index[(pt_key[0], pt_key[1], stat, arm)]

    def certificate(mom, arm):
        from ocef.mitigate.paired import share_certificate

        return share_certificate(mom, [lambda z, g=g: shares(z, arm)[g] - tgt(z)[g] for g in range(G)],
                                 margin=margin, confidence=confidence)

    envy = _envy(points, envy_pi, preferences, envy_users, envy_epsilon, envy_alpha, 1 - confidence, gen) \
        if envy_pi is not None else None
    first = (points[0]["method"], points[0]["point"])
    bu, bd = pick(first, util, "baseline"), pick(first, "disparity", "baseline")
    cert_b = certificate(moments[(first, _ALL, "all")], "b")
    prow.append({"method": "baseline", "point": -1, "params": "", "utility": bu["estimate"],
                 "utility_ci_low": bu["ci_low"], "utility_ci_high": bu["ci_high"], "utility_diff": 0.0,
                 "utility_diff_low": np.nan, "utility_diff_high": np.nan, "utility_p_adjusted": np.nan,
                 "disparity": bd["estimate"], "disparity_diff": 0.0, "disparity_diff_low": np.nan,
                 "disparity_diff_high": np.nan, "disparity_p_adjusted": np.nan,
                 "certificate": cert_b["certificate"], "certificate_p_within": cert_b["p_within"],
                 "certificate_p_outside": cert_b["p_outside"], "certificate_reason": cert_b["reason"],
                 "envy": envy["baseline"] if envy else None,
                 "log": str(out_dir / "baseline.parquet") if out_dir else None})
    for pt in points:
        key = (pt["method"], pt["point"])
        mu, du = pick(key, util, "mitigated"), pick(key, util, "difference")
        md, dd = pick(key, "disparity", "mitigated"), pick(key, "disparity", "difference")
        c = certificate(moments[(key, _ALL, "all")], "m")
        prow.append({"method": pt["method"], "point": pt["point"], "params": pt["label"], "utility": mu["estimate"],
                     "utility_ci_low": mu["ci_low"], "utility_ci_high": mu["ci_high"], "utility_diff": du["estimate"],
                     "utility_diff_low": du["ci_low"], "utility_diff_high": du["ci_high"],
                     "utility_p_adjusted": du["p_adjusted"], "disparity": md["estimate"],
                     "disparity_diff": dd["estimate"], "disparity_diff_low": dd["ci_low"],
                     "disparity_diff_high": dd["ci_high"], "disparity_p_adjusted": dd["p_adjusted"],
                     "certificate": c["certificate"], "certificate_p_within": c["p_within"],
                     "certificate_p_outside": c["p_outside"], "certificate_reason": c["reason"], "envy": envy[key] if envy else None,
                     "log": str(out_dir / pt["method"] / f"point-{pt['point']:02d}.parquet") if out_dir else None})
    pts = pd.DataFrame(prow)
    pts["on_front"] = _non_dominated(pts["utility"].to_numpy(float), pts["disparity"].to_numpy(float))
    settings = {"k": k, "browsing": browsing, "patience": patience, "target": target,
                "target_shares": None if list_target is None else [float(x) for x in list_target], "margin": margin,
                "confidence": confidence, "n_users": int(n_users_total), "utility": util, "samples": samples,
                "item_groups": labels, "user_group": user_group,
                "certificate_test": ("TOST (Schuirmann 1987) of |exposure share - target| < margin, every item group "
                                     "(intersection-union); outside: some group at delta/G"),
                "relevance": "held-out split (never the labels a setting was tuned on)" if has_rel else None}
    return MitigationResult(statistics=stats, points=pts, family=family, settings=settings,
                            envy=envy["table"] if envy else None)


_KINK = ("no interval: the total variation is not differentiable where an item group's share meets its target, "
         "and some group's share - target interval covers 0 (see the share rows and the certificate)")


def _at_kink(mom, arm, G, shares, tgt, confidence) -> bool:
    """Whether some group's share - target interval (in an arm the statistic uses) covers 0."""
    from ocef.mitigate.paired import delta_interval

    for a in (("b", "m") if arm == "difference" else ("b",) if arm == "baseline" else ("m",)):
        for g in range(G):
            r = delta_interval(mom, lambda z, g=g, a=a: shares(z, a)[g] - tgt(z)[g], confidence=confidence, null=None)
            if not (r["ci_low"] > 0 or r["ci_high"] < 0):
                return True
    return False


def _non_dominated(utility, disparity) -> np.ndarray:
    """Points no other point beats on both (utility higher or equal, disparity lower or equal, one strictly)."""
    n = utility.size
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        if not (np.isfinite(utility[i]) and np.isfinite(disparity[i])):
            keep[i] = False
            continue
        better = (utility >= utility[i]) & (disparity <= disparity[i]) & \
                 ((utility > utility[i]) | (disparity < disparity[i]))
        keep[i] = not better.any()
    return keep


def _envy(points, envy_pi, preferences, envy_users, epsilon, alpha, delta, gen):
    """OCEF's group envy audit of each policy: 'envy-free' (every group certified), 'envy' or 'inconclusive'."""
    from ocef.envy.audit import AuditProblem, run_audit

    rho = np.asarray(preferences, dtype=float)
    if any(v is None for v in envy_users):
        raise DataError("preferences: every user of the preference matrix must have candidates")
    names, codes = np.unique(envy_users.astype(str), return_inverse=True)
    out, table = {}, []
    for key, pi in envy_pi.items():
        problem = AuditProblem(rho, pi, codes, group_names=list(names))
        rep = run_audit(problem, alpha=alpha, delta=delta, epsilon=epsilon, rng=gen)
        v = rep.groups["verdict"].tolist()
        verdict = "envy" if "envy" in v else ("envy-free" if all(x == "no_envy" for x in v) else "inconclusive")
        out[key] = verdict
        m, p = key if key != "baseline" else ("baseline", -1)
        for _, r in rep.groups.iterrows():
            table.append({"method": m, "point": p, "user_group": r["name"], "verdict": r["verdict"],
                          "duration": r["duration"], "true_envy": r["true_envy"]})
    out["table"] = pd.DataFrame(table)
    return out
