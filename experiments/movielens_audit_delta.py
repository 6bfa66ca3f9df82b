"""Fig. 11 of Do et al.: duration and cost of the full OCEF audit vs δ on MovieLens."""
from __future__ import annotations

from pathlib import Path

from ocef.experiments import _audit

NAME = "movielens-audit-delta"
DESCRIPTION = ("Fig. 11: full-audit duration and cost vs delta for 6 user partitions on MovieLens "
               "(argmax, 50 factors, alpha=epsilon=0.05)")


def describe(quick: bool) -> str:
    """The heading of a run: :data:`DESCRIPTION`, or what the quick run actually uses."""
    return DESCRIPTION if not quick else (
        'Fig. 11 (quick: delta in {0.01, 0.1, 0.5}; partitions gender, age, gender-age; 3 trials; step '
        'cap 20,000): full-audit duration and cost vs delta on MovieLens (argmax, 50 factors, '
        'alpha=epsilon=0.05)')


CLAIMS = [*_audit.DELTA_CLAIMS, *_audit.common_claims("Fig. 11")]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    return _audit.param_figure(out_dir, NAME, "delta", quick=quick, seed=seed, data_dir=data_dir, progress=progress)
