"""The reproduction report: run experiments, check their claims, write ``summary.json`` and
``index.html``, print the console summary.

Works for any registered experiment: everything it needs comes from the module's ``NAME``,
``DESCRIPTION``, ``CLAIMS`` (optional, :class:`ocef.experiments.claims.Claim`) and the files it
writes (``OUT/NAME/NAME.csv``, ``OUT/NAME/NAME.png``); nothing here is specific to one experiment.

Statuses: ``ok``; ``skipped`` when the experiment raised :class:`ocef.errors.DatasetNotFoundError` (a data set is
missing: the reason is reported, the run does not fail); ``failed`` for any other exception (the
run exits non-zero). Claims are checked on ``NAME.csv`` after an ``ok`` run and never fail it; each
gets one of four verdicts (``holds``, ``contradicted``, ``inconclusive``, ``unchecked``, see
:mod:`ocef.experiments.claims`) with a reason, and the paper's own number where it prints one. An
experiment's shown outcome reflects its claims (:func:`outcome`), not only whether it ran.

Running some experiments into a folder that already holds a report updates their sections and
keeps the others (:func:`merge`).
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

from ocef.errors import DataError, DatasetNotFoundError, ParameterError
from ocef.experiments import _io, registry
from ocef.experiments.claims import VERDICTS, check_claims, verdict_counts
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
        raise ParameterError(f"--out {str(out)!r} is not a writable folder ({exc.strerror or exc})") from None
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
        except DatasetNotFoundError as exc:              # a data set is missing (any other file: failed)
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
    entry["dataset"] = "; ".join(datasets) or getattr(mod, "DATASET", "") or "not stated"
    entry["quick"] = bool(quick)
    describe = getattr(mod, "describe", None)
    if callable(describe):                                # the configuration actually run
        entry["description"] = describe(quick)
    if entry["status"] == "ok" and claims:
        try:
            results = pd.read_csv(out_dir / f"{name}.csv")
        except Exception as exc:                          # no CSV: every claim is unchecked
            entry["claims"] = _unchecked(claims, f"results not readable: {type(exc).__name__}: {exc}")
        else:
            if not datasets and not getattr(mod, "DATASET", "") and "dataset" in results:
                entry["dataset"] = "; ".join(str(d) for d in results["dataset"].dropna().unique()) or "not stated"
            entry["claims"] = check_claims(claims, results, quick=quick, dataset=entry["dataset"])
    elif claims:
        entry["claims"] = _unchecked(claims, f"not checked: experiment {entry['status']}")
    return entry


def _unchecked(claims, evidence: str) -> list[dict]:
    """Summary rows of ``claims`` that were not checked, each with ``evidence`` (the reason)."""
    return [{"figure": c.figure, "claim": c.text, "test": c.test or None, "verdict": "unchecked",
             "reason": evidence, "evidence": evidence, "holds": None, "paper_value": c.paper_value,
             "paper_source": c.paper_source or None, "ours": None, "difference": None} for c in claims]


def claim_counts(entry: dict) -> tuple[int, int]:
    """(claims that hold, claims checked) of one summary entry (``unchecked`` claims are not counted)."""
    counts = verdict_counts(entry["claims"])
    return counts["holds"], sum(counts.values()) - counts["unchecked"]


def outcome(entry: dict) -> str:
    """What an experiment's row shows.

    Its run status unless ``ok``; then its claims' verdicts: ``"ok"`` only when every checked
    claim holds, otherwise the worst verdict among its claims (``contradicted`` before
    ``inconclusive`` before ``unchecked``), so no green "ok" stands beside claims that do not hold.

    Parameters
    ----------
    entry : dict
        One experiment of ``summary.json`` (``status`` and ``claims``).

    Returns
    -------
    str

    Examples
    --------
    >>> outcome({"status": "ok", "claims": [{"verdict": "holds"}, {"verdict": "inconclusive"}]})
    'inconclusive'
    >>> outcome({"status": "skipped", "claims": []})
    'skipped'
    """
    if entry["status"] != "ok":
        return entry["status"]
    counts = verdict_counts(entry["claims"])
    for word in ("contradicted", "inconclusive", "unchecked"):
        if counts[word]:
            return word
    return "ok"


def claims_cell(entry: dict) -> str:
    """The verdict counts of one experiment in words.

    Parameters
    ----------
    entry : dict
        One experiment of ``summary.json``.

    Returns
    -------
    str

    Examples
    --------
    >>> claims_cell({"claims": [{"verdict": "holds"}, {"verdict": "holds"}, {"verdict": "unchecked"}]})
    '2 holds, 1 unchecked'
    """
    counts = verdict_counts(entry["claims"])
    return ", ".join(f"{n} {w}" for w, n in counts.items() if n) or "no claims"


def summary_table(entries: list[dict]) -> str:
    """The console summary: one line per experiment, then every claim with its verdict and reason."""
    rows = [("experiment", "outcome", "seconds", "parts reused", "claims", "data set")]
    for e in entries:
        rows.append((e["name"], outcome(e), f"{e['seconds']:.1f}", f"{e['parts']['reused']}/{e['parts']['total']}",
                     claims_cell(e), _short(e["dataset"], 60)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1] for r in rows]
    lines.insert(1, "-" * min(120, max(len(x) for x in lines)))
    claim_lines = []
    for e in entries:
        for c in e["claims"]:
            paper = "" if c.get("paper_value") is None else f" [paper: {c['paper_value']}]"
            reason = "" if c["verdict"] == "holds" else f" -- because: {c['reason']}"
            claim_lines.append(f"  [{c['verdict'].upper():<12}] {e['name']} {c['figure']}: {c['claim']} -- "
                               f"{c['evidence']}{paper}{reason}")
        if e["status"] != "ok" and e.get("reason"):
            claim_lines.append(f"  [{e['status'].upper():<12}] {e['name']}: {e['reason']}")
    if claim_lines:
        totals = verdict_counts([c for e in entries for c in e["claims"]])
        lines += ["", "claims: " + ", ".join(f"{n} {w}" for w, n in totals.items())] + claim_lines
    return "\n".join(lines)


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def summary(entries: list[dict], *, started: str, seed: int, quick: bool) -> dict:
    """The ``summary.json`` document: the experiments (each with its claims: ``verdict``,
    ``reason``, ``evidence``, ``paper_value``, ...), the counts per verdict and the versions."""
    return {"experiments": entries, "version": _io.package_version(), "started": started, "seed": seed,
            "quick": quick, "verdicts": verdict_counts([c for e in entries for c in e["claims"]]),
            "versions": versions()}


def merge(out: Path | str, entries: list[dict]) -> list[dict]:
    """``entries`` merged into the report already in ``out`` (its ``summary.json``): the
    experiments run now replace their old sections, the others are kept; registry order. Without
    a readable earlier report, ``entries`` as they are.

    Examples
    --------
    >>> merge("/nonexistent-folder", [{"name": "bandit-alpha"}])
    [{'name': 'bandit-alpha'}]
    """
    import json

    try:
        old = from_json(json.loads((Path(out) / SUMMARY_FILE).read_text()))["experiments"]
    except (OSError, ValueError, KeyError, TypeError):
        return entries
    new = {e["name"]: e for e in entries}
    kept = {e["name"]: e for e in old if isinstance(e, dict) and "name" in e and e["name"] not in new}
    for e in kept.values():                              # reports written before verdicts existed
        for c in e.get("claims", []):
            if "verdict" not in c:
                c["verdict"] = {True: "holds", None: "unchecked"}.get(c.get("holds"), "inconclusive")
                c.setdefault("reason", None if c["verdict"] == "holds" else "checked by an older version")
    both = {**kept, **new}
    order = {name: i for i, name in enumerate(registry.names())}
    return sorted(both.values(), key=lambda e: order.get(e["name"], len(order)))


def recheck(out: Path | str, names: list[str] | None = None) -> dict:
    """Check the claims again on the CSVs already in ``out`` (no experiment runs) and rewrite
    ``summary.json`` and ``index.html``: for claims or checks changed after a long run. Each
    experiment keeps its run facts (quick or full, data set, seconds); ``names`` limits the
    re-check (default: every ``ok`` experiment). Returns the new document.

    Examples
    --------
    >>> recheck("/nonexistent-folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no report to re-check: /nonexistent-folder/summary.json does not exist
    """
    path = Path(out) / SUMMARY_FILE
    if not path.exists():
        raise FileNotFoundError(f"no report to re-check: {path} does not exist")
    doc = _read_report(path)
    try:
        return _recheck(out, path, doc, names)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:   # a field missing or of another type
        if isinstance(exc, DataError):
            raise
        raise DataError(f"{path} is a malformed ocef reproduce report ({type(exc).__name__}: {str(exc)[:80]}); "
                        f"rerun `ocef reproduce` without --recheck to write it again") from None


def _recheck(out, path: Path, doc: dict, names) -> dict:
    for entry in doc["experiments"]:
        if entry.get("status") != "ok" or (names and entry["name"] not in names):
            continue
        mod = registry.module(entry["name"])
        quick = bool(entry.get("quick", doc.get("quick")))
        entry["quick"] = quick
        if callable(getattr(mod, "describe", None)):
            entry["description"] = mod.describe(quick)
        claims = list(getattr(mod, "CLAIMS", []))
        try:
            results = pd.read_csv(Path(out) / entry["name"] / f"{entry['name']}.csv")
        except Exception as exc:
            entry["claims"] = _unchecked(claims, f"results not readable: {type(exc).__name__}: {exc}")
        else:
            entry["claims"] = check_claims(claims, results, quick=quick, dataset=entry.get("dataset", ""))
    doc["verdicts"] = verdict_counts([c for e in doc["experiments"] for c in e["claims"]])
    summary_table(doc["experiments"])                  # every field the report prints, before anything is written
    render_html(doc)
    write_summary(out, doc)
    write_index(out, doc)
    return doc


def _read_report(path: Path) -> dict:
    """``summary.json`` checked for :func:`recheck` (issue 28: a malformed file ended in a traceback)."""
    import json

    fix = "rerun `ocef reproduce` without --recheck to write it again"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path} is not a readable JSON report ({type(exc).__name__}: {str(exc)[:80]}); {fix}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("experiments"), list):
        raise DataError(f"{path} is not an ocef reproduce report: it needs an 'experiments' list; {fix}")
    doc = from_json(doc)
    known = set(registry.names())
    for i, entry in enumerate(doc["experiments"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise DataError(f"{path}: experiments[{i}] is not an experiment entry with a 'name'; {fix}")
        if entry.get("status") == "ok" and entry["name"] not in known:
            raise DataError(f"{path}: experiments[{i}] names an unknown experiment {entry['name']!r}; {fix}")
        if entry.get("status") != "ok" and not isinstance(entry.get("claims", []), list):
            raise DataError(f"{path}: experiments[{i}] has claims that are not a list; {fix}")
        entry.setdefault("claims", [])
    return doc


def write_summary(out: Path, doc: dict) -> Path:
    """Write ``summary.json``. Each experiment's ``status`` there is its shown outcome
    (:func:`outcome`: ``ok`` only when every checked claim holds, else the worst verdict, or
    ``skipped``/``failed``), and ``run`` whether it ran (``ok``, ``skipped``, ``failed``), so no
    ``"status": "ok"`` stands beside an inconclusive experiment."""
    return atomic_write_text(Path(out) / SUMMARY_FILE, dumps(for_json(doc)) + "\n")


def for_json(doc: dict) -> dict:
    """``doc`` as ``summary.json`` stores it: per experiment ``status`` = :func:`outcome` and
    ``run`` = the run status; :func:`from_json` undoes it.

    Examples
    --------
    >>> e = {"name": "x", "status": "ok", "claims": [{"verdict": "inconclusive"}]}
    >>> stored = for_json({"experiments": [e]})["experiments"][0]
    >>> stored["status"], stored["run"], from_json({"experiments": [stored]})["experiments"][0]["status"]
    ('inconclusive', 'ok', 'ok')
    """
    return {**doc, "experiments": [{**e, "status": outcome(e), "run": e["status"]} for e in doc["experiments"]]}


def from_json(doc: dict) -> dict:
    """A ``summary.json`` document back in memory: ``status`` = the run status (a report written
    before ``run`` existed already has it there)."""
    for e in doc.get("experiments", []):
        if isinstance(e, dict) and "run" in e:
            e["status"] = e.pop("run")
    return doc


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1280px;margin:1.5em auto;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:.8em 0 .3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em;display:block;overflow-x:auto;max-width:100%}
@media (max-width:900px){table.claims{font-size:.8em} table.claims td{min-width:5em} table.claims td:nth-child(4){min-width:14em}} td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left} th{background:#f4f4f4}
.ok,.holds-word{color:#11651a;font-weight:600}.skipped,.unchecked-word{color:#666;font-weight:600}
.failed,.contradicted-word{color:#b00020;font-weight:600}.inconclusive-word{color:#8a6100;font-weight:600}
.contradicted{background:#fde8e8}.holds{background:#eef7ee}.inconclusive{background:#fff6dc}.unchecked{background:#f3f3f3}
.verdict{font-weight:600;white-space:nowrap} .meta{color:#555;font-size:.9em}
.counts a{margin-right:1.2em;font-weight:600;text-decoration:none} .num{white-space:nowrap}
img{max-width:100%;border:1px solid #eee;margin:.5em 0} code{background:#f4f4f4;padding:0 .2em}
pre{background:#f8f8f8;padding:.5em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}
details{margin:.4em 0} summary{cursor:pointer;color:#555;font-size:.9em}
"""

#: The papers the experiments reproduce: key (the BibTeX key of docs/cite.md) -> (the name every page
#: uses, the full reference printed once at the top of the report).
PAPERS = {
    "do2022": ("Do et al. 2022 (OCEF)", "V. Do, S. Corbett-Davies, J. Atif, N. Usunier. Online Certification of "
               "Preference-Based Fairness for Personalized Recommender Systems. AAAI 2022, 36(6):6532-6540. "
               "doi:10.1609/aaai.v36i6.20606"),
    "dong2024": ("Dong et al. 2024 (REO from random traffic)", "Y. Dong, K. Jin, X. Hu, Y. Liu. Measuring Fairness "
                 "in Large-Scale Recommendation Systems with Missing Labels. arXiv:2406.05247, 2024"),
    "beutel2019": ("Beutel et al. 2019 (pairwise fairness)", "A. Beutel, J. Chen, T. Doshi, H. Qian, L. Wei, Y. Wu, "
                   "L. Heldt, Z. Zhao, L. Hong, E. H. Chi, C. Goodrow. Fairness in Recommendation Ranking through "
                   "Pairwise Comparisons. KDD 2019, 2212-2220. doi:10.1145/3292500.3330745"),
    "guo2023": ("Guo et al. 2023 (FairRec)", "H. Guo, J. Li, J. Wang, X. Liu, D. Wang, Z. Hu, R. Zhang, H. Xue. "
                "FairRec: Fairness Testing for Deep Recommender Systems. ISSTA 2023, 310-321. "
                "doi:10.1145/3597926.3598058"),
    "holisticai": ("holisticai's bias metrics", "Holistic AI. holisticai: recommender systems bias metrics "
                   "(documentation of version 1.0.14). https://github.com/holistic-ai/holisticai"),
}
#: The paper of each experiment, by the start of its name (a module's ``PAPER`` overrides it).
_PAPER_OF = (("bandit-", "do2022"), ("movielens-audit", "do2022"), ("envy-", "do2022"), ("measurement-bias", "do2022"),
             ("reo-", "dong2024"), ("pairwise-", "beutel2019"), ("fairrec-", "guo2023"),
             ("bias-metrics", "holisticai"), ("exposure-", "holisticai"))


def paper_of(name: str) -> str | None:
    """The key in :data:`PAPERS` of the paper experiment ``name`` reproduces (``None``: none known).

    Examples
    --------
    >>> PAPERS[paper_of("reo-monitoring")][0]
    'Dong et al. 2024 (REO from random traffic)'
    """
    try:
        own = getattr(registry.module(name), "PAPER", None)
    except Exception:                                     # an experiment that does not import
        own = None
    return own or next((key for prefix, key in _PAPER_OF if name.startswith(prefix)), None)


_MEANING = {
    "holds": "the data support the claim at its test's level",
    "contradicted": "the data support the opposite",
    "inconclusive": "neither: too little data (the reason says what would settle it)",
    "unchecked": "this run cannot compute it (e.g. a quick grid without the needed points)",
}


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _run_kind(doc: dict) -> str:
    exps = doc["experiments"]
    kinds = {bool(x.get("quick", doc.get("quick"))) for x in exps}
    if kinds == {True}:
        return "quick run (small grids: see docs/guide/reproduction.md)"
    if kinds == {False}:
        return "full run"
    quick = [x["name"] for x in exps if x.get("quick", doc.get("quick"))]
    return f"mixed report: quick runs of {len(quick)} experiment(s), full runs of the others"


def render_html(doc: dict) -> str:
    """One self-contained page (figures linked relatively): the counts per verdict (each linking to
    the list of its claims), a summary table, then every experiment with its figure, paper
    reference, claims (test, verdict, reason, evidence, the paper's number beside ours), data set
    and run facts."""
    e = html.escape
    exps = doc["experiments"]
    rows = [(x, i, c) for x in exps for i, c in enumerate(x["claims"])]
    counts = verdict_counts([c for _, _, c in rows])
    vers = ", ".join(f"{k} {v}" for k, v in doc.get("versions", {}).items())
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>OCEF reproduction report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>OCEF reproduction report</h1>",
           f'<p class="meta">ocef {e(str(doc["version"]))} · started {e(str(doc["started"]))} · random seed (--seed) {doc["seed"]}'
           f" · {e(_run_kind(doc))} · {len(exps)} experiments · {len(rows)} claims</p>",
           '<p class="counts" id="verdicts">' + "".join(
               f'<a href="#list-{w}" class="{w}-word" title="{e(_MEANING[w])}">{n} {w}</a>'
               for w, n in counts.items()) + "</p>",
           f'<p class="meta">versions: {e(vers)}</p>',
           "<h2 id=\"papers\">Papers</h2><p>The experiments reproduce figures, tables and claims of these papers "
           "(named by authors and year on this page; BibTeX: the documentation's Cite page, docs/cite.md):</p><ul>"
           + "".join(f'<li id="paper-{k}"><b>{e(name)}</b>: {e(ref)}</li>' for k, (name, ref) in PAPERS.items())
           + "</ul>",
           '<table id="summary"><thead><tr><th>experiment</th><th>paper</th><th>outcome</th><th>seconds</th>'
           "<th>claims</th><th>run</th><th>data set</th></tr></thead><tbody>"]
    for x in exps:
        o = outcome(x)
        key = paper_of(x["name"])
        paper = f'<a href="#paper-{key}">{e(PAPERS[key][0])}</a>' if key else ""
        out.append(f'<tr><td><a href="#{e(x["name"])}">{e(x["name"])}</a></td><td>{paper}</td>'
                   f'<td class="{e(o)}{"" if o in ("ok", "skipped", "failed") else "-word"}">{e(o)}</td>'
                   f'<td class="num">{x["seconds"]:.1f}</td><td>{e(claims_cell(x))}</td>'
                   f'<td>{"quick" if x.get("quick", doc.get("quick")) else "full"}</td><td>{e(x["dataset"])}</td></tr>')
    out.append("</tbody></table>")
    # one list per verdict: the header counts link here, each row links to the claim's row
    for w in VERDICTS:
        mine = [(x, i, c) for x, i, c in rows if c["verdict"] == w]
        out.append(f'<h3 id="list-{w}"><span class="{w}-word">{w}</span>: {len(mine)} claim(s) — {e(_MEANING[w])}</h3>')
        if not mine:
            continue
        out.append(f'<details{" open" if w in ("contradicted", "inconclusive") else ""}><summary>the {len(mine)} '
                   f"claim(s)</summary><ul>")
        for x, i, c in mine:
            why = "" if w == "holds" else f" — {e(str(c.get('reason') or ''))}"
            out.append(f'<li><a href="#{e(x["name"])}-claim-{i + 1}">{e(x["name"])} {e(c["figure"])}</a>: '
                       f"{e(c['claim'])}{why}</li>")
        out.append("</ul></details>")
    for x in exps:
        o = outcome(x)
        out.append(f'<section class="experiment" id="{e(x["name"])}" data-status="{e(x["status"])}">')
        out.append(f'<h2>{e(x["name"])} <span class="{e(o)}{"" if o in ("ok", "skipped", "failed") else "-word"}">'
                   f'({e(o)}; {e(claims_cell(x))})</span></h2>')
        key = paper_of(x["name"])
        paper = f'<a href="#paper-{key}">{e(PAPERS[key][0])}</a>: ' if key else ""
        out.append(f'<p>{paper}{e(x["description"])}</p>')
        out.append(f'<p class="meta">{"quick" if x.get("quick", doc.get("quick")) else "full"} run · data set: '
                   f'{e(x["dataset"])} · {x["seconds"]:.1f} s · cached parts reused: '
                   f'{x["parts"]["reused"]} of {x["parts"]["total"]}</p>')
        if x.get("notes"):
            out.append(f"<details><summary>how this experiment works (module notes)</summary><pre>{e(x['notes'])}</pre>"
                       "</details>")
        if x.get("reason"):
            out.append(f'<p class="{e(x["status"])}">{e(x["status"])}: {e(x["reason"])}</p>')
        if x.get("traceback"):
            out.append(f"<pre>{e(x['traceback'])}</pre>")
        if x["claims"]:
            numbers = any(c.get("paper_value") is not None for c in x["claims"])
            out.append('<table class="claims"><thead><tr><th>paper</th><th>claim</th><th>verdict</th><th>reason</th>'
                       "<th>evidence (computed from the experiment's CSV)</th><th>test</th>"
                       + ("<th>paper's number</th><th>ours</th><th>ours − paper</th>" if numbers else "")
                       + "</tr></thead><tbody>")
            for i, c in enumerate(x["claims"]):
                w = c["verdict"]
                src = f' <span class="meta">({e(c["paper_source"])})</span>' if c.get("paper_source") else ""
                out.append(f'<tr class="claim {w}" id="{e(x["name"])}-claim-{i + 1}"><td>{e(c["figure"])}</td>'
                           f'<td>{e(c["claim"])}</td><td class="verdict {w}-word">{w}</td>'
                           f'<td>{e(str(c.get("reason") or ""))}</td><td>{e(c["evidence"])}</td>'
                           f'<td>{e(str(c.get("test") or ""))}</td>'
                           + (f'<td>{e(_fmt(c.get("paper_value")))}{src if c.get("paper_value") is not None else ""}</td>'
                              f'<td class="num">{e(_fmt(c.get("ours")))}</td>'
                              f'<td class="num">{e(_fmt(c.get("difference")))}</td>' if numbers else "")
                           + "</tr>")
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
