"""DetConstSort equals FairRankTune 0.0.7's DETCONSTSORT (vendored in ``_reference_fairranktune.py``)
on random instances with 2-5 groups and tied scores; the spec's worked examples; bad inputs."""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError, OcefError, ParameterError
from ocef.mitigate.detconstsort import detconstsort_batch, detconstsort_rerank, target_shares
from ocef.mitigate.rerank import rerank_batch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _reference_fairranktune as REF  # noqa: E402

ITEMS = list("abcdefghijkl")
GROUPS = [0, 0, 0, 0, 1, 0, 1, 1, 2, 0, 2, 2]


def _reference(scores, groups, k, shares):
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranking = pd.DataFrame([int(i) for i in order])
    item_group = {int(i): int(groups[i]) for i in order}
    dist = {int(g): float(shares[g]) for g in np.unique(groups)}
    items, _, _ = REF.DETCONSTSORT(ranking, item_group, pd.DataFrame([float(scores[i]) for i in order]), dist, k)
    return items[0].tolist()


@pytest.mark.parametrize("seed", range(10))
def test_equals_the_reference_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    n_users, n, n_groups = 5, int(rng.integers(12, 60)), int(rng.integers(2, 6))
    k = int(rng.integers(1, n + 1))
    scores = rng.integers(0, 15, size=(n_users, n)) / 14.0               # ties within and across groups
    groups = rng.choice(n_groups, size=(n_users, n), p=rng.dirichlet(np.ones(n_groups)))
    for target in ("proportional", "equal", list(rng.dirichlet(np.ones(n_groups)))):
        out = detconstsort_batch(scores, groups, k, target=target)
        shares = target_shares(groups, target, int(groups.max()) + 1)
        for u in range(n_users):
            ref = _reference(scores[u], groups[u], k, shares[u])
            assert out[u].tolist() == ref, (u, target)
            assert detconstsort_rerank(scores[u], groups[u], k, target=target).rankings[0].tolist() == ref
        assert np.array_equal(rerank_batch("detconstsort", scores, groups, k, chunk_size=4, target=target), out)


def test_spec_worked_examples():
    scores = np.arange(12, 0, -1)
    got = detconstsort_rerank(scores, GROUPS, 8, target=[0.5, 0.25, 0.25]).rankings[0]
    assert [ITEMS[i] for i in got] == list("abceidfg")
    got = detconstsort_rerank(scores, GROUPS, 8, target=[0.2, 0.4, 0.4]).rankings[0]
    assert [ITEMS[i] for i in got] == list("aegihkbc")


def test_hand_computed_the_k_plus_first_entry_moves_up():
    # equal shares over [4, 3, 2, 1] with groups [0, 0, 0, 1], k = 2: round 2 places 0 (g0) and 3 (g1);
    # round 4 appends 1 (score 3, maxIndex 4), which passes 3 (score 1, maxIndex 2 >= 2): [0, 1, 3]
    assert detconstsort_batch([[4., 3., 2., 1.]], [[0, 0, 0, 1]], 2, target="equal").tolist() == [[0, 1]]
    assert detconstsort_batch([[4., 3., 2., 1.]], [[0, 0, 0, 1]], 3, target="equal").tolist() == [[0, 1, 3]]


@pytest.mark.parametrize("kwargs, err", [
    (dict(target=[0.7, 0.7]), ParameterError),
    (dict(target=[1.0]), DataError),                    # group 1 has no share
    (dict(target=[1.0, 0.0]), DataError),               # group 1 can never be placed: list unfillable
    (dict(target="bogus"), ParameterError),
    (dict(k=13), ParameterError),
    (dict(scores=[np.nan] * 12), DataError),
])
def test_bad_inputs(kwargs, err):
    args = dict(scores=np.linspace(1, 0, 12), groups=np.arange(12) % 2, k=10)
    args.update(kwargs)
    with pytest.raises(err) as info:
        detconstsort_rerank(**args)
    assert isinstance(info.value, OcefError)
