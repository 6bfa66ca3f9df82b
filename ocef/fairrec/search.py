"""Search for the most advantaged and disadvantaged multi-attribute groups (Guo et al. 2023, Sec. 3.3).

A :class:`GroupOracle` evaluates a group (a position: one integer code per sensitive attribute)
by querying a black box for that group's users only, caches every evaluation (the InfoBase of
Alg. 3) and counts them. :func:`search` runs one of

- ``"dpso"`` — FairRec's double-ended discrete PSO (Alg. 1-3, eq. 8-9);
- ``"exhaustive"`` — Themis (Galhotra et al. 2017): every non-empty valid group; with
  ``max_evaluations``, a uniformly random subset of that many groups (Themis under a budget, Table 3);
- ``"testsgd"`` — TestSGD (Zhang et al. 2022) as extended in Sec. 4.1: only groups with at least
  ``theta · N`` users, each compared with its complement; the groups with the largest and smallest
  ``value − complement value`` are reported;
- ``"vanilla"`` — a plain two-swarm PSO for Fig. 4 (uniform initialisation, inertia ``α·V``
  instead of the thermal term, each swarm guided only by its own best; the paper does not
  define its vanilla PSO, this one is ours).

The implementation decisions of DPSO and the cost model (``n_evaluations``, ``n_users_queried``,
``cost``, the budgets of Table 3) are in the FairRec guide (docs/guide/fairrec.md, "The searches,
as implemented").
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from ocef._progress import PROGRESS
from ocef.fairrec import EPSILON_BASES, METHODS
from ocef.fairrec.inference import TESTS, bound_p_value, maxt_inference, simultaneous_intervals, uf_lower_bound
from ocef.fairrec.unfairness import (Group, _check_attributes, check_auc, check_k, check_metric, check_ndcg,
                                  pooled_auc, ranked_table, user_metrics)
from ocef.results import Result, presents
from ocef.errors import DataError, ParameterError, ParameterTypeError, ResourceLimitError
from ocef.validation import (
    CONFIDENCE,
    Either,
    Instance,
    Integer,
    Options,
    Real,
    Rng,
    as_generator,
    check_positive_int,
    validate_params,
)

__all__ = ["GroupOracle", "FairRecResult", "search", "auto_epsilon", "auto_n_iter", "METHODS", "EPSILON_BASES",
           "METRIC_BOUNDS", "metric_bounds", "defined_users", "search_work", "MAX_ITERATIONS",
           "MAX_ATTRIBUTE_RANGE", "MAX_CELLS"]


class BudgetExhausted(Exception):
    """Raised inside a search when its budget (``max_evaluations`` or ``max_cost``) is spent."""


#: Sec. 4.2's two recommended regimes, the anchors of ``epsilon="auto"`` / ``n_iter="auto"``:
#: simple cases (``N_groups <= 1,000``: ε in [0.1, 0.2], n_it in [5, 10]) and complex ones
#: (ε in [0.002, 0.005], n_it in [15, 20]; the authors' config.json for LFM360K, the paper's largest
#: grid with 53,058 groups: ε = 0.005, n_it = 20). ``(N, ε, n_it)``.
AUTO_SIMPLE: tuple[int, float, int] = (1_000, 0.1, 10)
AUTO_COMPLEX: tuple[int, float, int] = (53_058, 0.005, 20)


def _auto_position(n_groups) -> float:
    """Where ``N`` lies between ``AUTO_SIMPLE`` (0) and ``AUTO_COMPLEX`` (1) on a log scale."""
    n = check_positive_int("n_groups", n_groups)
    lo, hi = AUTO_SIMPLE[0], AUTO_COMPLEX[0]
    return float(np.clip(np.log(n / lo) / np.log(hi / lo), 0.0, 1.0))


def auto_epsilon(n_groups: int) -> float:
    """ε for ``N`` groups by Sec. 4.2's guidance: 0.1 up to 1,000 groups, 0.005 from 53,058 (the
    authors' LFM360K setting), geometric interpolation between, so that the particles per swarm
    ``ε · N`` grow as ``N^0.25`` (100 at 1,000 groups, 265 at 53,058) instead of linearly.

    Parameters
    ----------
    n_groups : int
        ``N``: the cells of the grid or the valid groups (``epsilon_base`` of :func:`search`), >= 1.

    Returns
    -------
    float
        ε in [0.005, 0.1].

    Examples
    --------
    >>> auto_epsilon(294), round(auto_epsilon(10_000), 4)
    (0.1, 0.0176)
    """
    t = _auto_position(n_groups)
    if t in (0.0, 1.0):                                  # the anchors exactly (no exp/log round-off)
        return AUTO_SIMPLE[1] if t == 0.0 else AUTO_COMPLEX[1]
    return float(np.exp((1 - t) * np.log(AUTO_SIMPLE[1]) + t * np.log(AUTO_COMPLEX[1])))


def auto_n_iter(n_groups: int) -> int:
    """n_it for ``N`` groups by Sec. 4.2's guidance ([5, 10] up to 1,000 groups, [15, 20] in the complex
    case): 10 up to 1,000 groups, 20 from 53,058, linear in ``log N`` between (rounded).

    Parameters
    ----------
    n_groups : int
        ``N`` (``epsilon_base`` of :func:`search`).

    Returns
    -------
    int

    Examples
    --------
    >>> auto_n_iter(294), auto_n_iter(10_000), auto_n_iter(100_000)
    (10, 16, 20)
    """
    t = _auto_position(n_groups)
    return int(round(AUTO_SIMPLE[2] + t * (AUTO_COMPLEX[2] - AUTO_SIMPLE[2])))


def _mean_defined(v: np.ndarray) -> float:
    """Mean of the non-NaN user values of a group; NaN (an invalid group) when none is defined."""
    v = v[~np.isnan(v)]
    return float(v.mean()) if v.size else float("nan")


def _check_every_user(users: np.ndarray, n_users: int) -> None:
    """Refuse candidates that skip a user: group rows are user indices ``0 .. n_users − 1``."""
    if not np.array_equal(users, np.arange(n_users)):
        raise DataError(f"every user of the split needs candidates: {users.size} users have candidates, "
                         f"the split has {n_users}")


#: Particles per swarm DPSO uses at least on a small grid: ``min(valid groups, COVER_PARTICLES)``. With
#: ``max(2, int(ε · N))`` alone, MovieLens gender x age (14 cells, 12 valid groups) got 2 particles and
#: looked at 2 of 12 groups. With the floor, on a grid of at most this many valid groups, the default
#: DPSO starts swarm A on every valid group (it looks at all of them); above, Alg. 2's draw.
COVER_PARTICLES = 24


def _n_particles(epsilon: float, n: int, n_groups: int | None = None) -> tuple[int, str]:
    """Particles per swarm ``max(2, int(ε · N))``, raised to cover a small grid, and the rule that set it."""
    base = max(2, int(epsilon * n))
    if n_groups is not None and base < min(n_groups, COVER_PARTICLES):
        return min(n_groups, COVER_PARTICLES), (f"raised from max(2, int(epsilon*N)) = {base} to "
                                                f"min(valid groups, {COVER_PARTICLES}) so that the "
                                                f"{n_groups} valid groups are searched through")
    return base, "max(2, int(epsilon*N))"


def _maxt_work(n_users: int, n_resamples: int) -> float:
    """Work of the max-t inference: two resamples of ``n_users`` values, ``n_resamples`` times."""
    return 40.0 * n_users * (1 + n_resamples)


#: Most values one attribute's codes may span (``max − min + 1``): Alg. 2 draws each coordinate from
#: the attribute's empirical distribution over its whole range, a dense array of that many entries.
MAX_ATTRIBUTE_RANGE = 10**7
#: Most cells (product of the attributes' ranges) a grid may have: cell ids are int64 (Alg. 1's positions).
MAX_CELLS = 2**62
#: Work units of one group visit of the search (a Python-level step: InfoBase look-up, query, bookkeeping),
#: in the compiled steps of :data:`ocef.validation.DEFAULT_LIMITS`: measured 7-15 µs a visit (DPSO and
#: exhaustive, 600 groups, 20 permutations) vs ~1e8 compiled steps/s.
VISIT_WORK = 10**3


def _check_grid(attributes, low, high) -> None:
    """Refuse attribute ranges above :data:`MAX_ATTRIBUTE_RANGE` or grids above :data:`MAX_CELLS` (issue 23)."""
    from ocef.validation import check_resources

    spans = [int(h) - int(lo) + 1 for lo, h in zip(low.tolist(), high.tolist())]
    for a, lo, h, span in zip(attributes, low.tolist(), high.tolist(), spans):
        if span > MAX_ATTRIBUTE_RANGE:
            raise ResourceLimitError(
                f"attribute {a!r}: its codes span {lo} .. {h} ({span:.3g} values), above the limit "
                f"{MAX_ATTRIBUTE_RANGE:.0e} (the search draws from a dense distribution over the range): "
                f"recode the attribute as small integer codes 0, 1, 2, ...")
    worst = attributes[int(np.argmax(spans))]
    check_resources(f"attribute {worst!r} (codes spanning {max(spans)} values)", memory=24.0 * sum(spans))
    cells = 1
    for span in spans:
        cells *= span
    if cells > MAX_CELLS:
        raise ResourceLimitError(
            f"attributes {list(attributes)}: the grid has {cells:.3g} cells (product of the ranges "
            f"{spans}), above the limit {MAX_CELLS:.3g} of int64 cell ids; recode the attributes as small "
            f"integer codes or search fewer attributes")


def search_work(method: str, *, n_pt: int | None, n_iter: int, n_groups: int, n_users: int,
                n_resamples: int = 0) -> float:
    """Estimated work of :func:`search` in :data:`ocef.validation.DEFAULT_LIMITS`'s steps, checked by
    :func:`search` against :func:`ocef.validation.limit` before anything runs.

    Group visits (each :data:`VISIT_WORK` steps): DPSO/vanilla ``2 · n_pt · (n_iter + 1)``,
    exhaustive ``n_groups``, TestSGD ``n_groups`` plus one complement of ``n_users`` rows each; times
    ``1 + n_resamples`` (the permutation test re-runs the search).

    Parameters
    ----------
    method : {"dpso", "exhaustive", "testsgd", "vanilla"}
        The search.
    n_pt : int or None
        Particles per swarm (DPSO and vanilla).
    n_iter : int
        Iterations (DPSO and vanilla).
    n_groups : int
        Valid groups of the oracle.
    n_users : int
        Users with a defined metric.
    n_resamples : int
        Permutations of the permutation test.

    Returns
    -------
    float

    Examples
    --------
    >>> search_work("dpso", n_pt=10, n_iter=10, n_groups=50, n_users=500)
    220000.0
    """
    if method in ("dpso", "vanilla"):
        visits = 2.0 * n_pt * (n_iter + 1)
    elif method == "testsgd":
        visits = n_groups * (1.0 + n_users / VISIT_WORK)
    else:
        visits = float(n_groups)
    return visits * VISIT_WORK * (1 + n_resamples)


class GroupOracle:
    """Black-box group evaluation with a cache (the InfoBase) and counters.

    Parameters
    ----------
    users : pandas.DataFrame
        One row per user with integer attribute codes (row ``r`` is user ``r`` of ``evaluate``).
    attributes : sequence of str
        The sensitive attributes spanning the search space.
    evaluate : callable
        ``evaluate(user_rows)`` queries the model for those users only and returns one metric
        value per row (NaN where undefined; the group value is their mean, Def. 2.2's MGD) or the
        group's value as one float (e.g. a pooled AUC).
    min_users : int
        Smallest number of users *with a defined metric* in a valid group.
    name : str
        The metric's name.
    defined : array_like of bool, optional
        Users with a defined metric, known without querying the model; default every user.
    bounds : (float, float), optional
        Range of one user's value; with per-user values, :func:`search` reports simultaneous
        intervals and ``uf_lower`` (:mod:`ocef.fairrec.inference`).
    labels : dict, optional
        ``{attribute: {code: label}}`` to print groups by name.

    Examples
    --------
    >>> users = pd.DataFrame({"g": [0, 0, 1, 1]})
    >>> oracle = GroupOracle(users, ["g"], lambda rows: np.array([0.0, 1.0, 1.0, 1.0])[rows])
    >>> oracle.values(np.array([0, 1])).tolist()
    [0.5, 1.0]
    """

    def __init__(self, users: pd.DataFrame, attributes, evaluate: Callable[[np.ndarray], float],
                 min_users: int = 1, name: str = "", *, defined=None, bounds=None, labels: dict | None = None):
        self.attributes = _check_attributes(users, attributes)
        self.min_users = check_positive_int("min_users", min_users)
        if not callable(evaluate):
            raise ParameterTypeError(f"evaluate must be callable, got {type(evaluate).__name__}")
        self.evaluate_users = evaluate
        self.name = name
        self.bounds = _check_bounds(bounds)
        self.labels = {a: dict(labels[a]) for a in self.attributes if labels and a in labels}
        self.interval_reason = "" if self.bounds is not None else \
            "no valid interval: the metric's range is unknown (give bounds)"
        codes = np.column_stack([col.to_numpy() if pd.api.types.is_integer_dtype(col) else
                                 pd.to_numeric(col).to_numpy(dtype=float)          # checked: integral, finite
                                 for col in (users[a] for a in self.attributes)]).astype(np.int64)
        n_all = codes.shape[0]
        if defined is None:
            defined = np.ones(n_all, dtype=bool)
        defined = np.asarray(defined, dtype=bool)
        if defined.shape != (n_all,):
            raise ParameterError(f"defined must have one entry per user ({n_all}), got shape {defined.shape}")
        self.defined = defined
        self.n_users_all = n_all
        self.n_users_total = int(defined.sum())
        if self.n_users_total == 0:
            raise DataError("no user has a defined metric")
        self.low = codes.min(axis=0)
        self.high = codes.max(axis=0)
        _check_grid(self.attributes, self.low, self.high)      # issue 23: codes of 6e9 allocated 48 GB
        self.cards = self.high - self.low + 1
        self.n_cells = int(np.prod(self.cards.astype(object)))
        self._radix = np.concatenate([np.cumprod(self.cards[::-1])[::-1][1:], [1]]).astype(np.int64)
        rows = np.flatnonzero(defined)                    # undefined users belong to no group
        cell = self.cell_of(codes[rows])
        order = np.argsort(cell, kind="stable")
        self._order = rows[order]
        self._cells, self._start, self._count = np.unique(cell[order], return_index=True, return_counts=True)
        # Alg. 2 GetDistribution: each attribute's empirical distribution over its bounds.
        self.marginals = [np.bincount(codes[rows, j] - self.low[j], minlength=int(self.cards[j])) / rows.size
                          for j in range(codes.shape[1])]
        self._size_of = dict(zip(self._cells.tolist(), self._count.tolist()))   # O(1) size of a cell
        valid = self._count >= self.min_users
        self.n_groups = int(valid.sum())
        if self.n_groups < 2:
            raise DataError(f"fewer than two valid groups: {self.n_groups} group(s) with >= min_users="
                             f"{self.min_users} users with a defined metric over attributes {self.attributes}")
        self.valid_cells = self._cells[valid]
        self.per_user = None                              # set by the first query: per-user values or not
        self.reset()

    # -- cells and positions ------------------------------------------------------------------
    def cell_of(self, positions: np.ndarray) -> np.ndarray:
        """Mixed-radix cell ids ``Σ_j (code_j − low_j) · Π_{l>j} cards_l`` (the InfoBase's int64 keys) of
        positions (Alg. 1's particles: one code per attribute).

        Parameters
        ----------
        positions : array_like of int, shape (n, n_attributes)
            Codes within each attribute's bounds ``[low, high]``.

        Returns
        -------
        numpy.ndarray of int64, shape (n,)

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> GroupOracle(users, ["g", "a"], lambda rows: np.zeros(len(rows))).cell_of([[1, 0], [0, 1]]).tolist()
        [2, 1]
        """
        return (np.asarray(positions, dtype=np.int64) - self.low) @ self._radix

    def position_of(self, cells: np.ndarray) -> np.ndarray:
        """The positions (attribute codes) of cell ids: the inverse of :meth:`cell_of`.

        Parameters
        ----------
        cells : array_like of int, shape (n,)
            Cell ids.

        Returns
        -------
        numpy.ndarray of int64, shape (n, n_attributes)

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> GroupOracle(users, ["g", "a"], lambda rows: np.zeros(len(rows))).position_of([2, 1]).tolist()
        [[1, 0], [0, 1]]
        """
        cells = np.asarray(cells, dtype=np.int64)
        return (cells[:, None] // self._radix) % self.cards + self.low

    def size(self, cells) -> np.ndarray:
        """Users with a defined metric in each cell (0 for an empty cell).

        Parameters
        ----------
        cells : int or array_like of int
            Cell ids.

        Returns
        -------
        numpy.ndarray of int

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> GroupOracle(users, ["g", "a"], lambda rows: np.zeros(len(rows))).size([0, 1, 2, 3]).tolist()
        [1, 1, 2, 0]
        """
        cells = np.atleast_1d(np.asarray(cells, dtype=np.int64))
        i = np.searchsorted(self._cells, cells)
        i = np.minimum(i, self._cells.size - 1)
        return np.where(self._cells[i] == cells, self._count[i], 0)

    def members(self, cell: int) -> np.ndarray:
        """User rows of one cell (users without a defined metric excluded), as passed to ``evaluate``.

        Parameters
        ----------
        cell : int
            A cell id.

        Returns
        -------
        numpy.ndarray of int64

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> GroupOracle(users, ["g", "a"], lambda rows: np.zeros(len(rows))).members(2).tolist()
        [2, 3]
        """
        i = int(np.searchsorted(self._cells, cell))
        if i >= self._cells.size or self._cells[i] != cell:
            return np.empty(0, dtype=np.int64)
        return self._order[self._start[i]:self._start[i] + self._count[i]]

    # -- evaluation (InfoBase) ------------------------------------------------------------------
    def reset(self, max_evaluations: int | None = None, max_cost: float | None = None,
              group_cost: float = 1.0) -> None:
        """Empty the InfoBase and the counters (each search starts afresh) and set the budgets.

        Parameters
        ----------
        max_evaluations : int, optional
            Most distinct groups to query.
        max_cost : float, optional
            Most ``cost`` (``n_users_queried + group_cost · n_queries``).
        group_cost : float
            Fixed cost of one query, in users.

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> _ = oracle.values([0, 2]); oracle.reset(max_evaluations=10)
        >>> oracle.n_evaluations, oracle.cost, len(oracle.infobase)
        (0, 0.0, 0)
        """
        self.infobase: dict[int, tuple[float, int, int]] = {}   # cell -> (value, n_users, iteration)
        self._user_values = np.full(self.n_users_all, np.nan)   # per-user values queried in this search
        self._known = np.zeros(self.n_users_all, dtype=bool)
        self.n_evaluations = 0
        self.n_users_queried = 0
        self.n_queries = 0
        self.n_invalid_visits = 0
        self.max_evaluations = max_evaluations
        self.max_cost = max_cost
        self.group_cost = group_cost
        self.iteration = 0
        self._best = self._worst = None                    # (value, cell) of the valid InfoBase's extremes

    @property
    def cost(self) -> float:
        """``n_users_queried + group_cost · n_queries`` (FairRec guide)."""
        return self.n_users_queried + self.group_cost * self.n_queries

    def query(self, rows: np.ndarray) -> float:
        """Evaluate any set of user rows, uncached (TestSGD's complements); :meth:`value` is the cached door.

        Parameters
        ----------
        rows : numpy.ndarray of int
            User rows.

        Returns
        -------
        float
            The mean of the defined per-user values, or the black box's float.

        Raises
        ------
        BudgetExhausted
            When the query would take ``cost`` above ``max_cost`` (caught by :func:`search`).

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> oracle.query(np.array([0, 3])), oracle.n_queries, oracle.cost
        (0.6, 1, 3.0)
        """
        if self.max_cost is not None and self.cost + rows.size + self.group_cost > self.max_cost:
            raise BudgetExhausted
        self.n_users_queried += int(rows.size)
        self.n_queries += 1
        return self._record(rows, self.evaluate_users(rows))

    def _record(self, rows: np.ndarray, out) -> float:
        try:
            out = np.asarray(out, dtype=float)
        except (TypeError, ValueError, OverflowError):      # issue 28: 10**400 or an object ended in a traceback
            raise DataError(f"evaluate (the metric {self.name or '(unnamed)'}) must return finite values, one per "
                            f"user row or one for the group, got {str(out)[:60]!r}") from None
        if out.dtype.kind == "c" or out.dtype == bool:
            raise DataError(f"evaluate (the metric {self.name or '(unnamed)'}) must return real values, got "
                            f"{out.dtype} values")
        if np.isinf(out).any():           # issue 28: an infinite value became uf = inf or nan without a word
            raise DataError(f"the metric {self.name or '(unnamed: evaluate)'} returned an infinite value for "
                            f"{rows.size} user row(s): give finite values (NaN where a user's metric is undefined)")
        if out.ndim == 0:
            self.per_user = False
            return float(out)
        if out.shape != (rows.size,):
            raise DataError(f"evaluate must return one float or one value per user row ({rows.size}), "
                             f"got shape {out.shape}")
        if self.per_user is None:
            self.per_user = True
        if self.bounds is not None:
            _check_within(self.name, out, self.bounds)
        self._user_values[rows] = out
        self._known[rows] = True
        return _mean_defined(out)

    def valid_rows(self) -> np.ndarray:
        """User rows of the valid groups (sorted): the users the permutation test permutes.

        Returns
        -------
        numpy.ndarray of int64

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1, 2]})
        >>> oracle = GroupOracle(users, ["g"], lambda rows: np.zeros(rows.size), min_users=2)
        >>> oracle.valid_rows().tolist()                     # group g=2 has one user
        [0, 1, 2, 3]
        """
        i = np.searchsorted(self._cells, self.valid_cells)
        return np.sort(np.concatenate([self._order[a:a + n] for a, n in zip(self._start[i], self._count[i])]))

    def user_values(self, rows=None) -> tuple[np.ndarray, int]:
        """Metric values of the users ``rows``: those queried by the search plus one query of the others
        (the extra cost of a permutation test).

        Parameters
        ----------
        rows : array_like of int, optional
            None: every user with a defined metric.

        Returns
        -------
        values : numpy.ndarray of float, shape (n_users,)
            NaN outside ``rows``.
        n_users_queried : int
            Users queried now.

        Raises
        ------
        ocef.errors.DataError
            When ``evaluate`` returns one value per group, not per user.

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> _ = oracle.value(2)                              # the search queried users 2 and 3
        >>> oracle.user_values()[1]                          # the extra users queried
        2
        """
        if self.per_user is False:
            raise DataError("evaluate returns group values only; per-user values are needed")
        want = self.defined.copy() if rows is None else np.isin(np.arange(self.n_users_all), rows)
        missing = np.flatnonzero(want & ~self._known)
        if missing.size:
            self._record(missing, self.evaluate_users(missing))
        if self.per_user is False:
            raise DataError("evaluate returns group values only; per-user values are needed")
        return np.where(want, self._user_values, np.nan), int(missing.size)

    def permuted(self, values: np.ndarray) -> "GroupOracle":
        """A copy (same groups, settings and labels, empty InfoBase) whose black box returns ``values``
        (e.g. the metric values permuted across the defined users).

        Parameters
        ----------
        values : array_like of float, shape (n_users,)
            The per-user values the copy's black box returns.

        Returns
        -------
        GroupOracle

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.zeros(len(rows)))
        >>> oracle.permuted(np.array([1.0, 0.0, 0.0, 0.0])).values([0, 2]).tolist()
        [1.0, 0.0]
        """
        import copy

        other = copy.copy(self)
        values = np.asarray(values, dtype=float)
        other.evaluate_users = lambda rows: values[rows]
        other.per_user = True
        other.reset()
        return other

    def value(self, cell: int) -> float:
        """Fitness of one cell: cached (Alg. 3 lines 4-5) or queried (lines 8-9); NaN if invalid.

        Parameters
        ----------
        cell : int
            A cell id.

        Returns
        -------
        float

        Raises
        ------
        BudgetExhausted
            When ``max_evaluations`` or ``max_cost`` is spent (caught by :func:`search`).

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> oracle.value(2), oracle.value(2), oracle.n_evaluations        # the second is cached
        (0.8, 0.8, 1)
        """
        cell = int(cell)
        hit = self.infobase.get(cell)
        if hit is not None:
            return hit[0]
        n = self._size_of.get(cell, 0)
        if n < self.min_users:
            self.n_invalid_visits += 1
            return float("nan")
        if self.max_evaluations is not None and self.n_evaluations >= self.max_evaluations:
            raise BudgetExhausted
        v = self.query(self.members(cell))
        self.n_evaluations += 1
        self.infobase[cell] = (v, n, self.iteration)
        if v == v:                                        # running extremes (first evaluated wins ties)
            if self._best is None or v > self._best[0]:
                self._best = (v, cell)
            if self._worst is None or v < self._worst[0]:
                self._worst = (v, cell)
        return v

    def values(self, cells: np.ndarray) -> np.ndarray:
        """:meth:`value` of each cell, in order (cached cells cost nothing).

        Parameters
        ----------
        cells : array_like of int
            Cell ids.

        Returns
        -------
        numpy.ndarray of float

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows]).values([0, 2, 3]).tolist()
        [0.2, 0.8, nan]
        """
        cells = np.asarray(cells, dtype=np.int64)
        out = np.empty(cells.size)
        infobase = self.infobase
        for i, c in enumerate(cells.tolist()):
            hit = infobase.get(c)
            out[i] = hit[0] if hit is not None else self.value(c)
        return out

    def evaluated(self) -> tuple[np.ndarray, np.ndarray]:
        """Cell ids and values of the InfoBase entries with a defined value, in evaluation order.

        Returns
        -------
        cells : numpy.ndarray of int64
        values : numpy.ndarray of float

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> _ = oracle.values([2, 0])
        >>> [a.tolist() for a in oracle.evaluated()]
        [[2, 0], [0.8, 0.2]]
        """
        cells = np.fromiter(self.infobase.keys(), dtype=np.int64, count=len(self.infobase))
        vals = np.fromiter((v[0] for v in self.infobase.values()), dtype=float, count=len(self.infobase))
        keep = ~np.isnan(vals)
        return cells[keep], vals[keep]

    def infobase_frame(self) -> pd.DataFrame:
        """The InfoBase (``FairRecResult.infobase``): ``attrs…, n_users, value, iteration``, one row per
        valid evaluated group in evaluation order.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> _ = oracle.values([2, 0])
        >>> oracle.infobase_frame().values.tolist()
        [[1.0, 0.0, 2.0, 0.8, 0.0], [0.0, 0.0, 1.0, 0.2, 0.0]]
        """
        cells = np.fromiter(self.infobase.keys(), dtype=np.int64, count=len(self.infobase))
        pos = self.position_of(cells) if cells.size else np.empty((0, len(self.attributes)), dtype=np.int64)
        vals = list(self.infobase.values())
        df = pd.DataFrame(pos, columns=self.attributes)
        df["n_users"] = np.array([v[1] for v in vals], dtype=np.int64)
        df["value"] = np.array([v[0] for v in vals], dtype=float)
        df["iteration"] = np.array([v[2] for v in vals], dtype=np.int64)
        return df

    def group(self, cell: int, ci_low: float = float("nan"), ci_high: float = float("nan")) -> Group:
        """The :class:`~ocef.fairrec.unfairness.Group` of an evaluated cell, with its labels.

        Parameters
        ----------
        cell : int
            A cell id in the InfoBase.
        ci_low, ci_high : float
            Its simultaneous interval, if any.

        Returns
        -------
        Group

        Raises
        ------
        KeyError
            For a cell not evaluated.

        Examples
        --------
        >>> users = pd.DataFrame({"g": [0, 0, 1, 1], "a": [0, 1, 0, 0]})
        >>> oracle = GroupOracle(users, ["g", "a"], lambda rows: np.array([0.2, 0.4, 0.6, 1.0])[rows])
        >>> _ = oracle.value(2)
        >>> oracle.group(2).group
        {'g': 1, 'a': 0}
        """
        v, n, _ = self.infobase[int(cell)]
        pos = self.position_of(np.array([cell]))[0]
        codes = {a: int(c) for a, c in zip(self.attributes, pos)}
        return Group(codes, n, v, float(ci_low), float(ci_high), self.label_of(codes))

    def label_of(self, codes: dict) -> dict:
        """``{attribute: label}`` of a group's codes (the code itself where no label is known).

        Parameters
        ----------
        codes : dict
            ``{attribute: code}``.

        Returns
        -------
        dict of str to str

        Examples
        --------
        >>> oracle = GroupOracle(pd.DataFrame({"g": [0, 1]}), ["g"], lambda rows: np.zeros(rows.size), labels={"g": {1: "M"}})
        >>> oracle.label_of({"g": 1})
        {'g': 'M'}
        """
        return {a: str(self.labels.get(a, {}).get(int(c), c)) for a, c in codes.items()}

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_user_metrics(cls, table: pd.DataFrame, attributes, metric: str, min_users: int = 1, *,
                          bounds="auto", labels: dict | None = None) -> "GroupOracle":
        """Oracle over a table of per-user metric values (one row per user): a group's value is
        the mean of ``metric`` over its users with a defined (non-NaN) value.

        ``bounds``: the range of one user's value; ``"auto"`` = [0, 1] for the metrics of Sec. 3.2
        bounded so (``auc``, ``mrr``, ``ndcg``, ``urd``, ``hit``), unknown (``None``) otherwise.

        Examples
        --------
        >>> t = pd.DataFrame({"g": [0, 0, 1, 1], "mrr": [1.0, 0.5, 0.0, float("nan")]})
        >>> o = GroupOracle.from_user_metrics(t, ["g"], "mrr")
        >>> o.values([0, 1]).tolist(), o.size([0, 1]).tolist()
        ([0.75, 0.0], [2, 1])
        """

        if not isinstance(metric, str):
            raise ParameterError(f"metric must be the name of a column of the table, got {metric!r}")
        attrs = [attributes] if isinstance(attributes, str) else list(attributes)
        if metric in attrs:         # issue 23: --metric gender returned UF 0 (each group's value constant)
            raise ParameterError(f"metric {metric!r} is one of the attributes {attrs}: give a metric column "
                                 f"(a per-user value such as mrr), not an attribute")
        if metric not in table.columns:
            raise ParameterError(f"unknown metric {metric!r}: the table has columns {list(table.columns)}")
        _check_metric_column(table, metric)          # issue 23: empty table, text or NaN-only metric
        values = pd.to_numeric(table[metric], errors="coerce").to_numpy(dtype=float)
        why = ""
        if bounds == "auto":
            bounds = METRIC_BOUNDS.get(metric)
            v = values[~np.isnan(values)]
            if bounds is not None and v.size and (v.min() < bounds[0] or v.max() > bounds[1]):
                why = (f"no valid interval: the metric's range is unknown: the values of {metric} reach [{v.min():.6g}, {v.max():.6g}], outside the "
                       f"range [{bounds[0]:g}, {bounds[1]:g}] assumed for a metric of that name (give bounds)")
                bounds = None                    # issue 28: never an interval from a range the data violate
        elif bounds is not None:
            _check_within(metric, values, _check_bounds(bounds))

        def evaluate(rows: np.ndarray) -> np.ndarray:
            return values[rows]

        oracle = cls(table.reset_index(drop=True), attributes, evaluate, min_users, name=metric,
                     defined=~np.isnan(values), bounds=bounds, labels=labels)
        oracle.interval_reason = why or oracle.interval_reason
        return oracle

    @classmethod
    def from_model(cls, split, score: Callable[[pd.DataFrame], np.ndarray], attributes, metric: str, *,
                   k: int = 5, min_users: int = 1, auc: str = "mean", ndcg: str = "standard",
                   labels: dict | None = None) -> "GroupOracle":
        """Oracle that queries ``score`` (a black box: candidate rows -> scores) for a group's
        users only and computes the group's ``metric`` (Sec. 3.2): the mean over the group's users
        (Def. 2.2), or for ``auc="pooled"`` the AUC of the group's pooled candidates."""
        check_metric(metric)
        check_auc(auc)
        check_ndcg(ndcg)                      # here, not at the first query of a search
        cand = split.candidates.sort_values("user", kind="stable").reset_index(drop=True)
        users_col = cand["user"].to_numpy()
        starts = np.searchsorted(users_col, np.arange(split.n_users))
        counts = np.searchsorted(users_col, np.arange(split.n_users), side="right") - starts
        _check_every_user(np.unique(users_col), split.n_users)
        check_k(k, counts)
        pooled = metric == "auc" and auc == "pooled"

        def evaluate(rows: np.ndarray):
            n = counts[rows]                  # the users' candidate rows, contiguous in ``cand``
            idx = np.repeat(starts[rows] - (np.cumsum(n) - n), n) + np.arange(n.sum())
            sub = cand.iloc[idx]
            s = np.asarray(score(sub), dtype=float)
            if pooled:
                return pooled_auc(sub["label"].to_numpy(), s)
            um = user_metrics(sub, s, k=k, genres=split.genres, rp=split.rp, user_pop=split.user_pop, ndcg=ndcg)
            return um[metric].to_numpy()[np.searchsorted(um["user"].to_numpy(), rows)]

        return cls(split.users, attributes, evaluate, min_users, name=metric,
                   defined=None if pooled else defined_users(split, metric),
                   bounds=None if pooled else metric_bounds(split, metric), labels=labels)._pooled(pooled)

    def _pooled(self, pooled: bool) -> "GroupOracle":
        if pooled:
            self.interval_reason = ("no valid interval: a pooled AUC is not a mean over users "
                                    "(use auc='mean')")
        return self

    @classmethod
    def from_scores(cls, split, scores, attributes, metric: str, *, k: int = 5, min_users: int = 1,
                    auc: str = "mean", ndcg: str = "standard", labels: dict | None = None) -> "GroupOracle":
        """Oracle over scores already computed for every candidate row of ``split`` (the model
        queried once): the same group values as :meth:`from_model`, without re-querying."""
        check_metric(metric)
        check_auc(auc)
        if metric == "auc" and auc == "pooled":
            users, _, labels_, sc, valid = ranked_table(split.candidates, scores)
            _check_every_user(users, split.n_users)

            def evaluate(rows: np.ndarray) -> float:
                m = valid[rows]
                return pooled_auc(labels_[rows][m], sc[rows][m])

            return cls(split.users, attributes, evaluate, min_users, name=metric, labels=labels)._pooled(True)
        um = user_metrics(split.candidates, scores, k=k, genres=split.genres, rp=split.rp,
                          user_pop=split.user_pop, ndcg=ndcg)
        _check_every_user(um["user"].to_numpy(), split.n_users)      # um's rows are then the split's users
        table = pd.concat([split.users.reset_index(drop=True), um[[metric]]], axis=1)
        return cls.from_user_metrics(table, attributes, metric, min_users, bounds=metric_bounds(split, metric),
                                     labels=labels)


