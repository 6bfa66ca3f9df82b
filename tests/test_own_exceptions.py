"""A user error is one of the package's own exceptions (``ocef.errors``), never a bare built-in.

``ParameterError``/``DataError`` derive from ``ValueError`` and ``ParameterTypeError`` from
``TypeError``, so callers that catch the built-ins keep working; the scan below fails on any
``raise ValueError(...)`` or ``raise TypeError(...)`` in the package's code.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("ocef", "environments", "policies", "experiments")


def bare_raises(source: str) -> list[int]:
    """Line numbers of ``raise ValueError(...)``/``raise TypeError(...)`` (or the bare names), and of
    any other construction of one (``return ValueError(...)`` from a helper that builds the error:
    the command line treats a plain ``ValueError`` as a bug)."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id in ("ValueError", "TypeError"):
                lines.add(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("ValueError", "TypeError"):
            lines.add(node.lineno)
    return sorted(lines)


def test_the_scan_finds_a_bare_raise():
    assert bare_raises("def f(x):\n    if x:\n        raise ValueError('x')\n    raise TypeError\n") == [3, 4]
    assert bare_raises("from ocef.errors import DataError\nraise DataError('log has no rows')\n") == []
    assert bare_raises("def err(name):\n    return ValueError(name)\n") == [2]


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_bare_builtin_raise(folder):
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / folder).rglob("*.py"))
             for line in bare_raises(path.read_text())]
    assert not found, "raise the package's own exceptions (ocef.errors):\n" + "\n".join(found)


def test_the_own_exceptions_are_the_builtins_callers_catch():
    from ocef.errors import DataError, ParameterError, ParameterTypeError
    assert issubclass(ParameterError, ValueError) and issubclass(DataError, ValueError)
    assert issubclass(ParameterTypeError, TypeError)
