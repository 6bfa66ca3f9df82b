"""``ocef reproduce``: run the paper-figure experiments."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce the papers' figures (CSV + PNG under results/NAME/)",
        description="Run registered experiments. Each writes OUT/NAME/NAME.csv and OUT/NAME/NAME.png; "
                    "finished parts are kept, so an interrupted run resumes where it stopped.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="experiments to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    p.add_argument("--quick", action="store_true", help="small variants that finish in under a minute each")
    p.add_argument("--out", type=Path, default=Path("results"), help="output folder (default: results)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="folder holding the data sets (ml-1m/, ml-100k/, coat/, obd/); "
                        "default: $OCEF_DATA_DIR or ../shared/data")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.experiments import registry

    if args.list:
        for name, description in registry.describe():
            print(f"{name:32s} {description}")
        return 0
    names = args.names or registry.names()
    unknown = [n for n in names if n not in registry.names()]
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; run `ocef reproduce --list`")
    skipped = []
    for name in names:
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        try:
            paths = registry.run(name, out=args.out, quick=args.quick, seed=args.seed,
                                 data_dir=args.data_dir, progress=not args.no_progress)
        except FileNotFoundError as exc:      # a data set is missing: say so, run the others
            print(f"   skipped: {exc}", flush=True)
            skipped.append(name)
            continue
        for path in paths:
            print(f"   wrote {path}", flush=True)
    if skipped:
        print(f"skipped for missing data: {', '.join(skipped)} (give --data-dir or set OCEF_DATA_DIR)")
    return 0
