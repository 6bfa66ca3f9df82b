"""Recommendation policies π(a|x): users x items (or users x contexts x items) probabilities."""
from ocef.policies.adapters import (IdMap, policy_from_callable, policy_from_implicit, policy_from_scores,
                                    policy_from_surprise)
from ocef.policies.base import (ROW_SUM_ATOL, ArrayPolicy, CallablePolicy, Policy, as_policy,
                           as_probabilities, check_policy_probs, sample_rows)
from ocef.policies.builders import POLICY_NAMES, build_policy
from ocef.policies.exposure import equity_of_exposure_policy, parity_of_exposure_policy
from ocef.policies.ranking import RankingPolicy, dcg_normalizer, dcg_weights, topk_ranking_policy
from ocef.policies.standard import argmax_policy, softmax_policy, uniform_policy
from ocef.policies.utility import check_rho, utility

__all__ = [
    "ROW_SUM_ATOL", "Policy", "ArrayPolicy", "CallablePolicy", "RankingPolicy",
    "as_policy", "as_probabilities", "check_policy_probs", "sample_rows", "check_rho",
    "argmax_policy", "softmax_policy", "uniform_policy",
    "parity_of_exposure_policy", "equity_of_exposure_policy",
    "topk_ranking_policy", "POLICY_NAMES", "IdMap", "policy_from_scores", "policy_from_surprise",
    "policy_from_implicit", "policy_from_callable", "build_policy", "dcg_weights", "dcg_normalizer", "utility",
]
