"""Helpers shared by CLI sub-commands."""
from __future__ import annotations

import sys


def print_json(payload) -> None:
    """Print one strict-JSON object on stdout (results, numpy values; NaN/inf become null)."""
    from ocef.results import dumps

    sys.stdout.write(dumps(payload) + "\n")


def parse_float_list(text: str, name: str) -> list[float]:
    """Parse ``"0.6,0.3,0.3"`` into floats, naming the option on failure (an empty item is an error)."""
    items = [v.strip() for v in text.split(",")]
    if not text.strip():
        raise ValueError(f"{name} must not be empty")
    if any(v == "" for v in items):
        raise ValueError(f"{name} has an empty item in {text!r}: give comma-separated numbers such as 0.6,0.3")
    try:
        return [float(v) for v in items]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None
