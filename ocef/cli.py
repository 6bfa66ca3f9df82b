"""The ``ocef`` command line.

Each sub-command lives in a module under :mod:`ocef.commands` exposing ``register(subparsers)``.
Start-up is kept short: ``ocef --help`` imports no command module (the table below holds the
one-line help of each command), and ``ocef CMD ...`` imports only the module of ``CMD``; a
command's heavy imports happen inside its handler.

Errors are sorted (see :func:`is_user_error`): bad input — the package's own exceptions
(:mod:`ocef.errors`), unreadable or unwritable files (``OSError``), corrupt compressed files, undecodable text, a log
that pandas, pyarrow or DuckDB cannot parse — becomes one line ``ocef CMD: error: ...`` and exit
status 2. Anything else is a bug, whatever its type and wherever it was raised (a ``KeyError``,
an unpacking ``ValueError``, ``int("x")``): its traceback, a "please report" line and exit status 1. Ctrl-C is one
line and exit status 130, even when it lands where Python swallows exceptions (see
:func:`keep_interrupts`).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import signal
import sys
import threading

# name -> (module, one-line help), in the order ``ocef --help`` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "bandit": ("ocef.commands.bandit",
               "run OCEF on a Bernoulli bandit (arm 0 = baseline) and summarize verdicts, duration and cost"),
    "envy": ("ocef.commands.envy", "exact individual and group envy of a recommender system"),
    "audit": ("ocef.commands.audit", "certify (group) envy-freeness of a recommender with OCEF, every group at once"),
    "reo": ("ocef.commands.reo", "estimate REO utilities, relative utilities and the penalty with intervals"),
    "reo-ab": ("ocef.commands.reo", "compare REO metrics of a treatment and a control arm (A/B test)"),
    "pairwise": ("ocef.commands.pairwise",
                 "pairwise (overall / intra / inter-group) accuracies from randomized pairs"),
    "reproduce": ("ocef.commands.reproduce",
                  "reproduce the papers' figures and check their claims (report: OUT/index.html)"),
    "simulate-service": ("ocef.commands.simulate_service",
                         "serve a simulated recommender over HTTP on 127.0.0.1, for ocef audit-live"),
    "audit-live": ("ocef.commands.audit_live",
                   "audit a running recommender service (ocef simulate-service) over HTTP, resumable"),
    "recmetrics": ("ocef.commands.recmetrics",
                   "recommender bias metrics (MAD, ETV, EKL, precision/recall/F1 ratios, Gini, ...) by group"),
    "exposure": ("ocef.commands.exposure",
                 "position-aware exposure fairness of a top-k log (item and user groups) with intervals"),
    "mitigate": ("ocef.commands.mitigate",
                 "fair re-ranking of a recommender's candidates, re-audited against the baseline with paired intervals"),
    "offpolicy": ("ocef.commands.offpolicy",
                  "per-group fairness of a target policy from a log with logged propensities (off-policy)"),
    "fairrec": ("ocef.commands.fairrec",
                "find the most unfair combination of user attributes (FairRec, DPSO search)"),
}

DESCRIPTION = ("Fairness audits of recommender systems: envy-freeness certificates (Do et al. 2022, OCEF), REO "
               "from random traffic (Dong et al. 2024), pairwise fairness (Beutel et al. 2019), recommender bias "
               "metrics (holisticai) and multi-attribute fairness testing (Guo et al. 2023, FairRec). How to cite "
               "them and OCEF: CITATION.cff, or the Cite page of the documentation.")


def _command_in(argv: list[str]) -> str | None:
    """The sub-command named in ``argv`` (the first argument that is not an option)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose errors (bad type, bad choice, unknown option) are one line
    ``ocef CMD: error: ...`` with exit status 2, like every other input error; no usage block.
    Sub-command parsers are of this class too (``add_subparsers`` uses the parent's class)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def unknown_option(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The error line for the first ``--option`` of ``argv`` that the command named in it does not
    know, with the closest known option ("did you mean"), or ``None`` when all are known. Checked
    before parsing, so a mistyped option is named even when argparse would first complain that
    the option it stands for is required.

    Examples
    --------
    >>> unknown_option(build_parser(["exposure"]), ["exposure", "--item-grup", "genre"])
    'ocef exposure: error: unrecognized argument --item-grup; did you mean --item-group?'
    >>> unknown_option(build_parser(["exposure"]), ["exposure", "--item-group", "genre"]) is None
    True
    """
    import difflib

    command = _command_in(argv)
    subs = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if command is None or subs is None or command not in subs.choices:
        return None
    sub = subs.choices[command]
    known = [o for o in sub._option_string_actions if o.startswith("--")]
    for token in argv[argv.index(command) + 1:]:
        if token == "--":
            break
        name = token.split("=", 1)[0]
        if not name.startswith("--") or name in known or any(o.startswith(name) for o in known):
            continue                     # a value, a known option or an unambiguous abbreviation
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else f"; see ocef {command} --help"
        return f"ocef {command}: error: unrecognized argument {name}{hint}"
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with the full options of the command named in ``argv`` only (all if ``None``)."""
    parser = _Parser(prog="ocef", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = set(COMMANDS) if argv is None else {_command_in(argv)}
    modules = {COMMANDS[name][0] for name in wanted if name is not None}
    registered: set[str] = set()
    for name, (module, help_text) in COMMANDS.items():
        if name in registered:
            continue
        if module in modules:
            before = set(sub.choices)
            importlib.import_module(module).register(sub)
            registered |= set(sub.choices) - before
        else:
            sub.add_parser(name, help=help_text)
            registered.add(name)
    return parser


class _Version(argparse.Action):
    """``--version``: reads the installed version (importlib.metadata, ~0.1 s) only when asked."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"ocef {_version()}")              # on stdout, as argparse's own version action
        parser.exit()


def _version() -> str:
    """The installed package's version."""
    from importlib import metadata

    try:
        return metadata.version("ocef")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


_NUMPY_REPR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str)_?\d*\((.*?)\)")


def error_line(command: str, exc: BaseException, option_names: dict | None = None) -> str:
    """One line for an error: the message, with numpy scalar reprs (``np.float64(1.0)``) shown plainly
    and the library's parameter names that a command spells differently (``option_names``, e.g.
    ``{"ndkl_desired": "--ndkl-target"}``, set by the command's parser) shown as the option typed.

    Examples
    --------
    >>> error_line("exposure", ValueError("ndkl_desired['a'] must be >= 0"), {"ndkl_desired": "--ndkl-target"})
    "ocef exposure: error: --ndkl-target['a'] must be >= 0"
    """
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        msg = f"{exc.filename}: {exc.strerror}"
    else:
        msg = str(exc) or type(exc).__name__
    msg = _NUMPY_REPR.sub(r"\1", " ".join(msg.split()))
    for name, option in (option_names or {}).items():
        msg = re.sub(rf"(?<![\w-]){re.escape(name)}(?!\w)", option, msg)
    return f"ocef {command}: error: {msg}"


def _input_errors() -> tuple[type[BaseException], ...]:
    import zlib
    from gzip import BadGzipFile

    from ocef.errors import OcefError

    return (OcefError, OSError, EOFError, BadGzipFile, zlib.error, UnicodeError)


#: Exceptions of the readers that mean "this file is not a valid log/table", by module and name.
_READER_ERRORS = {("pandas.errors", "ParserError"), ("pandas.errors", "EmptyDataError"),
                  ("pyarrow.lib", "ArrowInvalid"), ("pyarrow.lib", "ArrowIOError"),
                  ("duckdb", "IOException"), ("duckdb", "InvalidInputException"),
                  ("duckdb", "ConversionException"), ("_duckdb", "IOException"),
                  ("_duckdb", "InvalidInputException"), ("_duckdb", "ConversionException")}


def is_user_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the user's (one line, exit 2) rather than a bug (traceback, exit 1).

    User errors: :class:`ocef.errors.OcefError`, file errors (``OSError``, corrupt gzip/zlib,
    undecodable text, ``EOFError``), a reader's refusal of a malformed file (pandas, pyarrow,
    DuckDB). Anything else is a bug: ``KeyError``, ``IndexError``, ``AttributeError``, and any plain
    ``ValueError`` or ``TypeError``, wherever it was raised (every deliberate refusal of bad input
    raises an :mod:`ocef.errors` class, ``tests/test_own_exceptions.py``).

    Examples
    --------
    >>> from ocef.errors import ParameterError
    >>> is_user_error(ParameterError("delta must be in (0, 1)"))
    True
    >>> is_user_error(KeyError("a_key"))
    False
    >>> is_user_error(ValueError("not enough values to unpack"))
    False
    """
    if isinstance(exc, _input_errors()):
        return True
    if (type(exc).__module__, type(exc).__name__) in _READER_ERRORS:
        return True
    return False


REPORT_WHERE = "to the OCEF maintainers (the project's issue tracker)"


class _Interrupts:
    """State of :func:`keep_interrupts`: a Ctrl-C that Python dropped is re-sent until it is raised
    where it can be caught.

    ``handler`` is the SIGINT handler within the block (it runs in the main thread). ``hook`` is
    ``sys.unraisablehook``: a dropped ``KeyboardInterrupt`` is marked pending, and a daemon thread
    re-sends SIGINT every 10 ms while it is. A re-sent signal that finds the main thread still in
    ``hook`` would be dropped there too, so ``handler`` leaves it pending and the next one goes.
    """

    def __init__(self) -> None:
        self.swallowed = False           # a Ctrl-C was dropped at least once in the block
        self.pending = False             # dropped and not raised again yet
        self.in_hook = False
        self.active = True
        self.lock = threading.Lock()
        self.resender: threading.Thread | None = None

    def handler(self, signum, frame) -> None:
        if self.in_hook:
            return
        self.pending = False
        raise KeyboardInterrupt

    def hook(self, unraisable) -> None:
        if not issubclass(unraisable.exc_type, KeyboardInterrupt):
            sys.__unraisablehook__(unraisable)
            return
        self.in_hook = True
        try:
            self.arm()
        finally:
            self.in_hook = False

    def arm(self) -> None:
        with self.lock:
            self.swallowed = self.pending = True
            if self.resender is None:
                self.resender = threading.Thread(target=self._resend, daemon=True)
                self.resender.start()

    def _resend(self) -> None:
        import _thread
        import time

        while True:
            time.sleep(0.01)
            with self.lock:
                if not (self.active and self.pending):
                    self.resender = None
                    return
                _thread.interrupt_main(signal.SIGINT)


@contextlib.contextmanager
def keep_interrupts():
    """Within the block, a Ctrl-C that Python would drop still interrupts the work.

    Python reports and drops exceptions raised where nothing can catch them: in a ctypes
    callback, a ``__del__``, a weakref callback. numba's first compilation runs Python code
    inside llvmlite's ctypes callbacks for seconds, so a Ctrl-C pressed then was lost and the run
    went on for minutes, or the half-finished compilation failed with a ``RuntimeError`` and a
    traceback. Here the interrupt is raised again in the main thread, and an error raised after
    a dropped interrupt is reported as the interrupt it follows from. Only where Ctrl-C raises
    ``KeyboardInterrupt`` (Python's handler, main thread); an ignored SIGINT stays ignored.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    state = _Interrupts()
    previous_hook, sys.unraisablehook = sys.unraisablehook, state.hook
    signal.signal(signal.SIGINT, state.handler)
    try:
        yield
    except Exception as exc:
        if state.swallowed:
            raise KeyboardInterrupt from exc
        raise
    finally:
        sys.unraisablehook = previous_hook
        with state.lock:                 # nothing is re-sent from now on
            state.active = False
            resender = state.resender
        signal.signal(signal.SIGINT, signal.default_int_handler)   # one already sent lands here
        if resender is not None:
            resender.join()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    mistyped = unknown_option(parser, argv)
    if mistyped:                          # before argparse's "X is required" hides the typo
        parser.exit(2, mistyped + "\n")
    args, unknown = parser.parse_known_args(argv)
    if unknown:                           # named with the command, not as ``ocef: error: ...``
        parser.exit(2, f"ocef {args.command}: error: unrecognized arguments: {' '.join(unknown)}\n")
    limited = getattr(args, "memory_limit", None) is not None      # --memory-limit (commands reading logs)
    try:
        with keep_interrupts():
            if limited:
                from ocef.backends import set_memory_limit
                from ocef.validation import parse_size

                set_memory_limit(parse_size(args.memory_limit, "--memory-limit"))
            code = args.func(args)
    except BrokenPipeError:               # output piped into `head` & co.: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"ocef {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:              # noqa: BLE001 (sorted below: the user's or a bug)
        if is_user_error(exc):
            # Bad input is reported as one clear line, not a traceback.
            print(error_line(args.command, exc, getattr(args, "option_names", None)), file=sys.stderr)
            return 2
        import traceback

        traceback.print_exc()
        print(f"ocef {args.command}: internal error ({type(exc).__name__}): this is a bug in OCEF, not in your "
              f"input; please report it with the command line and the traceback above, {REPORT_WHERE}",
              file=sys.stderr)
        return 1
    finally:
        if limited:
            from ocef.backends import set_memory_limit

            set_memory_limit(None)
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
