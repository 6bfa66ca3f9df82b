"""Packages whose public names are imported on first use (PEP 562).

``ocef.envy``, ``ocef.reo``, ``ocef.metrics``, ``ocef.exposure`` and ``ocef.pairwise`` re-export their front doors from their
``__init__`` without importing every module up front: ``ocef reo`` on a file needs DuckDB and the
estimator, not POT, numba or the bootstrap machinery. One definition of that mechanism, here.
"""
from __future__ import annotations

import importlib
import sys
from typing import Callable, Iterable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, home: Mapping[str, Iterable[str]],
                 submodules: Iterable[str] = ()) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package that re-exports names lazily.

    Parameters
    ----------
    package : str
        The package's name (its ``__name__``).
    home : mapping
        Submodule name -> the public names it defines.
    submodules : iterable of str, optional
        Further submodules reachable as attributes (``package.name``).

    Returns
    -------
    (callable, callable)
        ``__getattr__(name)`` importing the name's module on first use (and caching the value in
        the package), and ``__dir__()``.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("json", {"decoder": ("JSONDecodeError",)})
    >>> getattr_("JSONDecodeError").__name__
    'JSONDecodeError'
    """
    module_of = {name: module for module, names in home.items() for name in names}
    modules = set(home) | set(submodules)

    def __getattr__(name: str):
        if name in modules:                                 # a submodule, e.g. ocef.reo.counts
            return importlib.import_module(f"{package}.{name}")
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)         # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(module_of))

    return __getattr__, __dir__