#: Range of one user's value of the metrics of Sec. 3.2 that lie in [0, 1] whatever the data.
METRIC_BOUNDS: dict[str, tuple[float, float]] = {m: (0.0, 1.0) for m in ("auc", "mrr", "ndcg", "urd", "hit")}


def metric_bounds(split, metric: str) -> tuple[float, float]:
    """Range of one user's ``metric`` on ``split`` whatever the model ranks (data, not model output,
    so the intervals of :mod:`ocef.fairrec.inference` are not fitted to what they judge).

    [0, 1] for AUC, MRR, NDCG, URD; for URP (eq. 7) ``[min RP − max user_pop, max RP − min user_pop]``.

    Parameters
    ----------
    split : FairRecSplit
        Only ``rp`` and ``user_pop`` are read, for URP.
    metric : {"auc", "mrr", "ndcg", "urd", "urp", "hit"}
        The metric.

    Returns
    -------
    (float, float)

    Raises
    ------
    KeyError
        For a metric outside the list above.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> split = SimpleNamespace(rp=np.array([0.5, 2.0, 4.0]), user_pop=np.array([1.0, 3.0]))
    >>> metric_bounds(split, "mrr"), metric_bounds(split, "urp")
    ((0.0, 1.0), (-2.5, 3.0))
    """
    if metric == "urp":
        rp, pop = np.asarray(split.rp, dtype=float), np.asarray(split.user_pop, dtype=float)
        return float(rp.min() - pop.max()), float(rp.max() - pop.min())
    return METRIC_BOUNDS[metric]


