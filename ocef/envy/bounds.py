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
    """θ = log(1+ω) · (ωδ / (2(2+ω)))^(1/(1+ω))  — Lemma 3."""
    delta = np.asarray(delta, dtype=float)
    omega = np.asarray(omega, dtype=float)
    return np.log1p(omega) * (omega * delta / (2.0 * (2.0 + omega))) ** (1.0 / (1.0 + omega))


def beta_constants(delta, n_arms, group_size=1, sigma=SIGMA, omega=OMEGA):
    """The two factors of β_k(t) (Lemma 3) that do not depend on N_k(t).

    Returns (scale, factor) with scale = 2σ²(1+√ω)²(1+ω)/|g| and factor = 2(K+1)/θ, so that
    β = sqrt(scale/N · log(factor · log((1+ω)N))) (see :func:`beta_from_constants`).
    """
    omega = np.asarray(omega, dtype=float)
    scale = 2.0 * sigma ** 2 * (1.0 + np.sqrt(omega)) ** 2 * (1.0 + omega) / np.asarray(group_size, dtype=float)
    factor = 2.0 * (np.asarray(n_arms, dtype=float) + 1.0) / theta(delta, omega)
    return scale, factor


def beta_pulled(n, scale, factor, omega=OMEGA):
    """β_k(t) of Lemma 3 for N_k = n ≥ 1 from :func:`beta_constants`:
    sqrt(scale/n · log(factor · log((1+ω) n))). Plain arithmetic (scalars or arrays), also
    compiled as is by the numba kernel (:mod:`ocef.envy._kernel`)."""
    return np.sqrt(scale / n * np.log(factor * np.log((1.0 + omega) * n)))


def beta_unpulled(scale, factor, omega=OMEGA):
    """β_k(t) for N_k = 0: β(1) + ``UNPULLED_EXTRA_WIDTH`` (Lemma 3 convention, see above)."""
    return beta_pulled(1.0, scale, factor, omega) + UNPULLED_EXTRA_WIDTH


def beta_from_constants(n, scale, factor, omega=OMEGA):
    """β_k(t) of Lemma 3 from :func:`beta_constants`, with the N_k = 0 convention.

    For N_k ≥ 1: :func:`beta_pulled`; for N_k = 0: :func:`beta_unpulled` (strictly wider
    than at N_k = 1).
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
    """
    n = np.asarray(n, dtype=float)
    if np.any(n < 0):
        raise ParameterError("n (pull counts) must be >= 0")
    out = beta_from_constants(n, *beta_constants(delta, n_arms, group_size, sigma, omega), omega)
    return out[()] if np.ndim(out) == 0 else out


def phi_pulled(n_explore, delta, sigma_g):
    """φ(t) for |A_{t-1}| = ``n_explore`` ≥ 1, with σ_g = σ/√|g| (plain arithmetic)."""
    log_term = np.log(6.0 * n_explore * n_explore / delta)
    return sigma_g * np.sqrt(2.0 * n_explore * log_term) + 2.0 / 3.0 * log_term


def phi(n_explore, delta, group_size=1, sigma=SIGMA):
    """φ(t) of the lemma before Lemma 4 (Freedman's inequality), with |A_{t-1}| = ``n_explore``.

    φ(t) = σ/√|g| · sqrt(2|A| log(6|A|²/δ)) + (2/3) log(6|A|²/δ), and φ(t) = 0 when |A| = 0.
    """
    a = np.asarray(n_explore, dtype=float)
    val = phi_pulled(np.maximum(a, 1.0), delta, sigma / np.sqrt(group_size))
    out = np.where(a > 0, val, 0.0)
    return out[()] if out.ndim == 0 else out


def big_phi(sum_beta_n, n_explore, delta, group_size=1, sigma=SIGMA):
    """Φ(t) = min(Σ_{k≥1} β_k(t-1) N_k(t-1), φ(t)) — Lemma 4.

    ``sum_beta_n`` is Σ_{k=1}^K β_k(t-1) N_k(t-1) and ``n_explore`` is |A_{t-1}|.
    """
    return np.minimum(sum_beta_n, phi(n_explore, delta, group_size, sigma))


def xi(sum_explore_rewards, big_phi_t, lower_l, n_baseline, t, alpha, upper_0):
    """Conservative test ξ_t — eq. (8).

    ξ_t = Σ_{s∈A_{t-1}} r_s − Φ(t) + μ̲_{ℓ_t}(t-1) + (N_0(t-1) − (1−α) t) μ̄_0(t-1).
    Pulling ℓ_t keeps constraint (7) (under the confidence event) when ξ_t ≥ 0.
    """
    return sum_explore_rewards - big_phi_t + lower_l + (n_baseline - (1.0 - alpha) * t) * upper_0


# --------------------------------------------------------------------------- theory

def gaps(means, epsilon):
    """η_k = max(μ_k − μ_0, μ_0 + ε − μ_k) for k = 1..K — Theorem 6 (``means[0]`` = μ_0)."""
    means = np.asarray(means, dtype=float)
    mu0, mu = means[..., :1], means[..., 1:]
    return np.maximum(mu - mu0, mu0 + epsilon - mu)


def _log_plus(x):
    """log⁺(x) = max(1, log x) — Theorem 6."""
    return np.maximum(1.0, np.log(x))


def theorem6_theta(delta):
    """θ = log(2) · sqrt(δ/6) — Theorem 6 (ω = 1)."""
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
    """τ ≤ Σ_{k=0}^K H_k — Theorem 6: high-probability bound on OCEF's duration (see :func:`duration_terms`)."""
    return duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form).sum(axis=-1)


def cost_bound(means, delta, alpha, epsilon, group_size=1, sigma=SIGMA, omega=OMEGA, *, form="lemmas"):
    """C_τ ≤ Σ_{k: μ_k < μ_0} (μ_0 − μ_k) H_k — Theorem 7 (eq. 11), H_k of :func:`duration_terms`."""
    means = np.asarray(means, dtype=float)
    h = duration_terms(means, delta, alpha, epsilon, group_size, sigma, omega, form=form)[..., 1:]
    loss = np.clip(means[..., :1] - means[..., 1:], 0.0, None)
    return np.sum(loss * h, axis=-1)
