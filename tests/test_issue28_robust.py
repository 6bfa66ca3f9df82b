"""Issue 28 step 5 outside the exposure audit: the remaining silent answers and tracebacks, one test
each (FairRec, envy audits, bandit grids, audit-live, recommender metrics, pairwise, reproduce,
MovieLens, log reading)."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest

from ocef.envy.audit import AuditProblem, run_audit
from ocef.envy.runner import run_bandits
from ocef.errors import DataError, ParameterError
from ocef.fairrec.search import GroupOracle, search


@pytest.fixture
def run(cli_run):
    return cli_run


def one_line(result, *needles):
    """The error line of a refused command: exit 2, one line, each needle in it."""
    code, _, err = result
    line = err.strip()
    assert code == 2 and "\n" not in line and "Traceback" not in err, (code, err)
    assert all(n in line for n in needles), (needles, line)
    return line


USERS = pd.DataFrame({"g": np.repeat([0, 1, 2], 10), "a": np.tile([0, 1], 15)})


# ------------------------------------------------------------------ FairRec
@pytest.mark.parametrize("name", ["", "mrr"])
def test_an_all_nan_metric_is_refused_not_a_nan_unfairness(name):
    oracle = GroupOracle(USERS, ["g", "a"], lambda rows: np.full(rows.size, np.nan), name=name)
    with pytest.raises(DataError, match="NaN in all"):
        search(oracle, rng=0, n_resamples=20)


@pytest.mark.parametrize("name", ["", "x"])
def test_an_infinite_metric_value_is_refused(name):
    oracle = GroupOracle(USERS, ["g", "a"], lambda rows: np.where(rows % 2 == 0, np.inf, 0.5), name=name)
    with pytest.raises(DataError, match="infinite value"):
        search(oracle, rng=0, n_resamples=20)


def test_one_evaluated_group_prints_no_unfairness_beside_undefined():
    table = pd.DataFrame({"g": np.repeat([0, 1, 2], 10), "mrr": np.linspace(0, 1, 30)})
    oracle = GroupOracle.from_user_metrics(table, ["g"], "mrr")
    record = search(oracle, method="exhaustive", max_evaluations=1, rng=0, n_resamples=20).to_dict()
    assert record["uf"] is None
    assert "fewer than two valid groups" in record["reason"]


def test_bounds_the_data_violate_are_refused(tmp_path, run):
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"gender": rng.integers(0, 2, 200), "age": rng.integers(0, 3, 200),
                          "mrr": rng.uniform(0, 2.32, 200)})
    with pytest.raises(DataError, match=r"bounds \(0, 1\) do not hold"):
        GroupOracle.from_user_metrics(table, ["gender", "age"], "mrr", bounds=(0, 1))
    path = tmp_path / "u.csv"
    table.to_csv(path, index=False)
    one_line(run("fairrec", "--user-metrics", path, "--metric", "mrr", "--bounds", "0,1", "--json"),
             "bounds", "2.3")
    # the range assumed for a metric named mrr ([0, 1]) is dropped, with its reason, where the data leave it
    auto = search(GroupOracle.from_user_metrics(table, ["gender", "age"], "mrr"), rng=0, n_resamples=20)
    assert auto.params["bounds"] is None                 # no interval clipped to a range the data leave
    adv = auto.advantaged
    assert np.isnan(adv.ci_high) or adv.ci_high > 1.0 or "outside the range [0, 1] assumed" in auto.reason
    # a black box with bounds: the per-user values are checked as they come
    oracle = GroupOracle(USERS, ["g"], lambda rows: np.full(rows.size, 2.0), bounds=(0, 1), name="m")
    with pytest.raises(DataError, match="do not hold for the metric m"):
        search(oracle, rng=0, n_resamples=20)


# ------------------------------------------------------------------ envy audits and bandit grids
def test_an_audit_that_timed_out_says_so_and_claims_no_correctness():
    rng = np.random.default_rng(0)
    problem = AuditProblem(rng.uniform(size=(6, 3)), rng.dirichlet(np.ones(3), size=6), [0, 0, 1, 1, 2, 2])
    record = run_audit(problem, max_steps=300, rng=0).to_dict()
    assert record["share_timeout"] == 1.0
    assert record["correct_rate"] is None and record["all_correct_rate"] is None
    assert "every audit timed out" in record["reason"]
    rho = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.7]])
    decided = run_audit(AuditProblem(rho, np.array([[0.0, 1.0]] * 2 + [[1.0, 0.0]] * 2), [0, 0, 1, 1]),
                        rng=0).to_dict()
    assert decided["reason"] == "" and decided["all_correct_rate"] == 1.0


def test_run_bandits_without_n_arms_says_every_arm_ran():
    cfg = pd.DataFrame({"instance": ["a"], "alpha": [0.1], "delta": [0.1], "epsilon": [0.1]})
    runs = run_bandits(cfg, {"a": [0.5, 0.8, 0.2]}, trials=1, rng=0, engine="numpy", max_steps=300)
    assert "every arm" in runs.note and runs.to_dict()["note"] == runs.note
    runs = run_bandits(cfg.assign(n_arms=2), {"a": [0.5, 0.8, 0.2]}, trials=1, rng=0, engine="numpy",
                       max_steps=300)
    assert runs.note == ""


# ------------------------------------------------------------------ audit-live
class _Bad(BaseHTTPRequestHandler):
    answers: dict = {}

    def _go(self):
        body = self.answers.get(self.path.split("?")[0])
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _go

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("answers, needle", [
    ({"/info": b"<html>hi</html>"}, "not JSON"),
    ({"/info": {"seed": 1, "version": "x"}, "/groups": {"n_groups": 2, "sizes": [3, 3]},
      "/truth": {"arm_means": [[0.5], [0.5, 0.6]]}}, "square table"),
    ({"/info": {"seed": 1, "version": "x"}, "/groups": {"n_groups": 2, "sizes": [3, 3]},   # no names: optional
      "/pull": {"rewards": "abc"}}, "/pull"),
])
def test_a_malformed_service_answer_is_a_clear_error_naming_the_service(answers, needle, run):
    handler = type("H", (_Bad,), {"answers": answers})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        line = one_line(run("audit-live", "--url", url, "--max-steps", "20", "--json", "--no-progress",
                            "--retries", "0", "--timeout", "5"), needle)
    finally:
        server.shutdown()
        server.server_close()
    assert url in line


# ------------------------------------------------------------------ metrics and pairwise
def test_a_0_2_truth_is_refused_not_ranked():
    from ocef.metrics.recommender import user_stats

    scores = np.random.default_rng(0).uniform(size=(4, 5))
    truth = np.zeros((4, 5))
    truth[0, 1] = truth[2, 3] = 2
    with pytest.raises(DataError, match="truth holds only 0 and 2"):
        user_stats(scores, truth, k=2)
    stats = user_stats(scores, (truth > 0).astype(float), k=2)     # the 0/1 truth: zeros never relevant
    assert stats.precision.tolist() == [0.0, 0.0, 0.0, 0.0]


def _pairs(m=400):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"query": np.arange(m), "j": rng.integers(0, 50, m), "jp": rng.integers(50, 100, m),
                         "s_j": rng.integers(0, 2, m), "s_jp": rng.integers(0, 2, m),
                         "score_j": rng.normal(size=m), "score_jp": rng.normal(size=m)})


def test_percentile_intervals_need_enough_resamples(tmp_path, run):
    from ocef.pairwise.accuracy import min_percentile_resamples, pairwise_accuracy

    assert min_percentile_resamples(0.95) == 200 and min_percentile_resamples(0.99) == 1000
    with pytest.raises(ParameterError, match="n_resamples=1 is too few"):
        pairwise_accuracy(_pairs(), interval="percentile", n_resamples=1)
    path = tmp_path / "pairs.csv"
    _pairs().to_csv(path, index=False)
    one_line(run("pairwise", "--pairs", path, "--interval", "percentile", "--resamples", "1", "--json"),
             "resamples", "200")
    res = pairwise_accuracy(_pairs(), interval="percentile", n_resamples=200, rng=0)
    c = res.cells.dropna(subset=["ci_low"])
    assert ((c.ci_low <= c.accuracy) & (c.accuracy <= c.ci_high)).all()


# ------------------------------------------------------------------ reproduce, MovieLens, logs
@pytest.mark.parametrize("body, needle", [
    ("{bad", "not a readable JSON report"), ("[]", "'experiments' list"),
    ('{"experiments": [1]}', "experiments[0]"), ('{"experiments": [{"name": "nope", "status": "ok"}]}', "nope"),
    ('{"experiments": [{"name": "x", "status": "skipped"}]}', "malformed"),
])
def test_a_malformed_summary_json_is_refused_by_recheck(tmp_path, body, needle, run):
    (tmp_path / "summary.json").write_text(body)
    one_line(run("reproduce", "--recheck", "--out", tmp_path), "summary.json", needle)


@pytest.mark.parametrize("broken", ["truncated", "garbage", "empty"])
def test_a_broken_movielens_folder_is_a_data_error(tmp_path, broken):
    from ocef.datasets.movielens import load_movielens

    folder = tmp_path / "ml-100k"
    folder.mkdir()
    (folder / "u.data").write_text("1\t1\t5\t881250949\n2\t1\t3\t891717742\n")
    (folder / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other|94043\n")
    (folder / "u.item").write_text("1|Toy Story (1995)|01-Jan-1995||http://x|" + "|".join("0" * 18) + "|1\n")
    if broken == "truncated":
        (folder / "u.data").write_text("1\t1\t5\t881250949\n2\t1")
    elif broken == "garbage":
        (folder / "u.user").write_bytes(b"garbage\x00\xff\n")
    else:
        (folder / "u.data").write_text("")
    with pytest.raises(DataError, match="MovieLens folder .* is broken"):
        load_movielens(folder)


def test_a_zipped_log_is_a_clear_error():
    from ocef.backends import duckdb_cursor, duckdb_table
    import tempfile
    import zipfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("log.csv", "user,item,rank\n1,2,1\n")
        with pytest.raises(DataError, match="unzip it"):
            duckdb_table(duckdb_cursor(), path, "_log")


def test_a_huge_multiplicity_is_refused_before_allocating():
    from ocef.errors import ResourceLimitError

    rng = np.random.default_rng(0)
    with pytest.raises(ResourceLimitError, match="multiplicity"):
        AuditProblem(rng.uniform(size=(6, 3)), rng.dirichlet(np.ones(3), size=6), [0, 0, 1, 1, 2, 2],
                     multiplicity=np.full(6, 10**15))


def test_the_bandit_command_shows_progress(run):
    # shown when forced or when stderr is a terminal (captured here: not one, so --progress forces it)
    code, out, err = run("bandit", "--means", "0.6,0.3", "--trials", "3", "--max-steps", "300", "--engine", "numpy",
                         "--progress")
    assert code == 0 and ("run/s" in err or "s/run" in err), err


def test_a_confidence_too_close_to_1_gives_null_intervals_with_their_reason():
    from ocef.metrics.bias import recommender_bias
    from ocef.pairwise.accuracy import pairwise_accuracy

    c = 0.9999999999999999
    res = pairwise_accuracy(_pairs(), confidence=c)
    assert res.cells.ci_low.isna().all() and res.cells.reason.str.contains("critical value").all()
    assert res.summary().reason.str.contains("critical value").all()
    rng = np.random.default_rng(0)
    table = recommender_bias(rng.normal(size=(40, 20)), groups=np.repeat([0, 1], 20), confidence=c, rng=0,
                             n_resamples=50).table
    open_ends = table.estimate.notna() & ~np.isfinite(table[["ci_low", "ci_high"]].to_numpy(float)).all(axis=1)
    assert open_ends.any() and table.loc[open_ends, "reason"].notna().all()
    assert table.loc[open_ends, "ci_low"].isna().all()


@pytest.mark.parametrize("kind", ["a file", "under a file"])
def test_an_unwritable_cache_folder_is_refused_before_the_work(tmp_path, monkeypatch, kind):
    # issue 28: the model was refit (~30 s for FairRec's) at every run, the warning came only at the end
    from ocef.environments.cache import cached_arrays

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    monkeypatch.setenv("OCEF_CACHE_DIR", str(a_file if kind == "a file" else a_file / "sub"))
    calls = []
    with pytest.raises(ParameterError, match="OCEF_CACHE_DIR=.*cannot be written.*set OCEF_CACHE_DIR to a writable"):
        cached_arrays("demo", {"a": 1}, lambda: calls.append(1) or {"v": np.arange(2.0)})
    assert calls == []                                          # refused before any work


def test_an_unwritable_default_cache_folder_warns_and_keeps_the_result(tmp_path, monkeypatch):
    # no OCEF_CACHE_DIR (the user chose nothing): the default folder unwritable costs the cache, not the answer
    from ocef.environments.cache import cached_arrays

    a_file = tmp_path / "home"
    a_file.write_text("x")
    monkeypatch.delenv("OCEF_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(a_file))
    with pytest.warns(RuntimeWarning, match="cannot be written.*set OCEF_CACHE_DIR"):
        out = cached_arrays("demo", {"a": 1}, lambda: {"v": np.arange(2.0)})
    assert out["v"].tolist() == [0.0, 1.0]


def test_a_read_only_cache_still_serves_its_entries(tmp_path, monkeypatch):
    import os

    from ocef.environments.cache import cached_arrays

    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path / "shared"))
    cached_arrays("demo", {"a": 1}, lambda: {"v": np.arange(2.0)})
    os.chmod(tmp_path / "shared", 0o555)
    try:
        if os.access(tmp_path / "shared", os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        out = cached_arrays("demo", {"a": 1}, lambda: pytest.fail("refit despite the entry"))
        assert out["v"].tolist() == [0.0, 1.0]
    finally:
        os.chmod(tmp_path / "shared", 0o755)


def test_mitigate_refuses_a_list_length_it_cannot_hold(tmp_path, run):
    rng = np.random.default_rng(0)
    cand = pd.DataFrame({"user": np.repeat(np.arange(20), 10), "item": np.tile(np.arange(10), 20),
                         "score": rng.random(200)})
    cand["genre"] = np.where(cand["item"] < 4, "drama", "other")
    cand.to_csv(tmp_path / "cand.csv", index=False)
    one_line(run("mitigate", "--candidates", tmp_path / "cand.csv", "--item-group", "genre", "--method", "fair",
                 "--json", "--k", "1000000000000"), "k must be an integer in [1, 2147483647]", "1000000000000")


@pytest.mark.data
def test_fairrec_on_movielens_refuses_an_unwritable_cache_at_once(tmp_path, monkeypatch, run):
    # issue 28: each run refit the model (~30 s) without a word, OCEF_CACHE_DIR naming a file
    import time

    from tests.conftest import require_data

    data = require_data("ml-100k")
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    monkeypatch.setenv("OCEF_CACHE_DIR", str(a_file))
    t0 = time.perf_counter()
    line = one_line(run("fairrec", "--dataset", "movielens", "--data-dir", data, "--iters", "2", "--json"),
                    "OCEF_CACHE_DIR=", "cannot be written", "writable folder")
    assert time.perf_counter() - t0 < 20 and str(a_file) in line               # before any training


@pytest.mark.parametrize("reference", [np.array([0.1, 0.2]), ["m"], {"a": 1}])
def test_exposure_refuses_a_reference_that_is_not_one_label(reference):
    # an array used to reach `ref not in groups` and raise numpy's "truth value ... ambiguous" (a bug)
    from ocef.errors import ParameterTypeError
    from ocef.exposure import exposure_fairness

    log = pd.DataFrame({"user": [0, 0, 1, 1], "item": [1, 2, 1, 3], "rank": [1, 2, 1, 2],
                        "genre": ["a", "b", "a", "b"], "gender": ["f", "f", "m", "m"]})
    with pytest.raises(ParameterTypeError, match=r"^reference must be a group label \(a string or a number\), got "
                                                 + type(reference).__name__ + "$"):
        exposure_fairness(log, item_group="genre", user_group="gender", reference=reference)


def test_a_synthetic_world_too_small_for_its_groups_says_which_input(run):
    # was "n_groups must be at most n_users=2, got 4": the command has no option for n_groups
    one_line(run("envy", "--dataset", "synthetic", "--n-users", "2", "--json"),
             "n_users must be at least n_groups=4 (a user per group), got 2")
    one_line(run("envy", "--dataset", "synthetic", "--n-items", "3", "--json"),
             "n_items must be at least n_categories=5 (an item per category), got 3")


# ---- the front doors the campaign had not fuzzed before (benchmarks/fuzz_campaign.py, robust3)

def test_simulate_pairs_refuses_sizes_it_cannot_hold_and_a_malformed_position_bias():
    from ocef.errors import ResourceLimitError
    from ocef.pairwise.simulate import simulate_pairs
    from ocef.reo.simulate import make_traffic_world

    world = make_traffic_world(n_users=30, n_items=12, rng=0)
    with pytest.raises(ResourceLimitError, match=r"^n_requests: needs about 7.28 TiB of memory"):
        simulate_pairs(world, n_requests=10**12, rng=0)              # was numpy's MemoryError
    with pytest.raises(ParameterError, match=r"^n_levels must be an integer in \[1, 1000000\], got an integer of 401 digits"):
        simulate_pairs(world, n_requests=100, n_levels=10**400, rng=0)       # was an OverflowError
    for bias in (10**400, 0.5 + 0.1j, {"a": 1}):                      # OverflowError / TypeError before
        with pytest.raises(ParameterError, match=r"^position_bias must be two examination probabilities"):
            simulate_pairs(world, n_requests=100, position_bias=bias, rng=0)


def test_reo_planning_counts_beyond_a_float_are_refused():
    from ocef.reo.planning import expected_random_rows, p_act_for

    with pytest.raises(ParameterError, match=r"^n_requests must be an integer in \[1, 9007199254740992\], got an integer of 401 digits"):
        expected_random_rows(0.01, n_requests=10**400, k=5)          # was an OverflowError
    with pytest.raises(ParameterError, match=r"^k must be an integer"):
        p_act_for(10, n_requests=1000, k=10**400)


def test_offpolicy_estimators_are_declared_and_one_name_is_a_list_of_one():
    from ocef.datasets import make_toy_propensity_log
    from ocef.offpolicy import offpolicy_audit

    log, target = make_toy_propensity_log()
    with pytest.raises(ParameterError, match=r"^estimators must be one of 'ips'"):
        offpolicy_audit(log, target, user_group="g", estimators=float("nan"))   # was "'float' is not iterable"
    one = offpolicy_audit(log, target, user_group="g", estimators="ips").to_frame()
    listed = offpolicy_audit(log, target, user_group="g", estimators=["ips"]).to_frame()
    pd.testing.assert_frame_equal(one, listed)


def test_one_metric_given_as_a_string_is_accepted():
    # OneOrMore refused "precision" with "must be one of 'precision', ... got 'precision'"
    from ocef.datasets import make_toy_rankings
    from ocef.exposure import exposure_fairness

    log = make_toy_rankings()
    a = exposure_fairness(log, item_group="genre", user_group="gender", metrics="precision").users.groups
    b = exposure_fairness(log, item_group="genre", user_group="gender", metrics=["precision"]).users.groups
    pd.testing.assert_frame_equal(a, b)


def test_estimate_reo_by_and_ranking_fairness_name_a_malformed_by_or_reference():
    from ocef.datasets import make_toy_rankings, make_toy_reo_logs
    from ocef.errors import ParameterTypeError
    from ocef.exposure import ranking_fairness
    from ocef.reo import estimate_reo_by

    default, random = make_toy_reo_logs()[:2]
    with pytest.raises(ParameterTypeError, match=r"^by must be a non-empty str, got NoneType$"):
        estimate_reo_by(default, random, by=None)                      # was "NoneType has no len()"
    with pytest.raises(ParameterTypeError, match=r"^reference must be a group label \(a string or a number\), "
                                                 r"got ndarray$"):
        ranking_fairness(make_toy_rankings(), item_group="genre", user_group="gender", metrics=["awrf"],
                         reference=np.array(["f", "m"]))


def test_mitigate_python_door_names_each_bad_argument():
    # the campaign's last defects: a float method ("'float' object is not iterable"), k = 10**400
    # (an overflow traceback), chunk_users = 10**400 (DuckDB's error), an array protected (numpy's
    # "truth value ... is ambiguous")
    from ocef.errors import ParameterError, ParameterTypeError
    from ocef.mitigate import mitigate

    cand = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 0, 1], "score": [1.0, 0.5, 1.0, 0.5],
                         "pop": ["a", "b", "a", "b"]})
    cases = [({"method": 1.5}, ParameterTypeError, r"^method must be a non-empty str, got float$"),
             ({"method": ["boost", ""]}, ParameterError, r"^method\[1\] must be a non-empty str"),
             ({"k": 10**400}, ParameterError, r"^k must be an integer in \[1, 2147483647\], got an integer of 401 digits$"),
             ({"chunk_users": 10**400}, ParameterError, r"^chunk_users must be an integer in \[1, 1000000000\]"),
             ({"protected": np.array([1, 2])}, ParameterTypeError, r"^protected must be a group label"),
             ({"user_group": ""}, ParameterError, r"^user_group must be a non-empty str or None")]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            mitigate(cand, item_group="pop", **kwargs)
