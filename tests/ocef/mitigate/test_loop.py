"""The mitigate -> re-audit loop: the written logs read back by ocef.exposure, per-user values equal to
ocef.exposure's formulas, paired rows equal to a direct paired t test, lotteries, envy, errors."""
from __future__ import annotations

import inspect
import time

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError, ParameterError
from ocef.exposure import awrf, exposure_fairness, ndkl
from ocef.mitigate import rerank as rerank_mod
from ocef.mitigate.lottery import Lottery
from ocef.mitigate.loop import _non_dominated, arm_values, mitigate
from ocef.mitigate.paired import paired_interval


def world(n_users=120, n_cand=12, seed=0):
    g = np.random.default_rng(seed)
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_cand),
                         "item": np.concatenate([g.choice(40, n_cand, replace=False) for _ in range(n_users)]),
                         "score": g.random(n_users * n_cand)})
    cand["pop"] = np.where(cand["item"] < 15, "head", "tail")
    cand["ug"] = np.where(cand["user"] % 3 == 0, "f", "m")
    rel = cand.sample(frac=0.25, random_state=seed)[["user", "item"]].assign(relevance=1.0)
    extra = pd.DataFrame({"user": [0, 1], "item": [99, 98], "relevance": [1.0, 2.0]})   # relevant, never a candidate
    return cand, pd.concat([rel, extra], ignore_index=True)


def test_logs_round_trip_through_exposure_fairness(tmp_path):
    cand, rel = world()
    res = mitigate(cand, item_group="pop", user_group="ug", method="boost", grid=[{"amount": 0.3}], k=5,
                   relevance=rel, protected="tail", out=tmp_path, rng=0, chunk_users=17)
    for arm, path in (("baseline", tmp_path / "baseline.parquet"), ("mitigated", tmp_path / "boost/point-00.parquet")):
        log = pd.read_parquet(path)
        assert list(log.columns[:4]) == ["user", "item", "rank", "score"]
        assert len(log) == 120 * 5
        assert all(sorted(r) == [1, 2, 3, 4, 5] for r in log.groupby("user")["rank"].apply(list))
        ex = exposure_fairness(str(path), item_group="pop", browsing="geometric", patience=0.5,
                               metrics=("ndcg",), backend="duckdb")
        got = res.statistics.query("statistic == 'share' and user_group == '(all)' and arm == @arm")
        sh = ex.groups[ex.groups.statistic == "share"].set_index("item_group")["estimate"]
        for _, row in got.iterrows():
            assert row["estimate"] == pytest.approx(sh[row["item_group"]], rel=1e-9)
        nd = ex.users.groups.query("metric == 'ndcg'")["estimate"].iloc[0]
        mine = res.statistics.query("statistic == 'ndcg' and user_group == '(all)' and arm == @arm")["estimate"].iloc[0]
        assert mine == pytest.approx(nd, rel=1e-9)
    # the baseline log is the top-5 by score
    base = pd.read_parquet(tmp_path / "baseline.parquet")
    top = cand.sort_values(["user", "score"], ascending=[True, False]).groupby("user").head(5)
    assert (base["item"].to_numpy() == top["item"].to_numpy()).all()
    assert res.points["log"].iloc[1].endswith("point-00.parquet")


def test_arm_values_equal_exposure_formulas():
    g = np.random.default_rng(3)
    groups = g.integers(0, 3, size=(20, 8))
    scores = g.random((20, 8))
    R = np.stack([g.permutation(8)[:5] for _ in range(20)])[:, None, :]
    target = np.array([0.2, 0.3, 0.5])
    v = arm_values(R, groups, scores, n_groups=3, target=target)
    for u in range(20):
        codes = groups[u, R[u, 0]]
        assert v["awrf"][u] == pytest.approx(awrf(np.eye(3)[codes], target), rel=1e-12)
        assert v["ndkl"][u] == pytest.approx(ndkl(codes, desired={0: 0.2, 1: 0.3, 2: 0.5}), rel=1e-12)
        w = 0.5 ** np.arange(5)
        assert v["exposure"][u].tolist() == pytest.approx([w[codes == c].sum() for c in range(3)])


