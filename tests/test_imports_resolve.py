"""Every ``from ocef... import name`` in the sources resolves, function-level imports included.

A function-level import of a moved or renamed name fails only when that branch runs (the
exposure-position experiment imported a Coat reader from the module it had left and failed only
on real Coat data); this test finds such an import without running the branch.
"""
import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("ocef", "environments", "policies", "experiments", "benchmarks", "docs/examples")
OPTIONAL = ("torch", "implicit", "pyspark")          # extras: a module importing them may not import here


def _imports(paths):
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "ocef":
                yield path, node.lineno, node.module, [a.name for a in node.names]


def _stale_imports(paths) -> tuple[int, list[str]]:
    """(imports seen, the ones that do not resolve)."""
    bad, seen = [], 0
    for path, line, module, names in _imports(paths):
        seen += 1
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            if not any(o in str(exc) for o in OPTIONAL):
                bad.append(f"{path}:{line}: {module}: {exc}")
            continue
        for name in names:
            if name != "*" and not hasattr(mod, name):
                try:
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    bad.append(f"{path}:{line}: {module} has no {name!r}")
    return seen, bad


def test_every_ocef_import_in_the_sources_resolves():
    paths = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    seen, bad = _stale_imports(paths)
    assert seen > 300
    assert not bad, "\n".join(bad)


def test_the_check_finds_a_stale_function_level_import(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from ocef.backends import BACKENDS\n\ndef f():\n    from ocef.backends import no_such_name\n"
                   "    from ocef.no_such_module import x\n")
    seen, bad = _stale_imports([src])
    assert seen == 3 and len(bad) == 2
    assert "no_such_name" in bad[0] and "no_such_module" in bad[1]
