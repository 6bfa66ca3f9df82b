"""Fixed costs paid only when needed (issue 27): what ``import ocef`` and each command load, the
light stand-ins that keep the heavy modules out, and the numpy engine's plain-Python tail.

Guards, not timings (the timings are ``benchmarks/startup.py`` and ``benchmarks/fixed_costs.py``'s):
each check runs the real command line in a fresh process and lists the heavy modules it loaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

#: heavy imports (each 0.1-1.5 s) that no command may load unless its work uses them
HEAVY = ("numpy", "pandas", "scipy", "scipy.stats", "scipy.optimize", "scipy.special", "duckdb", "pyarrow",
         "matplotlib", "numba", "ot", "sklearn", "tqdm", "pyspark")

#: one fresh process; for each (name, argv) a forked child runs ``ocef argv`` and reports the
#: HEAVY modules it holds (a fork starts from the parent's modules: ocef.cli and ``preload``)
_PROBE = """
import contextlib, io, json, os, sys
from ocef import cli
{preload}
HEAVY, RUNS = {heavy!r}, {runs!r}
out = {{}}
for name, argv in RUNS:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 0
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code
        os.write(w, json.dumps([code, sorted(m for m in HEAVY if m in sys.modules)]).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.waitpid(pid, 0)
    out[name] = json.loads(data)
print(json.dumps(out))
"""


def _loaded(runs: list[tuple[str, list[str]]], cwd, preload: str = "") -> dict[str, list]:
    """``{name: [exit code, heavy modules loaded]}`` of each ``ocef argv``, each in its own child process
    forked after ``preload`` (e.g. ``"import numpy, pandas"``: what every child would load anyway)."""
    code = _PROBE.format(heavy=HEAVY, runs=runs, preload=preload)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="the probe forks one child per command (POSIX)")


def test_import_ocef_loads_no_heavy_module(tmp_path):
    code = f"import json, sys, ocef, ocef.cli; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert json.loads(done.stdout) == []


@needs_fork
def test_help_of_every_command_loads_no_heavy_module(tmp_path):
    from ocef.cli import COMMANDS

    runs = [("ocef --help", ["--help"])] + [(name, [name, "--help"]) for name in COMMANDS]
    loaded = _loaded(runs, tmp_path)
    assert set(loaded) == {name for name, _ in runs}
    assert {name: got for name, got in loaded.items() if got != [0, []]} == {}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Tiny inputs of the commands: REO logs, randomized pairs, a top-k log, matrices."""
    d = tmp_path_factory.mktemp("tiny")
    gen = np.random.default_rng(0)
    n = 200
    for name in ("default", "random"):
        pd.DataFrame({"Y": (gen.random(n) < 0.3).astype("int8"), "S": gen.integers(0, 2, n)}).to_parquet(
            d / f"{name}.parquet")
    pd.DataFrame({"query": gen.integers(0, 40, n), "j": np.arange(n), "jp": np.arange(n) + n,
                  "s_j": gen.integers(0, 2, n), "s_jp": gen.integers(0, 2, n), "score_j": gen.normal(size=n),
                  "score_jp": gen.normal(size=n)}).to_parquet(d / "pairs.parquet")
    users = n // 5
    item = np.argsort(gen.random((users, 50)), axis=1)[:, :5].ravel()
    pd.DataFrame({"user": np.repeat(np.arange(users), 5), "item": item, "rank": np.tile(np.arange(1, 6), users),
                  "genre": np.where(item < 20, "pop", "niche")}).to_parquet(d / "rankings.parquet")
    pd.DataFrame({"user": np.repeat(np.arange(users), 5), "item": item, "rank": np.tile(np.arange(1, 6), users),
                  "genre": np.where(item < 20, "pop", "niche"), "relevance": (gen.random(n) < 0.3).astype("int8"),
                  "gender": np.repeat(np.where(np.arange(users) % 3 == 0, "f", "m"), 5)}).to_parquet(
        d / "rankings_rel.parquet")
    np.save(d / "rho.npy", gen.random((12, 6)))
    np.save(d / "probs.npy", gen.dirichlet(np.ones(6), size=12))
    np.save(d / "groups.npy", np.repeat([0, 1], 6))
    return d


@needs_fork
def test_each_command_loads_only_what_its_work_uses(tiny):
    p = {name: str(tiny / name) for name in ("default.parquet", "random.parquet", "pairs.parquet",
                                             "rankings.parquet", "rho.npy", "probs.npy", "groups.npy")}
    runs = [
        ("bandit", ["bandit", "--means", "0.6,0.3", "--trials", "1", "--max-steps", "50", "--json"]),
        ("reo-ab", ["reo-ab", "--control", p["default.parquet"], "--treatment", p["default.parquet"],
                    "--random", p["random.parquet"], "--json"]),
        ("pairwise", ["pairwise", "--pairs", p["pairs.parquet"], "--resamples", "0", "--json"]),
        ("exposure", ["exposure", "--rankings", p["rankings.parquet"], "--item-group", "genre", "--json"]),
        ("envy average", ["envy", "--rho", p["rho.npy"], "--policy-probs", p["probs.npy"], "--groups",
                          p["groups.npy"], "--matching", "average", "--json"]),
        ("recmetrics", ["recmetrics", "--scores", p["rho.npy"], "--groups", p["groups.npy"], "--k", "3",
                        "--resamples", "0", "--json"]),
    ]
    loaded = _loaded(runs, tiny, preload="import numpy, pandas")      # the baseline of every command
    codes = {name: code for name, (code, _) in loaded.items()}
    assert codes == {name: 0 for name, _ in runs}
    mods = {name: set(got) for name, (_, got) in loaded.items()}
    never = {"scipy.stats", "scipy.optimize", "matplotlib", "numba", "ot", "sklearn", "tqdm", "pyspark"}
    assert {name: got & never for name, got in mods.items() if got & never} == {}
    # the simulation needs numpy only; the reading of files DuckDB; the normal and Student t
    # quantiles scipy.special (ocef.inference)
    assert mods["bandit"] - {"numpy", "pandas", "pyarrow"} == set()          # (pandas preloaded: it loads pyarrow)
    assert {"duckdb"} <= mods["reo-ab"] and {"duckdb"} <= mods["exposure"]
    assert "duckdb" not in mods["envy average"] | mods["recmetrics"] | mods["bandit"]
    assert "scipy" not in mods["envy average"]          # dense policies, average matching: numpy only


@needs_fork
def test_small_audits_load_no_pandas(tiny):
    # their results keep small tables as columns (DataFrames are built when asked for): the JSON
    # output and the console's tables need numpy, DuckDB to read the files and, where a t quantile
    # or an entropy is computed, scipy.special (ocef.inference, scipy.special.entr); neither pandas
    # nor pyarrow (DuckDB reads Parquet itself)
    p = {name: str(tiny / name) for name in ("default.parquet", "random.parquet", "pairs.parquet", "rho.npy",
                                             "probs.npy", "groups.npy")}
    runs = [
        ("reo", ["reo", "--default", p["default.parquet"], "--random", p["random.parquet"], "--json"]),
        ("reo-ab", ["reo-ab", "--control", p["default.parquet"], "--treatment", p["default.parquet"],
                    "--random", p["random.parquet"], "--json"]),
        ("pairwise", ["pairwise", "--pairs", p["pairs.parquet"], "--resamples", "0", "--json"]),
        ("envy average", ["envy", "--rho", p["rho.npy"], "--policy-probs", p["probs.npy"], "--groups",
                          p["groups.npy"], "--matching", "average", "--json"]),
        # the simulation's runs are kept as columns (BanditRuns.columns): the summary needs numpy only
        ("bandit", ["bandit", "--means", "0.6,0.3", "--trials", "3", "--max-steps", "50", "--json"]),
        ("bandit console", ["bandit", "--means", "0.6,0.3,0.5", "--trials", "2", "--max-steps", "50"]),
    ]
    loaded = _loaded(runs, tiny, preload="import numpy")
    assert {name: code for name, (code, _) in loaded.items()} == {name: 0 for name, _ in runs}
    assert {name: set(got) for name, (_, got) in loaded.items()} == {
        "reo": {"numpy", "duckdb"}, "reo-ab": {"numpy", "duckdb"},
        "pairwise": {"numpy", "duckdb", "scipy", "scipy.special"}, "envy average": {"numpy"},
        "bandit": {"numpy"}, "bandit console": {"numpy"}}


@needs_fork
def test_exposure_and_recmetrics_load_no_pandas(tiny):
    # as above; scipy.special for the t quantiles and recmetrics' entropy (scipy.special.entr)
    p = {name: str(tiny / name) for name in ("rho.npy", "groups.npy", "rankings.parquet", "rankings_rel.parquet")}
    runs = [
        ("exposure", ["exposure", "--rankings", p["rankings.parquet"], "--item-group", "genre", "--json"]),
        # with relevance and user groups: the per-user metrics and the pairs of user groups, printed
        ("exposure users", ["exposure", "--rankings", p["rankings_rel.parquet"], "--item-group", "genre",
                            "--user-group", "gender"]),
        ("recmetrics", ["recmetrics", "--scores", p["rho.npy"], "--groups", p["groups.npy"], "--k", "3",
                        "--resamples", "0", "--json"]),
        ("recmetrics intervals", ["recmetrics", "--scores", p["rho.npy"], "--groups", p["groups.npy"], "--k", "3",
                                  "--resamples", "20"]),
    ]
    loaded = _loaded(runs, tiny, preload="import numpy")
    assert {name: code for name, (code, _) in loaded.items()} == {name: 0 for name, _ in runs}
    special = {"numpy", "scipy", "scipy.special"}
    assert {name: set(got) for name, (_, got) in loaded.items()} == {
        "exposure": special | {"duckdb"}, "exposure users": special | {"duckdb"}, "recmetrics": special,
        "recmetrics intervals": special}


@needs_fork
def test_offpolicy_loads_no_pandas(tiny):
    # the audit keeps its tables as numpy columns (ocef.offpolicy.columns); its result builds the
    # DataFrames when asked for: files through DuckDB, the normal quantile through scipy.special
    gen = np.random.default_rng(1)
    n = 300
    log = pd.DataFrame({"user": gen.integers(0, 60, n), "item": gen.integers(0, 8, n), "propensity": 1 / 8,
                        "reward": (gen.random(n) < 0.3).astype(float), "seg": np.where(gen.random(n) < 0.5, "a", "b")})
    log["genre"] = np.where(log["item"] < 3, "pop", "niche")
    log.to_parquet(tiny / "offlog.parquet")
    pd.DataFrame({"item": range(8), "probability": 1 / 8}).to_csv(tiny / "offtarget.csv", index=False)
    args = ["offpolicy", "--log", str(tiny / "offlog.parquet"), "--target", str(tiny / "offtarget.csv"),
            "--item-group", "genre", "--user-group", "seg"]
    loaded = _loaded([("json", args + ["--json"]), ("console", args + ["--estimator", "ips", "dm", "dr"])], tiny,
                     preload="import numpy")
    special = {"numpy", "scipy", "scipy.special", "duckdb"}
    assert loaded == {"json": [0, sorted(special)], "console": [0, sorted(special)]}


def test_light_copies_equal_their_originals():
    from ocef.commands._inputs import POLICY_NAMES
    from ocef.policies.builders import POLICY_NAMES as original

    assert POLICY_NAMES == tuple(original)


# ------------------------------------------------------------------ ocef.inference's distributions

def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert np.array_equal(ours, theirs, equal_nan=True)
    assert np.array_equal(np.signbit(ours), np.signbit(theirs))


def test_normal_and_t_functions_are_scipy_stats_values_edges_included():
    from scipy import stats

    from ocef import inference

    q = np.r_[np.linspace(0, 1, 401), -0.1, 1.1, np.nan, 1e-300, 1 - 1e-16]
    x = np.r_[np.linspace(-30, 30, 601), -np.inf, np.inf, np.nan, -0.0]
    _same(inference.norm_ppf(q), stats.norm.ppf(q))
    _same(inference.norm_cdf(x), stats.norm.cdf(x))
    _same(inference.norm_sf(x), stats.norm.sf(x))
    for df in (0, -1, np.nan, np.inf, 0.5, 1, 2, 7.5, 30, 1e6):
        _same(inference.t_ppf(q, df), stats.t.ppf(q, df))
        _same(inference.t_sf(x, df), stats.t.sf(x, df))
        _same(inference.t_cdf(x, df), stats.t.cdf(x, df))
    assert type(inference.t_ppf(0.975, 5)) is type(stats.t.ppf(0.975, 5))          # a numpy scalar, as scipy's
    assert type(inference.norm_sf(1.0)) is type(stats.norm.sf(1.0))


# ------------------------------------------------------------------ the numpy engine's Python tail

@pytest.mark.parametrize("case", range(6))
def test_numpy_engine_python_tail_is_bit_identical_to_the_array_steps(monkeypatch, case):
    # the lock-step hands its last runs to plain Python (runner.PYTHON_TAIL_RUNS); with the
    # hand-over off (0) every step is array code: both must give the very same bits
    from ocef.envy import runner

    gen = np.random.default_rng(case)
    r, k = (1, 2) if case == 0 else (int(gen.integers(2, 24)), int(gen.integers(1, 5)))
    n_arms = gen.integers(1, k + 1, size=r)
    n_arms[0] = k
    mu = gen.random((r, k + 1))
    mu[np.arange(k + 1)[None, :] > n_arms[:, None]] = 0.0
    g = gen.integers(1, 4, size=r)
    sample = runner.bernoulli_sampler(mu, g) if case % 3 == 2 else runner.DiscreteRewards.binomial(mu, g)
    kw = dict(group_size=g, true_means=None if case % 3 == 1 else mu, max_steps=1500 if case < 4 else 200,
              engine="numpy")
    args = (n_arms, 0.05, gen.choice([0.05, 0.3], size=r), gen.choice([0.05, 0.1], size=r), sample)
    new = runner.run_batch(*args, rng=case, **kw)
    monkeypatch.setattr(runner, "PYTHON_TAIL_RUNS", 0)
    ref = runner.run_batch(*args, rng=case, **kw)
    for field in ("verdict", "duration", "counts", "means", "cost", "constraint_held", "min_budget"):
        a, b = getattr(new, field), getattr(ref, field)
        if b is None:
            assert a is None
            continue
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), field


