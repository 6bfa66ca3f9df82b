"""Argument checks shared by the public boundary of every module.

Every check raises :class:`ocef.errors.ParameterError` (a ``ValueError``) or
:class:`ocef.errors.ParameterTypeError` (a ``TypeError``) naming the argument, the value and the
allowed range, so that bad input never fails deep inside the math.

Two tools, after scikit-learn's ``sklearn/utils/_param_validation.py``:

- **Declared constraints** (:class:`Real`, :class:`Integer`, :class:`Options`, :class:`Unit`, ...)
  and the decorator :func:`validate_params`: each public front door declares each parameter once;
  the same declaration checks the Python call and the command line (which calls the front door), and
  ``tests/test_parameter_checks.py`` generates its invalid values from :data:`DECLARED`.
- **Resource limits** (:func:`check_resources`, :func:`resource_limits`): a front door estimates
  from its arguments the memory and the work it will need and refuses, before allocating, what
  exceeds :data:`LIMITS` with :class:`ocef.errors.ResourceLimitError`, naming the argument, the
  estimate, the limit and how to raise it (environment variables ``OCEF_MAX_MEMORY`` and
  ``OCEF_MAX_WORK``, or the context manager :func:`resource_limits`).

Examples
--------
>>> from ocef.validation import Real, validate_params
>>> @validate_params(delta=Real(0, 1, closed="neither"))
... def f(delta):
...     return delta
>>> f(0.5)
0.5
>>> try:
...     f(1.5)
... except ValueError as e:
...     print(e)
delta must be a real number in (0, 1), got 1.5
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
import numbers
import os

import numpy as np

from ocef.errors import ParameterError, ParameterTypeError, ResourceLimitError


def fill_doc(**blocks: str):
    """Decorator: put shared docstring blocks where ``%(name)s`` stands (as scipy's ``doccer``).

    Parameter blocks that several functions share are written once, at module level, and each
    placeholder line is replaced by its block, indented as the placeholder.

    Parameters
    ----------
    **blocks : str
        The blocks by name, unindented (``inspect.cleandoc`` is applied).

    Returns
    -------
    callable
        The decorator; it returns the object with its ``__doc__`` filled.

    Examples
    --------
    >>> @fill_doc(x="x : float\\n    A number.")
    ... def f(x):
    ...     '''Twice x.
    ...
    ...     Parameters
    ...     ----------
    ...     %(x)s
    ...     '''
    >>> print(f.__doc__.splitlines()[4])
        x : float
    """
    cleaned = {name: inspect.cleandoc(text).splitlines() for name, text in blocks.items()}

    def decorate(obj):
        if obj.__doc__:                          # None under ``python -OO``
            lines = []
            for line in obj.__doc__.splitlines():
                stripped = line.strip()
                name = stripped[2:-2] if stripped.startswith("%(") and stripped.endswith(")s") else None
                if name in cleaned:
                    indent = line[:len(line) - len(line.lstrip())]
                    lines += [indent + b if b else b for b in cleaned[name]]
                else:
                    lines.append(line)
            obj.__doc__ = "\n".join(lines)
        return obj

    return decorate


#: The return and raise blocks of the three checks of OCEF's parameters.
_fill_check = fill_doc(check="""
Returns
-------
float
    The value as a float.

Raises
------
ocef.errors.ParameterError, ocef.errors.ParameterTypeError
    Outside the interval, or not a real number.""")


def check_in_interval(name: str, value, low: float, high: float, *,
                      low_open: bool = True, high_open: bool = False) -> float:
    """Return ``float(value)`` if it lies in the interval, else raise an error naming the argument.

    ``low_open``/``high_open`` choose between ``(`` and ``[`` at each end. The imperative
    counterpart of the declared :class:`Real` (used inside functions that are not decorated with
    :func:`validate_params`). NaN is never inside; an integer too large for a float counts as
    ``±inf``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : int or float
        The value to check; bools, strings and other non-real types are refused.
    low, high : float
        The interval's ends (``±inf`` allowed).
    low_open : bool, default True
        Exclude ``low`` (``(``); False includes it (``[``).
    high_open : bool, default False
        Exclude ``high`` (``)``); False includes it (``]``).

    Returns
    -------
    float
        ``float(value)``.

    Raises
    ------
    ocef.errors.ParameterTypeError
        (a ``TypeError``) when ``value`` is not a real number.
    ocef.errors.ParameterError
        (a ``ValueError``) when it is outside the interval or NaN, naming the interval.

    Examples
    --------
    >>> check_in_interval("lr", 0.5, 0, 1)
    0.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:                               # an int of 400 digits
        v = math.inf if value > 0 else -math.inf
    ok_low = v > low if low_open else v >= low
    ok_high = v < high if high_open else v <= high
    if not (ok_low and ok_high) or np.isnan(v):
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        raise ParameterError(f"{name} must be in {lb}{low}, {high}{hb}, got {value!r}")
    return v


@_fill_check
def check_delta(delta) -> float:
    """Confidence parameter δ ∈ (0, 1).
    OCEF's δ (Do et al. 2022): the audit's certificate holds with probability at least ``1 − δ``.

    Parameters
    ----------
    delta : float
        The value to check.

    %(check)s

    Examples
    --------
    >>> check_delta(0.05)
    0.05
    """
    return check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)


@_fill_check
def check_alpha(alpha) -> float:
    """Conservative-exploration parameter α ∈ (0, 1].
    OCEF's α (Do et al. 2022): the share of the baseline's reward the auditor may lose while exploring.

    Parameters
    ----------
    alpha : float
        The value to check.

    %(check)s

    Examples
    --------
    >>> check_alpha(1)
    1.0
    """
    return check_in_interval("alpha", alpha, 0.0, 1.0, low_open=True, high_open=False)


@_fill_check
def check_epsilon(epsilon) -> float:
    """Envy tolerance ε ∈ (0, 1].
    OCEF's ε (Do et al. 2022): the envy a user may have and still count as envy-free.

    Parameters
    ----------
    epsilon : float
        The value to check.

    %(check)s

    Examples
    --------
    >>> check_epsilon(0.1)
    0.1
    """
    return check_in_interval("epsilon", epsilon, 0.0, 1.0, low_open=True, high_open=False)


def check_positive_int(name: str, value, minimum: int = 1) -> int:
    """An integer ``>= minimum`` (numpy integers accepted, bools and floats refused).

    The imperative counterpart of the declared :class:`Integer`.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : int
        The value to check (``5.0`` and ``True`` are refused, not converted).
    minimum : int, default 1
        The smallest allowed value.

    Returns
    -------
    int
        ``int(value)``.

    Raises
    ------
    ocef.errors.ParameterTypeError
        When ``value`` is not an integer.
    ocef.errors.ParameterError
        When it is below ``minimum``.

    Examples
    --------
    >>> check_positive_int("k", np.int64(5)), check_positive_int("n_neg_train", 0, minimum=0)
    (5, 0)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def as_real_array(name: str, values) -> np.ndarray:
    """``values`` as a float array, refusing what ``np.asarray(values, dtype=float)`` would silently
    change or fail on deep inside: complex numbers (the imaginary part dropped), strings and bytes
    (parsed), booleans, objects, ragged lists.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    values : array_like
        Real numbers of any shape (ints, floats, numpy real arrays; integer object arrays are
        converted).

    Returns
    -------
    numpy.ndarray of float
        Same shape as ``values`` (no copy when already float).

    Raises
    ------
    ocef.errors.ParameterTypeError
        Strings, bytes, booleans, complex numbers, dates or other objects among the values.
    ocef.errors.ParameterError
        A ragged (non-rectangular) nested list, or an integer too large for a float.

    Examples
    --------
    >>> as_real_array("means", [0.5, 1]).tolist()
    [0.5, 1.0]
    """
    if isinstance(values, (str, bytes)):
        raise ParameterTypeError(f"{name} must be an array of real numbers, got {values!r}")
    if isinstance(values, (list, tuple)) and len(values) < 10**6:
        flat = list(values)
        while flat and any(isinstance(v, (list, tuple)) for v in flat):
            flat = [w for v in flat for w in (v if isinstance(v, (list, tuple)) else [v])]
        odd = [v for v in flat if isinstance(v, (bool, np.bool_, str, bytes, complex))]
        if odd:                                         # np.asarray([0.6, True]) is silently [0.6, 1.0]
            raise ParameterTypeError(f"{name} must hold real numbers only, found {odd[0]!r}")
    try:
        raw = np.asarray(values)
    except ValueError as exc:                       # ragged nested lists
        raise ParameterError(f"{name} must be a rectangular array of real numbers ({exc})") from None
    if raw.dtype.kind == "O":
        kinds = {type(v).__name__ for v in raw.ravel()[:1000] if not _is_real(v)}
        if kinds:
            raise ParameterTypeError(f"{name} must hold real numbers only, found {', '.join(sorted(kinds))}")
        try:
            raw = raw.astype(float)
        except OverflowError:
            raise ParameterError(f"{name} holds an integer too large for a float") from None
    if raw.dtype.kind not in "iuf":
        what = {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes", "M": "dates",
                "m": "time deltas", "V": "records"}.get(raw.dtype.kind, str(raw.dtype))
        raise ParameterTypeError(f"{name} must hold real numbers, got {what} (dtype {raw.dtype})")
    return raw.astype(float, copy=False)


def check_unit_array(name: str, values, *, ndim: int | None = None) -> np.ndarray:
    """A float array with every entry in [0, 1] (rewards, means, preferences).

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    values : array_like of float
        The values (checked by :func:`as_real_array` first).
    ndim : int, optional
        The required number of dimensions; None: any.

    Returns
    -------
    numpy.ndarray of float
        The values.

    Raises
    ------
    ocef.errors.ParameterError
        An empty array, the wrong ``ndim``, or an entry outside [0, 1] (NaN included), showing up
        to three of them.
    ocef.errors.ParameterTypeError
        Values that are not real numbers.

    Examples
    --------
    >>> check_unit_array("means", [0.2, 0.9]).tolist()
    [0.2, 0.9]
    """
    arr = as_real_array(name, values)
    if ndim is not None and arr.ndim != ndim:
        raise ParameterError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if arr.size == 0:
        raise ParameterError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)) or arr.min() < 0.0 or arr.max() > 1.0:
        bad = arr[~((arr >= 0) & (arr <= 1))].ravel()[:3]
        raise ParameterError(f"{name} must have every entry in [0, 1], found {bad.tolist()}")
    return arr


def as_generator(rng) -> np.random.Generator:
    """Turn ``None``, an int seed (or a list of them), a SeedSequence or a Generator into a Generator.

    Every function of OCEF that draws takes ``rng`` and passes it here (as scikit-learn's
    ``check_random_state``, for numpy's ``Generator``): the same int seed gives the same draws, a
    Generator is used as it is (its state advances), None draws fresh entropy.

    Parameters
    ----------
    rng : None, int, list of int, numpy.random.SeedSequence or numpy.random.Generator
        The randomness; int seeds must be >= 0.

    Returns
    -------
    numpy.random.Generator
        ``rng`` itself if it is a Generator, else ``numpy.random.default_rng(rng)``.

    Raises
    ------
    ocef.errors.ParameterError
        A negative seed.
    ocef.errors.ParameterTypeError
        Any other type (a float, a string, a legacy ``RandomState``).

    Examples
    --------
    >>> int(as_generator(0).integers(100)) == int(as_generator(0).integers(100))
    True
    >>> gen = np.random.default_rng(5)
    >>> as_generator(gen) is gen
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and rng < 0 or (
            isinstance(rng, (list, tuple)) and any(isinstance(v, numbers.Integral) and v < 0 for v in rng)):
        # numpy's own message ("expected non-negative integer") names nothing
        raise ParameterError(f"rng must be a non-negative int seed (or a list of them), got {rng!r}")
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    if isinstance(rng, (list, tuple)) and rng and all(isinstance(v, numbers.Integral) for v in rng):
        return np.random.default_rng(list(rng))          # entropy of a SeedSequence
    raise ParameterTypeError(f"rng must be None, an int seed, a list of int seeds, a SeedSequence or a "
                    f"numpy.random.Generator, got {type(rng).__name__}")


def seed_from_rng(rng) -> int:
    """An integer seed standing for ``rng`` in cache keys and descriptions.

    An int is returned as is (it must be >= 0); ``None`` draws a fresh seed; a SeedSequence
    or a Generator yields a seed drawn from it (same input state, same seed).

    Parameters
    ----------
    rng : None, int, list of int, numpy.random.SeedSequence or numpy.random.Generator
        The randomness (:func:`as_generator`).

    Returns
    -------
    int
        A seed in ``[0, 2**31 − 1)`` (or the int given).

    Raises
    ------
    ocef.errors.ParameterError
        A negative int seed.
    ocef.errors.ParameterTypeError
        A bool or a type :func:`as_generator` refuses.

    Examples
    --------
    >>> seed_from_rng(7)
    7
    >>> seed_from_rng(np.random.SeedSequence(1)) == seed_from_rng(np.random.SeedSequence(1))
    True
    """
    if isinstance(rng, bool):
        raise ParameterTypeError(f"rng must be None, an int seed, a SeedSequence or a Generator, got {rng!r}")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise ParameterError(f"rng must be a non-negative int seed, got {rng}")
        return int(rng)
    return int(as_generator(rng).integers(2**31 - 1))


# --------------------------------------------------------------------------- declared constraints
def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


class Constraint:
    """A declared constraint on one parameter: :meth:`check` returns the value (converted to a
    plain Python type) or raises an :mod:`ocef.errors` exception naming the parameter;
    :meth:`invalid_values` lists values the generated test feeds to prove the check exists.

    The base class of the constraints :func:`validate_params` takes (as scikit-learn's
    ``_Constraint``). A subclass implements ``check(name, value)`` (return the value, converted,
    or raise :class:`~ocef.errors.ParameterError` / :class:`~ocef.errors.ParameterTypeError`
    naming ``name``), ``describe()`` (the allowed values in words, used in messages and as the
    ``repr``) and, so that ``tests/test_parameter_checks.py`` can prove the check exists,
    ``invalid_values()``.

    Examples
    --------
    >>> from ocef.errors import ParameterError
    >>> class Even(Constraint):
    ...     def describe(self):
    ...         return "an even integer"
    ...     def check(self, name, value):
    ...         if not isinstance(value, int) or value % 2:
    ...             raise ParameterError(f"{name} must be {self.describe()}, got {value!r}")
    ...         return value
    ...     def invalid_values(self):
    ...         return [3, 2.0]
    >>> Even().check("n_slots", 4), Even()
    (4, an even integer)
    """

    def check(self, name: str, value):
        """Return ``value`` (converted to a plain Python type) if it satisfies the constraint, else raise.

        Every constraint implements it (the subclasses below inherit this description):
        :func:`validate_params` calls it on each declared argument before the function's body runs.

        Parameters
        ----------
        name : str
            The parameter's name, for the message (``alpha[1]`` for an entry of a sequence).
        value : object
            The argument as given.

        Returns
        -------
        object
            The value, converted (:class:`Real` gives a ``float``, :class:`Integer` an ``int``,
            :class:`Boolean` a ``bool``, :class:`OneOrMore` a list for a sequence; the others return
            it unchanged).

        Raises
        ------
        ocef.errors.ParameterTypeError
            A value of the wrong type (a string where a number is due).
        ocef.errors.ParameterError
            A value of the right type outside the allowed set, naming the parameter, the value and
            :meth:`describe`.

        Examples
        --------
        >>> Integer(1).check("k", 5), Real(0, 1).check("confidence", 1)
        (5, 1.0)
        """
        raise NotImplementedError

    def describe(self) -> str:
        """The allowed values in words: the end of every message (``"k must be " + describe()``) and the ``repr``.

        Returns
        -------
        str
            E.g. ``"an integer >= 1"``.

        Examples
        --------
        >>> Integer(1).describe(), Options("auto", "numba").describe()
        ('an integer >= 1', "one of 'auto', 'numba'")
        """
        raise NotImplementedError

    def invalid_values(self) -> list:
        """Values the constraint must refuse: ``tests/test_parameter_checks.py`` feeds each to every
        front door declaring it and expects an :mod:`ocef.errors` exception naming the parameter.

        Returns
        -------
        list
            Values of the wrong type and values just outside the range (the base class: none).

        Examples
        --------
        >>> Integer(1, 10).invalid_values()
        [1.5, '3', True, None, 0, 11]
        """
        return []

    def __repr__(self) -> str:
        return self.describe()


class Real(Constraint):
    """A real number in an interval; ``closed`` in "both", "left", "right", "neither" (as
    scikit-learn's ``Interval``). NaN, strings, bytes, bools and complex numbers are refused.

    ``check`` returns ``float(value)``; ints and numpy reals are accepted.

    Parameters
    ----------
    low, high : float, default -inf, inf
        The ends of the interval (an infinite end is never reached by a finite value).
    closed : {"both", "left", "right", "neither"}, default "both"
        Which ends belong to the interval:

        - ``"both"``: ``[low, high]``;
        - ``"left"``: ``[low, high)``;
        - ``"right"``: ``(low, high]``;
        - ``"neither"``: ``(low, high)``.

    Raises
    ------
    ocef.errors.ParameterError
        (at construction) an unknown ``closed``.

    Examples
    --------
    >>> Real(0, 1, closed="left")
    a real number in [0, 1)
    >>> Real(0, 1, closed="left").check("confidence", 0)
    0.0
    """

    def __init__(self, low=-math.inf, high=math.inf, *, closed: str = "both"):
        if closed not in ("both", "left", "right", "neither"):
            raise ParameterError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        self.low, self.high, self.closed = low, high, closed

    def _bounds(self) -> str:
        lb = "[" if self.closed in ("both", "left") else "("
        hb = "]" if self.closed in ("both", "right") else ")"
        return f"{lb}{self.low:g}, {self.high:g}{hb}"

    def describe(self) -> str:
        return f"a real number in {self._bounds()}"

    def contains(self, v: float) -> bool:
        """Whether the float ``v`` lies in the interval (ends included as ``closed`` says); NaN never does.

        Parameters
        ----------
        v : float
            The value, already a float (no type check: that is :meth:`check`'s).

        Returns
        -------
        bool

        Examples
        --------
        >>> Real(0, 1, closed="right").contains(0.0), Real(0, 1, closed="right").contains(1.0)
        (False, True)
        """
        if math.isnan(v):
            return False
        ok_low = v >= self.low if self.closed in ("both", "left") else v > self.low
        ok_high = v <= self.high if self.closed in ("both", "right") else v < self.high
        return ok_low and ok_high

    def check(self, name, value):
        if not _is_real(value):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {value!r}")
        try:
            v = float(value)
        except OverflowError:                           # an int of 400 digits: beyond every bound
            raise ParameterError(f"{name} must be {self.describe()}, got an integer of {len(str(abs(value)))} "
                                 f"digits") from None
        if not self.contains(v):
            raise ParameterError(f"{name} must be {self.describe()}, got {value!r}")
        return v

    def invalid_values(self) -> list:
        out = [math.nan, "0.5", b"0.5", True, 0.5 + 0.5j, [0.5]]
        for edge, kind in ((self.low, "low"), (self.high, "high")):
            if math.isfinite(edge):
                shifted = edge - 1e-3 * max(1.0, abs(edge)) if kind == "low" else edge + 1e-3 * max(1.0, abs(edge))
                out.append(shifted)
                if not self.contains(float(edge)):
                    out.append(edge)
            elif not self.contains(edge):
                out.append(edge)
        return out


def _int_text(x) -> str:
    """An integer bound as written (``2147483647``, not ``2.14748e+09``); ``-inf`` as ``-inf``."""
    return f"{x:g}" if isinstance(x, float) and not x.is_integer() or math.isinf(x) else str(int(x))


class Integer(Real):
    """An integer in ``[low, high]`` (numpy integers accepted; floats, bools and strings refused).

    ``check`` returns ``int(value)``; ``3.0`` is refused, not converted (as scikit-learn's
    ``Interval(Integral, ...)``).

    Parameters
    ----------
    low, high : int or float, default -inf, inf
        The smallest and largest allowed values (both included; ``inf``: no upper end).

    Examples
    --------
    >>> Integer(1), Integer(1, 10).check("k", np.int64(3))
    (an integer >= 1, 3)
    """

    def __init__(self, low=-math.inf, high=math.inf):
        super().__init__(low, high, closed="both")

    def describe(self) -> str:
        if math.isinf(self.high):
            return f"an integer >= {_int_text(self.low)}"
        return f"an integer in [{_int_text(self.low)}, {_int_text(self.high)}]"

    def check(self, name, value):
        if not _is_int(value):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {value!r}")
        v = int(value)
        if not (self.low <= v <= self.high):
            got = f"an integer of {len(str(abs(v)))} digits" if abs(v) >= 10 ** 20 else repr(value)
            raise ParameterError(f"{name} must be {self.describe()}, got {got}")
        return v

    def invalid_values(self) -> list:
        out = [1.5, "3", True, None]
        if math.isfinite(self.low):
            out.append(int(self.low) - 1)
        if math.isfinite(self.high):
            out.append(int(self.high) + 1)
        return out


class Options(Constraint):
    """One of a fixed set of values (strings are compared exactly, case included).

    As scikit-learn's ``StrOptions``, for any hashable values: a value matches when it has the
    same type and compares equal (so ``1`` does not match ``True``); ``None`` may be one of the
    options. ``check`` returns the value unchanged.

    Parameters
    ----------
    *values : object
        The allowed values.

    Examples
    --------
    >>> engine = Options("auto", "numba", "numpy", "ask-tell")
    >>> engine.check("engine", "numba")
    'numba'
    """

    def __init__(self, *values):
        self.values = tuple(values)

    def describe(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))

    def check(self, name, value):
        try:
            ok = any(type(value) is type(v) and value == v for v in self.values) or (
                value is None and None in self.values)
        except Exception:                                   # noqa: BLE001 (arrays compare elementwise)
            ok = False
        if not ok:
            raise ParameterError(f"{name} must be {self.describe()}, got {value!r}")
        return value

    def invalid_values(self) -> list:
        return ["bogus-value", 3.5] + ([] if None in self.values else [None])


class Boolean(Constraint):
    """True or False (numpy bools accepted, 0/1 and strings refused).

    ``check`` returns a Python ``bool``.

    Examples
    --------
    >>> Boolean().check("lazy", np.bool_(True))
    True
    """

    def describe(self) -> str:
        return "True or False"

    def check(self, name, value):
        if not isinstance(value, (bool, np.bool_)):
            raise ParameterTypeError(f"{name} must be True or False, got {value!r}")
        return bool(value)

    def invalid_values(self) -> list:
        return ["yes", 2]


class Rng(Constraint):
    """Anything :func:`as_generator` accepts: the declared form of every ``rng`` parameter.

    ``check`` returns the value unchanged (the function turns it into a Generator itself, so a
    Generator passed in keeps being advanced); bools are refused although they are ints.

    Examples
    --------
    >>> Rng().check("rng", 3)
    3
    """

    def describe(self) -> str:
        return "None, an int seed >= 0, a list of them, a SeedSequence or a numpy Generator"

    def check(self, name, value):
        if isinstance(value, (bool, np.bool_)):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {value!r}")
        try:
            as_generator(value)
        except (ValueError, TypeError) as exc:
            raise type(exc)(str(exc).replace("rng ", f"{name} ", 1)) from None
        return value

    def invalid_values(self) -> list:
        return ["seed", 1.5, -1, [3, -1], True]


class OneOrMore(Constraint):
    """A scalar or a non-empty 1-d sequence, each entry satisfying ``inner`` (a grid of values).

    For parameters that take one value or a grid of them (e.g. the α values of a sweep). A
    scalar is checked by ``inner`` and returned as it is converted, except a string (one name,
    e.g. ``"ndcg"``), which becomes a list of one; a list, tuple or 1-d array becomes a list of
    checked values; an entry's error names it as ``name[i]``.

    Parameters
    ----------
    inner : Constraint
        The constraint each value satisfies.
    max_size : int, default 10000
        Most values in a sequence; more raise :class:`~ocef.errors.ResourceLimitError`.

    Examples
    --------
    >>> alphas = OneOrMore(Real(0, 1, closed="right"))
    >>> alphas.check("alpha", 0.2), alphas.check("alpha", (0.1, 0.5))
    (0.2, [0.1, 0.5])
    """

    def __init__(self, inner: Constraint, max_size: int = 10_000):
        self.inner, self.max_size = inner, max_size

    def describe(self) -> str:
        return f"{self.inner.describe()}, or a non-empty sequence of them"

    def check(self, name, value):
        if isinstance(value, str):              # one name ("ndcg"), not its characters: a list of one
            try:
                return [self.inner.check(name, value)]
            except (ParameterError, ParameterTypeError):
                raise ParameterTypeError(f"{name} must be {self.describe()}, got {value!r}") from None
        if isinstance(value, (bytes, dict, set)):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {value!r}")
        if isinstance(value, (list, tuple, np.ndarray)):
            arr = np.asarray(value, dtype=object)
            if arr.ndim != 1 or arr.size == 0:
                raise ParameterError(f"{name} must be {self.describe()}, got {value!r}")
            if arr.size > self.max_size:
                raise ResourceLimitError(f"{name} has {arr.size} values, above the limit {self.max_size}")
            return [self.inner.check(f"{name}[{i}]", v) for i, v in enumerate(arr.tolist())]
        return self.inner.check(name, value)

    def invalid_values(self) -> list:
        return [[], "0.1"] + [v for v in self.inner.invalid_values() if not isinstance(v, (list, str, bytes))][:4]


class Instance(Constraint):
    """An instance of one of ``types`` (e.g. a pandas DataFrame).

    ``check`` returns the value unchanged.

    Parameters
    ----------
    *types : type
        The accepted classes (subclasses included, as ``isinstance``).
    none : bool, default False
        Accept None too.

    Examples
    --------
    >>> table = Instance(pd.DataFrame, none=True)
    >>> table, table.check("table", None)
    (a DataFrame or None, None)
    """

    def __init__(self, *types, none: bool = False):
        self.types, self.none = types, none

    def describe(self) -> str:
        names = " or ".join(t.__name__ for t in self.types)
        return f"a {names}" + (" or None" if self.none else "")

    def check(self, name, value):
        if value is None and self.none:
            return value
        if not isinstance(value, self.types):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {type(value).__name__}")
        return value

    def invalid_values(self) -> list:
        return [v for v in (3.5, "text") if not isinstance(v, self.types)]


class Name(Instance):
    """A non-empty string naming something of the input (a column, a group); ``""`` is refused.

    ``check`` returns the value unchanged. An empty name would otherwise surface later as a
    missing column ``''`` that names no parameter.

    Parameters
    ----------
    none : bool, default False
        Accept None too.

    Examples
    --------
    >>> Name(none=True).check("user_group", "gender"), Name(none=True)
    ('gender', a non-empty str or None)
    """

    def __init__(self, none: bool = False):
        super().__init__(str, none=none)

    def describe(self) -> str:
        return "a non-empty str" + (" or None" if self.none else "")

    def check(self, name, value):
        value = super().check(name, value)
        if value == "":
            raise ParameterError(f"{name} must be {self.describe()} (a column name), got {value!r}")
        return value

    def invalid_values(self) -> list:
        return [3.5, ""]


class Label(Constraint):
    """One label of a group: a string or a number (any numpy scalar), not a sequence or an array.

    ``check`` returns the value unchanged. A list or an array here would reach a membership test
    (``label in groups``) and fail there with numpy's "truth value ... is ambiguous".

    Examples
    --------
    >>> Label().check("reference", "m"), Label()
    ('m', a group label (a string or a number))
    """

    def describe(self) -> str:
        return "a group label (a string or a number)"

    def check(self, name, value):
        if not np.isscalar(value):
            raise ParameterTypeError(f"{name} must be {self.describe()}, got {type(value).__name__}")
        return value

    def invalid_values(self) -> list:
        return [["a"], np.array([1, 2]), {"a": 1}]


class Either(Constraint):
    """Any one of several constraints (the first that accepts the value decides the conversion).

    For parameters with a keyword and a range, such as FairRec's ``epsilon="auto"`` or a number
    in (0, 1]. When no option accepts the value the message lists them all; the error is a
    :class:`~ocef.errors.ParameterTypeError` for a value that is neither a number nor a string,
    else a :class:`~ocef.errors.ParameterError`.

    Parameters
    ----------
    *options : Constraint
        The alternatives, tried in order.

    Examples
    --------
    >>> epsilon = Either(Options("auto"), Real(0, 1, closed="right"))
    >>> epsilon.check("epsilon", "auto"), epsilon.check("epsilon", 0.1)
    ('auto', 0.1)
    """

    def __init__(self, *options: Constraint):
        self.options = options

    def describe(self) -> str:
        return " or ".join(o.describe() for o in self.options)

    def check(self, name, value):
        for option in self.options:
            try:
                return option.check(name, value)
            except (ParameterError, ParameterTypeError):
                continue
        cls = ParameterTypeError if not _is_real(value) and not isinstance(value, str) else ParameterError
        raise cls(f"{name} must be {self.describe()}, got {value!r}")

    def invalid_values(self) -> list:
        def rejected(v):
            try:
                self.check("x", v)
            except (ParameterError, ParameterTypeError):
                return True
            return False
        return [v for o in self.options for v in o.invalid_values() if rejected(v)]


class OrNone(Constraint):
    """None, or a value satisfying ``inner`` (whose errors name what is wrong with it).

    Parameters
    ----------
    inner : Constraint
        The constraint of a value that is not None.

    Examples
    --------
    >>> k = OrNone(Integer(1))
    >>> k.check("k", None), k.check("k", 3)
    (None, 3)
    """

    def __init__(self, inner: Constraint):
        self.inner = inner

    def describe(self) -> str:
        return f"None or {self.inner.describe()}"

    def check(self, name, value):
        return None if value is None else self.inner.check(name, value)

    def invalid_values(self) -> list:
        return [v for v in self.inner.invalid_values() if v is not None]


#: Shorthands for the parameters every audit shares (OCEF's α, δ, ε; a confidence level; ...).
UNIT_OPEN = Real(0, 1, closed="neither")
UNIT_HALF_OPEN = Real(0, 1, closed="right")
CONFIDENCE = Real(0, 1, closed="neither")

#: Every front door decorated with :func:`validate_params`: qualified name -> (function, declarations).
DECLARED: dict[str, tuple] = {}


def _registrable(func) -> bool:
    """Whether ``func`` belongs in the registries: defined in a source file, not in a doctest or
    ``exec`` (a docstring's example runs with its module's globals, so its functions would otherwise
    be registered under that module's name, and the registry would depend on test order)."""
    return not func.__code__.co_filename.startswith("<")


def validate_params(**declarations: Constraint):
    """Decorator: check the declared parameters of a front door before its body runs.

    One declaration per parameter; the Python API and the command line (which calls the API) share
    it, and ``tests/test_parameter_checks.py`` generates its invalid values from :data:`DECLARED`.
    Checked values are passed on converted to plain Python types (``np.float64(0.1)`` → ``0.1``).

    Parameters
    ----------
    **declarations : Constraint
        ``name=constraint`` for each parameter to check (a parameter left undeclared is the
        function's own business, e.g. a data array checked by a dedicated function).

    Returns
    -------
    callable
        The decorator. The decorated function keeps its name, docstring and signature, carries
        its declarations as ``__declared_params__`` and is registered in :data:`DECLARED`.

    Raises
    ------
    ocef.errors.ParameterError
        (when decorating) a declared name that is not a parameter of the function.
    ocef.errors.ParameterTypeError
        (when called) arguments that do not bind to the signature (a missing or unknown one).

    Examples
    --------
    >>> @validate_params(k=Integer(1))
    ... def top(k=10):
    ...     return k
    >>> top(k=3)
    3
    """
    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(declarations) - set(signature.parameters)
        if unknown:
            raise ParameterError(f"{func.__qualname__}: declared parameter(s) {sorted(unknown)} not in its signature")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise ParameterTypeError(f"{func.__qualname__.replace('.__init__', '')}: {exc}") from None
            for name, constraint in declarations.items():
                if name in bound.arguments:
                    bound.arguments[name] = constraint.check(name, bound.arguments[name])
            return func(*bound.args, **bound.kwargs)

        wrapper.__declared_params__ = dict(declarations)
        if _registrable(func):
            DECLARED[f"{func.__module__}.{func.__qualname__}"] = (wrapper, dict(declarations))
        return wrapper
    return decorate


# --------------------------------------------------------------------------- resource limits
def parse_size(text: str, name: str) -> float:
    """A number of bytes written with an optional binary unit: ``"512M"``, ``"2GB"``, ``"1.5GiB"``, ``"4096"``.

    Parameters
    ----------
    text : str
        The size; ``K``, ``M``, ``G``, ``T`` are powers of 1024, with or without ``B``/``iB``.
    name : str
        The option or variable, for the message.

    Returns
    -------
    float
        The size in bytes (positive).

    Raises
    ------
    ocef.errors.ParameterError
        When ``text`` is not a positive size.

    Examples
    --------
    >>> parse_size("2GB", "--memory-limit"), parse_size("512MiB", "--memory-limit")
    (2147483648.0, 536870912.0)
    """
    units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in units and t[-1:] else ""
    try:
        value = float(t[: len(t) - len(unit)]) * units[unit]
    except ValueError:
        raise ParameterError(f"{name} must be a number of bytes (e.g. 8G), got {text!r}") from None
    if not value > 0:
        raise ParameterError(f"{name} must be positive, got {text!r}")
    if not np.isfinite(value):                      # "1e400GB": inf bytes, then NaN MiB (issue 28)
        raise ParameterError(f"{name} must be a finite size (e.g. 8G), got {text!r}")
    return value


#: Documented default limits: ``memory`` in bytes (4 GiB) that one call may allocate for its own
#: arrays, ``work`` in elementary steps (arm pulls, resampled cells, served items, ...): 10**11, about a
#: quarter of an hour for the fastest engine (numba, ~10**8 arm pulls per second), more for the others.
DEFAULT_LIMITS = {"memory": 4 * 2**30, "work": 10**11}
_OVERRIDE: dict[str, float] = {}


def limit(kind: str) -> float:
    """The limit in force for ``kind`` ("memory" or "work"): :func:`resource_limits` if active, else the
    environment variable ``OCEF_MAX_MEMORY`` / ``OCEF_MAX_WORK``, else :data:`DEFAULT_LIMITS`.

    The environment variables take a number of bytes or steps with an optional binary suffix
    (``8G``, ``512M``, ``1e12``).

    Parameters
    ----------
    kind : {"memory", "work"}
        Bytes one call may allocate, or elementary steps it may take.

    Returns
    -------
    float
        The limit (``math.inf``: none).

    Raises
    ------
    ocef.errors.ParameterError
        An environment variable that is not a positive size.
    KeyError
        An unknown ``kind``.

    Examples
    --------
    >>> with resource_limits(work=1e6):
    ...     limit("work")
    1000000.0
    >>> DEFAULT_LIMITS["memory"] == 4 * 2**30
    True
    """
    if kind in _OVERRIDE:
        return _OVERRIDE[kind]
    env = os.environ.get(f"OCEF_MAX_{kind.upper()}")
    if env:
        return parse_size(env, f"OCEF_MAX_{kind.upper()}")
    return DEFAULT_LIMITS[kind]


@contextlib.contextmanager
def resource_limits(*, memory: float | None = None, work: float | None = None):
    """Within the block, allow ``memory`` bytes and ``work`` steps per call (``math.inf``: no limit).

    Overrides the environment variables and :data:`DEFAULT_LIMITS` for every
    :func:`check_resources` while the block runs (a module-level setting: it applies to other
    threads too); the previous limits come back when it ends, even on an error. Blocks nest.

    Parameters
    ----------
    memory : float, optional
        Bytes allowed (> 0); None keeps the limit in force.
    work : float, optional
        Elementary steps allowed (> 0); None keeps the limit in force.

    Yields
    ------
    None

    Raises
    ------
    ocef.errors.ParameterError, ocef.errors.ParameterTypeError
        A limit that is not a positive number.

    Examples
    --------
    >>> from ocef.validation import resource_limits, limit
    >>> with resource_limits(memory=2**20):
    ...     limit("memory")
    1048576.0
    """
    saved = dict(_OVERRIDE)
    for kind, value in (("memory", memory), ("work", work)):
        if value is not None:
            _OVERRIDE[kind] = Real(0, math.inf, closed="right").check(kind, value)
    try:
        yield
    finally:
        _OVERRIDE.clear()
        _OVERRIDE.update(saved)


def _human(n: float, unit: str) -> str:
    if unit == "B":
        for suffix, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if n >= size:
                return f"{n / size:.3g} {suffix}"
        return f"{n:.0f} B"
    return f"{n:.3g} {unit}"


def check_resources(argument: str, *, memory: float = 0.0, work: float = 0.0, what: str = "") -> None:
    """Refuse, before allocating, a call estimated to need more than the limits in force.

    Parameters
    ----------
    argument : str
        The argument(s) the estimate grows with, named in the message (e.g. ``"trials"``).
    memory : float
        Estimated bytes the call allocates.
    work : float
        Estimated elementary steps.
    what : str
        What the steps are, for the message (e.g. ``"arm pulls"``).

    Raises
    ------
    ResourceLimitError
        Naming the argument, the estimate, the limit and how to raise it.

    Examples
    --------
    >>> check_resources("trials", memory=8 * 1000)
    >>> try:
    ...     check_resources("n_items", memory=2.0**60)
    ... except ValueError as e:
    ...     print(str(e)[:59])
    n_items: needs about 1 EiB of memory, above the limit 4 GiB
    """
    for kind, amount, unit in (("memory", memory, "B"), ("work", work, what or "steps")):
        cap = limit(kind)
        if not math.isfinite(amount) or amount > cap:
            shown = "an unbounded amount" if not math.isfinite(amount) else (
                "about 1 EiB" if unit == "B" and amount >= 2**60 else f"about {_human(amount, unit)}")
            raise ResourceLimitError(
                f"{argument}: needs {shown} of {kind}, above the limit {_human(cap, unit)} "
                f"(set OCEF_MAX_{kind.upper()} or use ocef.validation.resource_limits({kind}=...) to allow more)")

