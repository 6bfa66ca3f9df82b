"""The common test of seed 004's metric registry (scikit-learn's ``metrics/tests/test_common.py``
pattern): every entry of :data:`ocef.metrics.recommender.REGISTRY` is checked, without naming it,
for numpy (the score-matrix kernels) = pandas = DuckDB (= Spark in the slow suite) on generated
top-k logs, under every valid value of each parameter it declares; each declared parameter is the
same constraint on every front door that takes it and refuses its invalid values there. A new
entry is tested by this file as it is."""
from __future__ import annotations

import itertools
import math
import os
import shutil

import numpy as np
import pandas as pd
import pytest

from ocef.errors import OcefError
from ocef.metrics import bias, recommender as rec
from ocef.metrics.from_log import seed004_from_log
from ocef.metrics.recommender import REGISTRY

DOORS = (seed004_from_log, bias.recommender_bias, rec.recommender_bias_metrics, rec.gini_index, rec.gini,
         rec.mad_score, rec.avg_precision_ratio, rec.avg_recall_ratio, rec.avg_f1_ratio,
         rec.recommender_rmse_ratio, rec.recommender_mae_ratio)


def generated(seed=0, n_users=45, n_items=20, k=4):
    """A score matrix whose scored entries are each user's top-k (NaN elsewhere: MAD compares the
    shown items' scores), a 0/1 truth matrix, three user groups, and its top-k log."""
    rng = np.random.default_rng(seed)
    full = rng.random((n_users, n_items))
    shown = rec.exposure(full, k=k).astype(bool)
    scores = np.where(shown, full, np.nan)
    truth = (rng.random((n_users, n_items)) < 0.2).astype(int)
    truth[:2] = 0                                  # users without a relevant item (recall 0)
    groups = np.array(["x", "y", "z"])[rng.integers(0, 3, n_users)]
    users, items = np.nonzero(shown)
    log = pd.DataFrame({"user": users, "item": items, "ug": groups[users], "score": scores[users, items],
                        "relevance": truth[users, items], "n_relevant": truth.sum(axis=1)[users]})
    return scores, truth, groups, log, k


def numpy_values(scores, truth, groups, k, params) -> dict:
    """Every entry's value from the score-matrix kernels: ``{name: value}`` for system metrics,
    ``{name: {group: value}}`` for group values, ``{name: {(a, b): value}}`` for pairs."""
    stats = rec.user_stats(scores, truth, k=k)
    names = sorted(set(groups))
    agg = rec.aggregate(stats, np.stack([np.ones(len(groups))] + [(groups == g).astype(float) for g in names]))
    one = lambda i: {key: v[i] for key, v in agg.items()}  # noqa: E731
    out = {}
    system = rec.item_metrics(agg["counts"][0], agg["pop"][0], agg["n_active"][0],
                              convention=params.get("gini_convention", "holisticai"))
    for name, m in REGISTRY.items():
        if m.kind == "system":
            out[name] = float(system[name])
        elif m.kind == "group":
            out[name] = {g: float(agg[name][i + 1]) for i, g in enumerate(names)}
        else:
            out[name] = {(a, b): float(rec.pair_metrics(one(i + 1), one(j + 1))[name])
                         for (i, a), (j, b) in itertools.permutations(enumerate(names), 2)}
    return out


def log_values(log, n_items, backend, params) -> dict:
    """The same from :func:`seed004_from_log` (only the entries a log gives)."""
    door = seed004_from_log.__declared_params__
    kw = {next(p for p, c in door.items() if c is REGISTRY_PARAMS[name]): v for name, v in params.items()}
    res = seed004_from_log(log, n_items=n_items, user_group="ug", backend=backend, **kw)
    out = {}
    for name, m in REGISTRY.items():
        if m.kind == "system":
            out[name] = res[name]
        elif m.kind == "group" and m.log is not None:
            out[name] = {g: v[name] for g, v in res["groups"].items()}
        elif m.kind == "pair" and name in next(iter(res["pairs"].values())):
            out[name] = {pair: v[name] for pair, v in res["pairs"].items()}
    return out


#: every declared parameter of the registry: name -> its constraint
REGISTRY_PARAMS = {p: c for m in REGISTRY.values() for p, c in m.params.items()}


