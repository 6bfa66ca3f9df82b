"""Tests of the ``ocef reo`` and ``ocef reo-ab`` commands, incl. an independent computation on
the real Coat and OBD rows."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from tests.conftest import require_data


def run_json(capsys, *argv) -> dict:
    assert cli.main(list(argv) + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def run_error(capsys, *argv) -> str:
    assert cli.main(list(argv)) == 2
    return capsys.readouterr().err


def independent_reo(y_def, s_def, y_rand, s_rand, groups, z=1.959963984540054):
    """Eq. (5)-(7) and Algorithm 1 written out group by group, with explicit matrices."""
    K = len(groups)
    nd, nr = len(y_def), len(y_rand)
    P = np.array([np.sum((y_rand == 1) & (s_rand == g)) / nr for g in groups])
    Q = np.array([np.sum((y_def == 1) & (s_def == g)) / nd for g in groups])
    U = Q / P
    mean = sum(U) / K
    dU = U / mean - 1
    pen = np.sqrt(sum((u - mean) ** 2 for u in U) / K) / mean
    Gamma = np.diag([U[k] ** 2 * ((1 - Q[k]) / Q[k] / nd + (1 - P[k]) / P[k] / nr) for k in range(K)])
    S = sum(U)
    G = np.array([[K * ((j == k) * S - U[k]) / S ** 2 for k in range(K)] for j in range(K)])
    H = dU / (K * pen)
    Sigma = G.T @ Gamma @ G
    Xi = H @ Sigma @ H
    se = np.sqrt(np.diag(Sigma))
    return dict(P=P, Q=Q, U=U, delta_U=dU, se=se, ci_low=dU - z * se, ci_high=dU + z * se,
                penalty=pen, penalty_se=np.sqrt(Xi), penalty_ci=[pen - z * np.sqrt(Xi), pen + z * np.sqrt(Xi)],
                n_default=nd, n_random=nr)


def check_against(out: dict, ref: dict, groups) -> None:
    assert [g["group"] for g in out["groups"]] == list(groups)
    for key in ("P", "Q", "U", "delta_U", "se", "ci_low", "ci_high"):
        np.testing.assert_allclose([g[key] for g in out["groups"]], ref[key], rtol=1e-10, err_msg=key)
    for key in ("penalty", "penalty_se"):
        assert out[key] == pytest.approx(ref[key], rel=1e-10)
    np.testing.assert_allclose(out["penalty_ci"], ref["penalty_ci"], rtol=1e-10)
    assert out["n_default"] == ref["n_default"] and out["n_random"] == ref["n_random"]


@pytest.mark.data
def test_cli_coat_matches_independent_computation(capsys):
    root = require_data("coat")
    train = np.loadtxt(root / "train.ascii")
    test = np.loadtxt(root / "test.ascii")
    men = np.loadtxt(root / "user_item_features" / "item_features.ascii")[:, 0] == 1
    gender = np.where(men, "men", "women")

    def rows(m):
        u, i = np.nonzero(m)
        return (m[u, i] >= 4).astype(int), gender[i]

    ref = independent_reo(*rows(train), *rows(test), ["men", "women"])
    out = run_json(capsys, "reo", "--dataset", "coat", "--data-dir", str(root.parent), "--interval", "delta")
    check_against(out, ref, ["men", "women"])
    assert out["threshold_80"] == pytest.approx(1 / 9)
    # human-readable output names both groups and the penalty
    assert cli.main(["reo", "--dataset", "coat"]) == 0
    text = capsys.readouterr().out
    assert "men" in text and "women" in text and "penalty" in text


@pytest.mark.data
def test_cli_obd_matches_independent_computation(capsys, monkeypatch):
    # the delta method's own numbers on small counts (below the floors it is replaced: test_few_positives.py)
    monkeypatch.setattr("ocef.reo.estimators.MIN_POSITIVES_DELTA", 0)
    monkeypatch.setattr("ocef.reo.estimators.MIN_POSITIVES_ANY", 0)
    root = require_data("obd")
    ctx = pd.read_csv(root / "random" / "all" / "item_context.csv")
    f0 = dict(zip(ctx.item_id, ctx.item_feature_0))
    med = np.median(list(f0.values()))
    data = {}
    for policy in ("bts", "random"):
        log = pd.read_csv(root / policy / "all" / "all.csv")
        tier = np.array(["high" if f0[i] > med else "low" for i in log.item_id])
        data[policy] = (log.click.to_numpy(), tier)
    ref = independent_reo(*data["bts"], *data["random"], ["high", "low"])
    out = run_json(capsys, "reo", "--dataset", "obd", "--interval", "delta")
    check_against(out, ref, ["high", "low"])
    assert out["delta_method_reliable"] is False  # 42 and 38 clicks: the interval reaches 0


def write_logs(tmp_path, fmt="csv"):
    rng = np.random.default_rng(0)
    n = 3000
    frames = {}
    for name, rate in (("default", [0.15, 0.08, 0.05]), ("random", [0.05, 0.05, 0.05])):
        s = rng.integers(0, 3, n)
        y1 = (rng.random(n) < np.take(rate, s)).astype(int)
        y2 = (rng.random(n) < 0.02).astype(int)
        frames[name] = pd.DataFrame({"click": y1, "share": y2, "tier": np.array(["a", "b", "c"])[s]})
    paths = {}
    for name, df in frames.items():
        paths[name] = tmp_path / f"{name}.{fmt}"
        df.to_parquet(paths[name]) if fmt == "parquet" else df.to_csv(paths[name], index=False)
    return frames, paths


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_cli_reo_on_files_multi_label(tmp_path, capsys, fmt):
    frames, paths = write_logs(tmp_path, fmt)
    out = run_json(capsys, "reo", "--default", str(paths["default"]), "--random", str(paths["random"]),
                   "--label", "click,share", "--group", "tier", "--confidence", "0.9", "--interval", "delta")
    d, r = frames["default"], frames["random"]
    y = lambda f: ((f.click == 1) | (f.share == 1)).astype(int).to_numpy()  # noqa: E731
    ref = independent_reo(y(d), d.tier.to_numpy(), y(r), r.tier.to_numpy(), ["a", "b", "c"],
                          z=1.6448536269514722)
    check_against(out, ref, ["a", "b", "c"])
    assert out["confidence"] == 0.9 and out["interval"] == "delta"


def test_cli_reo_bootstrap_interval(tmp_path, capsys):
    _, paths = write_logs(tmp_path)
    args = ["reo", "--default", str(paths["default"]), "--random", str(paths["random"]),
            "--label", "click", "--group", "tier", "--interval", "bca", "--resamples", "200", "--seed", "4"]
    a = run_json(capsys, *args)
    b = run_json(capsys, *args)
    assert a == b and a["interval"] == "bca"
    assert a["penalty_ci"][0] < a["penalty"] < a["penalty_ci"][1]


def test_cli_reo_ab(tmp_path, capsys):
    frames, paths = write_logs(tmp_path)
    frames["default"].sample(frac=1.0, random_state=1).to_csv(tmp_path / "t.csv", index=False)
    for method in ("delta", "delta-shared", "partition", "standard"):
        out = run_json(capsys, "reo-ab", "--control", str(paths["default"]), "--treatment", str(tmp_path / "t.csv"),
                       "--random", str(paths["random"]), "--label", "click", "--group", "tier",
                       "--interval", method, "--folds", "3")
        assert {"groups", "D_reo", "D_reo_se", "D_reo_ci", "D_reo_p_value", "n_control", "n_random"} <= set(out)
        assert len(out["groups"]) == 3
        if method != "partition":   # identical arms (rows shuffled): zero difference
            assert out["D_reo"] == pytest.approx(0.0, abs=1e-12)
    assert cli.main(["reo-ab", "--control", str(paths["default"]), "--treatment", str(tmp_path / "t.csv"),
                     "--random", str(paths["random"]), "--label", "click", "--group", "tier"]) == 0
    assert "D_REO" in capsys.readouterr().out


def test_cli_bad_input(tmp_path, capsys):
    frames, paths = write_logs(tmp_path)
    base = ["reo", "--default", str(paths["default"]), "--random", str(paths["random"]), "--group", "tier"]
    assert "missing column(s) ['Y']" in run_error(capsys, *base)
    bad = frames["default"].assign(click=frames["default"].click * 3)
    bad.to_csv(tmp_path / "bad.csv", index=False)
    err = run_error(capsys, "reo", "--default", str(tmp_path / "bad.csv"), "--random", str(paths["random"]),
                    "--label", "click", "--group", "tier")
    assert "must hold only 0 and 1" in err
    frames["random"].iloc[:0].to_csv(tmp_path / "empty.csv", index=False)
    err = run_error(capsys, "reo", "--default", str(paths["default"]), "--random", str(tmp_path / "empty.csv"),
                    "--label", "click", "--group", "tier")
    assert "random log is empty" in err
    r = frames["random"]
    r.assign(click=np.where(r.tier == "c", 0, r.click)).to_csv(tmp_path / "noc.csv", index=False)
    err = run_error(capsys, "reo", "--default", str(paths["default"]), "--random", str(tmp_path / "noc.csv"),
                    "--label", "click", "--group", "tier")
    assert "['c'] have no positive label in the random traffic" in err and "undefined" in err
    assert "log file not found" in run_error(capsys, "reo", "--default", str(tmp_path / "x.csv"),
                                             "--random", str(paths["random"]))
    assert "give --default and --random" in run_error(capsys, "reo", "--default", str(paths["default"]))
    assert "either --dataset" in run_error(capsys, "reo", "--dataset", "coat", "--default", str(paths["default"]))
    assert "confidence must be a real number in" in run_error(capsys, *base, "--label", "click", "--confidence", "1.5")


@pytest.mark.data
def test_cli_plan_random_traffic(capsys):
    require_data("coat")
    out = run_json(capsys, "reo", "--dataset", "coat", "--plan-epsilon", "0.05",
                   "--requests", "1000000", "--k", "10")
    plan = out["plan"]
    from ocef import reo
    P = np.array([g["P"] for g in out["groups"]])
    Q = np.array([g["Q"] for g in out["groups"]])
    assert out["method"] == "delta-full"          # the plan uses the interval of the estimate
    se = float(reo.delta_method_reo(P, Q, out["n_default"], plan["n_random"], covariance="full").se_penalty)
    assert 1.959963984540054 * se <= 0.05 + 1e-12
    assert plan["n_random"] > out["n_random"]       # the current 4,640 rows give +-0.075
    assert plan["p_act"] == pytest.approx(plan["n_random"] / 1e7)
    # even unlimited random traffic cannot reach +-0.02 with 6,960 default rows
    err = run_error(capsys, "reo", "--dataset", "coat", "--plan-epsilon", "0.02")
    assert "n_default=6960 is too small" in err


# ----------------------------------------------------------------------------- engines, monitoring


def strict(text: str) -> dict:
    def refuse(c):
        raise ValueError(f"non-strict JSON constant {c}")
    return json.loads(text, parse_constant=refuse)


def test_cli_engines_agree_and_record_the_method(tmp_path, capsys):
    _, paths = write_logs(tmp_path, "parquet")
    base = ["reo", "--default", str(paths["default"]), "--random", str(paths["random"]), "--label", "click",
            "--group", "tier", "--json"]
    outs = {}
    for engine in ("auto", "duckdb", "pandas"):
        assert cli.main(base + ["--backend", engine]) == 0
        outs[engine] = strict(capsys.readouterr().out)
    assert outs["auto"]["backend"] == "auto" and outs["auto"]["method"] == "delta-full"
    for engine in ("duckdb", "pandas"):
        assert {k: v for k, v in outs[engine].items() if k != "backend"} == \
               {k: v for k, v in outs["auto"].items() if k != "backend"}
    assert "needs --backend spark" in run_error(capsys, *base, "--spark-master", "spark://x:7077")


def test_cli_by_day_and_fail_above(tmp_path, capsys):
    from ocef.reo.simulate import make_traffic_world, stream_traffic

    world = make_traffic_world(300, 80, 2, score_bias=[1.0, 0.0], rng=0)
    logs = stream_traffic(world, tmp_path, n_days=3, requests_per_day=4000, k=5, p_act=0.5, rng=1)
    base = ["reo", "--default", str(logs.default_dir), "--random", str(logs.random_dir)]
    assert logs.truth.penalty > 0.2
    assert cli.main(base + ["--by", "day", "--json"]) == 0
    out = strict(capsys.readouterr().out)
    assert [d["day"] for d in out["days"]] == [0, 1, 2] and out["method"] == "delta-full"
    assert all(d["ci_low"] > 0.111 for d in out["days"]) and len(out["days"][0]["groups"]) == 2
    # significantly above 0.111 on every day: exit 3 (a daily job alerts); not above 0.9: exit 0
    assert cli.main(base + ["--by", "day", "--fail-above", "0.111"]) == 3
    text = capsys.readouterr().out
    assert "ALERT" in text and "day" in text
    assert cli.main(base + ["--fail-above", "0.111", "--json"]) == 3
    out = strict(capsys.readouterr().out)
    assert out["significantly_above"] is True and out["penalty_ci"][0] > 0.111
    assert cli.main(base + ["--fail-above", "0.9"]) == 0
    assert "ALERT" not in capsys.readouterr().out
    assert "--by gives delta-method intervals" in run_error(capsys, *base, "--by", "day", "--interval", "bca")
    assert "drop --by" in run_error(capsys, *base, "--by", "day", "--plan-epsilon", "0.05")


def test_cli_requests_without_plan_epsilon_is_an_error(tmp_path, capsys):
    _, paths = write_logs(tmp_path)
    base = ["reo", "--default", str(paths["default"]), "--random", str(paths["random"]), "--label", "click",
            "--group", "tier"]
    assert "give --plan-epsilon" in run_error(capsys, *base, "--requests", "1000")
    assert "give --plan-epsilon" in run_error(capsys, *base, "--k", "10")
    assert "give both --requests and --k" in run_error(capsys, *base, "--plan-epsilon", "0.1",
                                                            "--requests", "1000")


def test_cli_reo_ab_engines(tmp_path, capsys):
    frames, paths = write_logs(tmp_path, "parquet")
    args = ["reo-ab", "--control", str(paths["default"]), "--treatment", str(paths["default"]),
            "--random", str(paths["random"]), "--label", "click", "--group", "tier", "--interval", "delta-shared",
            "--json"]
    outs = {}
    for engine in ("duckdb", "pandas"):
        assert cli.main(args + ["--backend", engine]) == 0
        outs[engine] = strict(capsys.readouterr().out)
    assert outs["duckdb"]["groups"] == outs["pandas"]["groups"] and outs["duckdb"]["backend"] == "duckdb"


def test_cli_json_is_strict_with_undefined_numbers(tmp_path, capsys, monkeypatch):
    # the delta method's own numbers on small counts (below the floors it is replaced: test_few_positives.py)
    monkeypatch.setattr("ocef.reo.estimators.MIN_POSITIVES_DELTA", 0)
    monkeypatch.setattr("ocef.reo.estimators.MIN_POSITIVES_ANY", 0)
    # equal utilities: penalty 0, its SE undefined (NaN) -> null in strict JSON
    d = pd.DataFrame({"S": ["a"] * 10 + ["b"] * 10, "Y": [1] * 5 + [0] * 5 + [1] * 5 + [0] * 5})
    d.to_csv(tmp_path / "d.csv", index=False)
    assert cli.main(["reo", "--default", str(tmp_path / "d.csv"), "--random", str(tmp_path / "d.csv"), "--json"]) == 0
    out = strict(capsys.readouterr().out)
    assert out["penalty"] == 0.0 and out["penalty_se"] is None and out["delta_method_reliable"] is False


def test_cli_choices_are_the_librarys():
    # the command spells its choices out (importing ocef.reo at start-up would cost `ocef --help`
    # numpy's import): they must stay the library's
    import argparse

    from ocef import reo
    from ocef import backends as logs_engine
    from ocef.commands import reo as command

    sub = argparse.ArgumentParser().add_subparsers()
    command.register(sub)
    choices = {name: {a.dest: a.choices for a in parser._actions if a.choices}
               for name, parser in sub.choices.items()}
    assert command.BACKENDS == logs_engine.BACKENDS
    assert tuple(choices["reo"]["backend"]) == tuple(choices["reo-ab"]["backend"]) == logs_engine.BACKENDS
    assert tuple(choices["reo"]["interval"]) == reo.INTERVALS + reo.BOOTSTRAP_INTERVALS
    assert tuple(choices["reo-ab"]["interval"]) == reo.AB_INTERVALS


def test_memory_limit_reaches_duckdb_and_is_reset(tmp_path, capsys, monkeypatch):
    from ocef import backends

    _, paths = write_logs(tmp_path, "parquet")
    seen = []
    real = backends.set_memory_limit
    monkeypatch.setattr(backends, "set_memory_limit", lambda limit: (seen.append(limit), real(limit)))
    base = ["reo", "--default", str(paths["default"]), "--random", str(paths["random"]), "--label", "click",
            "--group", "tier", "--json"]
    limited = run_json(capsys, *base, "--memory-limit", "64MB")
    assert seen == [64 * 2**20, None]                       # set for the command, then DuckDB's default again
    assert limited == run_json(capsys, *base)               # a bound, not a different answer
    assert backends.duckdb_cursor().sql("SELECT current_setting('memory_limit')").fetchall() != [("64.0 MiB",)]
    err = run_error(capsys, *base, "--memory-limit", "lots")
    assert "--memory-limit" in err and "lots" in err
