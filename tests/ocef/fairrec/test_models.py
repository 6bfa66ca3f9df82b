"""numpy recommenders of seed 002: LogisticMF and a factorization machine."""
import numpy as np
import pytest

from ocef.fairrec.metrics import pooled_auc
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
    b = LogisticMF(n_factors=4, epochs=2).fit(split, rng=1)
    np.testing.assert_array_equal(a.score(split.candidates), b.score(split.candidates))
    LogisticMF(n_factors=4, epochs=3).fit(split, rng=1)
    assert len(list(tmp_path.glob("fairrec-logmf-*.npz"))) == 2


def test_bad_inputs(split):     # pooled_auc's values (ties, one class): tests/ocef/fairrec/test_metrics.py
    with pytest.raises(ValueError, match="model must be one of"):
        make_model("xgb")
    with pytest.raises(ValueError, match="not fitted"):
        LogisticMF().score(split.candidates)
    with pytest.raises(ValueError, match="lr"):
        LogisticMF(lr=0).fit(split, cache=False)
