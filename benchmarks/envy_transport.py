"""Time and peak memory of exact envy and of all-pairs transport (Do et al. 2022, Sec. 4 and 6).

    PYTHONPATH=. python benchmarks/envy_transport.py [--data-dir DIR] [--skip-synthetic-transport]

Two instances:

* ML-100K (skipped with a message when absent): ground truth ρ of
  :class:`ocef.environments.movielens_env.MovieLensEnvironment` on all 943 users x 1682 items,
  softmax policy (β = 10) on a simulated 8-factor recommender, groups = the 21 raw
  occupations of ``u.user``;
* synthetic at ML-1M's full size, 6,040 users x 3,706 items: rank-16 ρ, softmax policy on
  the scores of a rank-2 truncation, 21 random groups;
* the same with the argmax policy (one non-zero per row: sparse product and sparse L1 costs);
* synthetic at the paper's experimental size (Sec. 6.1), 2,000 x 2,000, 120 random groups
  (as many as age-occupation).

For each: (a) exact envy = ``utility_matrix`` (U[m, n] = u^m(π^n), one matrix product) +
``envy_summary`` (individual and group measures, transported weights given); (b) all-pairs
transport = ``mixture_weights(..., "transport")``: the policy-distance matrix and one exact
``ot.emd`` per ordered pair of groups. Memory is the tracemalloc peak of the stage above
what was allocated before it (the inputs ρ and π), and the inputs' size.
Targets (issue 3): (a) under 10 s and 2 GB at 6,040 x 3,706; (b) under 10 s for ML-100K's
21 occupation groups.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ocef.envy.exact import envy_summary, utility_matrix  # noqa: E402
from ocef.envy.matching import mixture_weights  # noqa: E402
from ocef.policies import argmax_policy, softmax_policy  # noqa: E402

MB = 1024 ** 2


def measure(label: str, fn):
    """Run ``fn()``, print its wall time and tracemalloc peak above the memory in use before it."""
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    t0 = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  {label:44s} {elapsed:8.2f} s   peak +{(peak - before) / MB:8.1f} MB", flush=True)
    return out, elapsed, (peak - before) / MB


def bench(name: str, rho: np.ndarray, probs: np.ndarray, labels: np.ndarray, *, transport: bool = True,
          float32: bool = False) -> None:
    n_groups = int(labels.max()) + 1
    inputs = (rho.nbytes + probs.nbytes) / MB
    print(f"{name}: {rho.shape[0]} users x {rho.shape[1]} items, {n_groups} groups "
          f"(inputs rho + pi: {inputs:.0f} MB)", flush=True)
    if transport:
        weights, _, _ = measure(f"all-pairs transport ({n_groups}x{n_groups} emd)",
                                lambda: mixture_weights(probs, labels, "transport"))
    else:
        print("  all-pairs transport: skipped (--skip-synthetic-transport); average matching used below")
        weights = mixture_weights(probs, labels, "average")

    def envy():
        U = utility_matrix(rho, probs)
        return envy_summary(U, labels, weights, epsilon=0.05)

    summary, elapsed, peak = measure("exact envy (utility_matrix + envy_summary)", envy)
    print(f"  -> individual average envy {summary.individual_average_envy:.4f}, prop envious "
          f"{summary.individual_prop_envious:.3f}; group average envy {summary.group_average_envy:.4f} "
          f"({weights.matching}); envy total memory (inputs + peak) {inputs + peak:.0f} MB", flush=True)
    if float32:
        U64 = utility_matrix(rho, probs)

        def envy32():
            U = utility_matrix(rho, probs, dtype=np.float32)
            return U, envy_summary(U, labels, weights, epsilon=0.05)

        (U32, s32), _, _ = measure("exact envy, float32 product (dtype option)", envy32)
        print(f"  -> float32: max |U32 - U64| = {np.abs(U32 - U64).max():.2e}, individual average envy "
              f"{s32.individual_average_envy:.6f} vs {summary.individual_average_envy:.6f}", flush=True)


def movielens_100k(data_dir: Path | None):
    from ocef.environments.movielens_env import MovieLensEnvironment
    from ocef.environments.paths import dataset_dir
    import pandas as pd

    folder = dataset_dir("ml-100k", data_dir)
    if not (folder / "u.data").is_file() or not (folder / "u.user").is_file():
        print(f"ML-100K: skipped, u.data/u.user not found in {folder} (give --data-dir)")
        return None
    t0 = time.perf_counter()
    env = MovieLensEnvironment(folder, n_items=1682)
    scores = env.estimated_scores(8)
    raw = pd.read_csv(folder / "u.user", sep="|", header=None,
                      names=["user_id", "age", "gender", "occupation", "zip"])
    occupation = raw.set_index("user_id").loc[env.users["user_id"], "occupation"]
    labels = pd.factorize(occupation, sort=True)[0]
    print(f"(ML-100K environment and recommender loaded/fitted in {time.perf_counter() - t0:.1f} s, "
          f"cached afterwards; not part of the figures below)")
    return env.rho, softmax_policy(scores, beta=10.0).probs, labels


def synthetic(n_users: int, n_items: int, n_groups: int, seed: int = 0, policy: str = "softmax"):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=(n_users, 16)) / 2
    v = rng.normal(size=(n_items, 16)) / 2
    rho = 1.0 / (1.0 + np.exp(-(u @ v.T)))
    scores = u[:, :2] @ v[:, :2].T          # a misspecified rank-2 recommender: envy appears
    probs = (softmax_policy(scores, beta=10.0) if policy == "softmax" else argmax_policy(scores)).probs
    labels = rng.permutation(np.arange(n_users) % n_groups)
    return rho, probs, labels


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None, help="folder holding ml-100k/")
    parser.add_argument("--skip-synthetic-transport", action="store_true",
                        help="skip the all-pairs transport at 6,040 users (about a minute: M^2 x A L1 costs)")
    args = parser.parse_args(argv)
    print(f"numpy {np.__version__}; 2 cores; times are wall clock\n")
    ml = movielens_100k(args.data_dir)
    if ml is not None:
        bench("ML-100K, 21 occupations", *ml)
    print()
    bench("synthetic (ML-1M size)", *synthetic(6040, 3706, 21), transport=not args.skip_synthetic_transport,
          float32=True)
    print()
    bench("synthetic (ML-1M size), argmax policy (sparse paths)", *synthetic(6040, 3706, 21, policy="argmax"))
    print()
    bench("synthetic (paper's 2000 x 2000, 120 groups)", *synthetic(2000, 2000, 120))
    print(f"\nprocess max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
