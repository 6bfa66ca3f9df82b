"""Confidence bounds and theoretical guarantees of OCEF.

Reference: V. Do, S. Corbett-Davies, J. Atif, N. Usunier, *Online certification of
preference-based fairness for personalized recommender systems*, AAAI 2022 —
App. G: Lemma 3 (anytime LIL bounds), the lemma on φ and Lemma 4 (conservative
constraint), Theorem 6 (duration) and Theorem 7 (cost).

All functions are pure and vectorize over their array arguments (``np.broadcast``
semantics), so the vectorized runner evaluates the bounds of every run in one call.
This module imports nothing of the project.
"""
from __future__ import annotations

import math

import numpy as np
from ocef.errors import ParameterError

#: Default sub-gaussian parameter: rewards in [0, 1] are 1/2-subgaussian (Hoeffding).
SIGMA = 0.5
#: Default ω of Lemma 3.
OMEGA = 0.01
#: Convention of Lemma 3 for N_k = 0 (μ̂_k = 0 and β_k strictly wider than at N_k = 1;
#: the paper leaves the value open). We use β(0) = β(1) + UNPULLED_EXTRA_WIDTH with an
#: extra width of 1: strictly wider than β(1), and ≥ 1, so that the interval [−β(0), β(0)]
#: of an unpulled arm contains [0, 1] and Lemma 3's event holds at N_k = 0 too (an arm is
#: never eliminated, nor declared better, before it is pulled). It is finite, so the
#: conservative test ξ_t of eq. (8) can eventually allow a first pull.
UNPULLED_EXTRA_WIDTH = 1.0


def theta(delta, omega=OMEGA):
    """θ of Lemma 3: θ = log(1+ω) · (ωδ / (2(2+ω)))^(1/(1+ω)).

    The constant inside the iterated logarithm of the anytime (law of the iterated logarithm)
    confidence width β_k(t) of Lemma 3 (App. G of the OCEF paper); it shrinks with δ, so a
    smaller δ widens every interval.

    Parameters
    ----------
    delta : float or array_like
        The confidence δ in (0, 1) (the auditor's, or δ/G in a full audit, Cor. 7.1).
    omega : float or array_like, default 0.01
        ω in (0, 1) of Lemma 3.

    Returns
    -------
    numpy.ndarray
        θ, broadcast over ``delta`` and ``omega`` (a 0-d array for scalars).

    Examples
    --------
    >>> f"{float(theta(0.05)):.4g}"
    '1.353e-06'
    """
    delta = np.asarray(delta, dtype=float)
    omega = np.asarray(omega, dtype=float)
    return np.log1p(omega) * (omega * delta / (2.0 * (2.0 + omega))) ** (1.0 / (1.0 + omega))


def beta_constants(delta, n_arms, group_size=1, sigma=SIGMA, omega=OMEGA):
    """The two factors of β_k(t) (Lemma 3) that do not depend on N_k(t).

    With scale = 2σ²(1+√ω)²(1+ω)/|g| and factor = 2(K+1)/θ (θ of :func:`theta`), the width of
    Lemma 3 is β = sqrt(scale/N · log(factor · log((1+ω)N))) (:func:`beta_pulled`). Computing
    them once per auditor (or once per run in the vectorized engines) makes every later width a
    few arithmetic operations.

    Parameters
    ----------
    delta : float or array_like
        The confidence δ in (0, 1).
    n_arms : int or array_like
        K ≥ 1, the non-baseline arms (the union bound of Lemma 3 is over K+1 arms).
    group_size : int or array_like, default 1
        |g|, the users whose rewards are averaged at each pull (the reward is σ/√|g|-subgaussian).
    sigma : float, default 0.5
        Sub-gaussian parameter σ of one user's reward (1/2 for rewards in [0, 1]).
    omega : float or array_like, default 0.01
        ω in (0, 1) of Lemma 3.

    Returns
    -------
    scale, factor : numpy.ndarray
        The two constants, broadcast over the arguments.

    Examples
    --------
    >>> scale, factor = beta_constants(0.05, n_arms=9)
    >>> round(float(scale), 4), f"{float(factor):.4g}"
    (0.6111, '1.478e+07')
    """
    omega = np.asarray(omega, dtype=float)
    scale = 2.0 * sigma ** 2 * (1.0 + np.sqrt(omega)) ** 2 * (1.0 + omega) / np.asarray(group_size, dtype=float)
    factor = 2.0 * (np.asarray(n_arms, dtype=float) + 1.0) / theta(delta, omega)
    return scale, factor