def test_difference_rows_are_paired_t_tests():
    cand, rel = world(n_users=90)
    res = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.3}], k=5, relevance=rel,
                   protected="tail", rng=0, target="equal")
    # recompute per-user awrf of both arms and compare with a direct paired interval
    c = cand.sort_values(["user", "score", "item"], ascending=[True, False, True])
    groups = (c["pop"].to_numpy() == "tail").astype(int).reshape(90, 12)
    scores = c["score"].to_numpy().reshape(90, 12)
    from ocef.mitigate.rerank import rerank_batch

    R = rerank_batch("boost", scores, groups, 5, protected=1, amount=0.3)[:, None, :]
    base = arm_values(np.broadcast_to(np.arange(5), (90, 1, 5)), groups, scores, n_groups=2, target=[0.5, 0.5])
    mit = arm_values(R, groups, scores, n_groups=2, target=[0.5, 0.5])
    want = paired_interval(mit["awrf"], base["awrf"])
    row = res.statistics.query("statistic == 'awrf' and arm == 'difference'").iloc[0]
    assert row["estimate"] == pytest.approx(want["estimate"], rel=1e-9)
    assert row["ci_low"] == pytest.approx(want["ci_low"], rel=1e-6)
    assert row["p_value"] == pytest.approx(want["p_value"], rel=1e-5)
    # Holm over every difference row, stated
    d = res.statistics[res.statistics.arm == "difference"]
    assert d["p_adjusted"].notna().sum() == d["p_value"].notna().sum()
    assert (d["p_adjusted"] >= d["p_value"] - 1e-15).all()
    assert "Holm" in res.family and str(int(d["p_value"].notna().sum())) in res.family


def _planted_lottery(scores, groups, k, *, rng=None, flip=0.5):
    """A two-ranking lottery (test only): the top-k, or the top-k of the reversed scores."""
    top = np.argsort(-scores, kind="stable")[:k]
    low = np.argsort(scores, kind="stable")[:k]
    return Lottery(np.stack([top, low]), np.array([1 - flip, flip]))


def test_lotteries_are_sampled_and_read_back(tmp_path, monkeypatch):
    from ocef.validation import Real

    entry = rerank_mod.Reranker("planted", _planted_lottery, {"flip": Real(0, 1)}, {"flip": 0.5}, [{"flip": 0.5}],
                                None, True, "test")
    monkeypatch.setitem(rerank_mod.RERANKERS, "planted", entry)
    cand, rel = world(n_users=60)
    res = mitigate(cand, item_group="pop", method="planted", grid=[{"flip": 0.25}], k=4, samples=8, out=tmp_path,
                   rng=1)
    log = pd.read_parquet(tmp_path / "planted/point-00.parquet")
    assert sorted(log["sample"].unique()) == list(range(8)) and set(log["probability"]) <= {0.75, 0.25}
    ex = exposure_fairness(str(tmp_path / "planted/point-00.parquet"), item_group="pop")
    sh = ex.groups[ex.groups.statistic == "share"].set_index("item_group")["estimate"]
    got = res.statistics.query("statistic == 'share' and arm == 'mitigated'").set_index("item_group")["estimate"]
    assert got["head"] == pytest.approx(sh["head"], rel=1e-9)
    # about a quarter of the draws are the reversed ranking
    rev = log[log["rank"] == 1].groupby(["user", "sample"])["probability"].first()
    assert abs((rev == 0.25).mean() - 0.25) < 0.06


