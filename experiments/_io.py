"""Atomic, resumable and honestly cached result writing for experiments.

Experiments cache their expensive parts on disk (:func:`run_parts`). A cached part is reused
only when it was computed with the same experiment configuration, the same package version and
the same *code*: :func:`code_hash` hashes the source of the experiment module and of every
``ocef`` module it imports, directly or not (static analysis of the import statements, function
level imports included), so editing the audit engine invalidates the audit experiments' parts
but not the REO ones.

While ``ocef reproduce`` runs an experiment it opens a :func:`session`; inside it
:func:`run_parts` keys the cache on the session's code hash, honours ``--fresh``, prints
"reusing N of M parts" and counts the parts for the report; :func:`note_dataset` and
:func:`fallback` record which data set an experiment used (the latter also prints the one-line
message that a synthetic environment replaces missing data). Outside a session (a library call,
a test) the same functions work silently, with the hash of the calling code unknown to them:
the cache is then keyed on the configuration and the package version only.
"""
from __future__ import annotations

import ast
import contextlib
import contextvars
import hashlib
import importlib.util
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from ocef.files import atomic_write, atomic_write_text

PART_SUFFIX = ".csv"
CONFIG_FILE = "config.json"


def write_csv(df: pd.DataFrame, path: Path | str) -> Path:
    """Write ``df`` to ``path`` atomically (a crash never leaves half a file)."""
    return atomic_write(Path(path), lambda p: df.to_csv(p, index=False))


def save_figure(fig, path: Path | str, dpi: int = 130) -> Path:
    """Save a matplotlib figure atomically and close it (see :mod:`ocef.experiments.plotting`)."""
    from ocef.experiments import plotting

    return plotting.save(fig, path, dpi=dpi)


# --------------------------------------------------------------------------- code identity
def package_version() -> str:
    """The installed version of the ``ocef`` package."""
    import ocef

    return ocef.__version__


def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _imported_ocef_modules(path: Path, own: str) -> set[str]:
    """Names of the ``ocef`` modules that ``path`` (module ``own``) imports, at any level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:                                   # relative import
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            # `from ocef import reo` imports the module ocef.reo; `from ocef.x import f` imports ocef.x
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "ocef" or name.startswith("ocef."):
                # a package's __init__ runs on import of any of its submodules
                bits = name.split(".")
                found.update(".".join(bits[:i]) for i in range(1, len(bits) + 1))
    return found


@lru_cache(maxsize=None)
def code_hash(module_name: str) -> str:
    """SHA-256 (16 hex digits) of the source of ``module_name`` and of every ``ocef`` module it
    imports, transitively (the code that can change an experiment's results)."""
    seen: dict[str, Path] = {}
    todo = [module_name]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name)
        if path is None:
            continue
        seen[name] = path
        todo.extend(_imported_ocef_modules(path, name) - set(seen))
    h = hashlib.sha256()
    for name in sorted(seen):
        h.update(name.encode() + b"\0" + seen[name].read_bytes() + b"\0")
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------- run session
@dataclass
class Session:
    """What ``ocef reproduce`` knows about the experiment it is running."""

    code: str | None = None              # code_hash of the experiment module
    fresh: bool = False                  # ignore (and replace) cached parts
    log: Callable[[str], None] | None = None
    parts_total: int = 0
    parts_reused: int = 0
    datasets: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)


_SESSION: contextvars.ContextVar[Session | None] = contextvars.ContextVar("ocef_experiment_session", default=None)


@contextlib.contextmanager
def session(**kwargs):
    """Run an experiment inside a :class:`Session` (used by ``ocef reproduce``)."""
    s = Session(**kwargs)
    token = _SESSION.set(s)
    try:
        yield s
    finally:
        _SESSION.reset(token)


def _say(text: str) -> None:
    s = _SESSION.get()
    if s is not None and s.log is not None:
        s.log(text)


def note_dataset(description: str) -> None:
    """Record the data set (or simulated world) an experiment runs on, for the report."""
    s = _SESSION.get()
    if s is not None and description not in s.datasets:
        s.datasets.append(description)


def fallback(missing: str, replacement: str) -> None:
    """Say, in one line, that ``missing`` data was not found and ``replacement`` is used."""
    s = _SESSION.get()
    line = f"{missing} not found: using {replacement} instead"
    if s is not None:
        if line not in s.fallbacks:
            s.fallbacks.append(line)
            _say(line)
    note_dataset(f"{replacement} (fallback: {missing} not found)")


def cache_key(config: dict, code: str | None = None) -> str:
    """The text stored beside cached parts: configuration, package version and code hash."""
    return json.dumps({"config": config, "version": package_version(), "code": code},
                      sort_keys=True, default=str)


def run_parts(out_dir: Path, config: dict, keys: Iterable, compute: Callable[[object], pd.DataFrame],
              progress: bool = True, desc: str = "parts") -> pd.DataFrame:
    """Compute ``compute(key)`` for each key, caching each part on disk.

    Parts live in ``out_dir/parts/`` beside ``config.json``, which holds :func:`cache_key`: the
    experiment ``config``, the package version and (inside a :func:`session`) the code hash. A
    rerun with the same key reuses the parts already written (resume, "reusing N of M parts"); a
    different key, or ``--fresh``, deletes them and starts afresh. Returns the concatenation of
    all parts.
    """
    from ocef._progress import progress_iter

    s = _SESSION.get()
    parts = Path(out_dir) / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    cfg_path = parts / CONFIG_FILE
    cfg_text = cache_key(config, None if s is None else s.code)
    stale = s is not None and s.fresh
    if stale or not cfg_path.exists() or cfg_path.read_text(encoding="utf-8") != cfg_text:
        for old in parts.glob(f"*{PART_SUFFIX}"):
            old.unlink()
        atomic_write_text(cfg_path, cfg_text)
    keys = list(keys)
    files = [parts / f"{_slug(key)}{PART_SUFFIX}" for key in keys]
    reused = sum(f.exists() for f in files)
    if s is not None:
        s.parts_total += len(keys)
        s.parts_reused += reused
        _say(f"reusing {reused} of {len(keys)} parts" + (f" ({desc})" if desc else ""))
    frames = []
    for key, part in progress_iter(list(zip(keys, files)), progress, desc=desc, unit="part"):
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