def beta_pulled(n, scale, factor, omega=OMEGA):
    """β_k(t) of Lemma 3 for an arm pulled N_k = n ≥ 1 times, from :func:`beta_constants`.

    β = sqrt(scale/n · log(factor · log((1+ω) n))). Plain arithmetic on scalars or arrays, also
    compiled as is by the numba kernel (``ocef.envy._kernel``); no check that n ≥ 1 (use
    :func:`beta` or :func:`beta_from_constants` for counts that may be 0).

    Parameters
    ----------
    n : float or array_like
        N_k(t) ≥ 1, the pulls of the arm.
    scale, factor : float or array_like
        The constants of :func:`beta_constants`.
    omega : float, default 0.01
        ω of Lemma 3 (the same as for the constants).

    Returns
    -------
    float or numpy.ndarray
        The half-width β for each ``n``.

    Examples
    --------
    >>> scale, factor = beta_constants(0.05, n_arms=9)
    >>> round(float(beta_pulled(10, scale, factor)), 3)
    1.03
    """
    return np.sqrt(scale / n * np.log(factor * np.log((1.0 + omega) * n)))


def beta_unpulled(scale, factor, omega=OMEGA):
    """β_k(t) of an arm never pulled (N_k = 0): β(1) + ``UNPULLED_EXTRA_WIDTH``.

    Lemma 3 leaves the width at N_k = 0 open; this convention makes it strictly wider than at
    N_k = 1 and at least 1, so the interval [−β(0), β(0)] around μ̂_k = 0 contains [0, 1] and an
    unpulled arm is neither eliminated nor declared better (see ``UNPULLED_EXTRA_WIDTH``).

    Parameters
    ----------
    scale, factor : float or array_like
        The constants of :func:`beta_constants`.
    omega : float, default 0.01
        ω of Lemma 3.

    Returns
    -------
    float or numpy.ndarray
        β(0) = β(1) + 1.

    Examples
    --------
    >>> scale, factor = beta_constants(0.05, n_arms=9)
    >>> round(float(beta_unpulled(scale, factor)), 3)
    3.696
    """
    return beta_pulled(1.0, scale, factor, omega) + UNPULLED_EXTRA_WIDTH


def beta_from_constants(n, scale, factor, omega=OMEGA):
    """β_k(t) of Lemma 3 from :func:`beta_constants`, with the N_k = 0 convention.

    For N_k ≥ 1 this is :func:`beta_pulled`; for N_k = 0 :func:`beta_unpulled` (strictly wider
    than at N_k = 1). Used by the vectorized engine, which keeps the constants per run.

    Parameters
    ----------
    n : int or array_like of int
        N_k(t) ≥ 0, the pulls of each arm.
    scale, factor : float or array_like
        The constants of :func:`beta_constants` (broadcast against ``n``).
    omega : float, default 0.01
        ω of Lemma 3.

    Returns
    -------
    numpy.ndarray
        β for each count.

    Examples
    --------
    >>> scale, factor = beta_constants(0.05, n_arms=9)
    >>> beta_from_constants(np.array([0, 1, 10]), scale, factor).round(3)
    array([3.696, 2.696, 1.03 ])
    """
    n = np.asarray(n, dtype=float)
    width = beta_pulled(np.maximum(n, 1.0), scale, factor, omega)
    if np.all(n >= 1):
        return width
    return np.where(n >= 1, width, beta_unpulled(scale, factor, omega))


