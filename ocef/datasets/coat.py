"""Coat (Schnabel et al., ICML 2016): ratings of coats, self-selected and uniformly random.

290 users rated 24 coats they chose themselves (``train.ascii``, missing not at random) and 16
coats drawn uniformly at random (``test.ascii``); ratings 1-5, 0 = not rated. Users and items
have one-hot categorical features (``user_item_features/``). The random ratings are the random
traffic of the REO audit and the randomized pairs of the pairwise audit.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.datasets.base import find_dataset
from ocef.errors import DataError, DatasetNotFoundError, ParameterError

__all__ = ["Coat", "COAT_URL", "COAT_USER_ATTRIBUTES", "read_ascii_matrix", "load_coat", "coat_pairs"]

COAT_URL = "https://www.cs.cornell.edu/~schnabts/mnar/"
#: The user attributes of ``user_features_map.txt``.
COAT_USER_ATTRIBUTES = ("gender", "age", "location", "fashioninterest")
_FILES = ("train.ascii", "test.ascii", "user_item_features/item_features.ascii")
_FEATURES = "user_item_features"


def read_ascii_matrix(path: str | Path) -> np.ndarray:
    """An integer matrix of Coat's whitespace-separated ``.ascii`` format.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("m.ascii").write_text("0 5 3\\n1 0 0\\n")
    >>> read_ascii_matrix("m.ascii").tolist()
    [[0, 5, 3], [1, 0, 0]]
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetNotFoundError(f"Coat file not found: {path}")
    return np.loadtxt(path, dtype=np.int64, ndmin=2)


