

def test_share_intervals_stay_inside_the_unit_interval_with_few_users():
    # 3 users: the normal interval of a share reached below 0 and above 1
    import pandas as pd

    from ocef.exposure import exposure_fairness

    log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 30, 10, 30],
                        "rank": [1, 2, 1, 2, 1, 2], "relevance": [1, 0, 1, 1, 0, 1],
                        "genre": ["pop", "niche", "niche", "pop", "pop", "pop"]})
    g = exposure_fairness(log, item_group="genre", browsing="geometric", patience=0.5).groups
    share = g[g.statistic == "share"]
    assert (share.ci_low >= 0).all() and (share.ci_high <= 1).all()
    assert share.ci_low.min() == 0.0 and share.ci_high.max() == 1.0      # the cut is active here
    diff = g[g.statistic == "difference"]
    assert ((diff.ci_low >= -diff.target) & (diff.ci_high <= 1 - diff.target)).all()


def test_total_variation_says_it_has_no_interval():
    # the headline total variation is a plug-in without an interval: the result says so
    import pandas as pd

    from ocef.exposure import exposure_fairness

    log = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 20, 20, 30], "rank": [1, 2, 1, 2],
                        "genre": ["pop", "niche", "niche", "pop"]})
    o = exposure_fairness(log, item_group="genre").overall.iloc[0]
    assert o["total_variation"] >= 0 and o["total_variation_reason"].startswith("no valid interval")
