"""Writes the API reference (``docs/api/*.rst``) from the package's public names.

Run by ``docs/conf.py`` at every build, so that a name added to a package's ``__all__`` appears in
the reference without editing a page; ``tests/test_docs_api.py`` checks that every name of every
``__all__`` is listed. Each object is documented once, at the first module (in :data:`SECTIONS`
order) that exports it: a package's front doors on the package's page, the rest on their module's.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
from pathlib import Path

#: (page title, [packages or modules]) in the order of the reference; the submodules of a package
#: listed here are found and added after it.
SECTIONS: list[tuple[str, list[str]]] = [
    ("Envy-freeness certificates (OCEF)", ["ocef", "ocef.envy"]),
    ("REO from random traffic", ["ocef.reo"]),
    ("Pairwise fairness", ["ocef.pairwise"]),
    ("Recommender bias metrics", ["ocef.metrics"]),
    ("Position-aware exposure of top-k logs", ["ocef.exposure"]),
    ("Fair re-ranking (mitigation)", ["ocef.mitigate"]),
    ("Off-policy evaluation", ["ocef.offpolicy"]),
    ("Multi-attribute fairness testing (FairRec)", ["ocef.fairrec"]),
    ("Real data sets", ["ocef.datasets"]),
    ("Counting backends", ["ocef.backends", "ocef.log_schema"]),
    ("Environments", ["ocef.environments"]),
    ("Policies", ["ocef.policies"]),
    ("Results, inference, validation, errors, files",
     ["ocef.results", "ocef.inference", "ocef.validation", "ocef.errors", "ocef.files"]),
    ("Experiments (``ocef reproduce``)", ["ocef.experiments.registry"]),
]

#: Modules never documented: the CLI's plumbing (the commands are documented by ``ocef CMD --help``)
#: and the experiments (documented by the reproduction page).
SKIP_PREFIXES = ("ocef.commands", "ocef.cli", "ocef.experiments")


def _submodules(name: str) -> list[str]:
    module = importlib.import_module(name)
    if not hasattr(module, "__path__"):
        return [name]
    out = [name]
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        full = f"{name}.{info.name}"
        if full.startswith(SKIP_PREFIXES):
            continue
        out.extend(_submodules(full))
    return out


def public_names(module_name: str) -> list[str]:
    """The public names of a module: its ``__all__``, or else the public functions, classes and
    upper-case constants it defines itself (not those it imports)."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if getattr(obj, "__module__", None) == module_name:
                names.append(name)
    return names


def _is_submodule(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, AttributeError, ValueError):
        return False


def plan() -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """[(section title, [(module, [names documented on its page])])], each object once."""
    seen: set[int] = set()
    out = []
    for title, roots in SECTIONS:
        modules = []
        for root in roots:
            try:
                importlib.import_module(root)
            except ImportError:
                continue
            for module_name in _submodules(root) if root != "ocef" else ["ocef"]:
                module = importlib.import_module(module_name)
                names = []
                for name in public_names(module_name):
                    obj = getattr(module, name)
                    if _is_submodule(f"{module_name}.{name}"):
                        continue    # autosummary would take the name for the module: its page lists it
                    key = id(obj)
                    if (inspect.isclass(obj) or inspect.isfunction(obj)) and key in seen:
                        continue
                    seen.add(key)
                    names.append(name)
                modules.append((module_name, names))
        out.append((title, modules))
    return out


def _slug(title: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-").replace("--", "-")


def write(api_dir: Path) -> list[Path]:
    """Write ``index.rst`` and one page per section into ``api_dir``; returns the pages."""
    api_dir.mkdir(parents=True, exist_ok=True)
    pages = []
    toc = []
    sections = plan()
    # a module named like a function its package exports (ocef.policies.utility): the function
    # keeps the name in the index
    exported = {f"{m}.{n}" for _, mods in sections for m, names in mods for n in names}
    for title, modules in sections:
        slug = _slug(title)[:40].rstrip("-")
        lines = [title, "=" * len(title), ""]
        for module_name, names in modules:
            head = f"``{module_name}``"
            collides = module_name == "ocef" or module_name in exported
            lines += [head, "-" * len(head), "", f".. automodule:: {module_name}", "   :no-members:",
                      "   :no-index:" if collides else "", ""]
            if names:
                lines += [f".. currentmodule:: {module_name}", "", ".. autosummary::",
                          "   :toctree: generated/", "   :nosignatures:", ""]
                lines += [f"   {name}" for name in names]
                lines.append("")
        path = api_dir / f"{slug}.rst"
        text = "\n".join(lines) + "\n"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        pages.append(path)
        toc.append(slug)
    index = ["API reference", "=============", "",
             "Every public name of the package, one section per audit and layer. Generated from the",
             "modules' ``__all__`` (or their public functions and classes) at every build.", "",
             ".. toctree::", "   :maxdepth: 2", ""] + [f"   {s}" for s in toc]
    (api_dir / "index.rst").write_text("\n".join(index) + "\n")
    return pages
