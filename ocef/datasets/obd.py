"""The Open Bandit Dataset (Saito et al., NeurIPS 2021 Datasets and Benchmarks).

Logged bandit feedback of ZOZOTOWN's fashion e-commerce: ``random/<campaign>/`` (the uniformly
random policy: the random traffic) and ``bts/<campaign>/`` (Bernoulli Thompson sampling: the
default traffic), each with ``<campaign>.csv`` (one row per impression: ``timestamp``,
``item_id``, ``position``, ``click``, ``propensity_score``, four hashed user features, ...) and
``item_context.csv``.

Item groups: ``item_feature_0`` is the only item feature stored identically in both folders (the
categorical features are hashed differently per folder); it is a standardized price with 41
distinct values over the 80 items, split at its median over the items into the price tiers
``"high"`` (> median, 39 items) and ``"low"`` (<= median, 41 items).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.datasets.base import find_dataset
from ocef.environments.logs import read_log
from ocef.errors import DataError, ParameterError

__all__ = ["OpenBanditDataset", "OBD_URL", "OBD_POLICIES", "OBD_USER_FEATURES", "load_obd", "obd_price_tier",
           "obd_pairs"]

OBD_URL = "https://research.zozo.com/data.html"
#: The behaviour policies of the data set: Bernoulli Thompson sampling and uniformly random.
OBD_POLICIES = ("bts", "random")
OBD_USER_FEATURES = ("user_feature_0", "user_feature_1", "user_feature_2", "user_feature_3")


def _files(campaign: str) -> tuple[str, ...]:
    return tuple(f"{p}/{campaign}/{f}" for p in OBD_POLICIES for f in (f"{campaign}.csv", "item_context.csv"))


def obd_price_tier(folder: Path, log: pd.DataFrame) -> pd.Series:
    """OBD's item group per item id: ``"high"`` if ``item_feature_0`` (``item_context.csv``) is above
    its median over the items, else ``"low"``.

    Parameters
    ----------
    folder : Path
        A policy's campaign folder (``obd/random/all``).
    log : pandas.DataFrame
        The folder's log (column ``item_id``).

    Returns
    -------
    pandas.Series
        Indexed by item id.

    Raises
    ------
    ocef.errors.DataError
        When an item of ``log`` has no row in ``item_context.csv``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_obd
    >>> obd_price_tier(make_toy_obd() / "random" / "all", pd.DataFrame({"item_id": [2, 0]})).to_dict()
    {0: 'low', 1: 'low', 2: 'high'}
    """
    price = read_log(Path(folder) / "item_context.csv", columns=["item_id", "item_feature_0"]).set_index(
        "item_id")["item_feature_0"]
    tier = pd.Series(np.where(price > price.median(), "high", "low"), index=price.index)
    if not log["item_id"].isin(tier.index).all():
        raise DataError(f"OBD log in {folder} has items without item_context")
    return tier


def load_obd(data_dir: str | Path | None = None, *, campaign: str = "all") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Open Bandit Dataset as (default, random) logs in the REO log schema.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root or the data set's folder.
    campaign : {"all", "men", "women"}
        The campaign folder.

    Returns
    -------
    default, random : pandas.DataFrame
        ``bts`` and ``random`` logs: ``request`` (round), ``day``, ``item``, ``position``, ``Y`` =
        click, ``S`` = price tier, ``source``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_obd
    >>> sorted(load_obd(make_toy_obd())[1]["S"].unique())
    ['high', 'low']
    """
    root = find_dataset("The Open Bandit Dataset", "obd", _files(campaign), OBD_URL, data_dir)
    first = None
    out = []
    for policy, src in (("bts", "default"), ("random", "random")):
        folder = root / policy / campaign
        log = read_log(folder / f"{campaign}.csv", columns=["timestamp", "item_id", "position", "click"])
        tier = obd_price_tier(folder, log)
        if first is None:
            first = tier
        elif not tier.sort_index().equals(first.sort_index()):
            raise DataError("OBD item_feature_0 differs between the bts and random folders: the price tiers disagree")
        out.append(pd.DataFrame({
            "request": np.arange(len(log)), "day": log["timestamp"].astype(str).str[:10],
            "item": log["item_id"].to_numpy(), "position": log["position"].to_numpy(),
            "Y": log["click"].to_numpy(), "S": tier.reindex(log["item_id"]).to_numpy(), "source": src,
        }))
    return out[0], out[1]


