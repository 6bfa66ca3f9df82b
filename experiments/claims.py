"""The papers' claims, checked by code against an experiment's own results.

An experiment module may declare ``CLAIMS: list[Claim]``. After the experiment has run, each
claim's ``check`` receives the experiment's tidy results (the DataFrame it wrote to
``NAME.csv``) and returns a :class:`Verdict`: one of four words, each from the statistical test
the paper's sentence implies (the claim's ``test``):

``holds``
    the data support the claim at the test's level (e.g. the 95% interval of a slope lies wholly
    on the claimed side of 0);
``contradicted``
    the data support the opposite (the interval lies wholly on the other side, a rate is below
    the claimed one at the test's level, a deterministic property is violated);
``inconclusive``
    neither (the interval contains 0, too few points for an interval, too few positives): the
    ``reason`` says what would settle it;
``unchecked``
    this run cannot compute it (a quick grid without the needed points, a missing partition, a
    check that failed).

Every verdict other than ``holds`` carries a one-line ``reason``. A check may still return the
older ``(holds, evidence)`` pair: ``True`` is ``holds``; ``False`` becomes the claim's
``if_false`` verdict (``"inconclusive"`` unless the claim declares that a failure of its yes/no
check is a contradiction), ``None`` is ``unchecked``. A check never fails the run: an exception
inside it is reported as ``unchecked`` with the exception as the reason.

A claim may also carry the paper's own number (``paper_value``, with ``paper_source`` saying
where it is printed); the check's :attr:`Verdict.value` is our number on the same scale, and the
report prints both and their difference.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Union
from ocef.errors import ParameterError

import numpy as np
import pandas as pd

#: The four verdicts, in the order the report lists them.
VERDICTS = ("holds", "contradicted", "inconclusive", "unchecked")

#: MovieLens-1M (what the OCEF and FairRec papers used) vs MovieLens-100K (what is available offline).
ML_1M = "MovieLens-1M (6,040 users, 3,706 rated movies, 1,000,209 ratings)"
#: What the OCEF paper (Sec. 6, App. D.2) made of MovieLens-1M.
OCEF_ML_1M = ("MovieLens-1M cut to the 2,000 users x 2,000 items with most ratings (120 age-occupation groups, "
              "9 of them envious at 50 factors)")
ML_100K = "MovieLens-100K (943 users, 1,682 items, 100,000 ratings)"
#: The same facts on ML-100K (README "Data"), named in the reasons of OCEF's claims.
OCEF_ML_100K = "ML-100K (943 users; 86 age-occupation groups, 61 of them ε-envious at 50 factors)"
#: The reason's note when a paper's MovieLens-1M claim is checked on MovieLens-100K.
ML_NOTE = ("measured on ML-100K (943 users, 1,682 items); the paper used ML-1M (6,040 users, 3,706 movies), "
           "which is not available offline")


class NotCheckable(ValueError):
    """Raised by a check when this run's results do not contain what the claim is about (e.g. a
    quick run without the partition it names): the claim is reported as ``unchecked``."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of one claim's check.

    Parameters
    ----------
    verdict : {"holds", "contradicted", "inconclusive", "unchecked"}
        The word (see the module docstring).
    evidence : str
        The numbers behind it, in one line, as plain numbers.
    reason : str or None
        Why the verdict is not ``holds`` (required then; ``None`` for ``holds``).
    value : float or None
        Our number on the scale of the claim's ``paper_value`` (``None`` where there is none).

    Examples
    --------
    >>> Verdict("inconclusive", "slope 0.1 [-0.2, 0.4] (n=5)", "the interval contains 0").verdict
    'inconclusive'
    """

    verdict: str
    evidence: str
    reason: str | None = None
    value: float | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ParameterError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != "holds" and not self.reason:
            raise ParameterError(f"a {self.verdict!r} verdict needs a reason")

    @property
    def holds(self) -> bool | None:
        """``True`` for holds, ``None`` for unchecked, else ``False``."""
        return True if self.verdict == "holds" else (None if self.verdict == "unchecked" else False)

    def __iter__(self):
        """``holds, evidence = verdict``: the older ``(holds, evidence)`` pair."""
        return iter((self.holds, self.evidence))

    def __getitem__(self, i):
        return (self.holds, self.evidence)[i]


Check = Callable[[pd.DataFrame], Union[Verdict, "tuple[bool | None, str]"]]


@dataclass(frozen=True)
class Claim:
    """One claim of a paper.

    Parameters
    ----------
    figure : str
        Where it is (e.g. "Fig. 8", "Table 2").
    text : str
        What it says: the paper's sentence or a faithful paraphrase.
    check : callable
        ``check(results) -> Verdict`` (or the older ``(holds, evidence)`` pair).
    test : str
        The statistical test the sentence implies and its level (shown beside the verdict).
    paper_value : float, str or None
        The number the paper prints for this claim (a table cell, a stated value or count);
        ``None`` where it prints none.
    paper_source : str
        Where the paper prints it (e.g. "Table 2, MovieLens-1M, mean over models").
    if_false : {"contradicted", "inconclusive"}
        Verdict of an older check's bare ``False``: ``"contradicted"`` only where the check is a
        test of the opposite (a deterministic property, a rejected rate).
    reason_if_false : str
        The reason given with that verdict.
    quick : str or None
        When set, the quick grid cannot test the claim and this says why: in a quick run the claim
        is ``unchecked`` with this reason (the evidence is still shown).
    paper_data : str or None
        The data set the paper used when it differs from what a run may use (e.g. :data:`ML_1M`):
        a non-``holds`` verdict on another data set names both in its reason.

    Examples
    --------
    >>> c = Claim("Fig. 0", "y increases with x", lambda df: trend(df, "x", "y", sign=+1))
    >>> [r["verdict"] for r in check_claims([c], pd.DataFrame({"x": [1, 2, 3, 4], "y": [1, 3, 4, 7]}))]
    ['holds']
    """

    figure: str
    text: str
    check: Check
    test: str = ""
    paper_value: float | str | None = None
    paper_source: str = ""
    if_false: str = "inconclusive"
    reason_if_false: str = "the check's criterion is not met, and no test of the opposite was made"
    quick: str | None = None
    paper_data: str | None = None

    def __post_init__(self):
        if self.if_false not in ("contradicted", "inconclusive"):
            raise ParameterError(f"if_false must be 'contradicted' or 'inconclusive', got {self.if_false!r}")


def plain(x) -> str:
    """A number as plain text (``np.int64(1)`` -> ``1``, ``np.float64(0.5)`` -> ``0.5``).

    Examples
    --------
    >>> plain(np.int64(1)), plain(np.float64(0.25)), plain(1234567.0)
    ('1', '0.25', '1.23e+06')
    """
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.3g}"
    return str(x)


def _as_verdict(claim: Claim, out) -> Verdict:
    if isinstance(out, Verdict):
        return out
    holds, evidence = out
    evidence = str(evidence)
    if holds is None:
        return Verdict("unchecked", evidence, "the check could not decide on this run's results")
    if bool(holds):
        return Verdict("holds", evidence)
    return Verdict(claim.if_false, evidence, claim.reason_if_false)


def _paper_fields(claim: Claim, value) -> dict:
    """``paper_value``, ``paper_source``, ``ours`` (where the paper prints a number) and ``difference``
    (ours - paper, where both are numbers)."""
    ours = None if claim.paper_value is None or value is None or not np.isfinite(float(value)) else float(value)
    diff = None
    if isinstance(claim.paper_value, (int, float)) and ours is not None:
        diff = ours - float(claim.paper_value)
    return {"paper_value": claim.paper_value, "paper_source": claim.paper_source or None,
            "ours": ours, "difference": diff}


def check_claims(claims: list[Claim], results: pd.DataFrame, *, quick: bool = False,
                 dataset: str = "") -> list[dict]:
    """Run every check on ``results``.

    Parameters
    ----------
    claims : list of Claim
    results : pandas.DataFrame
        The experiment's tidy results (its ``NAME.csv``).
    quick : bool, default False
        A quick run: claims declaring ``quick`` are ``unchecked`` with that reason.
    dataset : str
        The data set the run used; with a claim's ``paper_data`` it names both in the reason.

    Returns
    -------
    list of dict
        One per claim: ``figure, claim, test, verdict, reason, evidence, paper_value,
        paper_source, ours, difference`` and ``holds`` (``True`` for ``holds``, ``None`` for
        ``unchecked``, else ``False``; kept for older readers).

    Examples
    --------
    >>> c = Claim("Fig. 0", "y increases", lambda df: trend(df, "x", "y", sign=+1))
    >>> r = check_claims([c], pd.DataFrame({"x": [1, 2, 3], "y": [1, 0, 2]}))[0]
    >>> r["verdict"], r["reason"].startswith("the 95% interval of the common slope contains 0")
    ('inconclusive', True)
    """
    out = []
    for c in claims:
        try:
            v = _as_verdict(c, c.check(results))
        except NotCheckable as exc:  # e.g. a quick run without the partition the claim is about
            v = Verdict("unchecked", f"not checkable in this run: {exc}",
                        f"{'quick grid' if quick else 'this run'} lacks it: {exc}")
        except Exception as exc:  # a broken check is reported, never raised
            v = Verdict("unchecked", f"check failed: {type(exc).__name__}: {exc}",
                        f"the check failed: {type(exc).__name__}: {exc}")
        verdict, reason = v.verdict, v.reason
        if quick and c.quick and verdict != "unchecked":
            verdict, reason = "unchecked", f"quick grid: {c.quick} (verdict on it would be {v.verdict})"
        else:
            if quick and verdict == "inconclusive":
                reason = f"{reason} [quick run]"
            if verdict in ("contradicted", "inconclusive") and c.paper_data and dataset \
                    and not _same_data(c.paper_data, dataset):
                reason = f"{reason}; {_data_note(c.paper_data, dataset, verdict)}"
        out.append({"figure": c.figure, "claim": c.text, "test": c.test or None, "verdict": verdict,
                    "reason": None if reason is None else plain_text(reason), "evidence": plain_text(v.evidence),
                    "holds": True if verdict == "holds" else (None if verdict == "unchecked" else False),
                    **_paper_fields(c, v.value)})
    return out


def _same_data(paper_data: str, dataset: str) -> bool:
    if "MovieLens-1M" in paper_data:
        return "ML-1M" in dataset or "MovieLens-1M" in dataset or "ml-1m" in dataset
    return paper_data in dataset


def _data_note(paper_data: str, dataset: str, verdict: str = "inconclusive") -> str:
    """The data-set note of a non-``holds`` verdict: ours and the paper's, named as facts. It does not
    explain a verdict away: a ``contradicted`` verdict says the gap is not attributed to the data set."""
    if "MovieLens-1M" in paper_data and ("100K" in dataset.upper() or "100k" in dataset):
        note = (f"measured on {OCEF_ML_100K}; the paper used ML-1M cut to 2,000 x 2,000 (120 groups, 9 envious), "
                "which is not available offline") if paper_data == OCEF_ML_1M else ML_NOTE
    else:
        note = f"measured on {dataset}; the paper used {paper_data}"
    if verdict == "contradicted":
        note += " (nothing here shows that the data set explains the gap)"
    return note


_NUMPY_REPR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str)_?\d*\((.*?)\)")


def plain_text(text: str) -> str:
    """``text`` with numpy scalar reprs shown plainly (``np.int64(1)`` -> ``1``).

    Examples
    --------
    >>> plain_text("factors: [np.int64(1), np.float64(0.5)]")
    'factors: [1, 0.5]'
    """
    return _NUMPY_REPR.sub(r"\1", str(text))


def verdict_counts(rows: list[dict]) -> dict[str, int]:
    """Number of claims per verdict (all four keys, in :data:`VERDICTS` order).

    Examples
    --------
    >>> verdict_counts([{"verdict": "holds"}, {"verdict": "unchecked"}])
    {'holds': 1, 'contradicted': 0, 'inconclusive': 0, 'unchecked': 1}
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for r in rows:
        counts[r["verdict"]] += 1
    return counts


