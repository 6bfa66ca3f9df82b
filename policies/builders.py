"""Build any of the named policies from estimated scores (used by the CLI and the experiments)."""
from __future__ import annotations

import numpy as np

from ocef.policies.base import ArrayPolicy
from ocef.policies.exposure import equity_of_exposure_policy, parity_of_exposure_policy
from ocef.policies.ranking import topk_ranking_policy
from ocef.policies.standard import argmax_policy, check_scores, softmax_policy, uniform_policy
from ocef.errors import ParameterError

#: Policy names accepted by :func:`build_policy` (and ``ocef envy --policy``).
POLICY_NAMES = ("softmax", "argmax", "uniform", "parity", "equity", "ranking")


def build_policy(name: str, scores, *, beta: float = 1.0, k: int = 10, categories=None) -> ArrayPolicy:
    """The policy ``name`` on ``scores`` (users x items estimated preferences).

    Parameters
    ----------
    name : {"softmax", "argmax", "uniform", "parity", "equity", "ranking"}
        ``softmax`` (inverse temperature ``beta``), ``argmax`` (lowest index on ties),
        ``uniform``, ``parity`` / ``equity`` of exposure (need the item ``categories``; equity
        needs non-negative scores), ``ranking`` (top-``k``, DCG utility).
    scores : array_like
        Estimated preferences, users x items.
    beta : float
        Inverse temperature of ``softmax``.
    k : int
        List length of ``ranking``.
    categories : array_like, optional
        Item categories, for ``parity`` and ``equity``.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> scores = np.array([[0.9, 0.1, 0.5, 0.3], [0.2, 0.8, 0.1, 0.6]])
    >>> build_policy("parity", scores, categories=np.array([0, 0, 1, 1])).probs.tolist()
    [[0.5, 0.0, 0.5, 0.0], [0.0, 0.5, 0.0, 0.5]]
    """
    if name not in POLICY_NAMES:
        raise ParameterError(f"policy must be one of {', '.join(POLICY_NAMES)}, got {name!r}")
    s = check_scores(scores)
    if name in ("parity", "equity") and categories is None:
        raise ParameterError(f"the {name} policy needs the item categories")
    if name == "softmax":
        return softmax_policy(s, beta)
    if name == "argmax":
        return argmax_policy(s)
    if name == "uniform":
        return uniform_policy(s.shape[0], s.shape[-1], s.shape[1] if s.ndim == 3 else 1)
    if name == "parity":
        return parity_of_exposure_policy(s, categories)
    if name == "equity":
        return equity_of_exposure_policy(s, np.asarray(categories))
    return topk_ranking_policy(s, k=k)
