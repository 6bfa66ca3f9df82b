"""Issue 28 step 5: progress on the long computations that had none (a single long DuckDB query,
FairRec's DPSO search and its permutation test), each bar forced on with ``progress=True`` and read
from the captured stderr; off by default in the library."""
import re

import numpy as np
import pandas as pd
import pytest

import ocef._progress as progress_module
from ocef._progress import query_progress
from ocef.backends import duckdb_cursor, fetch_rows
from ocef.fairrec.search import GroupOracle, search

# about 0.3-1 s of DuckDB work on this machine: a few polls at 0.02 s
SLOW_SQL = "SELECT count(*) AS n, sum(hash(range % 1009)) AS h FROM range(8000000) GROUP BY range % 7"


def _bars(err: str, desc: str) -> list[tuple[float, float]]:
    """(n, total) of every redraw of the bar ``desc`` in tqdm's stderr output."""
    pattern = re.escape(desc) + r"[^|]*\|[^|]*\|\s*([\d.]+)/([\d.]+)"
    return [(float(a), float(b)) for a, b in re.findall(pattern, err.replace("\r", "\n"))]


def test_a_long_duckdb_query_shows_its_progress_in_percent(capsys, monkeypatch):
    monkeypatch.setattr(progress_module, "QUERY_POLL", 0.02)
    with query_progress(True, "counting"):
        rows = fetch_rows(duckdb_cursor(), SLOW_SQL)
    assert sum(r["n"] for r in rows) == 8_000_000                   # the answer is untouched
    draws = _bars(capsys.readouterr().err, "counting")
    assert draws, "no bar was drawn"
    assert {t for _, t in draws} == {100.0}                          # a bar in percent
    assert all(0 <= n <= 100 for n, _ in draws) and max(n for n, _ in draws) > 0


