"""The registry of fair re-rankers and their common interface.

Every re-ranker takes ONE user's candidates and returns a :class:`~ocef.mitigate.lottery.Lottery`::

    rerank(scores (n,), groups (n,) int codes, k, *, rng, **params) -> Lottery

:data:`RERANKERS` maps each method name to a :class:`Reranker` that declares its parameters
(:mod:`ocef.validation` constraints), their defaults and a default grid, and, for the fast
deterministic methods, a batched function over users (``(n_users, N)`` → ``(n_users, k)``).
:func:`rerank` and :func:`rerank_batch` are the two front doors by method name.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Callable, Mapping

import numpy as np

from ocef.errors import ParameterError
from ocef.mitigate import boost as _boost
from ocef.mitigate import calibrated as _cal
from ocef.mitigate import detconstsort as _dcs
from ocef.mitigate import epsilon_greedy as _eg
from ocef.mitigate import expohedron as _expo
from ocef.mitigate import exposure_lp as _lp
from ocef.mitigate import fair as _fair
from ocef.mitigate.lottery import Lottery, check_candidate_matrix
from ocef.validation import Constraint, check_positive_int

__all__ = ["Reranker", "RERANKERS", "rerank", "rerank_batch", "get_reranker"]


@dataclasses.dataclass(frozen=True)
class Reranker:
    """One registered re-ranking method.

    Parameters
    ----------
    name : str
        The method name (the key in :data:`RERANKERS`, the ``--method`` of ``ocef mitigate``).
    rerank : callable
        ``rerank(scores, groups, k, *, rng=None, **params) -> Lottery`` for one user's candidates.
    params : mapping of str to Constraint
        The method's parameters and their declared constraints.
    defaults : mapping of str to object
        The value of each parameter when not given.
    grid : list of dict
        The default grid: one dict of parameter values per setting.
    batch : callable or None
        ``batch(scores (n_users, N), groups (n_users, N), k, **params) -> (n_users, k)`` for the
        deterministic methods vectorized over users; None for the others.
    stochastic : bool
        Whether the method returns a lottery of several rankings (or draws at random).
    reference : str
        The paper and the reference code it equals.

    Examples
    --------
    >>> r = RERANKERS["boost"]
    >>> r.name, sorted(r.params), r.stochastic
    ('boost', ['amount', 'protected'], False)
    >>> r.check_params({"amount": 0.5})
    {'protected': 1, 'amount': 0.5}
    """

    name: str
    rerank: Callable
    params: Mapping[str, Constraint]
    defaults: Mapping[str, object]
    grid: list
    batch: Callable | None = None
    stochastic: bool = False
    reference: str = ""

    def check_params(self, params: Mapping[str, object]) -> dict:
        """The full parameter dict: ``params`` checked against the declarations, defaults filled in.

        Parameters
        ----------
        params : mapping
            Some of the method's parameters.

        Returns
        -------
        dict
            Every declared parameter, in declaration order.

        Raises
        ------
        ocef.errors.ParameterError
            An unknown parameter name or a value outside its constraint.

        Examples
        --------
        >>> RERANKERS["boost"].check_params({})
        {'protected': 1, 'amount': 0.1}
        """
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ParameterError(f"method {self.name!r} has no parameter(s) {unknown}; "
                                 f"its parameters are {sorted(self.params)}")
        return {name: c.check(name, params[name]) if name in params else self.defaults[name]
                for name, c in self.params.items()}


def _entry(name: str, func: Callable, grid: list, *, batch=None, stochastic=False, reference="") -> Reranker:
    declared = dict(func.__declared_params__)
    declared.pop("k", None)
    declared.pop("rng", None)
    sig = inspect.signature(func).parameters
    defaults = {p: sig[p].default for p in declared}
    return Reranker(name, func, declared, defaults, grid, batch, stochastic, reference)


#: method name -> :class:`Reranker`.
RERANKERS: dict[str, Reranker] = {
    "fair": _entry("fair", _fair.fair_rerank, [{"protected": 1, "p": p, "alpha": 0.1} for p in (0.3, 0.5, 0.7)],
                   batch=_fair.fair_batch,
                   reference="Zehlike et al. (CIKM 2017); equals fairsearchcore 1.0.4"),
    "detconstsort": _entry("detconstsort", _dcs.detconstsort_rerank,
                           [{"target": "proportional"}, {"target": "equal"}], batch=_dcs.detconstsort_batch,
                           reference="Geyik et al. (KDD 2019), Algorithm 3; equals FairRankTune 0.0.7"),
    "epsilon-greedy": _entry("epsilon-greedy", _eg.epsilon_greedy_rerank,
                             [{"epsilon": e, "legacy_seed": None} for e in (0.05, 0.1, 0.2)], stochastic=True,
                             reference="Feng & Shah (AAAI 2022); equals FairRankTune 0.0.7"),
    "calibrated": _entry("calibrated", _cal.calibrated_rerank, [{"lam": lam, "target": None} for lam in (0.1, 0.5, 0.9)],
                         reference="Steck (RecSys 2018); equals librec-auto cali_rerank.py @26022e2"),
    "lp": _entry("lp", _lp.lp_rerank, [{"lam": lam} for lam in (1.0, 10.0, 1000.0)], stochastic=True,
                 reference="Singh & Joachims (KDD 2018) LP + Birkhoff-von Neumann; Fair-PGRank fair_rank with HiGHS"),
    "expohedron": _entry("expohedron", _expo.expohedron_rerank,
                         [{"alpha": a, "fairness": "group"} for a in (0.0, 0.5, 0.9)], stochastic=True,
                         reference="Kletti et al. (WSDM 2022); equals naver/expohedron @30bf252"),
    "boost": _entry("boost", _boost.boost_rerank, [{"protected": 1, "amount": a} for a in (0.05, 0.1, 0.25, 0.5)],
                    batch=_boost.boost_batch, reference="score boost (baseline)"),
}


def get_reranker(method: str) -> Reranker:
    """The :class:`Reranker` registered under ``method``.

    Parameters
    ----------
    method : str
        One of the keys of :data:`RERANKERS`.

    Returns
    -------
    Reranker

    Raises
    ------
    ocef.errors.ParameterError
        An unknown method.

    Examples
    --------
    >>> get_reranker("boost").name
    'boost'
    """
    if not isinstance(method, str) or method not in RERANKERS:
        raise ParameterError(f"method must be one of {', '.join(map(repr, RERANKERS))}, got {method!r}")
    return RERANKERS[method]


def rerank(method: str, scores, groups, k, *, rng=None, **params) -> Lottery:
    """Re-rank one user's candidates with the registered ``method``.

    Parameters
    ----------
    method : str
        A key of :data:`RERANKERS`.
    scores : array-like of float, shape (n_candidates,)
    groups : array-like of int, shape (n_candidates,)
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        For the methods that draw at random.
    **params
        The method's parameters (see ``RERANKERS[method].params``).

    Returns
    -------
    Lottery

    Examples
    --------
    >>> rerank("boost", [0.9, 0.8, 0.75], [0, 0, 1], 2, amount=0.2).rankings
    array([[2, 0]])
    """
    r = get_reranker(method)
    return r.rerank(scores, groups, k, rng=rng, **r.check_params(params))


def rerank_batch(method: str, scores, groups, k, *, chunk_size: int = 65536, **params) -> np.ndarray:
    """Re-rank many users' candidates at once with a deterministic ``method`` (vectorized, in chunks).

    The rows are processed ``chunk_size`` users at a time, so the temporary memory is bounded by the
    chunk whatever the number of users; each row gives the same list as :func:`rerank` on that user.

    Parameters
    ----------
    method : str
        A method with a batched form: ``boost``, ``detconstsort`` or ``fair``.
    scores : array-like of float, shape (n_users, n_candidates)
    groups : array-like of int, shape (n_users, n_candidates)
    k : int
        1 <= k <= n_candidates.
    chunk_size : int, default 65536
        Users per chunk.
    **params
        The method's parameters.

    Returns
    -------
    numpy.ndarray of int64, shape (n_users, k)
        Candidate indices of each user's list, best first.

    Raises
    ------
    ocef.errors.ParameterError
        A method without a batched form, or the errors of :func:`rerank`.

    Examples
    --------
    >>> rerank_batch("boost", [[0.9, 0.8, 0.75], [0.3, 0.2, 0.1]], [[0, 0, 1], [1, 0, 0]], 2)
    array([[0, 2],
           [0, 1]])
    """
    r = get_reranker(method)
    if r.batch is None:
        batched = [n for n, e in RERANKERS.items() if e.batch is not None]
        raise ParameterError(f"method {method!r} has no batched form; use rerank() per user or one of {batched}")
    chunk_size = check_positive_int("chunk_size", chunk_size)
    full = r.check_params(params)
    s = np.asarray(scores)
    g = np.asarray(groups)
    if s.ndim != 2:
        raise ParameterError(f"scores must be a 2-d array (n_users, n_candidates), got shape {s.shape}")
    if g.shape != s.shape:
        raise ParameterError(f"groups must have the shape of scores {s.shape}, got {g.shape}")
    k = check_positive_int("k", k)
    if k > s.shape[1]:
        raise ParameterError(f"k must be at most the number of candidates ({s.shape[1]}), got {k}")
    out = np.empty((s.shape[0], k), dtype=np.int64)
    for start in range(0, s.shape[0], chunk_size):
        sc, gc, _ = check_candidate_matrix(s[start:start + chunk_size], g[start:start + chunk_size], k)
        out[start:start + chunk_size] = r.batch(sc, gc, k, **full)
    return out