def defined_users(split, metric: str) -> np.ndarray:
    """Which users of ``split`` have a defined ``metric`` whatever the model: AUC needs a positive and
    a negative candidate, NDCG a positive; MRR, URD and URP are always defined.

    Known from the labels without querying the model, so a search's valid groups are fixed before
    any evaluation.

    Parameters
    ----------
    split : FairRecSplit
        ``candidates`` (``user, item, label``) and ``n_users`` are read.
    metric : {"auc", "mrr", "ndcg", "urd", "urp", "hit"}
        The metric.

    Returns
    -------
    numpy.ndarray of bool, shape (n_users,)

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> cand = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "label": [1, 0, 1, 1, 0, 0]})
    >>> split = SimpleNamespace(candidates=cand, n_users=3)
    >>> defined_users(split, "auc").tolist(), defined_users(split, "ndcg").tolist()
    ([True, False, False], [True, True, False])
    """
    cand = split.candidates
    n_pos = np.bincount(cand["user"], weights=cand["label"].to_numpy(dtype=float), minlength=split.n_users)
    n = np.bincount(cand["user"], minlength=split.n_users)
    if metric == "auc":
        return (n_pos > 0) & (n_pos < n)
    if metric == "ndcg":
        return n_pos > 0
    return np.ones(split.n_users, dtype=bool)


