"""MovieLens loaders (both formats, on small files written here) and partitions."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.datasets.movielens import (AGE_BRACKETS, GENRES, OCCUPATION_100K_TO_1M, OCCUPATIONS, PARTITIONS,
                                    bucket_age, detect_format, load_movielens, occupation_code_100k,
                                    partition, resolve_movielens_dir)
from tests.conftest import require_data


def write_1m(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ratings.dat").write_text(
        "10::200::5::978300760\n10::100::3::978302109\n20::100::4::978301968\n30::300::1::978300275\n",
        encoding="latin-1")
    (folder / "users.dat").write_text(
        "10::F::1::10::48067\n20::M::56::16::70072\n30::M::25::15::55117\n", encoding="latin-1")
    (folder / "movies.dat").write_text(
        "100::Toy Story (1995)::Animation|Children's|Comedy\n"
        "200::Amélie (2001)::Romance|Comedy\n"
        "300::Heat (1995)::Action|Crime|Thriller\n", encoding="latin-1")
    return folder


def _item_line(item_id, title, genres):
    flags = ["1" if g in genres else "0" for g in ("unknown",) + GENRES]
    return "|".join([str(item_id), title, "01-Jan-1995", "", "http://x"] + flags) + "\n"


def write_100k(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "u.data").write_text("2\t7\t4\t881250949\n1\t7\t5\t891717742\n1\t9\t2\t878887116\n"
                                   "3\t8\t1\t880606923\n", encoding="latin-1")
    (folder / "u.user").write_text("1|17|F|student|85711\n2|24|M|student|94043\n3|56|M|librarian|32067\n",
                                   encoding="latin-1")
    (folder / "u.item").write_text(
        _item_line(7, "Café (1995)", {"Comedy", "Action"})       # first flag in column order: Action
        + _item_line(8, "Mystery film", {"unknown"})                # no genre among the 18
        + _item_line(9, "Western", {"Western"}), encoding="latin-1")
    return folder


def test_1m_format(tmp_path):
    data = load_movielens(write_1m(tmp_path / "ml-1m"))
    assert data.source == "ml-1m"
    assert data.users["user_id"].tolist() == [10, 20, 30]
    assert data.users["gender"].tolist() == ["F", "M", "M"]
    assert data.users["age"].tolist() == [1, 56, 25]
    assert data.users["occupation"].tolist() == [10, 16, 15]
    assert data.items["item_id"].tolist() == [100, 200, 300]
    assert data.items["title"][1] == "Amélie (2001)"  # latin-1
    # first listed genre among the 18
    assert data.items["category"].tolist() == ["Animation", "Romance", "Action"]
    assert data.items["category_code"].tolist() == [2, 13, 0]
    r = data.ratings.sort_values(["user", "item"]).reset_index(drop=True)
    assert r[["user", "item"]].values.tolist() == [[0, 0], [0, 1], [1, 0], [2, 2]]
    assert r["rating"].tolist() == [3.0, 5.0, 4.0, 1.0]
    assert r["timestamp"].tolist() == [978302109, 978300760, 978301968, 978300275]


def test_100k_format(tmp_path):
    data = load_movielens(write_100k(tmp_path / "ml-100k"))
    assert data.source == "ml-100k"
    assert data.users["age"].tolist() == [1, 18, 56]
    # student under 18 -> K-12 student (10); student 24 -> college/grad (4); librarian -> educator (1)
    assert data.users["occupation"].tolist() == [10, 4, 1]
    assert data.items["category"].tolist() == ["Action", "unknown", "Western"]
    assert data.items["category_code"].tolist() == [0, 18, 17]
    assert data.items["title"][0] == "Café (1995)"
    assert sorted(data.ratings[["user", "item"]].values.tolist()) == [[0, 0], [0, 2], [1, 0], [2, 1]]


def test_auto_detection_from_root(tmp_path):
    write_100k(tmp_path / "ml-100k")
    assert load_movielens(tmp_path).source == "ml-100k"
    write_1m(tmp_path / "ml-1m")
    assert load_movielens(tmp_path).source == "ml-1m"  # ML-1M preferred when both are present
    assert detect_format(tmp_path / "ml-100k") == "ml-100k"


def test_missing_files_name_file_and_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="u.data") as err:
        resolve_movielens_dir(tmp_path / "nowhere")
    assert "nowhere" in str(err.value)
    folder = write_100k(tmp_path / "ml-100k")
    (folder / "u.item").unlink()
    with pytest.raises(FileNotFoundError, match=r"'u.item' not found in .*ml-100k"):
        load_movielens(folder)
    folder = write_1m(tmp_path / "x" / "ml-1m")
    (folder / "users.dat").unlink()
    with pytest.raises(FileNotFoundError, match=r"'users.dat' not found in .*ml-1m"):
        load_movielens(folder)


def test_ratings_with_unknown_ids_rejected(tmp_path):
    folder = write_100k(tmp_path / "ml-100k")
    with open(folder / "u.data", "a") as f:
        f.write("99\t7\t3\t1\n")
    with pytest.raises(ValueError, match="user ids absent"):
        load_movielens(folder)


def test_bucket_age_edges():
    ages = [0, 17, 18, 24, 25, 34, 35, 44, 45, 49, 50, 55, 56, 73]
    assert bucket_age(ages).tolist() == [1, 1, 18, 18, 25, 25, 35, 35, 45, 45, 50, 50, 56, 56]
    assert set(bucket_age(np.arange(100)).tolist()) == set(AGE_BRACKETS)
    with pytest.raises(ValueError, match="age"):
        bucket_age([-1])


def test_occupation_mapping_table():
    assert len(OCCUPATIONS) == 21
    assert set(OCCUPATION_100K_TO_1M.values()) <= set(OCCUPATIONS)
    assert occupation_code_100k(["Student", "student", "none", "other"], [12, 30, 40, 40]).tolist() == [10, 4, 19, 0]
    with pytest.raises(ValueError, match="unknown ML-100K occupation"):
        occupation_code_100k(["astronaut"], [30])


def test_partitions(tmp_path):
    data = load_movielens(write_1m(tmp_path / "ml-1m"))
    labels, names = partition(data.users, "gender")
    assert labels.tolist() == [0, 1, 1] and names == ["F", "M"]
    labels, names = partition(data.users, "age")
    assert labels.tolist() == [0, 2, 1] and names == ["Under 18", "25-34", "56+"]  # only non-empty
    labels, names = partition(data.users, "age-occupation")
    assert labels.tolist() == [0, 2, 1]
    assert names == ["Under 18 & K-12 student", "25-34 & scientist", "56+ & self-employed"]
    labels, names = partition(data.users, "gender-occupation")
    assert names[labels[1]] == "M & self-employed"
    assert set(PARTITIONS) == {"gender", "age", "occupation", "gender-age", "gender-occupation",
                               "age-occupation"}
    with pytest.raises(ValueError, match="partition must be one of"):
        partition(data.users, "zip")


@pytest.mark.data
def test_real_ml100k():
    data = load_movielens(require_data("ml-100k"))
    assert (data.n_users, data.n_items, len(data.ratings)) == (943, 1682, 100000)
    assert data.ratings["user"].max() == 942 and data.ratings["item"].max() == 1681
    assert set(data.ratings["rating"].unique()) == {1.0, 2.0, 3.0, 4.0, 5.0}
    assert (data.items["category"] == "unknown").sum() == 2
    sizes = {name: len(partition(data.users, name)[1]) for name in PARTITIONS}
    assert sizes["gender"] == 2 and sizes["age"] == 7 and sizes["gender-age"] == 14
    assert sizes["occupation"] == 17  # 21 ML-1M codes minus the 4 with no 100K counterpart
