"""Arm pulls per second of the vectorized runner and of the ask/tell auditor.

Targets (2-core machine): the full Fig. 8 sweep (4 instances x 12 alpha x 100 trials)
under 60 s; the ask/tell auditor at least 50,000 steps per second at K = 9.

    python benchmarks/bandit_throughput.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ocef.environments.bandits import BernoulliBandit, paper_instance
from ocef import OCEF, Verdict
from ocef.envy.runner import run_bandits


def ask_tell_steps_per_second(seconds: float = 3.0) -> float:
    """Bare auditor loop (next_arm + observe) at K = 9 on instance 3, rewards pre-drawn."""
    bandit = BernoulliBandit(paper_instance(3))
    rng = np.random.default_rng(0)
    rewards = (rng.random((200_000, 10)) < bandit.means).astype(float).tolist()
    steps, start = 0, time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        a = OCEF(9, 0.05, 0.05, 0.05, rng=seed)
        seed += 1
        while a.verdict is Verdict.RUNNING and a.t < 199_999:
            k = a.next_arm()
            a.observe(k, rewards[a.t][k])
        steps += a.t
    return steps / (time.perf_counter() - start)


def fig8_sweep(trials: int = 100, n_alpha: int = 12, engine: str = "auto"):
    alphas = np.round(np.geomspace(0.01, 0.5, n_alpha), 4)
    cfg = pd.DataFrame([(i, a) for i in (1, 2, 3, 4) for a in alphas], columns=["instance", "alpha"])
    cfg = cfg.assign(delta=0.05, epsilon=0.05)
    start = time.perf_counter()
    runs = run_bandits(cfg, {i: paper_instance(i) for i in (1, 2, 3, 4)}, trials=trials, rng=0, engine=engine).to_frame()
    return time.perf_counter() - start, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 trials instead of 100")
    args = parser.parse_args()
    rate = ask_tell_steps_per_second()
    print(f"ask/tell OCEF, K=9:            {rate:,.0f} steps/s   (target >= 50,000)")
    trials = 10 if args.quick else 100
    fig8_sweep(1, 1, "numba")                          # compile (or load the cached kernel) first
    for engine in ("numba", "numpy"):
        seconds, runs = fig8_sweep(trials, engine=engine)
        pulls = int(runs["duration"].sum())
        print(f"Fig. 8 sweep, {engine:5s} engine:   4 instances x 12 alpha x {trials} trials = {len(runs)} runs, "
              f"{pulls:,} pulls in {seconds:.1f} s = {pulls / seconds:,.0f} pulls/s   (target < 60 s)")
        print(f"  longest run {runs['duration'].max():,} steps; constraint (7) held in every run: "
              f"{bool(runs['constraint_held'].all())}")


if __name__ == "__main__":
    main()
