import numpy as np
import pandas as pd
import pytest

from ocef.pairwise import (bootstrap_counts, bootstrap_counts_literal, decompose_accuracy, exposure_table,
                           pair_counts, pairwise_accuracy, position_decomposition, rank_positions)


def _ranking_pairs(ranking, clicked):
    """Pairs of one query: the clicked item against every other item, scores = reverse positions."""
    score = {item: len(ranking) - k for k, item in enumerate(ranking)}
    return pd.DataFrame([{"query": clicked, "j": clicked, "jp": o, "s_j": clicked[0], "s_jp": o[0],
                          "score_j": score[clicked], "score_jp": score[o]} for o in ranking if o != clicked])


def seed_examples():
    """Sec. 3.3: [A2, A3, B1, A1, B2, B3] with A1 clicked and [A1, A2, A3, B1, B2, B3] with B1 clicked."""
    return pd.concat([_ranking_pairs(["A2", "A3", "B1", "A1", "B2", "B3"], "A1"),
                      _ranking_pairs(["A1", "A2", "A3", "B1", "B2", "B3"], "B1")], ignore_index=True)


def random_pairs(n=3000, n_queries=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"query": rng.integers(0, n_queries, n), "j": np.arange(n), "jp": np.arange(n) + n,
                         "s_j": rng.choice(["a", "b"], n), "s_jp": rng.choice(["a", "b"], n),
                         "z": rng.integers(1, 4, n), "score_j": rng.integers(0, 4, n).astype(float),
                         "score_jp": rng.integers(0, 4, n).astype(float)})


def test_seed_worked_examples():
    res = pairwise_accuracy(seed_examples(), n_resamples=0)
    acc = res.cells.set_index(["kind", "group"]).accuracy
    assert acc[("overall", "A")] == pytest.approx(2 / 5) and acc[("overall", "B")] == pytest.approx(2 / 5)
    assert acc[("intra", "A")] == 0 and acc[("intra", "B")] == 1          # A1 below A2, A3; B1 above B2, B3
    assert acc[("inter", "A")] == pytest.approx(2 / 3) and acc[("inter", "B")] == 0   # all B below all A
    summary = res.summary().set_index("kind")
    assert summary.ratio["overall"] == 1.0 and summary.gap["inter"] == pytest.approx(2 / 3)


def test_ties_count_half_and_empty_cells_are_nan():
    pairs = pd.DataFrame({"query": [0, 1], "j": [1, 2], "jp": [3, 4], "s_j": [0, 0], "s_jp": [0, 1],
                          "z": [5, 5], "score_j": [1.0, 2.0], "score_jp": [1.0, 1.0]})
    cells = pairwise_accuracy(pairs, n_resamples=20, rng=0).cells.set_index(["kind", "group"])
    assert cells.accuracy[("intra", 0)] == 0.5 and cells.accuracy[("overall", 0)] == 0.75
    assert cells.n_pairs[("overall", 1)] == 0 and np.isnan(cells.accuracy[("overall", 1)])
    assert np.isnan(cells.ci_low[("inter", 1)])


def test_eq7_decomposition_is_exact():
    d = decompose_accuracy(random_pairs())
    np.testing.assert_allclose(d.recomposed, d.overall, rtol=0, atol=1e-14)
    np.testing.assert_allclose(d.weight_intra + d.weight_inter, 1.0)


def test_summary_averages_levels_both_groups_have():
    pairs = random_pairs()
    pairs = pairs[~((pairs.z == 3) & (pairs.s_j == "b"))]                  # level 3 only for group a
    res = pairwise_accuracy(pairs, n_resamples=0)
    c = res.cells[res.cells.kind == "overall"].set_index(["group", "z"]).accuracy
    s = res.summary().set_index("kind")
    assert s.n_levels["overall"] == 2
    assert s.accuracy_0["overall"] == pytest.approx((c[("a", 1)] + c[("a", 2)]) / 2)
    assert s.ratio["overall"] == pytest.approx(s.accuracy_0["overall"] / s.accuracy_1["overall"])