def load_coat(data_dir: str | Path | None = None, *, threshold: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Coat as (default, random) logs in the REO log schema (:doc:`/formats/reo-logs`): rated rows of
    ``train.ascii`` (self-selected items) are the default traffic, ``test.ascii`` (16 uniformly
    random items per user) the random traffic.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root or Coat's folder.
    threshold : int
        Y = rating >= threshold.

    Returns
    -------
    default, random : pandas.DataFrame
        ``request`` (= user), ``user``, ``item``, ``rating``, ``Y``, ``S`` = item gender, ``R`` (1
        if the user also self-selected the item), ``source``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_coat
    >>> [len(log) for log in load_coat(make_toy_coat())]
    [4, 4]
    """
    root = find_dataset("Coat", "coat", _FILES, COAT_URL, data_dir)
    train = read_ascii_matrix(root / "train.ascii")
    test = read_ascii_matrix(root / "test.ascii")
    feats = read_ascii_matrix(root / _FEATURES / "item_features.ascii")
    if train.shape != test.shape or feats.shape[0] != train.shape[1]:
        raise DataError(f"Coat files disagree: train {train.shape}, test {test.shape}, "
                         f"item features {feats.shape}")
    gender = np.where(feats[:, 0] == 1, "men", "women")  # columns 0/1 = gender:men/gender:women
    out = []
    for matrix, src in ((train, "default"), (test, "random")):
        user, item = np.nonzero(matrix)
        rating = matrix[user, item]
        out.append(pd.DataFrame({
            "request": user, "user": user, "item": item, "rating": rating,
            "Y": (rating >= threshold).astype(np.int8), "S": gender[item],
            "R": (train[user, item] > 0).astype(np.int8), "source": src,
        }))
    return out[0], out[1]


def coat_pairs(data_dir: str | Path | None = None, *, mode: str = "all", rng=None) -> pd.DataFrame:
    """Coat's random ratings (``test.ascii``) as randomized pairs (:doc:`/formats/pairs`).

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root or Coat's folder.
    mode : {"all", "one-per-query"}
        Every (liked, not liked) pair of a user, or one drawn per user.
    rng : None, int, SeedSequence or Generator
        Randomness of ``"one-per-query"``.

    Returns
    -------
    pandas.DataFrame
        ``query`` = user, ``j`` (liked: rating >= 4), ``jp``, ``s_j``, ``s_jp`` (item gender),
        ``z`` = rating of the liked item.

    Examples
    --------
    >>> from ocef.datasets import make_toy_coat
    >>> len(coat_pairs(make_toy_coat()))
    2
    """
    from ocef.environments.pairs import pairs_from_ratings

    _, random = load_coat(data_dir)
    return pairs_from_ratings(random, label="Y", group="S", engagement="rating", query="user", item="item",
                              mode=mode, rng=rng)


class Coat:
    """The Coat data set (Schnabel et al., ICML 2016), read from a folder.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root holding ``coat/`` or Coat's own folder (default:
        :func:`ocef.environments.paths.data_root`).

    Attributes
    ----------
    path : Path
        The folder read.
    train, test : numpy.ndarray
        Users x items ratings (1-5, 0 = not rated): self-selected and uniformly random items.
    item_gender : numpy.ndarray
        ``"men"`` or ``"women"`` per item.

    Raises
    ------
    DatasetNotFoundError
        When the files are absent (the message says where to download them).

    Examples
    --------
    >>> from ocef.datasets import make_toy_coat
    >>> Coat(make_toy_coat()).train.shape          # 2 users x 4 coats (real: 290 x 300)
    (2, 4)
    """

    name = "coat"
    url = COAT_URL

    def __init__(self, data_dir: str | Path | None = None):
        self.path = find_dataset("Coat", "coat", _FILES, COAT_URL, data_dir)
        self.train = read_ascii_matrix(self.path / "train.ascii")
        self.test = read_ascii_matrix(self.path / "test.ascii")
        feats = read_ascii_matrix(self.path / _FEATURES / "item_features.ascii")
        self.item_gender = np.where(feats[:, 0] == 1, "men", "women").astype(object)
        self._data_dir = data_dir

    def __repr__(self) -> str:
        return f"Coat({str(self.path)!r})"

    @property
    def n_users(self) -> int:
        """Number of users (290)."""
        return int(self.train.shape[0])

    @property
    def n_items(self) -> int:
        """Number of items (300)."""
        return int(self.train.shape[1])

    def user_attribute(self, attribute: str) -> np.ndarray:
        """The value of one user attribute for every user, decoded from the one-hot features.

        Parameters
        ----------
        attribute : {"gender", "age", "location", "fashioninterest"}
            A block of ``user_features_map.txt``.

        Returns
        -------
        numpy.ndarray
            One label per user (object array of strings such as ``"women"``, ``"20-30"``).

        Examples
        --------
        >>> Coat().user_attribute("gender")[:3]              # doctest: +SKIP
        array(['women', 'men', 'women'], dtype=object)
        """
        map_path = self.path / _FEATURES / "user_features_map.txt"
        if not map_path.is_file():
            raise DatasetNotFoundError(f"Coat file not found: {map_path}")
        columns = [line.strip() for line in map_path.read_text().splitlines() if line.strip()]
        feats = read_ascii_matrix(self.path / _FEATURES / "user_features.ascii")
        if feats.shape[1] != len(columns):
            raise DataError(f"Coat user features: {feats.shape[1]} columns but {len(columns)} names in {map_path}")
        cols = [j for j, c in enumerate(columns) if c.split(":", 1)[0] == attribute]
        if not cols:
            known = sorted({c.split(":", 1)[0] for c in columns})
            raise ParameterError(f"attribute must be one of {', '.join(known)} for Coat, got {attribute!r}")
        block = feats[:, cols]
        if not (block.sum(axis=1) == 1).all():
            raise DataError(f"Coat user features: attribute {attribute!r} is not one-hot for every user")
        values = np.array([columns[j].split(":", 1)[1] for j in cols], dtype=object)
        return values[block.argmax(axis=1)]

    @property
    def users(self) -> pd.DataFrame:
        """One row per user: ``user`` (index) and the decoded attributes of
        :data:`COAT_USER_ATTRIBUTES`."""
        return pd.DataFrame({"user": np.arange(self.n_users),
                             **{a: self.user_attribute(a) for a in COAT_USER_ATTRIBUTES}})

    @property
    def items(self) -> pd.DataFrame:
        """One row per item: ``item`` (index) and ``gender`` (``"men"``/``"women"``)."""
        return pd.DataFrame({"item": np.arange(self.n_items), "gender": self.item_gender})

    def ratings(self, which: str = "train") -> pd.DataFrame:
        """The ratings of one file as a long table ``user, item, rating`` (unrated left out), by user then item.

        Parameters
        ----------
        which : {"train", "test"}
            Self-selected (``train.ascii``) or uniformly random (``test.ascii``) items.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        ocef.errors.ParameterError
            ``which`` other than "train" and "test".

        Examples
        --------
        >>> from ocef.datasets import make_toy_coat
        >>> Coat(make_toy_coat()).ratings("test")["rating"].tolist()
        [5.0, 2.0, 4.0, 1.0]
        """
        if which not in ("train", "test"):
            raise ParameterError(f"which must be 'train' or 'test', got {which!r}")
        matrix = self.train if which == "train" else self.test
        user, item = np.nonzero(matrix)
        return pd.DataFrame({"user": user, "item": item, "rating": matrix[user, item].astype(float)})

    def logs(self, *, threshold: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The (default, random) REO logs (:func:`load_coat`).

        Parameters
        ----------
        threshold : int
            ``Y = rating >= threshold``.

        Returns
        -------
        default, random : pandas.DataFrame
            ``request, user, item, rating, Y, S`` (item gender), ``R``, ``source``.

        Examples
        --------
        >>> from ocef.datasets import make_toy_coat
        >>> Coat(make_toy_coat()).logs()[1]["Y"].tolist()
        [1, 0, 1, 0]
        """
        return load_coat(self.path, threshold=threshold)

    def pairs(self, *, mode: str = "all", rng=None) -> pd.DataFrame:
        """The randomized pairs of the random ratings (:func:`coat_pairs`).

        Parameters
        ----------
        mode : {"all", "one-per-query"}
            Every pair of a user, or one drawn per user.
        rng : None, int, SeedSequence or Generator
            Randomness of ``"one-per-query"``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from ocef.datasets import make_toy_coat
        >>> Coat(make_toy_coat()).pairs()[["j", "jp", "z"]].values.tolist()
        [[1, 3, 5], [0, 2, 4]]
        """
        return coat_pairs(self.path, mode=mode, rng=rng)

    def funk_svd(self, *, factors: int = 8, reg: float = 0.02, rng=0):
        """A Funk SVD fitted on the self-selected ratings, the "production" recommender of the
        bias-metrics audit on Coat.

        Parameters
        ----------
        factors : int
            Latent factors.
        reg : float
            L2 regularization.
        rng : None, int, SeedSequence or Generator
            Randomness of the initialization and of the epochs' order.

        Returns
        -------
        ocef.environments.recommender.FunkSVDModel
            ``.scores()``: predicted ratings on the 1-5 scale.

        Examples
        --------
        >>> from ocef.datasets import make_toy_coat
        >>> Coat(make_toy_coat()).funk_svd(factors=2, rng=0).scores().shape
        (2, 4)
        """
        from ocef.environments.recommender import fit_funk_svd

        users, items = np.nonzero(self.train)
        return fit_funk_svd(users, items, self.train[users, items].astype(float), self.n_users, self.n_items,
                            factors=factors, reg=reg, rating_scale=(1.0, 5.0), rng=rng)