def _check_within(name: str, values: np.ndarray, bounds) -> None:
    """Refuse per-user values outside the declared ``bounds`` (issue 28)."""
    v = values[~np.isnan(values)]
    if v.size and (v.min() < bounds[0] or v.max() > bounds[1]):
        raise DataError(f"bounds ({bounds[0]:g}, {bounds[1]:g}) do not hold for the metric {name or '(unnamed)'}: "
                        f"its values reach [{v.min():.6g}, {v.max():.6g}]; give bounds that contain every value "
                        f"(--bounds LOW,HIGH) or none")


def _check_bounds(bounds):
    if bounds is None:
        return None
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ParameterError(f"bounds must be None or (low, high), got {bounds!r}") from None
    if not (np.isfinite(low) and np.isfinite(high) and high > low):
        raise ParameterError(f"bounds must be finite with low < high, got {bounds!r}")
    return low, high


@dataclass(frozen=True)
class FairRecResult(Result):
    """Outcome of a search (Alg. 1's output) with selection-adjusted inference, from :func:`search`.

    A :class:`ocef.results.Result` (the InfoBase is the frame, left out of ``to_json``); views
    ``overall``, ``groups``, ``summary()`` and ``verdict()``.

    Attributes
    ----------
    method : {"dpso", "exhaustive", "testsgd", "vanilla"}
        The search that ran.
    metric : str
        The metric's name (the oracle's ``name``).
    uf : float
        UF of eq. (1), ``advantaged`` minus ``disadvantaged`` (biased upwards by the search's
        maximum over noisy groups); NaN if no valid group was evaluated.
    uf_lower : float
        Lower confidence bound of the population UF, valid whatever groups the search looked at
        (:mod:`ocef.fairrec.inference`); NaN with a ``reason`` where none is valid.
    p_value, significant : float, bool
        Of the null "the metric does not depend on the attributes"; ``significant`` =
        ``p_value <= 1 − confidence``.
    advantaged, disadvantaged : Group or None
        With ``n_users``, ``value`` and a simultaneous interval ``ci_low``, ``ci_high``.
    top_advantaged, top_disadvantaged : list of Group
        The ``top_n`` best and worst evaluated groups.
    infobase : pandas.DataFrame
        Every group evaluated (Alg. 3's InfoBase): ``attrs…, n_users, value, iteration``.
    n_evaluations, n_users_queried, n_queries, cost : int, int, int, float
        The search's own cost: distinct groups, users queried, black-box calls, and
        ``n_users_queried + group_cost · n_queries``.
    n_invalid_visits : int
        Visits of groups below ``min_users`` (never queried).
    n_groups, n_cells : int
        Valid groups and cells of the attribute grid.
    min_users : int
        Smallest size of a valid group (users with a defined metric).
    seconds : float
        Wall time of the search itself.
    params : dict
        The settings used, ``"auto"`` resolved.
    confidence : float
        Level of the intervals and of ``uf_lower``.
    test : {"permutation", "bound"} or None
        The test that gave ``p_value`` (``"auto"`` resolved), None if none.
    n_resamples : int
        Permutations run (0 unless ``test == "permutation"``).
    reason : str
        Why a bound, interval or p-value is missing or was replaced.
    inference_users_queried, inference_queries : int
        Extra black-box cost of the permutation test.
    inference_seconds : float
        Wall time of the inference.
    labels : dict
        ``{attribute: {code: label}}``.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> users = pd.DataFrame({"g": gen.integers(0, 2, 200)})
    >>> users["mrr"] = gen.random(200) * 0.5 + 0.3 * (users.g == 1)
    >>> res = search(GroupOracle.from_user_metrics(users, ["g"], "mrr"), "exhaustive", n_resamples=99, rng=0)
    >>> round(res.uf, 3), round(res.uf_lower, 3), res.p_value, res.test
    (0.315, 0.273, 0.01, 'permutation')
    """

    method: str
    metric: str
    uf: float
    advantaged: Group | None
    disadvantaged: Group | None
    infobase: pd.DataFrame = field(repr=False)
    n_evaluations: int
    n_users_queried: int
    n_queries: int
    cost: float
    n_invalid_visits: int
    n_groups: int
    n_cells: int
    min_users: int
    seconds: float
    top_advantaged: list = field(default_factory=list)
    top_disadvantaged: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    uf_lower: float = float("nan")
    p_value: float = float("nan")
    significant: bool | None = None
    confidence: float = 0.95
    test: str | None = None
    n_resamples: int = 0
    reason: str = ""
    inference_users_queried: int = 0
    inference_queries: int = 0
    inference_seconds: float = 0.0
    labels: dict = field(default_factory=dict)

    @property
    def overall(self) -> pd.DataFrame:
        """One row: ``method, metric, uf, uf_lower, p_value, significant, confidence, test,
        n_resamples, n_groups, n_evaluations, min_users, reason``."""
        return pd.DataFrame([{"method": self.method, "metric": self.metric, "uf": self.uf,
                              "uf_lower": self.uf_lower, "p_value": self.p_value, "significant": self.significant,
                              "confidence": self.confidence, "test": self.test, "n_resamples": self.n_resamples,
                              "n_groups": self.n_groups, "n_evaluations": self.n_evaluations,
                              "min_users": self.min_users, "reason": self.reason}])

    @property
    def groups(self) -> pd.DataFrame:
        """One row per reported group: ``role`` (advantaged, disadvantaged, top_advantaged,
        top_disadvantaged), ``rank`` in its list, ``group`` (codes), ``labels``, ``n_users``,
        ``value``, ``ci_low``, ``ci_high`` (simultaneous, at ``confidence``)."""
        rows = []
        lists = [("advantaged", [self.advantaged]), ("disadvantaged", [self.disadvantaged]),
                 ("top_advantaged", self.top_advantaged), ("top_disadvantaged", self.top_disadvantaged)]
        for role, groups in lists:
            for rank, g in enumerate(groups, start=1):
                if g is None:
                    continue
                rows.append({"role": role, "rank": rank, "group": g.name(labels=False), "labels": g.name(),
                             "n_users": g.n_users, "value": g.value, "ci_low": g.ci_low, "ci_high": g.ci_high})
        return pd.DataFrame(rows, columns=["role", "rank", "group", "labels", "n_users", "value", "ci_low",
                                           "ci_high"])

    def summary(self) -> pd.DataFrame:
        """The advantaged and disadvantaged groups with the overall finding on each row.

        Returns
        -------
        pandas.DataFrame
            Two rows: ``role, group, labels, n_users, value, ci_low, ci_high, uf, uf_lower,
            p_value, significant, confidence``.

        Examples
        --------
        >>> gen = np.random.default_rng(0)
        >>> users = pd.DataFrame({"g": gen.integers(0, 2, 200)})
        >>> users["mrr"] = gen.random(200) * 0.5 + 0.3 * (users.g == 1)
        >>> res = search(GroupOracle.from_user_metrics(users, ["g"], "mrr"), "exhaustive", n_resamples=99, rng=0)
        >>> res.summary()[["role", "group", "value"]].round(3)
                    role group  value
        0     advantaged   g=1  0.575
        1  disadvantaged   g=0  0.260
        """
        g = self.groups
        g = g[g.role.isin(["advantaged", "disadvantaged"])].drop(columns="rank")
        return g.assign(uf=self.uf, uf_lower=self.uf_lower, p_value=self.p_value, significant=self.significant,
                        confidence=self.confidence).reset_index(drop=True)

    def verdict(self) -> str:
        """One sentence: is the gap distinguishable from noise?

        Names the test, the p-value against ``1 − confidence`` and ``uf_lower``, or why there is
        no test (``reason``).

        Returns
        -------
        str

        Examples
        --------
        >>> gen = np.random.default_rng(0)
        >>> users = pd.DataFrame({"g": gen.integers(0, 2, 200)})
        >>> users["mrr"] = gen.random(200) * 0.5 + 0.3 * (users.g == 1)
        >>> res = search(GroupOracle.from_user_metrics(users, ["g"], "mrr"), "exhaustive", n_resamples=99, rng=0)
        >>> res.verdict()
        'The gap is distinguishable from noise: p = 0.01 <= 0.05 (permutation test); with 95% confidence the population UF is at least 0.2727.'
        """
        level = f"{self.confidence:.0%}"
        if self.p_value != self.p_value:                  # NaN
            test = "no test of the gap against noise was made" + (f" ({self.reason})" if self.reason else "")
        elif self.significant:
            test = (f"the gap is distinguishable from noise: p = {self.p_value:.3g} <= {1 - self.confidence:.3g} "
                    f"({self.test} test)")
        else:
            test = (f"the gap is NOT distinguishable from noise: p = {self.p_value:.3g} > {1 - self.confidence:.3g} "
                    f"({self.test} test); a UF this large arises without any dependence on the attributes")
        if self.uf_lower == self.uf_lower:
            bound = (f"; with {level} confidence the population UF is at least {self.uf_lower:.4g}"
                     if self.uf_lower > 0 else
                     f"; the {level} lower bound of the population UF is 0 (no gap established)")
        else:
            bound = "; no valid lower bound" + (f" ({self.reason})" if self.reason and self.p_value == self.p_value
                                                 else "")
        return test[0].upper() + test[1:] + bound + "."

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The InfoBase with a readable ``group`` name and the role of the two reported groups.

        The tidy form of the result (``to_csv`` writes it): every evaluated group, not only the two
        reported ones.

        ``group`` (codes), ``labels`` (when known), the attribute columns, ``n_users``,
        ``value``, ``iteration``, ``role`` (``"advantaged"``, ``"disadvantaged"`` or ``""``),
        ``method``, ``metric``.
        """
        df = self.infobase.copy()
        attrs = [c for c in df.columns if c not in ("n_users", "value", "iteration")]
        df.insert(0, "group", [" & ".join(f"{a}={int(v)}" for a, v in zip(attrs, row))
                               for row in df[attrs].itertuples(index=False)])
        if self.labels:
            df.insert(1, "labels", [", ".join(f"{a}={self.labels.get(a, {}).get(int(v), int(v))}"
                                              for a, v in zip(attrs, row))
                                    for row in df[attrs].itertuples(index=False)])
        role = np.full(len(df), "", dtype=object)
        for name, g in (("advantaged", self.advantaged), ("disadvantaged", self.disadvantaged)):
            if g is not None:
                mask = np.all([df[a].to_numpy() == v for a, v in g.group.items()], axis=0)
                role[mask] = name
        df["role"] = role
        return df.assign(method=self.method, metric=self.metric)


def _sample_positions(oracle: GroupOracle, n: int, gen: np.random.Generator, uniform: bool) -> np.ndarray:
    """Alg. 2 Sample: each coordinate from the attribute's distribution (or uniform in its bounds)."""
    cols = []
    for j in range(len(oracle.attributes)):
        card = int(oracle.cards[j])
        if uniform:
            cols.append(gen.integers(0, card, size=n))
        else:
            cols.append(gen.choice(card, size=n, p=oracle.marginals[j]))
    return np.stack(cols, axis=1).astype(np.int64) + oracle.low


