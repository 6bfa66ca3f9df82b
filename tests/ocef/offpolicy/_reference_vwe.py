"""Reference code vendored from VowpalWabbit/estimators, for the equality tests only.

Source: https://github.com/VowpalWabbit/estimators, commit 8ce3871 (2023-02-17, setup.py 0.2.2),
files src/estimators/math.py, bandits/{ips,snips,cressieread,gaussian,clopper_pearson,cs}.py,
slates/{pseudo_inverse,gaussian}.py. Copyright (c) 2020, Microsoft Corp and individual
contributors; BSD 3-Clause License (https://github.com/VowpalWabbit/estimators/blob/master/LICENSE).
Changes: each file's text is kept verbatim below and executed into its own module object
(``cressieread``, ``cs``, ...), except that the imports of ``estimators.*`` are removed (the names of
``math.py`` are put in each namespace instead) and the abstract ``base`` classes are dropped.
"""
# flake8: noqa
import types


def _module(name, source, extra=None):
    module = types.ModuleType(name)
    if extra is not None:
        module.__dict__.update({k: v for k, v in extra.__dict__.items() if not k.startswith("__")})
    exec(compile(source, f"vwe:{name}", "exec"), module.__dict__)
    return module


# ---- src/estimators/math.py
vwe_math = _module('vwe_math', r'''
from __future__ import annotations

from scipy.stats import beta  # type: ignore
from typing import List, Tuple


class IncrementalFsum:
    """Incremental version of https://en.wikipedia.org/wiki/Kahan_summation_algorithm"""

    def __init__(self) -> None:
        self.partials: List[float] = []

    def __iadd__(self, x: float) -> IncrementalFsum:
        i = 0
        for y in self.partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                self.partials[i] = lo
                i += 1
            x = hi
        self.partials[i:] = [x]
        return self

    @staticmethod
    def merge(*args: IncrementalFsum) -> IncrementalFsum:
        result = IncrementalFsum()
        for x in args:
            for y in x.partials:
                result += y
        return result

    def __float__(self) -> float:
        return sum(self.partials, 0.0)


def clopper_pearson(
    successes: float, n: float, alpha: float = 0.05
) -> Tuple[float, float]:
    lower_bound = (
        beta.ppf(alpha / 2, successes, n - successes + 1) if successes > 0 else 0
    )
    upper_bound = (
        beta.ppf(1 - alpha / 2, successes + 1, n - successes) if successes < n else 1
    )
    return (lower_bound, upper_bound)
''', None)

# ---- src/estimators/bandits/ips.py
ips = _module('ips', r'''
from __future__ import annotations

from typing import Optional


class Estimator:
    examples_count: float
    weighted_reward: float

    def __init__(self) -> None:
        self.examples_count = 0
        self.weighted_reward = 0

    def add_example(self, p_log: float, r: float, p_pred: float) -> None:
        self.examples_count += 1
        w = p_pred / p_log
        self.weighted_reward += r * w

    def get(self) -> Optional[float]:
        return (
            self.weighted_reward / self.examples_count
            if self.examples_count > 0
            else None
        )

    def __add__(self, other: Estimator) -> Estimator:
        result = Estimator()
        result.examples_count = self.examples_count + other.examples_count
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        return result
''', vwe_math)

# ---- src/estimators/bandits/snips.py
snips = _module('snips', r'''
from __future__ import annotations

from typing import Optional


class Estimator:
    weighted_examples_count: float
    weighted_reward: float

    def __init__(self) -> None:
        self.weighted_examples_count = 0
        self.weighted_reward = 0

    def add_example(self, p_log: float, r: float, p_pred: float) -> None:
        w = p_pred / p_log
        self.weighted_examples_count += w
        self.weighted_reward += r * w

    def get(self) -> Optional[float]:
        return (
            self.weighted_reward / self.weighted_examples_count
            if self.weighted_examples_count != 0
            else None
        )

    def __add__(self, other: Estimator) -> Estimator:
        result = Estimator()
        result.weighted_examples_count = (
            self.weighted_examples_count + other.weighted_examples_count
        )
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        return result
''', vwe_math)

