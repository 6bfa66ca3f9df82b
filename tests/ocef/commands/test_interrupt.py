"""Ctrl-C: one line, exit status 130, promptly, no traceback — even where Python swallows it."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest


def _default_sigint() -> None:
    # A shell without job control starts background jobs with SIGINT ignored, and Python keeps
    # it ignored: give the child the terminal's default, whatever launched the tests.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# What a shell reports as exit status 130. The `ocef` script exits with 130. Under `python -m`,
# CPython (3.8+) ends the process by re-raising SIGINT (-2) when a KeyboardInterrupt, even one
# caught later, left code run by exec() of a string; numba's compiler runs such code.
INTERRUPTED = (130, -signal.SIGINT)

# A KeyboardInterrupt raised inside a ctypes callback is reported as "Exception ignored" and
# dropped; numba's first compilation runs such callbacks (llvmlite's object cache) for seconds.
_SWALLOWED = textwrap.dedent("""
    import contextlib, ctypes, sys, time
    from ocef.cli import keep_interrupts

    def callback():
        raise {exc}

    guard = keep_interrupts() if sys.argv[1] == "guarded" else contextlib.nullcontext()
    with guard:
        try:
            ctypes.CFUNCTYPE(None)(callback)()
            start = time.perf_counter()
            while time.perf_counter() - start < float(sys.argv[2]):
                pass
            print("went on")
        except KeyboardInterrupt:
            print("interrupted after", round(time.perf_counter() - start, 3))
""")


def _run_swallowed(mode: str, wait: float, exc: str = "KeyboardInterrupt") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _SWALLOWED.format(exc=exc), mode, str(wait)],
                          capture_output=True, text=True, timeout=60,
                          preexec_fn=_default_sigint)


def test_an_interrupt_swallowed_by_a_ctypes_callback_is_raised_again():
    proc = _run_swallowed("guarded", wait=10.0)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("interrupted after"), proc.stdout
    assert float(proc.stdout.split()[-1]) < 2.0          # re-sent after 10 ms, not at the end of the work
    assert proc.stderr == ""                             # no "Exception ignored" report either


_SLOW_HOOK = textwrap.dedent("""
    import ctypes, time
    import ocef.cli as cli
    from ocef.cli import keep_interrupts

    arm = cli._Interrupts.arm
    def slow_arm(self):  # a loaded machine: the first re-send (10 ms) lands while the hook still runs
        arm(self)
        time.sleep(0.1)
    cli._Interrupts.arm = slow_arm

    def callback():
        raise KeyboardInterrupt

    with keep_interrupts():
        try:
            ctypes.CFUNCTYPE(None)(callback)()
            start = time.perf_counter()
            while time.perf_counter() - start < 10:
                pass
            print("went on")
        except KeyboardInterrupt:
            print("interrupted after", round(time.perf_counter() - start, 3))
""")


def test_a_resent_interrupt_that_lands_in_the_hook_is_sent_again():
    proc = subprocess.run([sys.executable, "-c", _SLOW_HOOK], capture_output=True, text=True, timeout=60,
                          preexec_fn=_default_sigint)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("interrupted after"), proc.stdout
    assert float(proc.stdout.split()[-1]) < 2.0
    assert proc.stderr == ""


def test_an_ignored_sigint_stays_ignored():
    # Started with SIGINT ignored (a background job), the guard installs nothing.
    script = ("import signal; from ocef.cli import keep_interrupts\n"
              "with keep_interrupts():\n"
              "    print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.stdout.strip() == "True", proc.stderr


def test_without_the_guard_python_drops_the_interrupt():
    # The control: what the guard is for. Python reports the interrupt and goes on.
    proc = _run_swallowed("bare", wait=0.3)
    assert proc.stdout.strip() == "went on"
    assert "Exception ignored" in proc.stderr and "KeyboardInterrupt" in proc.stderr


def test_the_guard_leaves_other_swallowed_errors_to_python():
    proc = _run_swallowed("guarded", wait=0.3, exc="ValueError('kept as before')")
    assert proc.stdout.strip() == "went on"
    assert "Exception ignored" in proc.stderr and "ValueError: kept as before" in proc.stderr


_ERROR_AFTER = textwrap.dedent("""
    import ctypes, sys, time
    from ocef.cli import keep_interrupts

    def callback():
        raise KeyboardInterrupt

    try:
        with keep_interrupts():
            ctypes.CFUNCTYPE(None)(callback)()
            raise RuntimeError("no compiled object yet")  # numba, its cache callback cut short
    except KeyboardInterrupt as exc:
        print("interrupted, from", repr(exc.__cause__))
    assert sys.unraisablehook is sys.__unraisablehook__
    time.sleep(0.3)                                       # nothing arrives after the block
    print("done")
""")


def test_an_error_that_follows_a_swallowed_interrupt_is_the_interrupt():
    proc = subprocess.run([sys.executable, "-c", _ERROR_AFTER], capture_output=True, text=True, timeout=60,
                          preexec_fn=_default_sigint)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["interrupted, from RuntimeError('no compiled object yet')", "done"]
    assert proc.stderr == ""


def test_errors_without_an_interrupt_pass_through_the_guard():
    from ocef.cli import keep_interrupts

    previous = sys.unraisablehook
    with pytest.raises(RuntimeError, match="unrelated"):
        with keep_interrupts():
            raise RuntimeError("unrelated")
    assert sys.unraisablehook is previous


def _interrupt_bandit(after: float, env: dict | None = None) -> tuple[subprocess.Popen, str, str, float]:
    # ~10^5 runs of a near-tie bandit: minutes of compiled work, so the interrupt lands inside it
    cmd = [sys.executable, "-m", "ocef.cli", "bandit", "--means", "0.6,0.59,0.58", "--trials", "100000",
           "--engine", "numba", "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_default_sigint)
    time.sleep(after)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    try:
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    return proc, out, err, time.perf_counter() - sent


@pytest.mark.slow
def test_ctrl_c_stops_a_long_numba_run_with_one_line():
    proc, out, err, waited = _interrupt_bandit(after=6.0)
    assert proc.returncode in INTERRUPTED, (proc.returncode, err)
    assert err.strip() == "ocef bandit: interrupted", err
    assert out == ""
    assert waited < 15, f"took {waited:.1f} s to stop"


@pytest.mark.slow
def test_ctrl_c_during_the_first_compilation_stops_the_run(tmp_path):
    # An empty numba cache: the kernels compile for several seconds, and the interrupt lands there,
    # at times inside llvmlite's object-cache callback: unguarded, such a run went on for minutes or
    # ended in a RuntimeError traceback from the half-done compilation.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc, out, err, waited = _interrupt_bandit(after=3.0, env=env)
    assert proc.returncode in INTERRUPTED, (proc.returncode, err)
    assert err.strip() == "ocef bandit: interrupted", err
    assert out == ""
    assert waited < 15, f"took {waited:.1f} s to stop"
