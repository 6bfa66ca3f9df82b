"""Matching policies between groups: average group policies and transported policies (Sec. 4, Do et al. 2022 (OCEF)).

For groups g_i, g_k and a user m ∈ g_i, a matching policy is a mixture of the policies
of g_k (eq. (4)):  π_k^m = Σ_{n∈g_k} γ_{m,n} π^n,  γ_{m,n} ≥ 0,  Σ_n γ_{m,n} = 1.

- average group policy: γ_{m,n} = 1/|g_k|;
- transported policy (Def. 4.2): γ̃^{i,k} is an optimal transport plan between the uniform
  distributions on g_i and g_k for the cost c_{m,n} = sup_x ||π^m(·|x) − π^n(·|x)||_1,
  solved exactly with POT's network simplex ``ot.emd``, and γ = |g_i| γ̃ (rows sum to 1).

:func:`mixture_weights` computes γ for every ordered pair of groups (i, k), i = k included,
once; the result is reused by :mod:`ocef.envy.exact` and by the audit's PULL-ARM.

The optimal plan of Def. 4.2 need not be unique: L1 costs tie often (e.g. for two pairs
of policies ordered alike on every item, ||a−c|| + ||b−d|| = ||a−d|| + ||b−c||), and
argmax policies have costs in {0, 2} only; μ_k^i (k ≠ i) may depend on the plan chosen, while
μ_i^i = μ^i (Prop. 4) holds for every optimal plan. The plan is therefore chosen
*canonically*, so that the same system gives the same envy whatever the order of its users and
the names of its groups: users with identical policies are pooled into one class (mass ∝ their
multiplicity), classes are taken in a canonical order of their policies (by their bytes), the pair of
groups is solved in the orientation fixed by the groups' content (not their index), ``ot.emd``
solves the class problem, and a class's plan is spread over its members ∝ multiplicity
(:func:`canonical_plan`). Pooling keeps optimality, since identical policies have identical costs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ocef.envy.groups import check_partition, group_members
from ocef.policies.base import as_probabilities, sample_rows
from ocef.errors import ParameterError

MATCHINGS = ("transport", "average")
#: Policies with at most this fraction of non-zero probabilities use the sparse L1 path.
SPARSE_DENSITY = 0.02


def _as_probs(probs, name: str) -> np.ndarray:
    return as_probabilities(probs, name)


def policy_distance(probs_a, probs_b=None) -> np.ndarray:
    """Transport cost c_{m,n} = sup_x ||π^m(·|x) − π^n(·|x)||_1 between users' policies (Def. 4.2), in
    [0, 2], 0 iff the policies are identical.

    Parameters
    ----------
    probs_a : array_like or Policy, shape (M_a, I) or (M_a, X, I)
        Policies π^m(a|x) of the first users (rows sum to 1).
    probs_b : array_like or Policy, optional
        Same items (and contexts); None: ``probs_a`` (symmetric, computed on half the pairs).

    Returns
    -------
    numpy.ndarray, shape (M_a, M_b)

    Examples
    --------
    >>> policy_distance(np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([[0.0, 1.0], [0.9, 0.1]])).round(6).tolist()
    [[2.0, 0.2], [1.0, 0.8]]
    """
    a = _as_probs(probs_a, "probs_a")
    b = None if probs_b is None else _as_probs(probs_b, "probs_b")
    if b is not None and (a.ndim != b.ndim or a.shape[1:] != b.shape[1:]):
        raise ParameterError(f"probs_a and probs_b must have the same items (and contexts), "
                         f"got shapes {a.shape} and {b.shape}")
    a3 = a[:, None, :] if a.ndim == 2 else a
    b3 = None if b is None else (b[:, None, :] if b.ndim == 2 else b)
    sparse_rows = (np.count_nonzero(a3) <= SPARSE_DENSITY * a3.size
                   and (b3 is None or np.count_nonzero(b3) <= SPARSE_DENSITY * b3.size))
    from scipy.spatial.distance import cdist, pdist, squareform     # scipy.spatial: 0.3 s, when used

    out = None
    for x in range(a3.shape[1]):
        ax = a3[:, x, :]
        bx = ax if b3 is None else b3[:, x, :]
        if sparse_rows:
            d = _l1_sparse(ax, bx)
        elif b3 is None:
            d = squareform(pdist(ax, metric="cityblock")) if ax.shape[0] > 1 else np.zeros((1, 1))
        else:
            d = cdist(ax, bx, metric="cityblock")
        out = d if out is None else np.maximum(out, d)
    return out


def _l1_sparse(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise ||a_m − b_n||_1 = Σa + Σb − 2 Σ min(a, b) of sparse non-negative rows, looping over items."""
    from scipy import sparse

    shared = np.zeros((a.shape[0], b.shape[0]))
    ca, cb = sparse.csc_matrix(a), sparse.csc_matrix(b)
    for item in np.flatnonzero((np.diff(ca.indptr) > 0) & (np.diff(cb.indptr) > 0)):
        ra, va = ca.indices[ca.indptr[item]:ca.indptr[item + 1]], ca.data[ca.indptr[item]:ca.indptr[item + 1]]
        rb, vb = cb.indices[cb.indptr[item]:cb.indptr[item + 1]], cb.data[cb.indptr[item]:cb.indptr[item + 1]]
        shared[np.ix_(ra, rb)] += np.minimum.outer(va, vb)
    shared *= -2.0                       # in place: ||p − q||_1 = Σp + Σq − 2 Σ min(p, q)
    shared += a.sum(axis=1)[:, None]
    shared += b.sum(axis=1)[None, :]
    return np.maximum(shared, 0.0, out=shared)