# --------------------------------------------------------------------------- helpers for checks
#: Fewest distinct x values a trend is judged on: a slope's t interval needs n - 2 >= 1.
MIN_TREND_POINTS = 3


@dataclass(frozen=True)
class Slope:
    """Least-squares slope with its 95% confidence interval (Student t, n - 1 - groups degrees of
    freedom; NaN bounds when there are none)."""

    slope: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if not (np.isfinite(self.low) and np.isfinite(self.high)):
            return f"slope {self.slope:.3g} (n={self.n}, no interval)"
        return f"slope {self.slope:.3g} [{self.low:.3g}, {self.high:.3g}] (n={self.n})"


def fit_slope(x, y, *, logx: bool = False, logy: bool = False, groups=None) -> Slope:
    """Slope of ``y`` on ``x`` (optionally in logs) with its 95% interval. With ``groups`` the
    fit has one intercept per group (a common slope, "fixed effects"): the x and y values are
    centred within each group and the degrees of freedom are ``n - 1 - n_groups``.

    Examples
    --------
    >>> s = fit_slope([1, 2, 3, 4], [2, 4, 6, 8.5])
    >>> round(s.slope, 2), s.n
    (2.15, 4)
    """
    from scipy import stats

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if logx:
            x = np.log(x)
        if logy:
            y = np.log(y)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if groups is None:
        n_groups = 1
        xc, yc = x - x.mean(), y - y.mean()
    else:                                     # centred within each group
        g = np.asarray(groups)[ok]
        n_groups = pd.Series(g).nunique()
        xc = x - pd.Series(x).groupby(g).transform("mean").to_numpy()
        yc = y - pd.Series(y).groupby(g).transform("mean").to_numpy()
    n = len(xc)
    sxx = float(np.sum(xc ** 2))
    if n < 2 or sxx == 0:
        raise ParameterError(f"cannot fit a slope on {n} point(s) with distinct x")
    b = float(np.sum(xc * yc) / sxx)
    dof = n - 1 - n_groups
    if dof < 1:
        return Slope(b, float("nan"), float("nan"), n)
    resid = yc - b * xc
    se = float(np.sqrt(np.sum(resid ** 2) / dof / sxx))
    t = float(stats.t.ppf(0.975, dof))
    return Slope(b, b - t * se, b + t * se, n)


