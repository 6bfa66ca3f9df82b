"""ocef.datasets: the Coat and Open Bandit Dataset loaders (hand-made small files and, when
present, the real data) and the data-set classes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.datasets import Coat, DatasetNotFoundError, MovieLens100K, OpenBanditDataset, load_logs
from ocef.datasets.coat import coat_pairs, load_coat
from ocef.datasets.obd import load_obd, obd_pairs
from tests.conftest import require_data


def write_coat(root, train, test, gender_men):
    (root / "user_item_features").mkdir(parents=True)
    np.savetxt(root / "train.ascii", train, fmt="%d")
    np.savetxt(root / "test.ascii", test, fmt="%d")
    feats = np.zeros((train.shape[1], 33), dtype=int)
    feats[:, 0] = gender_men
    feats[:, 1] = 1 - np.asarray(gender_men)
    np.savetxt(root / "user_item_features" / "item_features.ascii", feats, fmt="%d")


def test_load_coat_small_files(tmp_path):
    root = tmp_path / "coat"
    train = np.array([[5, 0, 3], [0, 4, 0]])
    test = np.array([[0, 2, 4], [1, 4, 0]])
    write_coat(root, train, test, [1, 0, 1])
    default, random = load_coat(tmp_path)
    assert default[["user", "item", "rating", "Y", "S", "R"]].values.tolist() == [
        [0, 0, 5, 1, "men", 1], [0, 2, 3, 0, "men", 1], [1, 1, 4, 1, "women", 1]]
    assert random[["user", "item", "Y", "S", "R"]].values.tolist() == [
        [0, 1, 0, "women", 0], [0, 2, 1, "men", 1], [1, 0, 0, "men", 0], [1, 1, 1, "women", 1]]
    # the data set's own folder works as data_dir too
    assert len(load_coat(root)[0]) == 3
    with pytest.raises(FileNotFoundError, match="Coat not found in"):
        load_coat(tmp_path / "elsewhere")


def write_obd(root, policy, items, clicks, feature0):
    folder = root / policy / "all"
    folder.mkdir(parents=True)
    n = len(items)
    pd.DataFrame({"timestamp": ["2019-11-24 00:00:01+00:00"] * (n - 1) + ["2019-11-25 10:00:00+00:00"],
                  "item_id": items, "position": 1, "click": clicks, "propensity_score": 0.1}
                 ).to_csv(folder / "all.csv")
    pd.DataFrame({"item_id": np.arange(len(feature0)), "item_feature_0": feature0,
                  "item_feature_1": [f"h{policy}{i}" for i in range(len(feature0))]}).to_csv(folder / "item_context.csv")


def test_load_obd_small_files(tmp_path):
    root = tmp_path / "obd"
    f0 = [0.5, -1.0, 2.0, -0.2]   # median 0.15: items 0 and 2 are "high"
    write_obd(root, "bts", [0, 1, 2, 3], [1, 0, 0, 1], f0)
    write_obd(root, "random", [3, 2, 2], [0, 1, 0], f0)
    default, random = load_obd(tmp_path)
    assert default.S.tolist() == ["high", "low", "high", "low"]
    assert default.Y.tolist() == [1, 0, 0, 1]
    assert default.day.tolist() == ["2019-11-24"] * 3 + ["2019-11-25"]
    assert random.S.tolist() == ["low", "high", "high"] and (random.source == "random").all()
    write_obd(tmp_path / "bad" / "obd", "bts", [0], [0], f0)
    write_obd(tmp_path / "bad" / "obd", "random", [0], [0], [0.5, -1.0, 2.0, 9.0])
    with pytest.raises(ValueError, match="item_feature_0 differs"):
        load_obd(tmp_path / "bad")


def test_load_dataset_unknown():
    with pytest.raises(ValueError, match="dataset must be one of"):
        load_logs("movielens")


@pytest.mark.data
def test_real_coat():
    require_data("coat")
    default, random = load_coat()
    assert len(default) == 6960 and len(random) == 4640      # 290 users x 16 random items
    assert random.groupby("user").size().eq(16).all()
    assert set(default.S) == {"men", "women"}
    assert default.Y.sum() == 1905 and random.Y.sum() == 860


@pytest.mark.data
def test_real_obd():
    require_data("obd")
    default, random = load_obd()
    assert len(default) == len(random) == 10_000
    assert default.Y.sum() == 42 and random.Y.sum() == 38
    assert set(default.S) == set(random.S) == {"high", "low"}


@pytest.mark.data
def test_coat_pairs_counts():
    require_data("coat", "test.ascii")
    p = coat_pairs()
    assert len(p) == 8770 and p["query"].nunique() == 237
    kinds = p.groupby(["s_j", "s_jp"]).size()
    assert kinds[("men", "men")] == 2070 and kinds[("women", "women")] == 2063
    assert kinds[("men", "women")] == 2175 and kinds[("women", "men")] == 2462
    assert p.z.value_counts().to_dict() == {4: 6779, 5: 1991}


@pytest.mark.data
def test_obd_pairs_counts():
    require_data("obd", "random", "all", "all.csv")
    p = obd_pairs()
    assert len(p) == 1888 and p["query"].nunique() == 38
    assert (p.s_j != p.s_jp).mean() == pytest.approx(0.519, abs=5e-4)


@pytest.mark.parametrize("cls, folder, first_missing", [
    (Coat, "coat", "train.ascii"), (MovieLens100K, "ml-100k", "u.data"),
    (OpenBanditDataset, "obd", "bts/all/all.csv")])
def test_an_absent_data_set_says_where_it_looked_and_how_to_fix_it(tmp_path, cls, folder, first_missing):
    with pytest.raises(DatasetNotFoundError) as info:
        cls(tmp_path)
    msg = str(info.value)
    assert f"not found in {tmp_path / folder}: missing {first_missing}" in msg
    assert "data_dir=" in msg and "$OCEF_DATA_DIR" in msg and cls.url in msg
    assert isinstance(info.value, FileNotFoundError)


def test_the_classes_read_hand_made_files(tmp_path):
    root = tmp_path / "coat"
    write_coat(root, np.array([[5, 0, 3], [0, 4, 0]]), np.array([[0, 2, 4], [1, 4, 0]]), [1, 0, 1])
    coat = Coat(tmp_path)
    assert (coat.n_users, coat.n_items) == (2, 3)
    assert coat.item_gender.tolist() == ["men", "women", "men"]
    assert coat.ratings("test").values.tolist() == [[0, 1, 2.0], [0, 2, 4.0], [1, 0, 1.0], [1, 1, 4.0]]
    assert coat.logs()[0].equals(load_coat(tmp_path)[0])
    with pytest.raises(ValueError, match="which must be"):
        coat.ratings("valid")
    f0 = [0.5, -1.0, 2.0, -0.2]
    write_obd(tmp_path / "obd", "bts", [0, 1, 2, 3], [1, 0, 0, 1], f0)
    write_obd(tmp_path / "obd", "random", [3, 2, 2], [0, 1, 0], f0)
    obd = OpenBanditDataset(tmp_path)
    assert obd.items["tier"].tolist() == ["high", "low", "high", "low"]
    assert len(obd.log("random")) == 3
    with pytest.raises(ValueError, match="policy must be one of"):
        obd.log("egreedy")


@pytest.mark.data
def test_real_classes():
    require_data("coat")
    require_data("ml-100k")
    coat = Coat()
    users = coat.users
    assert len(users) == 290 and set(users["gender"]) == {"men", "women"}
    assert coat.user_attribute("gender").tolist() == users["gender"].tolist()
    with pytest.raises(ValueError, match="attribute must be one of"):
        coat.user_attribute("height")
    ml = MovieLens100K()
    assert (ml.n_users, ml.n_items, len(ml.ratings)) == (943, 1682, 100_000)
    assert ml.users.loc[0, ["gender", "age_bracket", "occupation_name"]].tolist() == ["M", "18-24",
                                                                                      "technician/engineer"]
    labels, names = ml.partition("gender")
    assert names == ["F", "M"] and np.bincount(labels).tolist() == [273, 670]
    assert ml.genres.shape == (1682, 19) and ml.genres.values.sum(axis=1).min() >= 1
    m = ml.rating_matrix()
    assert np.isfinite(m).sum() == 100_000 and np.nanmax(m) == 5
