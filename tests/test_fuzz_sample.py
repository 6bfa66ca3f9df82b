"""A small deterministic sample of the fuzz campaign (benchmarks/fuzz_campaign.py, issue 23): no
traceback, no silent answer, no hang. The whole campaign (2,400 cases) runs outside the suite."""
import importlib.util
import sys
from pathlib import Path

import pytest

CAMPAIGN = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_campaign.py"


@pytest.mark.slow
def test_a_sample_of_the_fuzz_campaign_has_no_traceback_silent_answer_or_hang(capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("fuzz_campaign", CAMPAIGN)
    campaign = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fuzz_campaign", campaign)      # dataclasses look the module up
    spec.loader.exec_module(campaign)
    code = campaign.main(["--sample", "60", "--timeout", "60", "--seed", "1"])
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("TOTAL"))
    assert code == 0, out[-3000:]
    assert int(total.split()[-1]) == 60