def _pso(oracle: GroupOracle, gen: np.random.Generator, *, n_pt, n_iter, alpha, c1, c2, vmax,
         vanilla: bool, cover: bool = False, progress=False) -> None:
    """Alg. 1-3 or the vanilla two-swarm PSO; ``cover`` starts swarm A on every valid group."""
    # Particles alternate A0, D0, A1, D1, ... so that a budget cut (Table 3) leaves both swarms
    # evaluated; 0: swarm A (max), 1: swarm D (min).
    side = np.tile([0, 1], n_pt)
    sign = np.where(side == 0, 1.0, -1.0)                # maximise sign * value
    P = np.empty((2 * n_pt, len(oracle.attributes)), dtype=np.int64)
    P[side == 0] = (oracle.position_of(oracle.valid_cells) if cover and n_pt == oracle.n_groups
                    else _sample_positions(oracle, n_pt, gen, vanilla))  # Alg. 2 line 3
    P[side == 1] = _sample_positions(oracle, n_pt, gen, vanilla)     # Alg. 2 line 4
    vm = int(np.floor(vmax))
    V = gen.integers(-vm, vm + 1, size=P.shape).astype(float)      # Alg. 2 line 7
    low, high = oracle.low.astype(float), oracle.high.astype(float)
    oracle.iteration = 0
    fit = oracle.values(oracle.cell_of(P))
    pbest = P.astype(float).copy()                                  # Alg. 2 line 8
    pbest_fit = np.where(np.isnan(fit), -np.inf, sign * fit)        # invalid: never a best
    from ocef._progress import progress_iter

    for it in progress_iter(range(1, n_iter + 1), progress, desc=f"{'vanilla PSO' if vanilla else 'DPSO'} iterations",
                            unit="iteration"):
        oracle.iteration = it
        gbest = np.empty_like(pbest)
        for s in (0, 1):
            rows = side == s
            if vanilla:                                   # own swarm's best Pbest only
                cand = np.flatnonzero(rows & np.isfinite(pbest_fit))
                g = pbest[cand[np.argmax(pbest_fit[cand])]] if cand.size else None
            else:                                         # best of both swarms' evaluations
                g = _global_best(oracle, maximise=(s == 0))
            gbest[rows] = P[rows] if g is None else g
        phi = gen.standard_normal(P.shape[0])[:, None]
        r1 = gen.random(P.shape[0])[:, None]
        r2 = gen.random(P.shape[0])[:, None]
        if vanilla:
            first = alpha * V
        else:
            C = np.where((side == 0)[:, None], pbest[side == 0].mean(axis=0), pbest[side == 1].mean(axis=0))
            first = alpha * np.abs(C - P) * phi                       # thermal motion
        V = np.clip(first + c1 * r1 * (pbest - P) + c2 * r2 * (gbest - P), -vmax, vmax)   # eq. (8)
        P = np.clip(np.trunc(P + V), low, high).astype(np.int64)                          # eq. (9)
        fit = oracle.values(oracle.cell_of(P))
        f = np.where(np.isnan(fit), -np.inf, sign * fit)
        better = f > pbest_fit                                     # Alg. 3 lines 13-18
        pbest[better] = P[better]
        pbest_fit[better] = f[better]


