"""Fixed costs of the command line (issue 27): start-up of every command and a log audit's cost
above DuckDB's own query, on tiny inputs where nothing but the fixed costs remains.

1. Start-up: each command on a tiny input (or ``--help`` where it needs real data), against
   ``python -c "import numpy, pandas"``. Target: ≤ 1.3× for every command. ``ocef envy`` is timed
   with its default transport matching (POT's exact ``ot.emd``: ``import ot`` loads scikit-learn)
   and with ``--matching average`` (numpy only).
2. Log audits on a 1,000-row log (``ocef reo``, ``ocef reo-ab``, ``ocef pairwise``,
   ``ocef exposure``, ``ocef offpolicy``) against a Python process that imports DuckDB and runs the same group sums
   on the same files. Target: ≤ 0.5 s above it.

The commands are run in turn, ``--repeats`` times each, in this one process run (the machines
are shared and noisy), and the medians are compared. They run as an installed package runs: with
its byte-code written (``PYTHONDONTWRITEBYTECODE`` is dropped for them, so the warm-up run writes
the ``.pyc`` files that ``pip install`` writes; without them every run compiles OCEF's sources,
about 0.07 s). The load average is printed with the results. Figures and what each command
imports: docs/guide/large-logs.md ("Fixed costs").

    python benchmarks/fixed_costs.py [--repeats 7] [--only startup|audit]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
OCEF = [PY, "-m", "ocef.cli"]
#: the environment of every measured process: byte-code written and read, as in an installation
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def write_inputs(d: Path) -> dict[str, Path]:
    """1,000-row logs (REO default/random, randomized pairs, a top-k log) and tiny matrices."""
    import numpy as np
    import pandas as pd

    gen = np.random.default_rng(0)
    n = 1000
    paths = {}
    for name, rate in (("default", 0.1), ("random", 0.05)):
        paths[name] = d / f"{name}.parquet"
        pd.DataFrame({"Y": (gen.random(n) < rate).astype("int8"), "S": gen.integers(0, 3, n)}).to_parquet(paths[name])
    paths["pairs"] = d / "pairs.parquet"
    pd.DataFrame({"query": gen.integers(0, 200, n), "j": np.arange(n), "jp": np.arange(n) + n,
                  "s_j": gen.integers(0, 2, n), "s_jp": gen.integers(0, 2, n), "score_j": gen.normal(size=n),
                  "score_jp": gen.normal(size=n)}).to_parquet(paths["pairs"])
    users = n // 10
    item = np.argsort(gen.random((users, 500)), axis=1)[:, :10].ravel()   # 10 distinct items per ranking
    paths["rankings"] = d / "rankings.parquet"
    pd.DataFrame({"user": np.repeat(np.arange(users), 10), "item": item, "rank": np.tile(np.arange(1, 11), users),
                  "relevance": (gen.random(n) < 0.2).astype("int8"), "genre": np.where(item < 200, "pop", "niche"),
                  "gender": np.where(np.repeat(np.arange(users), 10) % 3 == 0, "f", "m")}).to_parquet(paths["rankings"])
    paths["offlog"], paths["offtarget"] = d / "offlog.parquet", d / "offtarget.parquet"
    off_item = gen.integers(0, 10, n)
    pd.DataFrame({"user": gen.integers(0, 100, n), "item": off_item, "reward": (gen.random(n) < 0.2).astype("int8"),
                  "propensity": np.full(n, 0.1), "genre": np.where(off_item < 3, "pop", "niche")}).to_parquet(paths["offlog"])
    pd.DataFrame({"item": np.arange(10), "probability": np.r_[np.full(5, 0.15), np.full(5, 0.05)]}).to_parquet(
        paths["offtarget"])
    paths["scores"], paths["groups"] = d / "scores.npy", d / "groups.npy"
    np.save(paths["scores"], gen.random((40, 12)))
    np.save(paths["groups"], np.repeat([0, 1], 20))
    paths["rho"], paths["probs"] = d / "rho.npy", d / "probs.npy"
    np.save(paths["rho"], gen.random((40, 12)))
    np.save(paths["probs"], gen.dirichlet(np.ones(12), size=40))
    return paths


def startup_commands(p: dict[str, Path]) -> dict[str, list[str]]:
    return {
        "ocef --help": OCEF + ["--help"],
        "ocef bandit": OCEF + ["bandit", "--means", "0.6,0.3", "--trials", "1", "--max-steps", "50", "--json"],
        "ocef envy": OCEF + ["envy", "--rho", str(p["rho"]), "--policy-probs", str(p["probs"]),
                             "--groups", str(p["groups"]), "--json"],
        "ocef envy --matching average": OCEF + ["envy", "--rho", str(p["rho"]), "--policy-probs", str(p["probs"]),
                                                "--groups", str(p["groups"]), "--matching", "average", "--json"],
        "ocef recmetrics": OCEF + ["recmetrics", "--scores", str(p["scores"]), "--groups", str(p["groups"]),
                                   "--k", "3", "--resamples", "0", "--json"],
        "ocef audit --help": OCEF + ["audit", "--help"],
        "ocef fairrec --help": OCEF + ["fairrec", "--help"],
        "ocef reproduce --help": OCEF + ["reproduce", "--help"],
        "ocef audit-live --help": OCEF + ["audit-live", "--help"],
        "ocef simulate-service --help": OCEF + ["simulate-service", "--help"],
        "ocef mitigate --help": OCEF + ["mitigate", "--help"],
        **audit_commands(p),
    }


def audit_commands(p: dict[str, Path]) -> dict[str, list[str]]:
    return {
        "ocef reo": OCEF + ["reo", "--default", str(p["default"]), "--random", str(p["random"]), "--json"],
        "ocef reo-ab": OCEF + ["reo-ab", "--control", str(p["default"]), "--treatment", str(p["default"]),
                               "--random", str(p["random"]), "--json"],
        "ocef pairwise": OCEF + ["pairwise", "--pairs", str(p["pairs"]), "--resamples", "0", "--json"],
        "ocef exposure": OCEF + ["exposure", "--rankings", str(p["rankings"]), "--item-group", "genre", "--json"],
        "ocef offpolicy": OCEF + ["offpolicy", "--log", str(p["offlog"]), "--target", str(p["offtarget"]),
                                  "--item-group", "genre", "--json"],
    }


def duckdb_commands(p: dict[str, Path]) -> dict[str, list[str]]:
    """The same group sums, in a process that imports DuckDB and queries the files."""
    def q(sql: str) -> list[str]:
        return [PY, "-c", f"import duckdb; print(duckdb.sql({sql!r}).fetchall())"]

    d, r, pairs, rk = (str(p[k]) for k in ("default", "random", "pairs", "rankings"))
    reo = (f"SELECT 'd', S, count(*), sum(Y) FROM read_parquet('{d}') GROUP BY S UNION ALL "
           f"SELECT 'r', S, count(*), sum(Y) FROM read_parquet('{r}') GROUP BY S")
    return {
        "ocef reo": q(reo),
        "ocef reo-ab": q(reo + f" UNION ALL SELECT 't', S, count(*), sum(Y) FROM read_parquet('{d}') GROUP BY S"),
        "ocef pairwise": q(f"SELECT s_j, s_jp, score_j > score_jp, count(*) FROM read_parquet('{pairs}') "
                           f"GROUP BY ALL"),
        "ocef exposure": q(f"SELECT genre, sum(pow(0.5, rank - 1)), count(DISTINCT user) FROM read_parquet('{rk}') "
                           f"GROUP BY genre"),
        "ocef offpolicy": q(f"SELECT l.genre, count(*), sum(t.probability / l.propensity * l.reward), "
                            f"sum(pow(t.probability / l.propensity, 2)) FROM read_parquet('{p['offlog']}') l "
                            f"JOIN read_parquet('{p['offtarget']}') t USING (item) GROUP BY l.genre"),
    }


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def medians(commands: dict[str, list[str]], repeats: int) -> dict[str, float]:
    for cmd in commands.values():          # warm the file cache and byte-code
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, cmd in commands.items():
            times[name].append(wall(cmd))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7, help="runs of each command (default 7)")
    parser.add_argument("--only", choices=("startup", "audit"), default=None, help="one of the two measurements")
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        p = write_inputs(Path(tmp))
        if args.only in (None, "startup"):
            cmds = {"baseline": [PY, "-c", "import numpy, pandas"], **startup_commands(p)}
            med = medians(cmds, args.repeats)
            base = med.pop("baseline")
            print(f"baseline  python -c 'import numpy, pandas': median {base:.3f} s over {args.repeats} runs")
            for name, m in med.items():
                print(f"  {name:32s} {m:6.3f} s = {m / base:.2f}x  ({'met' if m / base <= 1.3 else 'MISSED'} <= 1.3x)")
        if args.only in (None, "audit"):
            ours, duck = audit_commands(p), duckdb_commands(p)
            med = medians({**ours, **{f"duckdb {k}": v for k, v in duck.items()}}, args.repeats)
            print(f"log audits on 1,000 rows, median of {args.repeats}: ocef vs a DuckDB process with the same sums")
            for name in ours:
                extra = med[name] - med[f"duckdb {name}"]
                print(f"  {name:16s} {med[name]:6.3f} s, duckdb {med[f'duckdb {name}']:6.3f} s: fixed cost "
                      f"{extra:+.3f} s ({'met' if extra <= 0.5 else 'MISSED'} <= 0.5 s)")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
