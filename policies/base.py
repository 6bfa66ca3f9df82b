"""The policy interface: π^m(a|x) for every user m (Sec. 3.1 of Do et al. 2022 (OCEF)).

A policy is a table of probabilities, users x items (context-free, ``n_contexts == 1``)
or users x contexts x items, whose rows sum to one. :class:`ArrayPolicy` wraps an array,
:class:`CallablePolicy` wraps a user-supplied function ``fn(users) -> probs`` (a live
recommender that can only be queried). Every policy samples items vectorized over users
by inverse-CDF on uniform draws.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ocef.validation import as_generator, as_real_array, check_positive_int
from ocef.errors import ParameterError, ParameterTypeError

#: Tolerance on ``|sum_a π(a|x) - 1|`` accepted for a policy row.
ROW_SUM_ATOL = 1e-6


def check_scores(scores, name: str = "scores") -> np.ndarray:
    """Validate a score (or probability) table: finite reals, 2-d (users x items) or 3-d (users x
    contexts x items), non-empty; complex numbers, strings and booleans are refused, not cast.

    Parameters
    ----------
    scores : array_like
        The table, 2-d (users x items) or 3-d (users x contexts x items), non-empty.
    name : str
        The argument's name in error messages.

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> check_scores(np.array([[0.2, np.nan]]))
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: scores must be finite, found ... in row (0,)
    """
    arr = as_real_array(name, scores)      # complex, strings, booleans refused, not cast
    if arr.ndim not in (2, 3):
        raise ParameterError(f"{name} must be a 2-d (users x items) or 3-d (users x contexts x items) "
                         f"array, got shape {arr.shape}")
    if arr.size == 0:
        raise ParameterError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ParameterError(f"{name} must be finite, found {arr[tuple(bad)]!r} in row {tuple(bad[:-1].tolist())}")
    return arr


def check_policy_probs(probs, name: str = "probs", *, atol: float = ROW_SUM_ATOL) -> np.ndarray:
    """Validate policy probabilities π^m(a|x): finite, non-negative, rows summing to 1 within ``atol``
    (not renormalised).

    Parameters
    ----------
    probs : array_like
        The probabilities.
    name : str
        The argument's name in error messages.
    atol : float
        Tolerance on ``|Σ_a π(a|x) - 1|``.

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> check_policy_probs(np.array([[0.5, 0.4], [1.0, 0.0]]))
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: probs rows must sum to 1 (tolerance 1e-06), row (0,) sums to ...
    """
    arr = check_scores(probs, name)
    neg = arr < 0
    if neg.any():
        bad = np.argwhere(neg)[0]
        raise ParameterError(f"{name} must be non-negative probabilities, found {arr[tuple(bad)]!r} "
                         f"in row {tuple(bad[:-1].tolist())} (item {int(bad[-1])})")
    with np.errstate(over="ignore"):                 # entries of 1e308 sum to inf: refused below, quietly
        sums = arr.sum(axis=-1)
    off = ~(np.abs(sums - 1.0) <= atol)
    if off.any():
        bad = tuple(np.argwhere(off)[0].tolist())
        raise ParameterError(f"{name} rows must sum to 1 (tolerance {atol}), row {bad} sums to {sums[bad]!r}")
    return arr


def _check_users(users, n_users: int) -> np.ndarray:
    idx = np.asarray(users)
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if idx.ndim != 1:
        raise ParameterError(f"users must be a 1-d array of user indices, got shape {idx.shape}")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise ParameterTypeError(f"users must be integer indices, got dtype {idx.dtype}")
    idx = idx.astype(np.intp, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n_users):
        bad = idx[(idx < 0) | (idx >= n_users)][:3]
        raise ParameterError(f"users must be in [0, {n_users - 1}], got {bad.tolist()}")
    return idx


def sample_rows(probs: np.ndarray, rng) -> np.ndarray:
    """Draw one item from each row of a probability table by inverse CDF (rows not validated).

    Parameters
    ----------
    probs : numpy.ndarray
        Shape (N, A), rows summing to 1.
    rng : None, int, SeedSequence or Generator
        Draws the N uniforms.

    Returns
    -------
    numpy.ndarray of intp
        N item indices.

    Examples
    --------
    >>> sample_rows(np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]), rng=0)
    array([1, 0])
    """
    gen = as_generator(rng)
    cdf = np.cumsum(probs, axis=-1)
    cdf /= cdf[:, -1:]
    u = gen.random(cdf.shape[0])
    return (cdf <= u[:, None]).sum(axis=-1).astype(np.intp)


class Policy:
    """A recommender system: one stochastic policy π^m(·|x) per user m (Do et al. 2022, Sec. 3.1).

    Subclasses implement ``_probabilities(users)``, of shape (len(users), n_items), or
    (len(users), n_contexts, n_items) if contextual.

    Parameters
    ----------
    n_users : int
        M.
    n_items : int
        |A|.
    n_contexts : int
        |X|.
    contextual : bool
        Whether probabilities are users x contexts x items; implied by ``n_contexts > 1``.

    Examples
    --------
    >>> class Popular(Policy):                     # every user gets item 0
    ...     def _probabilities(self, users):
    ...         return np.tile([1.0, 0.0], (len(users), 1))
    >>> Popular(n_users=3, n_items=2).probabilities([0, 2]).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(self, n_users: int, n_items: int, n_contexts: int = 1, *, contextual: bool = False):
        self._n_users = check_positive_int("n_users", n_users)
        self._n_items = check_positive_int("n_items", n_items)
        self._n_contexts = check_positive_int("n_contexts", n_contexts)
        self._contextual = bool(contextual) or self._n_contexts > 1

    @property
    def n_users(self) -> int:
        return self._n_users

    @property
    def n_items(self) -> int:
        return self._n_items

    @property
    def n_contexts(self) -> int:
        """Number of contexts |X| (1 for a context-free policy)."""
        return self._n_contexts

    @property
    def contextual(self) -> bool:
        """True when probabilities are users x contexts x items."""
        return self._contextual

    @property
    def shape(self) -> tuple[int, ...]:
        if self._contextual:
            return (self._n_users, self._n_contexts, self._n_items)
        return (self._n_users, self._n_items)

    def _probabilities(self, users: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def probabilities(self, users=None) -> np.ndarray:
        """The probabilities π^m(a|x) of some users (default: all users).

        Parameters
        ----------
        users : array_like of int, optional
            User indices (a scalar is one user); None for all users.

        Returns
        -------
        numpy.ndarray
            Shape (n, A), or (n, X, A) for a contextual policy.

        Examples
        --------
        >>> CallablePolicy(lambda users: np.full((len(users), 4), 0.25), n_users=3, n_items=4).probabilities([2])
        array([[0.25, 0.25, 0.25, 0.25]])
        """
        idx = np.arange(self._n_users) if users is None else _check_users(users, self._n_users)
        return self._probabilities(idx)

    def sample(self, users, *, rng=None, contexts=None) -> np.ndarray:
        """Draw one item a ~ π^m(·|x) for each user in ``users`` (vectorized inverse CDF).

        Parameters
        ----------
        users : array_like of int
            Repeats allowed.
        rng : None, int, SeedSequence or Generator, optional
            Draws the items.
        contexts : array_like of int, optional
            One context per user; required for a contextual policy, refused otherwise.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> ArrayPolicy([[[1.0, 0.0], [0.0, 1.0]]]).sample([0, 0], contexts=[0, 1], rng=0)     # 1 user, 2 contexts
        array([0, 1])
        """
        idx = _check_users(users, self._n_users)
        gen = as_generator(rng)
        probs = self.probabilities(idx)
        if self._contextual:
            if contexts is None:
                raise ParameterError("contexts must be given (one context index per user) for a contextual policy")
            ctx = np.asarray(contexts)
            if ctx.shape != idx.shape or (ctx.size and not np.issubdtype(ctx.dtype, np.integer)):
                raise ParameterError(f"contexts must be {idx.shape[0]} integer indices, got {ctx.shape} {ctx.dtype}")
            if ctx.size and (ctx.min() < 0 or ctx.max() >= self._n_contexts):
                raise ParameterError(f"contexts must be in [0, {self._n_contexts - 1}], got {ctx[(ctx < 0) | (ctx >= self._n_contexts)][:3].tolist()}")
            probs = probs[np.arange(idx.size), ctx]
        elif contexts is not None:
            raise ParameterError("contexts given to a context-free policy")
        if idx.size == 0:
            return np.empty(0, dtype=np.intp)
        return sample_rows(probs, gen)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape})"


