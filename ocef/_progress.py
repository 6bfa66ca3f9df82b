"""The one progress bar of OCEF: a bar with the time left on stderr (issue 28).

Every long computation takes ``progress`` (:data:`PROGRESS`): ``False`` (the library default)
shows nothing, ``True`` forces the bar, ``"auto"`` shows it only when stderr is a terminal (the
commands' default; ``--progress`` forces it, ``--no-progress`` hides it). The bar never goes to
stdout, so ``--json`` output is never touched, and it never changes a result.

A single long DuckDB query (counting a 10^8-row log) is watched by :func:`query_progress`: within
the block, every cursor of :func:`ocef.backends.duckdb_cursor` reports its running query's progress
(DuckDB's own estimate, polled from a thread) in one bar, in percent with the time left.

Examples
--------
>>> with progress_bar(False, total=3, desc="steps") as bar:
...     for _ in range(3):
...         bar.update()
>>> shown("auto") in (True, False)
True
"""
from __future__ import annotations

import contextlib
import sys
import threading

from ocef.validation import Boolean, Either, Options

#: The declared form of every ``progress`` parameter: True, False or "auto".
PROGRESS = Either(Boolean(), Options("auto"))


def shown(progress) -> bool:
    """Whether a bar is drawn: ``True``, or ``"auto"`` with stderr a terminal.

    Examples
    --------
    >>> shown(True), shown(False)
    (True, False)
    """
    if isinstance(progress, str):
        if progress != "auto":
            PROGRESS.check("progress", progress)
        try:
            return bool(sys.stderr.isatty())
        except (AttributeError, ValueError):         # a closed or replaced stream
            return False
    return bool(progress)


class _NoBar:
    """What :func:`progress_bar` returns when nothing is shown: every call does nothing."""

    n = 0
    total = None

    def update(self, n=1):
        return None

    def set_postfix(self, *args, **kwargs):
        return None

    def set_postfix_str(self, s="", refresh=True):
        return None

    def close(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(progress, *, total=None, desc: str = "", unit: str = "it", initial: int = 0, leave: bool = False):
    """A bar (``tqdm``, on stderr, time left shown when ``total`` is known) or a do-nothing stand-in.

    Use as a context manager or call ``close()``; ``update(n)`` advances it.

    Examples
    --------
    >>> bar = progress_bar(False, total=10, desc="resamples")
    >>> bar.update(10); bar.close()
    """
    if not shown(progress):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, initial=initial, leave=leave, file=sys.stderr,
                dynamic_ncols=True)


def progress_iter(iterable, progress, *, total=None, desc: str = "", unit: str = "it"):
    """``iterable`` itself, or wrapped in a bar when :func:`shown`.

    Examples
    --------
    >>> list(progress_iter(range(3), False, desc="cells"))
    [0, 1, 2]
    """
    if not shown(progress):
        return iterable
    from tqdm.auto import tqdm

    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False, file=sys.stderr, dynamic_ncols=True)


#: Seconds between two polls of a running DuckDB query (a query shorter than this shows no bar).
QUERY_POLL = 0.5


class _QueryWatcher:
    """A thread polling the cursors handed to it (``query_progress()``) into one bar."""

    def __init__(self, desc: str):
        self.desc = desc
        self.cursors: list = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, name="ocef-query-progress", daemon=True)

    def _poll(self):
        bar, last, n = None, 0.0, 1
        while not self.stop.wait(QUERY_POLL):
            running = []
            for con in list(self.cursors):
                try:
                    p = float(con.query_progress())
                except Exception:                  # noqa: BLE001 (a closed cursor, an older DuckDB)
                    continue
                if 0.0 <= p <= 100.0:
                    running.append(p)
            if not running:
                continue
            p = min(running)
            if bar is None:
                bar = progress_bar(True, total=100, desc=self.desc, unit="%")
            elif p + 1e-9 < last:                  # the next query started
                n += 1
                bar.reset(total=100)
                bar.set_description(f"{self.desc} ({n})")
            bar.update(p - bar.n)
            last = p
        if bar is not None:
            bar.close()


@contextlib.contextmanager
def query_progress(progress, desc: str = "DuckDB query"):
    """Within the block, the DuckDB queries of OCEF's cursors show one bar (percent, time left).

    The bar shows the least advanced running query, from DuckDB's own estimate
    (``query_progress()``), polled every :data:`QUERY_POLL` seconds; quicker queries show nothing.
    ``progress`` as everywhere (:data:`PROGRESS`); nothing is watched when no bar is shown.

    Examples
    --------
    >>> from ocef.backends import duckdb_cursor
    >>> with query_progress(False):
    ...     duckdb_cursor().execute("SELECT 42").fetchall()
    [(42,)]
    """
    if not shown(progress):
        yield
        return
    from ocef.backends import QUERY_WATCHERS       # duckdb_cursor hands its cursors to the last one

    watcher = _QueryWatcher(desc)
    QUERY_WATCHERS.append(watcher)
    watcher.thread.start()
    try:
        yield
    finally:
        QUERY_WATCHERS.remove(watcher)
        watcher.stop.set()
        watcher.thread.join(5)
