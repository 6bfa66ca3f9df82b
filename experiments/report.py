"""The reproduction report: run experiments, check their claims, write ``summary.json`` and
``index.html``, print the console summary.

Works for any registered experiment: everything it needs comes from the module's ``NAME``,
``DESCRIPTION``, ``CLAIMS`` (optional, :class:`ocef.experiments.claims.Claim`) and the files it
writes (``OUT/NAME/NAME.csv``, ``OUT/NAME/NAME.png``); nothing here is specific to one experiment.

Statuses: ``ok``; ``skipped`` when the experiment raised :class:`FileNotFoundError` (a data set is
missing: the reason is reported, the run does not fail); ``failed`` for any other exception (the
run exits non-zero). Claims are checked on ``NAME.csv`` after an ``ok`` run and never fail it.
"""
from __future__ import annotations

import html
import inspect
import os
import platform
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import pandas as pd

from ocef.experiments import _io, registry
from ocef.experiments.claims import check_claims
from ocef.files import atomic_write_text
from ocef.results import dumps

SUMMARY_FILE = "summary.json"
INDEX_FILE = "index.html"
#: Packages whose versions the report records.
VERSIONED = ("numpy", "scipy", "pandas", "matplotlib", "POT", "numba", "scikit-surprise", "duckdb")


