"""Leave-last-out split of Guo et al. 2023 (Sec. 4.1), genre flags and user codes of MovieLens."""
import numpy as np
import pandas as pd
import pytest

from ocef.environments.fairrec_split import fairrec_split, item_popularity, leave_last_out
from tests.conftest import require_data


def _ratings(seed=0, n_users=30, n_items=70, per_user=8):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        items = rng.choice(n_items, per_user, replace=False)
        times = rng.permutation(per_user) * 10
        rows += [(u, i, t) for i, t in zip(items, times)]
    return pd.DataFrame(rows, columns=["user", "item", "timestamp"])


def _split(rng=0, **kw):
    r = _ratings()
    users = pd.DataFrame({"gender": np.arange(30) % 2, "age": np.arange(30) % 3})
    genres = np.eye(70, 4, dtype=int)
    return r, fairrec_split(r, users, genres, rng=rng, **kw)


def test_split_structure():
    r, s = _split(n_neg_test=20, n_neg_train=2)
    last = r.loc[r.groupby("user").timestamp.idxmax()].set_index("user").item
    cand = s.candidates
    assert (cand.groupby("user").size() == 21).all() and s.n_candidates == 21
    assert s.n_users == 30 and s.n_items == 70 and s.rp.shape == (70,)
    targets = cand[cand.label == 1].set_index("user").item
    assert targets.equals(last.rename("item").loc[targets.index])           # the latest interaction
    rated = set(map(tuple, r[["user", "item"]].to_numpy()))
    negs = cand[cand.label == 0]
    assert not any((u, i) in rated for u, i in negs[["user", "item"]].to_numpy())
    assert (negs.groupby("user").item.nunique() == 20).all()               # without replacement
    pos = s.train[s.train.label == 1]
    assert len(pos) == len(r) - 30 and (s.train.label == 0).sum() == 2 * len(pos)
    assert not any((u, i) in rated for u, i in s.train[s.train.label == 0][["user", "item"]].to_numpy())
    assert not set(map(tuple, pos[["user", "item"]].to_numpy())) & set(map(tuple, targets.reset_index().to_numpy()))
    # eq. (6) and the user's mean history popularity
    assert s.rp.sum() == pytest.approx(100.0)
    assert s.rp[pos.item.iloc[0]] == pytest.approx((pos.item == pos.item.iloc[0]).sum() / len(pos) * 100)
    u0 = pos[pos.user == 0].item
    assert s.user_pop[0] == pytest.approx(s.rp[u0].mean())
    # the target is not always first
    assert cand.groupby("user").label.apply(lambda x: int(np.argmax(x.to_numpy()))).nunique() > 1


def test_split_reproducible_by_rng():
    _, a = _split(rng=3)
    _, b = _split(rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(a.candidates, b.candidates)
    pd.testing.assert_frame_equal(a.train, b.train)


def test_split_bad_inputs():
    r = _ratings()
    users = pd.DataFrame({"gender": np.zeros(30, dtype=int)})
    with pytest.raises(ValueError, match="n_neg_test"):
        fairrec_split(r, users, np.ones((70, 2)), n_neg_test=63)
    with pytest.raises(ValueError, match=">= 2 interactions"):
        leave_last_out(r.groupby("user").head(1))
    with pytest.raises(ValueError, match=">= 2 interactions"):
        fairrec_split(r[(r.user != 4) | ~r.user.duplicated()], users, np.ones((70, 2)))     # user 4: one rating
    with pytest.raises(ValueError, match=r"users \[4\] have no interaction"):
        fairrec_split(r[r.user != 4], users, np.ones((70, 2)))
    with pytest.raises(ValueError, match="must not be empty"):
        item_popularity([], 3)


@pytest.mark.data
def test_movielens_100k_split():
    from ocef.environments.fairrec_split import movielens_fairrec_split
    from ocef.datasets.movielens import GENRE_FLAGS, genre_flags, load_movielens, user_attribute_codes

    path = require_data("ml-100k")
    ml = load_movielens(path)
    flags = genre_flags(ml)
    assert flags.shape == (1682, 19) and len(GENRE_FLAGS) == 19
    assert flags[0].tolist() == [0, 0, 0, 1, 1, 1] + [0] * 13        # Toy Story: Animation, Children's, Comedy
    assert (flags.sum(axis=1) >= 1).all()
    codes = user_attribute_codes(ml.users)
    assert codes.gender.isin([0, 1]).all() and codes.age.between(0, 6).all()
    s = movielens_fairrec_split(path, rng=0)
    assert s.n_users == 943 and s.n_candidates == 50 and len(s.candidates) == 943 * 50
    cells = s.users.groupby(["gender", "age", "occupation"]).size()
    assert len(cells) == 137 and cells.median() == 3                  # specs/seeds-002-004.md, risks


def test_ml1m_genre_flags_and_user_codes(tmp_path):
    """ML-1M's ``|``-separated genre names become the 19 flags; none of the 18 -> ``unknown``."""
    from ocef.datasets.movielens import genre_flags, load_movielens, user_attribute_codes
    from tests.ocef.datasets.test_movielens import write_1m

    folder = write_1m(tmp_path / "ml-1m")
    with open(folder / "movies.dat", "a", encoding="latin-1") as f:
        f.write("400::Odd::Documentary|Sci-Fi\n500::None::Nothing\n")
    ml = load_movielens(folder)
    assert ml.items["item_id"].tolist() == [100, 200, 300, 400, 500]
    flags = genre_flags(ml)
    assert flags.shape == (5, 19)
    assert [np.flatnonzero(r).tolist() for r in flags] == [[3, 4, 5], [5, 14], [1, 6, 16], [7, 15], [0]]
    codes = user_attribute_codes(ml.users)
    assert codes.to_numpy().tolist() == [[0, 0, 10], [1, 6, 16], [1, 2, 15]]
    with pytest.raises(ValueError, match="bracket codes"):
        user_attribute_codes(ml.users.assign(age=[1, 57, 25]))
    with pytest.raises(ValueError, match="bracket codes"):
        user_attribute_codes(ml.users.assign(age=[1, 20, 25]))