def slope_verdict(s: Slope, *, sign: int, what: str = "slope") -> Verdict:
    """Verdict on "the slope is > 0" (``sign=+1``) or "< 0" (``sign=-1``) from its 95% interval:
    wholly on the claimed side -> holds; wholly on the other -> contradicted; containing 0 or
    missing -> inconclusive.

    Examples
    --------
    >>> slope_verdict(Slope(1.0, 0.5, 1.5, 5), sign=-1).verdict
    'contradicted'
    >>> slope_verdict(Slope(-1.0, -2.0, 0.5, 5), sign=-1).verdict
    'inconclusive'
    >>> slope_verdict(Slope(-1.0, float("nan"), float("nan"), 3), sign=-1).verdict
    'inconclusive'
    """
    ev = str(s).replace("slope", what, 1)
    if not (np.isfinite(s.low) and np.isfinite(s.high)):
        return Verdict("inconclusive", ev, f"no interval for the {what} on {s.n} points: more grid points would "
                                           "settle it", s.slope)
    claimed = s.high < 0 if sign < 0 else s.low > 0
    opposite = s.low > 0 if sign < 0 else s.high < 0
    if claimed:
        return Verdict("holds", ev, None, s.slope)
    if opposite:
        return Verdict("contradicted", ev, f"the 95% interval of the {what} lies wholly "
                                           f"{'above' if sign < 0 else 'below'} 0: the opposite trend", s.slope)
    return Verdict("inconclusive", ev, f"the 95% interval of the {what} contains 0 ({s.n} points): more grid "
                                       "points or trials would settle it", s.slope)


