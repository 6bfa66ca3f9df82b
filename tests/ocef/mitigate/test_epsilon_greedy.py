"""ε-greedy equals FairRankTune 0.0.7's EPSILONGREEDY (vendored) with ``legacy_seed``; the
Generator mode is reproducible and swaps at the rate ε; the spec's worked example; bad inputs."""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ocef.errors import OcefError
from ocef.mitigate.epsilon_greedy import epsilon_greedy_rerank
from ocef.mitigate.rerank import rerank

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _reference_fairranktune as REF  # noqa: E402


def _reference(scores, groups, epsilon, seed):
    order = np.argsort(-np.asarray(scores), kind="stable")
    items, _, _ = REF.EPSILONGREEDY(pd.DataFrame([int(i) for i in order]), {int(i): int(groups[i]) for i in order},
                                    pd.DataFrame([float(scores[i]) for i in order]), epsilon, seed)
    return items[0].tolist()


def test_equals_the_reference_with_legacy_seed():
    rng = np.random.default_rng(5)
    state = np.random.get_state()
    for t in range(60):
        n = int(rng.integers(2, 40))
        k = int(rng.integers(1, n + 1))
        scores = rng.integers(0, 6, n) / 5.0
        groups = rng.integers(0, 3, n)
        eps = float(rng.choice([0.0, 0.05, 0.3, 0.7, 1.0]))
        seed = int(rng.integers(0, 2**31))
        ours = epsilon_greedy_rerank(scores, groups, k, epsilon=eps, legacy_seed=seed).rankings[0].tolist()
        assert ours == _reference(scores, groups, eps, seed)[:k]
    np.random.set_state(state)


def test_spec_worked_example_and_global_state_untouched():
    before = np.random.get_state()[1].copy()
    got = epsilon_greedy_rerank(np.arange(12, 0, -1), np.zeros(12, int), 12, epsilon=0.3, legacy_seed=42)
    assert [("abcdefghijkl")[i] for i in got.rankings[0]] == list("abcdhigeflkj")
    assert np.array_equal(np.random.get_state()[1], before)


def test_generator_mode_reproducible_and_swap_rate():
    s, g = np.linspace(1, 0, 30), np.zeros(30, int)
    a = rerank("epsilon-greedy", s, g, 10, rng=7, epsilon=0.2).rankings
    assert np.array_equal(a, rerank("epsilon-greedy", s, g, 10, rng=7, epsilon=0.2).rankings)
    # epsilon = 0: the score order; epsilon = 1: position 0 always swapped with a later one
    assert epsilon_greedy_rerank(s, g, 10, rng=1, epsilon=0.0).rankings[0].tolist() == list(range(10))
    gen = np.random.default_rng(3)
    first = [epsilon_greedy_rerank(s, g, 1, rng=gen, epsilon=0.25).rankings[0, 0] for _ in range(4000)]
    rate = np.mean(np.array(first) != 0)          # P(swap at position 0) = 0.25; SE = 0.0068
    assert abs(rate - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 4000)


@pytest.mark.parametrize("kwargs", [dict(epsilon=1.5), dict(epsilon=-0.1), dict(legacy_seed=1.5), dict(k=31),
                                    dict(rng="x")])
def test_bad_inputs(kwargs):
    args = dict(scores=np.linspace(1, 0, 30), groups=np.zeros(30, int), k=5)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError)) as info:
        epsilon_greedy_rerank(**args)
    assert isinstance(info.value, OcefError)
