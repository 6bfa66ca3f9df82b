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
    """θ of Lemma 3: θ = log(1+ω) · (ωδ / (2(2+ω)))^(1/(1+ω)), the constant inside the iterated
    logarithm of the width β_k(t); it shrinks with δ, so a smaller δ widens every interval.

    Parameters
    ----------
    delta : float or array_like
        δ (the auditor's, or δ/G in a full audit, Cor. 7.1).
    omega : float or array_like
        ω in (0, 1) of Lemma 3.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> f"{float(theta(0.05)):.4g}"
    '1.353e-06'
    """
    delta = np.asarray(delta, dtype=float)
    omega = np.asarray(omega, dtype=float)
    return np.log1p(omega) * (omega * delta / (2.0 * (2.0 + omega))) ** (1.0 / (1.0 + omega))


def beta_constants(delta, n_arms, group_size=1, sigma=SIGMA, omega=OMEGA):
    """The two factors of β_k(t) (Lemma 3) that do not depend on N_k(t), computed once per auditor.

    scale = 2σ²(1+√ω)²(1+ω)/|g| and factor = 2(K+1)/θ (:func:`theta`), so that β = sqrt(scale/N ·
    log(factor · log((1+ω)N))) (:func:`beta_pulled`).

    Parameters
    ----------
    delta : float or array_like
        The confidence δ in (0, 1).
    n_arms : int or array_like
        K, the non-baseline arms (the union bound of Lemma 3 is over K+1 arms).
    group_size : int or array_like
        |g|, the users averaged at each pull (the reward is σ/√|g|-subgaussian).
    sigma : float
        Sub-gaussian parameter of one user's reward (1/2 for rewards in [0, 1]).
    omega : float or array_like
        ω in (0, 1) of Lemma 3.

    Returns
    -------
    scale, factor : numpy.ndarray

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
    """β_k(t) of Lemma 3 for an arm pulled n ≥ 1 times: sqrt(scale/n · log(factor · log((1+ω) n))).

    Plain arithmetic, also compiled by the numba kernel (``ocef.envy._kernel``); no check that
    n ≥ 1 (:func:`beta_from_constants` takes 0).

    Parameters
    ----------
    n : float or array_like
        N_k(t) ≥ 1, the pulls of the arm.
    scale, factor : float or array_like
        :func:`beta_constants`.
    omega : float
        ω of Lemma 3 (the same as for the constants).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(float(beta_pulled(10, *beta_constants(0.05, n_arms=9))), 3)
    1.03
    """
    return np.sqrt(scale / n * np.log(factor * np.log((1.0 + omega) * n)))


def beta_unpulled(scale, factor, omega=OMEGA):
    """β_k(t) of an arm never pulled: β(1) + ``UNPULLED_EXTRA_WIDTH``.

    Lemma 3 leaves N_k = 0 open; this convention is strictly wider than at N_k = 1 and at least 1,
    so [−β(0), β(0)] around μ̂_k = 0 contains [0, 1]: an unpulled arm is neither eliminated nor
    declared better.

    Parameters
    ----------
    scale, factor : float or array_like
        :func:`beta_constants`.
    omega : float
        ω of Lemma 3.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(float(beta_unpulled(*beta_constants(0.05, n_arms=9))), 3)
    3.696
    """
    return beta_pulled(1.0, scale, factor, omega) + UNPULLED_EXTRA_WIDTH


def beta_from_constants(n, scale, factor, omega=OMEGA):
    """β_k(t) of Lemma 3 from :func:`beta_constants`: :func:`beta_pulled`, or :func:`beta_unpulled`
    for N_k = 0 (the vectorized engine keeps the constants per run).

    Parameters
    ----------
    n : int or array_like of int
        N_k(t) ≥ 0.
    scale, factor : float or array_like
        The constants of :func:`beta_constants` (broadcast against ``n``).
    omega : float
        ω of Lemma 3.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> beta_from_constants(np.array([0, 1, 10]), *beta_constants(0.05, n_arms=9)).round(3).tolist()
    [3.696, 2.696, 1.03]
    """
    n = np.asarray(n, dtype=float)
    width = beta_pulled(np.maximum(n, 1.0), scale, factor, omega)
    if np.all(n >= 1):
        return width
    return np.where(n >= 1, width, beta_unpulled(scale, factor, omega))


def beta(n, delta, n_arms, group_size=1, sigma=SIGMA, omega=OMEGA):
    """Half-width β_k(t) of the anytime confidence interval — Lemma 3.

    β_k(t) = sqrt(2σ²(1+√ω)²(1+ω) / (|g| N_k(t))) · sqrt(log(2(K+1)/θ · log((1+ω) N_k(t))))

    with K = ``n_arms`` (the union bound is over K+1 arms) and |g| = ``group_size`` (the group
    reward is σ/√|g|-subgaussian); β(0) = β(1) + ``UNPULLED_EXTRA_WIDTH`` (:func:`beta_unpulled`).

    Parameters
    ----------
    n : int or array_like of int
        N_k(t) (0 allowed).
    delta : float
        The audit's confidence δ.
    n_arms : int
        K, the non-baseline arms.
    group_size : int
        |g|.
    sigma, omega : float
        Sub-gaussian parameter (1/2) and ω of Lemma 3 (0.01).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> beta(np.array([0, 1, 10, 100]), 0.05, n_arms=9).round(3).tolist()
    [3.696, 2.696, 1.03, 0.332]
    """
    n = np.asarray(n, dtype=float)
    if np.any(n < 0):
        raise ParameterError("n (pull counts) must be >= 0")
    out = beta_from_constants(n, *beta_constants(delta, n_arms, group_size, sigma, omega), omega)
    return out[()] if np.ndim(out) == 0 else out


def phi_pulled(n_explore, delta, sigma_g):
    """φ(t) of the lemma before Lemma 4 for |A_{t-1}| ≥ 1 (plain arithmetic, compiled by the kernel).

    φ(t) = σ_g · sqrt(2|A| log(6|A|²/δ)) + (2/3) log(6|A|²/δ): Freedman's bound on
    |Σ_{s∈A} (μ_{k_s} − r_s)|, the error of the rewards collected while exploring.

    Parameters
    ----------
    n_explore : float or array_like
        |A_{t-1}|, the exploration steps so far.
    delta : float
        The confidence δ in (0, 1).
    sigma_g : float or array_like
        σ/√|g|.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(float(phi_pulled(10, 0.05, 0.5)), 3)
    13.115
    """
    log_term = np.log(6.0 * n_explore * n_explore / delta)
    return sigma_g * np.sqrt(2.0 * n_explore * log_term) + 2.0 / 3.0 * log_term


def phi(n_explore, delta, group_size=1, sigma=SIGMA):
    """φ(t) of the lemma before Lemma 4 (Freedman's inequality), 0 when |A_{t-1}| = 0 (:func:`phi_pulled`).

    Parameters
    ----------
    n_explore : int or array_like of int
        |A_{t-1}|.
    delta : float
        The audit's confidence δ.
    group_size : int
        |g|.
    sigma : float
        Sub-gaussian parameter.

    Returns
    -------
    float or numpy.ndarray

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

    The width of |Σ_{s∈A_{t-1}} (μ_{k_s} − r_s)| ≤ Φ(t), used by the conservative test ξ_t of eq.
    (8) (:func:`xi`): the smaller of the per-arm bounds of Lemma 3 and Freedman's φ(t) (:func:`phi`).

    Parameters
    ----------
    sum_beta_n : float or array_like
        Σ_{k=1}^K β_k(t-1) N_k(t-1).
    n_explore : int or array_like
        |A_{t-1}|.
    delta : float
        The confidence δ in (0, 1).
    group_size : int
        |g|.
    sigma : float
        Sub-gaussian parameter of one user's reward.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> big_phi(np.array([2.0, 50.0]), 10, 0.05).round(3).tolist()      # φ = 13.115 caps the large sum
    [2.0, 13.115]
    """
    return np.minimum(sum_beta_n, phi(n_explore, delta, group_size, sigma))


def xi(sum_explore_rewards, big_phi_t, lower_l, n_baseline, t, alpha, upper_0):
    """Conservative test ξ_t of eq. (8) (Algorithm 1, line 4).

    ξ_t = Σ_{s∈A_{t-1}} r_s − Φ(t) + μ̲_{ℓ_t}(t-1) + (N_0(t-1) − (1−α) t) μ̄_0(t-1),

    a lower bound on the safety budget Z_t of constraint (7) if the candidate ℓ_t is pulled
    (App. G.2): OCEF pulls ℓ_t only when ξ_t ≥ 0, else the baseline arm 0.

    Parameters
    ----------
    sum_explore_rewards : float or array_like
        Σ_{s∈A_{t-1}} r_s.
    big_phi_t : float or array_like
        Φ(t) (:func:`big_phi`).
    lower_l : float or array_like
        μ̲_{ℓ_t}(t-1).
    n_baseline : int or array_like
        N_0(t-1).
    t : int or array_like
        The step t ≥ 1.
    alpha : float or array_like
        α of constraint (7).
    upper_0 : float or array_like
        μ̄_0(t-1).

    Returns
    -------
    float or numpy.ndarray
        Negative means "pull the baseline".

    Examples
    --------
    >>> round(xi(4.0, 2.0, 0.3, n_baseline=6, t=12, alpha=0.1, upper_0=0.6), 2)
    -0.58
    """
    return sum_explore_rewards - big_phi_t + lower_l + (n_baseline - (1.0 - alpha) * t) * upper_0


# --------------------------------------------------------------------------- theory

def gaps(means, epsilon):
    """Gaps η_k = max(μ_k − μ_0, μ_0 + ε − μ_k), k = 1..K, of Theorems 1 and 6: how easy arm k is to
    decide (the duration bound grows as 1/η_k²).

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        μ_0, μ_1, ..., μ_K (``means[..., 0]`` the baseline).
    epsilon : float
        ε of the ε-NO-ENVY certificate.

    Returns
    -------
    numpy.ndarray, shape (..., K)

    Examples
    --------
    >>> gaps(np.array([0.5, 0.6, 0.3]), epsilon=0.05).round(6).tolist()
    [0.1, 0.25]
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

    Examples
    --------
    >>> round(float(theorem6_theta(0.05)), 4)
    0.0633
    """
    return math.log(2.0) * np.sqrt(np.asarray(delta, dtype=float) / 6.0)


def duration_terms(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """(H_0, H_1..H_K), the bounds on N_k(τ) whose sum bounds the duration τ (Theorem 6).

    ``form="lemmas"`` evaluates Lemmas 9 and 10 of App. G.3 with the run's σ and ω (θ of Lemma 3,
    Γ_ω = 2σ²(1+√ω)²(1+ω)/|g|):

    H_k = 1 + 16Γ_ω/η_k² · log(2(K+1) log⁺((1+ω)·32(K+1)Γ_ω/(θη_k²)) / θ)            (Lemma 9)
    H_0 = max(max_k H_k, (6K+2)/(αμ_0)) + Σ_k 32Γ_ω log(2(K+1) log((1+ω)H_k)/θ) / (αμ_0 η_k)   (Lemma 10)

    ``form="theorem6"`` is Theorem 6 as printed, with the constants of σ = 1/2, ω = 1 (θ = log 2 ·
    sqrt(δ/6)); ``sigma`` and ``omega`` are then ignored:

    H_k = 1 + 64/(|g|η_k²) · log(2(K+1) log⁺(128(K+1)/(θ|g|η_k²)) / θ),
    H_0 = max(max_k H_k, (6K+2)/(αμ_0) + Σ_k 256 log(2(K+1) log(2H_k)/θ) / (αμ_0|g|η_k)).

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        μ_0..μ_K (μ_0 > 0 the baseline).
    delta, alpha, epsilon : float
        Algorithm 1's parameters.
    group_size : int
        |g|.
    sigma, omega : float
        ``form="lemmas"`` only.
    form : {"lemmas", "theorem6"}
        Which constants (see above).

    Returns
    -------
    numpy.ndarray, shape (..., K+1)
        H_0, H_1, ..., H_K; infinite where a gap is 0.

    Examples
    --------
    >>> duration_terms(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05).round(0).tolist()
    [85824.0, 1989.0, 1460.0]
    >>> duration_terms(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05, form="theorem6").round(0).tolist()
    [428784.0, 4951.0, 3623.0]
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
    """Theorem 6's high-probability bound on OCEF's duration: τ ≤ Σ_{k=0}^K H_k (:func:`duration_terms`).

    Loose (means (0.5, 0.8, 0.2), groups of 20: about 4800 steps where :func:`ocef.envy.runner.run_batch`'s
    example stops after 221), but it shows the orders: 1/(|g| η_k²) in the gaps, 1/(α μ_0) for the
    conservative constraint.

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0..μ_K (``means[..., 0]`` the baseline).
    delta, alpha, epsilon : float
        The OCEF parameters δ in (0, 1), α and ε in (0, 1].
    group_size : int
        |g|.
    sigma, omega : float
        Sub-gaussian parameter and ω of Lemma 3 (``form="lemmas"`` only).
    form : {"lemmas", "theorem6"}
        Constants of Lemmas 9-10 for this σ, ω, or Theorem 6 as printed (:func:`duration_terms`).

    Returns
    -------
    float or numpy.ndarray, shape (...)

    Examples
    --------
    >>> means = np.array([0.5, 0.8, 0.2])                     # groups of 100: 1/100 of the steps
    >>> round(float(duration_bound(means, 0.05, 0.05, 0.05))), round(float(duration_bound(means, 0.05, 0.05, 0.05, 100)))
    (89274, 1389)
    """
    return duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form).sum(axis=-1)


