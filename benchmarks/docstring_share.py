"""Docstring share of the library: lines of docstrings / lines of code, per package and overall.

Issue 27 (lean docstrings) compares OCEF with POT (37 %), OBP (34 %) and Fairlearn (34 %). Also
reports the median docstring length and body length of public functions and methods (names
without a leading underscore). Run: ``python benchmarks/docstring_share.py [--json]``.
"""
from __future__ import annotations

import argparse
import ast
import json
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ocef", "environments", "policies")


def _docstring_nodes(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield node, body[0]


def measure_file(path: Path):
    """Return (total lines, docstring lines, [(doc lines, body lines) of public functions])."""
    text = path.read_text()
    tree = ast.parse(text)
    total = len(text.splitlines())
    doc = 0
    public = []
    for node, expr in _docstring_nodes(tree):
        n = expr.end_lineno - expr.lineno + 1
        doc += n
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            body = node.end_lineno - expr.end_lineno
            public.append((n, body))
    return total, doc, public


def _package_of(path: Path) -> str:
    rel = path.relative_to(ROOT).parts
    if rel[0] == "ocef" and len(rel) > 2:
        return "ocef." + rel[1]
    if rel[0] == "ocef":
        return "ocef (top level)"
    return rel[0]


def measure() -> dict:
    rows: dict[str, list] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            total, doc, public = measure_file(path)
            row = rows.setdefault(_package_of(path), [0, 0, []])
            row[0] += total
            row[1] += doc
            row[2] += public
    out = {}
    all_total = all_doc = 0
    all_public = []
    for name, (total, doc, public) in sorted(rows.items()):
        out[name] = {"lines": total, "docstring_lines": doc, "share": round(doc / total, 3),
                     "median_public_doc": statistics.median([d for d, _ in public]) if public else None}
        all_total += total
        all_doc += doc
        all_public += public
    out["overall"] = {"lines": all_total, "docstring_lines": all_doc, "share": round(all_doc / all_total, 3),
                      "median_public_doc": statistics.median([d for d, _ in all_public]),
                      "median_public_body": statistics.median([b for _, b in all_public]),
                      "public_functions": len(all_public)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = measure()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{'package':28s} {'lines':>7s} {'doc':>7s} {'share':>6s} {'median doc':>10s}")
    for name, row in out.items():
        print(f"{name:28s} {row['lines']:7d} {row['docstring_lines']:7d} {row['share']:6.1%} "
              f"{row['median_public_doc']!s:>10s}")
    o = out["overall"]
    print(f"median public function: {o['median_public_doc']} docstring lines over a "
          f"{o['median_public_body']}-line body ({o['public_functions']} functions)")


if __name__ == "__main__":
    main()