def check_writable(out: Path | str) -> Path:
    """Create ``out`` if needed and prove a file can be written in it, else raise ``ValueError``
    naming the folder (called before any experiment runs)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"--out {str(out)!r} is not a writable folder ({exc.strerror or exc})") from None
    return out


def versions() -> dict[str, str]:
    """Python, ocef and the main dependencies' versions."""
    from importlib import metadata

    out = {"python": platform.python_version(), "ocef": _io.package_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def run_one(name: str, *, out: Path, quick: bool, seed: int, data_dir: Path | None, progress: bool,
            fresh: bool = False, log: Callable[[str], None] = print) -> dict:
    """Run experiment ``name`` inside a cache session, check its claims; one summary entry."""
    entry = {"name": name, "description": "", "notes": "", "status": "ok", "seconds": 0.0, "dataset": "",
             "claims": [], "reason": None, "files": [], "figure": None, "parts": {"reused": 0, "total": 0}}
    try:
        mod = registry.module(name)
    except Exception as exc:                              # the module does not even import
        entry.update(status="failed", dataset="not stated", traceback=traceback.format_exc(limit=-4),
                     reason=f"cannot import {registry.EXPERIMENTS[name]}: {type(exc).__name__}: {exc}")
        return entry
    entry.update(description=getattr(mod, "DESCRIPTION", ""), notes=inspect.cleandoc(mod.__doc__ or ""))
    out_dir = Path(out) / name
    out_dir.mkdir(parents=True, exist_ok=True)
    tic = time.perf_counter()
    with _io.session(code=_io.code_hash(mod.__name__), fresh=fresh, log=lambda s: log(f"   {s}")) as s:
        try:
            paths = mod.run(out_dir, quick=quick, seed=seed, data_dir=data_dir, progress=progress)
        except FileNotFoundError as exc:                 # a data set is missing
            entry.update(status="skipped", reason=str(exc))
            paths = []
        except KeyboardInterrupt:
            raise
        except Exception as exc:                          # reported, the others still run
            entry.update(status="failed", reason=f"{type(exc).__name__}: {exc}",
                         traceback=traceback.format_exc(limit=-4))
            paths = []
        entry["parts"] = {"reused": s.parts_reused, "total": s.parts_total}
        datasets = list(s.datasets)
    entry["seconds"] = round(time.perf_counter() - tic, 2)
    entry["files"] = [str(Path(p).relative_to(out)) if Path(p).is_relative_to(out) else str(p) for p in paths]
    png = out_dir / f"{name}.png"
    if entry["status"] == "ok" and png.exists():
        entry["figure"] = f"{name}/{name}.png"
    claims = list(getattr(mod, "CLAIMS", []))
    if entry["status"] == "ok" and claims:
        try:
            results = pd.read_csv(out_dir / f"{name}.csv")
        except Exception as exc:                          # no CSV: every claim is unchecked
            entry["claims"] = _unchecked(claims, f"results not readable: {type(exc).__name__}: {exc}")
        else:
            entry["claims"] = check_claims(claims, results)
            if not datasets and not getattr(mod, "DATASET", "") and "dataset" in results:
                datasets = [str(d) for d in results["dataset"].dropna().unique()]
    elif claims:
        entry["claims"] = _unchecked(claims, f"not checked: experiment {entry['status']}")
    entry["dataset"] = "; ".join(datasets) or getattr(mod, "DATASET", "") or "not stated"
    return entry


def _unchecked(claims, evidence: str) -> list[dict]:
    """Summary rows of ``claims`` that were not checked, each with ``evidence`` (the reason)."""
    return [{"figure": c.figure, "claim": c.text, "holds": None, "evidence": evidence} for c in claims]


def claim_counts(entry: dict) -> tuple[int, int]:
    """(claims held, claims checked) of one summary entry (unchecked claims are not counted)."""
    checked = [c for c in entry["claims"] if c["holds"] is not None]
    return sum(bool(c["holds"]) for c in checked), len(checked)


def summary_table(entries: list[dict]) -> str:
    """The console summary: one line per experiment, then every claim with its verdict."""
    rows = [("experiment", "status", "seconds", "parts reused", "claims held", "data set")]
    for e in entries:
        held, checked = claim_counts(e)
        rows.append((e["name"], e["status"], f"{e['seconds']:.1f}",
                     f"{e['parts']['reused']}/{e['parts']['total']}",
                     f"{held}/{checked}" + (f" (+{len(e['claims']) - checked} unchecked)"
                                            if len(e["claims"]) > checked else ""),
                     _short(e["dataset"], 60)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1] for r in rows]
    lines.insert(1, "-" * min(120, max(len(x) for x in lines)))
    claim_lines = []
    for e in entries:
        for c in e["claims"]:
            mark = {True: "HOLDS ", False: "FAILS ", None: "UNCHECKED"}[c["holds"]]
            claim_lines.append(f"  [{mark:<9}] {e['name']} {c['figure']}: {c['claim']} -- {c['evidence']}")
        if e["status"] != "ok" and e.get("reason"):
            claim_lines.append(f"  [{e['status'].upper():<9}] {e['name']}: {e['reason']}")
    if claim_lines:
        lines += ["", "claims:"] + claim_lines
    return "\n".join(lines)


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def summary(entries: list[dict], *, started: str, seed: int, quick: bool) -> dict:
    """The ``summary.json`` document."""
    return {"experiments": entries, "version": _io.package_version(), "started": started, "seed": seed,
            "quick": quick, "versions": versions()}


def write_summary(out: Path, doc: dict) -> Path:
    return atomic_write_text(Path(out) / SUMMARY_FILE, dumps(doc) + "\n")


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1180px;margin:1.5em auto;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em} td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left} th{background:#f4f4f4}
.ok{color:#11651a;font-weight:600}.skipped{color:#8a6100;font-weight:600}.failed{color:#b00020;font-weight:600}
.holds{background:#e6f4e6}.fails{background:#fde8e8}.unchecked{background:#f3f3f3}
.verdict{font-weight:600;white-space:nowrap} .meta{color:#555;font-size:.9em}
img{max-width:100%;border:1px solid #eee;margin:.5em 0} code{background:#f4f4f4;padding:0 .2em}
pre{background:#f8f8f8;padding:.5em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}
details{margin:.4em 0} summary{cursor:pointer;color:#555;font-size:.9em}
"""


def render_html(doc: dict) -> str:
    """One self-contained page (figures linked relatively): summary table, then every experiment
    with its figure, paper reference, claims (verdict and evidence), data set and run facts."""
    e = html.escape
    exps = doc["experiments"]
    n_claims = sum(claim_counts(x)[1] for x in exps)
    n_held = sum(claim_counts(x)[0] for x in exps)
    vers = ", ".join(f"{k} {v}" for k, v in doc.get("versions", {}).items())
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>OCEF reproduction report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>OCEF reproduction report</h1>",
           f'<p class="meta">ocef {e(str(doc["version"]))} · started {e(str(doc["started"]))} · seed {doc["seed"]}'
           f' · {"quick" if doc.get("quick") else "full"} run · {len(exps)} experiments · '
           f"{n_held} of {n_claims} checked claims hold</p>",
           f'<p class="meta">versions: {e(vers)}</p>',
           '<table id="summary"><thead><tr><th>experiment</th><th>status</th><th>seconds</th>'
           "<th>claims held / checked</th><th>data set</th></tr></thead><tbody>"]
    for x in exps:
        held, checked = claim_counts(x)
        out.append(f'<tr><td><a href="#{e(x["name"])}">{e(x["name"])}</a></td>'
                   f'<td class="{e(x["status"])}">{e(x["status"])}</td><td>{x["seconds"]:.1f}</td>'
                   f"<td>{held} / {checked}</td><td>{e(x['dataset'])}</td></tr>")
    out.append("</tbody></table>")
    for x in exps:
        out.append(f'<section class="experiment" id="{e(x["name"])}" data-status="{e(x["status"])}">')
        out.append(f'<h2>{e(x["name"])} <span class="{e(x["status"])}">({e(x["status"])})</span></h2>')
        out.append(f'<p>{e(x["description"])}</p>')
        out.append(f'<p class="meta">data set: {e(x["dataset"])} · {x["seconds"]:.1f} s · cached parts reused: '
                   f'{x["parts"]["reused"]} of {x["parts"]["total"]}</p>')
        if x.get("notes"):
            out.append(f"<details><summary>how this experiment works (module notes)</summary><pre>{e(x['notes'])}</pre>"
                       "</details>")
        if x.get("reason"):
            out.append(f'<p class="{e(x["status"])}">{e(x["status"])}: {e(x["reason"])}</p>')
        if x.get("traceback"):
            out.append(f"<pre>{e(x['traceback'])}</pre>")
        if x["claims"]:
            out.append('<table class="claims"><thead><tr><th>paper</th><th>claim</th><th>verdict</th>'
                       "<th>evidence (computed from the experiment's CSV)</th></tr></thead><tbody>")
            for c in x["claims"]:
                cls, word = {True: ("holds", "holds"), False: ("fails", "does not hold"),
                             None: ("unchecked", "not checked")}[c["holds"]]
                out.append(f'<tr class="claim {cls}"><td>{e(c["figure"])}</td><td>{e(c["claim"])}</td>'
                           f'<td class="verdict">{word}</td><td>{e(c["evidence"])}</td></tr>')
            out.append("</tbody></table>")
        else:
            out.append('<p class="meta">This experiment declares no claims.</p>')
        if x.get("figure"):
            out.append(f'<img src="{e(x["figure"])}" alt="figure of {e(x["name"])}" loading="lazy">')
        files = ", ".join(f'<a href="{e(f)}">{e(Path(f).name)}</a>' for f in x["files"])
        if files:
            out.append(f'<p class="meta">files: {files}</p>')
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out)


def write_index(out: Path, doc: dict) -> Path:
    return atomic_write_text(Path(out) / INDEX_FILE, render_html(doc))


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
