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


# ---- obp/ope/estimators_slate.py (round rewards; V = rows.sum() / n_unique_slates)

def slate_ipw(reward, behavior_policy_pscore, evaluation_policy_pscore):
    iw = evaluation_policy_pscore / behavior_policy_pscore
    estimated_rewards = reward * iw
    return estimated_rewards


def slate_snipw_per_position(reward, position, behavior_policy_pscore, evaluation_policy_pscore, len_list):
    estimated_rewards = np.zeros_like(behavior_policy_pscore)
    iw = np.zeros_like(behavior_policy_pscore)
    for pos_ in range(len_list):
        idx = position == pos_
        iw[idx] = evaluation_policy_pscore[idx] / behavior_policy_pscore[idx]
        estimated_rewards[idx] = reward[idx] * iw[idx] / iw[idx].mean()
    return estimated_rewards


def slate_snsips(reward, behavior_policy_pscore, evaluation_policy_pscore):
    estimated_rewards = np.zeros_like(behavior_policy_pscore)
    iw = evaluation_policy_pscore / behavior_policy_pscore
    estimated_rewards = reward * iw / iw.mean()
    return estimated_rewards


def cascade_dr(action, reward, behavior_policy_pscore, evaluation_policy_pscore, q_hat,
               evaluation_policy_action_dist, len_list, n_unique_action, n_rounds_):
    q_hat_3d = q_hat.reshape((-1, len_list, n_unique_action))
    q_hat_for_observed_action = []
    for i in range(n_rounds_):
        for pos_ in range(len_list):
            q_hat_for_observed_action.append(q_hat_3d[i, pos_, action[i * len_list + pos_]])
    q_hat_for_observed_action = np.array(q_hat_for_observed_action)
    expected_q_hat_under_eval_policy = (
        (evaluation_policy_action_dist * q_hat)
        .reshape((-1, len_list, n_unique_action))
        .sum(axis=2)
        .flatten()
    )
    iw = evaluation_policy_pscore / behavior_policy_pscore
    iw_prev = np.roll(iw, 1)
    iw_prev[np.array([i * len_list for i in range(n_rounds_)])] = 1
    estimated_rewards = (
        iw * (reward - q_hat_for_observed_action)
        + iw_prev * expected_q_hat_under_eval_policy
    )
    return estimated_rewards


def slate_bootstrap_rows(slate_id, estimated_rewards):
    unique_slate = np.unique(slate_id)
    estimated_round_rewards = list()
    for slate in unique_slate:
        estimated_round_rewards.append(estimated_rewards[slate_id == slate].sum())
    return np.array(estimated_round_rewards)
