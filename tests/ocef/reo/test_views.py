"""The result views of the REO count and monitoring types: ``groups`` is a DataFrame with one row
per group (docs/glossary.md), the names are ``group_names``; the JSON keeps the names under
``groups``."""
import numpy as np
import pandas as pd
import pytest

from ocef import reo


def _logs():
    # day 0: default a: 2 rows (1 positive), b: 2 rows (2 positives); random a: 2 (1), b: 2 (1)
    # day 1: default a: 1 row (1 positive), b: 1 row (0 positives); random a: 2 (2), b: 1 (1)
    default = pd.DataFrame({"day": [0, 0, 0, 0, 1, 1], "S": ["a", "a", "b", "b", "a", "b"],
                            "Y": [1, 0, 1, 1, 1, 0]})
    random = pd.DataFrame({"day": [0, 0, 0, 0, 1, 1, 1], "S": ["a", "a", "b", "b", "a", "a", "b"],
                           "Y": [1, 0, 0, 1, 1, 1, 1]})
    return default, random


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_reo_counts_groups_by_hand(backend):
    default, random = _logs()
    c = reo.reo_counts({"default": default, "random": random}, backend=backend)
    assert c.group_names == ("a", "b")
    expected = pd.DataFrame({"group": ["a", "b"], "n_default": [3, 3], "positives_default": [2, 2],
                             "n_random": [4, 3], "positives_random": [3, 2]})
    pd.testing.assert_frame_equal(c.groups, expected)
    by_day = reo.reo_counts({"default": default, "random": random}, by="day", backend=backend)
    pd.testing.assert_frame_equal(by_day.groups, expected)              # summed over the days
    np.testing.assert_array_equal(by_day.positives("default"), [[1, 2], [1, 0]])


def test_reo_daily_groups_are_each_days_estimates():
    default, random = _logs()
    daily = reo.estimate_reo_by(default, random, by="day")
    assert daily.group_names == ("a", "b")
    g = daily.groups
    assert list(g.columns) == ["day", "group", "P", "Q", "U", "delta_U", "se", "ci_low", "ci_high"]
    assert g["day"].tolist() == [0, 0, 1, 1] and g["group"].tolist() == ["a", "b", "a", "b"]
    # day 0: P = (1/4, 1/4), Q = (1/4, 2/4); day 1: P = (2/3, 1/3), Q = (1/2, 0)
    np.testing.assert_allclose(g["P"], [0.25, 0.25, 2 / 3, 1 / 3])
    np.testing.assert_allclose(g["Q"], [0.25, 0.5, 0.5, 0.0])
    for day, res in zip((0, 1), daily.days):
        pd.testing.assert_frame_equal(g[g["day"] == day].drop(columns="day").reset_index(drop=True), res.groups)
    d = daily.to_dict()
    assert d["groups"] == ["a", "b"] and len(d["days"][0]["groups"]) == 2


def test_reo_daily_groups_of_a_day_without_estimate_are_null():
    default, random = _logs()
    daily = reo.estimate_reo_by(default, random[random["day"] == 0], by="day")   # day 1: no random traffic
    assert daily.days[1] is None
    g = daily.groups
    assert g["day"].tolist() == [0, 0, 1, 1] and g.loc[g["day"] == 1, ["P", "U", "ci_low"]].isna().all().all()


def test_an_unknown_log_name_is_a_parameter_error():
    import pandas as pd

    from ocef.errors import ParameterError
    from ocef.reo import reo_counts

    d = pd.DataFrame({"Y": [1, 0, 1, 1], "S": ["a", "a", "b", "b"]})
    counts = reo_counts({"default": d, "random": d})
    for method in (counts.positives, counts.group_rows, counts.rows, counts.category_counts):
        with pytest.raises(ParameterError, match=r"log must be one of \['default', 'random'\], got 'rand'"):
            method("rand")