# ---- src/estimators/bandits/cressieread.py
cressieread = _module('cressieread', r'''
# CR(-2) is particularly computationally convenient

from __future__ import annotations

from math import inf
from typing import List, Optional, Tuple


class EstimatorImpl:
    wmin: float
    wmax: float
    n: IncrementalFsum
    sumw: IncrementalFsum
    sumwsq: IncrementalFsum
    sumwr: IncrementalFsum
    sumwsqr: IncrementalFsum
    sumr: IncrementalFsum

    # NB: This works better you use the true wmin and wmax
    #     which is _not_ the empirical minimum and maximum
    #     but rather the actual smallest and largest possible values

    def __init__(self, wmin: float = 0, wmax: float = inf):
        assert wmin < 1
        assert wmax > 1

        self.wmin = wmin
        self.wmax = wmax

        self.n = IncrementalFsum()
        self.sumw = IncrementalFsum()
        self.sumwsq = IncrementalFsum()
        self.sumwr = IncrementalFsum()
        self.sumwsqr = IncrementalFsum()
        self.sumr = IncrementalFsum()

    def add(self, w: float, r: float) -> None:
        assert w >= 0, "Error: negative importance weight"

        self.n += 1
        self.sumw += w
        self.sumwsq += w**2
        self.sumwr += w * r
        self.sumwsqr += w**2 * r
        self.sumr += r

        self.wmax = max(self.wmax, w)
        self.wmin = min(self.wmin, w)

    def get(self) -> Optional[float]:
        n = float(self.n)
        if n == 0:
            return None

        sumw = float(self.sumw)
        sumwsq = float(self.sumwsq)
        sumwr = float(self.sumwr)
        sumwsqr = float(self.sumwsqr)
        sumr = float(self.sumr)

        wfake = self.wmax if sumw < n else self.wmin

        if wfake == inf:
            gamma = -(1 + n) / n
            beta = 0.0
        else:
            a = (wfake + sumw) / (1 + n)
            b = (wfake**2 + sumwsq) / (1 + n)
            assert a * a < b
            gamma = (b - a) / (a * a - b)
            beta = (1 - a) / (a * a - b)

        vhat = (-gamma * sumwr - beta * sumwsqr) / (1 + n)
        missing = max(0.0, 1 - (-gamma * sumw - beta * sumwsq) / (1 + n))
        rhatmissing = sumr / n
        vhat += missing * rhatmissing

        return vhat

    def __add__(self, other: "EstimatorImpl") -> "EstimatorImpl":
        result = EstimatorImpl(
            wmin=min(self.wmin, other.wmin), wmax=max(self.wmax, other.wmax)
        )

        result.n = IncrementalFsum.merge(self.n, other.n)
        result.sumw = IncrementalFsum.merge(self.sumw, other.sumw)
        result.sumwsq = IncrementalFsum.merge(self.sumwsq, other.sumwsq)
        result.sumwr = IncrementalFsum.merge(self.sumwr, other.sumwr)
        result.sumwsqr = IncrementalFsum.merge(self.sumwsqr, other.sumwsqr)
        result.sumr = IncrementalFsum.merge(self.sumr, other.sumr)

        return result


class IntervalImpl:
    wmin: float
    wmax: float
    rmin: float
    rmax: float
    n: IncrementalFsum
    sumw: IncrementalFsum
    sumwsq: IncrementalFsum
    sumwr: IncrementalFsum
    sumwsqr: IncrementalFsum
    sumwsqrsq: IncrementalFsum
    empirical_r_bounds: bool

    # NB: This works better you use the true wmin and wmax
    #     which is _not_ the empirical minimum and maximum
    #     but rather the actual smallest and largest possible values

    def __init__(
        self,
        wmin: float,
        wmax: float,
        rmin: float,
        rmax: float,
        empirical_r_bounds: bool,
    ):
        assert wmin < 1
        assert wmax > 1

        self.wmin = wmin
        self.wmax = wmax
        self.rmin = rmin
        self.rmax = rmax
        self.empirical_r_bounds = empirical_r_bounds

        self.n = IncrementalFsum()
        self.sumw = IncrementalFsum()
        self.sumwsq = IncrementalFsum()
        self.sumwr = IncrementalFsum()
        self.sumwsqr = IncrementalFsum()
        self.sumwsqrsq = IncrementalFsum()

    def add(self, w: float, r: float, p_drop: float, n_drop: Optional[int]) -> None:
        assert w >= 0, "Error: negative importance weight"
        n_drop_tmp = float(n_drop) if n_drop is not None else p_drop / (1 - p_drop)
        w /= 1 - p_drop
        self.n += 1 + n_drop_tmp
        self.sumw += w
        self.sumwsq += w**2
        self.sumwr += w * r
        self.sumwsqr += w**2 * r
        self.sumwsqrsq += w**2 * r**2

        self.wmax = max(self.wmax, w)
        self.wmin = min(self.wmin, w)

        if self.empirical_r_bounds:
            self.rmax = max(self.rmax, r)
            self.rmin = min(self.rmin, r)
        else:
            if r > self.rmax or r < self.rmin:
                raise ValueError(
                    f"Error: Value of r={r} is outside rmin={self.rmin}, rmax={self.rmax} bounds"
                )

    def get(self, alpha: float = 0.05, atol: float = 1e-9) -> Tuple[float, float]:
        from math import isclose, sqrt
        from scipy.stats import f  # type: ignore

        n = float(self.n)
        if n == 0:
            return (-inf, inf) if self.empirical_r_bounds else (self.rmin, self.rmax)

        sumw = float(self.sumw)
        sumwsq = float(self.sumwsq)
        sumwr = float(self.sumwr)
        sumwsqr = float(self.sumwsqr)
        sumwsqrsq = float(self.sumwsqrsq)

        uncwfake = self.wmax if sumw < n else self.wmin
        if uncwfake == inf:
            uncgstar = 1 + 1 / n
        else:
            unca = (uncwfake + sumw) / (1 + n)
            uncb = (uncwfake**2 + sumwsq) / (1 + n)
            uncgstar = (1 + n) * (unca - 1) ** 2 / (uncb - unca * unca)

        delta = f.isf(q=alpha, dfn=1, dfd=n)
        phi = (-uncgstar - delta) / (2 * (1 + n))

        bounds: List[float] = []
        for r, sign in ((self.rmin, 1), (self.rmax, -1)):
            candidates = []
            for wfake in (self.wmin, self.wmax):
                if wfake == inf:
                    x = sign * (r + (sumwr - sumw * r) / n)
                    y = (r * sumw - sumwr) ** 2 / (n * (1 + n)) - (
                        r**2 * sumwsq - 2 * r * sumwsqr + sumwsqrsq
                    ) / (1 + n)
                    z = phi + 1 / (2 * n)

                    if isclose(y * z, 0, abs_tol=atol * atol):
                        gstar = x - sqrt(2) * atol
                        candidates.append(gstar)
                    elif z <= 0 and y * z >= 0:
                        gstar = x - sqrt(2 * y * z)
                        candidates.append(gstar)
                else:
                    barw = (wfake + sumw) / (1 + n)
                    barwsq = (wfake * wfake + sumwsq) / (1 + n)
                    barwr = sign * (wfake * r + sumwr) / (1 + n)
                    barwsqr = sign * (wfake * wfake * r + sumwsqr) / (1 + n)
                    barwsqrsq = (wfake * wfake * r * r + sumwsqrsq) / (1 + n)

                    if barwsq > barw**2:
                        x = barwr + (
                            (1 - barw) * (barwsqr - barw * barwr) / (barwsq - barw**2)
                        )
                        y = (barwsqr - barw * barwr) ** 2 / (barwsq - barw**2) - (
                            barwsqrsq - barwr**2
                        )
                        z = phi + (1 / 2) * (1 - barw) ** 2 / (barwsq - barw**2)

                        if isclose(y * z, 0, abs_tol=atol * atol):
                            gstar = x - sqrt(2) * atol
                            candidates.append(gstar)
                        elif z <= 0 and y * z >= 0:
                            gstar = x - sqrt(2 * y * z)
                            candidates.append(gstar)

            if candidates and len(candidates) > 0:
                best = min(candidates)
            else:
                best = self.rmin
            vbound = min(self.rmax, max(self.rmin, sign * best))
            bounds.append(vbound)

        return (bounds[0], bounds[1])

    def __add__(self, other: "IntervalImpl") -> "IntervalImpl":
        assert not (
            self.empirical_r_bounds ^ other.empirical_r_bounds
        ), "Summation of estimators with various r bounds policy is prohibited"

        if not self.empirical_r_bounds:
            assert (
                self.rmin == other.rmin
            ), "Summation of estimators with various r bounds is prohibited"
            assert (
                self.rmax == other.rmax
            ), "Summation of estimators with various r bounds is prohibited"

        result = IntervalImpl(
            wmin=min(self.wmin, other.wmin),
            wmax=max(self.wmax, other.wmax),
            rmin=min(self.rmin, other.rmin),
            rmax=max(self.rmax, other.rmax),
            empirical_r_bounds=self.empirical_r_bounds,
        )

        result.n = IncrementalFsum.merge(self.n, other.n)
        result.sumw = IncrementalFsum.merge(self.sumw, other.sumw)
        result.sumwsq = IncrementalFsum.merge(self.sumwsq, other.sumwsq)
        result.sumwr = IncrementalFsum.merge(self.sumwr, other.sumwr)
        result.sumwsqr = IncrementalFsum.merge(self.sumwsqr, other.sumwsqr)
        result.sumwsqrsq = IncrementalFsum.merge(self.sumwsqrsq, other.sumwsqrsq)

        return result


class Estimator:
    _impl: EstimatorImpl

    def __init__(self, wmin: float = 0, wmax: float = inf):
        self._impl = EstimatorImpl(wmin, wmax)

    def add_example(self, p_log: float, r: float, p_pred: float) -> None:
        self._impl.add(p_pred / p_log, r)

    def get(self) -> Optional[float]:
        return self._impl.get()

    def __add__(self, other: "Estimator") -> "Estimator":
        result = Estimator()
        result._impl = self._impl + other._impl
        return result


class Interval:
    _impl: IntervalImpl

    def __init__(
        self,
        wmin: float = 0,
        wmax: float = inf,
        rmin: float = 0,
        rmax: float = 1,
        empirical_r_bounds: bool = False,
    ) -> None:
        self._impl = IntervalImpl(wmin, wmax, rmin, rmax, empirical_r_bounds)

    def add_example(
        self,
        p_log: float,
        r: float,
        p_pred: float,
        p_drop: float = 0,
        n_drop: Optional[int] = None,
    ) -> None:
        self._impl.add(p_pred / p_log, r, p_drop, n_drop)

    def get(self, alpha: float = 0.05, atol: float = 1e-9) -> Tuple[float, float]:
        return self._impl.get(alpha, atol)

    def __add__(self, other: Interval) -> Interval:
        result = Interval()
        result._impl = self._impl + other._impl
        return result
''', vwe_math)

