"""Atomic, resumable result writing for experiments."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from ocef.files import atomic_write


def write_csv(df: pd.DataFrame, path: Path | str) -> Path:
    """Write ``df`` to ``path`` atomically (a crash never leaves half a file)."""
    return atomic_write(Path(path), lambda p: df.to_csv(p, index=False))


def save_figure(fig, path: Path | str, dpi: int = 130) -> Path:
    """Save a matplotlib figure atomically and close it."""
    import matplotlib.pyplot as plt

    out = atomic_write(Path(path), lambda p: fig.savefig(p, dpi=dpi, bbox_inches="tight", format="png"))
    plt.close(fig)
    return out


def run_parts(out_dir: Path, config: dict, keys: Iterable, compute: Callable[[object], pd.DataFrame],
              progress: bool = True, desc: str = "parts") -> pd.DataFrame:
    """Compute ``compute(key)`` for each key, caching each part on disk.

    Parts live in ``out_dir/parts/`` with the experiment ``config``; a rerun with the
    same config skips the parts already written (resume), a different config starts
    afresh. Returns the concatenation of all parts.
    """
    from tqdm.auto import tqdm

    parts = Path(out_dir) / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    cfg_path = parts / "config.json"
    cfg_text = json.dumps(config, sort_keys=True, default=str)
    if not cfg_path.exists() or cfg_path.read_text() != cfg_text:
        for old in parts.glob("*.csv"):
            old.unlink()
        atomic_write(cfg_path, lambda p: p.write_text(cfg_text))
    frames = []
    keys = list(keys)
    for key in tqdm(keys, desc=desc, disable=not progress, leave=False):
        part = parts / f"{_slug(key)}.csv"
        if part.exists():
            frames.append(pd.read_csv(part))
            continue
        df = compute(key)
        write_csv(df, part)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _slug(key) -> str:
    text = "_".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)