def test_duckdb_and_pandas_engines_agree(tmp_path):
    pairs = random_pairs()
    scores = pd.DataFrame({"item": np.arange(6000), "score": np.random.default_rng(1).integers(0, 5, 6000)})
    pairs.drop(columns=["score_j", "score_jp"]).to_csv(tmp_path / "p.csv", index=False)
    scores.to_csv(tmp_path / "s.csv", index=False)
    a = pair_counts(pairs.drop(columns=["score_j", "score_jp"]), scores=scores, backend="pandas")
    b = pair_counts(tmp_path / "p.csv", scores=tmp_path / "s.csv")
    assert a.group_names == b.group_names and a.z_levels == b.z_levels
    pd.testing.assert_frame_equal(a.groups, b.groups)
    np.testing.assert_array_equal(a.total, b.total)
    key = lambda c: sorted(zip(c.multiplicity.tolist(), c.profiles.reshape(len(c.multiplicity), -1).tolist()))
    assert key(a) == key(b)


def test_profiles_reduce_queries_exactly():
    pairs = random_pairs(n=500, n_queries=40)
    c = pair_counts(pairs)
    assert c.n_queries == 40 and c.n_pairs == 500
    per_query = pairs.groupby("query").size().sort_values().to_numpy()
    np.testing.assert_array_equal(np.sort(np.repeat(c.profiles.sum(axis=(1, 2, 3, 4)), c.multiplicity)), per_query)


@pytest.mark.parametrize("n, n_queries", [(400, 30), (2000, 100_000)])   # index draws / multinomial
def test_fast_bootstrap_matches_literal_cluster_bootstrap(n, n_queries):
    c = pair_counts(random_pairs(n=n, n_queries=n_queries, seed=3))
    fast = bootstrap_counts(c, 4000, rng=0).reshape(4000, -1).astype(float)
    lit = bootstrap_counts_literal(c, 4000, rng=1).reshape(4000, -1).astype(float)
    # same mean and covariance of the resampled counts (4000 draws: tolerance ~4 SE)
    se = lit.std(axis=0) / np.sqrt(4000) * np.sqrt(2)
    assert np.all(np.abs(fast.mean(axis=0) - lit.mean(axis=0)) <= 4 * se + 1e-12)
    np.testing.assert_allclose(fast.std(axis=0), lit.std(axis=0), rtol=0.08, atol=0.05)
    np.testing.assert_allclose(fast.mean(axis=0), c.total.ravel(), rtol=0.02, atol=0.2)


@pytest.mark.parametrize("n, n_queries", [(400, 30), (3000, 300), (1000, 700)])
def test_index_draw_bootstrap_is_the_literal_bootstrap_draw_for_draw(n, n_queries):
    # few queries per profile: the vectorized index draws are the literal loop's draws, whatever the chunk
    c = pair_counts(random_pairs(n=n, n_queries=n_queries, seed=4))
    assert c.profiles.shape[0] * 8 > c.n_queries                        # the index-draw path
    literal = bootstrap_counts_literal(c, 60, rng=9)
    np.testing.assert_array_equal(bootstrap_counts(c, 60, rng=9), literal)
    np.testing.assert_array_equal(bootstrap_counts(c, 60, rng=9, chunk=7 * c.n_queries), literal)


def test_same_seed_same_intervals():
    a = pairwise_accuracy(random_pairs(), n_resamples=50, rng=7).cells
    b = pairwise_accuracy(random_pairs(), n_resamples=50, rng=7).cells
    pd.testing.assert_frame_equal(a, b)


def test_exposure_shares_sum_to_one():
    ex = exposure_table(random_pairs(), n_resamples=30, rng=0)
    sums = ex.groupby("z")[["click_share", "exposure"]].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)
    assert (ex.exposure_ci_low <= ex.exposure).all() and (ex.exposure <= ex.exposure_ci_high).all()


def test_exposure_of_seed_examples():
    ex = exposure_table(seed_examples(), n_resamples=0).set_index("group")
    # inter pairs: 3 with A1 clicked (A1 above B2, B3; below B1) and 3 with B1 clicked (below A1..A3)
    assert ex.exposure["A"] == pytest.approx(5 / 6) and ex.click_share["A"] == 0.5


def test_rank_positions_eq8():
    pos = rank_positions([[3.0, 2.0, np.nan, 2.0, 5.0]])
    np.testing.assert_array_equal(pos, [[2.0, 4.0, np.nan, 4.0, 1.0]])     # ties share the worse position
    g = np.random.default_rng(0).normal(size=(5, 8))
    np.testing.assert_array_equal(rank_positions(g), 8 - (g[:, :, None] > g[:, None, :]).sum(axis=2))