def beta(n, delta, n_arms, group_size=1, sigma=SIGMA, omega=OMEGA):
    """Half-width β_k(t) of the anytime confidence interval — Lemma 3.

    β_k(t) = sqrt(2σ²(1+√ω)²(1+ω) / (|g| N_k(t))) · sqrt(log(2(K+1)/θ · log((1+ω) N_k(t))))

    with K = ``n_arms`` (non-baseline arms; the union bound is over the K+1 arms) and
    |g| = ``group_size`` (the group reward averages |g| independent user rewards, so it
    is σ/√|g|-subgaussian). For N_k = 0 the convention of Lemma 3 applies:
    β(0) = β(1) + ``UNPULLED_EXTRA_WIDTH`` > β(1), and β(0) ≥ 1.

    Parameters
    ----------
    n : int or array_like of int
        N_k(t), the pulls of the arm (0 allowed).
    delta : float
        The audit's confidence δ.
    n_arms : int
        K, the non-baseline arms.
    group_size : int, default 1
        |g|.
    sigma, omega : float
        Sub-gaussian parameter (1/2) and ω of Lemma 3 (0.01).

    Returns
    -------
    float or numpy.ndarray
        β for each ``n``.

    Examples
    --------
    >>> beta(np.array([0, 1, 10, 100]), 0.05, n_arms=9).round(3)
    array([3.696, 2.696, 1.03 , 0.332])
    """
    n = np.asarray(n, dtype=float)
    if np.any(n < 0):
        raise ParameterError("n (pull counts) must be >= 0")
    out = beta_from_constants(n, *beta_constants(delta, n_arms, group_size, sigma, omega), omega)
    return out[()] if np.ndim(out) == 0 else out


def phi_pulled(n_explore, delta, sigma_g):
    """φ(t) of the lemma before Lemma 4 for |A_{t-1}| = ``n_explore`` ≥ 1 (plain arithmetic).

    φ(t) = σ_g · sqrt(2|A| log(6|A|²/δ)) + (2/3) log(6|A|²/δ) with σ_g = σ/√|g|: Freedman's
    bound on |Σ_{s∈A} (μ_{k_s} − r_s)|, the error of the rewards collected while exploring. No
    convention for |A| = 0 (see :func:`phi`); also compiled by the numba kernel.

    Parameters
    ----------
    n_explore : float or array_like
        |A_{t-1}| ≥ 1, the exploration steps so far (pulls of arms k ≥ 1).
    delta : float
        The confidence δ in (0, 1).
    sigma_g : float or array_like
        σ/√|g|, the sub-gaussian parameter of a group-average reward.

    Returns
    -------
    float or numpy.ndarray
        φ(t).

    Examples
    --------
    >>> round(float(phi_pulled(10, 0.05, 0.5)), 3)
    13.115
    """
    log_term = np.log(6.0 * n_explore * n_explore / delta)
    return sigma_g * np.sqrt(2.0 * n_explore * log_term) + 2.0 / 3.0 * log_term


def phi(n_explore, delta, group_size=1, sigma=SIGMA):
    """φ(t) of the lemma before Lemma 4 (Freedman's inequality), with |A_{t-1}| = ``n_explore``.

    φ(t) = σ/√|g| · sqrt(2|A| log(6|A|²/δ)) + (2/3) log(6|A|²/δ), and φ(t) = 0 when |A| = 0.

    Parameters
    ----------
    n_explore : int or array_like of int
        |A_{t-1}|, the exploration steps so far.
    delta : float
        The audit's confidence δ.
    group_size : int, default 1
        |g|.
    sigma : float, default 0.5
        Sub-gaussian parameter.

    Returns
    -------
    float or numpy.ndarray
        φ(t).

    Examples
    --------
    >>> round(float(phi(10, 0.05)), 3), float(phi(0, 0.05))
    (13.115, 0.0)
    """
    a = np.asarray(n_explore, dtype=float)
    val = phi_pulled(np.maximum(a, 1.0), delta, sigma / np.sqrt(group_size))
    out = np.where(a > 0, val, 0.0)
    return out[()] if out.ndim == 0 else out


