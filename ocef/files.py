"""Atomic file writing, shared by every layer (imports nothing of the project).

A crash or Ctrl-C never leaves half a file behind: the content is written to a temporary file
in the same folder and moved into place with ``os.replace``. The final file gets the usual
permissions of a new file (``0o666`` less the process umask), not ``mkstemp``'s private ``0o600``,
so that collaborators can read results and caches.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then move it onto ``path``.

    The parent folder is created if needed. If ``write`` raises, ``path`` is left as it was and
    the temporary file is removed.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    write : callable
        ``write(tmp)`` writes the whole content to the :class:`~pathlib.Path` ``tmp``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> from pathlib import Path
    >>> atomic_write("out/table.csv", lambda p: p.write_text("a,b\\n1,2\\n"))
    PosixPath('out/table.csv')
    >>> Path("out/table.csv").read_text().splitlines()
    ['a,b', '1,2']
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        if exc.filename == tmp or exc.filename == Path(tmp):
            # name the file the user asked for, not the hidden temporary one
            raise type(exc)(exc.errno, exc.strerror, str(path.resolve())) from None
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write`).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write; its folder is created if needed.
    text : str
        The whole content.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> atomic_write_text("notes.txt", "resumable\\n").read_text()
    'resumable\\n'
    """
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
