"""The README's surprise-SVD audit runs as written (needs ML-100K)."""
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
