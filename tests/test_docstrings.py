"""numpydoc sections on every public function and class of the API reference (issue 18, step 3).

Every object listed by ``docs/apigen.py`` (each name of every ``__all__``) has a summary line, a
``Parameters`` section naming each parameter of its signature (classes may use ``Attributes``;
exception and enumeration classes are exempt), a ``Returns`` (or ``Yields``) section unless it is a class or is
annotated ``-> None``, and an ``Examples`` section with at least one ``>>>`` line; the examples run
as doctests in ``tests/test_doctests.py``. ``KNOWN_GAPS`` lists what is still missing and can only
shrink: an entry that no longer has its gap fails the test, so the list is kept exact.
"""
from __future__ import annotations

import enum
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":          # run as a script: tests/ocef must not shadow the package
    sys.path[0] = str(ROOT)
sys.path.insert(0, str(ROOT / "docs"))
import apigen  # noqa: E402

#: "module.name: codes" -- P parameters, R returns, E examples, S summary; grouped by package.
KNOWN_GAPS: set[str] = set()          # empty: every public function and class is documented


def _objects():
    seen, out = set(), []
    for _, modules in apigen.plan():
        for module_name, names in modules:
            module = importlib.import_module(module_name)
            for name in names:
                obj = getattr(module, name)
                if id(obj) in seen or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                    continue
                seen.add(id(obj))
                out.append((f"{module_name}.{name}", obj))
    return out


def _section(doc: str, title: str) -> str | None:
    match = re.search(rf"^{title}\n-{{3,}}\n(.*?)(?=^\S[^\n]*\n-{{3,}}\n|\Z)", doc, re.M | re.S)
    return match.group(1) if match else None


def documented_names(section: str) -> set[str]:
    """The names of a numpydoc ``Parameters``/``Attributes`` section (``a, b : int`` gives both)."""
    names = set()
    for line in section.splitlines():
        if line and not line[0].isspace():
            head = line.split(" : ")[0].rstrip(":").strip()
            names |= {n.strip().lstrip("*") for n in head.split(",")}
    return names


#: Base classes whose methods' docstrings document a contract that every subclass implements
#: (as scikit-learn's do): an override without a docstring of its own is documented by the base's,
#: which the API reference shows for it.
CONTRACTS = ("ocef.validation.Constraint",)


def _implements_a_contract(func) -> bool:
    owner = getattr(importlib.import_module(func.__module__), func.__qualname__.split(".")[0], None)
    return inspect.isclass(owner) and any(f"{base.__module__}.{base.__qualname__}" in CONTRACTS
                                          and func.__name__ in vars(base) for base in owner.__mro__[1:])


def gaps(obj) -> str:
    """The missing parts of one object's docstring, as codes (see ``KNOWN_GAPS``)."""
    doc = inspect.getdoc(obj) or ""
    if inspect.isfunction(obj) and not obj.__doc__ and not _implements_a_contract(obj):
        # an override without a docstring borrows its base method's (inspect.getdoc): its summary
        # may stand, but the base's sections (e.g. Result.to_frame's) do not document the override
        doc = doc.split("\n\n")[0] if doc.strip() else ""
    codes = ""
    if not doc.strip() or doc.lstrip().startswith(("Parameters\n", "Examples\n")):
        codes += "S"
    # an exception takes its message; an enumeration is called with one of its values
    is_exception = inspect.isclass(obj) and issubclass(obj, (BaseException, enum.Enum))
    try:
        signature = inspect.signature(obj)
        params = [p.name for p in signature.parameters.values()
                  if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        signature, params = None, []
    if params and not is_exception:
        section = _section(doc, "Parameters")
        if section is None and inspect.isclass(obj):
            section = _section(doc, "Attributes")
        if section is None or not set(params) <= documented_names(section):
            codes += "P"
    if inspect.isfunction(obj) and signature is not None \
            and signature.return_annotation not in (None, "None") \
            and _section(doc, "Returns") is None and _section(doc, "Yields") is None:
        codes += "R"
    examples = _section(doc, "Examples")
    if examples is None or ">>>" not in examples:
        codes += "E"
    return codes


OBJECTS = _objects()


def _methods():
    """The public methods defined by each public class (``vars``: not inherited ones)."""
    out = []
    for name, obj in OBJECTS:
        if inspect.isclass(obj):
            out += [(f"{name}.{m}", f) for m, f in vars(obj).items()
                    if not m.startswith("_") and inspect.isfunction(f)]
    return out


METHODS = _methods()

#: Public methods still without numpydoc sections ("module.Class.method: codes"); can only shrink.
KNOWN_METHOD_GAPS: set[str] = set()   # empty: every public method is documented


def test_the_reference_is_found():
    assert len(OBJECTS) > 400


def test_every_public_object_has_numpydoc_sections():
    found = {f"{name}: {codes}" for name, obj in OBJECTS if (codes := gaps(obj))}
    new = sorted(found - KNOWN_GAPS)
    mended = sorted(KNOWN_GAPS - found)
    assert not new, "docstrings without numpydoc sections:\n" + "\n".join(new)
    assert not mended, "mended: remove from KNOWN_GAPS:\n" + "\n".join(mended)


def test_every_public_method_has_numpydoc_sections():
    found = {f"{name}: {codes}" for name, f in METHODS if (codes := gaps(f))}
    new = sorted(found - set(KNOWN_METHOD_GAPS))
    mended = sorted(set(KNOWN_METHOD_GAPS) - found)
    assert not new, "methods without numpydoc sections:\n" + "\n".join(new)
    assert not mended, "mended: remove from KNOWN_METHOD_GAPS:\n" + "\n".join(mended)


class _Base:
    def view(self) -> int:
        """Summary.

        Returns
        -------
        int

        Examples
        --------
        >>> _Base().view()
        1
        """
        return 1


class _Override(_Base):         # inspect.getdoc finds the base of a module-level class only
    def view(self) -> int:
        return 2


def test_the_check_finds_each_gap():
    def bare(x, y):
        """Summary."""

    def full(x, y) -> int:
        """Summary.

        Parameters
        ----------
        x, y : int
            Numbers.

        Returns
        -------
        int

        Examples
        --------
        >>> full(1, 2)
        3
        """
        return x + y

    def half(x, y) -> None:
        """Summary.

        Parameters
        ----------
        x : int

        Examples
        --------
        Prose only.
        """

    assert gaps(_Base.view) == "" and gaps(_Override.view) == "RE"   # the base lends its summary only
    from ocef.validation import Real      # ...except where the base documents a contract (CONTRACTS)
    assert Real.check.__doc__ is None and gaps(Real.check) == ""
    assert gaps(bare) == "PRE"
    assert gaps(full) == ""
    assert gaps(half) == "PE"
    assert documented_names("x, y : int\n    text\n*args : tuple\n") == {"x", "y", "args"}


if __name__ == "__main__":           # print the current gaps as KNOWN_GAPS / KNOWN_METHOD_GAPS lines
    for name, obj in OBJECTS + [("# methods", None)] + METHODS:
        if obj is None:
            print(name)
        elif codes := gaps(obj):
            print(f'    "{name}: {codes}",')
