"""A small deterministic sample of the fuzz campaign (benchmarks/fuzz_campaign.py, issue 23): no
traceback, no silent answer, no hang, no crash, no valid input refused. The whole campaign (4,635
cases) runs outside the suite."""
import subprocess
import sys
from pathlib import Path

import pytest

CAMPAIGN = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_campaign.py"


@pytest.mark.slow
def test_a_sample_of_the_fuzz_campaign_has_no_traceback_silent_answer_or_hang():
    # in a fresh interpreter: the campaign forks a child per case, and a pytest worker that already ran
    # numba's parallel (GNU OpenMP) threads would make every forked child that uses them abort
    run = subprocess.run([sys.executable, str(CAMPAIGN), "--sample", "60", "--timeout", "60", "--seed", "1"],
                         capture_output=True, text=True, timeout=900)
    out = run.stdout
    total = next(line for line in out.splitlines() if line.startswith("TOTAL"))
    assert run.returncode == 0, out[-3000:] + run.stderr[-2000:]
    assert int(total.split()[-1]) == 60
