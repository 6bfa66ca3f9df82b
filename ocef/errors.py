"""The package's own exceptions.

Every error a user can cause derives from :class:`OcefError` and from the built-in class a caller
would catch without knowing OCEF (``ValueError`` or ``TypeError``), as scikit-learn's
``InvalidParameterError`` does. The command line turns these (and file errors) into one line and
exit status 2; any other exception is a bug and shows its traceback.

Examples
--------
>>> from ocef.errors import ParameterError
>>> try:
...     raise ParameterError("delta must be in (0, 1), got 2")
... except ValueError as e:
...     print(e)
delta must be in (0, 1), got 2
"""
from __future__ import annotations

__all__ = ["OcefError", "ParameterError", "ParameterTypeError", "DataError", "ResourceLimitError",
           "DatasetNotFoundError"]


class OcefError(Exception):
    """Base class of every error OCEF raises on purpose."""


class ParameterError(OcefError, ValueError):
    """A parameter outside its declared range or set of values."""


class ParameterTypeError(OcefError, TypeError):
    """A parameter of the wrong type (a string for a number, a float for a count, ...)."""


class DataError(OcefError, ValueError):
    """Input data (a log, a table, an array, a service's answer) that cannot support the answer
    asked for: missing columns, a group absent from a log, values out of range, ..."""


class ResourceLimitError(OcefError, ValueError):
    """Work or memory estimated from the arguments exceeds a documented limit; the message names
    the argument, the estimate, the limit and how to raise it."""


class DatasetNotFoundError(OcefError, FileNotFoundError):
    """A real data set (MovieLens, Coat, the Open Bandit Dataset) is not where OCEF looked.

    Distinct from any other missing file: ``ocef reproduce`` skips an experiment whose data set is
    absent (with this message as the reason) but reports any other missing file as a failure.
    :mod:`ocef.datasets` documents where the data sets are looked for. A ``FileNotFoundError``
    too, so code that catches that keeps working.

    Examples
    --------
    >>> from ocef.datasets import Coat
    >>> try:
    ...     Coat("/nowhere")
    ... except DatasetNotFoundError as e:
    ...     print(str(e).splitlines()[0])
    Coat not found in /nowhere/coat: missing train.ascii, test.ascii, user_item_features/item_features.ascii
    >>> issubclass(DatasetNotFoundError, FileNotFoundError)
    True
    """