def big_phi(sum_beta_n, n_explore, delta, group_size=1, sigma=SIGMA):
    """Φ(t) = min(Σ_{k≥1} β_k(t-1) N_k(t-1), φ(t)) of Lemma 4.

    The width of the confidence interval on the rewards collected while exploring,
    |Σ_{s∈A_{t-1}} (μ_{k_s} − r_s)| ≤ Φ(t), used in the conservative test ξ_t of eq. (8)
    (:func:`xi`): the smaller of the union of the per-arm bounds of Lemma 3 and Freedman's
    bound φ(t) (:func:`phi`).

    Parameters
    ----------
    sum_beta_n : float or array_like
        Σ_{k=1}^K β_k(t-1) N_k(t-1).
    n_explore : int or array_like
        |A_{t-1}|, the exploration steps so far.
    delta : float
        The confidence δ in (0, 1).
    group_size : int, default 1
        |g|.
    sigma : float, default 0.5
        Sub-gaussian parameter of one user's reward.

    Returns
    -------
    float or numpy.ndarray
        Φ(t), broadcast over ``sum_beta_n`` and ``n_explore``.

    Examples
    --------
    After 10 exploration steps φ(t) = 13.115: it caps a large Σ β_k N_k, not a small one.

    >>> big_phi(np.array([2.0, 50.0]), 10, 0.05).round(3)
    array([ 2.   , 13.115])
    """
    return np.minimum(sum_beta_n, phi(n_explore, delta, group_size, sigma))


def xi(sum_explore_rewards, big_phi_t, lower_l, n_baseline, t, alpha, upper_0):
    """Conservative test ξ_t of eq. (8) (Algorithm 1, line 4).

    ξ_t = Σ_{s∈A_{t-1}} r_s − Φ(t) + μ̲_{ℓ_t}(t-1) + (N_0(t-1) − (1−α) t) μ̄_0(t-1),

    a lower bound on the safety budget Z_t of constraint (7) if the candidate arm ℓ_t is pulled
    (App. G.2): OCEF pulls ℓ_t only when ξ_t ≥ 0, else the baseline arm 0.

    Parameters
    ----------
    sum_explore_rewards : float or array_like
        Σ_{s∈A_{t-1}} r_s, the rewards observed while exploring.
    big_phi_t : float or array_like
        Φ(t) of Lemma 4 (:func:`big_phi`).
    lower_l : float or array_like
        μ̲_{ℓ_t}(t-1), the lower bound of the candidate arm.
    n_baseline : int or array_like
        N_0(t-1), the pulls of the baseline arm.
    t : int or array_like
        The step t ≥ 1.
    alpha : float or array_like
        α in (0, 1] of constraint (7).
    upper_0 : float or array_like
        μ̄_0(t-1), the upper bound of the baseline arm.

    Returns
    -------
    float or numpy.ndarray
        ξ_t; negative means "pull the baseline".

    Examples
    --------
    >>> round(xi(4.0, 2.0, 0.3, n_baseline=6, t=12, alpha=0.1, upper_0=0.6), 2)
    -0.58
    """
    return sum_explore_rewards - big_phi_t + lower_l + (n_baseline - (1.0 - alpha) * t) * upper_0


# --------------------------------------------------------------------------- theory

def gaps(means, epsilon):
    """Gaps η_k = max(μ_k − μ_0, μ_0 + ε − μ_k), k = 1..K, of Theorems 1 and 6.

    η_k measures how easy arm k is to decide: an arm much better than the baseline (ENVY) or
    much worse than μ_0 + ε (eliminated) has a large gap; the duration bound grows as 1/η_k².

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0, μ_1, ..., μ_K in [0, 1] (``means[..., 0]`` is the baseline).
    epsilon : float
        ε of the ε-NO-ENVY certificate.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        η_1..η_K.

    Examples
    --------
    >>> gaps(np.array([0.5, 0.6, 0.3]), epsilon=0.05)
    array([0.1 , 0.25])
    """
    means = np.asarray(means, dtype=float)
    mu0, mu = means[..., :1], means[..., 1:]
    return np.maximum(mu - mu0, mu0 + epsilon - mu)


