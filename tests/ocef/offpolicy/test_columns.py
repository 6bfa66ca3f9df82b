"""The off-policy audit's tables without pandas (ocef.offpolicy.columns): each operation equals the
pandas one it replaces, bit for bit, and the audit's new refusals of keys no join can use."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError
from ocef.offpolicy import offpolicy_audit
from ocef.offpolicy.columns import (factorize, frame_columns, key_codes, lookup, missing, read_columns, sum_by,
                                    to_float, unique)


def test_sum_by_is_pandas_group_sum_bit_for_bit():
    # pandas 3.1 adds a group with numpy.add.reduceat when the rows are sorted by group and hold no
    # NaN, else with Kahan compensation in row order; 2,000 random tables of both kinds
    gen = np.random.default_rng(0)
    pieces = np.array([0.1, 0.2, 0.3, 0.6, 1 / 3, 0.7, 1e-3, 5.0, 1e16])
    for _ in range(2000):
        n, k = int(gen.integers(1, 80)), int(gen.integers(1, 9))
        keys = gen.integers(0, k, n)
        if gen.random() < 0.4:
            keys = np.sort(keys)
        v = pieces[gen.integers(0, len(pieces), n)] * gen.random(n) ** gen.integers(0, 2)
        if gen.random() < 0.1:
            v[gen.integers(0, n)] = np.nan
        ref = pd.Series(v).groupby(keys).sum()
        codes, m = factorize(keys)
        got = sum_by(codes, m, v)
        assert np.array_equal(got, ref.to_numpy()), (keys, v)


def test_sum_by_keeps_the_exact_sums_a_plain_sum_loses():
    assert sum_by([0, 0, 0], 1, [0.6, 0.3, 0.1])[0] == 1.0           # not 0.9999999999999999
    assert sum_by([1, 0, 1, 1], 3, [0.6, 2.0, 0.3, 0.1]).tolist() == [2.0, 1.0, 0.0]


def test_factorize_and_unique_follow_pandas():
    for values in (np.array([3, 1, 3, 10**12]), np.array(["b", "a", "b", "c"], dtype=object),
                   np.array([2.5, -1.0, 2.5]), np.array([True, False, True]), np.array(["y", "x", "y"])):
        codes, n = factorize(values)
        ref_codes, ref_uniques = pd.factorize(values, sort=True)
        assert n == len(ref_uniques) and codes.tolist() == ref_codes.tolist()
        assert unique(values).tolist() == pd.unique(pd.Series(values)).tolist()
    # numbers and text mixed: coded by a dictionary, 1 and "1" two values
    assert factorize(np.array([1, "1", 1.0], dtype=object))[1] == 2


def test_key_codes_in_order_of_first_appearance():
    user = np.array([5, 5, 2, 9, 2])
    pos = np.array([1, 0, 1, 1, 1])
    codes, n = key_codes([user, pos], in_order=True)
    assert n == 4 and codes.tolist() == [0, 1, 2, 3, 2]
    assert key_codes([user, pos])[0].tolist() == [2, 1, 0, 3, 0]     # sorted order: (2,1) (5,0) (5,1) (9,1)


def test_lookup_is_a_left_join_on_a_unique_right_side():
    left = pd.DataFrame({"u": [1, 2, 2, 7], "i": ["a", "b", "a", "a"]})
    right = pd.DataFrame({"u": [2, 1, 2], "i": ["a", "a", "b"], "p": [0.1, 0.2, 0.3]})
    at = lookup([left["u"].to_numpy(), left["i"].to_numpy(dtype=object)],
                [right["u"].to_numpy(), right["i"].to_numpy(dtype=object)])
    ref = left.merge(right, on=["u", "i"], how="left")["p"].to_numpy()
    got = np.where(at >= 0, right["p"].to_numpy()[np.maximum(at, 0)], np.nan)
    np.testing.assert_array_equal(got, ref)
    with pytest.raises(DataError, match="item holds text but the log's item holds numbers"):
        lookup([np.array([1, 2])], [np.array(["1", "2"], dtype=object)], names=("log", "target"), keys=("item",))


def test_to_float_is_to_numeric_coerce():
    values = np.array([1, "0.5", "x", None, 2.5, "inf"], dtype=object)
    ref = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    np.testing.assert_array_equal(to_float(values), ref)


def test_read_columns_from_csv_parquet_and_frames(tmp_path):
    frame = pd.DataFrame({"user": [1, 2, 3], "g": ["a", None, "b"], "k": pd.array([1, None, 3], dtype="Int64"),
                          "r": [0.5, np.nan, 1.0]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    for source in (tmp_path / "t.csv", tmp_path / "t.parquet", frame):
        cols = read_columns(source, columns={"u": "user"})
        assert list(cols) == ["u", "g", "k", "r"]
        assert cols["u"].tolist() == [1, 2, 3]
        assert missing(cols["g"]).tolist() == [False, True, False] and cols["g"][0] == "a"
        np.testing.assert_array_equal(to_float(cols["k"]), [1.0, np.nan, 3.0])
        np.testing.assert_array_equal(cols["r"], [0.5, np.nan, 1.0])
    with pytest.raises(DataError, match="two columns named 'a'"):
        frame_columns(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def _log(n=400, seed=0, position=False):
    gen = np.random.default_rng(seed)
    log = pd.DataFrame({"user": gen.integers(0, 40, n), "item": gen.integers(0, 4, n), "propensity": 0.25,
                        "reward": (gen.random(n) < 0.3).astype(float)})
    if position:
        log["position"] = gen.integers(0, 2, n)
    return log


def test_a_log_with_positions_and_a_target_without():
    # the context is then the user alone, and the reward model is keyed on the item (it was a KeyError)
    log = _log(position=True)
    target = pd.DataFrame({"item": range(4), "probability": [0.4, 0.3, 0.2, 0.1]})
    res = offpolicy_audit(log, target, estimators=["ips", "dr"], rng=0)
    ips = res.groups.set_index(["estimand", "estimator"]).loc[("utility", "ips"), "estimate"]
    w = target["probability"].to_numpy()[log["item"]] / 0.25
    assert ips == pytest.approx(float(np.mean(w * log["reward"])), rel=1e-12)
    assert res.groups.loc[res.groups.estimator == "dr", "estimate"].notna().all()


def test_a_context_free_targets_exposure_is_exact():
    # 0.6 + 0.3 + 0.1 is 1.0 with the compensated group sum: the exposure is exact, its note says so
    log = _log()
    res = offpolicy_audit(log, pd.DataFrame({"item": [0, 1, 2], "probability": [0.6, 0.3, 0.1]}), estimators=["ips"])
    exposure = res.groups[res.groups.estimand == "exposure"].iloc[0]
    assert exposure["estimate"] == 1.0 and exposure["note"].endswith("the same mass in every logged context")


def test_missing_keys_and_keys_of_two_kinds_are_refused():
    log = _log()
    target = pd.DataFrame({"item": range(4), "probability": 0.25})
    with pytest.raises(DataError, match="log: user is missing in row 3"):
        offpolicy_audit(log.assign(user=np.where(np.arange(len(log)) == 3, np.nan, log["user"])), target)
    with pytest.raises(DataError, match="target: item is missing in row 1"):
        offpolicy_audit(log, target.assign(item=[0, None, 2, 3]))
    with pytest.raises(DataError, match="target: item holds text but the log's item holds numbers"):
        offpolicy_audit(log, target.assign(item=target["item"].astype(str)))


def test_result_tables_are_columns_and_frames_alike():
    log = _log().assign(g=lambda d: np.where(d["user"] % 2 == 0, "a", "b"))
    res = offpolicy_audit(log, pd.DataFrame({"item": range(4), "probability": 0.25}), user_group="g",
                          estimators=["ips", "snips"])
    assert "groups" not in vars(res)                                     # no DataFrame until asked for
    for name in ("overall", "groups", "pairs"):
        frame = getattr(res, name)
        assert list(frame.columns) == list(res.columns[name])
        assert res.to_dict()[name] == [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                                       for row in frame.to_dict(orient="records")]