def cost_bound(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """Theorem 7's bound on the cost of exploration: C_τ ≤ Σ_{k: μ_k < μ_0} (μ_0 − μ_k) H_k (eq. 11).

    C_t of eq. (10) is the reward lost against always recommending the group's own recommendations:
    only arms worse than the baseline cost, each at most H_k times. Holds with probability ≥ 1 − δ.

    Parameters
    ----------
    means : array_like, shape (..., K+1)
        True arm means μ_0..μ_K (``means[..., 0]`` the baseline).
    delta, alpha, epsilon : float
        The OCEF parameters δ in (0, 1), α and ε in (0, 1].
    group_size : int
        |g|.
    sigma, omega : float
        Sub-gaussian parameter and ω of Lemma 3 (``form="lemmas"`` only).
    form : {"lemmas", "theorem6"}
        As in :func:`duration_terms`.

    Returns
    -------
    float or numpy.ndarray, shape (...)

    Examples
    --------
    >>> round(float(cost_bound(np.array([0.5, 0.8, 0.2]), 0.05, 0.05, 0.05)), 1)     # 0.3 · H_2
    438.1
    """
    means = np.asarray(means, dtype=float)
    h = duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form)[..., 1:]
    loss = np.clip(means[..., :1] - means[..., 1:], 0.0, None)
    return np.sum(loss * h, axis=-1)