class ArrayPolicy(Policy):
    """A policy given by its probability table (validated; stored read-only as ``probs``).

    Parameters
    ----------
    probs : array_like
        Users x items or users x contexts x items, non-negative, rows summing to 1 within
        ``atol``.
    atol : float, default ROW_SUM_ATOL (1e-6)
        Tolerance on each row's sum.

    Examples
    --------
    >>> ArrayPolicy(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])).sample([0, 1, 1], rng=0)
    array([1, 2, 2])
    """

    def __init__(self, probs, *, atol: float = ROW_SUM_ATOL):
        arr = check_policy_probs(probs, "probs", atol=atol)
        arr = np.array(arr, dtype=float, copy=True)
        arr.setflags(write=False)
        self._probs = arr
        n_contexts = arr.shape[1] if arr.ndim == 3 else 1
        super().__init__(arr.shape[0], arr.shape[-1], n_contexts, contextual=arr.ndim == 3)

    @property
    def probs(self) -> np.ndarray:
        """The (read-only) probability table of all users."""
        return self._probs

    def probabilities(self, users=None) -> np.ndarray:
        """Rows of the probability table (the read-only table itself when ``users`` is None).

        Parameters
        ----------
        users : array_like of int, optional
            User indices in ``[0, n_users)``; None for all users.

        Returns
        -------
        numpy.ndarray
            Shape (n, A) or (n, X, A).

        Examples
        --------
        >>> ArrayPolicy([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]).probabilities([1]).tolist()
        [[0.0, 0.0, 1.0]]
        """
        if users is None:
            return self._probs
        return self._probs[_check_users(users, self._n_users)]

    def _probabilities(self, users: np.ndarray) -> np.ndarray:
        return self._probs[users]


