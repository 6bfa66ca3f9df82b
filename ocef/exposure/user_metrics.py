"""The registry of per-user metrics: one entry per metric, everything the audit needs to know of it.

Two families share the registry:

- ``"list"``: metrics of the user's list that are functions of per-ranking aggregates — ``hits``
  (items with relevance > 0), ``dcg`` (``Σ 1/log2(k+1)`` over them), ``idcg`` (the ideal DCG of
  ``min(n_relevant or hits, k)`` items), ``n_relevant``, ``rr`` (1 / rank of the first relevant
  item, 0 without one) and the list length ``k``. An entry gives the value per ranking twice, as a
  numpy function of those arrays and as an SQL expression of the same columns
  (``_hits, _dcg, _idcg, _nrel, _rr``); :mod:`ocef.exposure.statistics` averages a user's
  rankings and returns the moments per user group. **Adding a list metric is one entry here.**
- ``"ranking"``: AWRF, NDKL and the expected-exposure metrics (Sapiezynski et al. 2019; Geyik et
  al. 2019; Diaz et al. 2020), computed by :mod:`ocef.exposure.ranking_metrics` (a second pass
  over the log with windows and a join); their entries carry the declared parameters, the measured
  floor of users of their interval and the numpy reference.

Every entry has a ``reference``: the metric of one user from the numpy formulas of
:mod:`ocef.exposure.formulas`, one ranking at a time — the definition the backends are tested
against (``tests/ocef/exposure/test_common.py`` checks numpy = pandas = DuckDB = Spark for every
entry and its declared parameters).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ocef.errors import ParameterError

__all__ = ["ATTENTION", "UserMetric", "UserContext", "RankingInput", "REGISTRY", "LIST_METRICS", "RANKING_METRICS",
           "PER_RANKING_METRICS", "EE_METRICS", "NDKL_EPS", "register", "list_value_sql", "list_values",
           "list_aggregates"]


@dataclass(frozen=True)
class UserContext:
    """What a metric's reference needs besides the user's rows (:attr:`UserMetric.reference`).

    Attributes
    ----------
    k : int
        List length of precision and of the ideal DCG.
    labels : list
        Item-group labels.
    model : BrowsingModel
        The browsing model.
    attention : str
        AWRF's position weights (``"trec"`` or ``"browsing"``).
    awrf_target : numpy.ndarray or None
        AWRF target over ``labels`` (None: equal).
    ndkl_desired : dict or None
        NDKL desired distribution (None: each ranking's own).
    judgments : pandas.DataFrame or None
        ``item, relevance`` of the user's judged items (None: the log's relevance).
    complete : bool
        Judgments with relevance <= 0 keep a target.

    Examples
    --------
    >>> from ocef.exposure.browsing import BrowsingModel
    >>> UserContext(k=2, labels=["a"], model=BrowsingModel()).attention
    'trec'
    """

    k: int
    labels: list
    model: object
    attention: str = "trec"
    awrf_target: object = None
    ndkl_desired: dict | None = None
    judgments: object = None
    complete: bool = False


@dataclass(frozen=True)
class UserMetric:
    """One per-user metric of the registry.

    Attributes
    ----------
    name : str
        Its name in tables, JSON and ``metrics=``.
    family : {"list", "ranking"}
        Who computes it over a log (module docstring).
    reference : callable
        ``reference(rows, ctx) -> float``: the metric of one user from the numpy formulas;
        ``rows`` are the user's rows (``rank, relevance, sample, item, g``, ``n_relevant``),
        ``ctx`` a :class:`UserContext`. NaN when undefined for that user.
    numpy : callable or None
        List family: ``numpy(a) -> array`` per ranking from the aggregates ``a`` (dict of arrays
        ``hits, dcg, idcg, n_relevant, rr`` and the int ``k``). Ranking family, ``unit="ranking"``:
        ``numpy(x) -> array`` of the value of each ranking of a whole log (``x`` a
        :class:`RankingInput`); ``unit="item"``: ``numpy(eps, target) -> array`` of the term of each
        (user, item) pair, summed per user.
    sql : str, callable or None
        List family: the same per ranking as an SQL expression (``{k}`` is replaced by the list
        length). Ranking family, ``unit="ranking"``: ``sql(x) -> dict`` of SQL pieces (``rows``:
        columns of each row, ``ranking``: aggregates of each ranking, ``stages``: lists of columns
        computed in turn from them, the last one naming ``_<name>``); ``unit="item"``: the term
        of each (user, item) pair over ``_eps`` and ``_t`` (ε and ε*), summed per user.
    unit : {"ranking", "item"}
        Ranking family: a value per ranking averaged over the user's rankings, or a sum over the
        user's (user, item) pairs of a term of the expected exposure ε and its target ε*.
    needs : tuple of str
        Roles of the log it needs (``"relevance"``, ``"n_relevant"``, ``"item"``).
    binary : bool
        0/1 per ranking (a Wilson interval for its mean over users).
    min_users : int
        Fewest users for which its interval is printed (the measured floor).
    min_pair_users : int
        Fewest users of each group for which a comparison of two groups is printed (0: no floor
        beyond ``min_users``; the measured floor of its difference).
    pair_interval : {"welch", "hall"}
        Interval and test of the difference of two groups: Welch's, or Welch's statistic with
        Hall's skewness correction (:func:`ocef.exposure.frame.hall_difference`).
    min_ratio_users : int
        Fewest users of each group for which the ratio of two groups' means gets its interval (0: no
        floor beyond the comparison's; the measured floor of the delta-method ratio interval).
    params : dict
        Parameters of the front doors that change its value: name -> constraint (declared once,
        on :func:`ocef.exposure.exposure_fairness` and :func:`ocef.exposure.ranking_fairness`).
    description : str
        One line for ``--help`` and the guide.

    Examples
    --------
    >>> REGISTRY["precision"].family, REGISTRY["precision"].needs
    ('list', ('relevance',))
    """

    name: str
    family: str
    reference: Callable
    numpy: Callable | None = None
    sql: str | Callable | None = None
    unit: str = "ranking"
    needs: tuple = ()
    binary: bool = False
    min_users: int = 2
    min_pair_users: int = 0
    pair_interval: str = "welch"
    min_ratio_users: int = 0
    params: dict = field(default_factory=dict)
    description: str = ""


#: AWRF's position weights: TREC 2022's ``1/log2(max(k, 2))``, or the browsing model's exposure.
ATTENTION = ("trec", "browsing")
#: name -> :class:`UserMetric`, in the order of the tables.
REGISTRY: dict[str, UserMetric] = {}


def register(metric: UserMetric) -> UserMetric:
    """Add a metric to :data:`REGISTRY` (its name must be new).

    Parameters
    ----------
    metric : UserMetric

    Returns
    -------
    UserMetric

    Examples
    --------
    >>> "ndcg" in REGISTRY
    True
    """
    if metric.name in REGISTRY:
        raise ParameterError(f"metric {metric.name!r} is registered twice")
    REGISTRY[metric.name] = metric
    return metric


# ------------------------------------------------------------------ the list family

def list_aggregates(relevance_in_order, k: int, n_relevant=None) -> dict:
    """The per-ranking aggregates of the list family (module docstring), many rankings at once.

    Gains are binary (relevance > 0); ``idcg`` is the ideal DCG of ``min(n_relevant, k)`` items
    (``n_relevant`` default: the ranking's own hits).

    Parameters
    ----------
    relevance_in_order : array_like of float, shape (n_rankings, n_positions)
        Relevance of the item at each position of each ranking.
    k : int
        The list length (precision's denominator, the ideal DCG's cut-off).
    n_relevant : array_like of float, shape (n_rankings,), optional
        The user's relevant items in the whole catalog.

    Returns
    -------
    dict
        ``hits, dcg, idcg, n_relevant, rr`` (arrays) and ``k``: the input of :func:`list_values`.

    Examples
    --------
    >>> a = list_aggregates([[0.0, 1.0]], 2, n_relevant=[1.0])
    >>> round(float(a["dcg"][0]), 4), float(a["rr"][0]), list_values("ndcg", a).round(4).tolist()
    (0.6309, 0.5, [0.6309])
    """
    y = np.asarray(relevance_in_order, dtype=float) > 0
    if y.ndim != 2:
        raise ParameterError(f"relevance_in_order must be (rankings, positions), got shape {y.shape}")
    m = y.shape[1]
    disc = 1.0 / np.log2(np.arange(1, m + 1) + 1.0)
    hits = y.sum(axis=1).astype(float)
    nrel = hits if n_relevant is None else np.asarray(n_relevant, dtype=float)
    ideal = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(1, int(k) + 1) + 1.0))]
    first = np.where(y.any(axis=1), y.argmax(axis=1) + 1.0, np.inf)
    return {"hits": hits, "dcg": (y * disc).sum(axis=1), "idcg": ideal[np.minimum(nrel, k).astype(int)],
            "n_relevant": nrel, "k": int(k), "rr": 1.0 / first}


def _list_reference(value: Callable) -> Callable:
    """A list metric's reference: the per-ranking value from the user's rows, averaged over the
    user's rankings (undefined rankings left out)."""
    def reference(rows, ctx):
        vals = []
        for _, rk in rows.groupby("sample") if "sample" in rows else [(None, rows)]:
            y = rk.sort_values("rank")["relevance"].to_numpy(dtype=float)
            nrel = [float(rk["n_relevant"].iloc[0])] if "n_relevant" in rk else None
            a = {key: (v[0] if isinstance(v, np.ndarray) else v)
                 for key, v in list_aggregates(y[None], ctx.k, nrel).items()}
            v = value(a)
            if v == v:
                vals.append(v)
        return float(np.mean(vals)) if vals else float("nan")
    return reference


def _list(name, value, sql, *, needs=("relevance",), binary=False, description=""):
    """A list metric: ``value(a)`` works on scalars (the reference) and on arrays (the backend)."""
    def vectorized(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(value(a), dtype=float)
    return register(UserMetric(name=name, family="list", reference=_list_reference(lambda a: float(vectorized(a))),
                               numpy=vectorized, sql=sql, needs=needs, binary=binary, description=description))


_list("precision", lambda a: a["hits"] / a["k"], "_hits / CAST({k} AS DOUBLE)",
      description="relevant items in the list / k")
_list("recall", lambda a: np.where(a["n_relevant"] > 0, a["hits"] / a["n_relevant"], np.nan),
      "CASE WHEN _nrel > 0 THEN _hits / _nrel END", needs=("relevance", "n_relevant"),
      description="relevant items in the list / the user's relevant items (n_relevant)")
_list("ndcg", lambda a: np.where(a["idcg"] > 0, a["dcg"] / a["idcg"], np.nan),
      "CASE WHEN _idcg > 0 THEN _dcg / _idcg END",
      description="DCG / ideal DCG of min(n_relevant, k) relevant items (binary gains)")
_list("hit_rate", lambda a: (a["hits"] > 0) * 1.0,
      "CASE WHEN _hits > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END", binary=True,
      description="1 when the list holds a relevant item")


def list_values(name: str, aggregates: dict) -> np.ndarray:
    """A list metric's value per ranking from the per-ranking aggregates (numpy).

    Parameters
    ----------
    name : str
        A metric of the list family.
    aggregates : dict
        ``hits, dcg, idcg, n_relevant, rr`` arrays and ``k``.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> list_values("precision", {"hits": np.array([1.0, 2.0]), "k": 2}).tolist()
    [0.5, 1.0]
    """
    return REGISTRY[name].numpy(aggregates)


def list_value_sql(name: str, k: int) -> str:
    """A list metric's value per ranking as SQL over ``_hits, _dcg, _idcg, _nrel, _rr``.

    Parameters
    ----------
    name : str
        A metric of the list family.
    k : int
        The list length.

    Returns
    -------
    str

    Examples
    --------
    >>> list_value_sql("precision", 10)
    '_hits / CAST(10 AS DOUBLE)'
    """
    return REGISTRY[name].sql.replace("{k}", str(int(k)))


# ------------------------------------------------------------------ the ranking family

def _rankings(rows):
    return [rk.sort_values("rank") for _, rk in (rows.groupby("sample") if "sample" in rows else [(None, rows)])]


def _awrf_reference(rows, ctx):
    from ocef.exposure.formulas import awrf

    t = np.full(len(ctx.labels), 1.0 / len(ctx.labels)) if ctx.awrf_target is None else np.asarray(ctx.awrf_target)
    vals = []
    for rk in _rankings(rows):
        onehot = np.array([[g == lab for lab in ctx.labels] for g in rk["g"]], dtype=float)
        w = None
        if ctx.attention == "browsing":
            y = rk["relevance"].to_numpy(dtype=float) if "relevance" in rk else np.zeros(len(rk))
            above = np.concatenate(([0.0], np.cumsum(y > 0)[:-1]))
            w = ctx.model.weights(rk["rank"].to_numpy(dtype=float), above)
        vals.append(awrf(onehot, t, weights=w))
    return float(np.mean(vals))


def _ndkl_reference(rows, ctx):
    from ocef.exposure.formulas import ndkl

    return float(np.mean([ndkl(rk["g"].to_numpy(), desired=ctx.ndkl_desired) for rk in _rankings(rows)]))


def _ee_reference(key):
    def reference(rows, ctx):
        from ocef.exposure.formulas import expected_exposure, expected_exposure_metrics, target_exposure

        jd = ctx.judgments if ctx.judgments is not None else rows[["item", "relevance"]].drop_duplicates()
        universe = sorted(set(rows["item"]) | set(jd["item"]))
        idx = {it: j for j, it in enumerate(universe)}
        rel = np.zeros(len(universe))
        for it, y in zip(rows["item"], rows["relevance"]):
            rel[idx[it]] = y
        rankings = [np.array([idx[i] for i in rk["item"]]) for rk in _rankings(rows)]
        m = ctx.model
        eps = expected_exposure(rankings, rel, browsing=m.name, patience=m.patience, stop=m.stop)
        keep = jd if ctx.complete else jd[jd["relevance"] > 0]
        tgt = np.zeros(len(universe))
        if len(keep):
            tgt[[idx[i] for i in keep["item"]]] = target_exposure(keep["relevance"].to_numpy(dtype=float),
                                                                  browsing=m.name, patience=m.patience, stop=m.stop)
        return expected_exposure_metrics(eps, tgt)[key]
    return reference


def _ranking_params() -> dict:
    from ocef.validation import Boolean, Either, Instance, Options

    distribution = Either(Options("equal"), Instance(dict))
    return {"awrf": {"attention": Options(*ATTENTION), "awrf_target": distribution},
            "ndkl": {"ndkl_desired": Instance(dict, none=True)},
            "ee": {"complete": Boolean()}}


#: FairRankTune's smoothing of NDKL's KL divergence.
NDKL_EPS = 1e-7


@dataclass(frozen=True)
class RankingInput:
    """What a per-ranking metric's kernels see of a whole log (:attr:`UserMetric.sql`, :attr:`UserMetric.numpy`).

    Attributes
    ----------
    item_groups : list
        The item-group labels (codes ``0..G-1``).
    attention : str
        AWRF's position weights.
    awrf_target, ndkl_desired : numpy.ndarray or None
        Distributions over ``item_groups`` (None: equal, and each ranking's own).
    keys : str
        SQL: the columns of one ranking (``"_u"`` or ``"_u, _s"``).
    rank, ranking, group, exposure : numpy.ndarray or None
        numpy, one entry per row: rank, ranking code, item-group code, browsing weight.
    ranking_size : numpy.ndarray or None
        numpy: rows of each ranking.

    Examples
    --------
    >>> RankingInput(item_groups=["a", "b"]).attention
    'trec'
    """

    item_groups: list
    attention: str = "trec"
    awrf_target: object = None
    ndkl_desired: object = None
    keys: str = "_u"
    rank: object = None
    ranking: object = None
    group: object = None
    exposure: object = None
    ranking_size: object = None


def _d(x: float) -> str:
    return f"CAST({float(x)!r} AS DOUBLE)"


def _relent_sql(x: str, y: str) -> str:
    """``rel_entr(x, y)`` (scipy.special): ``x ln(x/y)``, 0 at x = 0."""
    return f"(CASE WHEN {x} > 0 THEN {x} * ln({x} / {y}) ELSE CAST(0 AS DOUBLE) END)"


def _is_group(g) -> str:
    from ocef.backends import sql_literal

    return f"CASE WHEN _ig = {sql_literal(g)} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END"


def _awrf_target(x: RankingInput) -> np.ndarray:
    G = len(x.item_groups)
    t = np.full(G, 1.0 / G) if x.awrf_target is None else np.asarray(x.awrf_target, dtype=float)
    return t / t.sum()


def _awrf_sql(x: RankingInput) -> dict:
    """AWRF per ranking: attention per item group, then ``1 - JS(P, T)^2`` (P renormalised as
    scipy's ``jensenshannon``)."""
    from ocef.backends import sql_literal

    G, t = len(x.item_groups), _awrf_target(x)
    w = ("CAST(CAST(CAST(1 AS DOUBLE) / log2(greatest(_k, CAST(2 AS DOUBLE))) AS FLOAT) AS DOUBLE)"
         if x.attention == "trec" else "_e")
    total = " + ".join(f"_a{j}" for j in range(G))
    parts = []
    for j in range(G):
        m = f"((_P{j} + {_d(t[j])}) / 2)"
        parts.append(_relent_sql(f"_P{j}", m))
        if t[j] > 0:
            parts.append(f"{_d(t[j])} * ln({_d(t[j])} / {m})")
    return {"ranking": [f"sum(CASE WHEN _ig = {sql_literal(g)} THEN {w} ELSE CAST(0 AS DOUBLE) END) AS _a{j}"
                        for j, g in enumerate(x.item_groups)],
            "stages": [[f"_a{j} / ({total}) AS _P{j}" for j in range(G)],
                       [f"CAST(1 AS DOUBLE) - ({' + '.join(parts)}) / 2 AS _awrf"]]}


def _awrf_numpy(x: RankingInput) -> np.ndarray:
    from scipy.spatial.distance import jensenshannon

    G = len(x.item_groups)
    w = ((1.0 / np.log2(np.maximum(x.rank, 2))).astype(np.float32).astype(float) if x.attention == "trec"
         else x.exposure)
    a = np.zeros((len(x.ranking_size), G))
    np.add.at(a, (x.ranking, x.group), w)
    r = a / a.sum(axis=1, keepdims=True)
    tt = np.full(G, 1.0 / G) if x.awrf_target is None else x.awrf_target
    return 1.0 - jensenshannon(r, np.broadcast_to(tt, r.shape), axis=1) ** 2


def _ndkl_sql(x: RankingInput) -> dict:
    """NDKL per ranking: the prefix proportions of each group (a cumulative window per ranking),
    their discounted KL divergence from the desired distribution."""
    win = f"OVER (PARTITION BY {x.keys} ORDER BY _k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    disc = "(CAST(1 AS DOUBLE) / log2(_k + 1))"
    ranking = [f"sum({disc}) AS _z"]
    for j, g in enumerate(x.item_groups):
        ranking += [f"sum({disc} * _p{j} * ln(_p{j})) AS _na{j}", f"sum({disc} * _p{j}) AS _nb{j}"]
        if x.ndkl_desired is None:
            ranking.append(f"sum({_is_group(g)}) AS _nc{j}")
    G = len(x.item_groups)
    if x.ndkl_desired is None:
        logq = [f"ln(_nc{j} / _n + {_d(NDKL_EPS)})" for j in range(G)]
    else:
        logq = [_d(math.log(float(v) + NDKL_EPS)) for v in x.ndkl_desired]
    num = " + ".join(f"_na{j} - {logq[j]} * _nb{j}" for j in range(G))
    return {"rows": [f"sum({_is_group(g)}) {win} / _k + {_d(NDKL_EPS)} AS _p{j}"
                     for j, g in enumerate(x.item_groups)],
            "ranking": ranking, "stages": [[f"({num}) / _z AS _ndkl"]]}


def _ndkl_numpy(x: RankingInput) -> np.ndarray:
    from scipy.special import rel_entr

    G, n_r, n = len(x.item_groups), len(x.ranking_size), len(x.rank)
    order = np.lexsort((x.rank, x.ranking))                       # rows by ranking, then rank
    onehot = np.zeros((n, G))
    onehot[np.arange(n), x.group] = 1.0
    oh = onehot[order]
    cum = np.cumsum(oh, axis=0)
    ro = x.ranking[order]
    start = np.r_[0, np.flatnonzero(np.diff(ro)) + 1]
    lengths = np.diff(np.r_[start, len(order)])
    cum -= np.repeat(cum[start] - oh[start], lengths, axis=0)
    prefix = cum / x.rank[order][:, None]
    if x.ndkl_desired is None:
        counts = np.zeros((n_r, G))
        np.add.at(counts, (x.ranking, x.group), 1.0)
        qr = (counts / x.ranking_size[:, None])[ro]
    else:
        qr = np.broadcast_to(x.ndkl_desired, prefix.shape)
    kl = rel_entr(prefix + NDKL_EPS, qr + NDKL_EPS).sum(axis=1)
    disc = 1.0 / np.log2(x.rank[order] + 1.0)
    return np.bincount(ro, weights=kl * disc, minlength=n_r) / np.bincount(ro, weights=disc, minlength=n_r)


_PARAMS = _ranking_params()
register(UserMetric("awrf", "ranking", _awrf_reference, numpy=_awrf_numpy, sql=_awrf_sql, params=_PARAMS["awrf"],
                    min_users=2,
                    description="attention-weighted rank fairness, 1 - JS(R, T)^2 (TREC Fair Ranking 2022)"))
register(UserMetric("ndkl", "ranking", _ndkl_reference, numpy=_ndkl_numpy, sql=_ndkl_sql, params=_PARAMS["ndkl"],
                    min_users=2,
                    description="normalized discounted KL divergence of the prefixes (Geyik et al. 2019, Eq. 6)"))
# the floors (guide/exposure.md): EE-D below 60 users covered under 0.94 (benchmarks/ee_floor.py); EE-R 0.928-0.938 in two designs
# up to 80 users and 0.941-0.952 from 120 (10,000 replicates); EE-L under 0.93 below 20;
# EE-R's difference of a 5% sparse group vs the rest: Welch's under 0.94 up to 400 users, Hall's from 160 on (0.937 at 120)
# the ratio of a 5% sparse group's mean to the rest's (delta method on the log, 2,000 replicates, SE 0.005):
# EE-L 0.935-0.942 at 20 users, 0.942-0.958 from 30; EE-R 0.934-0.943 at 160-320, 0.946-0.955 from 400
for _name, _key, _floor, _pair, _ratio, _needs, _sql, _np, _text in (
        ("ee_disparity", "disparity", 60, 0, 0, ("item",), "_eps * _eps", lambda e, t: e * e,
         "EE-D, ||eps||^2 (Diaz et al. 2020, Eq. 5)"),
        ("ee_relevance", "relevance", 120, 160, 400, ("item", "relevance"), "_eps * _t", lambda e, t: e * t,
         "EE-R, eps . eps* (Eq. 6)"),
        ("ee_difference", "difference", 20, 0, 30, ("item", "relevance"), "(_eps - _t) * (_eps - _t)",
         lambda e, t: (e - t) ** 2, "EE-L, ||eps - eps*||^2 (Eq. 7)")):
    register(UserMetric(_name, "ranking", _ee_reference(_key), numpy=_np, sql=_sql, unit="item", needs=_needs,
                        min_users=_floor, min_pair_users=_pair, pair_interval="hall" if _pair else "welch",
                        min_ratio_users=_ratio,
                        params=_PARAMS["ee"], description=_text))

#: The list metrics (computed by :func:`ocef.exposure.ranking_statistics`).
LIST_METRICS = tuple(m for m, e in REGISTRY.items() if e.family == "list")
#: The ranking metrics (computed by :func:`ocef.exposure.ranking_fairness`).
RANKING_METRICS = tuple(m for m, e in REGISTRY.items() if e.family == "ranking")
#: The ranking metrics with a value per ranking (averaged over each user's rankings).
PER_RANKING_METRICS = tuple(m for m in RANKING_METRICS if REGISTRY[m].unit == "ranking")
#: The expected-exposure metrics (one group-by per user and item, a join with the judgments).
EE_METRICS = tuple(m for m in RANKING_METRICS if REGISTRY[m].unit == "item")
