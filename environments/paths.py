"""Where the real data sets are found. They are never bundled with the project."""
from __future__ import annotations

import os
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def data_root(data_dir: str | Path | None = None) -> Path:
    """The folder holding ``ml-100k/``, ``ml-1m/``, ``coat/``, ``obd/``.

    Order: the explicit ``data_dir``, then ``$OCEF_DATA_DIR``, then
    ``../shared/data`` next to the project checkout.

    Parameters
    ----------
    data_dir : str or Path, optional
        An explicit data root.

    Returns
    -------
    Path
        The data root (not checked to exist).

    Examples
    --------
    >>> data_root("/data/recsys")
    PosixPath('/data/recsys')
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("OCEF_DATA_DIR")
    if env:
        return Path(env)
    return _REPO_ROOT.parent / "shared" / "data"


def dataset_dir(name: str, data_dir: str | Path | None = None) -> Path:
    """``data_root(data_dir)/name`` if ``data_dir`` is a root, or ``data_dir`` itself
    if it already is the data set's folder (its name is ``name``).

    Parameters
    ----------
    name : str
        The data set's folder name (``"ml-100k"``, ``"coat"``, ``"obd"``).
    data_dir : str or Path, optional
        A data root or the data set's own folder.

    Returns
    -------
    Path
        The data set's folder (not checked to exist).

    Examples
    --------
    >>> dataset_dir("coat", "/data/recsys"), dataset_dir("coat", "/data/recsys/coat")
    (PosixPath('/data/recsys/coat'), PosixPath('/data/recsys/coat'))
    """
    if data_dir is not None and Path(data_dir).name == name:
        return Path(data_dir)
    return data_root(data_dir) / name