class CallablePolicy(Policy):
    """A user-supplied recommender ``fn(users) -> probs`` that can only be queried; every answer is
    validated, so a black box that misbehaves raises at the query.

    Parameters
    ----------
    fn : callable
        ``fn(users) -> probs`` for a 1-d array of user indices, shape (len(users), n_items) (or
        (len(users), n_contexts, n_items)).
    n_users, n_items : int
        The shape of the policy (>= 1).
    n_contexts : int
        The policy is contextual when it is more than 1.

    Examples
    --------
    >>> CallablePolicy(lambda users: np.tile([0.2, 0.8], (len(users), 1)), n_users=3, n_items=2).probabilities([0]).tolist()
    [[0.2, 0.8]]
    """

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], n_users: int, n_items: int,
                 n_contexts: int = 1):
        if not callable(fn):
            raise ParameterTypeError(f"fn must be callable, got {type(fn).__name__}")
        self._fn = fn
        super().__init__(n_users, n_items, n_contexts)

    def _probabilities(self, users: np.ndarray) -> np.ndarray:
        out = check_policy_probs(self._fn(users), "fn(users)")
        expected = (users.size,) + self.shape[1:]
        if out.shape != expected:
            raise ParameterError(f"fn(users) must return shape {expected} for {users.size} users, got {out.shape}")
        return out


def as_policy(policy) -> Policy:
    """A policy in any form the audits take, as a :class:`Policy` (a table is wrapped in :class:`ArrayPolicy`).

    Parameters
    ----------
    policy : Policy or array_like
        A Policy (returned as is) or a probability table (wrapped in :class:`ArrayPolicy`).

    Returns
    -------
    Policy

    Examples
    --------
    >>> as_policy([[0.5, 0.5], [0.0, 1.0]])
    ArrayPolicy(shape=(2, 2))
    """
    if isinstance(policy, Policy):
        return policy
    if callable(policy):
        raise ParameterTypeError("wrap a callable in CallablePolicy(fn, n_users, n_items) to say its shape")
    return ArrayPolicy(policy)


def as_probabilities(policy, name: str = "probs") -> np.ndarray:
    """The full probability table of a policy given in any form the audits take (a
    :class:`CallablePolicy` is queried for all users; a table is validated).

    Parameters
    ----------
    policy : Policy or array_like
        A Policy (its ``probabilities()`` of every user, which queries a
        :class:`CallablePolicy` for all users) or a probability table (validated).
    name : str
        The argument's name in error messages.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> as_probabilities(CallablePolicy(lambda users: np.tile([0.25, 0.75], (len(users), 1)), 2, 2)).tolist()
    [[0.25, 0.75], [0.25, 0.75]]
    """
    if isinstance(policy, Policy):
        return policy.probabilities()
    return check_policy_probs(policy, name)
