"""Partitions of the users into groups g_1, ..., g_G (Sec. 4 of Do et al. 2022 (OCEF)).

A partition is held as a 1-d integer label array: ``labels[m] = i`` iff user m ∈ g_i,
labels 0..G-1, every group non-empty.
"""
from __future__ import annotations

import numbers

import numpy as np
from ocef.errors import ParameterError


def _members_to_labels(groups, n_users: int) -> np.ndarray:
    labels = np.full(n_users, -1, dtype=np.intp)
    for i, members in enumerate(groups):
        idx = np.asarray(members)
        if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
            raise ParameterError(f"group {i} must be a 1-d array of integer user indices")
        if idx.size == 0:
            raise ParameterError(f"group {i} is empty; every group must have at least one user")
        if idx.min() < 0 or idx.max() >= n_users:
            raise ParameterError(f"group {i} holds user indices outside [0, {n_users - 1}]")
        if np.unique(idx).size != idx.size or np.any(labels[idx] >= 0):
            dup = idx[labels[idx] >= 0][:3].tolist() or idx[np.unique(idx, return_counts=True)[1] > 1][:3].tolist()
            raise ParameterError(f"groups do not partition the users: user(s) {dup} appear in more than one group")
        labels[idx] = i
    missing = np.flatnonzero(labels < 0)
    if missing.size:
        raise ParameterError(f"groups do not partition the users: {missing.size} user(s) in no group, "
                         f"e.g. {missing[:3].tolist()}")
    return labels


def check_partition(groups, n_users: int) -> np.ndarray:
    """Validate a partition g_1, ..., g_G of the users (Sec. 4) and return its label array.

    Parameters
    ----------
    groups : array_like or list of array_like
        Integer labels 0..G-1, names or booleans (group g = the g-th distinct value, sorted), or a
        list of disjoint arrays of user indices covering every user.
    n_users : int
        M ≥ 1, the number of users.

    Returns
    -------
    numpy.ndarray of intp, shape (n_users,)

    Examples
    --------
    >>> check_partition(np.array(["b", "a", "b"]), 3).tolist(), check_partition([np.array([0, 2]), np.array([1])], 3).tolist()
    ([1, 0, 1], [0, 1, 0])
    """
    if isinstance(n_users, bool) or not isinstance(n_users, numbers.Integral) or n_users < 1:
        raise ParameterError(f"n_users must be a positive integer, got {n_users!r}")
    if isinstance(groups, (list, tuple)) and len(groups) > 0 and all(np.ndim(g) == 1 for g in groups):
        return _members_to_labels(groups, int(n_users))
    labels = np.asarray(groups)
    if labels.ndim != 1:
        raise ParameterError(f"groups must be a 1-d label array (one label per user), got shape {labels.shape}")
    if labels.shape[0] != n_users:
        raise ParameterError(f"groups must have one label per user: expected length {n_users}, got {labels.shape[0]}")
    if labels.dtype == bool or labels.dtype.kind in "USO":
        # names (or booleans) label the groups: group g is the g-th distinct name in sorted order
        values = labels.astype(str) if labels.dtype.kind == "O" else labels
        labels = np.unique(values, return_inverse=True)[1].ravel()
    if not np.issubdtype(labels.dtype, np.integer):
        if np.issubdtype(labels.dtype, np.floating) and np.all(np.isfinite(labels)) \
                and np.all(labels == np.round(labels)):
            labels = labels.astype(np.intp)
        else:
            raise ParameterError(f"group labels must be integers 0..G-1, got dtype {labels.dtype}")
    if labels.min() < 0:
        raise ParameterError(f"group labels must be integers 0..G-1, found {int(labels.min())}")
    if labels.max() >= n_users:
        # labels 0..G-1 with every group non-empty need G <= n_users; np.bincount of a label of
        # 10**12 allocated TiB before the empty-group error
        raise ParameterError(f"group labels must be integers 0..G-1 with every group non-empty, found label "
                             f"{int(labels.max())} among {n_users} users (so some group is empty)")
    counts = np.bincount(labels)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise ParameterError(f"group(s) {empty[:5].tolist()} are empty: labels must be 0..G-1 with every "
                         f"group non-empty (G = {counts.size})")
    return labels.astype(np.intp, copy=False)


def group_members(labels) -> list[np.ndarray]:
    """User indices of each group, ``[g_0, ..., g_{G-1}]``, from a valid label array.

    Parameters
    ----------
    labels : array_like of int, shape (M,)
        A partition as returned by :func:`check_partition` (not checked again).

    Returns
    -------
    list of numpy.ndarray
        G arrays; the i-th holds the users of g_i in increasing order.

    Examples
    --------
    >>> [g.tolist() for g in group_members(np.array([1, 0, 1, 0]))]
    [[1, 3], [0, 2]]
    """
    lab = np.asarray(labels)
    order = np.argsort(lab, kind="stable")
    counts = np.bincount(lab)
    return np.split(order, np.cumsum(counts)[:-1])


def check_group_names(group_names, n_groups: int) -> list[str]:
    """The names of ``n_groups`` groups as strings (None: ``"0", "1", ...``).

    Parameters
    ----------
    group_names : sequence or None
        One name per group (converted with ``str``); None names them ``"0", "1", ...``.
    n_groups : int
        G, the number of groups.

    Returns
    -------
    list of str

    Examples
    --------
    >>> check_group_names(None, 2), check_group_names(["F", "M"], 2)
    (['0', '1'], ['F', 'M'])
    """
    names = [str(g) for g in range(n_groups)] if group_names is None else [str(n) for n in group_names]
    if len(names) != n_groups:
        raise ParameterError(f"group_names must have {n_groups} names, got {len(names)}")
    return names
