"""The shared parameter check (tests/test_parameter_checks.py) applied to ocef.pairwise: every
bad value raises ValueError/TypeError naming the parameter, before any work is done."""
import math

import numpy as np
import pandas as pd
import pytest

from ocef.pairwise import fit_mf_pairwise, pairwise_accuracy, pairwise_regularizer, simulate_pairs
from ocef.reo.simulate import make_traffic_world
from tests import test_parameter_checks as shared

PAIRS = pd.DataFrame({"query": [0, 1, 2], "j": [1, 2, 3], "jp": [4, 5, 6], "s_j": [0, 1, 0], "s_jp": [1, 0, 0],
                      "score_j": [1.0, 0.0, 2.0], "score_jp": [0.0, 1.0, 2.0]})
RATINGS = pd.DataFrame({"user": [0, 1, 1], "item": [0, 1, 2], "rating": [1.0, 0.0, 1.0]})
WORLD = make_traffic_world(10, 8, 2, rng=0)
NAN = math.nan

CASES = [
    ("pairwise_accuracy", lambda **kw: pairwise_accuracy(PAIRS, **kw), dict(n_resamples=5, rng=0),
     {"n_resamples": [-1, 1.5, True, "5"], "confidence": [0.0, 1.0, NAN, "0.9"], "rng": ["seed", 1.5],
      "backend": ["spark", None], "subgroup": [7]}),
    ("simulate_pairs", lambda **kw: simulate_pairs(WORLD, **kw), dict(n_requests=100, rng=0),
     {"n_requests": [0, 2.5], "p_pair": [0.0, 1.5, NAN], "n_relevant": [1, 100, 2.5], "n_levels": [0, 1.5],
      "position_bias": [(0.0, 1.0), (1.0,), (1.0, 2.0)], "model_scores": [np.zeros((2, 2))], "rng": ["seed"]}),
    ("fit_mf_pairwise", lambda **kw: fit_mf_pairwise(RATINGS, **kw), dict(epochs=2, rng=0),
     {"lam": [-0.1, NAN, "1"], "rank": [0, 1.5], "epochs": [0], "lr": [0.0, -1.0], "l2": [-1.0],
      "kind": ["intra"]}),
    ("pairwise_regularizer", lambda **kw: pairwise_regularizer(**kw),
     dict(score_j=[1.0, 0.0], score_jp=[0.0, 1.0], s_j=[1, 0], s_jp=[0, 1]),
     {"kind": ["both"], "s_j": [[2, 0]], "score_j": [[1.0]]}),
]


@pytest.mark.parametrize("name, make, valid, bad", CASES, ids=[c[0] for c in CASES])
def test_valid_arguments_work(name, make, valid, bad):
    shared.test_valid_arguments_work(name, make, valid, bad)


@pytest.mark.parametrize("name, make, valid, param, value",
                         [(n, m, v, p, x) for n, m, v, bad in CASES for p, xs in bad.items() for x in xs],
                         ids=[f"{n}-{p}={x!r}"[:60] for n, m, v, bad in CASES for p, xs in bad.items() for x in xs])
def test_invalid_values_raise_a_clear_error(name, make, valid, param, value):
    shared.test_invalid_values_raise_a_clear_error(name, make, valid, param, value)
