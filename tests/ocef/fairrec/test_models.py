"""numpy recommenders of Guo et al. 2023 (FairRec): LogisticMF and a factorization machine."""
import numpy as np
import pandas as pd
import pytest

from ocef.fairrec.unfairness import pooled_auc
from ocef.fairrec.models import FactorizationMachine, LogisticMF, make_model
from tests.ocef.fairrec.taste import taste_split


@pytest.fixture(scope="module")
def split():
    return taste_split(120, 100, 4, 12)


@pytest.mark.parametrize("cls", [LogisticMF, FactorizationMachine])
def test_models_learn_and_are_reproducible(split, cls):
    m = cls(n_factors=8, epochs=15, lr=0.02).fit(split, rng=0, cache=False)
    s = m.score(split.candidates)
    assert s.shape == (len(split.candidates),) and ((s > 0) & (s < 1)).all()
    assert pooled_auc(split.candidates.label, s) > 0.75
    again = cls(n_factors=8, epochs=15, lr=0.02).fit(split, rng=0, cache=False)
    np.testing.assert_array_equal(again.score(split.candidates), s)


def test_model_cache(split, tmp_path, monkeypatch):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    a = LogisticMF(n_factors=4, epochs=2).fit(split, rng=1)
    assert len(list(tmp_path.glob("fairrec-logmf-*.npz"))) == 1
    with monkeypatch.context() as m:                 # the second fit loads the cache: no training
        m.setattr(LogisticMF, "_train", lambda *a: pytest.fail("trained again despite the cache"))
        b = LogisticMF(n_factors=4, epochs=2).fit(split, rng=1)
    np.testing.assert_array_equal(a.score(split.candidates), b.score(split.candidates))
    LogisticMF(n_factors=4, epochs=3).fit(split, rng=1)
    assert len(list(tmp_path.glob("fairrec-logmf-*.npz"))) == 2


def test_no_cache_without_an_int_seed(split, tmp_path, monkeypatch):
    """rng None (fresh draws) trains afresh every time; before, the first fit was cached under seed None and
    every later fit(rng=None) returned it."""
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    a = LogisticMF(n_factors=4, epochs=2).fit(split, rng=None).score(split.candidates)
    b = LogisticMF(n_factors=4, epochs=2).fit(split, rng=None).score(split.candidates)
    assert not np.array_equal(a, b)
    assert not list(tmp_path.glob("fairrec-logmf-*.npz"))
    LogisticMF(n_factors=4, epochs=2).fit(split, rng=np.random.default_rng(0))
    assert not list(tmp_path.glob("fairrec-logmf-*.npz"))


def test_bad_inputs(split):     # pooled_auc's values (ties, one class): tests/ocef/fairrec/test_unfairness.py
    with pytest.raises(ValueError, match="model must be one of"):
        make_model("xgb")
    with pytest.raises(ValueError, match="not fitted"):
        LogisticMF().score(split.candidates)
    with pytest.raises(ValueError, match="lr"):
        LogisticMF(lr=0).fit(split, cache=False)
    with pytest.raises(ValueError, match="reg"):
        FactorizationMachine(reg=-1e-3).fit(split, cache=False)
    from ocef.fairrec.deep import DCN, WideDeep       # checked before torch is needed

    with pytest.raises(ValueError, match="reg"):
        WideDeep(reg=-1e-6).fit(split, cache=False)  # before: unchecked, left to torch.optim.Adam
    with pytest.raises(ValueError, match="embedding_dim"):
        DCN(embedding_dim=0).fit(split, cache=False)


@pytest.mark.parametrize("cls, regularised", [(LogisticMF, ("P", "Q")), (FactorizationMachine, ("w", "V"))])
def test_backward_is_the_gradient_of_the_loss(split, cls, regularised):
    """``_backward`` = d/dparams of mean BCE + reg/2 · ||θ||² (of the ``regularised`` parameters),
    checked entry by entry by central finite differences at random parameters."""
    m = cls(n_factors=3, reg=0.01)
    m._setup(split)
    gen = np.random.default_rng(0)
    params = {k: v + 0.3 * gen.standard_normal(v.shape) for k, v in m._init(gen).items()}
    t = split.train.iloc[gen.choice(len(split.train), 40, replace=False)]
    u, i, y = t.user.to_numpy(), t.item.to_numpy(), t.label.to_numpy(dtype=float)

    def loss(p):
        z, _ = m._forward(p, u, i)
        bce = np.mean(np.logaddexp(0, z) - y * z)
        return bce + m.reg / 2 * sum((p[k] ** 2).sum() for k in regularised)

    z, cache = m._forward(params, u, i)
    grads = m._backward(params, u, i, (1 / (1 + np.exp(-z)) - y) / y.size, cache)
    h = 1e-6
    for name, g in grads.items():
        for idx in np.ndindex(g.shape):             # every entry: rows in and out of the batch
            plus = {k: v.copy() for k, v in params.items()}
            minus = {k: v.copy() for k, v in params.items()}
            plus[name][idx] += h
            minus[name][idx] -= h
            assert g[idx] == pytest.approx((loss(plus) - loss(minus)) / (2 * h), abs=1e-7), (name, idx)


def test_fitted_recommender_lazy_oracle_equals_precomputed(split):
    from ocef.fairrec.pipeline import FittedRecommender
    from ocef.fairrec.search import search

    m = LogisticMF(n_factors=4, epochs=2).fit(split, rng=0, cache=False)
    fit = FittedRecommender("logmf", split, m, m.score(split.candidates))
    for metric in ("auc", "mrr"):
        lazy = search(fit.oracle(metric, ["gender", "age"], min_users=2, lazy=True), "exhaustive")
        pre = search(fit.oracle(metric, ["gender", "age"], min_users=2), "exhaustive")
        assert lazy.n_users_queried == split.n_users == pre.n_users_queried
        pd.testing.assert_frame_equal(lazy.infobase, pre.infobase)


def test_fit_options_are_keyword_only():
    # the vocabulary (docs/glossary.md): data first, options keyword-only; DeepCTR needs no torch to check
    import inspect

    from ocef.fairrec.deep import DCN, WideDeep

    for cls in (LogisticMF, FactorizationMachine, WideDeep, DCN):
        params = inspect.signature(cls.fit).parameters
        assert params["rng"].kind is inspect.Parameter.KEYWORD_ONLY, cls
        assert params["cache"].kind is inspect.Parameter.KEYWORD_ONLY, cls
