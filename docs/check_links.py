"""Check every internal link of the built site: each relative ``href``/``src`` of every HTML page
must point to a file of the build, and each ``#anchor`` to an ``id`` of its page. External links
(http, https, mailto) are not fetched: CI runs without network.

Usage: ``python docs/check_links.py docs/_build/html`` (exit status 1 and one line per broken link).
"""
from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(root: Path) -> list[str]:
    root = root.resolve()
    # _static holds the theme's templates, not pages
    pages = {p: _parse(p) for p in root.rglob("*.html") if "_static" not in p.relative_to(root).parts}
    bad = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                bad.append(f"{path.relative_to(root)}: {link} (no file)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    bad.append(f"{path.relative_to(root)}: {link} (no anchor)")
    return bad


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "docs/_build/html")
    if not (root / "index.html").exists():
        print(f"no built site at {root}", file=sys.stderr)
        return 2
    bad = broken_links(root)
    for line in bad:
        print(line)
    n_pages = sum(1 for p in root.rglob("*.html") if "_static" not in p.relative_to(root).parts)
    print(f"{len(bad)} broken internal links in {n_pages} pages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
