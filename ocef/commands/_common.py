"""Helpers shared by CLI sub-commands."""
from __future__ import annotations

import sys
from ocef.errors import ParameterError


def add_memory_limit(p) -> None:
    """``--memory-limit SIZE``, the one declaration of every command that counts logs with DuckDB
    (applied by :func:`ocef.cli.main` through :func:`ocef.backends.set_memory_limit`)."""
    p.add_argument("--memory-limit", default=None, metavar="SIZE",
                   help="bound DuckDB's memory, e.g. 2GB or 512MB; above it DuckDB spills to a temporary "
                        "folder (default: DuckDB's, 80%% of RAM; ocef mitigate: 1GB; pandas frames are in memory "
                        "already, Spark has its own spark.driver.memory / spark.executor.memory)")


def add_log_options(p, flag: str, what: str, *, metavar: str = "LOG", item_group_required: bool = True,
                    user_group_note: str = "", side_tables: bool = True, side_formats: str = " (CSV or Parquet)"):
    """The log options of every command that audits a log, declared once: the log itself (``flag``,
    required), ``--item-group`` and ``--user-group`` (columns), and with ``side_tables`` the side
    tables ``--item-groups`` / ``--user-groups`` (read by the library: ``item, COL`` / ``user, COL``).

    ``what`` opens the log's help (``"top-k log"``); ``user_group_note`` ends ``--user-group``'s
    help (e.g. ``" (consumer side; default: none)"``); ``side_formats`` ends the side tables' help.
    """
    from pathlib import Path

    p.add_argument(flag, type=Path, required=True, metavar=metavar,
                   help=f"{what}: CSV or Parquet file, folder or glob")
    p.add_argument("--item-group", required=item_group_required, default=None, metavar="COLUMN",
                   help="column giving each item's group")
    p.add_argument("--user-group", default=None, metavar="COLUMN",
                   help=f"column giving each user's group{user_group_note}")
    if side_tables:
        p.add_argument("--item-groups", type=Path, default=None, metavar="FILE",
                       help=f"side table with columns item and the --item-group column{side_formats}")
        p.add_argument("--user-groups", type=Path, default=None, metavar="FILE",
                       help=f"side table with columns user and the --user-group column{side_formats}")