def _global_best(oracle: GroupOracle, maximise: bool):
    best = oracle._best if maximise else oracle._worst
    if best is None:
        return None
    return oracle.position_of(np.array([best[1]]))[0].astype(float)


def _testsgd(oracle: GroupOracle, theta: float) -> tuple[int, int] | None:
    """TestSGD: groups with >= θ·N users vs their complements; cells of max/min value − complement."""
    sizes = oracle.size(oracle.valid_cells)
    kept = oracle.valid_cells[sizes >= theta * oracle.n_users_total]
    if kept.size < 2:
        raise DataError(f"testsgd: fewer than two groups with >= theta*N = {theta * oracle.n_users_total:g} "
                         f"users (theta={theta}); lower theta")
    everyone = np.arange(oracle.n_users_total)
    gaps = []
    for c in kept.tolist():
        v = oracle.value(c)
        comp = np.setdiff1d(everyone, oracle.members(c), assume_unique=True)
        gaps.append(v - oracle.query(comp))
    gaps = np.array(gaps)
    ok = ~np.isnan(gaps)
    if ok.sum() < 2:
        return None
    idx = np.flatnonzero(ok)
    return int(kept[idx[np.argmax(gaps[ok])]]), int(kept[idx[np.argmin(gaps[ok])]])


def _check_metric_column(table: pd.DataFrame, metric: str) -> None:
    """Refuse an empty table or a metric column of text or only NaN, naming them (issue 23)."""

    if len(table) == 0:
        raise DataError(f"the user-metrics table has no row (metric {metric!r})")
    if isinstance(table[metric], pd.DataFrame):
        raise DataError(f"the user-metrics table has the column {metric!r} more than once")
    col = table[metric]
    if not (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)):
        raise DataError(f"metric column {metric!r} must hold numbers, got dtype {col.dtype}")
    if not np.isfinite(col.to_numpy(dtype=float)).any():
        raise DataError(f"metric column {metric!r} has no finite value")


