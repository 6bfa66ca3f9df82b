"""The one progress bar (issue 28): shown on stderr when forced or when stderr is a terminal, never on
stdout (``--json`` stays one JSON object), and results are the same with and without it."""
from __future__ import annotations

import io
import json
import sys

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef._progress import PROGRESS, progress_bar, progress_iter, shown
from ocef.errors import ParameterError


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_shown_follows_the_flag_and_the_terminal(monkeypatch):
    assert shown(True) and not shown(False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not shown("auto")
    monkeypatch.setattr(sys, "stderr", _Tty())
    assert shown("auto")
    with pytest.raises(ParameterError, match="progress"):
        shown("always")
    assert PROGRESS.check("progress", "auto") == "auto" and PROGRESS.check("progress", True) is True


def test_bar_goes_to_stderr_only_when_shown(capsys):
    with progress_bar(False, total=3, desc="steps-off") as bar:
        bar.update(3)
    assert list(progress_iter([1, 2], False, desc="x")) == [1, 2]
    with progress_bar(True, total=3, desc="steps-on") as bar:
        bar.update(3)
    out, err = capsys.readouterr()
    assert out == "" and "steps-on" in err and "steps-off" not in err


def _same(a, b):
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_recommender_bias_bar_below_the_chunk_and_same_result(capsys):
    from ocef.metrics import recommender_bias

    rng = np.random.default_rng(0)
    scores, groups = rng.random((60, 8)), np.repeat(["a", "b"], 30)
    off = recommender_bias(scores, groups=groups, k=2, n_resamples=300, rng=1)
    assert capsys.readouterr().err == ""
    on = recommender_bias(scores, groups=groups, k=2, n_resamples=300, rng=1, progress=True)
    assert "bootstrap resamples" in capsys.readouterr().err
    _same(off.table, on.table)


def test_pairwise_bar_and_same_result(capsys):
    from ocef.datasets import make_toy_pairs
    from ocef.pairwise import pairwise_accuracy

    pairs = make_toy_pairs()
    off = pairwise_accuracy(pairs, interval="percentile", n_resamples=400, rng=2)
    on = pairwise_accuracy(pairs, interval="percentile", n_resamples=400, rng=2, progress=True)
    assert "bootstrap resamples" in capsys.readouterr().err
    _same(off.cells, on.cells)


@pytest.mark.parametrize("resample", ["counts", "rows"])
def test_reo_bootstrap_bar_and_same_result(capsys, resample):
    from ocef.reo import ab_test, estimate_reo

    g = np.random.default_rng(5)
    d = pd.DataFrame({"Y": (g.random(400) < 0.3).astype(int), "S": g.integers(0, 2, 400)})
    r = pd.DataFrame({"Y": (g.random(400) < 0.3).astype(int), "S": g.integers(0, 2, 400)})
    kw = dict(interval="percentile", n_resamples=60, rng=3, resample=resample, backend="pandas")
    off, on = estimate_reo(d, r, **kw), estimate_reo(d, r, progress=True, **kw)
    assert "bootstrap resamples" in capsys.readouterr().err
    assert off.penalty_ci == on.penalty_ci
    if resample == "counts":
        kw = dict(interval="percentile", n_resamples=60, rng=3, backend="pandas")
        a, b = ab_test(d, d, r, **kw), ab_test(d, d, r, progress=True, **kw)
        assert "bootstrap resamples" in capsys.readouterr().err
        _same(a.to_frame(), b.to_frame())


def test_offpolicy_bar_and_same_result(capsys):
    from ocef.offpolicy import offpolicy_audit

    log = pd.DataFrame({"user": np.arange(40) % 10, "item": [0, 1] * 20, "reward": [1, 0, 1, 1, 0] * 8,
                        "propensity": 0.5, "g": ["a", "a", "b", "b"] * 10})
    target = pd.DataFrame({"item": [0, 1], "probability": [0.7, 0.3]})
    off = offpolicy_audit(log, target, user_group="g", interval="bootstrap", rng=1)
    on = offpolicy_audit(log, target, user_group="g", interval="bootstrap", rng=1, progress=True)
    assert "off-policy cells" in capsys.readouterr().err
    _same(off.groups, on.groups)


def test_envy_and_exposure_bars(capsys):
    from ocef.envy.exact import envy_report
    from ocef.exposure import exposure_fairness

    rho = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5], [0.3, 0.7]])
    probs = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    off = envy_report(rho, probs, [0, 0, 1, 1])
    on = envy_report(rho, probs, [0, 0, 1, 1], progress=True)
    assert "envy" in capsys.readouterr().err
    _same(off.groups, on.groups)
    log = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 20, 20, 10], "rank": [1, 2, 1, 2],
                        "genre": ["a", "b", "b", "a"]})
    a, b = exposure_fairness(log, item_group="genre"), exposure_fairness(log, item_group="genre", progress=True)
    assert "exposure" in capsys.readouterr().err
    _same(a.groups, b.groups)


def test_fairrec_training_bar(capsys):
    from ocef.fairrec.models import LogisticMF

    g = np.random.default_rng(0)
    train = pd.DataFrame({"user": g.integers(0, 5, 60), "item": g.integers(0, 7, 60), "label": g.integers(0, 2, 60)})
    m = LogisticMF(n_factors=2, epochs=3)
    m.n_users, m.n_items = 5, 7
    if not hasattr(m, "_init"):
        pytest.skip("LogisticMF has no _init")
    try:
        off = m._train(train, 0)
        on = m._train(train, 0, progress=True)
    except AttributeError as exc:                 # the set-up needs a split
        pytest.skip(f"LogisticMF needs a split to train: {exc}")
    assert "training logmf" in capsys.readouterr().err
    for k in off:
        np.testing.assert_array_equal(off[k], on[k])


def test_cli_forced_bar_on_stderr_never_in_json_stdout(tmp_path, capsys):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "s.npy", rng.random((40, 6)))
    np.save(tmp_path / "g.npy", np.repeat([0, 1], 20))
    argv = ["recmetrics", "--scores", str(tmp_path / "s.npy"), "--groups", str(tmp_path / "g.npy"), "--k", "2",
            "--json"]
    assert cli.main(argv + ["--progress"]) == 0
    out, err = capsys.readouterr()
    assert "bootstrap resamples" in err and "bootstrap resamples" not in out and "\r" not in out
    forced = json.loads(out)
    assert cli.main(argv) == 0                    # stderr is not a terminal here: no bar by default
    out, err = capsys.readouterr()
    assert "bootstrap resamples" not in err
    assert json.loads(out) == forced              # the same answer with and without the bar
    assert cli.main(argv + ["--no-progress"]) == 0 and "bootstrap" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["recmetrics", "pairwise", "reo", "reo-ab", "offpolicy", "envy", "fairrec",
                                     "exposure", "mitigate", "audit", "bandit", "audit-live", "reproduce"])
def test_every_long_command_has_the_progress_options(capsys, command):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    assert "--progress" in out and "--no-progress" in out