def add_progress(p) -> None:
    """``--progress`` / ``--no-progress``, the one declaration of every command that can run long:
    ``args.progress`` is ``"auto"`` (a bar on stderr when it is a terminal), True or False."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_const", const=True, default="auto",
                   help="show the progress bar (time left, on stderr) even when stderr is not a terminal")
    g.add_argument("--no-progress", dest="progress", action="store_const", const=False,
                   help="hide the progress bar (default: shown when stderr is a terminal)")


def print_json(payload) -> None:
    """Print one strict-JSON object on stdout (results, numpy values; NaN/inf become null)."""
    from ocef.results import dumps

    sys.stdout.write(dumps(payload) + "\n")


def console_width() -> int:
    """The width console output fits: the terminal's columns (``$COLUMNS`` or the terminal's size;
    80 when output goes to a file or pipe), at least 60 and at most 120.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"COLUMNS": "80"}):
    ...     console_width()
    80
    """
    import shutil

    return min(max(shutil.get_terminal_size((80, 24)).columns, 60), 120)


#: The unit and sign of the ``cost`` column of the envy-freeness audits' console tables.
COST_NOTE = ("cost: expected reward lost per user of the group over the audit (eq. 10 of Do et al. 2022; rewards "
             "in [0, 1], summed over its steps): > 0 the exploration cost the group reward, < 0 it found better "
             "recommendations (envy); duration in steps (rounds of recommendations per user)")


def format_table(columns, digits: int = 4) -> str:
    """A small table as text, like ``DataFrame.to_string(index=False)`` with floats to ``digits``
    significant digits, from a dict of equal-length columns (no pandas import)."""
    def cell(v) -> str:
        if isinstance(v, float) or type(v).__name__.startswith("float"):
            return f"{float(v):.{digits}g}"
        return str(v)

    cols = [[str(name)] + [cell(v) for v in values] for name, values in columns.items()]
    widths = [max(len(c) for c in col) for col in cols]
    return "\n".join(" ".join(col[i].rjust(w) for col, w in zip(cols, widths)) for i in range(len(cols[0])))


class ConsoleTable:
    """Fixed-width console tables sharing one list of numbered notes (the reasons behind nulls).

    ``mark(reason)`` returns `` [i]`` for a reason (numbered on first sight, ``""`` for none);
    ``rows(rows, header, widths)`` lays out rows, the first column left-aligned and cut to its
    width, the others right-aligned; ``widths`` are maxima: each column takes only what its
    cells need, and the first column shrinks further (down to 10) until a line fits
    :func:`console_width`. ``notes(width)`` lists the reasons at the end, wrapped to it.

    Examples
    --------
    >>> t = ConsoleTable()
    >>> for line in t.rows([("a", "1" + t.mark("too few"))], ["name", "value"], [6, 8]) + t.notes():
    ...     print(line)
      name   value
      a      1 [1]
    <BLANKLINE>
    notes
      [1] too few
    """

    def __init__(self) -> None:
        self._notes: dict[str, int] = {}

    def mark(self, reason) -> str:
        if not isinstance(reason, str) or not reason:
            return ""
        self._notes.setdefault(reason, len(self._notes) + 1)
        return f" [{self._notes[reason]}]"

    @staticmethod
    def rows(rows, header, widths) -> list[str]:
        rows = [tuple(r) for r in rows]
        need = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
        widths = [min(w, n + (1 if i == 0 else 2)) for i, (w, n) in enumerate(zip(widths, need))]
        over = 2 + sum(widths) - console_width()
        if over > 0:
            widths[0] = max(10, widths[0] - over)

        def line(cells) -> str:
            return "  " + "".join(str(c).rjust(w) if i else str(c)[:w - 1].ljust(w)
                                  for i, (c, w) in enumerate(zip(cells, widths)))

        return [line(header)] + [line(row) for row in rows]

    def notes(self, width: int | None = None) -> list[str]:
        import textwrap

        width = console_width() if width is None else width
        if not self._notes:
            return []
        out = ["", "notes"]
        for reason, i in self._notes.items():
            out += textwrap.wrap(f"[{i}] {reason}", width, initial_indent="  ", subsequent_indent="      ")
        return out


def parse_float_list(text: str, name: str) -> list[float]:
    """Parse ``"0.6,0.3,0.3"`` into floats, naming the option on failure (an empty item is an error)."""
    items = [v.strip() for v in text.split(",")]
    if not text.strip():
        raise ParameterError(f"{name} must not be empty")
    if any(v == "" for v in items):
        raise ParameterError(f"{name} has an empty item in {text!r}: give comma-separated numbers such as 0.6,0.3")
    try:
        return [float(v) for v in items]
    except ValueError:
        raise ParameterError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None


def check_output_file(path, option: str = "--out"):
    """The real path of an output file, checked writable before any work is done.

    An empty name, a folder, a folder that cannot be created or written into are refused with
    :class:`ocef.errors.ParameterError` naming the option and the real (absolute, resolved) path,
    so that an unwritable ``--out`` fails at once instead of after the whole audit, and never names
    a hidden temporary file. ``None`` (the option not given) is returned as is.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_file(d / "table.csv") == (d / "table.csv").resolve()
    True
    """
    import os
    import tempfile
    from pathlib import Path


    if path is None:
        return None
    if str(path).strip() == "":
        raise ParameterError(f"{option} must name a file, got an empty name")
    real = Path(os.path.abspath(os.path.expanduser(str(path)))).resolve()
    if real.is_dir():
        raise ParameterError(f"{option} {real} is a folder; give a file name")
    parent = real.parent
    existing = parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ParameterError(f"{option} {real}: {existing} is not a folder")
    try:
        parent.mkdir(parents=True, exist_ok=True)      # the folder the file will be written to
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{real.name}.check.")
        os.close(fd)
        os.unlink(tmp)
        if real.exists() and not os.access(real, os.W_OK):
            raise PermissionError(13, "Permission denied", str(real))
    except OSError as exc:
        raise ParameterError(f"{option} {real} is not writable: {exc.strerror or exc}") from None
    return real