# ---- src/estimators/bandits/gaussian.py
gaussian = _module('gaussian', r'''
from __future__ import annotations

import math
from scipy import stats  # type: ignore
from typing import List, Optional, Tuple, cast


class Interval:
    examples_count: float
    weighted_reward: float
    weighted_reward_sq: float

    def __init__(self) -> None:
        self.examples_count = 0
        self.weighted_reward = 0
        self.weighted_reward_sq = 0

    def add_example(
        self,
        p_log: float,
        r: float,
        p_pred: float,
        p_drop: float = 0,
        n_drop: Optional[int] = None,
    ) -> None:
        n_drop_tmp: float = (
            float(n_drop) if n_drop is not None else p_drop / (1 - p_drop)
        )
        self.examples_count += 1 + n_drop_tmp
        w = p_pred / (p_log * (1 - p_drop))
        self.weighted_reward += r * w
        self.weighted_reward_sq += (r * w) ** 2

    def get(self, alpha: float = 0.05) -> Tuple[float, float]:
        if self.examples_count <= 1:
            return (-math.inf, math.inf)

        z_gaussian_cdf = stats.norm.ppf(1 - alpha / 2)
        variance = (
            self.weighted_reward_sq - self.weighted_reward**2 / self.examples_count
        ) / (self.examples_count - 1)
        gauss_delta = z_gaussian_cdf * math.sqrt(max(0, variance) / self.examples_count)
        ips = self.weighted_reward / self.examples_count
        return (ips - gauss_delta, ips + gauss_delta)

    def __add__(self, other: Interval) -> Interval:
        result = Interval()
        result.examples_count = self.examples_count + other.examples_count
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        result.weighted_reward_sq = self.weighted_reward_sq + other.weighted_reward_sq
        return result
''', vwe_math)

