"""Issue 28: the small-sample floors of every exposure interval family, one Holm family across the
report, and the inputs that used to give silent answers or unbounded work."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from ocef import cli
from ocef.errors import DataError, ParameterError
from ocef.exposure import exposure_fairness


def log_of(n_users, *, p_rel=0.3, seed=0, groups=None, length=5):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), length)
    item = np.concatenate([rng.choice(40, size=length, replace=False) for _ in range(n_users)])
    log = pd.DataFrame({"user": users, "item": item, "rank": np.tile(np.arange(1, length + 1), n_users),
                        "relevance": (rng.random(len(users)) < p_rel).astype(int),
                        "genre": np.where(item < 25, "gen", "niche")})
    if groups is not None:
        log["ug"] = np.asarray(groups)[users]
    return log


# ---------------------------------------------------------------- 1. floors


def test_share_rows_are_withheld_below_15_users_and_printed_from_15():
    from ocef.exposure.shares import SHARE_FLOORS

    assert SHARE_FLOORS["users"] == 15
    for n, printed in ((14, False), (15, True)):
        g = exposure_fairness(log_of(n, seed=3), item_group="genre").groups
        assert g["ci_low"].notna().all() == printed
        if not printed:
            assert g["reason"].str.contains(f"{n} users, fewer than 15").all()
            assert g["significant"].isna().all()


def test_merit_rows_key_on_users_with_a_relevant_item():
    # 60 users but relevance so rare that fewer than 20 users hold one: the merit rows are withheld
    g = exposure_fairness(log_of(60, p_rel=0.03, seed=1), item_group="genre", target="merit").groups
    diff = g[g.statistic == "difference"]
    assert diff["ci_low"].isna().all()
    assert diff["reason"].str.contains("effective users with a relevant item").all()
    g = exposure_fairness(log_of(60, p_rel=0.4, seed=1), item_group="genre", target="merit").groups
    assert g[g.statistic == "difference"]["ci_low"].notna().all()


def test_a_group_of_one_prints_no_interval_and_no_significant_anywhere():
    groups = np.array(["big"] * 59 + ["one"])
    log = log_of(60, groups=groups, seed=2)
    log.loc[log.ug == "one", "genre"] = "niche"                  # a lone user with a very different share
    r = exposure_fairness(log, item_group="genre", user_group="ug", ranking_metrics=["awrf", "ndkl"])
    frames = {"groups": r.groups[r.groups.user_group == "one"], "pairs": r.pairs,
              "users": r.users.pairs, "ranking": r.ranking.pairs}
    for name, f in frames.items():
        assert f["ci_low"].isna().all() and f["ci_high"].isna().all(), name
        assert not (f["significant"] == True).any(), name  # noqa: E712
        assert f["reason"].notna().all(), name


def test_mean_floor_is_on_effective_users_and_applies_to_pairs():
    from ocef.exposure.frame import MIN_EFFECTIVE_USERS, floor_reason, metric_frame

    assert MIN_EFFECTIVE_USERS == 4
    # 30 users, two with precision 0.2: 2 effective users
    assert "2.0 effective users" in floor_reason(30, 0.4, 0.08)
    assert floor_reason(30, 0.4, 0.08, binary=True) is None                  # Wilson: valid at any size
    assert floor_reason(30, 6.0, 1.2) is None
    df = pd.DataFrame({"user": range(40), "g": ["a"] * 20 + ["b"] * 20,
                       "precision": [0.2, 0.2] + [0.0] * 18 + list(np.linspace(0.1, 0.5, 20))})
    res = metric_frame(df, metrics="precision", by="g", reference="b")
    assert np.isnan(res.groups.loc[res.groups.g == "a", "ci_low"]).all()
    assert res.pairs["ci_low"].isna().all() and res.pairs["significant"].isna().all()
    assert res.pairs["reason"].str.startswith("no valid interval: a group has 2.0 effective users").all()


def test_ee_pairs_follow_the_means_floor():
    from ocef.exposure.ranking_metrics import MIN_USERS
    from ocef.exposure.frame import metric_frame_from_moments

    t = pd.DataFrame({"user_group": ["a", "b"], "metric": "ee_disparity", "n": [30, 200],
                      "sum": [30.0, 210.0], "sum_sq": [40.0, 260.0], "min": 0.0, "max": 3.0})
    res = metric_frame_from_moments(t, by=["user_group"], reference="b", min_users=MIN_USERS)
    assert res.pairs["ci_low"].isna().all()
    assert f"fewer than {MIN_USERS['ee_disparity']}" in res.pairs["reason"][0]


def _ee_relevance_table(n_small):
    # a small group with sparse EE-R (mostly zeros, a few large values) and a large reference group
    small = np.r_[np.zeros(n_small - n_small // 4), np.linspace(0.2, 2.0, n_small // 4)]
    large = np.r_[np.zeros(1000), np.linspace(0.1, 1.0, 1000)]
    rows = [{"user_group": g, "metric": "ee_relevance", "n": len(v), "sum": v.sum(), "sum_sq": v @ v,
             "sum_cu": (v * v) @ v, "min": v.min(), "max": v.max()} for g, v in (("a", small), ("b", large))]
    return pd.DataFrame(rows)


def test_ee_relevance_pairs_below_their_floor_are_withheld_with_the_count():
    # 130 users: the group mean is printed (EE-R's mean floor is 120) but the comparison with the
    # reference is not (160: below that the difference of a sparse group covered under 0.94)
    from ocef.exposure.frame import metric_frame_from_moments
    from ocef.exposure.ranking_metrics import HALL_PAIRS, MIN_PAIR_USERS, MIN_USERS

    assert MIN_PAIR_USERS == {"ee_relevance": 160} and HALL_PAIRS == ("ee_relevance",)
    res = metric_frame_from_moments(_ee_relevance_table(130), by=["user_group"], reference="b", min_users=MIN_USERS,
                                    min_pair_users=MIN_PAIR_USERS, skew_corrected=HALL_PAIRS)
    assert res.groups["ci_low"].notna().all()
    assert res.pairs[["ci_low", "ci_high", "p_value", "p_adjusted"]].isna().all().all()
    assert res.pairs["significant"].isna().all()
    assert (res.pairs["reason"] == "no valid interval: a group has 130 users, fewer than 160 for a comparison "
            "(below that, the difference of ee_relevance covered under 0.94 in simulation)").all()


def test_ee_relevance_pairs_from_their_floor_use_halls_difference():
    from ocef.exposure.frame import hall_difference, metric_frame_from_moments
    from ocef.exposure.ranking_metrics import HALL_PAIRS, MIN_PAIR_USERS, MIN_USERS

    t = _ee_relevance_table(160)
    res = metric_frame_from_moments(t, by=["user_group"], reference="b", min_users=MIN_USERS,
                                    min_pair_users=MIN_PAIR_USERS, skew_corrected=HALL_PAIRS)
    h = hall_difference(t.iloc[0].to_dict(), t.iloc[1].to_dict())
    diff = res.pairs[res.pairs.statistic == "difference"].iloc[0]
    assert diff["reason"] is None and h["skewness"] > 0
    assert (diff["ci_low"], diff["ci_high"], diff["p_value"]) == (h["difference_low"], h["difference_high"],
                                                                   h["p_value"])
    # the long right tail of the small group moves the interval up against Welch's
    plain = metric_frame_from_moments(t, by=["user_group"], reference="b").pairs.iloc[0]
    assert diff["ci_low"] > plain["ci_low"] and diff["ci_high"] > plain["ci_high"]


def test_hall_difference_is_welch_without_skewness_and_hall_against_a_constant():
    from ocef.exposure.frame import compare_means, hall_difference, hall_interval, moments

    def sums(x):
        x = np.asarray(x, dtype=float)
        return {"n": len(x), "sum": x.sum(), "sum_sq": x @ x, "sum_cu": (x * x) @ x}

    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]      # symmetric: a = 0
    h, w = hall_difference(sums(x), sums(y)), compare_means(moments(x), moments(y))
    for k in ("difference_low", "difference_high", "p_value"):
        assert h[k] == pytest.approx(w[k], rel=1e-12)
    z = [0.0, 0.0, 0.0, 0.1, 0.2, 1.5]                  # vs a constant group: Hall's one-sample interval
    h, one = hall_difference(sums(z), sums([0.5] * 4)), hall_interval(6, *(sums(z)[k] for k in ("sum", "sum_sq", "sum_cu")))
    assert h["difference_low"] == pytest.approx(one["ci_low"] - 0.5, rel=1e-12)
    assert h["difference_high"] == pytest.approx(one["ci_high"] - 0.5, rel=1e-12)
    assert h["skewness"] == pytest.approx(one["skewness"] / np.sqrt(6), rel=1e-12)
    assert hall_difference(sums([1.0]), sums(y))["reason"] == "no valid interval: fewer than 2 users in a group"


@pytest.mark.slow
def test_ee_relevance_hall_difference_covers_at_its_floor():
    # benchmarks/ee_floor.py's group-5% design at the floor (160 users vs 19 x 160): Hall's difference
    # covered 0.943 (10,000 replicates), Welch's 0.933; 1,000 replicates here (SE 0.007)
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_ranking_metrics import simulate_log
    from ocef.exposure import per_user_fairness
    from ocef.exposure.frame import hall_difference
    from ocef.exposure.ranking_metrics import MIN_PAIR_USERS

    def pop(n, seed, **kw):
        log, judg = simulate_log(n, rng=seed, **kw)
        return per_user_fairness(log, item_group="g", judgments=judg, metrics=["ee_relevance"],
                                 backend="pandas")["ee_relevance"].to_numpy()

    small, large = pop(1000, 10, skew=2.0, samples=3), pop(20000, 11, skew=0.0)
    truth, n, gen = small.mean() - large.mean(), MIN_PAIR_USERS["ee_relevance"], np.random.default_rng(0)

    def sums(v):
        return {"n": len(v), "sum": v.sum(), "sum_sq": v @ v, "sum_cu": (v * v) @ v}

    hit = 0
    for _ in range(1000):
        h = hall_difference(sums(small[gen.integers(0, len(small), n)]), sums(large[gen.integers(0, len(large), 19 * n)]))
        hit += h["difference_low"] <= truth <= h["difference_high"]
    assert hit / 1000 >= 0.925, hit


def test_ranking_fairness_withholds_ee_relevance_pairs_of_small_groups():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_ranking_metrics import simulate_log
    from ocef.exposure.ranking_metrics import ranking_fairness

    log, judg = simulate_log(300, rng=3, skew=0.0)
    log["ug"] = np.where(log["user"] < 130, "x", "y")           # 130 and 170 users: means printed (120)
    pairs = ranking_fairness(log, item_group="g", user_group="ug", judgments=judg, backend="pandas",
                             metrics=["ee_relevance", "ee_difference"]).pairs.set_index(["metric", "statistic"])
    assert pairs.loc[("ee_relevance", "difference"), "reason"].startswith(
        "no valid interval: a group has 130 users, fewer than 160 for a comparison")
    assert np.isnan(pairs.loc[("ee_relevance", "difference"), "ci_low"])
    assert pairs.loc[("ee_difference", "difference"), "ci_low"] < pairs.loc[("ee_difference", "difference"), "ci_high"]


# ---------------------------------------------------------------- 2. one family


def test_report_family_adjusts_every_table_together_and_says_so():
    rng = np.random.default_rng(4)
    log = log_of(90, groups=rng.choice(["x", "y", "z"], 90), seed=4)
    rep = exposure_fairness(log, item_group="genre", user_group="ug", ranking_metrics=["ndkl"])
    tab = exposure_fairness(log, item_group="genre", user_group="ug", ranking_metrics=["ndkl"], family="table")
    n_tests = sum(int((f["statistic"].ne("ratio") & f["p_value"].notna()).sum())
                  for f in (rep.groups, rep.pairs, rep.users.pairs, rep.ranking.pairs))
    assert rep.overall["family"][0] == (f"report: Holm over all {n_tests} tests of this output "
                                        "(groups, pairs, users, ranking)")
    assert tab.overall["family"][0].startswith("table: Holm within each table (groups ")
    assert rep.family == "report" and rep.to_dict()["family"] == "report"
    # the smallest p-value: Holm multiplies it by the number of tests of its family
    p = rep.pairs["p_value"].dropna()
    i = p.idxmin()
    assert rep.pairs.loc[i, "p_adjusted"] == pytest.approx(min(1.0, p[i] * n_tests)) or \
        rep.pairs.loc[i, "p_adjusted"] >= tab.pairs.loc[i, "p_adjusted"]
    for a, b in ((rep.groups, tab.groups), (rep.pairs, tab.pairs), (rep.users.pairs, tab.users.pairs)):
        ok = a["p_adjusted"].notna()
        assert (a.loc[ok, "p_adjusted"] >= b.loc[ok, "p_adjusted"] - 1e-15).all()


def test_family_option_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "log.parquet"
    log_of(40, groups=np.array(["f", "m"] * 20)).to_parquet(path)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "ug",
                     "--family", "table"]) == 0
    assert "significance family: table: Holm within each table" in capsys.readouterr().out
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "ug"]) == 0
    assert "significance family: report: Holm over all" in capsys.readouterr().out


# ---------------------------------------------------------------- 3. silent answers, unbounded work


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@pytest.mark.parametrize("change, message", [
    ({"relevance": np.nan}, "relevance must be a finite number >= 0"),
    ({"relevance": np.inf}, "maximum inf"),
    ({"relevance": 1e308}, "maximum 1e+308"),
    ({"relevance": -1.0}, "minimum -1.0"),
    ({"n_relevant": -1.0}, "n_relevant must be a finite count >= 0"),
    ({"n_relevant": np.nan}, "n_relevant must be a finite count >= 0"),
    ({"item": 1}, "have an item twice in one ranking"),
    ({"rank": 10 ** 9}, "reaches 1000000000 but the log has"),
])
def test_bad_values_are_refused_naming_the_column(tmp_path, backend, change, message):
    log = log_of(20).astype({"relevance": float})
    col, value = next(iter(change.items()))
    if col == "n_relevant":
        log["n_relevant"] = 3.0
    if col == "item":
        log.loc[1, "item"] = log.loc[0, "item"]
    else:
        log.loc[0, col] = value
    src = log
    if backend == "duckdb":
        src = tmp_path / "log.parquet"
        log.to_parquet(src)
        src = str(src)
    t0 = time.perf_counter()
    with pytest.raises(DataError, match=message.replace("+", r"\+").replace("(", r"\(")):
        exposure_fairness(src, item_group="genre", backend=backend, metrics=None)
    assert time.perf_counter() - t0 < 10


def test_huge_k_is_bounded_and_said(tmp_path):
    t0 = time.perf_counter()
    r = exposure_fairness(log_of(20), item_group="genre", k=10 ** 12)
    assert time.perf_counter() - t0 < 10
    assert "k = 1000000000000 is larger than the longest list (5)" in r.overall["notes"][0]
    path = tmp_path / "log.parquet"
    log_of(20).to_parquet(path)
    t0 = time.perf_counter()
    r = exposure_fairness(str(path), item_group="genre", k=50)
    assert time.perf_counter() - t0 < 10 and "k = 50 is larger" in r.overall["notes"][0]


def test_ndcg_says_how_many_users_it_leaves_out():
    log = log_of(30, p_rel=0.1, seed=7)
    has = log.groupby("user")["relevance"].max()
    r = exposure_fairness(log, item_group="genre")
    assert f"ndcg: {int((has == 0).sum())} of 30 users have no value" in r.overall["notes"][0]


def test_options_that_do_not_apply_are_said_or_refused():
    log = log_of(30)
    r = exposure_fairness(log, item_group="genre", judgments=log[["user", "item", "relevance"]])
    assert "judgments were not used" in r.overall["notes"][0]
    side = log[["item"]].drop_duplicates().assign(genre="gen")
    r = exposure_fairness(log, item_group="genre", item_groups=side)
    assert "the log has the column 'genre'" in r.overall["notes"][0]
    with pytest.raises(ParameterError, match="reference='x' needs user_group"):
        exposure_fairness(log, item_group="genre", reference="x")
    with pytest.raises(ParameterError, match="too close to 1"):
        exposure_fairness(log, item_group="genre", confidence=0.9999999999999999)


def test_reference_given_as_text_names_an_integer_user_group(tmp_path, capsys):
    log = log_of(40, groups=np.array([0, 1] * 20))
    r = exposure_fairness(log, item_group="genre", user_group="ug", reference="1")
    assert r.pairs["reference"].unique().tolist() == [1]
    path = tmp_path / "log.parquet"
    log.to_parquet(path)
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre", "--user-group", "ug",
                     "--reference", "1", "--json"]) == 0


def test_a_file_named_like_a_glob_is_read_as_itself(tmp_path):
    log_of(20).to_csv(tmp_path / "[x].csv", index=False)
    log_of(16).to_csv(tmp_path / "x.csv", index=False)
    r = exposure_fairness(str(tmp_path / "[x].csv"), item_group="genre")
    assert r.overall["n_users"][0] == 20


# ---------------------------------------------------------------- the coverage of the rule, measured


@pytest.mark.slow
def test_coverage_of_the_printed_share_and_precision_intervals():
    # 600 replicates at 20 users (sparse relevance for precision), seed fixed: the rows the floors
    # let through cover at least 0.93 in benchmarks/exposure_small_groups.py; here >= 0.93 - 2 SE
    import importlib.util
    import pathlib

    from ocef.exposure.frame import floor_reason, mean_interval
    from ocef.exposure.shares import _share_rows, share_intervals

    spec = importlib.util.spec_from_file_location(
        "bench", pathlib.Path(__file__).parents[3] / "benchmarks" / "exposure_small_groups.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = np.random.default_rng(28)
    tr = bench.truth(0.05, rng)
    share, prec = [], []
    for _ in range(600):
        X, M, p, *_ = bench.population(20, rng, 0.05)
        r = share_intervals(20, X.sum(0), X.T @ X, target="catalogue", item_counts=[6, 3, 1])
        row = _share_rows("u", "g3", 20, r[2], 0.95, "catalogue")[0]
        if row["reason"] is None:
            share.append(row["ci_low"] <= tr["share"][2] <= row["ci_high"])
        if floor_reason(20, p.sum(), p @ p, minimum=0.0) is None:
            m = mean_interval(20, p.sum(), p @ p)
            prec.append(m["ci_low"] <= tr["precision"] <= m["ci_high"])
    for cov in (share, prec):
        assert len(cov) > 200
        se = np.sqrt(0.95 * 0.05 / len(cov))
        assert np.mean(cov) >= 0.93 - 2 * se, (np.mean(cov), len(cov))


@pytest.mark.parametrize("first", ["nan", "1"])
def test_a_nan_relevance_in_a_csv_is_refused_in_any_item_group(tmp_path, capsys, first):
    # DuckDB reads "nan" as a DOUBLE NaN; the check must see it whichever item group holds it
    path = tmp_path / "log.csv"
    second = "1" if first == "nan" else "nan"
    path.write_text(f"user,item,rank,relevance,genre\n1,1,1,{first},a\n1,2,2,{second},b\n")
    assert cli.main(["exposure", "--rankings", str(path), "--item-group", "genre"]) == 2
    assert "relevance must be a finite number" in capsys.readouterr().err


@pytest.mark.parametrize("n_small, withheld", [(160, True), (399, True), (400, False)])
def test_ee_relevance_ratio_interval_needs_its_own_floor(n_small, withheld):
    # from 160 users the difference (Hall) and its test print; the delta-method ratio covered
    # 0.934-0.943 at 160-320 users and 0.946-0.954 from 400 (benchmarks/ee_floor.py): below 400 the
    # ratio row keeps its estimate and the test but prints no interval, with the count in the reason
    from ocef.exposure.frame import metric_frame_from_moments
    from ocef.exposure.ranking_metrics import HALL_PAIRS, MIN_PAIR_USERS, MIN_RATIO_USERS, MIN_USERS

    assert MIN_RATIO_USERS == {"ee_relevance": 400, "ee_difference": 30}
    res = metric_frame_from_moments(_ee_relevance_table(n_small), by=["user_group"], reference="b",
                                    min_users=MIN_USERS, min_pair_users=MIN_PAIR_USERS,
                                    min_ratio_users=MIN_RATIO_USERS, skew_corrected=HALL_PAIRS)
    diff, ratio = (res.pairs[res.pairs.statistic == s].iloc[0] for s in ("difference", "ratio"))
    assert pd.isna(diff["reason"]) and diff["ci_low"] < diff["ci_high"]
    assert ratio["estimate"] > 0 and ratio["p_value"] == diff["p_value"]
    if withheld:
        assert np.isnan(ratio["ci_low"]) and np.isnan(ratio["ci_high"])
        assert ratio["reason"] == (f"no valid interval for the ratio: a group has {n_small} users, fewer than 400 "
                                   "(below that, the ratio of ee_relevance covered under 0.94 in simulation)")
    else:
        assert pd.isna(ratio["reason"]) and ratio["ci_low"] < ratio["estimate"] < ratio["ci_high"]


def test_campaign_findings_text_ranks_huge_k_negative_judgments(tmp_path):
    """Issue 28's last campaign: a text rank column (a traceback on both backends), k = 10**400 (an
    OverflowError) and negative judgments (accepted silently) are one-line errors naming the input."""
    from ocef.exposure.logs import check_judgments

    log = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "rank": ["a", "b", "a"], "g": ["x", "y", "x"]})
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    for backend in ("duckdb", "pandas"):
        with pytest.raises(DataError, match="column 'rank' must hold numeric ranks 1, 2, ...; found str values such as 'a'"):
            exposure_fairness(str(path), item_group="g", backend=backend)
    ok = log.assign(rank=[1, 2, 1])
    with pytest.raises(ParameterError, match=r"k must be an integer in \[1, 9007199254740992\], got an integer of 401 digits"):
        exposure_fairness(ok, item_group="g", k=10**400)
    with pytest.raises(DataError, match="judgments: column 'relevance' must be >= 0 \\(relevance grades\\); found -1"):
        check_judgments(pd.DataFrame({"user": [1], "item": [1], "relevance": [-1.0]}))
