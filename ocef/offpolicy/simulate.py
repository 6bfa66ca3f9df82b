"""Synthetic contextual-bandit logs with exact truth, for measuring the coverage of the off-policy
intervals (``benchmarks/offpolicy_coverage.py``) and the floors of the trust rule
(:mod:`ocef.offpolicy.diagnostics`).

An environment has C equally likely contexts, K actions and Bernoulli rewards with means ρ(x, a);
a logging policy (uniform, ε-greedy or softmax on a noisy copy of ρ) and a target policy (softmax
or argmax on another noisy copy) are fixed tables π(a | x). The target's value is exact:
V = (1/C) Σ_x Σ_a π_e(a | x) ρ(x, a).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ocef.errors import ParameterError
from ocef.validation import as_generator, check_in_interval, check_positive_int

__all__ = ["BanditEnvironment", "bandit_environment", "BanditLog", "sample_bandit_log", "COVERAGE_METHODS",
           "interval_coverage"]

LOGGERS = ("uniform", "epsilon-greedy", "softmax")
TARGETS = ("softmax", "argmax")


class BanditEnvironment(NamedTuple):
    """Reward means, logging and target policies, and the target's exact value.

    Attributes
    ----------
    rho : numpy.ndarray, shape (C, K)
        Expected rewards.
    logging : numpy.ndarray, shape (C, K)
        π_b(a | x).
    target : numpy.ndarray, shape (C, K)
        π_e(a | x).
    value : float
        V = mean_x Σ_a π_e(a|x) ρ(x, a).

    Examples
    --------
    >>> env = bandit_environment(rng=0)
    >>> env.rho.shape, bool(0 < env.value < 1)
    ((20, 10), True)
    """
    rho: np.ndarray
    logging: np.ndarray
    target: np.ndarray
    value: float


def _softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    z = scores / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def bandit_environment(*, n_contexts: int = 20, n_actions: int = 10, base_rate: float = 0.2,
                       logger: str = "uniform", target: str = "softmax", epsilon: float = 0.2,
                       temperature: float = 0.5, rng=None) -> BanditEnvironment:
    """A random environment: ρ(x, a) = base_rate · 2 · Beta(2, 2) (mean ``base_rate``, capped at 1),
    policies from noisy scores s = ρ/base_rate + N(0, 0.5²) (independent noise for each policy).

    Parameters
    ----------
    n_contexts, n_actions : int, default 20, 10
        C and K.
    base_rate : float, default 0.2
        Mean reward (small values give rare rewards).
    logger : {"uniform", "epsilon-greedy", "softmax"}, default "uniform"
        The logging policy: uniform; ε-greedy on its scores (min probability ε/K); softmax of its
        scores at ``temperature``.
    target : {"softmax", "argmax"}, default "softmax"
        The target policy: softmax of its scores at ``temperature`` / 2, or deterministic argmax.
    epsilon : float, default 0.2
        ε of the ε-greedy logger.
    temperature : float, default 0.5
        Softmax temperature (in units of base_rate).
    rng : None, int, SeedSequence or Generator
        Randomness of the environment.

    Returns
    -------
    BanditEnvironment
        The tables and the exact value.

    Examples
    --------
    >>> env = bandit_environment(logger="epsilon-greedy", target="argmax", rng=1)
    >>> float(env.logging.min()) >= 0.2 / 10, sorted(set(env.target.ravel().tolist()))
    (True, [0.0, 1.0])
    """
    c = check_positive_int("n_contexts", n_contexts)
    k = check_positive_int("n_actions", n_actions, minimum=2)
    base = check_in_interval("base_rate", base_rate, 0.0, 0.5)
    eps = check_in_interval("epsilon", epsilon, 0.0, 1.0)
    temp = check_in_interval("temperature", temperature, 0.0, np.inf)
    if logger not in LOGGERS:
        raise ParameterError(f"logger must be one of {LOGGERS}, got {logger!r}")
    if target not in TARGETS:
        raise ParameterError(f"target must be one of {TARGETS}, got {target!r}")
    gen = as_generator(rng)
    rho = np.minimum(1.0, base * 2 * gen.beta(2, 2, size=(c, k)))
    score_b = rho / base + gen.normal(0, 0.5, size=(c, k))
    score_e = rho / base + gen.normal(0, 0.5, size=(c, k))
    if logger == "uniform":
        pb = np.full((c, k), 1.0 / k)
    elif logger == "epsilon-greedy":
        pb = np.full((c, k), eps / k)
        pb[np.arange(c), score_b.argmax(axis=1)] += 1 - eps
    else:
        pb = _softmax(score_b, temp)
    if target == "softmax":
        pe = _softmax(score_e, temp / 2)
    else:
        pe = np.zeros((c, k))
        pe[np.arange(c), score_e.argmax(axis=1)] = 1.0
    return BanditEnvironment(rho, pb, pe, float((pe * rho).sum(axis=1).mean()))


class BanditLog(NamedTuple):
    """A sampled log: one row per round.

    Attributes
    ----------
    context, action : numpy.ndarray of int, shape (n,)
        The context and the logged action.
    reward : numpy.ndarray, shape (n,)
        0/1 rewards.
    logging_probability, target_probability : numpy.ndarray, shape (n,)
        π_b(a_i | x_i) and π_e(a_i | x_i).

    Examples
    --------
    >>> log = sample_bandit_log(bandit_environment(rng=0), 5, rng=1)
    >>> log.reward.shape
    (5,)
    """
    context: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    logging_probability: np.ndarray
    target_probability: np.ndarray


def sample_bandit_log(environment: BanditEnvironment, n: int, *, rng=None) -> BanditLog:
    """Draw n rounds: x uniform, a ~ π_b(· | x), r ~ Bernoulli(ρ(x, a)).

    Parameters
    ----------
    environment : BanditEnvironment
        From :func:`bandit_environment`.
    n : int
        Rounds.
    rng : None, int, SeedSequence or Generator
        Randomness of the log.

    Returns
    -------
    BanditLog
        The rows.

    Examples
    --------
    >>> env = bandit_environment(rng=0)
    >>> log = sample_bandit_log(env, 1000, rng=2)
    >>> bool(abs((log.target_probability / log.logging_probability * log.reward).mean() - env.value) < 0.1)
    True
    """
    n = check_positive_int("n", n)
    gen = as_generator(rng)
    rho, pb, pe = environment.rho, environment.logging, environment.target
    context = gen.integers(0, rho.shape[0], n)
    cum = np.cumsum(pb, axis=1)[context]
    action = np.minimum((cum < gen.random(n)[:, None]).sum(axis=1), rho.shape[1] - 1)
    reward = (gen.random(n) < rho[context, action]).astype(float)
    return BanditLog(context, action, reward, pb[context, action], pe[context, action])


#: the (estimator, interval) pairs whose coverage :func:`interval_coverage` measures
COVERAGE_METHODS = ("ips/wald", "ips/bootstrap", "snips/wald", "dr/wald", "ips/cressie-read",
                    "ips/gaussian", "ips/clopper-pearson", "ips/betting")


def interval_coverage(environment: BanditEnvironment, n: int, *, n_reps: int = 200, confidence: float = 0.95,
                      bootstrap: bool = True, n_resamples: int = 400, rng=None):
    """Coverage of every interval method on ``n_reps`` logs of size n drawn from one environment.

    DR uses the cross-fitted shrunk-mean reward model keyed by (context, action)
    (:func:`ocef.offpolicy.reward_model.cross_fit_reward_model`, 5 folds).

    Parameters
    ----------
    environment : BanditEnvironment
        The environment (its ``value`` is the truth).
    n : int
        Rows per log.
    n_reps : int, default 200
        Logs drawn.
    confidence : float, default 0.95
        Interval level.
    bootstrap : bool, default True
        Also run the percentile bootstrap (the costly method).
    n_resamples : int, default 400
        Bootstrap replicates.
    rng : None, int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    pandas.DataFrame
        One row per (log, method): ``rep, method, estimate, ci_low, ci_high, reason, covered`` (1.0,
        0.0, or NaN for a null interval), ``width, ess, effective_clicks, click_ess, ess_clicks, clicks, max_weight``.

    Examples
    --------
    >>> env = bandit_environment(rng=0)
    >>> frame = interval_coverage(env, 500, n_reps=2, bootstrap=False, rng=1)
    >>> sorted(frame["method"].unique())[:2]
    ['dr/wald', 'ips/betting']
    """
    import pandas as pd

    from ocef.offpolicy import estimators as est
    from ocef.offpolicy import intervals as iv
    from ocef.offpolicy.diagnostics import weight_diagnostics
    from ocef.offpolicy.reward_model import cross_fit_reward_model

    gen = as_generator(rng)
    n_reps = check_positive_int("n_reps", n_reps)
    c, k = environment.rho.shape
    records = []
    for rep in range(n_reps):
        log = sample_bandit_log(environment, n, rng=gen)
        w = est.importance_weights(log.target_probability, log.logging_probability)
        r = log.reward
        key = log.context * k + log.action
        model = cross_fit_reward_model(r, key, c * k, rng=gen)
        tables = model.tables.reshape(-1, c, k)[model.fold, log.context]          # (n, K) q̂ of each row
        dm = np.average(tables, weights=environment.target[log.context], axis=1)
        q_logged = model.q_hat_logged(key)
        diag = weight_diagnostics(w, r)
        results = {
            "ips/wald": iv.wald_interval(est.ips_terms(r, w), confidence=confidence),
            "snips/wald": iv.wald_interval(est.snips_terms(r, w), confidence=confidence),
            "dr/wald": iv.wald_interval(est.dr_terms(r, w, q_logged, dm), confidence=confidence),
            "ips/cressie-read": iv.cressie_read_interval(w, r, confidence=confidence),
            "ips/gaussian": iv.gaussian_interval(w, r, confidence=confidence),
            "ips/clopper-pearson": iv.clopper_pearson_interval(w, r, confidence=confidence),
            "ips/betting": iv.betting_interval(w, r, confidence=confidence),
        }
        if bootstrap:
            results["ips/bootstrap"] = iv.bootstrap_interval(est.ips_terms(r, w), confidence=confidence,
                                                             n_resamples=n_resamples, rng=gen)
        for method, e in results.items():
            covered = float(e.ci_low <= environment.value <= e.ci_high) if e.reason is None else np.nan
            records.append({"rep": rep, "method": method, "estimate": e.estimate, "ci_low": e.ci_low,
                            "ci_high": e.ci_high, "reason": e.reason, "covered": covered,
                            "width": e.ci_high - e.ci_low, "ess": diag.ess,
                            "effective_clicks": diag.effective_clicks, "click_ess": diag.click_ess,
                            "ess_clicks": diag.ess_clicks,
                            "clicks": diag.clicks,
                            "max_weight": diag.max_weight})
    return pd.DataFrame.from_records(records)
