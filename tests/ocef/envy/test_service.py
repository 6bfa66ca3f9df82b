"""The simulated service over HTTP (127.0.0.1 only): equality with the in-process audit,
retries, errors, and an audit SIGKILLed midway that resumes from its checkpoint."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from ocef.envy.audit import run_audit
from ocef.envy.live import ask_tell_audit, audit_live
from ocef.envy.service import ServiceClient, ServiceError, SimulatedService, make_server
from tests.ocef.envy.test_live import COLUMNS, PARAMS, small_problem


@pytest.fixture(scope="module")
def problem():
    return small_problem()


def _serve(problem, **kw):
    service = SimulatedService(lambda p: problem, ["groups"], rng=3, description="small", rho=problem.rho,
                               probs=problem.probs, **kw)
    server = make_server(service, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def url(problem):
    server, url = _serve(problem)
    yield url
    server.shutdown()
    server.server_close()


def _remote_audit(url, **kw):
    client = ServiceClient(url, backoff=0.001)
    groups, truth = client.groups(), client.truth()["arm_means"]
    res = audit_live(client.puller(), groups["n_groups"], groups["sizes"], rng=3, group_names=groups["names"],
                     true_means=truth, **PARAMS, **kw)
    client.close()
    return res, client


def test_http_audit_equals_the_in_process_audits(problem, url):
    remote, _ = _remote_audit(url)
    local = ask_tell_audit(problem, rng=3, **PARAMS)
    pd.testing.assert_frame_equal(remote.groups, local.groups)
    report = run_audit(problem, engine="ask-tell", rng=3, alpha=0.5, max_steps=1500)
    pd.testing.assert_frame_equal(remote.groups[COLUMNS], report.groups[COLUMNS], check_dtype=False)


def test_transient_failures_are_retried_without_changing_the_result(problem):
    server, url = _serve(problem, fail_every=3)
    try:
        remote, client = _remote_audit(url)
    finally:
        server.shutdown()
        server.server_close()
    assert client.n_retries > 10
    pd.testing.assert_frame_equal(remote.groups, ask_tell_audit(problem, rng=3, **PARAMS).groups)


def test_endpoints_and_errors(problem, url):
    assert url.startswith("http://127.0.0.1:")
    server = make_server(SimulatedService(lambda p: problem, ["groups"]), 0)   # binds the loopback address only
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
    client = ServiceClient(url)
    info = client.info()
    assert info["seed"] == 3 and info["partitions"] == ["groups"]
    rec = client.request("GET", "/recommend?user=19&k=2")
    assert rec["items"][0] == 4 and rec["probs"][0] == 1.0           # group 3 is shown item 4
    fb = client.request("POST", "/feedback", {"user": 0, "items": [0, 1], "key": 5})
    assert fb == client.request("POST", "/feedback", {"user": 0, "items": [0, 1], "key": 5})
    assert set(fb["rewards"]) <= {0, 1}
    with pytest.raises(ValueError, match="partition"):
        client.groups("age")
    with pytest.raises(ValueError, match="group must be in"):
        client.request("POST", "/pull", {"pulls": [[7, 0, 0]]})
    with pytest.raises(ValueError, match="integers"):
        client.request("POST", "/pull", {"pulls": [[0, 0.5, 0]]})
    with pytest.raises(ValueError, match="unknown path"):
        client.request("GET", "/nothing")
    with pytest.raises(ValueError, match="user"):
        client.request("GET", "/recommend?user=99")
    client.close()


def test_unreachable_service_is_a_service_error_after_the_retries():
    import socket

    with socket.socket() as s:                # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = ServiceClient(f"http://127.0.0.1:{port}", retries=2, backoff=0.001)
    with pytest.raises(ServiceError, match="3 attempts"):
        client.info()
    assert client.n_retries == 2
    with pytest.raises(ValueError, match="--url"):
        ServiceClient("127.0.0.1:80")


def test_an_error_answer_that_is_not_a_json_object_is_a_value_error():
    # a server that is not ours (audit-live --url pointing elsewhere) may answer an error with any
    # JSON; a list used to end in AttributeError ('list' object has no attribute 'get'), a traceback
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Other(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b'["no such page"]'
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = ServiceClient(f"http://127.0.0.1:{server.server_address[1]}", retries=0)
    try:
        with pytest.raises(ValueError, match=r"HTTP 404: \['no such page'\]"):
            client.info()
    finally:
        client.close()
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------- processes
def _ocef(*args):
    return [sys.executable, "-c", "import sys; from ocef.cli import main; sys.exit(main())", *args]


def _write_arrays(problem, tmp_path):
    np.save(tmp_path / "rho.npy", problem.rho)
    np.save(tmp_path / "probs.npy", problem.probs)
    np.save(tmp_path / "groups.npy", problem.labels)
    return ["--rho", str(tmp_path / "rho.npy"), "--policy-probs", str(tmp_path / "probs.npy"),
            "--groups", str(tmp_path / "groups.npy")]


@pytest.mark.slow
def test_audit_killed_midway_resumes_to_the_uninterrupted_report(problem, tmp_path):
    inputs = _write_arrays(problem, tmp_path)
    service = subprocess.Popen(_ocef("simulate-service", *inputs, "--port", "0", "--seed", "3"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    audit = None
    try:
        line = service.stdout.readline()                      # "serving ... on http://127.0.0.1:PORT ..."
        url = line.split(" on ")[-1].split()[0]
        assert url.startswith("http://127.0.0.1:"), line
        ck = tmp_path / "audit.ckpt.json"
        cmd = _ocef("audit-live", "--url", url, "--alpha", "0.5", "--max-steps", "1500", "--checkpoint", str(ck),
                    "--every", "10", "--json")
        audit = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and audit.poll() is None:
            if ck.exists() and json.loads(ck.read_text())["step"] >= 100:
                break
            time.sleep(0.02)
        assert audit.poll() is None, "the audit ended before it could be killed"
        os.kill(audit.pid, signal.SIGKILL)
        audit.wait(timeout=10)
        killed_at = json.loads(ck.read_text())["step"]        # the atomic write left a whole file
        assert killed_at >= 100
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        resumed = json.loads(out.stdout)
    finally:
        if audit is not None and audit.poll() is None:
            audit.kill()
        service.terminate()
        service.wait(timeout=10)
    assert resumed["resumed_from"] >= killed_at
    assert resumed["version"] and resumed["seed"] == {"entropy": "3", "spawn_key": [0]}
    assert resumed["checkpoint_steps"][0] == 10 and resumed["wall_time"] > 0
    report = run_audit(problem, engine="ask-tell", rng=3, alpha=0.5, max_steps=1500)
    got = pd.DataFrame(resumed["groups"])
    cols = [c for c in COLUMNS if c != "name"]                # the .npy groups have no names
    pd.testing.assert_frame_equal(got[cols], report.groups[cols], check_dtype=False)


def test_a_client_that_disconnects_prints_no_traceback(problem, capsys):
    """Issue 31: an interrupted `ocef audit-live` left a Python traceback in the service's terminal."""
    import socket

    server, url = _serve(problem)
    try:
        for exc in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "Connection reset by peer")):
            try:
                raise exc
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 5555))
        # a real disconnect: a request whose client is gone before the answer
        port = server.server_address[1]
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.sendall(b"GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
            s.close()                                            # RST: the answer meets a closed socket
        time.sleep(0.3)
        assert ServiceClient(url).info()["seed"] == 3            # still serving
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert "Traceback" not in err and err == ""
    try:
        raise ValueError("a bug")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 5555))           # anything else is still reported
    assert "ValueError: a bug" in capsys.readouterr().err
