"""The one progress bar of OCEF: a bar with the time left on stderr (issue 28).

Every long computation takes ``progress`` (:data:`PROGRESS`): ``False`` (the library default)
shows nothing, ``True`` forces the bar, ``"auto"`` shows it only when stderr is a terminal (the
commands' default; ``--progress`` forces it, ``--no-progress`` hides it). The bar never goes to
stdout, so ``--json`` output is never touched, and it never changes a result.

Examples
--------
>>> with progress_bar(False, total=3, desc="steps") as bar:
...     for _ in range(3):
...         bar.update()
>>> shown("auto") in (True, False)
True
"""
from __future__ import annotations

import sys

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