# ---- src/estimators/bandits/clopper_pearson.py
clopper_pearson = _module('clopper_pearson', r'''
from __future__ import annotations

from typing import List, Optional, Tuple

from math import inf


class Interval:
    examples_count: float
    weighted_reward: float
    max_weight: float

    def __init__(
        self, rmin: float = 0, rmax: float = 1, empirical_r_bounds: bool = False
    ):
        self.examples_count = 0
        self.weighted_reward = 0
        self.max_weight = 0
        self.rmin = rmin
        self.rmax = rmax
        self.empirical_r_bounds = empirical_r_bounds

    def _scale(self, r: float) -> float:
        assert (
            r >= self.rmin and r <= self.rmax
        ), f"Error: {r} is out of [{self.rmin}, {self.rmax}]"
        return (r - self.rmin) / (self.rmax - self.rmin)

    def _scale_back(self, r: float) -> float:
        return self.rmin + r * (self.rmax - self.rmin)

    def add_example(
        self,
        p_log: float,
        r: float,
        p_pred: float,
        p_drop: float = 0,
        n_drop: Optional[int] = None,
    ) -> None:
        if self.empirical_r_bounds:
            self.rmax = max(self.rmax, r)
            self.rmin = min(self.rmin, r)
        else:
            if r > self.rmax or r < self.rmin:
                raise ValueError(
                    f"Error: Value of r={r} is outside rmin={self.rmin}, rmax={self.rmax} bounds"
                )

        n_drop_tmp: float = (
            float(n_drop) if n_drop is not None else p_drop / (1 - p_drop)
        )
        r = self._scale(r)
        self.examples_count += 1 + n_drop_tmp
        w = p_pred / (p_log * (1 - p_drop))
        self.weighted_reward += r * w
        self.max_weight = max(self.max_weight, w)

    def get(self, alpha: float = 0.05) -> Tuple[float, float]:
        if self.max_weight > 0.0:
            successes = self.weighted_reward / self.max_weight
            n = self.examples_count / self.max_weight
            cp = clopper_pearson(successes, n, alpha)
            return (self._scale_back(cp[0]), self._scale_back(cp[1]))
        return (-inf, inf) if self.empirical_r_bounds else (self.rmin, self.rmax)

    def __add__(self, other: Interval) -> Interval:
        assert not (
            self.empirical_r_bounds ^ other.empirical_r_bounds
        ), "Summation of estimators with various r bounds policy is prohibited"

        if not self.empirical_r_bounds:
            assert (
                self.rmin == other.rmin
            ), "Summation of estimators with various r bounds is prohibited"
            assert (
                self.rmax == other.rmax
            ), "Summation of estimators with various r bounds is prohibited"

        result = Interval(
            rmin=self.rmin, rmax=self.rmax, empirical_r_bounds=self.empirical_r_bounds
        )
        result.examples_count = self.examples_count + other.examples_count
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        result.max_weight = max(self.max_weight, other.max_weight)
        return result
''', vwe_math)

