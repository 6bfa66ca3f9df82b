"""One shared check over the public functions (as scikit-learn's estimator checks): every
parameter, fed invalid values, raises ``ValueError`` or ``TypeError`` whose message names the
parameter — before any work is done. Each entry: the callable, valid arguments, bad values."""
import math

import numpy as np
import pandas as pd
import pytest

from ocef import OCEF
from ocef.envy.audit import AuditProblem, run_audit
from ocef.environments.bandits import BernoulliBandit, paper_instance
from ocef.environments.synthetic import SyntheticEnvironment
from ocef.envy.exact import envy_report
from ocef.envy.matching import mixture_weights
from ocef.policies import softmax_policy, topk_ranking_policy
from ocef.envy.runner import run_bandits
from ocef.fairrec.search import GroupOracle, search
from ocef.metrics.bias import recommender_bias
from ocef.pairwise.accuracy import pairwise_accuracy
from ocef.reo import estimate_reo
from ocef.validation import as_generator

RNG = np.random.default_rng(0)
N_LOG = 300
DEFAULT_LOG = pd.DataFrame({"Y": RNG.integers(0, 2, N_LOG), "S": RNG.integers(0, 2, N_LOG)})
RANDOM_LOG = pd.DataFrame({"Y": RNG.integers(0, 2, N_LOG), "S": RNG.integers(0, 2, N_LOG)})
PAIRS = pd.DataFrame({"query": np.arange(40), "j": np.arange(40), "jp": np.arange(40) + 100,
                      "s_j": RNG.integers(0, 2, 40), "s_jp": RNG.integers(0, 2, 40), "score_j": RNG.normal(size=40),
                      "score_jp": RNG.normal(size=40)})
USERS = pd.DataFrame({"gender": RNG.integers(0, 2, 40), "age": RNG.integers(0, 3, 40), "mrr": RNG.uniform(size=40)})
RHO = RNG.uniform(size=(6, 3))
PROBS = RNG.dirichlet(np.ones(3), size=6)
LABELS = np.array([0, 0, 1, 1, 2, 2])
CONFIGS = pd.DataFrame({"instance": [1], "alpha": [0.1], "delta": [0.05], "epsilon": [0.05]})
NAN, INF = math.nan, math.inf
UNIT_OPEN = [0.0, 1.0, -0.1, 1.5, NAN, "0.1", None]        # δ ∈ (0, 1)
UNIT_HALF = [0.0, -0.1, 1.5, NAN, INF, "0.1"]              # α, ε ∈ (0, 1]
POS_INT = [0, -1, 1.5, True, "3", None]


def _problem():
    return AuditProblem(RHO, PROBS, LABELS)


