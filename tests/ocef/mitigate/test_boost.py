"""The score-boost baseline and the re-ranker registry's common interface."""
import numpy as np
import pytest

from ocef.errors import DataError, OcefError, ParameterError
from ocef.mitigate import RERANKERS, Lottery, boost_batch, boost_rerank, rerank_batch
from ocef.mitigate.rerank import rerank


def test_boost_hand_computed():
    scores = [0.9, 0.8, 0.75, 0.1, 0.05]
    groups = [0, 0, 1, 1, 0]
    # boosted: 0.9, 0.8, 0.95, 0.3, 0.05
    lot = boost_rerank(scores, groups, 3, amount=0.2)
    assert lot.rankings.tolist() == [[2, 0, 1]]
    assert lot.probabilities.tolist() == [1.0]
    # boosting group 0 instead: 1.1, 1.0, 0.75, 0.1, 0.25
    assert boost_rerank(scores, groups, 4, protected=0, amount=0.2).rankings.tolist() == [[0, 1, 2, 4]]
    # no boost = the top k; ties keep the input order
    assert boost_rerank([0.5, 0.7, 0.5, 0.7], [0, 1, 1, 0], 4, amount=0.0).rankings.tolist() == [[1, 3, 0, 2]]


def test_boost_batch_equals_one_user_at_a_time():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 5, size=(200, 12)) / 4.0          # many ties
    g = rng.integers(0, 3, size=(200, 12))
    out = boost_batch(s, g, 5, protected=2, amount=0.25)
    rows = np.array([boost_rerank(s[u], g[u], 5, protected=2, amount=0.25).rankings[0] for u in range(200)])
    assert np.array_equal(out, rows)
    assert np.array_equal(rerank_batch("boost", s, g, 5, chunk_size=7, protected=2, amount=0.25), out)


def test_registry_interface():
    for name, r in RERANKERS.items():
        assert r.name == name
        assert r.grid and all(set(p) <= set(r.params) for p in r.grid)
        for point in r.grid:
            r.check_params(point)
        lot = rerank(name, np.linspace(1, 0, 12), np.arange(12) % 2, 4, rng=0, **r.grid[0])
        assert isinstance(lot, Lottery) and lot.k == 4
    assert rerank("boost", [0.9, 0.8, 0.75], [0, 0, 1], 2).rankings.tolist() == [[0, 2]]  # 0.75 + 0.1 > 0.8


@pytest.mark.parametrize("call, err", [
    (lambda: boost_rerank([0.5, np.nan], [0, 1], 1), DataError),
    (lambda: boost_rerank([0.5, 0.2], [0, 1], 3), ParameterError),
    (lambda: boost_rerank([0.5, 0.2], [0, 1], 0), ParameterError),
    (lambda: boost_rerank([0.5, 0.2], [0, -1], 1), DataError),
    (lambda: boost_rerank([0.5, 0.2], [0.0, 1.0], 1), TypeError),
    (lambda: boost_rerank([0.5, 0.2], [0, 1, 1], 1), ParameterError),
    (lambda: boost_rerank([0.5, 0.2], [0, 1], 1, amount=-1), ParameterError),
    (lambda: rerank("nope", [0.5], [0], 1), ParameterError),
    (lambda: rerank("boost", [0.5], [0], 1, p=0.5), ParameterError),
    (lambda: rerank_batch("boost", [[0.5, np.inf]], [[0, 1]], 1), DataError),
    (lambda: rerank_batch("boost", [0.5, 0.2], [0, 1], 1), ParameterError),
    (lambda: rerank_batch("boost", [[0.5, 0.2]], [[0, 1]], 3), ParameterError),
])
def test_bad_inputs_raise_clear_errors(call, err):
    with pytest.raises(err) as info:
        call()
    assert isinstance(info.value, OcefError)


def test_lottery_checks():
    with pytest.raises(ParameterError):
        Lottery(np.array([[0, 0]]), np.array([1.0]))
    with pytest.raises(ParameterError):
        Lottery(np.array([[0, 1], [1, 0]]), np.array([0.5, 0.6]))
