"""Argument checks shared by the public boundary of every module.

Every check raises ``ValueError`` (or ``TypeError``) naming the argument, the value
and the allowed range, so that bad input never fails deep inside the math.
"""
from __future__ import annotations

import numbers

import numpy as np


def check_in_interval(name: str, value, low: float, high: float, *,
                      low_open: bool = True, high_open: bool = False) -> float:
    """Return ``float(value)`` if it lies in the interval, else raise ValueError.

    ``low_open``/``high_open`` choose between ``(`` and ``[`` at each end.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    ok_low = v > low if low_open else v >= low
    ok_high = v < high if high_open else v <= high
    if not (ok_low and ok_high) or np.isnan(v):
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {lb}{low}, {high}{hb}, got {value!r}")
    return v


def check_delta(delta) -> float:
    """Confidence parameter δ ∈ (0, 1)."""
    return check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)


def check_alpha(alpha) -> float:
    """Conservative-exploration parameter α ∈ (0, 1]."""
    return check_in_interval("alpha", alpha, 0.0, 1.0, low_open=True, high_open=False)


def check_epsilon(epsilon) -> float:
    """Envy tolerance ε ∈ (0, 1]."""
    return check_in_interval("epsilon", epsilon, 0.0, 1.0, low_open=True, high_open=False)


def check_positive_int(name: str, value, minimum: int = 1) -> int:
    """An integer ``>= minimum`` (numpy integers accepted, bools and floats refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_unit_array(name: str, values, *, ndim: int | None = None) -> np.ndarray:
    """A float array with every entry in [0, 1] (rewards, means, preferences)."""
    arr = np.asarray(values, dtype=float)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)) or arr.min() < 0.0 or arr.max() > 1.0:
        bad = arr[~((arr >= 0) & (arr <= 1))].ravel()[:3]
        raise ValueError(f"{name} must have every entry in [0, 1], found {bad.tolist()}")
    return arr


def as_generator(rng) -> np.random.Generator:
    """Turn ``None``, an int seed (or a list of them), a SeedSequence or a Generator into a Generator."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    if isinstance(rng, (list, tuple)) and rng and all(isinstance(v, numbers.Integral) for v in rng):
        return np.random.default_rng(list(rng))          # entropy of a SeedSequence
    raise TypeError(f"rng must be None, an int seed, a list of int seeds, a SeedSequence or a "
                    f"numpy.random.Generator, got {type(rng).__name__}")


def seed_from_rng(rng) -> int:
    """An integer seed standing for ``rng`` in cache keys and descriptions.

    An int is returned as is (it must be >= 0); ``None`` draws a fresh seed; a SeedSequence
    or a Generator yields a seed drawn from it (same input state, same seed).
    """
    if isinstance(rng, bool):
        raise TypeError(f"rng must be None, an int seed, a SeedSequence or a Generator, got {rng!r}")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise ValueError(f"rng must be a non-negative int seed, got {rng}")
        return int(rng)
    return int(as_generator(rng).integers(2**31 - 1))