def trend(df: pd.DataFrame, x: str, y: str, *, sign: int, by: str | None = None, logx: bool = False,
          logy: bool = False) -> Verdict:
    """Does ``y`` decrease (``sign=-1``) or increase (``sign=+1``) with ``x``?

    The test is the 95% t interval of the common slope (one intercept per ``by`` group), judged
    by :func:`slope_verdict`; a trend needs at least :data:`MIN_TREND_POINTS` distinct ``x``
    values (fewer: :class:`NotCheckable`, reported ``unchecked``: the grid lacks the points). ``holds`` further needs every
    group's own slope to have the claimed sign (else ``inconclusive``, naming the groups).

    Examples
    --------
    >>> df = pd.DataFrame({"x": [1, 2, 3, 4, 5], "y": [5.0, 4.1, 2.9, 2.2, 0.8]})
    >>> trend(df, "x", "y", sign=-1).verdict, trend(df, "x", "y", sign=+1).verdict
    ('holds', 'contradicted')
    >>> trend(df.head(2), "x", "y", sign=-1)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    ocef.experiments.claims.NotCheckable: the grid has 2 value(s) of x; a trend needs at least 3
    """
    distinct = df[x].nunique()
    if distinct < MIN_TREND_POINTS:
        raise NotCheckable(f"the grid has {distinct} value(s) of {x}; a trend needs at least {MIN_TREND_POINTS}")
    common = fit_slope(df[x], df[y], logx=logx, logy=logy, groups=None if by is None else df[by])
    v = slope_verdict(common, sign=sign, what=f"common {'log-log ' if logx and logy else ''}slope")
    parts = [v.evidence]
    if by is None:
        return v
    own = {}
    for key, part in df.groupby(by, sort=False):
        if part[x].nunique() > 1:
            own[key] = fit_slope(part[x], part[y], logx=logx, logy=logy).slope
    parts.append("per " + by + ": " + ", ".join(f"{plain(k)} {v_:.3g}" for k, v_ in own.items()))
    evidence = "; ".join(parts)
    against = [plain(k) for k, s in own.items() if np.sign(s) != sign]
    if v.verdict == "holds" and against:
        return Verdict("inconclusive", evidence, f"the common slope supports it but the own slope of {by} "
                                                 f"{', '.join(against)} has the opposite sign", v.value)
    return Verdict(v.verdict, evidence, v.reason, v.value)