def test_position_decomposition_recomposes_position():
    g = np.random.default_rng(1).normal(size=(4, 9))
    g[0, 3] = np.nan
    d = position_decomposition(g, np.array([0, 1] * 4 + [0]))
    np.testing.assert_allclose(d.recomposed, d.position)


def test_bad_inputs():
    pairs = random_pairs(n=20)
    with pytest.raises(ValueError, match="clicked item j is also the unclicked"):
        pair_counts(pairs.assign(jp=pairs.j))
    with pytest.raises(ValueError, match="subgroup"):
        pair_counts(pairs.assign(s_j=np.arange(20) % 3))
    with pytest.raises(ValueError, match=r"missing column\(s\) \['score_j', 'score_jp'\]"):
        pair_counts(pairs.drop(columns=["score_j", "score_jp"]))
    with pytest.raises(ValueError, match="subgroup 'c' is not a group"):
        pair_counts(pairs, subgroup="c")
    three = pair_counts(pairs.assign(s_j=np.arange(20) % 3), subgroup=2)
    assert three.group_names == ("not 2", 2)
    with pytest.raises(ValueError, match="backend"):
        pair_counts(pairs, backend="spark")
    with pytest.raises(FileNotFoundError):
        pair_counts("/nonexistent/pairs.csv")


def test_both_engines_name_the_same_missing_columns(tmp_path):
    pairs = random_pairs(n=20).drop(columns=["score_j", "score_jp"])
    pairs.to_csv(tmp_path / "p.csv", index=False)
    messages = []
    for source, engine in ((pairs, "pandas"), (tmp_path / "p.csv", "duckdb")):
        with pytest.raises(ValueError, match=r"missing column\(s\) \['score_j', 'score_jp'\] \(give scores") as err:
            pair_counts(source, backend=engine)
        messages.append(str(err.value).split(";")[0])
    assert messages[0] == messages[1]
    with pytest.raises(ValueError, match=r"cluster='session': pairs has no column 'session'"):
        pair_counts(tmp_path / "p.csv", scores=pd.DataFrame({"item": [0], "score": [1.0]}), cluster="session",
                    backend="duckdb")


@pytest.mark.parametrize("per_query", [1, 3, "mixed"])
def test_profiles_equal_a_groupby_of_the_queries(per_query):
    rng = np.random.default_rng(5)
    n_q = 60
    if per_query == "mixed":
        q = rng.integers(0, n_q, 400)
    else:                                       # every pair of a query in one cell (same groups, z, scores)
        q = np.repeat(np.arange(n_q), per_query)
    cell_of_q = rng.integers(0, 2, (n_q, 3))
    s_j, s_jp, z = cell_of_q[q, 0], cell_of_q[q, 1], cell_of_q[q, 2]
    if per_query == "mixed":
        s_j, z = rng.integers(0, 2, q.size), rng.integers(0, 2, q.size)
    pairs = pd.DataFrame({"query": q, "j": np.arange(q.size), "jp": np.arange(q.size) + q.size, "s_j": s_j,
                          "s_jp": s_jp, "z": z, "score_j": 1.0, "score_jp": 0.0})
    c = pair_counts(pairs)
    per = {k: np.zeros((2, 2, 2, 3), dtype=np.int64) for k in np.unique(q)}
    for row in pairs.itertuples():
        per[row.query][row.s_j, int(row.s_j != row.s_jp), row.z, 2] += 1
    expected = sorted((v.ravel().tolist() for v in per.values()))
    got = sorted(p.ravel().tolist() for p, m in zip(c.profiles, c.multiplicity) for _ in range(m))
    assert got == expected


