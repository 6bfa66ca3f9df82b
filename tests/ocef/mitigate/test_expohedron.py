"""The expohedron equals naver/expohedron @30bf252 to 1e-9 on 62 random instances (Pareto curves and
Carathéodory decompositions, stored in ``data/expohedron_reference.json`` by
``make_expohedron_reference.py``: the reference is CC BY-NC-SA, run, not vendored); the spec's
worked example; the lottery re-ranker; bad inputs."""
import json
from pathlib import Path

import numpy as np
import pytest

from ocef.errors import DataError, OcefError
from ocef.mitigate.expohedron import (caratheodory_decomposition, expohedron_rerank, group_fairness_endpoint,
                                      majorized, pareto_curve)
from ocef.mitigate.rerank import rerank

CASES = json.loads((Path(__file__).resolve().parent / "data" / "expohedron_reference.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_equals_the_reference(case):
    gamma, rho = np.array(case["gamma"]), np.array(case["relevance"])
    curve = pareto_curve(gamma, rho, case["fairness"])
    ref = np.array(case["curve"])
    assert curve.shape == ref.shape
    assert np.max(np.abs(curve - ref)) <= 1e-9
    for d in case["decompositions"]:
        c, v = caratheodory_decomposition(gamma, np.array(d["point"]))
        assert c.shape == (len(d["coefficients"]),)
        assert np.max(np.abs(c - np.array(d["coefficients"]))) <= 1e-9
        assert np.max(np.abs(v - np.array(d["vertices"]))) <= 1e-9
        assert np.max(np.abs(v @ c - np.array(d["point"]))) <= 1e-9


def test_spec_worked_example():
    rho = np.array([.9, .8, .5, .3, .1])
    gamma = 1 / np.log2(np.arange(2, 7))
    demo = pareto_curve(gamma, rho, "demographic")
    assert demo.shape == (5, 5)
    assert np.allclose(demo[0], 0.589692, atol=1e-6)
    assert np.allclose(demo[1], [.773213, .724918, .580033, .483443, .386853], atol=1e-6)
    assert np.allclose(demo[-1], [1, .63093, .5, .430677, .386853], atol=1e-6)
    merit = pareto_curve(gamma, rho, "meritocratic")
    assert np.allclose(merit, demo[1:], atol=1e-9)
    c, v = caratheodory_decomposition(gamma, merit[0])
    assert np.allclose(c, [.601655, .292287, .075535, .030524], atol=1e-6)
    orders = np.argsort(-v.T, axis=1, kind="stable")
    assert orders.tolist() == [[0, 1, 2, 3, 4], [1, 2, 3, 0, 4], [2, 3, 1, 0, 4], [3, 2, 1, 0, 4]]


def test_lottery_ends_of_the_curve():
    rho = np.array([.9, .8, .5, .3, .1])
    prp = expohedron_rerank(rho, np.zeros(5, int), 5, alpha=1.0)
    assert prp.rankings.tolist() == [[0, 1, 2, 3, 4]] and prp.probabilities.tolist() == [1.0]
    fair = rerank("expohedron", rho, np.zeros(5, int), 5, alpha=0.0, fairness="meritocratic")
    gamma = 1 / np.log2(np.arange(2, 7))
    exposure = np.zeros(5)
    for r, p in zip(fair.rankings, fair.probabilities):
        exposure[r] += p * gamma
    assert np.max(np.abs(exposure - pareto_curve(gamma, rho)[0])) <= 1e-9
    assert majorized(exposure, gamma)


@pytest.mark.parametrize("kwargs, err", [(dict(scores=[-0.1, 0.5, 0.2]), DataError), (dict(scores=[0.0, 0.0, 0.0]), DataError),
                                         (dict(alpha=1.5), ValueError), (dict(fairness="x"), ValueError)])
def test_bad_inputs(kwargs, err):
    args = dict(scores=[0.3, 0.5, 0.2], groups=[0, 1, 0], k=2)
    args.update(kwargs)
    with pytest.raises(err) as info:
        expohedron_rerank(**args)
    assert isinstance(info.value, OcefError)
    with pytest.raises(DataError):
        caratheodory_decomposition([1.0, 0.0], [1.5, -0.5])


NEAR_TIED = json.loads((Path(__file__).resolve().parent / "data" / "expohedron_near_tied.json").read_text())["cases"]


@pytest.mark.parametrize("case", NEAR_TIED, ids=[c["user"] for c in NEAR_TIED])
def test_near_tied_real_scores(case):
    """MovieLens-100K users whose top-30 scores are near-tied (gaps 2.7e-6 to 2.7e-4): the projection of ρ
    onto a face of near-tied items is tiny, and before the block-mean projection its rounding (relative to
    ρ, not to the projection) pushed the bisection off the face. The curve runs from the meritocratic
    end to the PRP vertex through faces of decreasing dimension, and its points decompose."""
    rho = np.array(case["scores"])
    gamma = 1 / np.log2(np.arange(2, rho.size + 2))
    curve = pareto_curve(gamma, rho)
    util = curve @ rho
    assert np.all(np.diff(util) > 0)
    assert abs(util[-1] - np.sort(gamma) @ np.sort(rho)) <= 1e-9
    assert np.max(np.abs(curve[-1] - gamma[np.argsort(np.argsort(-rho))])) <= 1e-9
    for x in (curve[0], (curve[1] + curve[2]) / 2, curve[-2]):
        assert majorized(x, gamma)
        c, v = caratheodory_decomposition(gamma, x)
        assert abs(c.sum() - 1) <= 1e-12 and np.max(np.abs(v @ c - x)) <= 1e-9


GROUP_CASES = json.loads((Path(__file__).resolve().parent / "data" / "expohedron_group_reference.json").read_text())["cases"]


@pytest.mark.parametrize("case", GROUP_CASES, ids=range(len(GROUP_CASES)))
def test_group_fairness_endpoint_equals_the_reference(case):
    """naver/expohedron's ``fairness_endpoint`` with a grouping matrix (make_expohedron_group_reference.py):
    the demographic group-fair point of highest utility; its groups get the barycenter's exposure."""
    gamma, rho, groups = (np.array(case[c]) for c in ("gamma", "relevance", "groups"))
    point = group_fairness_endpoint(gamma, rho, groups)
    assert np.max(np.abs(point - np.array(case["endpoint"]))) <= 1e-9
    assert majorized(point, gamma)
    for g in np.unique(groups):
        assert abs(point[groups == g].sum() - np.mean(gamma) * np.sum(groups == g)) <= 1e-9
