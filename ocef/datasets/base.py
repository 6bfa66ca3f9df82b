"""What every data-set class shares: where the files are, and the error when they are absent."""
from __future__ import annotations

from pathlib import Path

from ocef.environments.paths import data_root, dataset_dir
from ocef.errors import DatasetNotFoundError

__all__ = ["DatasetNotFoundError", "find_dataset"]


def find_dataset(title: str, folder_name: str, files: tuple[str, ...], url: str,
                 data_dir: str | Path | None = None) -> Path:
    """The folder of a data set, checked to hold ``files``.

    Parameters
    ----------
    title : str
        The data set's name in messages (``"Coat"``).
    folder_name : str
        Its folder under the data root (``"coat"``).
    files : tuple of str
        Paths relative to the folder that must exist.
    url : str
        Where to download it, for the error message.
    data_dir : str or Path, optional
        The data root or the data set's own folder (default:
        :func:`ocef.environments.paths.data_root`).

    Returns
    -------
    Path

    Raises
    ------
    DatasetNotFoundError
        When a file is missing.

    Examples
    --------
    >>> find_dataset("Coat", "coat", ("train.ascii",), "https://example.org", "/nowhere")
    Traceback (most recent call last):
    ...
    ocef.errors.DatasetNotFoundError: Coat not found in /nowhere/coat: missing train.ascii
    ...
    """
    folder = dataset_dir(folder_name, data_dir)
    missing = [f for f in files if not (folder / f).is_file()]
    if missing:
        raise DatasetNotFoundError(
            f"{title} not found in {folder}: missing {', '.join(missing)}\n"
            f"Download it from {url} and pass data_dir=... (the command line: --data-dir), set "
            f"$OCEF_DATA_DIR, or place it in {data_root(None) / folder_name}.")
    return folder
