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
    """The folder of the on-disk cache of fitted models: ``$OCEF_CACHE_DIR`` if set and non-empty,
    else ``~/.cache/ocef`` (read at every call; created on the first write).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> cache_dir().is_absolute()
    True
    """
    env = os.environ.get("OCEF_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "ocef"


def array_fingerprint(*arrays: np.ndarray) -> str:
    """SHA-256 hash identifying arrays by their dtypes, shapes and bytes (C order).

    Parameters
    ----------
    *arrays : numpy.ndarray
        Any number of arrays (any dtype and shape); each is hashed in C order.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> a = np.arange(6).reshape(2, 3)
    >>> array_fingerprint(a) == array_fingerprint(a.reshape(3, 2))       # same bytes, another shape
    False
    """
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cache_key(kind: str, params: dict) -> str:
    """The file stem of a cache entry: ``kind`` and a hash of every parameter of the computation
    (SHA-256 of the sorted-key JSON of ``params``, ``kind`` and :data:`CACHE_VERSION`, truncated).

    Parameters
    ----------
    kind : str
        E.g. ``"recommender"``; the prefix of the key.
    params : dict
        Every parameter the cached arrays depend on (seeds, sizes, fingerprints of the inputs).

    Returns
    -------
    str
        ``"<kind>-<32 hex digits>"``.

    Examples
    --------
    >>> cache_key("recommender", {"factors": 4, "seed": 0}) == cache_key("recommender", {"seed": 0, "factors": 4})
    True
    """
    text = json.dumps({"version": CACHE_VERSION, "kind": kind, **params}, sort_keys=True, default=str)
    return f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def cached_arrays(kind: str, params: dict, compute: Callable[[], dict[str, np.ndarray]]
                  ) -> dict[str, np.ndarray]:
    """Named arrays read from the on-disk cache, or computed and stored there (atomically) on a miss.

    The entry is ``cache_dir() / (cache_key(kind, params) + ".npz")``; a corrupt entry is a miss.

    Parameters
    ----------
    kind, params
        As in :func:`cache_key`.
    compute : callable
        ``compute() -> dict[str, numpy.ndarray]``, called only on a miss.

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    ocef.errors.ParameterError
        On a miss, before ``compute()``, when ``$OCEF_CACHE_DIR`` is set to a folder that cannot be
        created or written (every run would recompute). Without the variable, an unwritable default
        folder only warns (``RuntimeWarning``) and the result is returned uncached.

    Examples
    --------
    >>> calls = []
    >>> compute = lambda: calls.append(1) or {"rho": np.full((2, 2), 0.5)}
    >>> _ = cached_arrays("demo", {"seed": 0}, compute), cached_arrays("demo", {"seed": 0}, compute)
    >>> len(calls)                                         # the second call read the disk
    1
    """
    path = cache_dir() / f"{cache_key(kind, params)}.npz"
    if path.is_file():
        try:
            with np.load(path) as f:
                return {k: f[k] for k in f.files}
        except (OSError, ValueError):  # corrupt entry: recompute
            pass
    problem = _unwritable(path.parent)
    if problem and os.environ.get("OCEF_CACHE_DIR"):
        # issue 28: an OCEF_CACHE_DIR set to a folder that cannot be written made every run refit its model
        # (~30 s for FairRec's) with a warning only at the end; the user chose that folder, so say it at once
        from ocef.errors import ParameterError

        raise ParameterError(f"OCEF_CACHE_DIR={path.parent} cannot be written ({problem}): fitted models could not "
                             f"be kept and would be refit at every run; set OCEF_CACHE_DIR to a writable folder or "
                             f"unset it (default ~/.cache/ocef)")
    arrays = compute()
    # np.savez on an open file keeps the temporary name (a path would get ".npz" appended).
    try:
        if problem:
            raise OSError(problem)
        atomic_write(path, lambda p: _savez(p, arrays))
    except OSError as exc:       # the default folder (no OCEF_CACHE_DIR) unwritable: the result stands, uncached
        import warnings

        warnings.warn(f"the cache folder {path.parent} cannot be written ({exc.strerror or exc}): the result is not "
                      f"cached and is recomputed at every run; set OCEF_CACHE_DIR to a writable folder",
                      RuntimeWarning, stacklevel=2)
    return arrays


def _unwritable(folder: Path) -> str | None:
    """Why ``folder`` cannot hold cache entries (created if missing), or None when it can."""
    if folder.exists() and not folder.is_dir():
        return "it is a file, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(folder, os.W_OK | os.X_OK):
        return "permission denied"
    return None


def _savez(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as f:
        np.savez(f, **arrays)