def test_envy_side_on_a_known_world():
    g = np.random.default_rng(0)
    n_users, n_items = 40, 12
    rho = g.random((n_users, n_items)) * 0.5
    rho[:, 6:] += 0.4 * (np.arange(n_users) % 2 == 0)[:, None]      # even users love the tail items
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_items), "item": np.tile(np.arange(n_items), n_users),
                         "score": (rho + 0.01 * g.random(rho.shape)).ravel()})
    cand["pop"] = np.where(cand["item"] < 6, "head", "tail")
    cand["ug"] = np.where(cand["user"] % 2 == 0, "even", "odd")
    res = mitigate(cand, item_group="pop", user_group="ug", method="boost", grid=[{"amount": 0.2}], k=3,
                   protected="head", preferences=np.clip(rho, 0, 1), rng=0)
    assert set(res.points["envy"]) <= {"envy", "envy-free", "inconclusive"}
    assert set(res.envy["user_group"]) == {"even", "odd"} and len(res.envy) == 4
    with pytest.raises(ParameterError, match="user_group"):
        mitigate(cand, item_group="pop", method="boost", preferences=rho)


def test_front_and_plot(tmp_path):
    assert _non_dominated(np.array([0.5, 0.4, 0.45, 0.3]), np.array([0.3, 0.1, 0.3, 0.2])).tolist() == \
        [True, True, False, False]
    cand, rel = world(n_users=60)
    res = mitigate(cand, item_group="pop", method="boost", k=5, relevance=rel, protected="tail", rng=0)
    f = res.front()
    assert f["on_front"].all() and (np.diff(f["disparity"]) >= 0).all()
    assert len(res.points) == 1 + len(rerank_mod.RERANKERS["boost"].grid)
    res.plot(path=tmp_path / "front.png")
    assert (tmp_path / "front.png").stat().st_size > 1000
    d = res.to_dict()
    assert set(d) >= {"statistics", "points", "family", "settings"}
    res.to_csv(tmp_path / "stats.csv")


def test_bad_inputs(tmp_path):
    cand, rel = world(n_users=10)
    with pytest.raises(DataError, match="missing column"):
        mitigate(cand.drop(columns="score"), item_group="pop")
    with pytest.raises(DataError, match="fewer than k"):
        mitigate(cand, item_group="pop", k=20)
    with pytest.raises(DataError, match="twice"):
        mitigate(pd.concat([cand, cand.head(1)]), item_group="pop", k=3)
    with pytest.raises(ParameterError, match="protected"):
        mitigate(cand, item_group="pop", protected="nope")
    with pytest.raises(ParameterError, match="method"):
        mitigate(cand, item_group="pop", method="nope")
    with pytest.raises(ParameterError, match="no parameter"):
        mitigate(cand, item_group="pop", grid=[{"nope": 1}])
    with pytest.raises(ParameterError, match="merit"):
        mitigate(cand, item_group="pop", target="merit")
    with pytest.raises(ParameterError, match="k must be"):
        mitigate(cand, item_group="pop", k=0)
    with pytest.raises(DataError, match="missing user, item or score"):
        mitigate(cand.assign(score=np.where(cand.index == 3, np.nan, cand["score"])), item_group="pop", k=3)
    with pytest.raises(DataError, match="at least 2"):
        mitigate(cand.assign(pop="a"), item_group="pop")
    with pytest.raises(DataError, match="relevance"):
        mitigate(cand, item_group="pop", relevance=rel.drop(columns="relevance"))
    with pytest.raises(DataError, match="not found"):
        mitigate(str(tmp_path / "nope.parquet"), item_group="pop")


def test_memory_limit_is_checked_and_used():
    cand, _ = world(n_users=40)
    a = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.3}], k=5, memory_limit="256MB")
    b = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.3}], k=5)
    assert a.statistics["estimate"].equals(b.statistics["estimate"])
    with pytest.raises(ParameterError, match="memory_limit"):
        mitigate(cand, item_group="pop", memory_limit="lots")


