"""The browsing model: how much attention a user gives each position of a ranking.

One :class:`BrowsingModel` holds a model's weights once and renders them for numpy
(:meth:`BrowsingModel.weights`) and for SQL in the DuckDB and Spark dialects
(:meth:`BrowsingModel.sql`). Positions ``k`` are 1-based; ``above`` is the number of relevant
items (relevance > 0) above position k in the same ranking:

- ``"geometric"`` (RBP, Moffat & Zobel 2008; diazf/expeval ``rbp``): ``e_k = p^(k-1)``, no ``(1 - p)``
  factor (it cancels in every share);
- ``"dcg"`` (logarithmic; Singh & Joachims 2018, Fair-PGRank's ``position_bias_vector``):
  ``e_k = 1 / log2(k + 1)``;
- ``"cascade"`` (gERR, Chapelle et al. 2009, Sec. 7.2; expeval ``gerr``): ``e_k = p^(k-1) (1 - u)^above``
  with ``u`` the stop probability; graded relevance counts once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.validation import Options, Real

__all__ = ["BROWSING_MODELS", "BROWSING_PARAMS", "BrowsingModel"]

BROWSING_MODELS = ("geometric", "dcg", "cascade")
#: The declarations of the browsing parameters, shared by every front door that takes them.
BROWSING_PARAMS = {"browsing": Options(*BROWSING_MODELS), "patience": Real(0, 1, closed="neither"),
                   "stop": Real(0, 1)}


@dataclass(frozen=True)
class BrowsingModel:
    """A browsing model and its parameters, with its weights in numpy and in SQL.

    Parameters
    ----------
    name : {"geometric", "dcg", "cascade"}, default "geometric"
        The model (module docstring).
    patience : float, default 0.5
        ``p`` in (0, 1): probability of going on to the next position (geometric, cascade).
    stop : float, default 0.5
        ``u`` in [0, 1]: the cascade's probability of stopping after a relevant item.

    Examples
    --------
    >>> BrowsingModel("cascade", 0.5, 0.5).weights([1, 2, 3], above=[0, 1, 1]).tolist()
    [1.0, 0.25, 0.125]
    >>> BrowsingModel("dcg").sql("_k")
    'CAST(1 AS DOUBLE) / log2(_k + 1)'
    """

    name: str = "geometric"
    patience: float = 0.5
    stop: float = 0.5

    def __post_init__(self):
        BROWSING_PARAMS["browsing"].check("browsing", self.name)
        object.__setattr__(self, "patience", BROWSING_PARAMS["patience"].check("patience", self.patience))
        object.__setattr__(self, "stop", BROWSING_PARAMS["stop"].check("stop", self.stop))

    @property
    def uses_relevance(self) -> bool:
        """Whether the weights depend on the relevance above a position (the cascade).

        Returns
        -------
        bool

        Examples
        --------
        >>> BrowsingModel("cascade").uses_relevance, BrowsingModel("dcg").uses_relevance
        (True, False)
        """
        return self.name == "cascade"

    def weights(self, ranks, above=None) -> np.ndarray:
        """Exposure of positions ``ranks`` with ``above`` relevant items above each (cascade only).

        Parameters
        ----------
        ranks : array_like of float
            Positions, 1 = top.
        above : array_like of float, optional
            Relevant items above each position (cascade; default 0: the geometric model).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> BrowsingModel("geometric", 0.8).weights([1, 2, 3]).round(3).tolist()
        [1.0, 0.8, 0.64]
        """
        k = np.asarray(ranks, dtype=float)
        if self.name == "dcg":
            return 1.0 / np.log2(k + 1.0)
        e = self.patience ** (k - 1.0)
        if self.name == "cascade" and above is not None:
            e = e * (1.0 - self.stop) ** np.asarray(above, dtype=float)
        return e

    def sql(self, rank: str, above: str | None = None) -> str:
        """The same weight as an SQL expression (DuckDB and Spark share it).

        Parameters
        ----------
        rank : str
            SQL expression of the position (a DOUBLE, 1 = top).
        above : str, optional
            SQL expression of the relevant items above (cascade; without it, the geometric model).

        Returns
        -------
        str

        Examples
        --------
        >>> BrowsingModel("cascade", 0.5, 0.25).sql("_k", "_a")
        'pow(CAST(0.5 AS DOUBLE), _k - 1) * pow(CAST(0.75 AS DOUBLE), _a)'
        """
        if self.name == "dcg":
            return f"CAST(1 AS DOUBLE) / log2({rank} + 1)"
        e = f"pow(CAST({self.patience!r} AS DOUBLE), {rank} - 1)"
        if self.name == "cascade" and above is not None:
            e += f" * pow(CAST({1.0 - self.stop!r} AS DOUBLE), {above})"
        return e

    def above_sql(self, partition: str) -> str:
        """SQL of the relevant items (``_y > 0``) above each row of a ranking (a window over ``partition``).

        Parameters
        ----------
        partition : str
            The columns identifying one ranking (e.g. ``"_u, _s"``).

        Returns
        -------
        str

        Examples
        --------
        >>> "PARTITION BY _u" in BrowsingModel("cascade").above_sql("_u")
        True
        """
        return (f"coalesce(sum(CASE WHEN _y > 0 THEN 1 ELSE 0 END) OVER (PARTITION BY {partition} "
                "ORDER BY _k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)")

    def log_weights(self, rank, ranking, relevance) -> np.ndarray:
        """The exposure of every row of a log: ``rank``, the ranking each row belongs to, its relevance.

        Parameters
        ----------
        rank : numpy.ndarray of float
            Position of each row.
        ranking : numpy.ndarray of int
            Code of the ranking (user and sample) of each row.
        relevance : numpy.ndarray of float
            Relevance of each row (the cascade counts those > 0 above).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> m = BrowsingModel("cascade", 0.5, 0.5)
        >>> m.log_weights(np.array([2.0, 1.0, 1.0]), np.array([0, 0, 1]), np.array([0.0, 1.0, 1.0])).tolist()
        [0.25, 1.0, 1.0]
        """
        if not self.uses_relevance:
            return self.weights(rank)
        order = np.lexsort((rank, ranking))
        rel = (relevance[order] > 0).astype(float)
        cum = np.cumsum(rel)
        start = np.r_[0, np.flatnonzero(np.diff(ranking[order])) + 1]
        first = np.repeat(cum[start] - rel[start], np.diff(np.r_[start, len(order)]))
        above = np.empty(len(order))
        above[order] = cum - rel - first
        return self.weights(rank, above)

    def ideal_above(self, position, relevance, level_start):
        """The relevant items above a position of the ideal ranking, as expeval counts them for the
        target exposure: ``position - 1`` for a relevant item, the items above its level (``level_start
        - 1``) for the others (Diaz et al. 2020, Sec. 4; expeval ``exposure.target``).

        Parameters
        ----------
        position, relevance, level_start : array_like
            Position in the ideal ranking (1-based), relevance, first position of the item's level.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> BrowsingModel("cascade").ideal_above([1, 2, 3], [1, 1, 0], [1, 1, 3]).tolist()
        [0.0, 1.0, 2.0]
        """
        j = np.asarray(position, dtype=float)
        return np.where(np.asarray(relevance) > 0, j - 1.0, np.asarray(level_start, dtype=float) - 1.0)

    def ideal_above_sql(self, position: str, level_start: str) -> str:
        """:meth:`ideal_above` in SQL (``_y`` the relevance).

        Parameters
        ----------
        position, level_start : str
            SQL expressions.

        Returns
        -------
        str

        Examples
        --------
        >>> BrowsingModel("cascade").ideal_above_sql("_j", "_j0")
        'CASE WHEN _y > 0 THEN _j - 1 ELSE _j0 - 1 END'
        """
        return f"CASE WHEN _y > 0 THEN {position} - 1 ELSE {level_start} - 1 END"
