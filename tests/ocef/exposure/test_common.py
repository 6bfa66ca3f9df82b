"""The common test of the per-user metric registry (scikit-learn's ``metrics/tests/test_common.py``
pattern): every entry of :data:`ocef.exposure.user_metrics.REGISTRY` is checked, without naming it,
for numpy reference = pandas = DuckDB (= Spark in the slow suite) on generated logs, under several
browsing models and every declared parameter of the entry; and each declared parameter is declared
on the front doors and refuses its invalid values. A new entry is tested by this file as it is."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.errors import OcefError
from ocef.exposure import exposure_fairness, per_user_fairness, ranking_fairness, ranking_statistics
from ocef.exposure.browsing import BrowsingModel
from ocef.exposure.user_metrics import LIST_METRICS, RANKING_METRICS, REGISTRY, UserContext

GROUPS = ("x", "y", "z")
SETTINGS = [   # browsing models x the values of every declared parameter of the ranking family
    dict(browsing="geometric", patience=0.5, stop=0.5, attention="trec", awrf_target="equal", ndkl_desired=None,
         complete=False, judged=False),
    dict(browsing="cascade", patience=0.7, stop=0.4, attention="browsing", awrf_target={"x": 0.2, "y": 0.5, "z": 0.3},
         ndkl_desired={"x": 0.5, "y": 0.3, "z": 0.2}, complete=True, judged=True),
    dict(browsing="dcg", patience=0.5, stop=0.5, attention="browsing", awrf_target={"x": 1.0, "y": 1.0},
         ndkl_desired={"x": 0.6, "y": 0.4}, complete=False, judged=True),
]


def generated_log(seed=0, n_users=24, n_items=18, samples=2):
    """Lists of 1..6 items, ``samples`` sampled rankings per user, graded relevance, n_relevant,
    3 item groups, 2 user groups; judgments that also judge items never shown."""
    rng = np.random.default_rng(seed)
    item_group = rng.choice(GROUPS, size=n_items, p=[0.5, 0.3, 0.2])
    rows, judg = [], []
    for u in range(n_users):
        rel = rng.integers(0, 3, size=n_items).astype(float)
        k = int(rng.integers(1, 7))
        for s in range(samples):
            for r, i in enumerate(rng.choice(n_items, size=k, replace=False)):
                rows.append((u, s, int(i), r + 1, rel[i], int((rel > 0).sum()), item_group[i], "ab"[u % 3 == 0]))
        for i in rng.choice(n_items, size=int(rng.integers(0, 8)), replace=False):
            judg.append((u, int(i), rel[i]))
    log = pd.DataFrame(rows, columns=["user", "sample", "item", "rank", "relevance", "n_relevant", "g", "ug"])
    return log, pd.DataFrame(judg, columns=["user", "item", "relevance"])


def reference(name, log, judg, setting):
    """The entry's numpy reference, one user at a time."""
    labels = sorted(log["g"].unique())
    t = setting["awrf_target"]
    tvec = None if t == "equal" else np.array([t.get(g, 0.0) for g in labels]) / sum(t.values())
    model = BrowsingModel(setting["browsing"], setting["patience"], setting["stop"])
    out = {}
    for u, rows in log.groupby("user"):
        ctx = UserContext(k=int(log["rank"].max()), labels=labels, model=model, attention=setting["attention"],
                          awrf_target=tvec, ndkl_desired=setting["ndkl_desired"], complete=setting["complete"],
                          judgments=judg[judg.user == u][["item", "relevance"]] if setting["judged"] else None)
        out[u] = REGISTRY[name].reference(rows, ctx)
    return pd.Series(out, dtype=float)


def _moments(values: pd.Series) -> dict:
    v = values.dropna().to_numpy()
    return {"n": v.size, "sum": v.sum(), "sum_sq": v @ v, "min": v.min(), "max": v.max()}


def _backend_values(name, log, judg, setting, backend, **kw):
    """The per-user values (ranking family) or the moments (list family) a backend computes."""
    browsing = {k: setting[k] for k in ("browsing", "patience", "stop")}
    if REGISTRY[name].family == "list":
        st = ranking_statistics(log, item_group="g", metrics=[name], backend=backend, **browsing, **kw)
        row = st.metrics[st.metrics.metric == name].iloc[0]
        return {key: row[key] for key in ("n", "sum", "sum_sq", "min", "max")}
    params = {k: setting[k] for k in ("attention", "awrf_target", "ndkl_desired", "complete")}
    table = per_user_fairness(log, item_group="g", metrics=[name], backend=backend,
                              judgments=judg if setting["judged"] else None, **browsing, **params, **kw)
    return table.set_index("user")[name]


def _check_equal(name, got, ref):
    if REGISTRY[name].family == "list":
        want = _moments(ref)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), name
    else:
        np.testing.assert_allclose(got.sort_index().to_numpy(), ref.sort_index().to_numpy(), rtol=1e-12,
                                   atol=1e-12, err_msg=name)


@pytest.mark.parametrize("setting", range(len(SETTINGS)))
@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_equals_its_numpy_reference(name, backend, setting):
    log, judg = generated_log(seed=setting)
    s = SETTINGS[setting]
    _check_equal(name, _backend_values(name, log, judg, s, backend), reference(name, log, judg, s))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_on_spark_equals_duckdb(name):
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install -e '.[spark]')")
    import os
    import shutil

    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java for Spark")
    log, judg = generated_log(seed=1, n_users=12)
    s = SETTINGS[1]
    _check_equal(name, _backend_values(name, log, judg, s, "spark"), reference(name, log, judg, s))


def test_the_registry_is_the_vocabulary():
    # every entry is complete for its family, and the families are what the front doors accept
    for name, entry in REGISTRY.items():
        assert entry.name == name and entry.family in ("list", "ranking") and entry.description
        assert callable(entry.reference) and entry.min_users >= 2
        if entry.family == "list":
            assert callable(entry.numpy) and entry.sql
        else:       # a ranking metric is one entry: its SQL pieces and its numpy kernel travel with it
            assert entry.unit in ("ranking", "item") and callable(entry.numpy)
            assert callable(entry.sql) if entry.unit == "ranking" else isinstance(entry.sql, str)
    assert set(LIST_METRICS) | set(RANKING_METRICS) == set(REGISTRY)
    from ocef.commands.exposure import RANKING_METRICS as CLI_METRICS, TARGETS as CLI_TARGETS
    from ocef.exposure.shares import TARGETS

    assert CLI_METRICS == RANKING_METRICS and CLI_TARGETS == TARGETS


@pytest.mark.parametrize("name", [m for m in REGISTRY if REGISTRY[m].params])
def test_declared_parameters_of_every_metric(name):
    """Each parameter an entry declares is declared, with the same constraint, on the front doors
    that compute it, and every invalid value of it is refused there with its name."""
    log, _ = generated_log(n_users=6, samples=1)
    for param, constraint in REGISTRY[name].params.items():
        for door in (exposure_fairness, ranking_fairness):
            assert door.__declared_params__[param] is constraint, (name, param, door.__name__)
        for bad in constraint.invalid_values():
            with pytest.raises(OcefError, match=param):
                exposure_fairness(log, item_group="g", ranking_metrics=[name], **{param: bad})


def test_declared_names_of_the_front_door():
    log, _ = generated_log(n_users=6, samples=1)
    with pytest.raises(OcefError, match="metrics"):
        exposure_fairness(log, item_group="g", metrics=["precision", "gini"])
    with pytest.raises(OcefError, match="ranking_metrics"):
        exposure_fairness(log, item_group="g", ranking_metrics=["awrf", "gini"])
