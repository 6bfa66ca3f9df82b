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


def test_the_exposure_console_fits_80_columns(tmp_path, monkeypatch, capsys):
    import numpy as np
    import pandas as pd

    from ocef.cli import main

    gen = np.random.default_rng(0)
    rows = [(u, int(i), r + 1, int(gen.random() < 0.3), "popular" if i < 10 else "niche", "f" if u % 3 else "m")
            for u in range(120) for r, i in enumerate(gen.choice(50, 5, replace=False))]
    path = tmp_path / "topk.csv"
    pd.DataFrame(rows, columns=["user", "item", "rank", "relevance", "genre", "gender"]).to_csv(path, index=False)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "gender",
                 "--ranking-metrics", "awrf", "ndkl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 20 and max(map(len, lines)) <= 80, max(lines, key=len)
