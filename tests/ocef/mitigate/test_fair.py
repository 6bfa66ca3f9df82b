"""FA*IR equals fairsearchcore 1.0.4 (vendored in ``_reference_fairsearchcore.py``): m-tables, fail
probabilities and adjusted α on a (k, p, α) grid with k 10-400 (precomputed by the reference:
``make_fair_reference.py``, minutes per table at k = 400), live on small k, and re-rankings on
random instances (ties included); the spec's worked example; bad inputs."""
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from ocef.errors import OcefError, ParameterError
from ocef.mitigate.fair import adjusted_mtable, fail_probability, fair_batch, fair_rerank, is_fair, mtable
from ocef.mitigate.rerank import rerank_batch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _reference_fairsearchcore as REF  # noqa: E402

ROWS = json.loads((HERE / "data" / "fair_reference.json").read_text())["rows"]
UNADJUSTED = json.loads((HERE / "data" / "fair_reference_unadjusted.json").read_text())["unadjusted"]


def _rid(r):
    return f"k{r['k']}-p{r['p']}-a{r['alpha']}"


@pytest.mark.parametrize("row", [pytest.param(r, marks=[pytest.mark.slow] if r["k"] >= 200 else [], id=_rid(r))
                                 for r in ROWS])
def test_tables_equal_the_reference_grid(row):
    k, p, a = row["k"], row["p"], row["alpha"]
    assert mtable(k, p, a).tolist() == row["mtable"]
    assert fail_probability(row["mtable"], p) == row["fail_probability"]          # bit for bit
    alpha_c, m = adjusted_mtable(k, p, a)
    assert alpha_c == row["adjusted_alpha"]
    assert m.tolist() == row["adjusted_mtable"]
    assert fail_probability(m, p) == row["adjusted_fail_probability"]


@pytest.mark.parametrize("row", UNADJUSTED, ids=_rid)
def test_unadjusted_tables_equal_the_reference_up_to_k400(row):
    # the reference's adjusted alpha takes tens of minutes at k = 300-400 (about 50 fail
    # probabilities, each ~30 s): there the grid holds the unadjusted table and its fail probability
    assert mtable(row["k"], row["p"], row["alpha"]).tolist() == row["mtable"]
    assert fail_probability(row["mtable"], row["p"]) == row["fail_probability"]


def test_the_grid_covers_the_ranges():
    ks = {r["k"] for r in ROWS} | {r["k"] for r in UNADJUSTED}
    assert min(ks) == 10 and max(ks) == 400
    assert {0.02, 0.98} <= {r["p"] for r in ROWS} and {0.01, 0.15} <= {r["alpha"] for r in ROWS}


def _docs(scores, prot):
    return [REF.FairScoreDoc(i, float(s), bool(pr)) for i, s, pr in zip(range(len(scores)), scores, prot)]


def _sorted_docs(scores, prot):
    order = np.argsort(-np.asarray(scores), kind="stable")
    return [REF.FairScoreDoc(int(i), float(scores[i]), bool(prot[i])) for i in order]


def test_live_reference_on_random_small_instances():
    rng = np.random.default_rng(11)
    warnings.simplefilter("ignore")
    for _ in range(12):
        k = int(rng.integers(10, 16))
        p = float(rng.choice([0.02, 0.2, 0.35, 0.5, 0.65, 0.8, 0.98]))
        a = float(rng.choice([0.01, 0.05, 0.1, 0.15]))
        f = REF.Fair(k, p, a)
        assert mtable(k, p, a).tolist() == f.create_unadjusted_mtable()
        alpha_c, m = adjusted_mtable(k, p, a)
        assert m.tolist() == f.create_adjusted_mtable() and alpha_c == f.adjust_alpha()
        for _ in range(5):
            n = k + int(rng.integers(0, 10))
            scores = rng.integers(0, 6, n) / 5.0                       # ties across groups
            groups = (rng.random(n) < rng.uniform(0.05, 0.6)).astype(int)
            ref = [d.id for d in f.re_rank(_sorted_docs(scores, groups == 1))]
            assert fair_rerank(scores, groups, k, p=p, alpha=a).rankings[0].tolist() == ref


