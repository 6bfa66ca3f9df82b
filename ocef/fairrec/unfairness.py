"""Per-user recommendation metrics, group values and unfairness (Guo et al. 2023, Sec. 2.2 and 3.2).

Each user's candidates (the target item and sampled negatives) are ranked by score (descending;
ties: the earlier candidate row first) and the top ``k`` form the recommendation list ``rl_i``.

- AUC (EM1.1): per user, P(score of a positive > score of a negative), ties ½.
- MRR (eq. 2): ``1 / pos`` of the first positive in the top k, 0 if none.
- NDCG@k (eq. 3-4) with binary gains ``rel_a`` (``2^rel − 1 = rel``) and
  ``IDCG = Σ_{a ≤ min(k, #positives)} 1/log2(a+1)`` (``ndcg="standard"``) or over all k positions
  (``ndcg="repo"``, the authors' code). The paper's gain ``p(v_a)`` (the prediction) is not used:
  with it a model would be rewarded for its own confidence, not for ranking the target.
- URD (eq. 5): ``1 − mean Jaccard similarity of the genre sets over the k(k−1)/2 unordered pairs``
  of the top k (Ziegler's intra-list similarity; the double sum of eq. 5 read over unordered
  pairs, which keeps URD in [0, 1]). Two empty genre sets have similarity 0.
- URP (eq. 7): ``mean RP(rl_i) − mean RP(hl_i)`` (signed), ``RP`` of eq. (6).

Group values are user means (Def. 2.2's MGD); AUC can also be pooled over the group's candidate
rows (``auc="pooled"``, the authors' code). UF is eq. (1) over the groups with at least
``min_users`` users.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.fairrec import AUC_MODES
from ocef.results import Result, presents
from ocef.validation import Integer, Options, check_positive_int, validate_params
from ocef.errors import DataError, ParameterError

__all__ = ["METRICS", "user_metrics", "ranked_table", "group_values", "unfairness", "Unfairness",
           "Group", "pooled_auc"]

#: The five metrics of Sec. 3.2 (CLI names) and ``hit`` (target in the top k).
METRICS: tuple[str, ...] = ("auc", "mrr", "ndcg", "urd", "urp")
NDCG_MODES = ("standard", "repo")


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    return metric


def check_auc(auc: str) -> str:
    if auc not in AUC_MODES:
        raise ParameterError(f"auc must be one of {list(AUC_MODES)}, got {auc!r}")
    return auc


def check_ndcg(ndcg: str) -> str:
    if ndcg not in NDCG_MODES:
        raise ParameterError(f"ndcg must be one of {list(NDCG_MODES)}, got {ndcg!r}")
    return ndcg


def check_k(k: int, n_candidates) -> int:
    """The list length ``k``: an integer >= 1 and smaller than every user's number of candidates."""
    k = check_positive_int("k", k)
    fewest = int(np.min(n_candidates))
    if k >= fewest:
        raise ParameterError(f"k must be smaller than the number of candidates per user ({fewest}), got k={k}")
    return k