def test_a_failing_reranker_is_named_and_leaves_no_partial_log(tmp_path, monkeypatch):
    def broken(scores, groups, k, *, rng=None):
        raise DataError("no solution")

    entry = rerank_mod.Reranker("broken", broken, {}, {}, [{}], None, True, "test")
    monkeypatch.setitem(rerank_mod.RERANKERS, "broken", entry)
    cand, _ = world(n_users=40)
    with pytest.raises(DataError, match="method 'broken'.*no solution") as info:
        mitigate(cand, item_group="pop", method=["boost", "broken"], k=4, out=tmp_path, chunk_users=10)
    assert info.value.method == "broken"
    assert not list(tmp_path.rglob("*.parquet")) and not list(tmp_path.rglob("*.part"))


@pytest.mark.parametrize("target, shares", [("catalogue", [0.4, 0.6]), ("merit", [1 / 3, 2 / 3]), ("equal", [0.5, 0.5])])
def test_awrf_ndkl_and_disparity_use_the_chosen_target(target, shares):
    """Two users, k = 2: user 0 lists head, head; user 1 head, tail. Catalogue: 2 head and 3 tail items
    among the candidates -> (0.4, 0.6); merit: held-out relevance 1 head, 2 tail -> (1/3, 2/3). NDKL
    (Geyik et al. Eq. 6) = Σ_i KL(prefix_i || target)/log2(i+1) / Σ_i 1/log2(i+1), by hand; the
    disparity is the total variation of the pooled geometric shares (2.5, 0.5)/3 from the target."""
    cand = pd.DataFrame({"user": [0, 0, 0, 1, 1, 1], "item": [0, 1, 2, 0, 3, 4], "score": [.9, .8, .7, .9, .8, .7],
                         "pop": ["head", "head", "tail", "head", "tail", "tail"]})
    rel = pd.DataFrame({"user": [0, 1, 1], "item": [2, 3, 0], "relevance": [1.0, 1.0, 1.0]})
    res = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=2, relevance=rel,
                   protected="tail", rng=0, target=target)
    assert res.settings["target_shares"] == pytest.approx(shares, abs=1e-12)
    h, t = shares
    kl_head = np.log(1 / h)                                   # prefix (1, 0)
    kl_half = 0.5 * np.log(0.5 / h) + 0.5 * np.log(0.5 / t)   # prefix (1/2, 1/2)
    z = 1 + 1 / np.log2(3)
    want = (kl_head + (kl_head + kl_half / np.log2(3)) / z) / 2
    st = res.statistics.set_index(["statistic", "arm"])
    assert st.loc[("ndkl", "baseline"), "estimate"] == pytest.approx(want, abs=1e-5)   # ndkl's 1e-7 smoothing
    assert st.loc[("disparity", "baseline"), "estimate"] == pytest.approx(abs(2.5 / 3 - h), abs=1e-12)


def test_default_target_is_catalogue_as_ocef_exposure():
    from ocef.exposure.shares import TARGETS

    assert inspect.signature(mitigate).parameters["target"].default == TARGETS[0] == "catalogue"


def _same_results(a, b, log_a, log_b):
    cols = ["method", "point", "user_group", "statistic", "item_group", "arm"]
    x, y = a.statistics.sort_values(cols, kind="stable"), b.statistics.sort_values(cols, kind="stable")
    assert np.allclose(x["estimate"].to_numpy(float), y["estimate"].to_numpy(float), rtol=1e-12, atol=1e-15,
                       equal_nan=True)
    assert np.allclose(x["ci_low"].to_numpy(float), y["ci_low"].to_numpy(float), rtol=1e-9, atol=1e-12,
                       equal_nan=True)
    la, lb = (pd.read_parquet(p).sort_values(["user", "rank"]).reset_index(drop=True) for p in (log_a, log_b))
    pd.testing.assert_frame_equal(la, lb)


