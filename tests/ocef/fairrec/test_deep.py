"""Deep CTR models of seed 002 (extra ``deep``): skipped without torch."""
import numpy as np
import pandas as pd
import pytest

from ocef.environments.fairrec_split import fairrec_split
from ocef.fairrec.models import make_model, roc_auc

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def split():
    rng = np.random.default_rng(0)
    n_users, n_items = 100, 60
    taste = rng.integers(0, 3, n_users)
    kind = np.arange(n_items) % 3
    rows = [(u, i, t) for u in range(n_users)
            for t, i in enumerate(rng.choice(np.flatnonzero(kind == taste[u]), 10, replace=False))]
    ratings = pd.DataFrame(rows, columns=["user", "item", "timestamp"])
    users = pd.DataFrame({"gender": rng.integers(0, 2, n_users), "age": taste})
    return fairrec_split(ratings, users, np.eye(3, dtype=int)[kind], n_neg_test=19, rng=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wdl", "deepfm", "dcn"])
def test_deep_models_learn_and_cache(split, name, tmp_path, monkeypatch):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    m = make_model(name, epochs=8, batch_size=256, hidden=(32, 16), lr=0.01).fit(split, rng=0)
    s = m.score(split.candidates)
    assert s.shape == (len(split.candidates),) and ((s >= 0) & (s <= 1)).all()
    assert roc_auc(split.candidates.label, s) > 0.7
    again = make_model(name, epochs=8, batch_size=256, hidden=(32, 16), lr=0.01).fit(split, rng=0)  # cached
    np.testing.assert_allclose(again.score(split.candidates), s)
    assert len(list(tmp_path.glob(f"fairrec-{name}-*.npz"))) == 1