def _log_plus(x):
    """log⁺(x) = max(1, log x) — Theorem 6."""
    return np.maximum(1.0, np.log(x))


def theorem6_theta(delta):
    """θ = log(2) · sqrt(δ/6) of Theorem 6 (Lemma 3's θ with the constants of ω = 1).

    Parameters
    ----------
    delta : float or array_like
        The confidence δ in (0, 1).

    Returns
    -------
    numpy.ndarray
        θ for each δ.

    Examples
    --------
    >>> round(float(theorem6_theta(0.05)), 4)
    0.0633
    """
    return math.log(2.0) * np.sqrt(np.asarray(delta, dtype=float) / 6.0)


def duration_terms(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """(H_0, H_1..H_K), the bounds on N_k(τ) whose sum bounds the duration τ (Theorem 6).

    ``form="lemmas"`` (default) evaluates Lemmas 9 and 10 of App. G.3 with the run's σ and ω
    (θ of Lemma 3, Γ_ω = 2σ²(1+√ω)²(1+ω)/|g|):

    H_k = 1 + 16Γ_ω/η_k² · log(2(K+1) log⁺((1+ω)·32(K+1)Γ_ω/(θη_k²)) / θ)            (Lemma 9)
    H_0 = max(max_k H_k, (6K+2)/(αμ_0)) + Σ_k 32Γ_ω log(2(K+1) log((1+ω)H_k)/θ) / (αμ_0 η_k)   (Lemma 10)

    ``form="theorem6"`` is Theorem 6 as printed, whose constants are those of σ = 1/2, ω = 1
    (θ = log 2 · sqrt(δ/6)); ``sigma`` and ``omega`` are then ignored:

    H_k = 1 + 64/(|g|η_k²) · log(2(K+1) log⁺(128(K+1)/(θ|g|η_k²)) / θ),
    H_0 = max(max_k H_k, (6K+2)/(αμ_0) + Σ_k 256 log(2(K+1) log(2H_k)/θ) / (αμ_0|g|η_k)).

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0..μ_K (``means[..., 0]`` the baseline, μ_0 > 0).
    delta : float
        The confidence δ in (0, 1).
    alpha : float
        α in (0, 1] of constraint (7).
    epsilon : float
        ε in (0, 1] of the certificate.
    group_size : int, default 1
        |g|.
    sigma : float, default 0.5
        Sub-gaussian parameter (``form="lemmas"`` only).
    omega : float, default 0.01
        ω of Lemma 3 (``form="lemmas"`` only).
    form : {"lemmas", "theorem6"}, default "lemmas"
        Which constants (see above).

    Returns
    -------
    numpy.ndarray, shape (..., K+1)
        H_0, H_1, ..., H_K (pulls of the baseline, then of each arm); infinite where a gap is 0.

    Examples
    --------
    >>> duration_terms(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05).round(0)
    array([85824.,  1989.,  1460.])
    >>> duration_terms(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05, form="theorem6").round(0)
    array([428784.,   4951.,   3623.])
    """
    means = np.asarray(means, dtype=float)
    k = means.shape[-1] - 1
    eta = gaps(means, epsilon)
    amu0 = alpha * means[..., 0]
    if form == "theorem6":
        th = theorem6_theta(delta)
        g = float(group_size)
        hk = 1.0 + 64.0 / (g * eta ** 2) * np.log(
            2.0 * (k + 1) * _log_plus(128.0 * (k + 1) / (th * g * eta ** 2)) / th)
        h0_second = (6 * k + 2) / amu0 + np.sum(
            256.0 * np.log(2.0 * (k + 1) * np.log(2.0 * hk) / th) / (amu0[..., None] * g * eta), axis=-1)
        h0 = np.maximum(hk.max(axis=-1), h0_second)
    elif form == "lemmas":
        th = theta(delta, omega)
        gam = 2.0 * sigma ** 2 * (1.0 + math.sqrt(omega)) ** 2 * (1.0 + omega) / float(group_size)
        hk = 1.0 + 16.0 * gam / eta ** 2 * np.log(
            2.0 * (k + 1) * _log_plus((1.0 + omega) * 32.0 * (k + 1) * gam / (th * eta ** 2)) / th)
        h0 = np.maximum(hk.max(axis=-1), (6 * k + 2) / amu0) + np.sum(
            32.0 * gam * np.log(2.0 * (k + 1) * np.log((1.0 + omega) * hk) / th) / (amu0[..., None] * eta), axis=-1)
    else:
        raise ParameterError(f"form must be 'lemmas' or 'theorem6', got {form!r}")
    return np.concatenate([np.asarray(h0)[..., None], hk], axis=-1)


def duration_bound(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """Theorem 6's high-probability bound on OCEF's duration: τ ≤ Σ_{k=0}^K H_k.

    With probability ≥ 1 − δ, OCEF stops within this many steps (H_k of :func:`duration_terms`).
    The bound is loose (for means (0.5, 0.8, 0.2) and groups of 20 users it is about 4800 steps,
    where the audit of :func:`ocef.envy.runner.run_batch`'s example stops after 221) but shows
    the orders: it grows as 1/(|g| η_k²) in the gaps and as 1/(α μ_0) for the conservative
    constraint.

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0..μ_K (``means[..., 0]`` the baseline).
    delta, alpha, epsilon : float
        The OCEF parameters δ in (0, 1), α and ε in (0, 1].
    group_size : int, default 1
        |g|.
    sigma, omega : float, default 0.5 and 0.01
        Sub-gaussian parameter and ω of Lemma 3 (``form="lemmas"`` only).
    form : {"lemmas", "theorem6"}, default "lemmas"
        Constants of Lemmas 9-10 for this σ, ω, or Theorem 6 as printed.

    Returns
    -------
    float or numpy.ndarray, shape (...)
        The bound on τ.

    Examples
    --------
    Groups of 100 users need about 1/100 of the steps of single users:

    >>> means = np.array([0.5, 0.8, 0.2])
    >>> round(float(duration_bound(means, 0.05, 0.05, 0.05))), round(float(duration_bound(means, 0.05, 0.05, 0.05, 100)))
    (89274, 1389)
    """
    return duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form).sum(axis=-1)


def cost_bound(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """Theorem 7's bound on the cost of exploration: C_τ ≤ Σ_{k: μ_k < μ_0} (μ_0 − μ_k) H_k (eq. 11).

    The cost C_t of eq. (10) is the reward lost, over the audit, against always recommending the
    group's own recommendations; only arms worse than the baseline cost anything, each at most
    H_k times (:func:`duration_terms`). Holds with probability ≥ 1 − δ.

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0..μ_K (``means[..., 0]`` the baseline).
    delta, alpha, epsilon : float
        The OCEF parameters δ in (0, 1), α and ε in (0, 1].
    group_size : int, default 1
        |g|.
    sigma, omega : float, default 0.5 and 0.01
        Sub-gaussian parameter and ω of Lemma 3 (``form="lemmas"`` only).
    form : {"lemmas", "theorem6"}, default "lemmas"
        Which constants of H_k (see :func:`duration_terms`).

    Returns
    -------
    float or numpy.ndarray, shape (...)
        The bound on C_τ (in units of reward, summed over steps).

    Examples
    --------
    Only arm 2 (mean 0.2 < 0.5) costs: 0.3 · H_2 = 0.3 · 1460.

    >>> round(float(cost_bound(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05)), 1)
    438.1
    """
    means = np.asarray(means, dtype=float)
    h = duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form)[..., 1:]
    loss = np.clip(means[..., :1] - means[..., 1:], 0.0, None)
    return np.sum(loss * h, axis=-1)
