import json
import re

import pytest

from ocef.cli import main


def test_bandit_json(capsys):
    assert main(["bandit", "--means", "0.3,0.9", "--alpha", "0.5", "--trials", "5", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"verdicts", "duration_mean", "cost_mean", "runs"}
    assert out["verdicts"] == {"envy": 5, "no_envy": 0, "timeout": 0}
    assert len(out["runs"]) == 5 and set(out["runs"][0]) == {"verdict", "duration", "cost"}
    assert out["duration_mean"] == pytest.approx(sum(r["duration"] for r in out["runs"]) / 5)
    assert out["cost_mean"] < 0                       # exploring the better arm gains reward


def test_bandit_ask_tell_engine_and_text(capsys):
    assert main(["bandit", "--instance", "3", "--n-arms", "2", "--alpha", "0.5", "--trials", "3",
                 "--engine", "ask-tell"]) == 0
    assert "verdicts" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["--means", "0.5,1.5"], r"\[0, 1\]"),
    (["--means", "0.5,abc"], "--means"),
    (["--means", "0.5,0.4", "--delta", "1.0"], "delta"),
    (["--means", "0.5,0.4", "--alpha", "0"], "alpha"),
])
def test_bandit_bad_input_exits_2(argv, match, capsys):
    assert main(["bandit", *argv, "--trials", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ocef bandit: error:") and re.search(match, err), err