CASES = [
    ("OCEF", lambda **kw: OCEF(**kw), dict(n_arms=3, delta=0.05, alpha=0.05, epsilon=0.05),
     {"n_arms": POS_INT, "delta": UNIT_OPEN, "alpha": UNIT_HALF, "epsilon": UNIT_HALF,
      "group_size": [0, 1.5, 10**30], "rng": ["seed", 1.5]}),
    ("run_bandits", lambda **kw: run_bandits(**kw),
     dict(configs=CONFIGS, means={1: paper_instance(1)}, trials=1, max_steps=5),
     {"trials": POS_INT, "max_steps": [0, 2.5], "engine": ["gpu", "vectorized", None], "configs": [[1, 2]],
      "rng": ["seed"]}),
    ("run_audit", lambda **kw: run_audit(_problem(), **kw), dict(max_steps=5),
     {"alpha": UNIT_HALF, "delta": UNIT_OPEN, "epsilon": UNIT_HALF, "trials": POS_INT, "max_steps": [0],
      "engine": ["gpu", "vectorized"], "rng": ["seed"]}),
    ("envy_report", lambda **kw: envy_report(**kw), dict(rho=RHO, probs=PROBS, labels=LABELS),
     {"epsilon": [-0.1, 1.5, NAN], "matching": ["greedy"], "labels": [LABELS[:3], np.array([0, 0, 1, 1, 3, 3])],
      "rho": [RHO + 2, RHO[:, :2]], "probs": [PROBS * 2]}),
    ("mixture_weights", lambda **kw: mixture_weights(**kw), dict(probs=PROBS, labels=LABELS),
     {"matching": ["greedy"], "multiplicity": [np.zeros(6, int), np.ones(5, int)]}),
    ("AuditProblem", lambda **kw: AuditProblem(**kw), dict(rho=RHO, policy=PROBS, labels=LABELS),
     {"matching": ["greedy"], "labels": [LABELS[:4]], "rho": [RHO - 1]}),
    ("softmax_policy", lambda **kw: softmax_policy(**kw), dict(scores=RHO, beta=2.0),
     {"beta": [NAN, "2"], "scores": [np.array([1.0, NAN])]}),
    ("topk_ranking_policy", lambda **kw: topk_ranking_policy(**kw), dict(scores=RHO, k=2),
     {"k": [0, -2, 1.5]}),           # k above the number of items is capped (documented)
    ("BernoulliBandit", lambda **kw: BernoulliBandit(**kw), dict(means=[0.5, 0.2]),
     {"means": [[0.5, 1.2], [], [0.5, NAN]], "group_size": [0, 1.5]}),
    ("SyntheticEnvironment", lambda **kw: SyntheticEnvironment(**kw), dict(n_users=10, n_items=8, n_groups=2),
     {"n_users": [1, 0, 2.5], "n_items": [0], "rank": [0], "n_groups": [0, 11], "group_spread": [-1.0, NAN],
      "rng": [-1, "seed"]}),
    ("as_generator", lambda **kw: as_generator(**kw), dict(rng=0), {"rng": ["seed", 1.5, [1.5], -1, [3, -1]]}),
    ("estimate_reo", lambda **kw: estimate_reo(**kw), dict(default=DEFAULT_LOG, random=RANDOM_LOG),
     {"confidence": [0.0, 1.0, 1.5, NAN], "interval": ["bogus"], "backend": ["gpu"], "label": ["missing"],
      "group": ["missing"]}),
    ("recommender_bias", lambda **kw: recommender_bias(**kw), dict(scores=RHO, groups=LABELS, k=1),
     {"k": [0, 4, 1.5], "n_resamples": [-1, 1.5], "confidence": [0.0, 1.5], "interval": ["bogus"],
      "groups": [LABELS[:3]], "reference": ["nobody"], "gini_convention": ["bogus"]}),
    ("pairwise_accuracy", lambda **kw: pairwise_accuracy(**kw), dict(pairs=PAIRS, n_resamples=10),
     {"n_resamples": [-1, 1.5], "confidence": [0.0, 1.5], "cluster": ["missing"], "backend": ["gpu"]}),
    ("fairrec search", lambda **kw: search(GroupOracle.from_user_metrics(USERS, ["gender", "age"], "mrr"), **kw),
     dict(method="exhaustive"),
     {"method": ["bogus"], "epsilon": [0.0, -0.1, 1.5, "automatic"], "n_iter": [0, 1.5, "auto2"], "top_n": [0],
      "max_evaluations": [0], "max_cost": [0, -1.0, NAN, INF, "10"], "group_cost": [-1, NAN, INF],
      "epsilon_base": ["bogus", None]}),
]


@pytest.mark.parametrize("name, make, valid, bad", CASES, ids=[c[0] for c in CASES])
def test_valid_arguments_work(name, make, valid, bad):
    make(**valid)


@pytest.mark.parametrize("name, make, valid, param, value",
                         [(n, m, v, p, x) for n, m, v, bad in CASES for p, xs in bad.items() for x in xs],
                         ids=[f"{n}-{p}={x!r}"[:60] for n, m, v, bad in CASES for p, xs in bad.items() for x in xs])
def test_invalid_values_raise_a_clear_error(name, make, valid, param, value):
    with pytest.raises((ValueError, TypeError)) as info:
        make(**{**valid, param: value})
    message = str(info.value)
    aliases = {param, param.replace("_", " "), {"probs": "polic", "rho": "rho", "labels": "group"}.get(param, param)}
    if isinstance(value, str):
        aliases.add(repr(value))          # a column name: the message names the missing column
    assert any(a in message for a in aliases), f"{name}({param}={value!r}): {message!r} does not name {param}"
