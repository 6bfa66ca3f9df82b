"""docs/check_links.py, the internal link check of the built site, finds broken links."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
import check_links  # noqa: E402


def test_broken_files_and_anchors_are_found(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="a.html#there">ok</a><a href="a.html#nowhere">bad anchor</a><a href="b.html">no file</a>'
        '<a href="https://example.org/x">external</a><a href="#top">self</a><p id="top"></p>')
    (tmp_path / "a.html").write_text('<h1 id="there">A</h1><a href="index.html">back</a>')
    assert sorted(check_links.broken_links(tmp_path)) == ["index.html: a.html#nowhere (no anchor)",
                                                          "index.html: b.html (no file)"]
    assert check_links.main(["x", str(tmp_path)]) == 1
    (tmp_path / "index.html").write_text('<a href="a.html#there">ok</a>')
    assert check_links.main(["x", str(tmp_path)]) == 0
