"""One vocabulary (docs/glossary.md), enforced over every public signature.

The public signatures are those of the API reference: every function and class that
``docs/apigen.py`` documents (each package's ``__all__``, or a module's public functions and
classes), with the public methods of each class. The rules:

* forbidden parameter names: ``top``, ``top_k``, ``n_show`` (a list length is ``k``), ``n_boot``,
  ``n_bootstrap`` (``n_resamples``), ``level`` (``confidence``), ``seed`` (``rng``),
  ``bootstrap_interval``, ``delta_interval`` (one ``interval`` argument chooses the method);
* ``method`` never chooses an interval (its default is never an interval name);
* ``engine`` is the simulation engine: only in the envy-freeness audit and the environments, and
  its default is one of ``auto | numba | numpy | ask-tell``; ``backend`` is the counting backend,
  its default one of ``auto | duckdb | pandas | spark``;
* the vocabulary's options (``rng``, ``k``, ``confidence``, ``interval``, ``n_resamples``,
  ``engine``, ``backend``) are keyword-only when they have a default (data first, options after);
* on a result class (a subclass of :class:`ocef.results.Result`), ``overall``, ``groups`` and
  ``pairs`` are DataFrame attributes (a field or a property annotated ``DataFrame``) and
  ``summary`` is a method.

:data:`KNOWN_EXCEPTIONS` lists, explicitly, what still breaks a rule in modules being changed by
other work; an entry that no longer breaks its rule fails the test, so the list only shrinks.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":      # run as a script: the folder tests/ocef/ must not shadow the package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT / "docs"))
import apigen  # noqa: E402

from ocef.results import Result  # noqa: E402

FORBIDDEN = {"top": "k", "top_k": "k", "n_show": "k", "n_boot": "n_resamples", "n_bootstrap": "n_resamples",
             "level": "confidence", "seed": "rng", "bootstrap_interval": "interval",
             "delta_interval": "interval"}
INTERVAL_NAMES = {"delta", "delta-full", "percentile", "basic", "bca", "wilson", "bootstrap-t", "standard",
                  "studentized"}
ENGINES = {"auto", "numba", "numpy", "ask-tell"}
BACKENDS = {"auto", "duckdb", "pandas", "spark"}
KEYWORD_ONLY = {"rng", "k", "confidence", "interval", "n_resamples", "engine", "backend"}
#: where ``engine`` (the simulation engine) may appear
ENGINE_MODULES = ("ocef.envy", "ocef.environments", "ocef.OCEF")
VIEWS = ("overall", "groups", "pairs")

#: "rule: qualified name[: parameter]" -> why it is still there. Keep short; remove when fixed.
KNOWN_EXCEPTIONS: dict[str, str] = {
}


def _public_callables():
    """(qualified name, module, callable, owning result class or None) for the whole API."""
    out = []
    for _, modules in apigen.plan():
        for module_name, names in modules:
            module = importlib.import_module(module_name)
            for name in names:
                obj = getattr(module, name)
                qual = name if module_name == "ocef" else f"{module_name.removeprefix('ocef.')}.{name}"
                if inspect.isfunction(obj):
                    out.append((qual, module_name, obj, None))
                elif inspect.isclass(obj):
                    out.append((qual, module_name, obj, obj))
                    for attr, member in vars(obj).items():
                        if attr.startswith("_"):
                            continue
                        if isinstance(member, (staticmethod, classmethod)):
                            member = member.__func__
                        if inspect.isfunction(member):
                            out.append((f"{qual}.{attr}", module_name, member, None))
    return out


CALLABLES = _public_callables()


def _parameters(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in sig.parameters.values() if p.name not in ("self", "cls")]


def _is_result_class(obj) -> bool:
    return inspect.isclass(obj) and issubclass(obj, Result)


def _violations():
    found: dict[str, str] = {}
    for qual, module_name, obj, cls in CALLABLES:
        if _is_result_class(obj):
            continue            # a result's constructor records what was computed (its fields)
        for p in _parameters(obj):
            where = f"{qual}: {p.name}"
            if p.name in FORBIDDEN:
                found[f"name {where}"] = f"use {FORBIDDEN[p.name]!r}"
            if p.name == "method" and isinstance(p.default, str) and p.default in INTERVAL_NAMES:
                found[f"method {where}"] = "an interval method is chosen by 'interval'"
            if p.name == "engine":
                if not (module_name.startswith(ENGINE_MODULES) or qual.startswith("OCEF")):
                    found[f"engine {where}"] = "'engine' is the simulation engine; counting is 'backend'"
                elif isinstance(p.default, str) and p.default not in ENGINES:
                    found[f"engine {where}"] = f"default {p.default!r} is not a simulation engine"
            if p.name == "backend" and isinstance(p.default, str) and p.default not in BACKENDS:
                found[f"backend {where}"] = f"default {p.default!r} is not a counting backend"
            if (p.name in KEYWORD_ONLY and p.default is not inspect.Parameter.empty
                    and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD):
                found[f"keyword-only {where}"] = "options after the data are keyword-only"
    for qual, module_name, obj, cls in CALLABLES:
        if not _is_result_class(obj):
            continue
        fields = {f.name: f for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else {}
        for view in VIEWS:
            if view in fields:
                annotation = str(fields[view].type)
                if "DataFrame" not in annotation:
                    found[f"view {qual}.{view}"] = f"a field of type {annotation}, not a DataFrame"
            elif hasattr(obj, view):
                member = inspect.getattr_static(obj, view)
                fget = getattr(member, "fget", None) or getattr(member, "func", None)
                annotation = str(inspect.signature(fget).return_annotation) if fget else type(member).__name__
                if "DataFrame" not in annotation:
                    found[f"view {qual}.{view}"] = f"{annotation}, not a DataFrame attribute"
        if "summary" in fields:
            found[f"view {qual}.summary"] = "a field: summary is a method returning a DataFrame"
        elif hasattr(obj, "summary") and not inspect.isfunction(inspect.getattr_static(obj, "summary")):
            found[f"view {qual}.summary"] = "a property: summary is a method returning a DataFrame"
    return found


def test_the_scan_sees_the_whole_api():
    # guards against passing vacuously: the public API is large and holds the known front doors
    names = {qual for qual, *_ in CALLABLES}
    assert len(names) > 300
    for qual in ("OCEF", "envy.run_audit", "reo.estimate_reo", "pairwise.pairwise_accuracy",
                 "metrics.recommender_bias", "policies.policy_from_scores", "validation.as_generator"):
        assert qual in names, qual


def test_public_signatures_follow_the_vocabulary():
    found = _violations()
    keys = {k.split(" ", 1)[1] for k in found}
    new = {k: v for k, v in found.items() if k.split(" ", 1)[1] not in KNOWN_EXCEPTIONS}
    assert not new, "vocabulary (docs/glossary.md) broken:\n" + "\n".join(f"  {k}: {v}" for k, v in sorted(new.items()))
    fixed = [k for k in KNOWN_EXCEPTIONS if k not in keys]
    assert not fixed, f"fixed, remove from KNOWN_EXCEPTIONS: {fixed}"


@pytest.mark.parametrize("bad, rule", [
    ("def f(x, top=10): pass", "name"),
    ("def f(x, *, seed=0): pass", "name"),
    ("def f(x, *, method='bca'): pass", "method"),
    ("def f(x, rng=None): pass", "keyword-only"),
])
def test_the_rules_catch_a_violation(bad, rule, monkeypatch):
    namespace: dict = {}
    exec(bad, namespace)
    namespace["f"].__module__ = "ocef.reo.fake"
    monkeypatch.setattr(sys.modules[__name__], "CALLABLES", [("reo.f", "ocef.reo.fake", namespace["f"], None)])
    assert any(k.startswith(rule + " ") for k in _violations())


def test_engine_outside_simulation_is_caught(monkeypatch):
    def count(logs, *, engine="duckdb"):
        return logs
    monkeypatch.setattr(sys.modules[__name__], "CALLABLES", [("backends.count", "ocef.backends", count, None)])
    assert "engine backends.count: engine" in _violations()


def test_result_views_are_checked(monkeypatch):
    import pandas as pd

    @dataclasses.dataclass(frozen=True)
    class Bad(Result):
        groups: tuple
        summary: pd.DataFrame

        def to_frame(self):
            return pd.DataFrame()

    monkeypatch.setattr(sys.modules[__name__], "CALLABLES", [("x.Bad", "ocef.x", Bad, Bad)])
    assert set(_violations()) == {"view x.Bad.groups", "view x.Bad.summary"}


if __name__ == "__main__":
    # `python tests/test_vocabulary.py`: print today's violations as a KNOWN_EXCEPTIONS table, to
    # review after a merge (an entry belongs in the table only while another change owns the fix).
    for key, why in sorted(_violations().items()):
        rule, where = key.split(" ", 1)
        print(f"    {where!r}: {f'{rule}: {why}'!r},")
