"""Throughput of the live audit: in process, over HTTP on 127.0.0.1, and the cost of checkpoints.

One problem for all: the synthetic environment (``--n-users`` users, 4 groups, argmax policy
of the simulated recommender). Pulls are PULL-ARM calls (one group-average reward each).

* in process: :func:`ocef.envy.live.ask_tell_audit` (keyed literal PULL-ARM), no checkpoint;
* over HTTP: ``ocef simulate-service`` in a separate process, :func:`ocef.envy.live.audit_live`
  through :class:`ocef.envy.service.ServiceClient` (one keep-alive connection, one POST /pull per
  step with the pulls of every undecided group);
* checkpoints: the in-process audit with ``checkpoint=PATH, every=N`` for several N, run in
  the same process as the no-checkpoint baseline (ratio of wall times), and the time of one
  checkpoint write.

    python benchmarks/live_audit.py [--steps 3000] [--n-users 200]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def build_problem(n_users: int, seed: int = 0):
    from ocef.envy.audit import AuditProblem
    from ocef.environments.synthetic import SyntheticEnvironment
    from ocef.policies import argmax_policy

    env = SyntheticEnvironment(n_users=n_users, n_items=50, n_groups=4, rng=seed)
    labels, names = env.groups("group")
    policy = argmax_policy(env.estimated_scores(8, 0.2, rng=seed))
    return AuditProblem(env.rho, policy, labels, group_names=names)


def pulls(result) -> int:
    return int(result.groups["duration"].sum())


def timed(fn, repeat: int = 1):
    """(result, best wall time of ``repeat`` runs): the minimum filters out a busy machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=3000, help="step cap of each audit (default 3000)")
    ap.add_argument("--n-users", type=int, default=200, help="users of the synthetic environment (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per in-process timing, best kept (default 3)")
    args = ap.parse_args()
    from ocef.envy.live import ask_tell_audit, audit_live
    from ocef.envy.service import ServiceClient

    problem = build_problem(args.n_users)
    params = dict(alpha=0.01, delta=0.05, epsilon=0.01, max_steps=args.steps)   # long audits: few verdicts
    print(f"problem: {problem}; group sizes {problem.sizes.tolist()}; step cap {args.steps}")

    base, t_base = timed(lambda: ask_tell_audit(problem, rng=0, **params), args.repeat)
    print(f"in process      : {pulls(base):7d} pulls in {t_base:6.2f} s = {pulls(base) / t_base:8.0f} pulls/s")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        np.save(tmp / "rho.npy", problem.rho)
        np.save(tmp / "probs.npy", problem.probs)
        np.save(tmp / "groups.npy", problem.labels)
        cmd = [sys.executable, "-c", "import sys; from ocef.cli import main; sys.exit(main())", "simulate-service",
               "--rho", str(tmp / "rho.npy"), "--policy-probs", str(tmp / "probs.npy"), "--groups",
               str(tmp / "groups.npy"), "--port", "0", "--seed", "0"]
        service = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = service.stdout.readline().split(" on ")[-1].split()[0]
            client = ServiceClient(url)
            g = client.groups()
            remote, t_http = timed(lambda: audit_live(client.puller(), g["n_groups"], g["sizes"], rng=0,
                                                      true_means=client.truth()["arm_means"], **params))
            client.close()
        finally:
            service.terminate()
            service.wait(timeout=10)
        same = remote.groups.drop(columns="name").equals(base.groups.drop(columns="name"))   # .npy groups: no names
        print(f"HTTP 127.0.0.1  : {pulls(remote):7d} pulls in {t_http:6.2f} s = {pulls(remote) / t_http:8.0f} pulls/s "
              f"({remote.steps / t_http:.0f} requests/s; {t_http / t_base:.2f}x the in-process time; "
              f"same verdicts, durations and costs: {same})")

        # One write every step makes the cost of a write measurable above the noise of a shared
        # machine; the overhead at a cadence N is then (cost of a write) / (N x cost of a step).
        _, t_base = timed(lambda: ask_tell_audit(problem, rng=0, **params), args.repeat)    # again, warm
        path = tmp / "ck.json"

        def run():
            path.unlink(missing_ok=True)
            return ask_tell_audit(problem, rng=0, checkpoint=path, every=1, **params)

        res, t_all = timed(run, args.repeat)
        assert res.groups.equals(base.groups)
        per_write = (t_all - t_base) / len(res.checkpoint_steps)
        per_step = t_base / base.steps
        print(f"checkpoint every step: {len(res.checkpoint_steps)} writes, {t_all:.2f} s vs {t_base:.2f} s: "
              f"{per_write * 1e3:.2f} ms per write ({path.stat().st_size / 1024:.0f} KiB file at the end), "
              f"one step {per_step * 1e3:.3f} ms in process, {t_http / remote.steps * 1e3:.3f} ms over HTTP")
        for every in (10, 100, 1000):
            print(f"  every {every:5d} steps: overhead {100 * per_write / (every * per_step):6.2f}% in process, "
                  f"{100 * per_write / (every * t_http / remote.steps):6.2f}% over HTTP")


if __name__ == "__main__":
    main()