def obd_pairs(data_dir: str | Path | None = None, *, campaign: str = "all") -> pd.DataFrame:
    """The uniformly random log as randomized pairs: impressions matched on the four user features and
    the day; s = price tier. Smoke data only (38 clicks, 1,888 pairs).

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root or the data set's folder.
    campaign : {"all", "men", "women"}
        The campaign folder.

    Returns
    -------
    pandas.DataFrame
        :doc:`/formats/pairs`: ``query`` (the clicked row), ``j`` (clicked item), ``jp`` (an
        unclicked item shown to the same user features that day), price tiers, ``z`` = 0.

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When the campaign's files are absent, naming them and the download address.

    Examples
    --------
    >>> from ocef.datasets import make_toy_obd
    >>> obd_pairs(make_toy_obd())[["j", "jp", "s_j", "s_jp"]].values.tolist()
    [[2, 0, 'high', 'low'], [2, 1, 'high', 'low']]
    """
    from ocef.environments.pairs import pairs_from_impressions

    root = find_dataset("The Open Bandit Dataset", "obd", _files(campaign), OBD_URL, data_dir)
    folder = root / "random" / campaign
    log = read_log(folder / f"{campaign}.csv", columns=["timestamp", "item_id", "click", *OBD_USER_FEATURES])
    tier = obd_price_tier(folder, log)
    frame = pd.DataFrame({
        "day": log["timestamp"].astype(str).str[:10], "item": log["item_id"].to_numpy(),
        "Y": log["click"].to_numpy(), "S": tier.reindex(log["item_id"]).to_numpy(),
        **{c: log[c].to_numpy() for c in OBD_USER_FEATURES},
    })
    return pairs_from_impressions(frame, match_on=list(OBD_USER_FEATURES) + ["day"])


class OpenBanditDataset:
    """The Open Bandit Dataset (Saito et al., 2021), read from a folder.

    Parameters
    ----------
    data_dir : str or Path, optional
        The data root holding ``obd/`` or the data set's own folder.
    campaign : {"all", "men", "women"}
        The campaign folder.

    Raises
    ------
    DatasetNotFoundError
        When the files are absent.

    Examples
    --------
    >>> from ocef.datasets import make_toy_obd
    >>> OpenBanditDataset(make_toy_obd()).log("random").shape[0]          # real: 10,000 a day
    4
    """

    name = "obd"
    url = OBD_URL

    def __init__(self, data_dir: str | Path | None = None, *, campaign: str = "all"):
        if not isinstance(campaign, str) or not campaign:
            raise ParameterError(f"campaign must be a folder name such as 'all', got {campaign!r}")
        self.campaign = campaign
        self.path = find_dataset("The Open Bandit Dataset", "obd", _files(campaign), OBD_URL, data_dir)

    def __repr__(self) -> str:
        return f"OpenBanditDataset({str(self.path)!r}, campaign={self.campaign!r})"

    def log(self, policy: str) -> pd.DataFrame:
        """The raw log of one behaviour policy, as in the files.

        Parameters
        ----------
        policy : {"bts", "random"}
            Bernoulli Thompson sampling or uniformly random.

        Returns
        -------
        pandas.DataFrame
            One row per impression.

        Raises
        ------
        ocef.errors.ParameterError
            ``policy`` other than "bts" and "random".

        Examples
        --------
        >>> from ocef.datasets import make_toy_obd
        >>> OpenBanditDataset(make_toy_obd()).log("random")[["item_id", "position", "click"]].values.tolist()
        [[2, 1, 1], [0, 2, 0], [1, 3, 0], [0, 1, 0]]
        """
        if policy not in OBD_POLICIES:
            raise ParameterError(f"policy must be one of {OBD_POLICIES}, got {policy!r}")
        return read_log(self.path / policy / self.campaign / f"{self.campaign}.csv")

    @property
    def items(self) -> pd.DataFrame:
        """One row per item: ``item_id``, ``item_feature_0`` (standardized price) and ``tier``."""
        folder = self.path / "random" / self.campaign
        price = read_log(folder / "item_context.csv")[["item_id", "item_feature_0"]]
        tier = np.where(price["item_feature_0"] > price["item_feature_0"].median(), "high", "low")
        return price.assign(tier=tier).sort_values("item_id").reset_index(drop=True)

    def logs(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The (default, random) REO logs (:func:`load_obd`): Thompson sampling and the uniformly random
        policy; ``S`` = price tier.

        Returns
        -------
        default, random : pandas.DataFrame

        Examples
        --------
        >>> from ocef.datasets import make_toy_obd
        >>> OpenBanditDataset(make_toy_obd()).logs()[1]["S"].tolist()
        ['high', 'low', 'low', 'low']
        """
        return load_obd(self.path, campaign=self.campaign)

    def pairs(self) -> pd.DataFrame:
        """The randomized pairs of the random log (:func:`obd_pairs`).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from ocef.datasets import make_toy_obd
        >>> len(OpenBanditDataset(make_toy_obd()).pairs())
        2
        """
        return obd_pairs(self.path, campaign=self.campaign)
