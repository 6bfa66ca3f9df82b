"""`ocef reproduce` report: summary.json, index.html, exit status, honest caching, interrupts."""
from __future__ import annotations

import json
import os
import sys
import types
from html.parser import HTMLParser

import pandas as pd
import pytest

from ocef.cli import main
from ocef.experiments import _io, registry, report
from ocef.experiments.claims import Claim, NotCheckable, check_claims, fit_slope, trend


# --------------------------------------------------------------------------- a toy experiment
def _toy_module(name: str, *, fail: bool = False, missing: bool = False, calls: list | None = None):
    """A registered experiment computing y = 2x - 1 in 3 cached parts, with 3 claims."""
    mod = types.ModuleType(f"tests_toy_{name.replace('-', '_')}")
    mod.NAME, mod.DESCRIPTION = name, f"toy experiment {name} (Fig. 0)"
    mod.DATASET = "toy numbers"

    def run(out_dir, *, quick, seed, data_dir, progress):
        if missing:
            raise FileNotFoundError("toy data not found under /nowhere")
        if fail:
            raise RuntimeError("boom")

        def compute(x):
            if calls is not None:
                calls.append(x)
            return pd.DataFrame({"x": [x], "y": [2 * x - 1]})

        df = _io.run_parts(out_dir, {"seed": seed}, [1, 2, 3], compute, progress=False, desc=name)
        return [_io.write_csv(df, out_dir / f"{name}.csv")]

    mod.run = run
    mod.CLAIMS = [
        Claim("Fig. 0", "y increases with x", lambda df: trend(df, "x", "y", sign=+1)),
        Claim("Fig. 0", "y is negative", lambda df: (bool((df.y < 0).all()), f"max y {df.y.max()}")),
        Claim("Fig. 0", "about a partition absent here", lambda df: (_ for _ in ()).throw(NotCheckable("no z"))),
    ]
    sys.modules[mod.__name__] = mod
    return mod


@pytest.fixture
def toy(monkeypatch):
    def register(name, **kw):
        mod = _toy_module(name, **kw)
        monkeypatch.setitem(registry.EXPERIMENTS, name, mod.__name__)
        monkeypatch.setattr(_io, "code_hash", lambda module_name, _orig=_io.code_hash: "toyhash"
                            if module_name.startswith("tests_toy_") else _orig(module_name))
        return mod
    yield register


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.imgs, self.claim_rows, self.text = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append((a.get("id"), a.get("data-status")))
        if tag == "img":
            self.imgs.append(a["src"])
        if tag == "tr" and "claim" in (a.get("class") or ""):
            self.claim_rows.append(a["class"])

    def handle_data(self, data):
        self.text.append(data)