def rate_at_least(successes: int, trials: int, rate: float, level: float = 0.05, *,
                  what: str = "rate") -> Verdict:
    """Is a success rate at least ``rate``? One-sided exact binomial test at ``level``:
    ``contradicted`` when P(X <= successes | rate) < level (the rate is significantly below),
    else ``holds`` (consistent with the claim). Evidence: the count, the share and its 95% Wilson
    interval (inside [0, 1]) and the p-value.

    Examples
    --------
    >>> rate_at_least(95, 100, 0.95).verdict, rate_at_least(80, 100, 0.95).verdict
    ('holds', 'contradicted')
    """
    from scipy import stats

    from ocef.inference import wilson_interval

    successes, trials = int(successes), int(trials)
    if trials == 0:
        return Verdict("inconclusive", "0 trials", "no trials: nothing to test")
    p = float(stats.binom.cdf(successes, trials, rate))
    low, high = (float(v) for v in wilson_interval(successes, trials))
    ev = (f"{successes}/{trials} = {successes / trials:.1%} [{low:.1%}, {high:.1%}] "
          f"(P(X<={successes} | {rate:.0%}) = {p:.3g})")
    if p < level:
        return Verdict("contradicted", ev, f"the {what} is significantly below {rate:.0%} (one-sided binomial "
                                           f"p = {p:.3g} < {level:g})", successes / trials)
    return Verdict("holds", ev, None, successes / trials)


def consistent_rate(successes: int, trials: int, rate: float, level: float = 0.05) -> Verdict:
    """Alias of :func:`rate_at_least` (older name).

    Examples
    --------
    >>> consistent_rate(9, 10, 0.9).verdict
    'holds'
    """
    return rate_at_least(successes, trials, rate, level)


def require(df: pd.DataFrame, column: str, values) -> pd.DataFrame:
    """Rows of ``df`` whose ``column`` is in ``values``; :class:`NotCheckable` (claim ``unchecked``
    in this run, e.g. a quick run without that partition) when there are none.

    Examples
    --------
    >>> len(require(pd.DataFrame({"p": ["a", "b"]}), "p", ["a"]))
    1
    """
    sub = df[df[column].isin(list(values))]
    if sub.empty:
        raise NotCheckable(f"no rows with {column} in {[plain(v) for v in values]}")
    return sub


def slope_near(s: Slope, target: float, tol: float, *, what: str = "log-log slope") -> Verdict:
    """Verdict on "the slope is ``target`` (within ``tol``)", e.g. MSE ~ 1/n (slope -1):
    ``holds`` when the point slope is within ``tol`` of ``target`` and its 95% interval contains
    ``target``; ``contradicted`` when the interval lies wholly outside ``target ± tol``;
    else ``inconclusive``.

    Examples
    --------
    >>> slope_near(Slope(-0.98, -1.05, -0.91, 8), -1, 0.15).verdict
    'holds'
    >>> slope_near(Slope(-0.5, -0.6, -0.4, 8), -1, 0.15).verdict
    'contradicted'
    """
    ev = str(s).replace("slope", what, 1) + f" vs {target:g} ± {tol:g}"
    if not (np.isfinite(s.low) and np.isfinite(s.high)):
        return Verdict("inconclusive", ev, f"no interval for the {what} on {s.n} points", s.slope)
    if abs(s.slope - target) <= tol and s.low <= target <= s.high:
        return Verdict("holds", ev, None, s.slope)
    if s.high < target - tol or s.low > target + tol:
        return Verdict("contradicted", ev, f"the 95% interval of the {what} lies wholly outside "
                                           f"{target:g} ± {tol:g}", s.slope)
    return Verdict("inconclusive", ev, f"the 95% interval of the {what} [{s.low:.3g}, {s.high:.3g}] neither "
                                       f"settles on {target:g} ± {tol:g} nor excludes it", s.slope)
