"""Inputs of the off-policy audit: a log with logged propensities and a target policy.

The **log** has one row per logged action: ``user, item, reward, propensity`` (the logging
policy's probability of that action in that context, in (0, 1]), optionally ``position`` (the slot
of a ranking: the context is then ``(user, position)``) and group columns; a file, folder or glob
read by DuckDB (:func:`ocef.backends._duckdb_relation`), a pandas DataFrame, or a dict of columns. The
audit reads every table as numpy columns (:mod:`ocef.offpolicy.columns`), without pandas.

The **target** is given in one of three forms, all turned into one table of action probabilities
per context (:func:`target_table`):

(a) a table ``[user,] item [, position], probability [, reward_hat]`` — the target's probability
    of each action in each context (no ``user`` column: the same for every user); per context
    the probabilities sum to at most 1;
(b) a deterministic top-k log ``user, item, rank`` (no ``probability``): with ``position`` in the
    log the target puts ``item`` in slot ``rank`` with probability 1; without it, the target shows
    one of its ``k`` items uniformly (probability ``1/k``) and *recommends* each of them (the
    recommendation probability ``recommended`` is 1, what REO's P(recommended | relevant) uses);
    an optional ``reward`` column holds the target's own observed rewards (on-policy feedback,
    e.g. REO's default traffic);
(c) in Python a :class:`ScoredTarget`: a scoring function ``score(users) -> (n_users, n_items)``
    array and a sampler (``"softmax"``, ``"topk"``, ``"epsilon-greedy"``, or any function from a
    score matrix to a row-stochastic matrix, e.g. a lottery of the mitigation loop).
"""
from __future__ import annotations

import os
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.offpolicy.columns import (check_keys, factorize, key_codes, n_rows, read_columns, read_file, sum_by,
                                   to_float, unique)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LOG_COLUMNS", "SAMPLERS", "ScoredTarget", "read_table", "check_log", "target_table"]

#: Columns every off-policy log has.
LOG_COLUMNS = ("user", "item", "reward", "propensity")
#: Named samplers of :class:`ScoredTarget`.
SAMPLERS = ("softmax", "topk", "epsilon-greedy")
_TOL = 1e-9


def read_table(source, *, name: str = "log", columns: dict | None = None) -> pd.DataFrame:
    """A log or target table as a pandas DataFrame (CSV or Parquet file, folder, glob, or a frame).

    The audit itself reads its tables as numpy columns (:func:`ocef.offpolicy.columns.read_columns`).

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        The table; files are read by DuckDB.
    name : str, default "log"
        The argument's name, for messages.
    columns : dict, optional
        ``{role: column}`` renames (e.g. ``{"propensity": "propensity_score"}``).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ocef.errors.ParameterTypeError
        For anything but a path or a DataFrame.

    Examples
    --------
    >>> read_table(pd.DataFrame({"uid": [1], "item": [2]}), columns={"user": "uid"}).columns.tolist()
    ['user', 'item']
    """
    import pandas as pd

    if isinstance(source, (str, os.PathLike)):
        frame = read_file(source, name=name, as_="pandas")
    elif isinstance(source, pd.DataFrame):
        frame = source
    else:
        raise ParameterTypeError(f"{name} must be a file path or a pandas DataFrame, got {type(source).__name__}")
    return frame.rename(columns={v: k for k, v in (columns or {}).items()})


