"""The "Cite" page (docs/cite.md), rendered from CITATION.cff.

``docs/conf.py`` rewrites ``docs/cite.md`` at every build, and ``tests/test_docs_cite.py`` checks
that the committed page is what this module renders, so the page and ``CITATION.cff`` cannot
disagree. Every entry (the software and each reference) gets a plain-text citation and a BibTeX
entry; its key is the one the guides link to (``cite.md#KEY``).
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CFF = ROOT / "CITATION.cff"
PAGE = Path(__file__).resolve().parent / "cite.md"

#: BibTeX entry type of each CFF ``type``.
_BIBTYPE = {"software": "software", "conference-paper": "inproceedings", "article": "article"}


def _authors(entry: dict) -> list[str]:
    out = []
    for a in entry.get("authors", []):
        if "family-names" in a:
            out.append(f"{a['family-names']}, {a.get('given-names', '')}".rstrip(", "))
        else:
            out.append("{" + a["name"] + "}")
    return out


def _plain_authors(entry: dict) -> str:
    names = [f"{a.get('given-names', '')} {a['family-names']}".strip() if "family-names" in a else a["name"]
             for a in entry.get("authors", [])]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _year(entry: dict) -> str:
    return str(entry.get("year") or str(entry.get("date-released", ""))[:4])


def key(entry: dict) -> str:
    """BibTeX key: first author's family name (or first word of the name) + year, lower case.

    Examples
    --------
    >>> key({"authors": [{"family-names": "Do", "given-names": "V"}], "year": 2022})
    'do2022'
    """
    first = entry["authors"][0]
    # a person: the family name; an organisation ("The OCEF developers", "Holistic AI"): the title's
    # first word ("OCEF", "holisticai")
    name = first.get("family-names") or entry["title"].split(":")[0].split()[0]
    return re.sub(r"[^a-z0-9]", "", name.lower()) + _year(entry)


def short_name(entry: dict) -> str:
    """How the pages name an entry: "Do et al. 2022", or an organisation's title word ("OCEF").

    Examples
    --------
    >>> short_name({"authors": [{"family-names": "Do"}, {"family-names": "Atif"}, {"family-names": "U"}], "year": 2022})
    'Do et al. 2022'
    """
    people = [a["family-names"] for a in entry["authors"] if "family-names" in a]
    if not people:
        return entry["title"].split(":")[0].split()[0]
    names = people[0] if len(people) == 1 else (" and ".join(people) if len(people) == 2 else f"{people[0]} et al.")
    return f"{names} {_year(entry)}".strip()


def _arxiv(entry: dict) -> str | None:
    for ident in entry.get("identifiers", []):
        m = re.search(r"arXiv:(\S+)", str(ident.get("value", "")))
        if m:
            return m.group(1)
    m = re.search(r"arXiv:(\S+)", str(entry.get("notes", "")))
    return m.group(1).rstrip(";,") if m else None


def bibtex(entry: dict) -> str:
    """One BibTeX entry of a CFF entry (the software itself or one of its ``references``).

    Examples
    --------
    >>> print(bibtex({"type": "article", "title": "T", "year": 2024, "journal": "J",
    ...               "authors": [{"family-names": "Dong", "given-names": "Yulong"}]}))
    @article{dong2024,
      title = {{T}},
      author = {Dong, Yulong},
      journal = {J},
      year = {2024},
    }
    """
    kind = _BIBTYPE.get(entry.get("type", "software"), "misc")
    fields = [("title", "{" + entry["title"] + "}"), ("author", " and ".join(_authors(entry)))]
    if entry.get("collection-title"):
        fields.append(("booktitle", entry["collection-title"]))
    if entry.get("journal"):
        fields.append(("journal", entry["journal"]))
    for name in ("volume", "issue"):
        if entry.get(name) is not None:
            fields.append(("number" if name == "issue" else name, str(entry[name])))
    if entry.get("start") is not None:
        fields.append(("pages", f"{entry['start']}--{entry['end']}"))
    if _year(entry):
        fields.append(("year", _year(entry)))
    if entry.get("version") is not None:
        fields.append(("version", str(entry["version"])))
    if entry.get("doi"):
        fields.append(("doi", str(entry["doi"])))
    arxiv = _arxiv(entry)
    if arxiv:
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
    if entry.get("url"):
        fields.append(("url", entry["url"]))
    if entry.get("license"):
        fields.append(("license", entry["license"]))
    body = "".join(f"  {k} = {{{v.replace('&', chr(92) + '&')}}},\n" for k, v in fields)
    return f"@{kind}{{{key(entry)},\n{body}}}"


def _plain(entry: dict) -> str:
    where = entry.get("collection-title") or entry.get("journal") or ""
    year = f" ({_year(entry)})" if _year(entry) else ""
    parts = [f"{_plain_authors(entry)}{year}.", f"*{entry['title']}*."]
    if where:
        parts.append(f"{where}" + (f", {entry['volume']}({entry['issue']})" if entry.get("volume") else "")
                     + (f", pp. {entry['start']}-{entry['end']}" if entry.get("start") else "") + ".")
    if entry.get("version") and entry.get("type") == "software":
        parts.append(f"Version {entry['version']}.")
    if entry.get("doi"):
        parts.append(f"[doi:{entry['doi']}](https://doi.org/{entry['doi']})")
    elif entry.get("url"):
        parts.append(f"<{entry['url']}>")
    return " ".join(parts)


def render(cff: Path = CFF) -> str:
    """The Markdown of the Cite page: how to cite, then every entry of ``cff`` with BibTeX.

    Examples
    --------
    >>> page = render()
    >>> page.startswith("# Cite") and "@inproceedings{do2022," in page
    True
    """
    doc = yaml.safe_load(Path(cff).read_text())
    software = {k: v for k, v in doc.items() if k != "references"}
    entries = [software] + list(doc.get("references", []))
    out = ["# Cite", "",
           "<!-- Generated from CITATION.cff by docs/citegen.py at every docs build; do not edit. -->", "",
           " ".join(str(doc.get("message", "")).split()), "",
           "The guides, the console and the reproduction report name each paper by its authors and year",
           "(e.g. \"Do et al. 2022 (OCEF)\"), as the headings below do. The same references,",
           "machine-readable, are in `CITATION.cff` at the root of the repository.",
           ""]
    for entry in entries:
        k = key(entry)
        what = entry.get("notes") or ("this software" if entry is software else "")
        topic = what.split(" (")[0].split(";")[0]
        out += [f"({k})=", f"## {short_name(entry)} — {topic}" if topic else f"## {short_name(entry)}",
                ""]
        if what:
            out += [f"Used for: {what}. BibTeX key: `{k}`.", ""]
        out += [_plain(entry), "", "```bibtex", bibtex(entry), "```", ""]
    return "\n".join(out).rstrip() + "\n"


def write(page: Path = PAGE) -> Path:
    """Write :func:`render` to ``page`` when it differs (keeps the file's time otherwise)."""
    text = render()
    if not page.exists() or page.read_text() != text:
        page.write_text(text)
    return page


if __name__ == "__main__":
    print(write())