@pytest.mark.slow
def test_the_three_reads_give_the_same_results(tmp_path):
    """One sorted read (small input), the clustered stream (no sort) and the hash partitions (shuffled
    rows, or a relevance join) give the same statistics and the same logs."""
    cand, rel = world(n_users=300)
    kw = dict(item_group="pop", user_group="ug", method="detconstsort", grid=[{"target": "equal"}], k=5, rng=0)
    one = mitigate(cand, **kw, out=tmp_path / "one")                                   # 3600 rows: one sorted read
    clustered = mitigate(cand, **kw, out=tmp_path / "clu", chunk_users=40)             # 2 parts, grouped input
    shuffled = mitigate(cand.sample(frac=1.0, random_state=1), **kw, out=tmp_path / "shu", chunk_users=40)
    for other, folder in ((clustered, "clu"), (shuffled, "shu")):
        for log in ("baseline.parquet", "detconstsort/point-00.parquet"):
            _same_results(one, other, tmp_path / "one" / log, tmp_path / folder / log)
    kw.update(user_group=None, relevance=rel)
    a = mitigate(cand, **kw, out=tmp_path / "rel1")
    b = mitigate(cand, **kw, out=tmp_path / "rel2", chunk_users=40)                    # partitions (joined input)
    _same_results(a, b, tmp_path / "rel1/detconstsort/point-00.parquet", tmp_path / "rel2/detconstsort/point-00.parquet")


def test_candidates_are_ordered_by_score_then_item():
    """order_users equals ORDER BY score DESC, item within each user (ties and string items included)."""
    from ocef.mitigate._select import order_users

    g = np.random.default_rng(5)
    counts = g.integers(1, 30, size=50)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    scores = g.integers(0, 4, size=counts.sum()) / 4.0             # many ties
    items = g.permutation(counts.sum())
    user = np.repeat(np.arange(50), counts)
    want = np.lexsort((items, -scores, user))
    assert order_users(scores, items, starts, counts).tolist() == want.tolist()
    # through the loop: tied scores, string items; the baseline is the top-k by score, ties by item
    cand = pd.DataFrame({"user": np.repeat(np.arange(30), 8), "item": [f"i{j:02d}" for j in g.permutation(240)],
                         "score": g.integers(0, 3, 240) / 2.0})
    cand["pop"] = np.where(g.random(240) < 0.5, "head", "tail")
    res = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=4, rng=0)
    top = cand.sort_values(["user", "score", "item"], ascending=[True, False, True]).groupby("user").head(4)
    share = (top["pop"] == "tail").to_numpy() * 0.5 ** np.tile(np.arange(4), 30)
    got = res.statistics.query("statistic == 'share' and arm == 'baseline' and item_group == 'tail'")["estimate"]
    assert got.iloc[0] == pytest.approx(share.sum() / (30 * (1 - 0.5 ** 4) / 0.5), rel=1e-12)


@pytest.mark.parametrize("groups, items, shares", [
    ([7, 7, 3, 7, 3, 3], [0, 1, 2, 0, 3, 4], [0.6, 0.4]),                  # labels sorted: 3 (3 items), 7 (2)
    (["head", "head", "tail", "head", "tail", "tail"], ["a", "b", "c", "a", "d", "e"], [0.4, 0.6])])
def test_catalogue_target_counts_distinct_items_by_group_code(groups, items, shares):
    """The catalogue target is counted on (group code, item) pairs, not on text labels (an aggregate
    DuckDB can spill at 10^7 users): integer labels and text item keys give the hand count, 2 items
    of one group and 3 of the other among the candidates (item 0 / 'a' listed twice)."""
    cand = pd.DataFrame({"user": [0, 0, 0, 1, 1, 1], "item": items, "score": [.9, .8, .7, .9, .8, .7],
                         "pop": groups})
    res = mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=2, rng=0)
    assert res.settings["target_shares"] == pytest.approx(shares, abs=1e-12)


