"""MovieLens loaders (ML-1M and ML-100K formats) and demographic partitions.

Both formats are read into one :class:`MovieLensData` whose user attributes are coded as
in ML-1M (Do et al. 2022, App. B.1: "We use demographic attributes to group users by their
gender (2 groups), age (7 groups), occupation (21 groups) ... We use movie genres to
create item categories, keeping only the first genre if several are reported (18
categories)").

The file formats, the coding of ML-100K ages and occupations into ML-1M codes
(:data:`OCCUPATION_100K_TO_1M`, with its judgment calls) and the item categories (:data:`GENRES`)
are documented in docs/guide/reproduction.md ("MovieLens formats").
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.environments.paths import dataset_dir
from ocef.errors import DataError, DatasetNotFoundError, OcefError, ParameterError

GENRES: tuple[str, ...] = (
    "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
    "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi",
    "Thriller", "War", "Western",
)
#: Category names by code: the 18 genres, then ``"unknown"`` (code 18).
CATEGORY_NAMES: tuple[str, ...] = GENRES + ("unknown",)
#: The 19 genre flags of ML-100K's ``u.item``, in file order (``unknown`` first, then :data:`GENRES`).
GENRE_FLAGS: tuple[str, ...] = ("unknown",) + GENRES
_U_ITEM_COLUMNS = ["item_id", "title", "release", "video", "url", *GENRE_FLAGS]

#: ML-1M age codes and their bracket names.
AGE_BRACKETS: dict[int, str] = {
    1: "Under 18", 18: "18-24", 25: "25-34", 35: "35-44", 45: "45-49", 50: "50-55", 56: "56+",
}
#: ML-1M occupation codes and names.
OCCUPATIONS: dict[int, str] = {
    0: "other", 1: "academic/educator", 2: "artist", 3: "clerical/admin",
    4: "college/grad student", 5: "customer service", 6: "doctor/health care",
    7: "executive/managerial", 8: "farmer", 9: "homemaker", 10: "K-12 student", 11: "lawyer",
    12: "programmer", 13: "retired", 14: "sales/marketing", 15: "scientist",
    16: "self-employed", 17: "technician/engineer", 18: "tradesman/craftsman",
    19: "unemployed", 20: "writer",
}
#: ML-100K occupation name -> ML-1M code (``student`` under 18 is recoded to 10).
OCCUPATION_100K_TO_1M: dict[str, int] = {
    "administrator": 3, "artist": 2, "doctor": 6, "educator": 1, "engineer": 17,
    "entertainment": 2, "executive": 7, "healthcare": 6, "homemaker": 9, "lawyer": 11,
    "librarian": 1, "marketing": 14, "none": 19, "other": 0, "programmer": 12, "retired": 13,
    "salesman": 14, "scientist": 15, "student": 4, "technician": 17, "writer": 20,
}
#: Partition name -> user attribute columns whose intersection defines the groups.
PARTITIONS: dict[str, tuple[str, ...]] = {
    "gender": ("gender",),
    "age": ("age",),
    "occupation": ("occupation",),
    "gender-age": ("gender", "age"),
    "gender-occupation": ("gender", "occupation"),
    "age-occupation": ("age", "occupation"),
}

FORMAT_FILES: dict[str, tuple[str, str, str]] = {
    "ml-1m": ("ratings.dat", "users.dat", "movies.dat"),
    "ml-100k": ("u.data", "u.user", "u.item"),
}
_AGE_EDGES = np.array([18, 25, 35, 45, 50, 56])
_AGE_CODES = np.array([1, 18, 25, 35, 45, 50, 56])


@dataclass(frozen=True)
class MovieLensData:
    """A MovieLens data set with contiguous 0-based user and item indices (:func:`load_movielens`),
    users coded as in ML-1M (module docstring).

    Attributes
    ----------
    ratings : pandas.DataFrame
        ``user, item, rating, timestamp`` (indices into ``users``/``items``; 1-5; Unix seconds).
    users : pandas.DataFrame
        ``user_id``, ``gender`` (``"F"``/``"M"``), ``age`` (bracket code of
        :data:`AGE_BRACKETS`), ``occupation`` (code 0-20 of :data:`OCCUPATIONS`).
    items : pandas.DataFrame
        ``item_id``, ``title``, ``category`` (first genre, or ``"unknown"``), ``category_code``
        (index in :data:`CATEGORY_NAMES`).
    source : {"ml-1m", "ml-100k"}
        The format read.
    path : Path
        The folder read.

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> data = load_movielens(make_toy_ml100k())    # 2 users, 2 movies (real: 943 x 1682)
    >>> data.source, data.users[["gender", "age", "occupation"]].values.tolist()
    ('ml-100k', [['M', 18, 17], ['F', 50, 0]])
    """

    ratings: pd.DataFrame
    users: pd.DataFrame
    items: pd.DataFrame
    source: str
    path: Path

    @property
    def n_users(self) -> int:
        return len(self.users)

    @property
    def n_items(self) -> int:
        return len(self.items)


def detect_format(path: Path | str) -> str:
    """``"ml-1m"`` if ``path`` holds ``ratings.dat`` (preferred), ``"ml-100k"`` if it holds ``u.data``.

    Parameters
    ----------
    path : str or Path
        The data set's own folder.

    Returns
    -------
    {"ml-1m", "ml-100k"}

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        (a ``FileNotFoundError``) naming the files looked for and the folder searched.

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> detect_format(make_toy_ml100k())
    'ml-100k'
    """
    path = Path(path)
    for fmt, files in FORMAT_FILES.items():
        if (path / files[0]).is_file():
            return fmt
    raise DatasetNotFoundError(
        f"no MovieLens ratings file found in {path.resolve()}: looked for "
        f"'ratings.dat' (ML-1M format) and 'u.data' (ML-100K format)")


def _require(path: Path, name: str) -> Path:
    f = path / name
    if not f.is_file():
        raise DatasetNotFoundError(f"MovieLens file {name!r} not found in {path.resolve()}")
    return f


def bucket_age(age) -> np.ndarray:
    """Map ages in years to ML-1M's 7 age-bracket codes (1, 18, 25, 35, 45, 50, 56), each the
    bracket's lowest age (1: under 18), so ML-100K users group as ML-1M's do (Do et al. 2022, App. B.1).

    Parameters
    ----------
    age : array_like of int or float
        Ages in years (finite, >= 0).

    Returns
    -------
    numpy.ndarray of int

    Raises
    ------
    ocef.errors.ParameterError
        A negative or non-finite age.

    Examples
    --------
    >>> bucket_age([7, 18, 24, 25, 49, 50, 73]).tolist()
    [1, 18, 18, 25, 45, 50, 56]
    """
    a = np.asarray(age)
    if a.size and (not np.all(np.isfinite(a.astype(float))) or a.min() < 0):
        raise ParameterError(f"age must be non-negative years, got {a[a < 0][:3].tolist()}")
    return _AGE_CODES[np.searchsorted(_AGE_EDGES, a, side="right")]


def occupation_code_100k(names, ages) -> np.ndarray:
    """ML-1M occupation codes of 100K occupation names (:data:`OCCUPATION_100K_TO_1M`, judgment calls
    in the module docstring; case-insensitive); a ``student`` under 18 becomes 10 (K-12).

    Parameters
    ----------
    names : array_like of str
        ML-100K occupation names (``u.user``'s fourth column).
    ages : array_like of int
        The users' ages in years.

    Returns
    -------
    numpy.ndarray of int

    Raises
    ------
    ocef.errors.ParameterError
        A name that is not one of ML-100K's 21 occupations, naming it.

    Examples
    --------
    >>> occupation_code_100k(["student", "Student", "librarian", "none"], [16, 20, 40, 30]).tolist()
    [10, 4, 1, 19]
    """
    s = pd.Series(np.asarray(names, dtype=object)).str.strip().str.lower()
    unknown = sorted(set(s) - set(OCCUPATION_100K_TO_1M))
    if unknown:
        raise ParameterError(f"unknown ML-100K occupation(s) {unknown}; known: {sorted(OCCUPATION_100K_TO_1M)}")
    codes = s.map(OCCUPATION_100K_TO_1M).to_numpy(dtype=int, copy=True)
    codes[(codes == 4) & (np.asarray(ages) < 18)] = 10
    return codes


def _first_category(flags: np.ndarray) -> np.ndarray:
    """Index of the first set flag among the 18 genres, 18 (``unknown``) if none."""
    flags = np.asarray(flags, dtype=bool)
    return np.where(flags.any(axis=1), flags.argmax(axis=1), len(GENRES))


def _read(path: Path, sep: str, names: list[str]) -> pd.DataFrame:
    engine = "python" if len(sep) > 1 else "c"
    return pd.read_csv(path, sep=sep, header=None, names=names, engine=engine,
                       encoding="latin-1", dtype=str, keep_default_na=False)


def _load_1m(path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    r_file, u_file, m_file = (_require(path, f) for f in FORMAT_FILES["ml-1m"])
    ratings = _read(r_file, "::", ["user_id", "item_id", "rating", "timestamp"])
    users = _read(u_file, "::", ["user_id", "gender", "age", "occupation", "zip"])
    movies = _read(m_file, "::", ["item_id", "title", "genres"])
    users = users.assign(age=users["age"].astype(int), occupation=users["occupation"].astype(int))
    bad_age = sorted(set(users["age"]) - set(AGE_BRACKETS))
    bad_occ = sorted(set(users["occupation"]) - set(OCCUPATIONS))
    if bad_age or bad_occ:
        raise ParameterError(f"{u_file}: age codes {bad_age} / occupation codes {bad_occ} are not ML-1M codes")
    genre_lists = movies["genres"].str.split("|")
    # "first genre" = first listed in the file among the 18 genres.
    pos = {g: i for i, g in enumerate(GENRES)}
    first = np.array([next((pos[g] for g in gl if g in pos), len(GENRES)) for gl in genre_lists], dtype=int)
    movies = movies.assign(category_code=first)
    return ratings, users, movies


def _load_100k(path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    r_file, u_file, i_file = (_require(path, f) for f in FORMAT_FILES["ml-100k"])
    ratings = _read(r_file, "\t", ["user_id", "item_id", "rating", "timestamp"])
    users = _read(u_file, "|", ["user_id", "age_years", "gender", "occupation_name", "zip"])
    items = _read(i_file, "|", _U_ITEM_COLUMNS)
    ages = users["age_years"].astype(int).to_numpy()
    users = users.assign(age=bucket_age(ages),
                         occupation=occupation_code_100k(users["occupation_name"], ages))
    flags = items[list(GENRES)].astype(int).to_numpy()
    items = items.assign(category_code=_first_category(flags))
    return ratings, users, items


def _index(raw: pd.Series, known: pd.Series, what: str, where: Path) -> np.ndarray:
    idx = pd.Index(known).get_indexer(raw)
    if (idx < 0).any():
        missing = pd.unique(raw[idx < 0])[:5].tolist()
        raise ParameterError(f"ratings in {where} refer to {what} ids absent from the {what} file: {missing}")
    return idx


def load_movielens(data_dir: Path | str | None = None) -> MovieLensData:
    """Load MovieLens from ``data_dir``, auto-detecting the 1M or 100K format.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data set's folder, or a data root holding ``ml-1m/`` (preferred) or ``ml-100k/``;
        None: the default root (:mod:`ocef.environments.paths`). Missing files raise
        FileNotFoundError naming the file and the folder.

    Returns
    -------
    MovieLensData

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> load_movielens(make_toy_ml100k()).n_users
    2
    """
    path = resolve_movielens_dir(data_dir)
    fmt = detect_format(path)
    try:
        return _load(path, fmt)
    except OcefError:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as exc:   # issue 28: a broken folder ended in a traceback
        raise DataError(f"the MovieLens folder {path} ({fmt}) is broken: {type(exc).__name__}: {str(exc)[:120]}; "
                        f"download the data set again (https://grouplens.org/datasets/movielens/)") from None


def _load(path: Path, fmt: str) -> MovieLensData:
    ratings, users, items = (_load_1m if fmt == "ml-1m" else _load_100k)(path)
    for frame, what in ((ratings, "ratings"), (users, "users"), (items, "items")):
        if frame.empty:
            raise DataError(f"the MovieLens folder {path} ({fmt}) is broken: its {what} file has no row; "
                            f"download the data set again (https://grouplens.org/datasets/movielens/)")
    users = users.assign(user_id=users["user_id"].astype(int)).sort_values("user_id", kind="stable")
    items = items.assign(item_id=items["item_id"].astype(int)).sort_values("item_id", kind="stable")
    for df, what in ((users, "user"), (items, "item")):
        if df[f"{what}_id"].duplicated().any():
            raise ParameterError(f"duplicate {what} ids in {path}")
    rated = pd.DataFrame({
        "user": _index(ratings["user_id"].astype(int), users["user_id"], "user", path),
        "item": _index(ratings["item_id"].astype(int), items["item_id"], "item", path),
        "rating": ratings["rating"].astype(float).to_numpy(),
        "timestamp": ratings["timestamp"].astype(np.int64).to_numpy(),
    })
    users_out = pd.DataFrame({
        "user_id": users["user_id"].to_numpy(),
        "gender": users["gender"].str.strip().str.upper().to_numpy(),
        "age": users["age"].to_numpy(dtype=int),
        "occupation": users["occupation"].to_numpy(dtype=int),
    })
    bad_gender = sorted(set(users_out["gender"]) - {"F", "M"})
    if bad_gender:
        raise ParameterError(f"gender must be 'F' or 'M' in {path}, got {bad_gender}")
    codes = items["category_code"].to_numpy(dtype=int)
    items_out = pd.DataFrame({
        "item_id": items["item_id"].to_numpy(),
        "title": items["title"].to_numpy(),
        "category": np.asarray(CATEGORY_NAMES, dtype=object)[codes],
        "category_code": codes,
    })
    return MovieLensData(ratings=rated, users=users_out, items=items_out, source=fmt, path=path)


def resolve_movielens_dir(data_dir: Path | str | None = None) -> Path:
    """The folder to read: ``data_dir`` itself if it holds MovieLens files, else its ``ml-1m/`` then
    ``ml-100k/`` subfolder (:func:`ocef.environments.paths.dataset_dir`).

    Parameters
    ----------
    data_dir : str or Path, optional
        None: the default root.

    Returns
    -------
    Path

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        (a ``FileNotFoundError``) listing every folder searched.

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> folder = make_toy_ml100k()
    >>> resolve_movielens_dir(folder.parent) == folder          # a data root holding ml-100k/
    True
    """
    searched = []
    if data_dir is not None:
        own = Path(data_dir)
        searched.append(own)
        if any((own / files[0]).is_file() for files in FORMAT_FILES.values()):
            return own
    for name in ("ml-1m", "ml-100k"):
        cand = dataset_dir(name, data_dir)
        searched.append(cand)
        if cand.is_dir() and (cand / FORMAT_FILES[name][0]).is_file():
            return cand
    where = ", ".join(str(p.resolve()) for p in dict.fromkeys(searched))
    raise DatasetNotFoundError(
        "MovieLens ratings file ('ratings.dat' for ML-1M or 'u.data' for ML-100K) not found; "
        f"searched: {where}. Pass --data-dir or set $OCEF_DATA_DIR.")


def _attribute_name(column: str, value) -> str:
    if column == "age":
        return AGE_BRACKETS[int(value)]
    if column == "occupation":
        return OCCUPATIONS[int(value)]
    return str(value)


def partition(users: pd.DataFrame, name: str) -> tuple[np.ndarray, list[str]]:
    """Group labels of ``users`` for partition ``name``: intersections of the attributes (App. B.1),
    numbering only the non-empty groups, sorted by attribute codes.

    Parameters
    ----------
    users : pandas.DataFrame
        With the columns the partition needs (``gender``, ``age``, ``occupation``).
    name : str
        A key of :data:`PARTITIONS`.

    Returns
    -------
    labels : numpy.ndarray
    names : list of str
        E.g. ``"F"``, ``"25-34"``, ``"M & 25-34"``.

    Examples
    --------
    >>> partition(pd.DataFrame({"gender": ["M", "F", "M"], "age": [25, 25, 18]}), "gender-age")
    (array([2, 0, 1]), ['F & 25-34', 'M & 18-24', 'M & 25-34'])
    """
    if name not in PARTITIONS:
        raise ParameterError(f"partition must be one of {list(PARTITIONS)}, got {name!r}")
    cols = list(PARTITIONS[name])
    missing = [c for c in cols if c not in users.columns]
    if missing:
        raise ParameterError(f"users lacks column(s) {missing} needed by partition {name!r}")
    keys = users[cols].drop_duplicates().sort_values(cols).reset_index(drop=True)
    labels = pd.MultiIndex.from_frame(keys).get_indexer(pd.MultiIndex.from_frame(users[cols]))
    names = [" & ".join(_attribute_name(c, v) for c, v in zip(cols, row))
             for row in keys.itertuples(index=False)]
    return labels, names


# --- Multi-attribute testing (Guo et al. 2023, FairRec): all genre flags and integer user codes. ---

#: Gender codes used by the multi-attribute search (Guo et al. 2023, Sec. 3.3: "gender=male/0" is only an
#: example; any integer coding works): F -> 0, M -> 1.
GENDER_CODES: dict[str, int] = {"F": 0, "M": 1}


def genre_flags(data: MovieLensData) -> np.ndarray:
    """All genre flags of ``data.items``, columns :data:`GENRE_FLAGS`.

    ``data.items`` keeps only the first genre (Do et al. 2022); Guo et al.'s diversity metric (eq. 5)
    compares the full genre sets, re-read from ``u.item`` or ``movies.dat`` (``unknown`` set when
    none of the 18 genres is listed).

    Parameters
    ----------
    data : MovieLensData
        Its ``path`` is read again.

    Returns
    -------
    numpy.ndarray of int8, shape (n_items, 19)

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When the items file is gone.
    ocef.errors.ParameterError
        When an item of ``data.items`` has no row in the file.

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> flags = genre_flags(load_movielens(make_toy_ml100k()))
    >>> [GENRE_FLAGS[j] for j in flags[0].nonzero()[0]]
    ['Animation', "Children's", 'Comedy']
    """
    path = Path(data.path)
    if data.source == "ml-100k":
        items = _read(_require(path, "u.item"), "|", _U_ITEM_COLUMNS)
        ids = items["item_id"].astype(int).to_numpy()
        flags = items[list(GENRE_FLAGS)].astype(int).to_numpy()
    else:
        movies = _read(_require(path, "movies.dat"), "::", ["item_id", "title", "genres"])
        ids = movies["item_id"].astype(int).to_numpy()
        flags = (movies["genres"].str.get_dummies("|")
                 .reindex(columns=list(GENRE_FLAGS), fill_value=0).to_numpy(dtype=int))
        flags[flags[:, 1:].sum(axis=1) == 0, 0] = 1
    row = pd.Index(ids).get_indexer(data.items["item_id"].to_numpy())
    if (row < 0).any():
        raise ParameterError(f"items of {path} lack genre rows: {data.items['item_id'][row < 0].tolist()[:5]}")
    return flags[row].astype(np.int8)


def user_attribute_codes(users: pd.DataFrame) -> pd.DataFrame:
    """Integer codes of the sensitive attributes (Guo et al. 2023, Def. 2.2): ``gender`` (F 0, M 1),
    ``age`` (bracket index 0-6 of :data:`AGE_BRACKETS`), ``occupation`` (ML-1M code 0-20).

    The positions of FairRec's search space (Alg. 2's bounds ``B^{s_i}``): 2 x 7 x 21 = 294 cells,
    the paper's MovieLens group count (Sec. 4.1).

    Parameters
    ----------
    users : pandas.DataFrame
        ``MovieLensData.users``.

    Returns
    -------
    pandas.DataFrame
        Integer columns ``gender``, ``age``, ``occupation``, one row per user.

    Raises
    ------
    ocef.errors.ParameterError
        A gender other than F/M or an age that is not a bracket code.

    Examples
    --------
    >>> user_attribute_codes(pd.DataFrame({"gender": ["F", "M"], "age": [1, 25], "occupation": [10, 12]})).values.tolist()
    [[0, 0, 10], [1, 2, 12]]
    """
    gender = users["gender"].map(GENDER_CODES)
    if gender.isna().any():
        raise ParameterError(f"gender must be 'F' or 'M', got {sorted(set(users['gender']) - set(GENDER_CODES))}")
    ages = users["age"].to_numpy(dtype=int)
    if not np.isin(ages, _AGE_CODES).all():
        raise ParameterError("age must hold ML-1M bracket codes (1, 18, 25, 35, 45, 50, 56)")
    age = np.searchsorted(_AGE_CODES, ages)
    return pd.DataFrame({"gender": gender.to_numpy(dtype=int), "age": age.astype(int),
                         "occupation": users["occupation"].to_numpy(dtype=int)})


MOVIELENS_100K_URL = "https://grouplens.org/datasets/movielens/100k/"


class MovieLens100K:
    """MovieLens-100K (Harper and Konstan, 2015), read from a folder.

    100,000 ratings (1-5) of 1,682 movies by 943 users, with gender, age, occupation and 19 genre
    flags; ages and occupations coded as in ML-1M (module docstring), as Do et al. need.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root holding ``ml-100k/`` or the data set's own folder.

    Attributes
    ----------
    path : Path
        The folder read.
    data : MovieLensData
        The loaded tables (:func:`load_movielens`).

    Raises
    ------
    DatasetNotFoundError
        When ``u.data``, ``u.user`` or ``u.item`` is absent.

    Examples
    --------
    >>> from ocef.datasets import make_toy_ml100k
    >>> ml = MovieLens100K(make_toy_ml100k())       # 2 users, 2 movies (real: 943 x 1682)
    >>> ml.n_users, ml.n_items
    (2, 2)
    """

    name = "ml-100k"
    url = MOVIELENS_100K_URL

    def __init__(self, data_dir: Path | str | None = None):
        from ocef.datasets.base import find_dataset

        self.path = find_dataset("MovieLens-100K", "ml-100k", FORMAT_FILES["ml-100k"], MOVIELENS_100K_URL, data_dir)
        self.data = load_movielens(self.path)

    def __repr__(self) -> str:
        return f"MovieLens100K({str(self.path)!r})"

    @property
    def n_users(self) -> int:
        """Number of users (943)."""
        return self.data.n_users

    @property
    def n_items(self) -> int:
        """Number of movies (1,682)."""
        return self.data.n_items

    @property
    def ratings(self) -> pd.DataFrame:
        """One row per rating: ``user``, ``item`` (0-based indices of :attr:`users` and
        :attr:`items`), ``rating`` (1-5), ``timestamp``."""
        return self.data.ratings

    @property
    def users(self) -> pd.DataFrame:
        """One row per user: ``user_id`` (raw id), ``gender`` (``"F"``/``"M"``), ``age`` and
        ``occupation`` (ML-1M codes) and their labels ``age_bracket`` (``"25-34"``) and
        ``occupation_name``."""
        users = self.data.users
        return users.assign(age_bracket=users["age"].map(AGE_BRACKETS),
                            occupation_name=users["occupation"].map(OCCUPATIONS))

    @property
    def items(self) -> pd.DataFrame:
        """One row per movie: ``item_id``, ``title``, ``category`` (first genre) and
        ``category_code``."""
        return self.data.items

    @property
    def genres(self) -> pd.DataFrame:
        """The 19 genre flags (0/1) of every movie, columns :data:`GENRE_FLAGS`, rows as
        :attr:`items`."""
        return pd.DataFrame(genre_flags(self.data), columns=list(GENRE_FLAGS))

    def rating_matrix(self) -> np.ndarray:
        """Users x items ratings, NaN where not rated.

        Returns
        -------
        numpy.ndarray
            ``(n_users, n_items)`` floats.

        Examples
        --------
        >>> from ocef.datasets import make_toy_ml100k
        >>> ml = MovieLens100K(make_toy_ml100k())       # 2 users, 2 movies
        >>> ml.rating_matrix()
        array([[ 5., nan],
               [nan,  3.]])
        """
        out = np.full((self.n_users, self.n_items), np.nan)
        r = self.data.ratings
        out[r["user"].to_numpy(), r["item"].to_numpy()] = r["rating"].to_numpy()
        return out

    def partition(self, name: str) -> tuple[np.ndarray, list[str]]:
        """Group labels of the users for a demographic partition (:data:`PARTITIONS`).

        Parameters
        ----------
        name : str
            ``"gender"``, ``"age"``, ``"occupation"``, ``"gender-age"``, ...

        Returns
        -------
        labels : numpy.ndarray
        names : list of str

        Examples
        --------
        >>> from ocef.datasets import make_toy_ml100k
        >>> MovieLens100K(make_toy_ml100k()).partition("gender")
        (array([1, 0]), ['F', 'M'])
        """
        return partition(self.data.users, name)

    def attribute_codes(self) -> pd.DataFrame:
        """Integer codes of the sensitive attributes for FairRec (:func:`user_attribute_codes`).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from ocef.datasets import make_toy_ml100k
        >>> MovieLens100K(make_toy_ml100k()).attribute_codes().values.tolist()
        [[1, 1, 17], [0, 5, 0]]
        """
        return user_attribute_codes(self.data.users)
