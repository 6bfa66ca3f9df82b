"""Layers go one way (DESIGN.md): cli → experiments → ocef core → environments, policies →
validation, files. Checked on every import statement of the source, function-level ones too."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOTTOM = {"ocef.validation", "ocef.files"}


def _layer(module: str) -> str:
    if any(module == b or module.startswith(b + ".") for b in BOTTOM):
        return "bottom"
    if module == "ocef.cli" or module.startswith("ocef.commands"):
        return "cli"
    for pkg in ("experiments", "environments", "policies"):
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
                "ocef.audit": "core", "ocef.environments.base": "data", "ocef.policies.base": "data",
                "ocef.validation": "bottom", "ocef.files": "bottom"}
    assert {m: found.get(m) for m in expected} == expected
    assert len(found) > 50
    # an upward import is one the table refuses
    assert _layer("ocef.audit") not in ALLOWED[_layer("ocef.environments.base")]
    assert "ocef.experiments._io" in set(_imports(dict(_modules())["ocef.experiments.report"]))
