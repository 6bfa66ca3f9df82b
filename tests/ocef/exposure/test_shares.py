"""Provider-side shares: intervals inside [0, 1], the targets (catalogue, equal, merit) and what they show."""
import pytest


def test_share_intervals_are_withheld_below_the_floor_and_inside_the_unit_interval_above():
    # 3 users: below the measured floor (15 users), every share-family row is null with its reason;
    # at 40 users the logit interval lies inside (0, 1) and difference/ratio are the share's, moved
    import numpy as np
    import pandas as pd

    from ocef.exposure import exposure_fairness
    from ocef.exposure.shares import SHARE_FLOORS

    log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 30, 10, 30],
                        "rank": [1, 2, 1, 2, 1, 2], "relevance": [1, 0, 1, 1, 0, 1],
                        "genre": ["pop", "niche", "niche", "pop", "pop", "pop"]})
    g = exposure_fairness(log, item_group="genre", browsing="geometric", patience=0.5).groups
    assert g[["ci_low", "ci_high", "p_value"]].isna().all().all()
    assert g["significant"].isna().all()
    assert g["reason"].str.startswith(f"no valid interval: 3 users, fewer than {SHARE_FLOORS['users']}").all()
    rng = np.random.default_rng(0)
    big = pd.DataFrame({"user": np.repeat(np.arange(40), 2), "rank": np.tile([1, 2], 40),
                        "genre": rng.choice(["pop", "niche"], 80, p=[0.9, 0.1])})
    g = exposure_fairness(big, item_group="genre", target="equal").groups
    share, diff = g[g.statistic == "share"], g[g.statistic == "difference"]
    assert ((share.ci_low > 0) & (share.ci_high < 1)).all() and share.reason.isna().all()
    np.testing.assert_allclose(diff.ci_low.to_numpy(), share.ci_low.to_numpy() - 0.5)


def test_total_variation_says_it_has_no_interval():
    # the headline total variation is a plug-in without an interval: the result says so
    import pandas as pd

    from ocef.exposure import exposure_fairness

    log = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 20, 20, 30], "rank": [1, 2, 1, 2],
                        "genre": ["pop", "niche", "niche", "pop"]})
    o = exposure_fairness(log, item_group="genre").overall.iloc[0]
    assert o["total_variation"] >= 0 and o["total_variation_reason"].startswith("no valid interval")


def skewed_log(n_users=100):
    """A head of 2 items of 10 (20% of the catalogue) with 4x the attention per item: the head holds
    half of the attention (geometric, p = 0.5: half of the users see a head item first and a tail item
    second, the other half the reverse)."""
    import pandas as pd

    rows = []
    for u in range(n_users):
        head, tail = u % 2, 2 + u % 8
        first, second = (head, tail) if u % 4 < 2 else (tail, head)
        rows += [(u, first, 1), (u, second, 2)]
    log = pd.DataFrame(rows, columns=["user", "item", "rank"])
    log["group"] = ["head" if i < 2 else "tail" for i in log["item"]]
    return log


def test_catalogue_target_shows_a_fourfold_per_item_skew_that_equal_hides():
    from ocef.exposure import exposure_fairness

    log = skewed_log()
    res = {t: exposure_fairness(log, item_group="group", target=t).groups.set_index(["item_group", "statistic"])
           for t in ("catalogue", "equal")}
    head = {t: g.loc[("head", "difference")] for t, g in res.items()}
    assert res["catalogue"].loc[("head", "share"), "estimate"] == pytest.approx(0.5)
    assert head["equal"]["target"] == 0.5 and head["equal"]["estimate"] == pytest.approx(0.0, abs=1e-12)
    assert not head["equal"]["significant"]                        # 1/G: the skew is on target
    assert head["catalogue"]["target"] == pytest.approx(0.2)         # 2 of the 10 items
    assert head["catalogue"]["estimate"] == pytest.approx(0.3) and head["catalogue"]["significant"]
    ratio = res["catalogue"].loc[("head", "ratio"), "estimate"] / res["catalogue"].loc[("tail", "ratio"), "estimate"]
    assert ratio == pytest.approx(4.0)                               # attention per item, head / tail


def test_default_target_is_catalogue_and_the_output_says_what_it_implies():
    import pandas as pd

    from ocef.exposure import exposure_fairness

    log = skewed_log(8)
    res = exposure_fairness(log, item_group="group")
    o = res.overall.iloc[0]
    assert res.target == o["target"] == "catalogue"
    assert "items of the log" in o["target_meaning"] and "equal exposure per item" in o["target_meaning"]
    # a side table is the catalogue: items never shown count
    items = pd.DataFrame({"item": range(20), "group": ["head"] * 2 + ["tail"] * 18})
    res = exposure_fairness(log.drop(columns="group"), item_group="group", item_groups=items)
    g = res.groups[(res.groups.statistic == "share")].set_index("item_group")
    assert g.loc["head", "target"] == pytest.approx(0.1)
    assert "item_groups table" in res.overall.iloc[0]["target_meaning"]
    assert "whatever its size" in exposure_fairness(log, item_group="group", target="equal").overall.iloc[0][
        "target_meaning"]


def test_catalogue_target_needs_the_items():
    from ocef.errors import DataError
    from ocef.exposure import exposure_fairness

    log = skewed_log(8).drop(columns="item")
    with pytest.raises(DataError, match="catalogue"):
        exposure_fairness(log, item_group="group")
    assert exposure_fairness(log, item_group="group", target="equal").target == "equal"