def test_report_summary_json_and_html(toy, tmp_path, capsys):
    toy("toy-ok")
    toy("toy-missing", missing=True)
    assert main(["reproduce", "toy-ok", "toy-missing", "--out", str(tmp_path), "--no-progress", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "reusing 0 of 3 parts" in out
    # console table: experiment, status, seconds, claims held/checked, data set; then every claim
    assert "toy-ok" in out and "skipped" in out and "1/2 (+1 unchecked)" in out and "toy numbers" in out
    assert "[HOLDS    ] toy-ok Fig. 0: y increases with x -- common slope 2 [2, 2] (n=3)" in out
    assert "[FAILS    ] toy-ok Fig. 0: y is negative -- max y 5" in out
    assert "toy data not found under /nowhere" in out
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert set(doc) >= {"experiments", "version", "started", "seed"} and doc["seed"] == 4
    ok, skipped = doc["experiments"]
    assert set(ok) >= {"name", "status", "seconds", "dataset", "claims"}
    assert ok["status"] == "ok" and ok["dataset"] == "toy numbers"
    assert [c["holds"] for c in ok["claims"]] == [True, False, None]
    assert set(ok["claims"][0]) >= {"claim", "holds", "evidence"}
    assert "not checkable in this run: no z" in ok["claims"][2]["evidence"]
    assert skipped["status"] == "skipped" and "toy data not found" in skipped["reason"]
    page = _Collect()
    page.feed((tmp_path / "index.html").read_text())
    assert page.sections == [("toy-ok", "ok"), ("toy-missing", "skipped")]
    assert page.claim_rows == ["claim holds", "claim fails", "claim unchecked"] + ["claim unchecked"] * 3
    text = " ".join(page.text)
    assert "y increases with x" in text and "toy numbers" in text and "numpy" in text


def test_failed_experiment_exits_non_zero_and_others_still_run(toy, tmp_path, capsys):
    toy("toy-bad", fail=True)
    toy("toy-ok")
    assert main(["reproduce", "toy-bad", "toy-ok", "--out", str(tmp_path), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "failed: RuntimeError: boom" in out and "Traceback" not in out
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert [e["status"] for e in doc["experiments"]] == ["failed", "ok"]


def test_unwritable_out_is_an_error_before_any_work(toy, tmp_path, capsys):
    calls = []
    toy("toy-ok", calls=calls)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["reproduce", "toy-ok", "--out", str(blocker / "sub"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ocef reproduce: error: --out") and "not a writable folder" in err
    assert calls == []
    if os.geteuid() != 0:                       # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        assert main(["reproduce", "toy-ok", "--out", str(ro), "--no-progress"]) == 2
        assert calls == []


def test_cache_reused_only_for_the_same_code(toy, tmp_path, monkeypatch, capsys):
    calls = []
    toy("toy-ok", calls=calls)
    args = ["reproduce", "toy-ok", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0 and calls == [1, 2, 3]
    assert main(args) == 0 and calls == [1, 2, 3]            # same code: every part reused
    assert "reusing 3 of 3 parts" in capsys.readouterr().out
    # the experiment's code changes: its hash changes and no part is reused
    monkeypatch.setattr(_io, "code_hash", lambda module_name: "edited")
    assert main(args) == 0 and calls == [1, 2, 3] * 2
    assert "reusing 0 of 3 parts" in capsys.readouterr().out
    assert main(args) == 0 and calls == [1, 2, 3] * 2
    assert main(args + ["--fresh"]) == 0 and calls == [1, 2, 3] * 3          # --fresh ignores the cache
    # a new package version invalidates it too
    monkeypatch.setattr(_io, "package_version", lambda: "9.9.9")
    assert main(args) == 0 and calls == [1, 2, 3] * 4


def test_code_hash_follows_imports(tmp_path, monkeypatch):
    """The hash covers the experiment module and the ocef modules it imports (also inside functions)."""
    h = _io.code_hash("ocef.experiments.bandit_alpha")
    assert len(h) == 16 and h != _io.code_hash("ocef.experiments.reo_monitoring")
    from ocef.experiments._io import _imported_ocef_modules, _module_file

    deps = _imported_ocef_modules(_module_file("ocef.experiments._bandit"), "ocef.experiments._bandit")
    assert {"ocef.envy.runner", "ocef.envy.bounds", "ocef.experiments._io", "ocef.environments.bandits"} <= deps
    deps = _imported_ocef_modules(_module_file("ocef.experiments._audit"), "ocef.experiments._audit")
    assert "ocef.envy.audit" in deps                      # imported inside a function


def test_interrupt_prints_one_line_and_exits_130(toy, tmp_path, capsys, monkeypatch):
    mod = toy("toy-ok")
    inner = mod.run

    def interrupted(out_dir, **kw):
        inner(out_dir, **kw)                         # 3 parts saved, then Ctrl-C
        raise KeyboardInterrupt
    monkeypatch.setattr(mod, "run", interrupted)
    assert main(["reproduce", "toy-ok", "--out", str(tmp_path), "--no-progress"]) == 130
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "interrupted; 3 parts saved; run the same command to resume"


def test_fallback_to_synthetic_says_so_in_one_line(tmp_path, capsys):
    assert main(["reproduce", "movielens-audit-group-size", "--quick", "--out", str(tmp_path / "o"),
                 "--data-dir", str(tmp_path / "no-data"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if "not found: using the synthetic environment" in x]
    assert len(lines) == 1 and "MovieLens" in lines[0]
    doc = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert doc["experiments"][0]["dataset"].startswith("the synthetic environment")


def test_check_claims_never_raises():
    claims = [Claim("F", "broken", lambda df: 1 / 0), Claim("F", "fine", lambda df: (True, "ok"))]
    out = check_claims(claims, pd.DataFrame())
    assert out[0]["holds"] is None and "ZeroDivisionError" in out[0]["evidence"]
    assert out[1] == {"figure": "F", "claim": "fine", "holds": True, "evidence": "ok"}


def test_fit_slope_exact_and_interval():
    s = fit_slope([1, 2, 3, 4], [3, 5, 7, 9])
    assert s.slope == pytest.approx(2.0) and s.low == pytest.approx(2.0) and s.high == pytest.approx(2.0)
    # y = x^-1 exactly: log-log slope -1
    assert fit_slope([1, 10, 100], [1, 0.1, 0.01], logx=True, logy=True).slope == pytest.approx(-1.0)
    # fixed effects: two groups with different intercepts, same slope 3
    s = fit_slope([0, 1, 2, 0, 1, 2], [0, 3, 6, 10, 13, 16.5], groups=[0, 0, 0, 1, 1, 1])
    assert s.slope == pytest.approx(3.125) and s.low < 3 < s.high      # hand-computed: Sxy/Sxx = 12.5/4


def test_every_experiment_declares_claims():
    for name in registry.names():
        claims = getattr(registry.module(name), "CLAIMS", None)
        assert claims and all(isinstance(c, Claim) for c in claims), name


def test_an_experiment_that_does_not_import_fails_cleanly(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(registry.EXPERIMENTS, "toy-broken", "tests_toy_no_such_module_xyz")
    assert main(["reproduce", "toy-broken", "--out", str(tmp_path), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "failed: cannot import tests_toy_no_such_module_xyz" in out and "Traceback" not in out


def test_editing_the_source_changes_the_code_hash(tmp_path, monkeypatch):
    """A real edit of an experiment's source file gives a new hash (hence no cache reuse)."""
    src = tmp_path / "tests_toy_edited_exp.py"
    src.write_text("from ocef.experiments import _io\nX = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _io.code_hash.cache_clear()
    before = _io.code_hash("tests_toy_edited_exp")
    src.write_text("from ocef.experiments import _io\nX = 2\n")
    _io.code_hash.cache_clear()
    after = _io.code_hash("tests_toy_edited_exp")
    _io.code_hash.cache_clear()
    assert before != after
    # the hash covers the ocef module it imports as well: same source, different dependency set
    src.write_text("X = 2\n")
    assert _io.code_hash("tests_toy_edited_exp") != after
    _io.code_hash.cache_clear()