def test_memory_limit_covers_the_queries_before_the_loop(monkeypatch):
    """The catalogue target's count runs under ``memory_limit`` (it ran before the limit was set, and
    reached 10 GB at 10^7 users under a 1 GB limit); without it, a limit in force (``ocef --memory-limit``)
    is kept, and with none DEFAULT_MEMORY_LIMIT bounds the run (1 GB; the catalogue count took 9.45 GB
    of DuckDB's default 80% of the RAM at 10^7 users); the setting before is restored after."""
    from ocef.backends import duckdb_cursor, set_memory_limit
    from ocef.mitigate import loop

    seen = []
    original = loop._target_shares

    def spy(con, *args, **kwargs):
        seen.append(con.sql("SELECT current_setting('memory_limit')").fetchall()[0][0])
        return original(con, *args, **kwargs)

    monkeypatch.setattr(loop, "_target_shares", spy)
    before = duckdb_cursor().sql("SELECT current_setting('memory_limit')").fetchall()[0][0]
    cand = pd.DataFrame({"user": [0, 0, 0, 1, 1, 1], "item": [0, 1, 2, 0, 3, 4], "score": [.9, .8, .7, .9, .8, .7],
                         "pop": ["head", "head", "tail", "head", "tail", "tail"]})
    mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=2, rng=0, memory_limit="300MB")
    mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=2, rng=0)
    set_memory_limit("700MB")
    try:
        mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.0}], k=2, rng=0)
    finally:
        set_memory_limit(None)
    assert loop.DEFAULT_MEMORY_LIMIT == "1GB" and seen == ["300.0 MiB", "1.0 GiB", "700.0 MiB"]
    assert duckdb_cursor().sql("SELECT current_setting('memory_limit')").fetchall()[0][0] == before


def test_the_stream_holds_a_bounded_number_of_batches(monkeypatch):
    """Candidates grouped by user are streamed: when the loop orders a block of users, DuckDB has read
    at most a few batches more than the loop consumed (its streaming buffer, set small here), not the
    whole input. Every row the scan produces passes a counting function; a reader that reads ahead
    (``list(reader)``, ``.arrow()``, a sort of the whole input) fails this with about 97 000 rows ahead."""
    import numba

    from ocef.mitigate import _select, loop

    n_users, n_cand = 10_000, 10                                     # 100 000 rows, 40 batches of 250 users
    g = np.random.default_rng(0)
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_cand), "item": np.tile(np.arange(n_cand), n_users),
                         "score": g.random(n_users * n_cand), "pop": np.tile(["h"] * 7 + ["t"] * 3, n_users)})
    produced, seen = [0], []

    def count(users):                                                # called by DuckDB on each vector it scans
        produced[0] += len(users)
        return users

    open_, blocks, order = loop._open, loop._user_blocks, _select.order_users

    def counted_open(*args, **kwargs):
        con, names = open_(*args, **kwargs)
        con.execute("SET streaming_buffer_size = '16KB'")            # DuckDB's own read-ahead (default 10 MiB)
        con.create_function("_count_rows", count, ["BIGINT"], "BIGINT", type="arrow", side_effects=True)
        con.execute(f'CREATE TEMP VIEW _counted AS SELECT _count_rows("user") AS "user", item, score, pop '
                    f'FROM {names["c"]}')
        return con, {**names, "c": "_counted"}

    def counted_blocks(*args, **kwargs):
        produced[0] = 0                                              # the stream starts: count its rows only
        yield from blocks(*args, **kwargs)

    def slow_order(scores, *args):                                   # a slow consumer of each block
        seen.append((scores.size, produced[0]))
        time.sleep(0.002)
        return order(scores, *args)

    monkeypatch.setattr(loop, "_open", counted_open)
    monkeypatch.setattr(loop, "_user_blocks", counted_blocks)
    monkeypatch.setattr(_select, "order_users", slow_order)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)           # 80 tiny parallel kernels wait for a busy core each on a loaded machine
    try:
        mitigate(cand, item_group="pop", method="boost", grid=[{"amount": 0.1}], k=5, chunk_users=250, rng=0)
    finally:
        numba.set_num_threads(threads)
    consumed = np.cumsum([size for size, _ in seen])
    ahead = np.array([p for _, p in seen]) - consumed
    assert consumed[-1] == n_users * n_cand and len(seen) >= 30
    assert ahead.max() <= 40_000, f"read {ahead.max()} rows ahead of the loop"