# ---- src/estimators/bandits/cs.py
cs = _module('cs', r'''
from __future__ import annotations

import typing
from typing import List, Optional, Tuple

from math import inf


def _logwealth(s: float, v: float, rho: float) -> float:
    from math import log

    def loggammalowerinc(*, a: float, x: float) -> float:
        import scipy.special as sc  # type: ignore

        return log(sc.gammainc(a, x)) + typing.cast(float, sc.loggamma(a))

    assert s + v + rho > 0
    assert rho > 0

    return (
        s
        + v
        + rho * log(rho)
        - (v + rho) * log(s + v + rho)
        + loggammalowerinc(a=v + rho, x=s + v + rho)
        - loggammalowerinc(a=rho, x=rho)
    )


def _lblogwealth(t: float, sumXt: float, v: float, rho: float, alpha: float) -> float:
    from math import log
    import scipy.optimize as so  # type: ignore

    assert 0 < alpha < 1, alpha
    thres = -log(alpha)

    minmu = 0
    logwealthminmu = _logwealth(s=sumXt, v=v, rho=rho)

    if logwealthminmu <= thres:
        return minmu

    maxmu = min(1, sumXt / t)
    logwealthmaxmu = _logwealth(s=sumXt - t * maxmu, v=v, rho=rho)

    if logwealthmaxmu >= thres:
        return maxmu

    res = so.root_scalar(
        f=lambda mu: _logwealth(s=sumXt - t * mu, v=v, rho=rho) - thres,
        method="brentq",
        bracket=[minmu, maxmu],
    )
    assert res.converged, res

    # according to docs this is guaranteed to be a float
    return typing.cast(float, res.root)


class IntervalImpl:
    def __init__(self, rmin: float = 0, rmax: float = 1, adjust: bool = True):
        assert rmin <= rmax, (rmin, rmax)

        self.rho = 1
        self.rmin = rmin
        self.rmax = rmax
        self.adjust = adjust

        self.t = 0.0

        self.sumwsqrsq = IncrementalFsum()
        self.sumwsqr = IncrementalFsum()
        self.sumwsq = IncrementalFsum()
        self.sumwr = IncrementalFsum()
        self.sumw = IncrementalFsum()
        self.sumwrxhatlow = IncrementalFsum()
        self.sumwxhatlow = IncrementalFsum()
        self.sumxhatlowsq = IncrementalFsum()
        self.sumwrxhathigh = IncrementalFsum()
        self.sumwxhathigh = IncrementalFsum()
        self.sumxhathighsq = IncrementalFsum()

    def add(self, w: float, r: float, p_drop: float, n_drop: Optional[int]) -> None:
        assert w >= 0
        assert 0 <= p_drop < 1
        assert n_drop is None or n_drop >= 0

        if not self.adjust:
            r = min(self.rmax, max(self.rmin, r))
        else:
            self.rmin = min(self.rmin, r)
            self.rmax = max(self.rmax, r)

        n_drop_tmp: float = (
            float(n_drop) if n_drop is not None else p_drop / (1 - p_drop)
        )
        if n_drop_tmp > 0:
            import scipy.special as sc

            # we have to simulate presenting n_drop_tmp events with w=0 in a row, which we can do in closed form
            # Sum[(a/(b + s))^2, { s, 0, n - 1 }]
            # a^2 PolyGamma[1,b]-a^2 PolyGamma[1,b+n]

            sumXlow = (float(self.sumwr) - float(self.sumw) * self.rmin) / (
                self.rmax - self.rmin
            )
            alow = sumXlow + 1 / 2
            blow = self.t + 1
            self.sumxhatlowsq += alow**2 * (
                sc.polygamma(1, blow).item() - sc.polygamma(1, blow + n_drop_tmp).item()
            )

            sumXhigh = (float(self.sumw) * self.rmax - float(self.sumwr)) / (
                self.rmax - self.rmin
            )
            ahigh = sumXhigh + 1 / 2
            bhigh = self.t + 1
            self.sumxhathighsq += ahigh**2 * (
                sc.polygamma(1, bhigh).item()
                - sc.polygamma(1, bhigh + n_drop_tmp).item()
            )

            # TODO: convert t to float or cast n_drop_tmp to int?
            self.t += n_drop_tmp

        sumXlow = (float(self.sumwr) - float(self.sumw) * self.rmin) / (
            self.rmax - self.rmin
        )
        Xhatlow = (sumXlow + 1 / 2) / (self.t + 1)
        sumXhigh = (float(self.sumw) * self.rmax - float(self.sumwr)) / (
            self.rmax - self.rmin
        )
        Xhathigh = (sumXhigh + 1 / 2) / (self.t + 1)

        w /= 1 - p_drop

        self.sumwsqrsq += (w * r) ** 2
        self.sumwsqr += w**2 * r
        self.sumwsq += w**2
        self.sumwr += w * r
        self.sumw += w
        self.sumwrxhatlow += w * r * Xhatlow
        self.sumwxhatlow += w * Xhatlow
        self.sumxhatlowsq += Xhatlow**2
        self.sumwrxhathigh += w * r * Xhathigh
        self.sumwxhathigh += w * Xhathigh
        self.sumxhathighsq += Xhathigh**2

        self.t += 1

    def get(self, alpha: float) -> Tuple[float, float]:
        if self.t == 0 or self.rmin == self.rmax:
            return (-inf, inf) if self.adjust else (self.rmin, self.rmax)

        sumvlow = (
            (
                float(self.sumwsqrsq)
                - 2 * self.rmin * float(self.sumwsqr)
                + self.rmin**2 * float(self.sumwsq)
            )
            / (self.rmax - self.rmin) ** 2
            - 2
            * (float(self.sumwrxhatlow) - self.rmin * float(self.sumwxhatlow))
            / (self.rmax - self.rmin)
            + float(self.sumxhatlowsq)
        )
        sumXlow = (float(self.sumwr) - float(self.sumw) * self.rmin) / (
            self.rmax - self.rmin
        )
        l = _lblogwealth(
            t=self.t, sumXt=sumXlow, v=sumvlow, rho=self.rho, alpha=alpha / 2
        )

        sumvhigh = (
            (
                float(self.sumwsqrsq)
                - 2 * self.rmax * float(self.sumwsqr)
                + self.rmax**2 * float(self.sumwsq)
            )
            / (self.rmax - self.rmin) ** 2
            + 2
            * (float(self.sumwrxhathigh) - self.rmax * float(self.sumwxhathigh))
            / (self.rmax - self.rmin)
            + float(self.sumxhathighsq)
        )
        sumXhigh = (float(self.sumw) * self.rmax - float(self.sumwr)) / (
            self.rmax - self.rmin
        )
        u = 1 - _lblogwealth(
            t=self.t, sumXt=sumXhigh, v=sumvhigh, rho=self.rho, alpha=alpha / 2
        )

        return (
            self.rmin + l * (self.rmax - self.rmin),
            self.rmin + u * (self.rmax - self.rmin),
        )


class Interval:
    _impl: IntervalImpl

    def __init__(
        self, rmin: float = 0, rmax: float = 1, empirical_r_bounds: bool = False
    ) -> None:
        self._impl = IntervalImpl(rmin=rmin, rmax=rmax, adjust=empirical_r_bounds)

    def add_example(
        self,
        p_log: float,
        r: float,
        p_pred: float,
        p_drop: float = 0,
        n_drop: Optional[int] = None,
    ) -> None:
        self._impl.add(p_pred / p_log, r, p_drop, n_drop)

    def get(self, alpha: float = 0.05, atol: float = 1e-9) -> Tuple[float, float]:
        return self._impl.get(alpha)

    def __add__(self, other: Interval) -> Interval:
        raise NotImplementedError
''', vwe_math)

