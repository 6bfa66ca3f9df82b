"""The Cite page renders every entry of CITATION.cff with BibTeX, and the committed page is the one
``docs/citegen.py`` renders (the docs build rewrites it; this test catches an edit of one without
the other)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import citegen  # noqa: E402


def test_committed_cite_page_is_rendered_from_citation_cff():
    assert (ROOT / "docs" / "cite.md").read_text() == citegen.render(), \
        "docs/cite.md differs from CITATION.cff: run .venv/bin/python docs/citegen.py"


def test_every_entry_has_a_bibtex_block_with_its_title_authors_year_and_doi():
    doc = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    page = citegen.render()
    blocks = re.findall(r"```bibtex\n(.*?)```", page, flags=re.S)
    entries = [doc] + doc["references"]
    assert len(blocks) == len(entries) == 6
    for entry, block in zip(entries, blocks):
        assert entry["title"] in block
        for a in entry["authors"]:
            assert (a.get("family-names") or a["name"]) in block
        if entry.get("doi"):
            assert f"doi = {{{entry['doi']}}}" in block
        if entry.get("year"):
            assert f"year = {{{entry['year']}}}" in block
    assert len({citegen.key(e) for e in entries}) == len(entries)      # unique keys (the page's anchors)


def test_cite_page_is_linked_from_readme_and_every_guide():
    assert "docs/cite.md" in (ROOT / "README.md").read_text()
    for guide in sorted((ROOT / "docs" / "guide").glob("*.md")):
        assert "cite" in guide.read_text(), guide.name
