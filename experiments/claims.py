"""The papers' claims, checked by code against an experiment's own results.

An experiment module may declare ``CLAIMS: list[Claim]``. After the experiment has run, each
claim's ``check`` receives the experiment's tidy results (the DataFrame it wrote to
``NAME.csv``) and returns ``(holds, evidence)``: whether the paper's statement holds on these
results, and the numbers behind the verdict in one line (e.g. ``"slope -0.93 [-1.02, -0.85]"``).
A check never fails the run: an exception inside it is reported as a claim that could not be
checked (``holds=None``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd

class NotCheckable(ValueError):
    """Raised by a check when this run's results do not contain what the claim is about (e.g. a
    quick run without the partition it names): the claim is reported as unchecked."""


Check = Callable[[pd.DataFrame], "tuple[bool, str]"]


@dataclass(frozen=True)
class Claim:
    """One claim of a paper: where it is (``figure``, e.g. "Fig. 8"), what it says (``text``, the
    paper's sentence or a faithful paraphrase) and how it is checked (``check``)."""

    figure: str
    text: str
    check: Check


def check_claims(claims: list[Claim], results: pd.DataFrame) -> list[dict]:
    """Run every check on ``results``; one dict per claim: ``figure, claim, holds, evidence``."""
    out = []
    for c in claims:
        try:
            holds, evidence = c.check(results)
            holds = bool(holds)
        except NotCheckable as exc:  # e.g. a quick run without the partition the claim is about
            holds, evidence = None, f"not checkable in this run: {exc}"
        except Exception as exc:  # a broken check is reported, never raised
            holds, evidence = None, f"check failed: {type(exc).__name__}: {exc}"
        out.append({"figure": c.figure, "claim": c.text, "holds": holds, "evidence": str(evidence)})
    return out


# --------------------------------------------------------------------------- helpers for checks
@dataclass(frozen=True)
class Slope:
    """Least-squares slope with its 95% confidence interval (Student t, n - 2 degrees of freedom;
    NaN bounds with fewer than 3 points)."""

    slope: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if self.n < 3:
            return f"slope {self.slope:.3g} (n={self.n}, no interval)"
        return f"slope {self.slope:.3g} [{self.low:.3g}, {self.high:.3g}] (n={self.n})"


def fit_slope(x, y, *, logx: bool = False, logy: bool = False, groups=None) -> Slope:
    """Slope of ``y`` on ``x`` (optionally in logs) with its 95% interval. With ``groups`` the
    fit has one intercept per group (a common slope, "fixed effects"): the x and y values are
    centred within each group and the degrees of freedom are ``n - 1 - n_groups``."""
    import numpy as np
    from scipy import stats

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
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
        raise ValueError(f"cannot fit a slope on {n} point(s) with distinct x")
    b = float(np.sum(xc * yc) / sxx)
    dof = n - 1 - n_groups
    if dof < 1:
        return Slope(b, float("nan"), float("nan"), n)
    resid = yc - b * xc
    se = float(np.sqrt(np.sum(resid ** 2) / dof / sxx))
    t = float(stats.t.ppf(0.975, dof))
    return Slope(b, b - t * se, b + t * se, n)


def trend(df: pd.DataFrame, x: str, y: str, *, sign: int, by: str | None = None, logx: bool = False,
          logy: bool = False) -> tuple[bool, str]:
    """Does ``y`` decrease (``sign=-1``) or increase (``sign=+1``) with ``x``? Holds when the common
    slope (one intercept per ``by`` group) has its whole 95% interval on that side and every
    group's own slope has that sign. Evidence: the common slope and each group's slope."""
    import numpy as np

    common = fit_slope(df[x], df[y], logx=logx, logy=logy, groups=None if by is None else df[by])
    holds = np.isfinite(common.high) and (common.high < 0 if sign < 0 else common.low > 0)
    parts = [f"common {'log-log ' if logx and logy else ''}{common}"]
    if by is not None:
        own = {}
        for key, part in df.groupby(by, sort=False):
            if part[x].nunique() > 1:
                own[key] = fit_slope(part[x], part[y], logx=logx, logy=logy).slope
        holds = holds and all(np.sign(v) == sign for v in own.values())
        parts.append("per " + by + ": " + ", ".join(f"{k} {v:.3g}" for k, v in own.items()))
    return bool(holds), "; ".join(parts)


def consistent_rate(successes: int, trials: int, rate: float, level: float = 0.05) -> tuple[bool, str]:
    """Is ``successes`` out of ``trials`` consistent with a success rate of at least ``rate``?
    One-sided binomial test at ``level``: holds unless P(X <= successes | rate) < level."""
    from scipy import stats

    p = float(stats.binom.cdf(successes, trials, rate))
    return p >= level, f"{successes}/{trials} = {successes / trials:.1%} (P(X<={successes} | {rate:.0%}) = {p:.3g})"


def require(df: pd.DataFrame, column: str, values) -> pd.DataFrame:
    """Rows of ``df`` whose ``column`` is in ``values``; ``ValueError`` (claim not checkable in this
    run, e.g. a quick run without that partition) when there are none."""
    sub = df[df[column].isin(list(values))]
    if sub.empty:
        raise NotCheckable(f"no rows with {column} in {list(values)}")
    return sub