def settings():
    """The defaults, then each valid value of each declared parameter."""
    out = [{}]
    for name, constraint in REGISTRY_PARAMS.items():
        out += [{name: v} for v in constraint.values]
    return out


def from_log(m) -> bool:
    """Whether a top-k log gives the entry: every system metric, the group values with a log piece,
    the pairs of those values and of the exposure distributions."""
    if m.kind == "group":
        return m.log is not None
    return m.kind == "system" or m.compares == "dist" or REGISTRY[m.compares].log is not None


def _same(got, want, name):
    if isinstance(want, dict):
        assert set(got) == set(want), name
        for key in want:
            _same(got[key], want[key], f"{name}{key}")
    elif isinstance(want, float) and math.isnan(want):
        assert got is None or math.isnan(got), name
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14), name


@pytest.mark.parametrize("setting", settings(), ids=str)
@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_metric_from_a_log_equals_its_numpy_kernel(seed, backend, setting):
    scores, truth, groups, log, k = generated(seed)
    want = numpy_values(scores, truth, groups, k, setting)
    got = log_values(log, scores.shape[1], backend, setting)
    for name, m in REGISTRY.items():
        if from_log(m):
            _same(got[name], want[name], name)
        else:
            assert name not in got, f"{name}: a log cannot give it and it is not left out"


@pytest.mark.slow
def test_every_metric_on_spark_equals_its_numpy_kernel():
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[spark]')")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java for Spark")
    scores, truth, groups, log, k = generated(2, n_users=24, n_items=12)
    want = numpy_values(scores, truth, groups, k, {})
    got = log_values(log, scores.shape[1], "spark", {})
    assert set(got) == {name for name, m in REGISTRY.items() if from_log(m)}
    for name in got:
        _same(got[name], want[name], name)


def test_the_registry_is_the_vocabulary():
    kinds = {"system", "group", "pair"}
    for name, m in REGISTRY.items():
        assert m.name == name and m.kind in kinds and m.formula and callable(m.kernel), name
        assert m.interval in bias.MIN_GROUP_USERS or m.interval == "none", name
        if m.kind == "pair":
            assert m.compares == "dist" or REGISTRY[m.compares].kind == "group", name
        if m.log is not None:
            assert m.kind == "group" and m.log.sql and callable(m.log.pandas) and callable(m.log.value), name
        if m.label:         # holisticai's batch table lists it under its metric_type
            assert m.metric_type in rec.METRIC_TYPES and rec.METRIC_NAMES[m.label] == (name, m.unbiased)
    # the doors' vocabularies are the registry's
    assert bias.AUTO_METHODS == {n: m.interval for n, m in REGISTRY.items()}
    assert set(bias.OVERALL_METRICS) | set(bias.PAIR_METRICS) | set(bias.GROUP_METRICS) == set(REGISTRY)
    assert rec.TRUTH_METRICS == tuple(n for n, m in REGISTRY.items() if m.kind == "group" and "truth" in m.needs)
    scores, truth, groups, _, k = generated(0)
    table = bias.recommender_bias(scores, truth, groups=groups, k=k, n_resamples=0).table
    assert set(table.metric) == set(REGISTRY)


@pytest.mark.parametrize("param", sorted(REGISTRY_PARAMS))
def test_declared_parameters_of_every_metric(param):
    """A declared parameter is the same constraint object on every door that takes it, and each of
    its invalid values is refused there with its name."""
    constraint = REGISTRY_PARAMS[param]
    scores, truth, groups, log, k = generated(0, n_users=9, n_items=6, k=2)
    takers = [(door, p) for door in DOORS for p, c in getattr(door, "__declared_params__", {}).items()
              if c is constraint]
    assert any(door is seed004_from_log for door, _ in takers) and any(
        door is bias.recommender_bias for door, _ in takers), param
    calls = {seed004_from_log: lambda **kw: seed004_from_log(log, n_items=6, user_group="ug", **kw),
             bias.recommender_bias: lambda **kw: bias.recommender_bias(scores, groups=groups, k=k, n_resamples=0,
                                                                       **kw)}
    for door, p in takers:
        if door in calls:
            for bad in constraint.invalid_values():
                with pytest.raises(OcefError, match=p):
                    calls[door](**{p: bad})
