"""Layers go one way (DESIGN.md): cli → experiments → ocef core → environments, policies, datasets →
validation, files; and no two modules import each other, directly or through others (no cycle).
Checked on every import statement of the source, function-level ones too."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: plumbing: the declared checks, the exceptions, atomic files, a log's format and the counting backends
BOTTOM = {"ocef.validation", "ocef.files", "ocef.errors", "ocef.log_schema", "ocef.backends"}


def _layer(module: str) -> str:
    if any(module == b or module.startswith(b + ".") for b in BOTTOM):
        return "bottom"
    if module == "ocef.cli" or module.startswith("ocef.commands"):
        return "cli"
    for pkg in ("experiments", "environments", "policies", "datasets"):
        if module == f"ocef.{pkg}" or module.startswith(f"ocef.{pkg}."):
            return {"experiments": "experiments"}.get(pkg, "data")
    return "core"


# which layers each layer may import
ALLOWED = {"cli": {"cli", "experiments", "core", "data", "bottom"},
           "experiments": {"experiments", "core", "data", "bottom"},
           "core": {"core", "data", "bottom"},
           "data": {"data", "bottom"},
           "bottom": {"bottom"}}


def _modules():
    for folder, package in (("ocef", "ocef"), ("environments", "ocef.environments"),
                            ("policies", "ocef.policies"), ("experiments", "ocef.experiments")):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            yield ".".join([package, *parts]), path


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def test_no_import_goes_up_a_layer():
    bad = []
    for module, path in _modules():
        layer = _layer(module)
        for imported in _imports(path):
            if not imported.startswith("ocef"):
                continue
            if imported == "ocef" and layer in ("core", "cli", "experiments"):
                continue
            target = _layer(imported) if imported != "ocef" else "core"
            if target not in ALLOWED[layer]:
                bad.append(f"{module} ({layer}) imports {imported} ({target})")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", ["policies", "environments", "experiments"])
def test_no_top_level_package_of_that_name_in_the_sources(name):
    # the folders are mapped to ocef.*; nothing imports them by their bare names
    for module, path in _modules():
        for imported in _imports(path):
            assert imported.split(".")[0] != name, f"{module} imports {imported}"


def test_the_layer_checks_see_every_package_and_classify_it():
    # guards the two tests above against passing vacuously (no module found, or every module
    # taken for one layer)
    found = {module: _layer(module) for module, _ in _modules()}
    expected = {"ocef.cli": "cli", "ocef.commands.audit": "cli", "ocef.experiments.report": "experiments",
                "ocef.envy.audit": "core", "ocef.environments.base": "data", "ocef.policies.base": "data",
                "ocef.datasets.coat": "data",
                "ocef.validation": "bottom", "ocef.files": "bottom", "ocef.backends": "bottom"}
    assert {m: found.get(m) for m in expected} == expected
    assert len(found) > 50
    # an upward import is one the table refuses
    assert _layer("ocef.envy.audit") not in ALLOWED[_layer("ocef.environments.base")]
    assert "ocef.experiments._io" in set(_imports(dict(_modules())["ocef.experiments.report"]))


def _module_graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports (``from pkg import sub`` counts as importing
    ``pkg.sub`` when that is a module; a package's ``__init__`` is the package)."""
    modules = dict(_modules())
    graph = {}
    for module, path in modules.items():
        targets = set()
        for imported in _imports(path):
            if imported in modules and imported != module:
                targets.add(imported)
        graph[module] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _without_package_inits(graph):
    # a package's __init__ that re-exports its submodules, and a submodule importing a sibling
    # through the package (``from ocef import reo`` inside ocef.reo.x), is not a cycle of modules
    packages = {m for m, p in _modules() if p.name == "__init__.py"}
    return {m: {t for t in ts if t not in packages} for m, ts in graph.items() if m not in packages}


def test_no_import_cycle():
    cycles = _cycles(_without_package_inits(_module_graph()))
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
