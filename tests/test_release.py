"""Release files: ``ocef --version``, LICENSE, CITATION.cff, CHANGELOG (the wheel itself is built
and installed in a fresh virtual environment by .ci/run)."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ocef_version_prints_the_installed_version():
    out = subprocess.run([sys.executable, "-m", "ocef.cli", "--version"], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == f"ocef {version('ocef')}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version("ocef") == project["version"]


def test_license_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_citation_has_the_software_and_the_five_papers():
    text = (ROOT / "CITATION.cff").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert re.search(rf"^version: {re.escape(project['version'])}$", text, re.M)
    titles = re.findall(r"^  - type: .*\n    title: \"(.*)\"", text, re.M)
    assert len(titles) == 5, titles
    for words in ("Online Certification of Preference-Based Fairness", "Missing Labels", "FairRec",
                  "Pairwise Comparisons", "holisticai"):
        assert any(words in t for t in titles), words


def test_changelog_names_this_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"## {project['version']}" in (ROOT / "CHANGELOG.md").read_text()