def ranked_table(candidates: pd.DataFrame, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lay the candidate rows out as one row per user, the layout the metrics of Sec. 3.2 rank: users
    sorted by id, candidates in their order (which breaks score ties), shorter users padded right.

    Parameters
    ----------
    candidates : pandas.DataFrame
        ``user``, ``item`` (integer ids) and ``label`` (1 target, 0 sampled negative).
    scores : array_like of float, shape (len(candidates),)
        Higher ranks first.

    Returns
    -------
    users : numpy.ndarray, shape (n_users,)
    items, labels, scores, valid : numpy.ndarray, shape (n_users, max candidates)
        Item ids (``-1`` in padding), labels (0/1), scores (``-inf`` in padding), real-entry mask.

    Raises
    ------
    ocef.errors.DataError
        A missing column, ``scores`` of another length than ``candidates``, a non-finite score
        or a label other than 0 and 1.

    Examples
    --------
    >>> cand = pd.DataFrame({"user": [0, 0, 0, 1, 1], "item": [3, 4, 5, 3, 4], "label": [0, 1, 0, 1, 0]})
    >>> ranked_table(cand, [0.9, 0.5, 0.1, 0.2, 0.8])[1].tolist()
    [[3, 4, 5], [3, 4, -1]]
    """
    missing = {"user", "item", "label"} - set(candidates.columns)
    if missing:
        raise DataError(f"candidates lack column(s) {sorted(missing)}")
    scores = np.asarray(scores, dtype=float).ravel()
    if scores.size != len(candidates):
        raise DataError(f"scores must have one value per candidate row ({len(candidates)}), got {scores.size}")
    if not np.all(np.isfinite(scores)):
        raise DataError("scores must be finite")
    user = candidates["user"].to_numpy()
    order = np.argsort(user, kind="stable")
    users, start, counts = np.unique(user[order], return_index=True, return_counts=True)
    pos = np.arange(order.size) - np.repeat(start, counts)
    row = np.repeat(np.arange(users.size), counts)
    width = int(counts.max())
    items = np.full((users.size, width), -1, dtype=np.int64)
    labels = np.zeros((users.size, width), dtype=float)
    sc = np.full((users.size, width), -np.inf)
    valid = np.zeros((users.size, width), dtype=bool)
    items[row, pos] = candidates["item"].to_numpy()[order]
    labels[row, pos] = candidates["label"].to_numpy(dtype=float)[order]
    sc[row, pos] = scores[order]
    valid[row, pos] = True
    if not np.isin(labels[valid], (0.0, 1.0)).all():
        raise DataError("candidate labels must be 0 or 1")
    return users, items, labels, sc, valid


def _mann_whitney_auc(pos_rank_sum, n_pos, n_neg) -> np.ndarray:
    """ROC-AUC (ties ½) from the positives' rank sum; NaN with one class."""
    pos_rank_sum, n_pos, n_neg = (np.asarray(v, dtype=float) for v in (pos_rank_sum, n_pos, n_neg))
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (pos_rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return np.where((n_pos > 0) & (n_neg > 0), auc, np.nan)


def _rank_auc(labels: np.ndarray, scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Row-wise ROC-AUC (ties ½) over the valid entries; nan for a row with one class."""
    from scipy.stats import rankdata

    ranks = rankdata(np.where(valid, scores, -np.inf), axis=1)      # pads tie at the bottom
    ranks = ranks - (~valid).sum(axis=1, keepdims=True)               # ranks among the valid entries
    pos = (labels == 1) & valid
    n_pos = pos.sum(axis=1)
    return _mann_whitney_auc((ranks * pos).sum(axis=1), n_pos, valid.sum(axis=1) - n_pos)


def pooled_auc(labels, scores) -> float:
    """ROC-AUC (EM1.1) of all the given rows pooled together (the authors' group AUC): Mann-Whitney
    ``U / (n_pos n_neg)``, ties counting ½.

    Parameters
    ----------
    labels : array_like of {0, 1}, shape (n,)
        1 for a target (positive) row, 0 for a negative.
    scores : array_like of float, shape (n,)
        The score of each row.

    Returns
    -------
    float
        NaN when the rows are all positive or all negative.

    Examples
    --------
    >>> pooled_auc([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6])
    0.75
    """
    labels = np.asarray(labels, dtype=float)[None, :]
    scores = np.asarray(scores, dtype=float)[None, :]
    return float(_rank_auc(labels, scores, np.ones_like(labels, dtype=bool))[0])


def jaccard_diversity(genre_sets: np.ndarray) -> np.ndarray:
    """Eq. (5): ``1 − mean Jaccard`` over unordered pairs of each row's k genre sets
    (``genre_sets``: ``(n_users, k, G)`` 0/1)."""
    g = np.asarray(genre_sets, dtype=float)
    k = g.shape[1]
    if k < 2:
        raise ParameterError(f"URD needs k >= 2 recommended items, got k={k}")
    inter = np.einsum("uag,ubg->uab", g, g)
    size = g.sum(axis=2)
    union = size[:, :, None] + size[:, None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    iu = np.triu_indices(k, 1)
    return 1.0 - sim[:, iu[0], iu[1]].mean(axis=1)


@validate_params(k=Integer(1), ndcg=Options(*NDCG_MODES))
def user_metrics(candidates: pd.DataFrame, scores, *, k: int = 5, genres=None, rp=None, user_pop=None,
                 ndcg: str = "standard") -> pd.DataFrame:
    """Each user's value of the five metrics of Sec. 3.2 (module docstring) for one ranking of the
    candidates: ``auc`` over all the user's candidates, the others over the top ``k``; ``hit`` is 1 if a
    positive is in the top ``k``.

    Parameters
    ----------
    candidates : pandas.DataFrame
        ``user``, ``item``, ``label``, e.g. ``FairRecSplit.candidates``.
    scores : array_like of float, shape (len(candidates),)
        The model's score of each candidate row (finite).
    k : int
        ``1 <= k <`` every user's number of candidates (``urd`` needs ``k >= 2``).
    genres : array_like of {0, 1}, shape (n_items, G), optional
        Without it ``urd`` is NaN.
    rp : array_like of float, shape (n_items,), optional
        ``RP_j`` of eq. (6), in %.
    user_pop : array_like of float, optional
        Mean ``RP`` of each user's history (eq. 7); ``urp`` needs both.
    ndcg : {"standard", "repo"}
        The ideal DCG used by ``ndcg``.

    Returns
    -------
    pandas.DataFrame
        ``user, auc, mrr, ndcg, urd, urp, hit``, sorted by user; ``auc`` NaN for a user whose
        candidates are all of one label, ``ndcg`` for a user without a positive.

    Raises
    ------
    ocef.errors.DataError
        Bad candidates or scores (:func:`ranked_table`).

    Examples
    --------
    >>> cand = pd.DataFrame({"user": [0, 0, 0, 1, 1, 1], "item": [0, 1, 2, 0, 1, 2], "label": [0, 1, 0, 1, 0, 0]})
    >>> user_metrics(cand, [0.9, 0.5, 0.1, 0.2, 0.8, 0.3], k=2)[["auc", "mrr", "hit"]].values.tolist()
    [[0.5, 0.5, 1.0], [0.0, 0.0, 0.0]]
    """
    users, items, labels, sc, valid = ranked_table(candidates, scores)
    k = check_k(k, valid.sum(axis=1))
    top = np.argsort(-sc, axis=1, kind="stable")[:, :k]          # ties: earlier candidate first
    rel = np.take_along_axis(labels, top, axis=1)
    ranks = np.arange(1, k + 1)
    hit = rel.max(axis=1) > 0
    first = np.argmax(rel > 0, axis=1)
    mrr = np.where(hit, 1.0 / (first + 1), 0.0)                   # eq. (2)
    disc = 1.0 / np.log2(ranks + 1)
    dcg = rel @ disc                                              # eq. (3), binary gain
    n_pos = ((labels == 1) & valid).sum(axis=1)
    ideal = np.cumsum(disc)
    idcg = ideal[np.clip(np.minimum(n_pos, k), 1, k) - 1] if ndcg == "standard" else np.full(users.size, ideal[-1])
    nd = np.where(n_pos > 0, dcg / idcg, np.nan)                  # eq. (4)
    top_items = np.take_along_axis(items, top, axis=1)
    out = {"user": users, "auc": _rank_auc(labels, sc, valid), "mrr": mrr, "ndcg": nd}
    if genres is not None:
        genres = np.asarray(genres)
        if genres.ndim != 2:
            raise ParameterError(f"genres must be a 2-d (items x genres) array, got shape {genres.shape}")
        out["urd"] = jaccard_diversity(genres[top_items])
    else:
        out["urd"] = np.full(users.size, np.nan)
    if rp is not None and user_pop is not None:
        rp = np.asarray(rp, dtype=float)
        user_pop = np.asarray(user_pop, dtype=float)
        out["urp"] = rp[top_items].mean(axis=1) - user_pop[users]  # eq. (7), signed
    else:
        out["urp"] = np.full(users.size, np.nan)
    out["hit"] = hit.astype(float)
    return pd.DataFrame(out)


def _check_attributes(table: pd.DataFrame, attributes) -> list[str]:
    attributes = [attributes] if isinstance(attributes, str) else list(attributes)
    if not attributes:
        raise ParameterError("attributes must name at least one column")
    unknown = [a for a in attributes if a not in table.columns]
    if unknown:
        raise ParameterError(f"unknown attribute(s) {unknown}; available: {[c for c in table.columns]}")
    repeated = sorted({a for a in attributes if attributes.count(a) > 1})
    if repeated:      # a repeated axis of the search space: name it, not a numpy broadcast error
        raise ParameterError(f"attribute(s) listed more than once: {repeated}")
    for a in attributes:
        _check_codes(a, table[a])
    return attributes


#: Largest magnitude of an attribute code (int64 cell ids, issue 23: 1e308 or 10**400 raised OverflowError).
MAX_CODE = 2**62


def _check_codes(name: str, col: pd.Series) -> None:
    """Refuse attribute values that are not integer codes within :data:`MAX_CODE`, naming a few."""

    if isinstance(col, pd.DataFrame):
        raise DataError(f"attribute {name!r} is a column of the table more than once")
    if pd.api.types.is_integer_dtype(col) and not pd.api.types.is_bool_dtype(col):
        big = col.abs() > MAX_CODE if col.dtype.kind == "i" else col > MAX_CODE
        bad = big.to_numpy()
    else:
        def as_code(v):
            if isinstance(v, (bool, np.bool_)):
                return float(v)
            if isinstance(v, (int, np.integer)):
                return float(v) if abs(int(v)) <= MAX_CODE else np.nan
            try:
                return float(v)
            except (TypeError, ValueError, OverflowError):
                return np.nan
        values = np.array([as_code(v) for v in col.tolist()], dtype=float)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) > MAX_CODE)
    if bad.any():
        raise DataError(f"attribute {name!r} must hold integer codes in [-2**62, 2**62], got e.g. "
                        f"{[repr(v)[:40] for v in col[bad].head(3).tolist()]} ({int(bad.sum())} value(s))")


def group_values(table: pd.DataFrame, attributes, metric: str, candidates: pd.DataFrame | None = None,
                 scores=None, auc: str = "mean") -> pd.DataFrame:
    """The value of ``metric`` for every non-empty multi-attribute group (Def. 2.2): the mean over its
    users with a defined value, or with ``auc="pooled"`` the :func:`pooled_auc` of its candidates
    (the authors' code).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per user with integer attribute codes and the metric column (and ``user`` for
        pooled AUC).
    attributes : str or sequence of str
        The sensitive attributes (columns of ``table``) that form the groups.
    metric : {"auc", "mrr", "ndcg", "urd", "urp"}
        The metric column.
    candidates : pandas.DataFrame, optional
        For pooled AUC only.
    scores : array_like of float, optional
        For pooled AUC only.
    auc : {"mean", "pooled"}
        How a group's AUC is computed (above).

    Returns
    -------
    pandas.DataFrame
        The attribute columns, ``n_users`` (with a defined metric) and ``value``.

    Raises
    ------
    ocef.errors.DataError
        A missing metric column, or an attribute column that does not hold integer codes.

    Examples
    --------
    >>> t = pd.DataFrame({"gender": [0, 0, 1, 1, 1], "mrr": [1.0, 0.5, 0.25, 0.75, 0.0]})
    >>> group_values(t, ["gender"], "mrr")["value"].round(4).tolist()
    [0.75, 0.3333]
    """
    metric = check_metric(metric)
    attributes = _check_attributes(table, attributes)
    if metric not in table.columns and not (metric == "auc" and auc == "pooled"):
        raise DataError(f"table lacks the metric column {metric!r}")
    check_auc(auc)
    codes = table[attributes].astype(np.int64)
    if metric == "auc" and auc == "pooled":
        if candidates is None or scores is None or "user" not in table.columns:
            raise ParameterError("pooled AUC needs candidates, scores and a 'user' column in table")
        cand = candidates[["user", "label"]].assign(score=np.asarray(scores, dtype=float))
        cand = cand.merge(pd.concat([table[["user"]], codes], axis=1), on="user", how="inner")
        # Within-group ranks (ties averaged) give every group's Mann-Whitney AUC at once.
        cand["rank"] = cand.groupby(attributes)["score"].rank(method="average")
        cand["pos_rank"] = cand["rank"] * cand["label"]
        agg = cand.groupby(attributes).agg(n_pos=("label", "sum"), n=("label", "size"), r=("pos_rank", "sum"))
        value = pd.Series(_mann_whitney_auc(agg["r"], agg["n_pos"], agg["n"] - agg["n_pos"]), index=agg.index)
        sizes = codes.groupby(attributes).size()
        out = pd.DataFrame({"n_users": sizes}).join(value.rename("value"))
    else:
        frame = pd.concat([codes, table[metric].astype(float)], axis=1)
        g = frame.groupby(attributes)[metric]
        out = pd.DataFrame({"n_users": g.count(), "value": g.mean()})     # users with a defined metric
    return out.reset_index()


@dataclass(frozen=True)
class Group:
    """One multi-attribute group (Def. 2.1) with its value and its interval.

    Attributes
    ----------
    group : dict
        ``{attribute: code}``, its cell of the attribute grid.
    n_users : int
        Users with a defined metric.
    value : float
        The mean metric of those users (Def. 2.2), or a pooled AUC.
    ci_low, ci_high : float
        Simultaneous interval (:func:`ocef.fairrec.inference.simultaneous_intervals`); NaN where
        none is valid.
    labels : dict, optional
        ``{attribute: label}`` for printing.

    Examples
    --------
    >>> Group({"gender": 0, "age": 1}, 12, 0.41, labels={"gender": "F", "age": "18-24"}).name()
    'gender=F, age=18-24'
    """

    group: dict
    n_users: int
    value: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    labels: dict | None = None

    def name(self, labels: bool = True) -> str:
        """``"gender=F, age=18-24"`` (labels where known) or the codes.

        Parameters
        ----------
        labels : bool
            False: always the codes.

        Returns
        -------
        str

        Examples
        --------
        >>> Group({"gender": 0}, 5, 0.3, labels={"gender": "F"}).name(labels=False)
        'gender=0'
        """
        shown = self.labels if labels and self.labels else self.group
        return ", ".join(f"{a}={v}" for a, v in shown.items())


@dataclass(frozen=True)
class Unfairness(Result):
    """UF of eq. (1) over a table of group values, with the two groups that attain it.

    Attributes
    ----------
    uf : float
        ``max − min`` of the valid groups' values (eq. 1).
    advantaged, disadvantaged : Group
        The groups with the largest and the smallest value.
    n_groups : int
        Valid groups (``n_users >= min_users`` and a defined value).
    min_users : int
        The size threshold of a valid group.

    Examples
    --------
    >>> values = pd.DataFrame({"g": [0, 1, 2], "n_users": [5, 5, 1], "value": [0.2, 0.7, 0.9]})
    >>> unfairness(values, min_users=2).to_frame()[["role", "group"]].values.tolist()
    [['advantaged', 'g=1'], ['disadvantaged', 'g=0']]
    """

    uf: float
    advantaged: Group
    disadvantaged: Group
    n_groups: int
    min_users: int

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per role: ``role, group, n_users, value, uf``.

        Two rows, the advantaged group then the disadvantaged one; ``group`` as
        ``"gender=0 & age=1"``.
        """
        rows = []
        for role, g in (("advantaged", self.advantaged), ("disadvantaged", self.disadvantaged)):
            rows.append({"role": role, "group": " & ".join(f"{a}={v}" for a, v in g.group.items()),
                         "n_users": g.n_users, "value": g.value, "uf": self.uf})
        return pd.DataFrame(rows)


def unfairness(values: pd.DataFrame, min_users: int = 1) -> Unfairness:
    """Multi-attribute unfairness UF of eq. (1) over every valid group of a table.

    ``UF = max_{i,j} |v_i − v_j| = max v − min v`` over the valid groups (Def. 2.3); biased upwards
    when groups are small (:mod:`ocef.fairrec.inference` gives bounds that are not).

    Parameters
    ----------
    values : pandas.DataFrame
        :func:`group_values` (an ``iteration`` column, as in an InfoBase, is ignored).
    min_users : int
        Smallest ``n_users`` of a valid group.

    Returns
    -------
    Unfairness
        Ties: the first row wins.

    Raises
    ------
    ocef.errors.DataError
        When fewer than two groups are valid.

    Examples
    --------
    >>> t = pd.DataFrame({"gender": [0, 0, 1, 1, 1], "mrr": [1.0, 0.5, 0.25, 0.75, 0.0]})
    >>> round(unfairness(group_values(t, ["gender"], "mrr")).uf, 4)
    0.4167
    """
    min_users = check_positive_int("min_users", min_users)
    attrs = [c for c in values.columns if c not in ("n_users", "value", "iteration")]
    ok = values[(values["n_users"] >= min_users) & values["value"].notna()]
    if len(ok) < 2:
        raise DataError(f"fewer than two valid groups (n_users >= min_users={min_users} and a defined "
                         f"value): {len(ok)} of {len(values)}")
    hi, lo = ok["value"].idxmax(), ok["value"].idxmin()
    adv, dis = ok.loc[hi], ok.loc[lo]

    def group(row) -> Group:
        return Group({a: int(row[a]) for a in attrs}, int(row["n_users"]), float(row["value"]))

    return Unfairness(float(adv["value"] - dis["value"]), group(adv), group(dis), len(ok), min_users)
