"""The Singh & Joachims LP: the spec's example (Fair-PGRank's ``fair_rank``: P = I, objective
−1.822632), its optimum equal to an independent formulation over lotteries of all n! permutations,
the Birkhoff–von Neumann lottery reconstructing P; bad inputs."""
import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from ocef.errors import DataError, OcefError
from ocef.mitigate.exposure_lp import birkhoff_von_neumann, fair_ranking_lp, lp_rerank, position_bias
from ocef.mitigate.rerank import rerank


@pytest.mark.parametrize("lam", [0.0, 1.0, 100.0])
def test_spec_example(lam):
    P, obj = fair_ranking_lp([0.9, 0.8, 0.5, 0.3, 0.1], [0, 0, 1, 1, 1], 5, lam)
    assert np.allclose(P, np.eye(5), atol=1e-9)
    assert obj == pytest.approx(-1.822632051002638, abs=1e-9)      # -sum(u_i / log2(1 + i))


def _lottery_lp(u, g, k, lam):
    """The same problem over lotteries of all n! permutations (Birkhoff: the same optimum)."""
    n = u.size
    v = position_bias(n, k)
    perms = np.array(list(itertools.permutations(range(n))))     # perms[s, i] = position of i
    exposure = v[perms]                                           # (n!, n)
    codes = np.unique(g)
    sizes = np.array([(g == c).sum() for c in codes], float)
    merit = np.array([max(u[g == c].sum(), 0.01) for c in codes])
    pairs = [(a, b) for a in range(codes.size) for b in range(codes.size) if a != b]
    m = len(perms)
    c = np.concatenate([-(exposure @ u), np.full(len(pairs), lam)])
    a_ub = np.zeros((len(pairs), m + len(pairs)))
    for r, (a, b) in enumerate(pairs):
        if merit[a] / sizes[a] >= merit[b] / sizes[b]:
            w = sizes[a] / merit[a] * (g == codes[a]) - sizes[b] / merit[b] * (g == codes[b])
            a_ub[r, :m] = exposure @ w
            a_ub[r, m + r] = -1
    a_eq = np.concatenate([np.ones(m), np.zeros(len(pairs))])[None, :]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(len(pairs)), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * (m + len(pairs)), method="highs")
    return res.fun


@pytest.mark.parametrize("seed", range(8))
def test_optimum_equals_the_permutation_lottery_lp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    u = np.round(rng.random(n), 2)
    g = rng.integers(0, 3 if seed % 2 else 2, n)
    g[0], g[-1] = 0, 1
    k = int(rng.integers(1, n + 1))
    lam = float(rng.choice([0.5, 10.0, 1000.0]))
    P, obj = fair_ranking_lp(u, g, k, lam)
    assert obj == pytest.approx(_lottery_lp(u, g, k, lam), abs=1e-8)
    assert np.allclose(P.sum(0), 1, atol=1e-9) and np.allclose(P.sum(1), 1, atol=1e-9)


def test_the_constraint_binds_and_is_met_when_hard():
    # group 1 has the higher merit per item but PRP gives it little exposure
    u, g = np.array([0.9, 0.85, 0.8, 0.8, 0.79]), np.array([0, 0, 0, 1, 1])
    P, obj = fair_ranking_lp(u, g, 5, 1e4)
    prp = -np.sum(np.sort(u)[::-1] * position_bias(5, 5))
    assert obj > prp + 1e-6                                           # fairness costs utility
    e = P @ position_bias(5, 5)
    exp_merit = [e[g == c].sum() / u[g == c].sum() for c in (0, 1)]   # exposure / merit per group
    assert exp_merit[1] >= exp_merit[0] - 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_bvn_reconstructs_random_doubly_stochastic_matrices(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    m = int(rng.integers(1, 12))
    w = rng.dirichlet(np.ones(m))
    P = sum(wi * np.eye(n)[rng.permutation(n)] for wi in w)
    theta, perms = birkhoff_von_neumann(P)
    R = sum(t * np.eye(n)[p] for t, p in zip(theta, perms))
    assert np.max(np.abs(R - P)) <= 1e-9
    assert abs(theta.sum() - 1) <= 1e-12 and np.all(theta > 0)
    assert len(theta) <= n * n - 2 * n + 2


def test_lottery_from_the_lp():
    u, g = np.array([0.9, 0.85, 0.8, 0.8, 0.79, 0.1]), np.array([0, 0, 0, 1, 1, 0])
    lot = rerank("lp", u, g, 3, lam=1e4)
    P, _ = fair_ranking_lp(u, g, 3, 1e4)
    # the top-3 marginals of the lottery equal those of P
    marg = np.zeros((6, 3))
    for r, p in zip(lot.rankings, lot.probabilities):
        marg[r, np.arange(3)] += p
    assert np.max(np.abs(marg - P[:, :3])) <= 1e-9
    assert lot.probabilities.sum() == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("kwargs, err", [(dict(scores=[-0.1, 0.5, 0.2]), DataError), (dict(lam=-1.0), ValueError),
                                         (dict(k=4), ValueError)])
def test_bad_inputs(kwargs, err):
    args = dict(scores=[0.3, 0.5, 0.2], groups=[0, 1, 0], k=2)
    args.update(kwargs)
    with pytest.raises(err) as info:
        lp_rerank(**args)
    assert isinstance(info.value, OcefError)
    with pytest.raises(DataError):
        birkhoff_von_neumann([[0.5, 0.2], [0.5, 0.5]])
