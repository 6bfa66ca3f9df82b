"""CLI: --scores/--policy/--k inputs of envy and audit; audit-live and simulate-service errors."""
import json
import socket

import numpy as np
import pytest

from ocef.cli import main
from ocef.policies import softmax_policy, topk_ranking_policy


@pytest.fixture
def arrays(tmp_path):
    rng = np.random.default_rng(1)
    rho = rng.random((12, 6))
    scores = rng.normal(size=(12, 6))
    labels = np.repeat([0, 1, 2], 4)
    np.save(tmp_path / "rho.npy", rho)
    np.save(tmp_path / "scores.npy", scores)
    np.save(tmp_path / "groups.npy", labels)
    return tmp_path, rho, scores, labels


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("policy, extra, build", [
    ("softmax", ["--beta", "2.5"], lambda s: softmax_policy(s, 2.5).probs),
    ("ranking", ["--k", "3"], lambda s: topk_ranking_policy(s, k=3).probs),
])
def test_envy_from_scores_equals_envy_from_the_policy_built_by_hand(arrays, capsys, policy, extra, build):
    d, rho, scores, _ = arrays
    np.save(d / "probs.npy", build(scores))
    common = ["envy", "--rho", str(d / "rho.npy"), "--groups", str(d / "groups.npy"), "--json"]
    by_scores = _json(capsys, common + ["--scores", str(d / "scores.npy"), "--policy", policy, *extra])
    by_hand = _json(capsys, common + ["--policy-probs", str(d / "probs.npy")])
    by_scores.pop("source"), by_hand.pop("source")
    assert by_scores == by_hand


def test_audit_from_scores(arrays, capsys):
    d, *_ = arrays
    out = _json(capsys, ["audit", "--rho", str(d / "rho.npy"), "--scores", str(d / "scores.npy"), "--groups",
                         str(d / "groups.npy"), "--policy", "argmax", "--max-steps", "50", "--json"])
    assert len(out["groups"]) == 3 and "argmax policy on the scores" in out["source"]


@pytest.mark.parametrize("extra, match", [
    (["--policy-probs", "X"], "either --policy-probs or --scores"),
    (["--policy", "parity"], "parity and equity need item categories"),
    (["--beta", "0"], "beta"),
])
def test_scores_errors(arrays, capsys, extra, match):
    d, *_ = arrays
    argv = ["envy", "--rho", str(d / "rho.npy"), "--scores", str(d / "scores.npy")]
    argv += [str(d / "rho.npy") if v == "X" else v for v in extra]
    assert main(argv) == 2
    assert match in capsys.readouterr().err


def test_scores_shape_must_match_rho(arrays, capsys):
    d, *_ = arrays
    np.save(d / "small.npy", np.zeros((3, 3)))
    assert main(["envy", "--rho", str(d / "rho.npy"), "--scores", str(d / "small.npy")]) == 2
    assert "--scores must have the shape of --rho" in capsys.readouterr().err


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_audit_live_errors_are_one_line(capsys, tmp_path):
    assert main(["audit-live", "--url", "localhost:1"]) == 2
    assert "--url must look like http://" in capsys.readouterr().err
    assert main(["audit-live", "--url", f"http://127.0.0.1:{_free_port()}", "--retries", "1",
                 "--backoff", "0", "--checkpoint", str(tmp_path / "c.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "failed after 2 attempts" in err and "resume" in err
    assert main(["audit-live", "--url", "http://127.0.0.1:1", "--alpha", "2"]) == 2
    assert "alpha" in capsys.readouterr().err


def test_simulate_service_errors(arrays, capsys):
    d, *_ = arrays
    assert main(["simulate-service", "--rho", str(d / "rho.npy"), "--scores", str(d / "scores.npy"),
                 "--groups", str(d / "groups.npy"), "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err
    assert main(["simulate-service", "--rho", str(d / "rho.npy"), "--scores", str(d / "scores.npy"),
                 "--port", "0"]) == 2
    assert "--groups" in capsys.readouterr().err
    assert main(["simulate-service", "--dataset", "synthetic", "--rho", str(d / "rho.npy"), "--port", "0"]) == 2
    assert "not both" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["envy", "audit"])
def test_the_list_length_is_spelled_k_in_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())      # help lines are wrapped
    assert "--k K length of the ranking policy" in text and "ranking with --k" in text
    assert "--top-k" not in text
