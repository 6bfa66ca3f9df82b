"""Reference code vendored from Open Bandit Pipeline, for the equality tests only.

Source: https://github.com/st-tech/zr-obp, commit 8cbd5fa (2022-11-04, obp 0.5.5), files
obp/ope/estimators.py (the ``_estimate_round_rewards`` bodies of ReplayMethod,
InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting, DirectMethod, DoublyRobust,
SelfNormalizedDoublyRobust, SwitchDoublyRobust, DoublyRobustWithShrinkage), obp/ope/estimators_slate.py
and obp/utils.py (``estimate_confidence_interval_by_bootstrap``).
Copyright (c) Yuta Saito, Yusuke Narita, and ZOZO Technologies, Inc. Licensed under the Apache
License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0). Changes: the methods are
written as plain functions (``self.lambda_`` -> ``lambda_``; ``check_random_state`` ->
``np.random.RandomState``, which is what scikit-learn's returns for an int); input checks
dropped; the arithmetic is unchanged.
"""
import numpy as np


def rm(reward, action, action_dist, position):
    action_match = np.array(action_dist[np.arange(action.shape[0]), action, position] == 1)
    estimated_rewards = np.zeros_like(action_match)
    if action_match.sum() > 0.0:
        estimated_rewards = action_match * reward / action_match.mean()
    return estimated_rewards


def ipw(reward, action, pscore, action_dist, position, lambda_=np.inf):
    iw = action_dist[np.arange(action.shape[0]), action, position] / pscore
    # weight clipping
    if isinstance(iw, np.ndarray):
        iw = np.minimum(iw, lambda_)
    return reward * iw


def snipw(reward, action, pscore, action_dist, position):
    iw = action_dist[np.arange(action.shape[0]), action, position] / pscore
    return reward * iw / iw.mean()


def dm(action_dist, estimated_rewards_by_reg_model, position):
    n = position.shape[0]
    q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    return np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)


def dr(reward, action, pscore, action_dist, estimated_rewards_by_reg_model, position, lambda_=np.inf):
    n = action.shape[0]
    iw = action_dist[np.arange(n), action, position] / pscore
    # weight clipping
    if isinstance(iw, np.ndarray):
        iw = np.minimum(iw, lambda_)
    q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
    q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated_rewards = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    estimated_rewards += iw * (reward - q_hat_factual)
    return estimated_rewards


def sndr(reward, action, pscore, action_dist, estimated_rewards_by_reg_model, position):
    n = action.shape[0]
    iw = action_dist[np.arange(n), action, position] / pscore
    q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
    q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated_rewards = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    estimated_rewards += iw * (reward - q_hat_factual) / iw.mean()
    return estimated_rewards


def switch_dr(reward, action, pscore, action_dist, estimated_rewards_by_reg_model, position, lambda_=np.inf):
    n = action.shape[0]
    iw = action_dist[np.arange(n), action, position] / pscore
    switch_indicator = np.array(iw <= lambda_, dtype=int)
    q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
    q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated_rewards = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    estimated_rewards += switch_indicator * iw * (reward - q_hat_factual)
    return estimated_rewards


def dr_os(reward, action, pscore, action_dist, estimated_rewards_by_reg_model, position, lambda_=0.0):
    n = action.shape[0]
    iw = action_dist[np.arange(n), action, position] / pscore
    if lambda_ < np.inf:
        iw_hat = (lambda_ * iw) / (iw**2 + lambda_)
    else:
        iw_hat = iw
    q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
    q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
    pi_e_at_position = action_dist[np.arange(n), :, position]
    estimated_rewards = np.average(q_hat_at_position, weights=pi_e_at_position, axis=1)
    estimated_rewards += iw_hat * (reward - q_hat_factual)
    return estimated_rewards


def estimate_confidence_interval_by_bootstrap(samples, alpha=0.05, n_bootstrap_samples=10000, random_state=None):
    boot_samples = list()
    random_ = np.random.RandomState(random_state)
    for _ in np.arange(n_bootstrap_samples):
        boot_samples.append(np.mean(random_.choice(samples, size=samples.shape[0])))
    lower_bound = np.percentile(boot_samples, 100 * (alpha / 2))
    upper_bound = np.percentile(boot_samples, 100 * (1.0 - alpha / 2))
    return {
        "mean": np.mean(boot_samples),
        f"{100 * (1. - alpha)}% CI (lower)": lower_bound,
        f"{100 * (1. - alpha)}% CI (upper)": upper_bound,
    }