def average_weights(n_i: int, n_k: int) -> np.ndarray:
    """Mixture weights γ_{m,n} = 1/|g_k| of the average group policy of g_k (Sec. 4); Proposition 3
    shows it can make an envy-free system look group-envious, which :func:`transport_weights` avoids.

    Parameters
    ----------
    n_i, n_k : int
        |g_i| (rows, the audited group) and |g_k| (columns).

    Returns
    -------
    numpy.ndarray, shape (n_i, n_k)

    Examples
    --------
    >>> average_weights(1, 4).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    if n_i < 1 or n_k < 1:
        raise ParameterError(f"group sizes must be >= 1, got {n_i} and {n_k}")
    return np.full((int(n_i), int(n_k)), 1.0 / n_k)


def transport_weights(probs_i, probs_k, *, cost: np.ndarray | None = None,
                      mult_i=None, mult_k=None) -> np.ndarray:
    """Mixture weights of the transported policies of g_k for the users of g_i (Def. 4.2).

    γ̃ = argmin_{γ̃ ∈ P} Σ γ̃_{m,n} c_{m,n} over the transportation polytope between the uniform
    distributions on g_i and g_k (exact: ``ot.emd``), γ = |g_i| γ̃ (rows sum to 1), for the users in
    the given order (:func:`mixture_weights` uses :func:`canonical_plan`). With multiplicities the
    distributions are ∝ multiplicity and γ_{m,·} = γ̃_{m,·}/γ̃_{m,·}.sum().

    Parameters
    ----------
    probs_i, probs_k : array_like or Policy, shape (|g|, I) or (|g|, X, I)
    cost : numpy.ndarray, shape (|g_i|, |g_k|), optional
        Precomputed c_{m,n} (:func:`policy_distance`); the policies are then not read.
    mult_i, mult_k : array_like of int, optional
        Multiplicity ≥ 1 of each user of g_i and g_k (default 1).

    Returns
    -------
    numpy.ndarray, shape (|g_i|, |g_k|)

    Raises
    ------
    RuntimeError
        If ``ot.emd`` does not reach the optimum.

    Examples
    --------
    >>> transport_weights(np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([[0.0, 1.0], [0.9, 0.1]])).tolist()   # nearest partner
    [[0.0, 1.0], [1.0, 0.0]]
    """
    if cost is None:
        cost = policy_distance(probs_i, probs_k)
    cost = np.ascontiguousarray(cost, dtype=float)
    n_i, n_k = cost.shape
    a = np.full(n_i, 1.0 / n_i) if mult_i is None else np.asarray(mult_i, float) / np.sum(mult_i)
    b = np.full(n_k, 1.0 / n_k) if mult_k is None else np.asarray(mult_k, float) / np.sum(mult_k)
    if a.shape != (n_i,) or b.shape != (n_k,) or a.min() <= 0 or b.min() <= 0:
        raise ParameterError("mult_i and mult_k must be positive, one per user of each group")
    gamma = _class_plan(cost, a, b) / a[:, None]
    gamma /= gamma.sum(axis=1, keepdims=True)
    return gamma


@dataclass
class MixtureWeights:
    """Mixture weights γ (eq. (4)) for every ordered pair of groups (i, k), from :func:`mixture_weights`:
    ``self[i, k]`` is the |g_i| x |g_k| matrix γ_{m,n} (in the order of ``members``).

    Attributes
    ----------
    labels : numpy.ndarray of int, shape (M,)
        The partition (:func:`ocef.envy.groups.check_partition`).
    members : list of numpy.ndarray
        The users of each group (:func:`ocef.envy.groups.group_members`).
    matching : {"transport", "average"}
        Transported policies (Def. 4.2) or average group policies.
    blocks : dict
        ``(i, k) -> γ``; empty for plain average matching (computed on access).

    Examples
    --------
    >>> mixture_weights(np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.9, 0.1]]), np.array([0, 0, 1, 1])).sizes.tolist()
    [2, 2]
    """
    labels: np.ndarray
    members: list
    matching: str
    blocks: dict = field(default_factory=dict, repr=False)

    @property
    def n_groups(self) -> int:
        return len(self.members)

    @property
    def sizes(self) -> np.ndarray:
        return np.array([m.size for m in self.members])

    def __getitem__(self, pair: tuple[int, int]) -> np.ndarray:
        i, k = pair
        if not (0 <= i < self.n_groups and 0 <= k < self.n_groups):
            raise IndexError(f"group pair {pair} out of range for {self.n_groups} groups")
        if self.matching == "average" and not self.blocks:
            return average_weights(self.members[i].size, self.members[k].size)
        return self.blocks[(i, k)]

    def sample_partners(self, i: int, k: int, *, rng=None) -> np.ndarray:
        """For every m ∈ g_i (in ``members[i]`` order) draw n ~ γ_{m,·} on g_k (Alg. 2, line 4).

        Parameters
        ----------
        i, k : int
            The audited group and the group whose recommendations are shown.
        rng : None, int, SeedSequence or numpy.random.Generator
            Randomness of the draws.

        Returns
        -------
        numpy.ndarray of int, shape (|g_i|,)
            User indices (into all M users).

        Raises
        ------
        IndexError
            When i or k is not a group index.

        Examples
        --------
        >>> weights = mixture_weights(np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.9, 0.1]]), np.array([0, 0, 1, 1]))
        >>> weights.sample_partners(0, 1, rng=0)
        array([3, 2])
        """
        return self.members[k][sample_rows(self[i, k], rng)]


class _Classes(NamedTuple):
    """A group's distinct policies (by bytes), each user's class, class masses and the orienting key."""

    policies: np.ndarray
    inverse: np.ndarray
    mass: np.ndarray
    key: tuple


def _policy_classes(probs: np.ndarray, mult: np.ndarray) -> _Classes:
    flat = np.ascontiguousarray(probs.reshape(probs.shape[0], -1), dtype=float) + 0.0   # -0.0 -> 0.0
    # rows compared as raw bytes (one 1-d unique; unique(axis=0) is ~10x slower): a canonical
    # order that depends only on the policies
    rows = flat.view(np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    uniq = flat[first]
    inverse = inverse.ravel()
    mass = np.bincount(inverse, weights=mult.astype(float), minlength=uniq.shape[0])
    return _Classes(uniq.reshape((-1,) + probs.shape[1:]), inverse, mass,
                    (uniq.shape[0], uniq.tobytes(), mass.tobytes()))


def canonical_plan(probs_i, mult_i, probs_k, mult_k) -> np.ndarray:
    """γ̃: an optimal transport plan of Def. 4.2 between g_i and g_k that depends only on the multiset of
    (policy, multiplicity) of each group (module docstring).

    Parameters
    ----------
    probs_i, probs_k : array_like, shape (|g|, I) or (|g|, X, I)
        The two groups' policies.
    mult_i, mult_k : array_like of int
        Multiplicity of each user (1 = a plain user).

    Returns
    -------
    numpy.ndarray, shape (|g_i|, |g_k|)
        γ̃ ≥ 0, summing to 1; γ = γ̃ / row sums.

    Raises
    ------
    RuntimeError
        If ``ot.emd`` does not reach the optimum.

    Examples
    --------
    >>> probs_i, probs_k = np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([[0.0, 1.0], [0.9, 0.1]])
    >>> plan = canonical_plan(probs_i, [1, 1], probs_k, [1, 1])
    >>> (canonical_plan(probs_i, [1, 1], probs_k[::-1], [1, 1]) == plan[:, ::-1]).all()   # order-free
    True
    """
    mult_i, mult_k = np.asarray(mult_i), np.asarray(mult_k)
    ci = _policy_classes(np.asarray(probs_i, dtype=float), mult_i)
    ck = _policy_classes(np.asarray(probs_k, dtype=float), mult_k)
    return _plan_of_classes(ci, mult_i, ck, mult_k, policy_distance(ci.policies, ck.policies))


def _plan_of_classes(ci: _Classes, mult_i: np.ndarray, ck: _Classes, mult_k: np.ndarray,
                     cost: np.ndarray) -> np.ndarray:
    """The canonical plan from the two groups' classes and the class-level cost c (ci x ck)."""
    if ci.key <= ck.key:
        class_plan = _class_plan(cost, ci.mass, ck.mass)
    else:                                      # solve in the content's orientation, then transpose
        class_plan = _class_plan(cost.T, ck.mass, ci.mass).T
    # spread each class's mass over its members ∝ multiplicity: γ̃_mn = P_cd (w_m/A_c)(w_n/B_d)
    share_i = mult_i.astype(float) / ci.mass[ci.inverse]
    share_k = mult_k.astype(float) / ck.mass[ck.inverse]
    return class_plan[np.ix_(ci.inverse, ck.inverse)] * share_i[:, None] * share_k[None, :]