# ---- src/estimators/slates/pseudo_inverse.py
slates_pseudo_inverse = _module('slates_pseudo_inverse', r'''
from typing import List, Optional

# PseudoInverse estimator for slate recommendation. The following implements the
# case for a Cartesian product when mu is a product distribution. This can be
# seen in example 4 of the paper.
# https://arxiv.org/abs/1605.04812


class Estimator:
    examples_count: float
    weighted_reward: float

    def __init__(self) -> None:
        self.examples_count = 0
        self.weighted_reward = 0

    def add_example(
        self, p_logs: List[float], r: float, p_preds: List[float], count: float = 1.0
    ) -> None:
        """Expects lists for logged probabilities and predicted probabilities. These should correspond to each slot.
        This function is implemented under the simplifying assumptions of
        example 4 in the paper 'Off-policy evaluation for slate recommendation'
        where the slate space is a cartesian product and the logging policy is a
        product distribution"""
        if not isinstance(p_logs, list) or not isinstance(p_preds, list):
            raise ValueError("Error: p_logs and p_preds must be lists")

        if len(p_logs) != len(p_preds):
            raise ValueError(
                f"Error: p_logs and p_preds must be the same length, found {len(p_logs)} "
                f"and {len(p_preds)} respectively"
            )

        self.examples_count += count
        num_slots = len(p_logs)
        w = 1.0 - num_slots
        for p_log, p_pred in zip(p_logs, p_preds):
            w += p_pred / p_log
        self.weighted_reward += r * w * count

    def get(self) -> Optional[float]:
        if self.examples_count > 0:
            return self.weighted_reward / self.examples_count
        return None

    def __add__(self, other: "Estimator") -> "Estimator":
        result = Estimator()
        result.examples_count = self.examples_count + other.examples_count
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        return result
''', vwe_math)

