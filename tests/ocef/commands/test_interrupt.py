"""Ctrl-C during a long compiled simulation: one line, exit status 130, promptly, no traceback."""
import signal
import subprocess
import sys
import time

import pytest


@pytest.mark.slow
def test_ctrl_c_stops_a_long_numba_run_with_one_line():
    # ~10^5 runs of a near-tie bandit: minutes of compiled work, so the interrupt lands inside it
    cmd = [sys.executable, "-m", "ocef.cli", "bandit", "--means", "0.6,0.59,0.58", "--trials", "100000",
           "--engine", "numba", "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6.0)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    try:
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    waited = time.perf_counter() - sent
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == "ocef bandit: interrupted", err
    assert out == ""
    assert waited < 15, f"took {waited:.1f} s to stop"