@pytest.mark.parametrize("shuffle", [False, True])
def test_bitset_counts_equal_duckdb_aggregates(shuffle):
    """The one-pass counts (bit sets of integer keys) equal count(DISTINCT ...) and the runs of users:
    negative keys, an item listed in two item groups, rows grouped by user or shuffled; keys that are
    not integers or span too wide a range are left to DuckDB (None)."""
    from ocef.mitigate import loop

    cand, _ = world(n_users=50, n_cand=8, seed=3)
    cand["user"] -= 20
    cand["item"] -= 7
    cand.loc[3, "pop"] = "tail" if cand.loc[3, "pop"] == "head" else "head"          # item 3's row: other group
    if shuffle:
        cand = cand.sample(frac=1.0, random_state=0).reset_index(drop=True)
    con, names = loop._open(cand, None, "pop", None, None)
    got = loop._scan_counts(con, names, "pop", ["head", "tail"], catalogue=True)
    c = names["c"]
    want = con.execute(f'SELECT count(DISTINCT "user"), count(*) FROM {c}').fetchall()[0]
    pairs = dict(con.execute(f"SELECT pop = 'tail', count(*) FROM (SELECT DISTINCT pop, item FROM {c}) "
                             "GROUP BY 1").fetchall())
    runs = int((cand["user"].to_numpy()[1:] != cand["user"].to_numpy()[:-1]).sum()) + 1
    assert (got["users"], got["rows"], got["bad"], got["runs"]) == (*want, 0, runs)
    assert got["items"] == {0: pairs[False], 1: pairs[True]}
    assert (runs == 50) is not shuffle
    for col, value in (("item", cand["item"].astype(str)), ("user", cand["user"] * 2 ** 35)):   # text; 2^32 users wide
        con, names = loop._open(cand.assign(**{col: value}), None, "pop", None, None)
        assert loop._scan_counts(con, names, "pop", ["head", "tail"], catalogue=True) is None


def test_the_counting_pass_changes_no_result(tmp_path, monkeypatch):
    """The loop with the one-pass bit-set counts and with DuckDB's aggregates (the code before them) gives
    the same statistics, points, settings and logs, bit for bit, on grouped input (the stream) and shuffled
    input (the partitions)."""
    from ocef.mitigate import loop

    cand, _ = world(n_users=180, n_cand=12, seed=4)                   # 2160 rows: 2 parts of 1024 rows
    kw = dict(item_group="pop", method="detconstsort", grid=[{"target": "equal"}], k=5, rng=0, chunk_users=30)
    for name, data in (("grouped", cand), ("shuffled", cand.sample(frac=1.0, random_state=2))):
        new = mitigate(data, **kw, out=tmp_path / name / "new")
        with monkeypatch.context() as m:
            m.setattr(loop, "_scan_counts", lambda *args, **kwargs: None)
            old = mitigate(data, **kw, out=tmp_path / name / "old")
        pd.testing.assert_frame_equal(new.statistics, old.statistics, check_exact=True)
        pd.testing.assert_frame_equal(new.points.drop(columns="log"), old.points.drop(columns="log"), check_exact=True)
        assert new.settings == old.settings
        logs = sorted((tmp_path / name / "new").rglob("*.parquet"))
        assert len(logs) == 2
        for log in logs:
            other = tmp_path / name / "old" / log.relative_to(tmp_path / name / "new")
            pd.testing.assert_frame_equal(pd.read_parquet(log), pd.read_parquet(other), check_exact=True)


def test_count_bits_counts_every_set_bit():
    from ocef.mitigate._select import count_bits

    bits = np.random.default_rng(3).integers(0, 256, 1001).astype(np.uint8)
    assert count_bits(bits) == sum(bin(int(b)).count("1") for b in bits)
    assert count_bits(np.zeros(0, np.uint8)) == 0 and count_bits(np.full(3, 255, np.uint8)) == 24