# ------------------------------------------------------------------ results kept as columns

def test_recommender_bias_json_from_columns_is_the_tables_records():
    # to_dict() is made from the columns; the records the DataFrame gives (the former to_dict) are the same
    import json

    from ocef.metrics import recommender_bias

    gen = np.random.default_rng(2)
    scores = gen.random((36, 8))
    scores[gen.random(scores.shape) < 0.1] = np.nan
    labels = np.array(["a", "b", "c"])[np.arange(36) % 3]
    res = recommender_bias(scores, (gen.random(scores.shape) < 0.3).astype(float), groups=labels, k=3,
                           n_resamples=30, rng=0)
    t = res.table
    assert t["significant"].dtype == "boolean" and len(t) == len(res.columns["level"])

    def records(level, keys):
        fields = ["value", "estimate", "ci_low", "ci_high", "interval", "reason", "n_defined"]
        if level == "pair":
            fields[4:4] = ["p_value", "p_adjusted", "significant"]
        out = []
        for key, sub in t[t.level == level].groupby(keys, sort=False, dropna=False):
            row = dict(zip(keys, key))
            for r in sub.itertuples(index=False):
                row[r.metric] = {f: getattr(r, f) for f in fields}
            out.append(row)
        return out

    got = res.to_dict()
    from ocef.results import jsonable

    assert json.dumps(got["groups"]) == json.dumps(jsonable(records("group", ["group", "n_users"])))
    pairs = [{"group_a": r.pop("group"), "group_b": r.pop("reference"), **r}
             for r in records("pair", ["group", "reference", "n_users"])]
    assert json.dumps(got["pairs"]) == json.dumps(jsonable(pairs))
    assert json.dumps(got["overall"]) == json.dumps(jsonable(records("overall", ["n_users"])[0]))


def test_exposure_json_from_columns_is_the_frames_records():
    import json

    from ocef.datasets import make_toy_rankings
    from ocef.exposure import exposure_fairness
    from ocef.results import records

    res = exposure_fairness(make_toy_rankings(), item_group="genre", user_group="gender")
    got = res.to_dict()
    for name in ("overall", "groups", "pairs"):
        assert json.dumps(got[name]) == json.dumps(records(getattr(res, name))), name
    for name in ("overall", "groups", "pairs"):
        assert json.dumps(got["users"][name]) == json.dumps(records(getattr(res.users, name))), name
    assert res.groups["significant"].dtype == object and len(res.pairs) == len(got["pairs"]) > 0
    assert json.dumps(res.stats.to_dict()["metrics"]) == json.dumps(records(res.stats.metrics))
