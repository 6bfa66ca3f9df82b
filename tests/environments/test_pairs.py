import pandas as pd
import pytest

from ocef.environments.pairs import pairs_from_impressions, pairs_from_ratings
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
