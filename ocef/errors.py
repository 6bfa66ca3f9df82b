"""The package's own exceptions.

Every error a user can cause derives from :class:`OcefError` and from the built-in class a caller
would catch without knowing OCEF (``ValueError`` or ``TypeError``), as scikit-learn's
``InvalidParameterError`` does. The command line turns these (and file errors) into one line and
exit status 2; any other exception is a bug and shows its traceback.
"""
from __future__ import annotations

__all__ = ["OcefError", "ParameterError", "ParameterTypeError", "DataError", "ResourceLimitError",
           "DatasetNotFoundError"]


class OcefError(Exception):
    """Base class of every error OCEF raises on purpose.

    Catch it to handle any user error of the package at once; the command line prints its message
    on one line and exits with status 2.

    Examples
    --------
    >>> from ocef.errors import OcefError, DataError
    >>> issubclass(DataError, OcefError)
    True
    """


class ParameterError(OcefError, ValueError):
    """A parameter outside its declared range or set of values (:mod:`ocef.validation`).

    The message names the parameter, the value given and what is allowed.

    Examples
    --------
    >>> from ocef.envy import OCEF
    >>> try:
    ...     OCEF(n_arms=3, delta=2.0, alpha=0.1, epsilon=0.05)
    ... except ValueError as e:
    ...     print(type(e).__name__, "-", e)
    ParameterError - delta must be a real number in (0, 1), got 2.0
    """


class ParameterTypeError(OcefError, TypeError):
    """A parameter of the wrong type (a string for a number, a float for a count, ...).

    Examples
    --------
    >>> issubclass(ParameterTypeError, TypeError)
    True
    """


class DataError(OcefError, ValueError):
    """Input data (a log, a table, an array, a service's answer) that cannot support the answer
    asked for: missing columns, a group absent from a log, values out of range, ...

    Examples
    --------
    >>> from ocef.exposure.logs import read_log
    >>> try:
    ...     read_log([1, 2, 3])
    ... except ValueError as e:
    ...     print(type(e).__name__, "-", e)
    DataError - a log must be a file path or a pandas DataFrame here, got list
    """


class ResourceLimitError(OcefError, ValueError):
    """Work or memory estimated from the arguments exceeds a documented limit; the message names
    the argument, the estimate, the limit and how to raise it.

    The limits are checked before any allocation (:func:`ocef.validation.check_resources`) and can
    be raised with the environment variables ``OCEF_MAX_MEMORY`` and ``OCEF_MAX_WORK``.

    Examples
    --------
    >>> from ocef.errors import ResourceLimitError
    >>> issubclass(ResourceLimitError, ValueError)
    True
    """


class DatasetNotFoundError(OcefError, FileNotFoundError):
    """A real data set (MovieLens, Coat, the Open Bandit Dataset) is not where OCEF looked.

    ``ocef reproduce`` skips an experiment whose data set is absent (with this message as the reason)
    but reports any other missing file as a failure; a ``FileNotFoundError`` too.

    Examples
    --------
    >>> from ocef.datasets import Coat
    >>> try:
    ...     Coat("/nowhere")
    ... except DatasetNotFoundError as e:
    ...     print(str(e).splitlines()[0])
    Coat not found in /nowhere/coat: missing train.ascii, test.ascii, user_item_features/item_features.ascii
    """
