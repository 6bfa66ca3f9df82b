"""The glossary defines every verdict, every uncertainty column and every interval method name the
toolkit accepts or prints (issue 31): a reader who meets a word in a result, a console table or the
reproduction report finds it in ``docs/glossary.md``."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text()
#: a definition list term: a line starting with the word in backticks (possibly several, comma-separated)
TERMS = {w for line in GLOSSARY.splitlines() if line.startswith("`") for w in re.findall(r"`([^`]+)`", line)}


def _cli_choices(option: str) -> set[str]:
    from ocef.cli import build_parser

    out: set[str] = set()
    parser = build_parser([])
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for sub in subs.choices.values():
        for action in sub._actions:
            if option in action.option_strings and action.choices:
                out.update(map(str, action.choices))
    return out


def interval_names() -> set[str]:
    """Every interval method name the code accepts or writes into an ``interval`` column."""
    from ocef import fairrec
    from ocef.metrics import bias
    from ocef.pairwise import accuracy
    from ocef.reo import ab, estimate

    names = set(bias.INTERVALS) | set(bias.AUTO_METHODS.values()) | set(accuracy.INTERVALS)
    names |= set(estimate.ALL_INTERVALS) | set(ab.AB_INTERVALS) | set(fairrec.TESTS)
    from ocef.offpolicy import audit as offpolicy_audit, intervals as offpolicy_intervals

    names |= set(offpolicy_audit.AUDIT_INTERVALS) | set(offpolicy_intervals.INTERVALS)
    names |= _cli_choices("--interval") | _cli_choices("--test")
    # literals in the code: interval="x", interval == "x", interval: str = "x"
    pattern = re.compile(r"\binterval(?:_method)?\s*(?::\s*str\s*)?(?:==|=)\s*\"([a-z][a-z-]*)\"")
    for path in (ROOT / "ocef").rglob("*.py"):
        names.update(pattern.findall(path.read_text()))
    # the names of the exposure audit's intervals (Hall's t, Wilson's score), printed in its notes
    names |= {"hall", "wilson"}
    return names


def test_every_interval_method_name_is_in_the_glossary():
    names = interval_names()
    assert {"t", "t-log", "triangle", "basic", "percentile", "bca", "delta", "delta-full"} <= names
    missing = sorted(names - TERMS)
    assert not missing, f"interval method names not defined in docs/glossary.md: {missing}"


def test_every_verdict_is_in_the_glossary():
    from ocef import Verdict
    from ocef.experiments.claims import VERDICTS

    assert set(VERDICTS) <= TERMS
    for v in Verdict:
        assert f"`{v.value}`" in GLOSSARY, v


def test_every_uncertainty_column_is_in_the_glossary():
    from ocef.metrics.bias import COLUMNS

    uncertainty = {"value", "estimate", "ci_low", "ci_high", "confidence", "interval", "p_value", "p_adjusted",
                   "significant", "reason", "bias", "n_defined"}
    assert uncertainty <= set(COLUMNS)
    assert not sorted(uncertainty - TERMS), sorted(uncertainty - TERMS)
