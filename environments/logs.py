"""Loaders for recommendation logs with default and random traffic (seed 000, Sec. 3.2, 4.2).

Generic log schema
------------------
A log is a table (CSV, optionally compressed, or Parquet) with one row per logged
(request, item) impression:

============  ==========================================================================
column        meaning
============  ==========================================================================
label(s)      0/1 preference signal Y (several columns allowed: Y = 1 if any is 1)
group         item group S (any hashable values; at least 2 groups)
``source``    optional: ``"default"`` (D_rec, the default strategy) or ``"random"``
              (D_rand, uniformly random items); needed only when both traffics share a file
``day``       optional: day index or date, to estimate per day
others        kept as they are (``request``, ``user``, ``item``, ``R``, ...)
============  ==========================================================================

The default and random traffic come either as two files or as one file with a ``source``
column (:func:`split_by_source`). The project's simulator (``ocef.reo.simulate``) writes the same
schema with columns ``request, day, user, item, R, Y, S, source``.

Real data sets
--------------
* the seed's published TikTok data (:data:`PUBLISHED_SIGNALS`, :func:`load_published`):
  boolean columns ``like_video, share, follow, finish, download, long_view, young_adult``;
  Y = any of the six engagement signals, S = ``young_adult`` (creator aged 18-24).
* Coat (Schnabel et al. 2016, :func:`load_coat`): ``train.ascii`` = ratings of items the users
  chose themselves (default traffic), ``test.ascii`` = ratings of 16 uniformly random items per
  user (random traffic); Y = rating >= 4; S = item gender (``men``/``women``) from
  ``user_item_features/item_features.ascii``.
* Open Bandit Dataset sample (Saito et al. 2021, :func:`load_obd`): ``bts/`` (Bernoulli Thompson
  sampling) = default traffic, ``random/`` (uniform random policy) = random traffic; Y = click;
  S = price tier: ``item_feature_0`` is the only item feature stored identically in both
  folders (the categorical features are hashed differently per folder); it is a standardized
  number with 41 distinct values over the 80 items, and we split it at its median over the
  items: ``"high"`` (> median, 39 items) and ``"low"`` (<= median, 41 items).
"""
from __future__ import annotations


from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ocef.environments.log_schema import check_csv_header, label_columns, read_errors
from ocef.environments.paths import dataset_dir
from ocef.errors import ParameterError

__all__ = [
    "SOURCE_DEFAULT", "SOURCE_RANDOM", "PUBLISHED_SIGNALS", "PUBLISHED_GROUP",
    "read_log", "split_by_source", "load_logs", "load_published", "load_coat", "load_obd",
    "load_dataset", "DATASETS",
]

SOURCE_DEFAULT = "default"
SOURCE_RANDOM = "random"
PUBLISHED_SIGNALS = ("like_video", "share", "follow", "finish", "download", "long_view")
PUBLISHED_GROUP = "young_adult"