def check_log(log, *, name: str = "log"):
    """Check an off-policy log: the columns of :data:`LOG_COLUMNS`, propensities in (0, 1], finite rewards.

    Parameters
    ----------
    log : pandas.DataFrame or dict of str to numpy.ndarray
        One row per logged action (a DataFrame, or columns).
    name : str, default "log"
        For messages.

    Returns
    -------
    pandas.DataFrame or dict
        ``log`` itself.

    Raises
    ------
    ocef.errors.DataError
        A missing column, an empty log, a missing user, item or position, a propensity outside
        (0, 1], a missing or infinite reward.

    Examples
    --------
    >>> log = pd.DataFrame({"user": [0], "item": [1], "reward": [1.0], "propensity": [0.0]})
    >>> check_log(log)
    Traceback (most recent call last):
    ...
    ocef.errors.DataError: log: propensity must lie in (0, 1] (a logged action has a positive probability), got 0.0 in row 0
    """
    table = log if isinstance(log, dict) else read_columns(log, name=name)
    missing = [c for c in LOG_COLUMNS if c not in table]
    if missing:
        raise DataError(f"{name} has no column {', '.join(missing)} (an off-policy log has {', '.join(LOG_COLUMNS)})")
    if n_rows(table) == 0:
        raise DataError(f"{name} is empty")
    check_keys(table, ("user", "item", "position"), name=name)
    p = to_float(table["propensity"])
    bad = ~((p > 0) & (p <= 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise DataError(f"{name}: propensity must lie in (0, 1] (a logged action has a positive probability), "
                        f"got {float(p[i])!r} in row {i}")
    r = to_float(table["reward"])
    if not np.isfinite(r).all():
        i = int(np.argmax(~np.isfinite(r)))
        raise DataError(f"{name}: reward must be a finite number, got {table['reward'][i]!r} in row {i}")
    return log


@dataclass(frozen=True)
class ScoredTarget:
    """A target policy in Python: a scoring function and a sampler.

    Parameters
    ----------
    score : callable
        ``score(users) -> array (len(users), n_items)``: scores of every item for each user (items
        are ``0 .. n_items - 1``, or ``items``).
    sampler : {"softmax", "topk", "epsilon-greedy"} or callable, default "softmax"
        How scores become action probabilities: softmax with ``temperature``; uniform over the top
        ``k``; ε-greedy (``1 - epsilon`` on the argmax, ``epsilon`` uniform); or a function from the
        score matrix to a row-stochastic matrix (e.g. a lottery of the mitigation loop).
    temperature : float, default 1.0
    k : int, default 1
    epsilon : float, default 0.1
    items : array_like, optional
        Item ids of the score columns (default ``0 .. n_items - 1``).

    Examples
    --------
    >>> t = ScoredTarget(lambda users: np.array([[0.0, 1.0, 3.0]] * len(users)), sampler="topk", k=2)
    >>> t.probabilities(np.array([7])).tolist()
    [[0.0, 0.5, 0.5]]
    """

    score: Callable
    _: KW_ONLY
    sampler: str | Callable = "softmax"
    temperature: float = 1.0
    k: int = 1
    epsilon: float = 0.1
    items: object = None

    def probabilities(self, users) -> np.ndarray:
        """The target's action probabilities for ``users``: an array (len(users), n_items), rows summing to 1.

        Parameters
        ----------
        users : array_like
            The users (contexts).

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        ocef.errors.ParameterError
            An unknown sampler, or a callable sampler whose rows are not distributions.

        Examples
        --------
        >>> t = ScoredTarget(lambda users: np.zeros((len(users), 4)), sampler="epsilon-greedy", epsilon=0.4)
        >>> t.probabilities([0]).round(2).tolist()
        [[0.7, 0.1, 0.1, 0.1]]
        """
        s = np.asarray(self.score(np.asarray(users)), dtype=float)
        if s.ndim != 2 or s.shape[0] != len(users):
            raise ParameterError(f"score(users) must return an array (len(users), n_items), got shape {s.shape}")
        n_items = s.shape[1]
        if callable(self.sampler):
            p = np.asarray(self.sampler(s), dtype=float)
        elif self.sampler == "softmax":
            z = (s - s.max(axis=1, keepdims=True)) / self.temperature
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
        elif self.sampler == "topk":
            if not 1 <= self.k <= n_items:
                raise ParameterError(f"k must be in 1..{n_items}, got {self.k}")
            top = np.argsort(-s, axis=1, kind="stable")[:, : self.k]
            p = np.zeros_like(s)
            np.put_along_axis(p, top, 1.0 / self.k, axis=1)
        elif self.sampler == "epsilon-greedy":
            if not 0 <= self.epsilon <= 1:
                raise ParameterError(f"epsilon must be in [0, 1], got {self.epsilon}")
            p = np.full_like(s, self.epsilon / n_items)
            p[np.arange(len(s)), s.argmax(axis=1)] += 1 - self.epsilon
        else:
            raise ParameterError(f"sampler must be one of {SAMPLERS} or a callable, got {self.sampler!r}")
        if p.shape != s.shape or (p < -_TOL).any() or np.abs(p.sum(axis=1) - 1).max() > 1e-6:
            raise ParameterError("the sampler must return a row-stochastic matrix of the scores' shape")
        return p

    def table(self, users) -> pd.DataFrame:
        """The target table ``user, item, probability`` of form (a) for ``users`` (nonzero probabilities).

        Parameters
        ----------
        users : array_like
            Distinct users.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> ScoredTarget(lambda u: np.array([[0.0, 1.0]] * len(u)), sampler="topk").table([5])
           user  item  probability
        0     5     1          1.0
        """
        import pandas as pd

        return pd.DataFrame(self._columns(users))

    def _columns(self, users) -> dict:
        users = np.asarray(users)
        p = self.probabilities(users)
        items = np.arange(p.shape[1]) if self.items is None else np.asarray(self.items)
        u, i = np.nonzero(p > 0)
        return {"user": users[u], "item": items[i], "probability": p[u, i]}


def target_table(target, log, *, name: str = "target") -> tuple[pd.DataFrame, dict]:
    """The target as one table of action probabilities per context, checked.

    Parameters
    ----------
    target : pandas.DataFrame, path or ScoredTarget
        Form (a), (b) or (c) of the module docstring.
    log : pandas.DataFrame
        The checked log (its users and whether it has ``position``).
    name : str, default "target"
        For messages.

    Returns
    -------
    table : pandas.DataFrame
        ``[user,] item, [position,] probability, recommended [, reward_hat]``.
    info : dict
        ``form`` ("probabilities", "top-k" or "scored"), ``keys`` (the context columns),
        ``on_policy`` (the target's own rewards, a frame ``user, item, reward``, or None).

    Raises
    ------
    ocef.errors.DataError
        Missing columns, probabilities outside [0, 1] or summing to more than 1 in a context.

    Examples
    --------
    >>> log = pd.DataFrame({"user": [0, 1], "item": [0, 1], "reward": [1, 0], "propensity": [0.5, 0.5]})
    >>> topk = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 1, 2], "rank": [1, 2, 1, 2]})
    >>> table, info = target_table(topk, log)
    >>> info["form"], table["probability"].tolist(), table["recommended"].tolist()
    ('top-k', [0.5, 0.5, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0])
    """
    import pandas as pd

    table, info = target_columns(target, read_columns(log, name="log"), name=name)
    if info["on_policy"] is not None:
        info["on_policy"] = pd.DataFrame(info["on_policy"])
    return pd.DataFrame(table), info


def target_columns(target, log: dict, *, name: str = "target") -> tuple[dict, dict]:
    """:func:`target_table` on columns: the target's table and ``info``, for a log given as columns.

    Parameters
    ----------
    target : pandas.DataFrame, path, dict of columns or ScoredTarget
        Form (a), (b) or (c) of the module docstring.
    log : dict of str to numpy.ndarray
        The checked log.
    name : str, default "target"
        For messages.

    Returns
    -------
    table : dict of str to numpy.ndarray
    info : dict
        As :func:`target_table`'s, ``on_policy`` as columns.

    Raises
    ------
    ocef.errors.DataError
        As :func:`target_table`.

    Examples
    --------
    >>> log = {"user": np.array([0, 1]), "item": np.array([0, 1])}
    >>> table, info = target_columns({"item": [0, 1], "probability": [0.5, 0.25]}, log)
    >>> info["keys"], table["recommended"].tolist()
    ([], [0.5, 0.25])
    """
    on_policy = None
    if isinstance(target, ScoredTarget):
        table = target._columns(unique(log["user"]))
        form = "scored"
    else:
        table = dict(read_columns(target, name=name))
        if "item" not in table:
            raise DataError(f"{name} has no column item")
        check_keys(table, ("user", "item", "position"), name=name)
        if "probability" in table:
            form = "probabilities"
        elif "rank" in table:
            form = "top-k"
            if "user" not in table:
                raise DataError(f"{name}: a top-k target log needs a user column")
            if "reward" in table:
                on_policy = {c: table[c].copy() for c in ("user", "item", "reward")}
            if "position" in log:
                table["position"] = table.pop("rank")
                table["probability"] = np.ones(n_rows(table))
            else:
                del table["rank"]
                codes, n = factorize(table["user"])
                table["probability"] = 1.0 / np.bincount(codes, minlength=n)[codes]
                table["recommended"] = np.ones(len(codes))
            table.pop("reward", None)
        else:
            raise DataError(f"{name} needs a probability column (action probabilities) or a rank column "
                            "(a deterministic top-k log)")
    keys = [c for c in ("user", "position") if c in table and c in log]
    if "position" in table and "position" not in log:
        raise DataError(f"{name} has a position column but the log has none")
    prob = to_float(table["probability"])
    if not ((prob >= 0) & (prob <= 1)).all():
        i = int(np.argmax(~((prob >= 0) & (prob <= 1))))
        raise DataError(f"{name}: probability must lie in [0, 1], got {float(prob[i])!r} in row {i}")
    table["probability"] = prob
    if len(prob) and key_codes([table[c] for c in keys + ["item"]])[1] < len(prob):
        raise DataError(f"{name}: an item appears twice in one context ({', '.join(keys + ['item'])})")
    sums = sum_by(*key_codes([table[c] for c in keys]), prob) if keys else np.array([prob.sum()])
    if (sums > 1 + 1e-6).any():
        raise DataError(f"{name}: the probabilities of a context sum to {float(sums.max()):.6g} > 1 "
                        f"(context columns: {', '.join(keys) or 'none'})")
    if "recommended" not in table:
        table["recommended"] = prob.copy()
    if "reward_hat" in table:
        table["reward_hat"] = to_float(table["reward_hat"])
    return table, {"form": form, "keys": keys, "on_policy": on_policy}