def _check_search_resources(oracle: "GroupOracle", method: str, *, n_pt, n_iter: int, epsilon: float, test,
                            n_resamples: int) -> None:
    """Refuse, before anything runs, a search whose work or particle memory exceeds the limits (issue 23)."""
    from ocef.validation import check_resources

    work = search_work(method, n_pt=n_pt, n_iter=n_iter, n_groups=oracle.n_groups, n_users=oracle.n_users_total)
    grid = f"{oracle.n_cells} cells of {oracle.attributes}"
    if n_pt is not None:
        check_resources(f"epsilon={epsilon:g} on {grid} ({n_pt} particles per swarm), n_iter={n_iter}",
                        memory=2.0 * n_pt * len(oracle.attributes) * 8 * 12, work=work, what="steps of group visits")
    else:
        check_resources(f"method={method!r} on {oracle.n_groups} valid groups", work=work,
                        what="steps of group visits")
    if test == "permutation":
        check_resources(f"n_resamples={n_resamples} (the max-t permutation test resamples every valid user twice each time)",
                        work=_maxt_work(oracle.n_users_total, n_resamples), what="steps")


#: ``test="auto"``: the permutation test's extra query may cost at most this multiple of the search's own cost.
AUTO_COST_RATIO = 2.0


def _run(oracle: GroupOracle, method: str, gen: np.random.Generator, *, n_pt, iters, alpha, c1, c2, vmax, theta,
         budget: bool, cover: bool = False, progress=False):
    """One search on ``oracle`` (reset by the caller); returns TestSGD's pair of cells or None."""
    pair = None
    try:
        if method in ("dpso", "vanilla"):
            _pso(oracle, gen, n_pt=n_pt, n_iter=iters, alpha=alpha, c1=c1, c2=c2, vmax=vmax,
                 vanilla=method == "vanilla", cover=cover, progress=progress)
        elif method == "exhaustive":
            cells = oracle.valid_cells
            if budget:
                cells = gen.permutation(cells)
            oracle.values(cells)
        else:
            pair = _testsgd(oracle, theta)
    except BudgetExhausted:
        pass
    return pair


def _extremes(oracle: GroupOracle, method: str, pair) -> tuple[int | None, int | None]:
    """Cells of the reported advantaged and disadvantaged groups (None if the search found none)."""
    if method == "testsgd":
        return pair if pair else (None, None)
    cells, vals = oracle.evaluated()
    if not cells.size:
        return None, None
    return int(cells[np.argmax(vals)]), int(cells[np.argmin(vals)])


#: Most DPSO iterations one search runs (issue 23: 10**9 ran for minutes without a word).
MAX_ITERATIONS = 10**5
_NONNEG = Real(0, np.inf, closed="left")


@validate_params(oracle=Instance(GroupOracle), method=Options(*METHODS),
                 epsilon=Either(Options(None, "auto"), Real(0, 1, closed="right")),
                 n_iter=Either(Options("auto"), Integer(1, MAX_ITERATIONS)),
                 alpha=_NONNEG, c1=_NONNEG, c2=_NONNEG, vmax=Real(0, np.inf, closed="right"),
                 theta=Real(0, 1), top_n=Integer(1), max_evaluations=Either(Options(None), Integer(1)),
                 max_cost=Either(Options(None), Real(0, np.inf, closed="neither")), group_cost=_NONNEG,
                 epsilon_base=Options(*EPSILON_BASES), confidence=CONFIDENCE,
                 test=Options(None, "auto", *TESTS), n_resamples=Integer(1, 10**6), rng=Rng(), progress=PROGRESS)
