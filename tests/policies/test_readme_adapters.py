"""README's Python snippets run as written: the surprise-SVD audit (needs ML-100K) and the six audits."""
import re
from pathlib import Path

import pytest

from tests.conftest import require_data

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(needle: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if needle in b]
    assert len(found) == 1, f"expected one README python block with {needle!r}"
    return found[0]


@pytest.mark.slow
@pytest.mark.data
def test_readme_surprise_snippet_runs_as_written(monkeypatch, capsys):
    pytest.importorskip("surprise")
    root = require_data("ml-100k").parent
    monkeypatch.setenv("OCEF_DATA_DIR", str(root))
    code = readme_block("policy_from_surprise(")
    user_lines = code.split("# your recommender\n", 1)[1].strip().splitlines()
    assert len(user_lines) <= 4                       # 3 lines of audit + the print
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    report = namespace["report"]
    assert set(report.groups["name"]) == {"F", "M"}
    assert set(report.groups["verdict"]) <= {"envy", "no_envy"}
    assert "verdict" in capsys.readouterr().out


def test_every_other_readme_snippet_runs_as_written(capsys):
    # the six "audits in a few lines" of README: each runs on its own, on synthetic data
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    blocks = [b for b in blocks if "policy_from_surprise(" not in b]
    assert len(blocks) >= 6
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "envy" in out and "penalty" in out and "distinguishable from noise" in out
