"""Compiled stable top-m selection shared by the batched re-rankers (numba)."""
from __future__ import annotations

from numba import njit


@njit(cache=True)
def top_m(scores, select, m, out):                                           # pragma: no cover (compiled)
    """Write into ``out[:c]`` the indices of the ``c = min(m, #selected)`` largest ``scores[i]`` with
    ``select[i]``, best first, ties in index order (a stable descending sort's first m); return c.

    One pass with an insertion buffer: O(n·m) at worst, O(n) when few entries beat the m-th best.
    """
    count = 0
    for i in range(scores.size):
        if not select[i]:
            continue
        s = scores[i]
        if count < m:
            j = count
            count += 1
        elif s > scores[out[m - 1]]:
            j = m - 1
        else:
            continue
        while j > 0 and scores[out[j - 1]] < s:
            out[j] = out[j - 1]
            j -= 1
        out[j] = i
    return count
