"""Compiled kernels of the loop: the stable top-m selection shared by the batched re-rankers, the per-user
candidate order and the bit sets of the distinct-key counts (numba)."""
from __future__ import annotations

import numpy as np
from numba import njit, prange


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


@njit(parallel=True, cache=True)
def order_users(scores, items, starts, counts):                             # pragma: no cover (compiled)
    """Row permutation putting each user's rows (``starts[u]``, ``counts[u]`` contiguous rows) by
    descending score, ties by ascending ``items`` (integer sort keys): DuckDB's ``ORDER BY score DESC,
    item`` within each user, without sorting the whole table.
    """
    out = np.empty(scores.size, np.int64)
    for u in prange(starts.size):
        a = starts[u]
        m = counts[u]
        s = scores[a:a + m]
        o = np.argsort(-s)                # equal scores are then ordered by item: any sort will do
        i = 0
        while i < m:
            j = i + 1
            while j < m and s[o[j]] == s[o[i]]:
                j += 1
            for p in range(i + 1, j):                     # a run of equal scores: insertion sort by item
                v = o[p]
                q = p
                while q > i and items[a + o[q - 1]] > items[a + v]:
                    o[q] = o[q - 1]
                    q -= 1
                o[q] = v
            i = j
        for p in range(m):
            out[a + p] = a + o[p]
    return out


@njit(cache=True)
def mark_bits(bits, positions):                                            # pragma: no cover (compiled)
    """Set bit ``p`` of the byte array ``bits`` for each ``p`` of ``positions`` (non-negative int64):
    a set of integer keys in one bit each, counted afterwards with :func:`count_bits`."""
    for i in range(positions.size):
        p = positions[i]
        bits[p >> 3] |= np.uint8(1 << (p & 7))


@njit(cache=True)
def count_bits(bits):                                                      # pragma: no cover (compiled)
    """The number of bits set in the byte array ``bits`` (``numpy.bitwise_count`` needs numpy 2)."""
    n = 0
    for i in range(bits.size):
        b = bits[i]
        while b:
            b &= b - np.uint8(1)
            n += 1
    return n
