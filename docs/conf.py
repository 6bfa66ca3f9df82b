"""Sphinx configuration of the OCEF documentation site.

Build (see contributing.md)::

    .venv/bin/pip install -e '.[docs]'
    .venv/bin/python -m sphinx -W --keep-going -b html docs docs/_build/html
"""
from __future__ import annotations

import os
import sys
from importlib.metadata import version as _version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import apigen  # noqa: E402  (docs/apigen.py: the API reference pages, from the modules' __all__)
import citegen  # noqa: E402  (docs/citegen.py: the Cite page, from CITATION.cff)

# stale pages of names that no longer exist would be orphans (a warning): regenerate them all
import shutil  # noqa: E402

shutil.rmtree(HERE / "api" / "generated", ignore_errors=True)
apigen.write(HERE / "api")
citegen.write()

project = "OCEF"
author = "The OCEF developers"
copyright = "2026, The OCEF developers"
release = _version("ocef")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "examples/README.txt", "Thumbs.db", ".DS_Store",
                    "apigen.py", "citegen.py"]
templates_path = ["_templates"]

# -- API reference -----------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"          # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- Markdown (MyST) ---------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- Gallery: docs/examples/plot_*.py, executed at build time ----------------------------------
os.environ.setdefault("MPLBACKEND", "Agg")
# The examples on real data run when the data set is found (--data-dir is not a Sphinx option:
# $OCEF_DATA_DIR or ../shared/data); without it they are shown but not executed, and the build
# says so in one line instead of failing on every page of the gallery.
NEEDS_DATA = {"plot_03": ("ml-100k",), "plot_04": ("ml-100k",), "plot_05": ("ml-100k",), "plot_06": ("ml-100k",),
              "plot_08": ("coat", "obd"), "plot_11": ("coat",), "plot_12": ("ml-100k",), "plot_13": ("ml-100k",)}


def _runnable_examples() -> str:
    from ocef.environments.paths import dataset_dir

    missing = {name for names in NEEDS_DATA.values() for name in names if not dataset_dir(name).is_dir()}
    skipped = sorted(ex for ex, names in NEEDS_DATA.items() if missing.intersection(names))
    if skipped:
        print(f"[ocef docs] data set(s) {sorted(missing)} not found: examples {skipped} are shown, not run")
    return r"/plot_(?!" + "|".join(s[len("plot_"):] for s in skipped) + r")" if skipped else r"/plot_"


sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": _runnable_examples(),
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": os.environ.get("OCEF_DOCS_GALLERY", "True"),
}

# -- Links --------------------------------------------------------------------------------------
intersphinx_mapping: dict[str, tuple[str, None]] = {}
# The link check (``-b linkcheck``) is restricted to the site's own links: external addresses are
# not fetched (CI runs without network); internal references are still checked by -W.
linkcheck_ignore = [r"https?://.*", r"mailto:.*"]
linkcheck_anchors = False

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"OCEF {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = ["_static"]
html_css_files = ["ocef.css"]           # long API names and code wrap or scroll inside the page
html_show_sourcelink = False
nitpicky = False
suppress_warnings = ["config.cache"]


# -- Docstrings: |x| is an absolute value, never a reST substitution ----------------------------
import re  # noqa: E402

_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")


def _escape_bars(line: str) -> str:
    if "|" not in line:
        return line
    parts = _LITERAL.split(line)
    return "".join(p if i % 2 else re.sub(r"(?<!\\)\|", r"\\|", p) for i, p in enumerate(parts))


def _process_docstring(app, what, name, obj, options, lines):
    if any(line.lstrip().startswith(("+--", "+==")) for line in lines):
        return                      # a grid table: its bars are the table's
    lines[:] = [_escape_bars(line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _process_docstring, priority=100)
