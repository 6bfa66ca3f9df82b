import pandas as pd
import pytest

from ocef.environments.pairs import coat_pairs, obd_pairs, pairs_from_impressions, pairs_from_ratings
from tests.conftest import require_data


def test_pairs_from_ratings_hand_case():
    log = pd.DataFrame({"user": [0, 0, 0, 1, 1], "item": [1, 2, 3, 1, 4], "Y": [1, 0, 0, 1, 1],
                        "S": ["a", "b", "a", "a", "b"], "rating": [5, 2, 1, 4, 4]})
    p = pairs_from_ratings(log)
    assert list(zip(p.j, p.jp)) == [(1, 2), (1, 3)] and list(p.z) == [5, 5] and list(p.s_jp) == ["b", "a"]
    one = pairs_from_ratings(log, mode="one-per-query", rng=0)
    assert len(one) == 1
    # the kept pair is one of the query's pairs, drawn uniformly: both appear over seeds
    kept = {tuple(pairs_from_ratings(log, mode="one-per-query", rng=r)[["j", "jp"]].iloc[0]) for r in range(20)}
    assert kept == {(1, 2), (1, 3)}
    with pytest.raises(ValueError, match="mode"):
        pairs_from_ratings(log, mode="some")


def test_pairs_from_impressions_skips_same_item():
    log = pd.DataFrame({"context": [1, 1, 1, 2], "day": ["d"] * 4, "item": [5, 5, 6, 7], "Y": [1, 0, 0, 0],
                        "S": ["x", "x", "y", "y"]})
    p = pairs_from_impressions(log)
    assert list(zip(p.j, p.jp)) == [(5, 6)]


@pytest.mark.data
def test_coat_pairs_counts():
    require_data("coat", "test.ascii")
    p = coat_pairs()
    assert len(p) == 8770 and p["query"].nunique() == 237
    kinds = p.groupby(["s_j", "s_jp"]).size()
    assert kinds[("men", "men")] == 2070 and kinds[("women", "women")] == 2063
    assert kinds[("men", "women")] == 2175 and kinds[("women", "men")] == 2462
    assert p.z.value_counts().to_dict() == {4: 6779, 5: 1991}


@pytest.mark.data
def test_obd_pairs_counts():
    require_data("obd", "random", "all", "all.csv")
    p = obd_pairs()
    assert len(p) == 1888 and p["query"].nunique() == 38
    assert (p.s_j != p.s_jp).mean() == pytest.approx(0.519, abs=5e-4)
