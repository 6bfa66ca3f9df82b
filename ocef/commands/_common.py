"""Helpers shared by CLI sub-commands."""
from __future__ import annotations

import sys


def print_json(payload) -> None:
    """Print one strict-JSON object on stdout (results, numpy values; NaN/inf become null)."""
    from ocef.results import dumps

    sys.stdout.write(dumps(payload) + "\n")


def format_table(columns, digits: int = 4) -> str:
    """A small table as text, like ``DataFrame.to_string(index=False)`` with floats to ``digits``
    significant digits, from a dict of equal-length columns (no pandas import)."""
    def cell(v) -> str:
        if isinstance(v, float) or type(v).__name__.startswith("float"):
            return f"{float(v):.{digits}g}"
        return str(v)

    cols = [[str(name)] + [cell(v) for v in values] for name, values in columns.items()]
    widths = [max(len(c) for c in col) for col in cols]
    return "\n".join(" ".join(col[i].rjust(w) for col, w in zip(cols, widths)) for i in range(len(cols[0])))


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