def test_counts_from_arrays_weight_is_a_number_of_identical_pairs():
    from ocef.pairwise import counts_from_arrays

    q, s_j, s_jp, z, o = [0, 0, 1], ["a", "b", "a"], ["b", "b", "a"], [1, 1, 1], [2, 1, 0]
    weighted = counts_from_arrays(q, s_j, s_jp, z, o, weight=[3, 1, 2])
    repeated = counts_from_arrays(np.repeat(q, [3, 1, 2]), np.repeat(s_j, [3, 1, 2]), np.repeat(s_jp, [3, 1, 2]),
                                  np.repeat(z, [3, 1, 2]), np.repeat(o, [3, 1, 2]))
    np.testing.assert_array_equal(weighted.total, repeated.total)
    assert weighted.n_pairs == 6 and weighted.n_queries == 2


@pytest.mark.parametrize("scores", [
    pd.DataFrame({"item": [1, 1, 2, 3, 4, 5, 6], "score": [1.0, 9.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
    pd.DataFrame({"query": [0, 0, 0, 1, 1, 2, 2], "item": [1, 1, 4, 2, 5, 3, 6], "score": [1.0, 9.0, 0, 1, 0, 1, 0]}),
])
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_both_engines_refuse_an_item_scored_twice(scores, engine):
    # the DuckDB join used to count the pairs of an item scored twice twice (4 pairs from 3)
    pairs = pd.DataFrame({"query": [0, 1, 2], "j": [1, 2, 3], "jp": [4, 5, 6], "s_j": ["a", "b", "a"],
                          "s_jp": ["b", "a", "a"]})
    with pytest.raises(ValueError, match="scores has several rows for the same"):
        pair_counts(pairs, scores=scores, backend=engine)
    once = scores.drop_duplicates(["query", "item"] if "query" in scores else ["item"])
    assert pair_counts(pairs, scores=once, backend=engine).n_pairs == 3


def test_duckdb_counts_run_on_the_process_database_and_threads_keep_their_own_pairs(monkeypatch):
    import threading

    import duckdb

    from ocef import backends as logs_engine

    logs_engine.duckdb_cursor().close()          # the process's database exists
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: pytest.fail("a second DuckDB database was opened"))
    frames = [random_pairs(n=300 + 50 * k, n_queries=40, seed=k) for k in range(4)]
    expected = [pair_counts(f, backend="pandas").total for f in frames]
    got, errors = {}, []

    def count(k):
        try:
            for _ in range(3):                             # every thread registers its own pairs_df
                got.setdefault(k, []).append(pair_counts(frames[k], backend="duckdb").total)
        except BaseException as exc:                       # reported below, with the thread's frame
            errors.append((k, exc))

    threads = [threading.Thread(target=count, args=(k,)) for k in range(len(frames))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, totals in got.items():
        for total in totals:
            np.testing.assert_array_equal(total, expected[k])
    assert sorted(got) == list(range(len(frames)))


def test_both_engines_name_the_missing_columns_of_scores(tmp_path):
    pairs = random_pairs(n=20).drop(columns=["score_j", "score_jp"])
    bad = pd.DataFrame({"item": np.arange(40), "value": 1.0})
    messages = []
    for engine in ("pandas", "duckdb"):
        with pytest.raises(ValueError, match=r"scores is missing column\(s\) \['score'\]; it has \['item', 'value'\]") as err:
            pair_counts(pairs, scores=bad, backend=engine)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_pair_counts_groups_view_by_hand(backend):
    # group 0 clicked: one intra win (2 > 1), one inter tie; group 1 clicked: inter loss, inter win
    pairs = pd.DataFrame({"query": [0, 1, 2, 3], "j": [0, 1, 2, 3], "jp": [4, 5, 6, 7], "s_j": ["a", "a", "b", "b"],
                          "s_jp": ["a", "b", "a", "a"], "z": [1, 1, 1, 1], "score_j": [2.0, 1.0, 0.0, 3.0],
                          "score_jp": [1.0, 1.0, 1.0, 1.0]})
    counts = pair_counts(pairs, backend=backend)
    assert counts.group_names == ("a", "b")
    g = counts.groups
    assert g["group"].tolist() == ["a", "b"] and g["index"].tolist() == [0, 1]
    assert g["n_pairs"].tolist() == [2, 2] and g["n_intra"].tolist() == [1, 0] and g["n_inter"].tolist() == [1, 2]
    assert g["wins"].tolist() == [1, 1] and g["ties"].tolist() == [1, 0] and g["losses"].tolist() == [0, 1]
    assert counts.to_dict()["groups"] == ["a", "b"]          # the JSON keeps the names under "groups"
