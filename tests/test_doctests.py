"""The examples of every docstring of the package run as doctests (numpydoc ``Examples``), with
``np`` and ``pd`` imported (:data:`ASSUMED`).

Each module of ``ocef`` (with ``ocef.environments``, ``ocef.policies``, ``ocef.experiments``) is
one test; a module without examples passes trivially, so the last test guards against the
collection finding nothing.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pandas as pd
import pytest

import ocef

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.FLOAT_CMP if hasattr(doctest, "FLOAT_CMP") \
    else doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = ["ocef"]
    # environments/, policies/ and experiments/ are mapped to ocef.* from their own folders
    for package in ("ocef", "ocef.environments", "ocef.policies", "ocef.experiments"):
        module = importlib.import_module(package)
        names.append(package)
        names += [info.name for info in pkgutil.walk_packages(module.__path__, package + ".")]
    return sorted(set(names))


MODULES = _modules()


#: What every example may assume, as numpydoc's standard and pandas' documentation do
#: (``import numpy as np``, ``import pandas as pd``): an example does not repeat these imports.
ASSUMED = {"np": np, "pd": pd}


def _tests(module_name: str):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, module_name, extraglobs=ASSUMED) if t.examples]


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)               # an example that writes a file writes it here
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path / "cache"))   # and its fitted models here
    tests = _tests(module_name)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    with np.printoptions(legacy="1.25"):
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {module_name}"


def test_the_doctests_are_found():
    assert len(MODULES) > 80
    assert "ocef.envy.auditor" in MODULES and "ocef.environments.base" in MODULES
    n_examples = sum(len(t.examples) for m in MODULES for t in _tests(m))
    assert n_examples >= 80, n_examples