def read_log(path: str | Path, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read one log file: ``.parquet``/``.pq`` with pyarrow, anything else as CSV (pandas
    infers compression from the suffix, e.g. ``.csv.gz``). ``columns``: required columns,
    checked with a clear error naming the missing ones and the file."""
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"log {path} is a directory, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"log file not found: {path}")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            log = pd.read_parquet(path)
        else:
            check_csv_header(path)          # duplicate column names, unreadable or empty file
            log = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ParameterError(f"log {path} is empty") from None
    except read_errors() as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ParameterError(f"cannot read log {path}: {exc}") from None
    if columns is not None:
        missing = [c for c in columns if c not in log.columns]
        if missing:
            raise ParameterError(f"log {path} is missing column(s) {missing}; it has {list(log.columns)}")
    return log


def split_by_source(log: pd.DataFrame, *, source: str = "source") -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(default, random)`` rows of a log holding both traffics in a ``source`` column."""
    if source not in log.columns:
        raise ParameterError(f"log is missing the traffic-source column {source!r}; it has {list(log.columns)}")
    values = set(pd.unique(log[source]))
    unknown = values - {SOURCE_DEFAULT, SOURCE_RANDOM}
    if unknown:
        raise ParameterError(f"column {source!r} must hold {SOURCE_DEFAULT!r} or {SOURCE_RANDOM!r}, "
                         f"found {sorted(map(str, unknown))}")
    is_default = (log[source] == SOURCE_DEFAULT).to_numpy()
    return log[is_default].reset_index(drop=True), log[~is_default].reset_index(drop=True)


def load_logs(default: str | Path | None = None, random: str | Path | None = None, *,
              combined: str | Path | None = None, label: str | Sequence[str] = "Y",
              group: str = "S", source: str = "source") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Load the default and random traffic in the generic schema: either two files
    (``default``, ``random``) or one ``combined`` file split by its ``source`` column.
    The label and group columns are checked in every file."""
    need = label_columns(label) + [group]
    if combined is not None:
        if default is not None or random is not None:
            raise ParameterError("give either combined or default and random, not both")
        return split_by_source(read_log(combined, columns=need + [source]), source=source)
    if default is None or random is None:
        raise ParameterError("give both default and random log files (or combined)")
    return read_log(default, columns=need), read_log(random, columns=need)


def load_published(default: str | Path, random: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The seed's published data (Sec. 1, 4.2): two files with the seven boolean columns
    ``like_video, share, follow, finish, download, long_view, young_adult`` (and any others,
    e.g. a day). Adds ``Y`` = any of the six signals (0/1), ``S`` = ``young_adult`` (0/1) and
    ``source``."""
    need = list(PUBLISHED_SIGNALS) + [PUBLISHED_GROUP]
    out = []
    for path, src in ((default, SOURCE_DEFAULT), (random, SOURCE_RANDOM)):
        log = read_log(path, columns=need)
        for col in need:
            bad = ~log[col].isin([0, 1])
            if bad.any():
                raise ParameterError(f"{src} log {path}: column {col!r} must hold only 0/1, "
                                 f"found {pd.unique(log[col][bad])[:5].tolist()}")
        y = log[list(PUBLISHED_SIGNALS)].astype(bool).any(axis=1)
        out.append(log.assign(Y=y.astype(np.int8), S=log[PUBLISHED_GROUP].astype(np.int8), source=src))
    return out[0], out[1]


def _coat_matrix(path: Path) -> np.ndarray:
    if not path.is_file():
        raise FileNotFoundError(f"Coat file not found: {path}")
    return np.loadtxt(path, dtype=np.int64)


def load_coat(data_dir: str | Path | None = None, *, threshold: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Coat as (default, random) logs in the generic schema.

    Rows of ``train.ascii`` with a rating (self-selected items) form the default traffic, rows
    of ``test.ascii`` (16 uniformly random items per user) the random traffic. Columns:
    ``request`` (= user: one request per user), ``user``, ``item``, ``rating``, ``Y`` =
    rating >= ``threshold``, ``S`` = item gender (``"men"``/``"women"``), ``R`` (1 if the user
    also self-selected the item), ``source``.
    """
    root = dataset_dir("coat", data_dir)
    train = _coat_matrix(root / "train.ascii")
    test = _coat_matrix(root / "test.ascii")
    feats = _coat_matrix(root / "user_item_features" / "item_features.ascii")
    if train.shape != test.shape or feats.shape[0] != train.shape[1]:
        raise ParameterError(f"Coat files disagree: train {train.shape}, test {test.shape}, "
                         f"item features {feats.shape}")
    gender = np.where(feats[:, 0] == 1, "men", "women")  # columns 0/1 = gender:men/gender:women
    out = []
    for matrix, src in ((train, SOURCE_DEFAULT), (test, SOURCE_RANDOM)):
        user, item = np.nonzero(matrix)
        rating = matrix[user, item]
        out.append(pd.DataFrame({
            "request": user, "user": user, "item": item, "rating": rating,
            "Y": (rating >= threshold).astype(np.int8), "S": gender[item],
            "R": (train[user, item] > 0).astype(np.int8), "source": src,
        }))
    return out[0], out[1]


def load_obd(data_dir: str | Path | None = None, *, campaign: str = "all") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Open Bandit Dataset sample as (default, random) logs in the generic schema.

    ``bts/<campaign>/<campaign>.csv`` (Thompson sampling) is the default traffic and
    ``random/<campaign>/<campaign>.csv`` the random traffic. Columns: ``request`` (round),
    ``day`` (date of the timestamp), ``item``, ``position``, ``Y`` = click, ``S`` = price tier
    (``"high"`` if ``item_feature_0`` > its median over the items, else ``"low"``; see the
    module docstring), ``source``.
    """
    root = dataset_dir("obd", data_dir)
    first = None
    out = []
    for policy, src in (("bts", SOURCE_DEFAULT), ("random", SOURCE_RANDOM)):
        folder = root / policy / campaign
        log = read_log(folder / f"{campaign}.csv", columns=["timestamp", "item_id", "position", "click"])
        tier = obd_price_tier(folder, log)
        if first is None:
            first = tier
        elif not tier.sort_index().equals(first.sort_index()):
            raise ParameterError("OBD item_feature_0 differs between the bts and random folders: the price tiers disagree")
        out.append(pd.DataFrame({
            "request": np.arange(len(log)), "day": log["timestamp"].astype(str).str[:10],
            "item": log["item_id"].to_numpy(), "position": log["position"].to_numpy(),
            "Y": log["click"].to_numpy(), "S": tier.reindex(log["item_id"]).to_numpy(), "source": src,
        }))
    return out[0], out[1]


def obd_price_tier(folder: Path, log: pd.DataFrame) -> pd.Series:
    """OBD's item group S per item id: ``"high"`` if ``item_feature_0`` (``folder /
    item_context.csv``) is above its median over the items, else ``"low"`` (module docstring).
    Refuses a ``log`` with items missing from the item context."""
    price = read_log(folder / "item_context.csv", columns=["item_id", "item_feature_0"]).set_index("item_id")[
        "item_feature_0"]
    tier = pd.Series(np.where(price > price.median(), "high", "low"), index=price.index)
    if not log["item_id"].isin(tier.index).all():
        raise ParameterError(f"OBD log in {folder} has items without item_context")
    return tier


DATASETS = {"coat": load_coat, "obd": load_obd}


def load_dataset(name: str, data_dir: str | Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(default, random)`` logs of a bundled-loader data set: ``"coat"`` or ``"obd"``
    (label column ``Y``, group column ``S``)."""
    if name not in DATASETS:
        raise ParameterError(f"dataset must be one of {sorted(DATASETS)}, got {name!r}")
    return DATASETS[name](data_dir)
