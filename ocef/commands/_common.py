"""Helpers shared by CLI sub-commands."""
from __future__ import annotations

import json
import sys

import numpy as np


def _default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.bool_):
        return bool(obj)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


def print_json(payload) -> None:
    """Print one JSON object on stdout (numpy scalars and arrays converted)."""
    json.dump(payload, sys.stdout, default=_default, allow_nan=True)
    sys.stdout.write("\n")


def parse_float_list(text: str, name: str) -> list[float]:
    """Parse ``"0.6,0.3,0.3"`` into floats, naming the option on failure."""
    try:
        values = [float(v) for v in text.split(",") if v.strip() != ""]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None
    if not values:
        raise ValueError(f"{name} must not be empty")
    return values
