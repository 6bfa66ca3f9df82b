"""Start-up time of the command line, against a bare ``python -c "import numpy, pandas"``.

Targets (issue 27): ``ocef bandit --means 0.6,0.3 --trials 1 --json`` and ``ocef --help`` ≤ 1.3× the
baseline each. The three commands are run in turn, ``--repeats`` times each, in this one process run
(the machines are shared and noisy), and the medians are compared; the load average is printed
with them. The commands run with their byte-code written, as an installed package does
(``PYTHONDONTWRITEBYTECODE`` is dropped for them). Every command: ``benchmarks/fixed_costs.py``;
figures: docs/guide/large-logs.md ("Fixed costs").

    python benchmarks/startup.py [--repeats 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "baseline": [sys.executable, "-c", "import numpy, pandas"],
    "ocef --help": [sys.executable, "-m", "ocef.cli", "--help"],
    "ocef bandit": [sys.executable, "-m", "ocef.cli", "bandit", "--means", "0.6,0.3", "--trials", "1", "--json"],
}
#: byte-code written and read, as in an installation
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TARGETS = {"ocef --help": 1.3, "ocef bandit": 1.3}


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7, help="runs of each command (default 7)")
    args = parser.parse_args()
    for cmd in COMMANDS.values():          # warm the file cache and byte-code
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, cmd in COMMANDS.items():
            times[name].append(wall(cmd))
    base = statistics.median(times["baseline"])
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"baseline  python -c 'import numpy, pandas': median {base:.3f} s over {args.repeats} runs")
    for name, target in TARGETS.items():
        med = statistics.median(times[name])
        verdict = "met" if med / base <= target else "MISSED"
        print(f"{name:12s} median {med:.3f} s = {med / base:.2f}x the baseline (target <= {target}x: {verdict})")


if __name__ == "__main__":
    main()
