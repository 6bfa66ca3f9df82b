"""The papers' claims, checked by code against an experiment's own results.

An experiment module may declare ``CLAIMS: list[Claim]``. After the experiment has run, each
claim's ``check`` receives the experiment's tidy results (the DataFrame it wrote to
``NAME.csv``) and returns ``(holds, evidence)``: whether the paper's statement holds on these
results, and the numbers behind the verdict in one line (e.g. ``"slope -0.93 [-1.02, -0.85]"``).
A check never fails the run: an exception inside it is reported as a claim that could not be
checked (``holds=None``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd

Check = Callable[[pd.DataFrame], "tuple[bool, str]"]


@dataclass(frozen=True)
class Claim:
    """One claim of a paper: where it is (``figure``, e.g. "Fig. 8"), what it says (``text``, the
    paper's sentence or a faithful paraphrase) and how it is checked (``check``)."""

    figure: str
    text: str
    check: Check


def check_claims(claims: list[Claim], results: pd.DataFrame) -> list[dict]:
    """Run every check on ``results``; one dict per claim: ``figure, claim, holds, evidence``."""
    out = []
    for c in claims:
        try:
            holds, evidence = c.check(results)
            holds = bool(holds)
        except Exception as exc:  # a broken check is reported, never raised
            holds, evidence = None, f"check failed: {type(exc).__name__}: {exc}"
        out.append({"figure": c.figure, "claim": c.text, "holds": holds, "evidence": str(evidence)})
    return out