def _class_plan(cost, mass_i, mass_k) -> np.ndarray:
    """Exact optimal plan (``ot.emd``) between two groups' policy classes."""
    import ot      # POT loads scikit-learn: about a second, paid only by transport matching

    cost = np.ascontiguousarray(cost, dtype=float)
    a, b = mass_i / mass_i.sum(), mass_k / mass_k.sum()
    n_i, n_k = cost.shape
    plan, log = ot.emd(a, b, cost, numItermax=max(100_000, 50 * n_i * n_k), log=True, center_dual=False)
    if log["result_code"] != 1:
        raise RuntimeError(f"ot.emd did not reach the optimum ({log['warning']}) on a {n_i} x {n_k} problem")
    return plan


def mixture_weights(probs, labels, matching: str = "transport", multiplicity=None) -> MixtureWeights:
    """γ for every ordered pair of groups under ``matching`` = "transport" (Def. 4.2) or "average".

    For "transport", the cost between the groups' distinct policies (classes, module docstring) is
    computed once; one exact ``ot.emd`` per unordered pair {i, k} gives the canonical plan
    (:func:`canonical_plan`), its transpose that of (k, i) (c is symmetric); for i = k the identity
    is an optimal plan, so that μ_i^i = μ^i (Prop. 4). With ``multiplicity`` each user stands for
    that many identical copies (average weights ∝ multiplicity).

    Parameters
    ----------
    probs : array_like or Policy, shape (M, I) or (M, X, I)
        Every user's policy π^m.
    labels : array_like, shape (M,)
        Any form :func:`ocef.envy.groups.check_partition` accepts.
    matching : {"transport", "average"}
        Transported policies (Def. 4.2) or average group policies (Sec. 4).
    multiplicity : array_like of int, shape (M,), optional
        Copies of each user (groups grown by duplication, Sec. 6.2).

    Returns
    -------
    MixtureWeights

    Examples
    --------
    >>> probs = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.9, 0.1]])
    >>> mixture_weights(probs, np.array([0, 0, 1, 1]), "average")[1, 0].tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    if matching not in MATCHINGS:
        raise ParameterError(f"matching must be one of {MATCHINGS}, got {matching!r}")
    p = _as_probs(probs, "probs")
    lab = check_partition(labels, p.shape[0])
    members = group_members(lab)
    mult = None
    if multiplicity is not None:
        mult = np.asarray(multiplicity)
        if mult.shape != lab.shape or not np.issubdtype(mult.dtype, np.integer) or mult.min() < 1:
            raise ParameterError(f"multiplicity must hold one integer >= 1 per user ({lab.size}), got shape {mult.shape}")
    weights = MixtureWeights(labels=lab, members=members, matching=matching)
    if matching == "average":
        if mult is not None:
            for i, g_i in enumerate(members):
                for k, g_k in enumerate(members):
                    w = mult[g_k] / mult[g_k].sum()
                    weights.blocks[(i, k)] = np.repeat(w[None, :], g_i.size, axis=0)
        return weights
    mult_all = np.ones(lab.size, dtype=np.int64) if mult is None else mult
    classes = [_policy_classes(p[g], mult_all[g]) for g in members]      # once per group
    # all class-to-class costs in one call (one pdist), sliced per pair of groups
    cost_all = policy_distance(np.concatenate([c.policies for c in classes]))
    offsets = np.concatenate([[0], np.cumsum([c.policies.shape[0] for c in classes])])
    for i in range(len(members)):
        # i = k: c_mm = 0, so the identity is an optimal plan (γ̃ = I/|g_i|, γ = I): μ_i^i = μ^i
        weights.blocks[(i, i)] = np.eye(members[i].size)
        for k in range(i + 1, len(members)):
            cost = cost_all[offsets[i]:offsets[i + 1], offsets[k]:offsets[k + 1]]
            plan = _plan_of_classes(classes[i], mult_all[members[i]], classes[k], mult_all[members[k]], cost)
            weights.blocks[(i, k)] = plan / plan.sum(axis=1, keepdims=True)
            weights.blocks[(k, i)] = plan.T / plan.T.sum(axis=1, keepdims=True)
    return weights
