import json

import numpy as np
import pytest

from ocef.cli import main


def _write_instance(tmp_path, groups=None):
    """Known envy: 4 groups of 6; groups 0-2 see their favourite item, group 3 envies group 1."""
    from tests.ocef.envy.test_live import known_envy_arrays

    rho, probs, labels = known_envy_arrays(5, groups)
    np.save(tmp_path / "rho.npy", rho)
    np.savetxt(tmp_path / "probs.csv", probs, delimiter=",")
    np.save(tmp_path / "groups.npy", labels)
    return rho, probs, labels


def _independent_group_envy(rho, probs, labels):
    """Group envy with one-hot policies, by plain loops: groups with identical policies
    inside make transported policies trivial (every user of g_k shows the same item)."""
    G = labels.max() + 1
    env = []
    for i in range(G):
        users = np.flatnonzero(labels == i)
        own = np.mean([rho[m] @ probs[m] for m in users])
        best = max(np.mean([rho[m] @ probs[np.flatnonzero(labels == k)[0]] for m in users]) for k in range(G))
        env.append(max(best - own, 0.0))
    return np.array(env)


def test_audit_on_arrays_matches_exact_envy(tmp_path, capsys):
    rho, probs, labels = _write_instance(tmp_path)
    argv = ["audit", "--rho", str(tmp_path / "rho.npy"), "--policy-probs", str(tmp_path / "probs.csv"),
            "--groups", str(tmp_path / "groups.npy"), "--alpha", "0.2", "--trials", "3", "--seed", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    truth = _independent_group_envy(rho, probs, labels)
    assert truth[3] > 0.2 and np.all(truth[:3] == 0)
    assert len(out["groups"]) == 4 * 3 and {"trial", "group", "verdict", "true_envy"} <= set(out["groups"][0])
    for row in out["groups"]:
        assert row["true_envy"] == pytest.approx(truth[row["group"]])
        assert row["verdict"] == ("envy" if truth[row["group"]] > 0.05 else "no_envy")
    assert out["share_timeout"] == 0 and out["constraint_held"] is True


def test_audit_text_output_and_csv(tmp_path, capsys):
    _write_instance(tmp_path)
    assert main(["audit", "--rho", str(tmp_path / "rho.npy"), "--policy-probs", str(tmp_path / "probs.csv"),
                 "--groups", str(tmp_path / "groups.npy"), "--alpha", "0.5", "--out", str(tmp_path / "a.csv"),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "verdicts:" in text and "no_envy" in text
    assert (tmp_path / "a.csv").read_text().startswith("alpha,delta,epsilon,trial,group")


@pytest.mark.parametrize("mutate, extra, match", [
    ("single", [], "at least 2 groups"),
    ("gap", [], "label|empty|non-empty"),
    ("shape", [], "same shape"),
    (None, ["--alpha", "0"], "alpha"),
    (None, ["--delta", "1"], "delta"),
    (None, ["--epsilon", "2"], "epsilon"),
])
def test_audit_bad_input(tmp_path, capsys, mutate, extra, match):
    _write_instance(tmp_path)
    if mutate == "single":
        np.save(tmp_path / "groups.npy", np.zeros(24, dtype=int))
    elif mutate == "gap":
        np.save(tmp_path / "groups.npy", np.repeat([0, 1, 3, 4], 6))
    elif mutate == "shape":
        np.save(tmp_path / "rho.npy", np.full((24, 4), 0.5))
    argv = ["audit", "--rho", str(tmp_path / "rho.npy"), "--policy-probs", str(tmp_path / "probs.csv"),
            "--groups", str(tmp_path / "groups.npy"), "--json", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ocef audit: error:")
    import re
    assert re.search(match, err), err
