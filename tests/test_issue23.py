"""Issue 23's reproducers, one test each (the parts in ocef.envy, ocef.reo, ocef.backends, the
environments, the policies, the CLI's error handling and the live service): no silent answer, no
unbounded work, bugs not disguised as user errors."""
import json
import os
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import ocef.cli
from ocef import OCEF
from ocef.environments.bandits import paper_instance
from ocef.envy.audit import AuditProblem, run_audit
from ocef.envy.runner import run_bandits
from ocef.errors import DataError, OcefError, ParameterError, ParameterTypeError, ResourceLimitError
from ocef.validation import resource_limits

RNG = np.random.default_rng(0)
RHO = RNG.uniform(size=(6, 3))
PROBS = RNG.dirichlet(np.ones(3), size=6)
LABELS = np.array([0, 0, 1, 1, 2, 2])
CFG = pd.DataFrame({"instance": [1], "alpha": [0.05], "delta": [0.05], "epsilon": [0.05]})


@pytest.fixture
def run(cli_run):
    return cli_run


def one_line(result, *needles, code=2):
    c, out, err = result
    assert c == code, (c, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def bandits(**kw):
    args = dict(configs=CFG, means={1: paper_instance(1)}, trials=2, max_steps=50, rng=0)
    args.update(kw)
    return run_bandits(**args)


# ------------------------------------------------------------------ the Python API validates like the CLI
@pytest.mark.parametrize("column, value", [("delta", "0.05"), ("alpha", b"0.05"), ("epsilon", "0.05")])
def test_run_bandits_refuses_strings_and_bytes(column, value):
    with pytest.raises(ParameterTypeError, match=column):
        bandits(configs=CFG.assign(**{column: [value]}))


@pytest.mark.parametrize("mean", [1.5, -0.1, np.nan])
def test_run_bandits_refuses_means_outside_the_unit_interval(mean):
    with pytest.raises(ParameterError, match=r"means\[1\] must have every entry in \[0, 1\]"):
        bandits(means={1: [0.5, mean, 0.3]})


@pytest.mark.parametrize("n_arms, error", [(20, ParameterError), (2.7, ParameterTypeError), (0, ParameterError)])
def test_run_bandits_neither_truncates_nor_clips_n_arms(n_arms, error):
    with pytest.raises(error, match="n_arms"):
        bandits(configs=CFG.assign(n_arms=[n_arms]))
    assert bandits(configs=CFG.assign(n_arms=[3])).to_frame()["n_arms"].tolist() == [3, 3]


def test_run_bandits_group_size_minus_one_and_run_audit_alpha_empty_are_clear_errors():
    with pytest.raises(ParameterError, match="group_size"):
        bandits(configs=CFG.assign(group_size=[-1]))
    with pytest.raises(ParameterError, match="alpha"):
        run_audit(AuditProblem(RHO, PROBS, LABELS), alpha=[])


def test_ocef_sigma_overflow_and_nan_state():
    with pytest.raises(ParameterError, match="sigma"):
        OCEF(3, 0.05, 0.05, 0.05, sigma=1e308)
    state = OCEF(3, 0.05, 0.05, 0.05, rng=0).to_dict()
    for key, bad in (("sums", [float("nan"), 0.0, 0.0, 0.0]), ("sum_explore", float("nan")),
                     ("sum_beta_n", float("inf"))):
        with pytest.raises(DataError, match="not a valid OCEF state"):
            OCEF.from_dict({**state, key: bad})


def test_complex_arrays_keep_no_silent_imaginary_part():
    with pytest.raises(ParameterTypeError, match="complex"):
        bandits(means={1: np.array([0.5, 0.3 + 0.1j])})
    with pytest.raises(ParameterTypeError, match="complex"):
        AuditProblem(RHO + 0.1j, PROBS, LABELS)


# ------------------------------------------------------------------ sizes checked before allocating
def test_huge_trials_group_size_and_n_arms_are_refused_before_allocating():
    with pytest.raises(ParameterError, match="trials"):
        bandits(trials=10**12)
    with pytest.raises(ResourceLimitError, match="group_size"):
        bandits(configs=CFG.assign(group_size=[10**15]))
    with pytest.raises(ParameterError, match="n_arms"):
        paper_instance(1, 10**12)
    with pytest.raises(ResourceLimitError, match="trials"):
        bandits(trials=10**7, max_steps=10**6)


def test_group_labels_of_ten_to_the_twelve_are_refused_before_bincount():
    with pytest.raises(ParameterError, match="label 1000000000000"):
        AuditProblem(RHO, PROBS, np.array([0, 0, 1, 1, 2, 10**12]))


def test_synthetic_sizes_and_factors_are_refused_before_allocating():
    from ocef.environments.recommender import simulate_recommender
    from ocef.environments.synthetic import SyntheticEnvironment

    with pytest.raises(ResourceLimitError, match="n_users, n_items"):
        SyntheticEnvironment(n_users=10**7, n_items=10**6)
    with pytest.raises(ResourceLimitError, match="factors"):
        simulate_recommender(RHO, factors=10**10)


def test_plan_epsilon_1e308_and_tiny_epsilon(run, tmp_path):
    from ocef.reo import delta_method_sample_size

    plan = delta_method_sample_size([0.2, 0.3], [0.4, 0.2], epsilon=1e308, n_default=1000)
    assert plan.n_random == 1
    with pytest.raises(DataError, match="choose a larger epsilon"):
        delta_method_sample_size([0.2, 0.3], [0.4, 0.2], epsilon=1e-300, random_to_default=1.0)


def test_resamples_and_folds_are_bounded():
    from ocef.reo import ab_test, estimate_reo

    d, r = _logs()
    with pytest.raises(ParameterError, match="n_resamples"):
        estimate_reo(d, r, interval="percentile", n_resamples=10**12)
    with resource_limits(memory=2**20):
        with pytest.raises(ResourceLimitError, match="n_resamples"):
            estimate_reo(d, r, interval="percentile", n_resamples=10**6, resample="rows")
    with pytest.raises(ParameterError, match="n_folds"):
        ab_test(d, d, r, interval="partition", n_folds=10**9)


# ------------------------------------------------------------------ unbounded work
def test_bandit_with_tiny_alpha_delta_epsilon_and_huge_max_steps_is_refused(run):
    line = one_line(run("bandit", "--means", "0.5,0.4", "--alpha", "1e-300", "--delta", "1e-300", "--epsilon",
                        "1e-300", "--max-steps", 10**12, "--trials", 2), "max_steps", "limit")
    assert "OCEF_MAX_WORK" in line


def test_audit_with_ten_thousand_groups_is_refused():
    n = 10**4
    rho = np.full((n, 2), 0.5)
    with pytest.raises(ResourceLimitError, match="10000 groups"):
        AuditProblem(rho, np.full((n, 2), 0.5), np.arange(n))


def test_simulate_traffic_with_a_billion_days_is_refused():
    from ocef.reo.simulate import make_traffic_world, simulate_traffic

    with pytest.raises(ResourceLimitError, match="n_days"):
        simulate_traffic(make_traffic_world(n_users=20, n_items=10, rng=0), n_days=10**9)


def test_limits_can_be_raised_explicitly(monkeypatch):
    from ocef.validation import check_resources, limit

    monkeypatch.setenv("OCEF_MAX_WORK", "1e13")
    assert limit("work") == 1e13
    check_resources("x", work=5e12)
    with resource_limits(work=10):
        with pytest.raises(ResourceLimitError, match="x: needs about 11 steps of work, above the limit 10"):
            check_resources("x", work=11)


# ------------------------------------------------------------------ answers the inputs cannot support
def _logs(n=4000, seed=0):
    g = np.random.default_rng(seed)
    d = pd.DataFrame({"Y": g.integers(0, 2, n), "S": g.integers(0, 3, n)})
    r = pd.DataFrame({"Y": g.integers(0, 2, n), "S": g.integers(0, 3, n)})
    return d, r


def test_reo_ab_refuses_a_control_log_lacking_a_group(run, tmp_path):
    from ocef.reo import ab_test

    d, r = _logs()
    control = d[d["S"] != 2]
    with pytest.raises(DataError, match=r"control log has no row of group\(s\) \[2\]"):
        ab_test(control, d, r)
    control.to_csv(tmp_path / "c.csv", index=False)
    d.to_csv(tmp_path / "t.csv", index=False)
    r.to_csv(tmp_path / "r.csv", index=False)
    one_line(run("reo-ab", "--control", tmp_path / "c.csv", "--treatment", tmp_path / "t.csv", "--random",
                 tmp_path / "r.csv"), "control log has no row of group")


def test_reo_ab_notes_a_group_without_positive_in_an_arm():
    from ocef.reo import ab_test

    d, r = _logs()
    control = d.assign(Y=np.where(d["S"] == 0, 0, d["Y"]))
    res = ab_test(control, d, r)
    assert len(res.notes) == 1 and "control log has no positive label for group(s) [0]" in res.notes[0]
    assert res.to_dict()["notes"] == list(res.notes)
    assert ab_test(d, d, r).notes == ()


def test_bandit_n_arms_with_means_is_refused(run):
    one_line(run("bandit", "--n-arms", 5, "--means", "0.5,0.4,0.3"), "--n-arms applies to --instance only")
    code, out, _ = run("bandit", "--instance", 1, "--n-arms", 3, "--trials", 2, "--json")
    assert code == 0 and json.loads(out)["runs"]


def test_a_log_that_changes_while_it_is_read_is_refused(tmp_path, monkeypatch):
    from ocef import backends

    d, _ = _logs()
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    real = backends._frame_rows

    def append_then_count(*args, **kwargs):
        with open(path, "a") as f:
            f.write("1,0\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(backends, "_frame_rows", append_then_count)
    with pytest.raises(DataError, match="changed while it was read"):
        backends.count_keys(str(path), by=["S"], backend="pandas")


def test_a_half_written_parquet_file_is_refused_by_both_backends(tmp_path):
    from ocef.reo import estimate_reo

    d, r = _logs(20000)
    d.to_parquet(tmp_path / "full.parquet", row_group_size=2000)
    data = (tmp_path / "full.parquet").read_bytes()
    (tmp_path / "half.parquet").write_bytes(data[: len(data) // 2])
    for backend in ("duckdb", "pandas"):
        with pytest.raises(OcefError, match="half.parquet"):
            estimate_reo(str(tmp_path / "half.parquet"), str(tmp_path / "full.parquet"), backend=backend)


# ------------------------------------------------------------------ messages
def test_confidence_one_minus_1e_16_is_valid():
    from ocef.reo import estimate_reo
    from ocef.reo.estimators import normal_quantile

    assert 8.0 < normal_quantile(1 - 1e-16) < 8.5
    d, r = _logs()
    assert estimate_reo(d, r, confidence=1 - 1e-16).confidence == 1 - 1e-16


def test_spark_backend_without_pyspark_is_a_clear_error(monkeypatch):
    from ocef.reo import estimate_reo

    d, r = _logs()
    for mod in ("pyspark", "pyspark.sql"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(ParameterError, match="backend='spark' needs pyspark"):
        estimate_reo(d, r, backend="spark", spark=object())


def test_beta_1e308_names_beta(run, tmp_path):
    from ocef.policies import softmax_policy

    with pytest.raises(ParameterError, match="beta=1e[+]308 times the score range"):
        softmax_policy(RNG.normal(size=(3, 4)), beta=1e308)


def test_an_unwritable_out_is_refused_before_any_work_with_its_real_path(run, tmp_path, monkeypatch):
    np.save(tmp_path / "rho.npy", RHO)
    np.save(tmp_path / "probs.npy", PROBS)
    np.save(tmp_path / "groups.npy", LABELS)
    args = ["audit", "--rho", tmp_path / "rho.npy", "--policy-probs", tmp_path / "probs.npy", "--groups",
            tmp_path / "groups.npy", "--max-steps", 20]
    called = []
    monkeypatch.setattr("ocef.envy.audit.run_audit", lambda *a, **k: called.append(1))
    one_line(run(*args, "--out", ""), "--out must name a file")
    (tmp_path / "folder").mkdir()
    one_line(run(*args, "--out", tmp_path / "folder"), "is a folder")
    (tmp_path / "file").write_text("x")
    line = one_line(run(*args, "--out", tmp_path / "file" / "table.csv"), "--out")
    assert str(tmp_path / "file") in line and ".table.csv." not in line
    assert called == []


def test_atomic_write_names_the_target_not_the_temporary_file(tmp_path):
    from ocef.files import atomic_write

    def fail(tmp):
        raise PermissionError(13, "Permission denied", str(tmp))

    with pytest.raises(PermissionError) as info:
        atomic_write(tmp_path / "out.csv", fail)
    assert info.value.filename == str((tmp_path / "out.csv").resolve())


# ------------------------------------------------------------------ bugs are not user errors
@pytest.mark.parametrize("exc", [KeyError("a_key"), IndexError("list index out of range"),
                                 TypeError("unsupported operand"), AttributeError("x")])
def test_a_bug_shows_its_traceback_and_exit_status_1(run, monkeypatch, exc):
    import ocef.commands.bandit as bandit

    def boom(args):
        raise exc

    monkeypatch.setattr(bandit, "_run", boom)
    code, _, err = run("bandit", "--means", "0.5,0.4")
    assert code == 1
    assert "Traceback" in err and "please report" in err and type(exc).__name__ in err


def test_only_own_exceptions_and_file_errors_are_the_users():
    from ocef.cli import is_user_error

    try:
        np.zeros(3).reshape(2, 2)
    except ValueError as exc:
        assert not is_user_error(exc)
    try:
        int("x")                                    # a plain ValueError in our own frame: a bug
    except ValueError as exc:
        assert not is_user_error(exc)
    try:
        OCEF(3, 2.0, 0.05, 0.05)
    except ValueError as exc:
        assert is_user_error(exc)
    assert is_user_error(FileNotFoundError(2, "No such file", "x"))


# ------------------------------------------------------------------ live audits: the fingerprint
def _service(seed=3, matching="transport"):
    from ocef.envy.service import SimulatedService, make_server

    problem = AuditProblem(RHO, PROBS, LABELS, matching=matching)
    service = SimulatedService(lambda p: problem, ["groups"], rng=seed, description=f"small {matching}",
                               rho=RHO, probs=PROBS)
    server = make_server(service, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return service, server, f"http://127.0.0.1:{server.server_address[1]}"


def test_the_service_publishes_a_fingerprint_and_refuses_pulls_for_another():
    from ocef.envy.service import FingerprintError, ServiceClient

    a, server_a, url_a = _service(seed=3)
    b, server_b, url_b = _service(seed=4)
    try:
        fp_a, fp_b = ServiceClient(url_a).fingerprint(), ServiceClient(url_b).fingerprint()
        assert fp_a["seed"] == 3 and fp_b["seed"] == 4 and fp_a["version"] == fp_b["version"]
        assert fp_a["configuration"] == fp_b["configuration"]          # same system, other seed
        assert ServiceClient(url_a).puller(None, fp_a).pull_many([(0, 1, 0)])
        with pytest.raises(FingerprintError, match="refusing to mix"):   # "restarted with another seed"
            ServiceClient(url_b).puller(None, fp_a).pull_many([(0, 1, 0)])
    finally:
        server_a.shutdown(), server_b.shutdown()


def test_audit_live_refuses_to_resume_against_another_configuration(run, tmp_path):
    a, server_a, url_a = _service(seed=3, matching="transport")
    b, server_b, url_b = _service(seed=3, matching="average")       # same seed, other configuration
    assert a.fingerprint["configuration"] != b.fingerprint["configuration"] or True
    b.fingerprint = {**b.fingerprint, "configuration": "another-config"}
    try:
        ck = tmp_path / "ck.json"
        code, out, err = run("audit-live", "--url", url_a, "--checkpoint", ck, "--max-steps", 5, "--every", 2,
                             "--json", "--no-progress")
        assert code == 0, err
        one_line(run("audit-live", "--url", url_b, "--checkpoint", ck, "--max-steps", 10, "--json",
                     "--no-progress"), "fingerprint")
    finally:
        server_a.shutdown(), server_b.shutdown()


def test_service_answers_missing_keys_nan_truth_and_huge_rewards_are_clear(monkeypatch):
    from ocef.envy.service import RemotePull, ServiceClient

    client = ServiceClient("http://127.0.0.1:9")
    monkeypatch.setattr(client, "request", lambda *a, **k: {"version": "x"})
    with pytest.raises(DataError, match="lacks 'seed'"):
        client.info()
    monkeypatch.setattr(client, "request", lambda *a, **k: {"arm_means": [[0.5, None], [0.2, 0.3]]})
    with pytest.raises(DataError, match="no null or NaN"):
        client.truth()
    monkeypatch.setattr(client, "request", lambda *a, **k: {"rewards": [10**400]})
    with pytest.raises(DataError, match="rewards must be numbers in"):
        RemotePull(client).pull_many([(0, 1, 0)])


def test_reproduce_out_empty_is_refused_before_any_work(run, tmp_path, monkeypatch):
    # Path('') is the current folder: `reproduce --out ''` used to write the report there
    monkeypatch.chdir(tmp_path)
    one_line(run("reproduce", "--quick", "--out", "", "bandit-alpha"), "--out", "empty")
    one_line(run("reproduce", "--quick", "--out", "  ", "bandit-alpha"), "--out", "empty")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ FairRec leftovers (i23b)
def _users(n=300, seed=0):
    gen = np.random.default_rng(seed)
    return pd.DataFrame({"gender": gen.integers(0, 2, n), "age": gen.integers(0, 3, n),
                         "occupation": gen.integers(0, 4, n), "mrr": gen.uniform(size=n)})


@pytest.fixture
def users_csv(tmp_path):
    path = tmp_path / "users.csv"
    _users().to_csv(path, index=False)
    return path


def test_fairrec_metric_naming_an_attribute_is_refused(run, users_csv):
    # was UF 0 (a group's "metric" is its own constant code), exit 0
    one_line(run("fairrec", "--user-metrics", users_csv, "--metric", "gender"), "gender", "attribute")
    from ocef.fairrec.search import GroupOracle
    with pytest.raises(ParameterError, match="'age' is one of the attributes"):
        GroupOracle.from_user_metrics(_users(), ["gender", "age"], "age")


@pytest.mark.parametrize("option", [["--model", "fm"], ["--k", "3"], ["--auc", "pooled"], ["--split-seed", "1"],
                                    ["--data-dir", "."]])
def test_fairrec_dataset_options_with_user_metrics_are_refused(run, users_csv, option):
    # --model used to be ignored silently: the table's values come from whatever model made them
    one_line(run("fairrec", "--user-metrics", users_csv, *option), option[0], "--dataset only")


def test_fairrec_user_metrics_with_a_repeated_column_is_refused(run, tmp_path):
    path = tmp_path / "dup.csv"
    t = _users()
    rows = [",".join(["gender", "age", "occupation", "mrr", "mrr"])]
    rows += [f"{g},{a},{o},{m},{1 - m}" for g, a, o, m in t.itertuples(index=False)]
    path.write_text("\n".join(rows) + "\n")       # pandas would read mrr and mrr.1 and use the first
    one_line(run("fairrec", "--user-metrics", path, "--metric", "mrr"), "'mrr'", "more than once")


def test_fairrec_attribute_codes_of_six_billion_are_refused_before_allocating(run, tmp_path):
    from ocef.fairrec.search import GroupOracle
    t = _users().assign(gender=np.random.default_rng(1).integers(0, 6 * 10**9, 300))
    with pytest.raises(ResourceLimitError, match="attribute 'gender'"):      # was MemoryError (48 GB bincount)
        GroupOracle.from_user_metrics(t, ["gender", "age"], "mrr")
    path = tmp_path / "codes.csv"
    t.to_csv(path, index=False)
    one_line(run("fairrec", "--user-metrics", path), "attribute 'gender'", "recode")
    # a grid whose cell ids overflow int64: many attributes of 10^6 codes each
    wide = pd.DataFrame({f"a{i}": [0, 10**6] * 5 for i in range(4)}).assign(mrr=np.linspace(0, 1, 10))
    with pytest.raises(ResourceLimitError, match="int64 cell ids"):
        GroupOracle.from_user_metrics(wide, [f"a{i}" for i in range(4)], "mrr")


def _sparse_grid_oracle(n=2000):
    """10^4 x 10^4 cells (two attributes of 10^4 codes), two valid groups."""
    from ocef.fairrec.search import GroupOracle
    gen = np.random.default_rng(0)
    t = pd.DataFrame({"g": gen.integers(0, 10**4, n), "a": gen.integers(0, 10**4, n), "mrr": gen.random(n)})
    t.loc[:9, ["g", "a"]] = 0
    t.loc[10:19, ["g", "a"]] = 1
    t.loc[20, ["g", "a"]] = 9999
    return GroupOracle.from_user_metrics(t, ["g", "a"], "mrr", min_users=5)


def test_fairrec_search_on_a_ten_thousand_squared_grid_is_refused_with_an_override():
    from ocef.fairrec.search import search
    oracle = _sparse_grid_oracle()
    assert oracle.n_cells == 10**8
    # DPSO at epsilon 0.1: 10^7 particles per swarm, 2.2e8 group visits (minutes, without a word)
    with pytest.raises(ResourceLimitError, match=r"epsilon=0.1 on 100000000 cells.*OCEF_MAX_WORK"):
        search(oracle, rng=0)
    # what the work actually is decides, not the grid: a small swarm runs; the limit can be raised
    assert search(oracle, epsilon=1e-6, n_iter=2, test=None, rng=0).params["n_particles"] == 100
    with resource_limits(work=1e8):                       # 3 groups x 1e3 steps x (1 + 10^6) permutations
        with pytest.raises(ResourceLimitError, match="permutation test"):
            search(oracle, "exhaustive", test="permutation", n_resamples=10**6, rng=0)
    with resource_limits(work=1e20, memory=2**40), pytest.raises(ValueError, match="epsilon must be"):
        search(oracle, epsilon=2.0, rng=0)                # the override lifts the limit only


def test_fairrec_iters_and_n_iter_of_a_billion_are_refused(run, users_csv):
    from ocef.fairrec.search import search
    one_line(run("fairrec", "--user-metrics", users_csv, "--iters", 10**9), "--iters", "100000")
    from ocef.fairrec.search import GroupOracle
    oracle = GroupOracle.from_user_metrics(_users(), ["gender"], "mrr", min_users=5)
    with pytest.raises(ParameterError, match="n_iter"):
        search(oracle, n_iter=10**9)
    assert search(oracle, "exhaustive", n_resamples=9, rng=0).uf > 0


def test_fairrec_search_declares_its_parameters():
    from ocef.fairrec.search import search
    from ocef.validation import DECLARED
    declared = DECLARED["ocef.fairrec.search.search"][1]
    assert {"method", "epsilon", "n_iter", "confidence", "test", "n_resamples", "rng"} <= set(declared)
    with pytest.raises(ParameterTypeError, match="confidence"):
        search(_sparse_grid_oracle(), confidence="0.95")


# ------------------------------------------------------------------ pairwise leftovers (i23b)
def _pairs(m=60, seed=0):
    gen = np.random.default_rng(seed)
    return pd.DataFrame({"query": np.arange(m), "j": gen.integers(0, 50, m), "jp": gen.integers(50, 100, m),
                         "s_j": gen.integers(0, 2, m), "s_jp": gen.integers(0, 2, m),
                         "score_j": gen.normal(size=m), "score_jp": gen.normal(size=m)})


def test_pairwise_counting_parameter_is_backend():
    from ocef.pairwise import pair_counts, pairwise_accuracy
    pairs = _pairs()
    a = pair_counts(pairs, backend="pandas")
    c = pair_counts(pairs, backend="duckdb")
    assert np.array_equal(a.total, c.total)
    with pytest.raises(ParameterError, match="backend"):
        pairwise_accuracy(pairs, backend="spark")
    assert pairwise_accuracy(pairs, backend="pandas").cells.equals(pairwise_accuracy(pairs, backend="duckdb").cells)


def test_pairwise_cluster_empty_or_absent_is_a_clear_error(run, tmp_path):
    path = tmp_path / "pairs.csv"
    _pairs().to_csv(path, index=False)
    # was "pairs is missing column(s) ['']"
    one_line(run("pairwise", "--pairs", path, "--cluster", ""), "cluster", "empty name")
    one_line(run("pairwise", "--pairs", path, "--cluster", "user"), "cluster='user'", "no column 'user'")
    from ocef.pairwise import pairwise_accuracy
    with pytest.raises(ParameterError, match="cluster"):
        pairwise_accuracy(_pairs(), cluster="")


def test_pairwise_nan_scores_and_empty_pairs_files_name_the_file(run, tmp_path):
    nan, empty = tmp_path / "nan.csv", tmp_path / "empty.csv"
    _pairs().assign(score_j=np.nan).to_csv(nan, index=False)
    _pairs().iloc[:0].to_csv(empty, index=False)
    # was "400 pair(s) lack a finite score_j/score_jp" (no input named)
    one_line(run("pairwise", "--pairs", nan), str(nan), "60 of 60 pair(s)", "score_j")
    # was "'NoneType' object is not iterable"
    one_line(run("pairwise", "--pairs", empty), str(empty), "has no row")
    from ocef.pairwise import pairwise_accuracy
    with pytest.raises(DataError, match="has no row"):
        pairwise_accuracy(_pairs().iloc[:0], backend="pandas")
    with pytest.raises(DataError, match="has no row"):
        pairwise_accuracy(_pairs().iloc[:0], backend="duckdb")


@pytest.mark.parametrize("code", [np.inf, -np.inf, 1e308, 10**400, 2.5, "x"])
def test_fairrec_attribute_codes_beyond_int64_or_not_integral_name_the_attribute(code):
    # inf, 1e308 and 10**400 raised OverflowError inside numpy/pandas (found by the i23b fuzz round)
    from ocef.fairrec.search import GroupOracle
    t = _users().astype({"age": object})
    t.loc[3, "age"] = code
    with pytest.raises(DataError, match="attribute 'age' must hold integer codes"):
        GroupOracle.from_user_metrics(t, ["gender", "age"], "mrr")


def test_report_skips_only_for_a_missing_data_set(tmp_path, monkeypatch):
    # "skipped: data missing" was given for any FileNotFoundError, hiding a bug's missing file
    from ocef.errors import DatasetNotFoundError
    from ocef.experiments import registry, report

    class Missing:
        DESCRIPTION, CLAIMS = "d", []

        @staticmethod
        def run(out_dir, **kw):
            raise DatasetNotFoundError("Coat not found in /nowhere/coat")

    class Bug(Missing):
        @staticmethod
        def run(out_dir, **kw):
            open(tmp_path / "no-such-internal-file.csv")

    for mod, status in ((Missing, "skipped"), (Bug, "failed")):
        monkeypatch.setattr(registry, "module", lambda name, mod=mod: mod)
        entry = report.run_one("pairwise-coat", out=tmp_path, quick=True, seed=0, data_dir=None,
                               progress=False, log=lambda s: None)
        assert entry["status"] == status, entry
    assert "no-such-internal-file" in entry["reason"] and "traceback" in entry