def test_no_query_bar_by_default_and_cursors_are_plain_outside(capsys, monkeypatch):
    monkeypatch.setattr(progress_module, "QUERY_POLL", 0.02)
    with query_progress(False, "counting"):
        fetch_rows(duckdb_cursor(), SLOW_SQL)
    assert capsys.readouterr().err == ""
    con = duckdb_cursor()
    assert con.sql("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]
    with query_progress(True):
        watched = duckdb_cursor()
        assert watched.sql("SELECT current_setting('enable_progress_bar_print')").fetchall() == [(False,)]
    from ocef.backends import QUERY_WATCHERS

    assert QUERY_WATCHERS == []                                      # the block removed its watcher


def test_the_exposure_audit_watches_its_counting_query(capsys, monkeypatch):
    from ocef.exposure import exposure_fairness

    monkeypatch.setattr(progress_module, "QUERY_POLL", 0.0)          # poll without pause: any query is seen
    seen = []
    real = progress_module._QueryWatcher.__init__

    def init(self, desc):
        real(self, desc)
        self.cursors = seen                                           # every cursor watched, in one list
    monkeypatch.setattr(progress_module._QueryWatcher, "__init__", init)
    log = pd.DataFrame({"user": np.repeat(np.arange(30), 3), "item": np.tile([0, 1, 2], 30),
                        "rank": np.tile([1, 2, 3], 30), "genre": np.tile(["a", "b", "b"], 30)})
    quiet = exposure_fairness(log, item_group="genre", backend="duckdb").to_dict()
    assert seen == []                                                 # library default: nothing watched
    loud = exposure_fairness(log, item_group="genre", backend="duckdb", progress=True).to_dict()
    assert seen and all(hasattr(c, "query_progress") for c in seen)
    assert loud["groups"] == quiet["groups"]
    assert "exposure: log passes" in capsys.readouterr().err


@pytest.fixture
def eager(monkeypatch):
    """Every update of a forced bar drawn on stderr, however quick (tqdm throttles to 0.1 s)."""
    import tqdm.auto

    class Eager(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, mininterval=0, miniters=1, **kwargs)

    monkeypatch.setattr(tqdm.auto, "tqdm", Eager)


def test_a_long_envy_run_shows_its_steps_with_the_time_left(capsys, eager):
    # issue 28: one undecided run (zero gap, so Theorem 6's bound is infinite) ran to max_steps with the
    # bar of runs decided at 0/1 the whole time
    from ocef.envy.runner import DiscreteRewards, run_batch

    means = np.array([[0.5, 0.5, 0.5]])
    kw = dict(group_size=20, true_means=means, rng=0, engine="numpy", max_steps=20_000)
    loud = run_batch(np.array([2]), 0.05, 0.05, 1e-9, DiscreteRewards.binomial(means, 20), progress=True, **kw)
    draws = _bars(capsys.readouterr().err, "audits: steps (at most)")
    assert {t for _, t in draws} == {20_000.0}                      # the bound is max_steps here
    assert [n for n, _ in draws][-1] == 16_384                       # moved every 4,096 steps
    quiet = run_batch(np.array([2]), 0.05, 0.05, 1e-9, DiscreteRewards.binomial(means, 20), **kw)
    assert capsys.readouterr().err == ""
    assert loud.verdict_names().tolist() == quiet.verdict_names().tolist() == ["timeout"]
    assert (loud.counts == quiet.counts).all() and (loud.duration == quiet.duration).all()


def test_a_long_compiled_envy_run_shows_its_steps_with_the_time_left(capsys, eager, monkeypatch):
    # issue 28: with the numba engine a single long run was one compiled call, with no bar moving;
    # it is now advanced COMPILED_STEPS steps a call, and its steps have a bar with the time left
    import ocef.envy.runner as runner
    from ocef.envy.runner import DiscreteRewards, run_batch

    monkeypatch.setattr(runner, "COMPILED_STEPS", 4096)
    means = np.array([[0.5, 0.5, 0.5]])
    kw = dict(group_size=20, true_means=means, rng=0, engine="numba", max_steps=20_000)
    loud = run_batch(np.array([2]), 0.05, 0.05, 1e-9, DiscreteRewards.binomial(means, 20), progress=True, **kw)
    err = capsys.readouterr().err
    draws = _bars(err, "audits: steps (at most)")
    assert {t for _, t in draws} == {20_000.0}                      # the bound is max_steps here
    assert {4096.0, 8192.0, 16_384.0, 20_000.0} <= {n for n, _ in draws}
    assert "<" in err                                                # tqdm's "elapsed<left"
    quiet = run_batch(np.array([2]), 0.05, 0.05, 1e-9, DiscreteRewards.binomial(means, 20), **kw)
    assert capsys.readouterr().err == ""
    assert loud.verdict_names().tolist() == quiet.verdict_names().tolist() == ["timeout"]
    assert (loud.counts == quiet.counts).all() and (loud.duration == quiet.duration).all()


def test_the_steps_bar_ends_at_theorem_6s_bound_when_the_means_are_known(capsys, eager):
    from ocef.envy.runner import DiscreteRewards, estimated_work, run_batch

    means = np.array([[0.5, 0.8, 0.2], [0.5, 0.52, 0.3]] * 6)        # 12 runs: the lock-step, then the tail
    run_batch(np.full(12, 2), 0.05, 0.05, 0.05, DiscreteRewards.binomial(means, 20), group_size=20,
              true_means=means, rng=0, engine="numpy", progress=True)
    draws = _bars(capsys.readouterr().err, "audits: steps (at most)")
    bound = int(estimated_work(means, 0.05, 0.05, 0.05, 20, 10**6).max())
    assert {t for _, t in draws} == {float(bound)}


USERS = pd.DataFrame({"g": np.repeat(np.arange(4), 30), "a": np.tile([0, 1, 2], 40),
                      "mrr": np.random.default_rng(0).uniform(size=120)})


def test_dpso_and_the_permutation_test_show_bars_with_their_totals(capsys, eager):
    oracle = GroupOracle.from_user_metrics(USERS, ["g", "a"], "mrr")
    loud = search(oracle, n_iter=7, n_resamples=99, test="permutation", rng=0, progress=True).to_dict()
    err = capsys.readouterr().err
    dpso, perm = _bars(err, "DPSO iterations"), _bars(err, "max-t permutation test")
    assert dpso and {t for _, t in dpso} == {7.0} and max(n for n, _ in dpso) == 7
    assert perm and {t for _, t in perm} == {99.0} and max(n for n, _ in perm) == 99
    quiet = search(oracle, n_iter=7, n_resamples=99, test="permutation", rng=0).to_dict()
    assert capsys.readouterr().err == ""                              # library default: no bar
    for key in ("uf", "p_value", "uf_lower", "top_advantaged", "top_disadvantaged", "reason"):
        assert loud[key] == quiet[key]                               # the bar never changes a result


def test_the_fairrec_command_passes_progress_to_the_search(tmp_path, cli_run):
    USERS.to_csv(tmp_path / "users.csv", index=False)
    code, out, err = cli_run("fairrec", "--user-metrics", tmp_path / "users.csv", "--metric", "mrr",
                             "--attributes", "g,a", "--test", "permutation", "--n-resamples", "50", "--json",
                             "--progress")
    assert code == 0 and out.lstrip().startswith("{")
    assert "DPSO iterations" in err and "max-t permutation test" in err
