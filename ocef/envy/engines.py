"""One engine vocabulary for every simulation (``run_batch``, ``run_bandits``, ``run_audit``,
the benchmarks and every ``--engine`` of the command line).

- ``"numba"``: compiled (:mod:`ocef.envy._kernel`); each run goes to its verdict with its own seed, runs
  spread over the cores. Needs rewards given as a finite distribution
  (:class:`ocef.envy.runner.DiscreteRewards`: Bernoulli/binomial bandits, the audit's exact PULL-ARM).
- ``"numpy"``: all runs advance in lock-step with array operations; accepts any reward callback.
- ``"ask-tell"``: the :class:`ocef.OCEF` class, one step at a time (for a full audit: the literal
  PULL-ARM of Algorithm 2); the reference semantics, slow.
- ``"auto"``: ``"numba"`` when the rewards are a finite distribution and there are at least
  :data:`AUTO_NUMBA_MIN_RUNS` runs and numba's cache holds the compiled kernel (importing numba
  and loading it takes about a second: more than a few runs take with numpy), or at least
  :data:`AUTO_NUMBA_COLD_MIN_RUNS` runs when it does not (the first compilation takes 7-40 s,
  more than the numpy engine takes below that), else ``"numpy"``. So the first run after
  installation costs what the later ones cost; ``engine="numba"`` compiles (and caches) the kernel.
"""
from __future__ import annotations
from ocef.errors import ParameterError

ENGINES = ("auto", "numba", "numpy", "ask-tell")
#: ``"auto"`` uses the compiled engine from this many runs on, when it is in numba's cache.
AUTO_NUMBA_MIN_RUNS = 64
#: ... and from this many runs on when it must first be compiled (benchmarks/first_run.py).
AUTO_NUMBA_COLD_MIN_RUNS = 5000

#: Help text of every ``--engine`` option.
ENGINE_HELP = ("simulation engine: numba (compiled, the fastest on many runs), numpy (vectorized lock-step), "
               "ask-tell (the OCEF class step by step; the reference semantics, slow); auto = numba from "
               f"{AUTO_NUMBA_MIN_RUNS} runs on once compiled (from {AUTO_NUMBA_COLD_MIN_RUNS} runs before its first "
               "compilation), numpy below (default: auto)")


def check_engine(engine, allowed: tuple[str, ...] = ENGINES) -> str:
    """Check a simulation engine name against :data:`ENGINES`.

    Parameters
    ----------
    engine : str
        The engine asked for: ``"auto"``, ``"numba"``, ``"numpy"`` or ``"ask-tell"``.
    allowed : tuple of str
        The engines the caller supports (``run_batch`` has no ``"ask-tell"``).

    Returns
    -------
    str

    Examples
    --------
    >>> check_engine("ask-tell", ("auto", "numba", "numpy"))
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: engine must be one of 'auto', 'numba', 'numpy', got 'ask-tell'
    """
    if not isinstance(engine, str) or engine not in allowed:
        raise ParameterError(f"engine must be one of {', '.join(map(repr, allowed))}, got {engine!r}")
    return engine


def resolve_engine(engine: str, discrete: bool, n_runs: int | None = None) -> str:
    """The engine ``"auto"`` stands for (rule in the module docstring); others are returned as is.

    Parameters
    ----------
    engine : str
        A checked engine name (:func:`check_engine`).
    discrete : bool
        Whether the rewards are a finite distribution (the compiled engine needs one).
    n_runs : int, optional
        Number of simulated runs; None when not known in advance.

    Returns
    -------
    str

    Examples
    --------
    >>> resolve_engine("auto", discrete=True, n_runs=10_000), resolve_engine("auto", discrete=True, n_runs=10)
    ('numba', 'numpy')
    """
    if engine == "auto":
        if not discrete or (n_runs is not None and n_runs < AUTO_NUMBA_MIN_RUNS):
            return "numpy"
        if n_runs is None or n_runs >= AUTO_NUMBA_COLD_MIN_RUNS:
            return "numba"
        from ocef.envy import _kernel          # imports numba: only where numba is a candidate

        return "numba" if _kernel.is_cached() else "numpy"
    return engine
