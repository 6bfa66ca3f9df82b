"""Deep CTR models of Guo et al. 2023 (extra ``deep``): skipped without torch."""
import numpy as np
import pytest

from ocef.fairrec.unfairness import pooled_auc
from ocef.fairrec.models import make_model
from tests.ocef.fairrec.taste import taste_split

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def split():
    return taste_split(100, 60, 3, 10)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wdl", "deepfm", "dcn"])
def test_deep_models_learn_and_cache(split, name, tmp_path, monkeypatch):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    m = make_model(name, epochs=8, batch_size=256, hidden=(32, 16), lr=0.01).fit(split, rng=0)
    s = m.score(split.candidates)
    assert s.shape == (len(split.candidates),) and ((s >= 0) & (s <= 1)).all()
    assert pooled_auc(split.candidates.label, s) > 0.7
    with monkeypatch.context() as mp:      # the second fit loads the cache: no training (retraining gives the same)
        mp.setattr(type(m), "_train", lambda *a: pytest.fail("trained again despite the cache"))
        again = make_model(name, epochs=8, batch_size=256, hidden=(32, 16), lr=0.01).fit(split, rng=0)
    np.testing.assert_allclose(again.score(split.candidates), s)
    assert len(list(tmp_path.glob(f"fairrec-{name}-*.npz"))) == 1
