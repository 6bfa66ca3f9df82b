"""Helpers shared by CLI sub-commands."""
from __future__ import annotations

import sys


def print_json(payload) -> None:
    """Print one strict-JSON object on stdout (results, numpy values; NaN/inf become null)."""
    from ocef.results import dumps

    sys.stdout.write(dumps(payload) + "\n")


def parse_float_list(text: str, name: str) -> list[float]:
    """Parse ``"0.6,0.3,0.3"`` into floats, naming the option on failure."""
    try:
        values = [float(v) for v in text.split(",") if v.strip() != ""]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None
    if not values:
        raise ValueError(f"{name} must not be empty")
    return values