# ---- src/estimators/slates/gaussian.py
slates_gaussian = _module('slates_gaussian', r'''
from __future__ import annotations

import math
from scipy import stats  # type: ignore
from typing import List, Optional, Tuple


class Interval:
    examples_count: float
    weighted_reward: float
    weighted_reward_sq: float

    def __init__(self) -> None:
        self.examples_count = 0
        self.weighted_reward = 0
        self.weighted_reward_sq = 0

    def add_example(
        self, p_logs: List[float], r: float, p_preds: List[float], count: float = 1.0
    ) -> None:
        """Expects lists for logged probabilities and predicted probabilities. These should correspond to each slot.
        This function is implemented under the simplifying assumptions of
        example 4 in the paper 'Off-policy evaluation for slate recommendation'
        where the slate space is a cartesian product and the logging policy is a
        product distribution"""
        if not isinstance(p_logs, list) or not isinstance(p_preds, list):
            raise ValueError("Error: p_logs and p_preds must be lists")

        if len(p_logs) != len(p_preds):
            raise ValueError(
                f"Error: p_logs and p_preds must be the same length, found {len(p_logs)} "
                f"and {len(p_preds)} respectively"
            )

        self.examples_count += count
        num_slots = len(p_logs)
        w = 1.0 - num_slots
        for p_log, p_pred in zip(p_logs, p_preds):
            w += p_pred / p_log
        self.weighted_reward += r * w * count
        self.weighted_reward_sq += ((r * w) ** 2) * count

    def get(self, alpha: float = 0.05) -> Tuple[float, float]:
        if self.examples_count <= 1:
            return (-math.inf, +math.inf)

        z_gaussian_cdf = stats.norm.ppf(1 - alpha / 2)
        variance = (
            self.weighted_reward_sq
            - self.weighted_reward * self.weighted_reward / self.examples_count
        ) / (self.examples_count - 1)
        gauss_delta = z_gaussian_cdf * math.sqrt(variance / self.examples_count)
        ips = self.weighted_reward / self.examples_count
        return (ips - gauss_delta, ips + gauss_delta)

    def __add__(self, other: Interval) -> Interval:
        result = Interval()
        result.examples_count = self.examples_count + other.examples_count
        result.weighted_reward = self.weighted_reward + other.weighted_reward
        result.weighted_reward_sq = self.weighted_reward_sq + other.weighted_reward_sq
        return result
''', vwe_math)