def search(oracle: GroupOracle, method: str = "dpso", *, epsilon: float | str | None = None, n_iter: int | str = 10,
           alpha: float = 0.09, c1: float = 2.0, c2: float = 2.0, vmax: float = 2.0, theta: float = 0.01,
           top_n: int = 5, max_evaluations: int | None = None, max_cost: float | None = None,
           group_cost: float = 1.0, epsilon_base: str = "cells", confidence: float = 0.95,
           test: str | None = "auto", n_resamples: int = 199, rng=None, progress=False) -> FairRecResult:
    """Find the most advantaged and disadvantaged groups and UF (eq. 1) with ``method``
    (FairRec guide), and judge UF against noise (:mod:`ocef.fairrec.inference`).

    Parameters
    ----------
    oracle : GroupOracle
        The black box and its groups.
    method : {"dpso", "exhaustive", "testsgd", "vanilla"}
        The search (FairRec guide).
    epsilon, n_iter : float, "auto" or None; int or "auto"
        DPSO/vanilla: particles per swarm as a share of ``N`` (see ``epsilon_base``) and
        iterations; ``"auto"``: Sec. 4.2's rule (:func:`auto_epsilon`, :func:`auto_n_iter`); None:
        ε = 0.1 (Sec. 4.2, <= 1,000 groups) with at least ``min(valid groups, COVER_PARTICLES)``
        particles (``params["n_particles_rule"]`` says which rule applied).
    alpha, c1, c2, vmax : float
        Eq. (8)'s constants (Sec. 4.1: 0.09, 2, 2, 2).
    theta : float
        TestSGD: smallest group share of the users.
    top_n : int
        Groups listed at each end.
    max_evaluations, max_cost, group_cost : int or None, float or None, float
        Budgets (Table 3): distinct groups, or total ``cost`` where a query of ``n`` users costs
        ``n + group_cost``. None: no budget.
    epsilon_base : {"cells", "groups"}
        ``epsilon`` is a share of the grid's cells (the paper) or of the valid groups.
    confidence : float
        Of the group intervals and ``uf_lower``.
    test : {"auto", "permutation", "bound"} or None
        ``"permutation"`` re-runs the search on permuted metric values (exact; one extra query of
        the users not yet queried); ``"bound"`` from the simultaneous intervals (no query,
        conservative); ``"auto"``: the permutation test when its extra query costs at most
        ``AUTO_COST_RATIO`` times the search's own, else the bound (``reason`` says so); None: no
        p-value.
    n_resamples : int
        Permutations of the permutation test.
    rng : None, int, SeedSequence or Generator
        Randomness of the search and of the permutations. Same ``rng``, same result.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    FairRecResult

    Raises
    ------
    ocef.errors.ResourceLimitError
        When the estimated work (:func:`search_work`) or the particles' memory exceeds the limits
        in force (:func:`ocef.validation.resource_limits`), before anything runs.
    ocef.errors.DataError
        ``method="testsgd"`` with fewer than two groups of at least ``theta · N`` users.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> users = pd.DataFrame({"g": gen.integers(0, 2, 400), "a": gen.integers(0, 3, 400)})
    >>> users["mrr"] = gen.random(400) * 0.5 + 0.5 * (users.g == 1)       # group g=1 is better
    >>> res = search(GroupOracle.from_user_metrics(users, ["g", "a"], "mrr", min_users=5), "exhaustive",
    ...              n_resamples=99, rng=0)
    >>> res.advantaged.group["g"], res.disadvantaged.group["g"], res.significant
    (1, 0, True)
    """
    n_base = oracle.n_cells if epsilon_base == "cells" else oracle.n_groups
    eps = auto_epsilon(n_base) if epsilon == "auto" else 0.1 if epsilon is None else float(epsilon)
    iters = auto_n_iter(n_base) if n_iter == "auto" else int(n_iter)
    n_pt, pt_rule = (_n_particles(eps, n_base, oracle.n_groups if epsilon is None else None)
                     if method in ("dpso", "vanilla") else (None, None))
    _check_search_resources(oracle, method, n_pt=n_pt, n_iter=iters, epsilon=eps, test=test,
                            n_resamples=n_resamples)
    gen = as_generator(rng)
    perm_gen = gen.spawn(1)[0]                       # spawning draws nothing: the search is the same whatever the test
    search_gen = gen
    budget = max_evaluations is not None or max_cost is not None
    cover = method == "dpso" and epsilon is None and n_pt == oracle.n_groups
    if cover:
        pt_rule += "; swarm A starts on every valid group (Alg. 2 would draw the starts from the marginals)"
    settings = dict(n_pt=n_pt, iters=iters, alpha=alpha, c1=c1, c2=c2, vmax=vmax, theta=theta, budget=budget,
                    cover=cover)
    oracle.reset(max_evaluations, max_cost, float(group_cost))
    t0 = time.perf_counter()
    pair = _run(oracle, method, search_gen, **settings, progress=progress)
    seconds = time.perf_counter() - t0
    n_eval, n_uq, n_q, cost = oracle.n_evaluations, oracle.n_users_queried, oracle.n_queries, oracle.cost
    infobase = oracle.infobase_frame()
    hi, lo = _extremes(oracle, method, pair)
    cells, vals = oracle.evaluated()
    if oracle.n_evaluations >= 2 and not cells.size:
        # issue 28: every group NaN answered uf = NaN with "fewer than two valid groups"
        raise DataError(f"the metric {oracle.name or '(unnamed: evaluate)'} is NaN in all {oracle.n_evaluations} "
                        f"groups evaluated: evaluate returns no defined value (check the metric; NaN marks a "
                        f"user whose metric is undefined)")
    if method != "testsgd" and cells.size < 2:
        hi = lo = None                                # issue 28: one group printed "uf": 0.0 beside "undefined"
    uf = oracle.infobase[hi][0] - oracle.infobase[lo][0] if hi is not None else float("nan")

    # -- inference ---------------------------------------------------------------------------
    t1 = time.perf_counter()
    sizes = np.array([oracle.infobase[c][1] for c in cells.tolist()], dtype=float)
    reasons = []
    ci = {}
    uf_lower = float("nan")
    can_bound = oracle.bounds is not None and oracle.per_user is not False and cells.size >= 2
    if can_bound:
        low, high = simultaneous_intervals(vals, sizes, oracle.n_groups, confidence=confidence, bounds=oracle.bounds)
        ci = {c: (l_, h_) for c, l_, h_ in zip(cells.tolist(), low.tolist(), high.tolist())}
        if hi is not None:
            # For TestSGD too: the bound is for the population UF over the valid groups (eq. 1), not for
            # its gaps against complements.
            uf_lower = uf_lower_bound(low, high)
    elif cells.size >= 2:
        reasons.append(oracle.interval_reason or "no valid interval: the black box returns group values only")
    else:
        reasons.append("undefined: fewer than two valid groups evaluated")
    p_value, used, extra_users, extra_queries = float("nan"), test, 0, 0
    maxt = None
    if test in ("permutation", "auto") and hi is not None:
        # The studentized max-t test (inference.maxt_inference) permutes the valid groups' users; its
        # reference distribution is over every valid group, so it holds whatever the search evaluated.
        rows = oracle.valid_rows()
        used = "permutation"
        if test == "auto":
            missing = int(np.count_nonzero(~oracle._known[rows]))
            extra = missing + (oracle.group_cost if missing else 0.0)
            if extra > AUTO_COST_RATIO * cost:
                used = "bound" if can_bound else None
                reasons.append(f"fallback to the bound test: the permutation test would query {missing} more "
                               f"users (cost {extra:g} > {AUTO_COST_RATIO:g} x the search's {cost:g}; "
                               f"test='permutation' forces it): " +
                               ("p-value and uf_lower from the simultaneous Chernoff-Hoeffding bound"
                                if can_bound else "no p-value"))
        try:
            if used != "permutation":
                raise LookupError
            values, extra_users = oracle.user_values(rows)
            extra_queries = int(extra_users > 0)
        except LookupError:
            pass
        except ValueError:
            used = "bound" if can_bound else None
            reasons.append("fallback to the bound test: the permutation test needs per-user metric values: " +
                           ("p-value from the simultaneous bound" if can_bound else "no p-value"))
        if used == "permutation":
            from ocef.validation import check_resources

            check_resources(f"n_resamples={n_resamples} (the max-t permutation test recomputes every group's mean and "
                            f"standard error twice per resample; test='bound' needs none)",
                            work=_maxt_work(rows.size, n_resamples), what="steps")
            index = {c: i for i, c in enumerate(oracle.valid_cells.tolist())}
            codes = np.concatenate([np.full(oracle.size(c)[0], index[c], dtype=np.int64)
                                    for c in oracle.valid_cells.tolist()])
            users = np.concatenate([oracle.members(c) for c in oracle.valid_cells.tolist()])
            searched = np.array([index[c] for c in cells.tolist()], dtype=np.int64)
            maxt = maxt_inference(values[users], codes, oracle.valid_cells.size, searched, confidence=confidence,
                                  n_resamples=n_resamples, rng=perm_gen, bounds=oracle.bounds, progress=progress)
            p_value, uf_lower = maxt["p_value"], maxt["uf_lower"]
            ci = {c: (l_, h_) for c, l_, h_ in zip(cells.tolist(), maxt["ci_low"].tolist(), maxt["ci_high"].tolist())}
            reasons = [r for r in reasons if not r.startswith("no valid interval: the metric's range")]
            if maxt["reason"]:
                reasons.append(maxt["reason"])
    if used == "bound" and can_bound and hi is not None:
        p_value = bound_p_value(vals, sizes, oracle.n_groups, bounds=oracle.bounds)
    if test is None:
        reasons.append("no test requested (test=None)")
    inference_seconds = time.perf_counter() - t1

    def group(c):
        l_, h_ = ci.get(int(c), (float("nan"), float("nan")))
        return oracle.group(c, l_, h_)

    order = np.argsort(-vals, kind="stable")
    top_adv = [group(c) for c in cells[order][:top_n]]
    top_dis = [group(c) for c in cells[order[::-1]][:top_n]]
    adv, dis = (group(hi), group(lo)) if hi is not None else (None, None)
    params = {"epsilon": eps, "n_iter": iters, "epsilon_rule": "auto" if epsilon == "auto" else "default" if epsilon is None else "fixed",
              "epsilon_base": epsilon_base, "alpha": alpha, "c1": c1, "c2": c2, "vmax": vmax, "theta": theta,
              "max_evaluations": max_evaluations, "max_cost": max_cost, "group_cost": group_cost,
              "n_particles": n_pt, "n_particles_rule": pt_rule, "bounds": list(oracle.bounds) if oracle.bounds else None,
              "test_requested": test, "n_resamples": int(n_resamples),
              "bound_method": ("studentized max-t (permutation and bootstrap, over all valid groups)"
                               if maxt is not None else "Chernoff-Hoeffding KL, Bonferroni over the valid groups"
                               if can_bound else None),
              "maxt_statistic": maxt["statistic"] if maxt is not None else None,
              "maxt_critical": (maxt["critical"] if maxt is not None and np.isfinite(maxt["critical"]) else None),
              "p_permutation": maxt["p_permutation"] if maxt is not None else None,
              "p_bootstrap": maxt["p_bootstrap"] if maxt is not None else None,
              "groups_evaluated": int(n_eval), "groups_valid": int(oracle.n_groups)}
    significant = bool(p_value <= 1 - confidence + 1e-12) if p_value == p_value else None
    if maxt is not None and p_value == p_value:
        significant = maxt["significant"]                  # the same decision as uf_lower > 0
    return FairRecResult(method=method, metric=oracle.name, uf=float(uf), advantaged=adv, disadvantaged=dis,
                         infobase=infobase, n_evaluations=n_eval, n_users_queried=n_uq, n_queries=n_q, cost=cost,
                         n_invalid_visits=oracle.n_invalid_visits, n_groups=oracle.n_groups,
                         n_cells=oracle.n_cells, min_users=oracle.min_users, seconds=seconds,
                         top_advantaged=top_adv, top_disadvantaged=top_dis, params=params,
                         uf_lower=uf_lower, p_value=p_value, significant=significant, confidence=float(confidence),
                         test=used if hi is not None else None,
                         n_resamples=int(n_resamples) if used == "permutation" and hi is not None else 0,
                         reason="; ".join(reasons), inference_users_queried=extra_users,
                         inference_queries=extra_queries, inference_seconds=inference_seconds,
                         labels=oracle.labels)
