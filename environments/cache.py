"""On-disk cache of fitted models (``.npz``), keyed by a hash of every parameter.

The folder is ``$OCEF_CACHE_DIR`` if set, else ``~/.cache/ocef``. A cache entry is
written atomically, so an interrupted run never leaves a truncated file behind.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Callable

import numpy as np

from ocef.files import atomic_write

CACHE_VERSION = 1


def cache_dir() -> Path:
    """``$OCEF_CACHE_DIR``, else ``~/.cache/ocef``."""
    env = os.environ.get("OCEF_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "ocef"


def array_fingerprint(*arrays: np.ndarray) -> str:
    """SHA-256 of the arrays' dtypes, shapes and bytes (identifies a data set or ρ)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cache_key(kind: str, params: dict) -> str:
    """``kind-<sha256 of the JSON of params>`` (parameters sorted, version included)."""
    text = json.dumps({"version": CACHE_VERSION, "kind": kind, **params}, sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def cached_arrays(kind: str, params: dict, compute: Callable[[], dict[str, np.ndarray]]
                  ) -> dict[str, np.ndarray]:
    """Arrays stored under ``cache_key(kind, params)``, computed by ``compute()`` on a miss."""
    path = cache_dir() / f"{cache_key(kind, params)}.npz"
    if path.is_file():
        try:
            with np.load(path) as f:
                return {k: f[k] for k in f.files}
        except (OSError, ValueError):  # corrupt entry: recompute
            pass
    arrays = compute()
    # np.savez on an open file keeps the temporary name (a path would get ".npz" appended).
    atomic_write(path, lambda p: _savez(p, arrays))
    return arrays


def _savez(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as f:
        np.savez(f, **arrays)
