"""Console tables fit the terminal (issue 31): 80 columns when piped or with COLUMNS=80."""
from __future__ import annotations

from ocef.commands._common import COST_NOTE, ConsoleTable, console_width


def test_console_tables_fit_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert console_width() == 80
    t = ConsoleTable()
    rows = [("a-very-long-group-name-" * 3, "0.123", "[0.1, 0.2]" + t.mark("a long reason " * 20), "0.04", "yes")]
    lines = t.rows(rows, ["group", "value", "interval", "p (Holm)", "signif."], [40, 12, 40, 12, 12]) + t.notes()
    assert max(map(len, lines)) <= 80
    assert lines[1].startswith("  a-very-long-group")      # the first column is cut, the numbers kept
    assert "[0.1, 0.2] [1]" in lines[1] and lines[1].endswith("yes")
    monkeypatch.setenv("COLUMNS", "200")
    assert console_width() == 120                            # prose stays readable on a wide terminal


def test_cost_has_its_unit_and_sign_convention():
    assert "reward" in COST_NOTE and "> 0" in COST_NOTE and "< 0" in COST_NOTE and "eq. 10" in COST_NOTE
