"""The groups of a REO estimate: the values found in the logs' group column, checked (Dong et al. 2024, Sec. 2).

Shared by the counts (:mod:`ocef.reo.counts`) and the estimators (:mod:`ocef.reo.estimators`)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ocef.backends import is_missing
from ocef.errors import ParameterError


def resolve_groups(found_values: Sequence, group: str, groups) -> list:
    """The K groups of a REO estimate (Sec. 2): ``groups`` checked, or the sorted values found.

    Parameters
    ----------
    found_values : sequence of array_like
        The distinct values of the group column, one array per log.
    group : str
        The column's name, for the messages.
    groups : sequence or None
        At least 2 distinct values covering every value found.

    Returns
    -------
    list

    Examples
    --------
    >>> resolve_groups([["b", "a"], ["a"]], "S", None)
    ['a', 'b']
    """
    if groups is not None:
        groups = list(groups)
        if len(groups) < 2 or len(set(groups)) != len(groups):
            raise ParameterError(f"groups must list at least 2 distinct values, got {groups!r}")
        for values in found_values:
            unknown = set(values) - set(groups)
            if unknown:
                raise ParameterError(f"group column {group!r} has values {sorted(map(str, unknown))} "
                                 f"not in groups={groups!r}")
        return groups
    values = {_plain_key(v) for found in found_values for v in found}
    if any(is_missing(v) for v in values):
        raise ParameterError(f"group column {group!r} has missing values")
    found = sorted(values, key=lambda v: (str(type(v)), v))
    if len(found) < 2:
        raise ParameterError(f"REO needs at least 2 groups in column {group!r}, found {found!r}")
    return found


def _plain_key(v):
    """A group value as a plain Python scalar (numpy scalars compare and sort like their items)."""
    return v.item() if isinstance(v, np.generic) else v
