"""Fig. 15-16 of Do et al. (App. E): the α and δ sweeps with a recommender trained on 5% of the entries."""
from __future__ import annotations

from pathlib import Path

from experiments import movielens_audit_alpha, movielens_audit_delta

NAME = "movielens-audit-sparsity"
DESCRIPTION = "Fig. 15-16: the alpha and delta audit sweeps with 5% training data (App. E)"
TRAIN_FRACTION = 0.05


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    paths = []
    for mod, suffix in ((movielens_audit_alpha, "alpha"), (movielens_audit_delta, "delta")):
        sub = f"{NAME}-{suffix}"
        paths += mod.run(out_dir / suffix, quick=quick, seed=seed, data_dir=data_dir, progress=progress,
                         train_fraction=TRAIN_FRACTION, name=sub)
    return paths
