"""``ocef reproduce``: run the paper-figure experiments and write the reproduction report."""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.errors import ParameterError
from ocef.commands._common import add_progress


def register(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce the papers' figures and check their claims (report: OUT/index.html)",
        description="Run registered experiments. Each writes OUT/NAME/NAME.csv and OUT/NAME/NAME.png; "
                    "the paper claims each one declares are checked on its CSV. The run ends with a "
                    "summary table and writes OUT/summary.json and OUT/index.html (every figure, claim, "
                    "verdict and data set). Finished parts are cached (keyed on the configuration, the "
                    "package version and a hash of the experiment's code), so an interrupted run resumes "
                    "where it stopped. Exit status 1 when an experiment failed; experiments whose data "
                    "is missing are skipped with the reason and do not fail the run.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="experiments to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    p.add_argument("--quick", action="store_true", help="small variants that finish in under a minute each")
    p.add_argument("--out", type=str, default="results", help="output folder (default: results)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="folder holding the data sets (ml-1m/, ml-100k/, coat/, obd/); "
                        "default: $OCEF_DATA_DIR or ../shared/data")
    p.add_argument("--recheck", action="store_true",
                   help="check the claims again on the results already in --out (no experiment runs) and "
                        "rewrite the report")
    p.add_argument("--fresh", action="store_true", help="ignore cached parts and recompute everything")
    add_progress(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.experiments import registry, report

    if args.list:
        import shutil
        import textwrap

        width = max(80, shutil.get_terminal_size((100, 24)).columns)   # descriptions wrap to the terminal

        def line(name, quick, full, text):
            head = f"{name:26s} {quick:>7s} {full:>7s}  "
            return "\n".join(textwrap.wrap(text, width - 1, initial_indent=head, subsequent_indent=" " * len(head)))

        print(textwrap.fill("Run times measured on a 2-core machine shared with other jobs (- = not measured); "
                            "quick: with the fitted models already in the model cache ($OCEF_CACHE_DIR), a "
                            "first run also fits them (31 min in all, measured).", width - 1))
        print(line("experiment", "quick", "full", "description"))
        for name, description in registry.describe():
            quick_s, full_s = registry.RUN_SECONDS.get(name, (None, None))
            print(line(name, _duration(quick_s), _duration(full_s), description))
        (quick_t, quick_n), (full_t, full_n) = registry.total_seconds("quick"), registry.total_seconds("full")
        n = len(registry.names())
        print(line("total (sum)", _duration(quick_t), _duration(full_t),
                   f"quick: {quick_n} of {n} experiments measured; full: {full_n} of {n} measured"
                   + ("" if full_n == n else ", so the full total is a lower bound")))
        return 0
    if not args.out.strip():                           # Path('') would be the current folder

        raise ParameterError("--out must name a folder, got an empty name")
    args.out = Path(args.out)
    names = args.names or registry.names()
    unknown = [n for n in names if n not in registry.names()]
    if unknown:
        raise ParameterError(f"unknown experiment(s) {unknown}; run `ocef reproduce --list`")
    if args.recheck:
        doc = report.recheck(args.out, names)
        print(report.summary_table(doc["experiments"]))
        print(f"\nreport: {Path(args.out) / report.INDEX_FILE}")
        return 0
    out = report.check_writable(args.out)              # before any work
    started = report.now()
    entries: list[dict] = []
    try:
        for name in names:
            print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
            entry = report.run_one(name, out=out, quick=args.quick, seed=args.seed, data_dir=args.data_dir,
                                   progress=args.progress, fresh=args.fresh,
                                   log=lambda s: print(s, flush=True))
            entries.append(entry)
            if entry["status"] == "ok":
                print(f"   ok in {entry['seconds']:.1f} s; claims: {report.claims_cell(entry)}", flush=True)
            else:
                print(f"   {entry['status']}: {entry['reason']}", flush=True)
    except KeyboardInterrupt:
        saved = _parts_on_disk(out, names)
        print(f"\ninterrupted; {saved} parts saved; run the same command to resume", flush=True)
        return 130
    if args.names:                                     # update these sections, keep the others
        entries = report.merge(out, entries)
    doc = report.summary(entries, started=started, seed=args.seed, quick=args.quick)
    report.write_summary(out, doc)
    index = report.write_index(out, doc)
    print()
    print(report.summary_table(entries))
    skipped = [e["name"] for e in entries if e["status"] == "skipped"]
    failed = [e["name"] for e in entries if e["status"] == "failed"]
    if skipped:
        print(f"\nskipped for missing data: {', '.join(skipped)} (give --data-dir or set OCEF_DATA_DIR)")
    print(f"\nreport: {index}  (summary: {out / report.SUMMARY_FILE})")
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


def _duration(seconds) -> str:
    """``95`` -> ``"1.6 min"``, ``None`` -> ``"-"``."""
    if seconds is None:
        return "-"
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _parts_on_disk(out: Path, names: list[str]) -> int:
    """Cached parts under ``OUT/NAME/**/parts/`` of the experiments of this run."""
    from ocef.experiments._io import PART_SUFFIX

    return sum(1 for name in names for p in (out / name).rglob(f"parts/*{PART_SUFFIX}")) if out.exists() else 0