@pytest.mark.parametrize("row", [r for r in ROWS if r["k"] in (25, 100, 200)][::3], ids=_rid)
def test_reranking_equals_the_reference_merge_on_random_instances(row):
    # fair_top_k is the reference's merge; the reference's adjusted m-table comes from the grid
    k, p, a = row["k"], row["p"], row["alpha"]
    rng = np.random.default_rng(k)
    n_users, n = 30, k + 40
    scores = rng.integers(0, 20, size=(n_users, n)) / 19.0
    groups = (rng.random((n_users, n)) < rng.uniform(0.02, 0.7, size=(n_users, 1))).astype(np.int64) * 2
    out = fair_batch(scores, groups, k, protected=2, p=p, alpha=a)
    for u in range(n_users):
        docs = _sorted_docs(scores[u], groups[u] == 2)
        ref = REF.fair_top_k(k, [d for d in docs if d.is_protected], [d for d in docs if not d.is_protected],
                             row["adjusted_mtable"])
        assert out[u].tolist() == [d.id for d in ref]
    assert np.array_equal(rerank_batch("fair", scores, groups, k, chunk_size=7, protected=2, p=p, alpha=a), out)


def test_spec_worked_example():
    # k=10, p=0.5, alpha=0.1; ids 1..20 with score 21 - id; protected {5, 9, 12, 14, ...}
    ids = np.arange(1, 21)
    groups = np.isin(ids, [5, 9, 12, 14, 15, 16, 17, 18, 19, 20]).astype(int)
    assert mtable(10, 0.5, 0.1).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    assert fail_probability(mtable(10, 0.5, 0.1), 0.5) == pytest.approx(0.12890625, abs=1e-15)
    alpha_c, m = adjusted_mtable(10, 0.5, 0.1)
    assert alpha_c == 0.07500000000000001 and m.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    assert fail_probability(m, 0.5) == pytest.approx(0.09375, abs=1e-15)
    out = fair_rerank(21 - ids, groups, 10, p=0.5, alpha=0.1).rankings[0]
    assert (out + 1).tolist() == [1, 2, 3, 5, 4, 6, 9, 7, 8, 12]
    assert not is_fair(groups[:10], 10, 0.5, 0.1)
    assert is_fair(groups[out], 10, 0.5, 0.1)


def test_hand_computed_merge():
    # p=0.98, alpha=0.15, k=3: binom.ppf(a, i, 0.98) = i for the adjusted a, so m = [1, 2, 3]: the two
    # protected candidates are forced into positions 1 and 2, then (protected exhausted) the best other
    assert adjusted_mtable(3, 0.98, 0.15)[1].tolist() == [1, 2, 3]
    assert fair_rerank([0.9, 0.8, 0.1, 0.05], [0, 0, 1, 1], 3, p=0.98, alpha=0.15).rankings[0].tolist() == [2, 3, 0]
    # p=0.9, alpha=0.1, k=2: m = [0, 1]; position 1 the better head (0), position 2 a forced protected (3)
    assert adjusted_mtable(2, 0.9, 0.1)[1].tolist() == [0, 1]
    assert fair_rerank([4., 3., 2., 1.], [0, 0, 0, 1], 2, p=0.9, alpha=0.1).rankings[0].tolist() == [0, 3]
    # ties go to the protected candidate
    assert fair_rerank([0.5, 0.5, 0.1], [0, 1, 0], 2, p=0.02, alpha=0.01).rankings[0].tolist() == [1, 0]


@pytest.mark.parametrize("kwargs", [dict(p=1.2), dict(p=-0.1), dict(alpha=0.0005), dict(alpha=0.6), dict(k=1),
                                    dict(k=50), dict(scores=[np.nan] * 12)])
def test_bad_inputs(kwargs):
    args = dict(scores=np.linspace(1, 0, 12), groups=np.arange(12) % 2, k=5)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError)) as info:
        fair_rerank(**args)
    assert isinstance(info.value, OcefError)


def test_inconsistent_mtable_and_is_fair_length():
    with pytest.raises(ParameterError, match="inconsistent"):
        fail_probability([0, 2, 2], 0.5)
    with pytest.raises(ParameterError):
        is_fair([1, 0], 10, 0.5, 0.1)
