"""The shared parameter check generated from the declarations (as scikit-learn's
``check_param_validation``): every front door decorated with :func:`ocef.validation.validate_params`
is listed in :data:`ocef.validation.DECLARED`; for each declared parameter, every invalid value its
constraint generates must raise ``ValueError``/``TypeError`` (ocef.errors) naming the parameter —
and the call with valid arguments must work. A new declared front door without an entry in VALID
fails ``test_every_declared_front_door_has_valid_arguments``."""
import tempfile

import numpy as np
import pandas as pd
import pytest

import ocef.envy.audit
import ocef.envy.auditor
import ocef.envy.exact
import ocef.envy.live
import ocef.envy.runner
import ocef.exposure.audit
import ocef.exposure.frame
import ocef.exposure.ranking_metrics
import ocef.exposure.statistics
import ocef.fairrec.search
import ocef.metrics.bias
import ocef.mitigate.boost
import ocef.mitigate.calibrated
import ocef.mitigate.detconstsort
import ocef.mitigate.epsilon_greedy
import ocef.mitigate.expohedron
import ocef.mitigate.exposure_lp
import ocef.mitigate.fair
import ocef.mitigate.loop
import ocef.mitigate.paired
import ocef.offpolicy.audit
import ocef.offpolicy.scale
import ocef.pairwise.accuracy
import ocef.reo.ab
import ocef.reo.bootstrap
import ocef.reo.daily
import ocef.reo.estimate
import ocef.reo.estimators
import ocef.reo.simulate  # noqa: F401  (registers its front doors)
import ocef.reo.planning
import ocef.pairwise.counts
import ocef.metrics.from_log
import ocef.datasets.toy
import ocef.fairrec.unfairness
import ocef.inference
import ocef.metrics.recommender
import ocef.pairwise.simulate
import ocef.reo.counts
from ocef.environments.bandits import paper_instance
from ocef.errors import OcefError
from ocef.validation import DECLARED

RNG = np.random.default_rng(0)
RHO = RNG.uniform(size=(6, 3))
PROBS = RNG.dirichlet(np.ones(3), size=6)
LABELS = np.array([0, 0, 1, 1, 2, 2])
N = 400
LOG_D = pd.DataFrame({"Y": np.tile([1, 0, 1, 1], N // 4), "S": np.repeat([0, 1], N // 2), "day": np.tile([1, 2], N // 2)})
LOG_R = pd.DataFrame({"Y": np.tile([1, 1, 0, 0], N // 4), "S": np.tile([0, 1], N // 2), "day": np.tile([1, 2], N // 2)})
PAIRS = pd.DataFrame({"query": np.arange(40), "j": np.arange(40), "jp": np.arange(40) + 100,
                      "s_j": RNG.integers(0, 2, 40), "s_jp": RNG.integers(0, 2, 40), "score_j": RNG.normal(size=40),
                      "score_jp": RNG.normal(size=40)})
SEED004_LOG = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 0, 2], "ug": ["a", "a", "b", "b"],
                            "score": [0.9, 0.8, 0.7, 0.6], "relevance": [1, 0, 1, 1]})
OP_LOG = pd.DataFrame({"user": np.arange(40), "item": np.tile([0, 1], 20), "reward": np.tile([1, 0, 0, 1], 10),
                       "propensity": 0.5})
OP_TARGET = pd.DataFrame({"item": [0, 1], "probability": [0.7, 0.3]})
RLOG = pd.DataFrame({"user": np.repeat(np.arange(4), 2), "item": np.arange(8), "rank": np.tile([1, 2], 4),
                     "relevance": np.tile([1.0, 0.0], 4), "g": list("abbaabab")})
MOMENTS = {"n": 4, "sum": 2.0, "sum_sq": 1.5}
GA, GB = np.array([1, 1, 1, 0, 0, 0]), np.array([0, 0, 0, 1, 1, 1])
TRUTH = (RHO > 0.5).astype(float)
CONFIGS = pd.DataFrame({"instance": [1], "alpha": [0.1], "delta": [0.05], "epsilon": [0.05]})


def _one_user(**options):
    """Valid arguments of a re-ranker of one user's candidates (the same for every method)."""
    return lambda: dict(scores=RHO[0], groups=LABELS[:3], k=2, rng=0, **options)


def _batch(**options):
    """Valid arguments of a batch re-ranker (users x candidates)."""
    return lambda: dict(scores=RHO, groups=np.tile([0, 1, 1], (6, 1)), k=2, **options)


def _pair_world():
    return ocef.reo.simulate.as_world(preferences=[[0.9, 0.2, 0.6, 0.4], [0.3, 0.8, 0.5, 0.7]],
                                      item_groups=[0, 0, 1, 1], scores=[[4.0, 1.0, 3.0, 2.0], [1.0, 4.0, 2.0, 3.0]])


def _world():
    return ocef.reo.simulate.make_traffic_world(n_users=20, n_items=10, rng=0)


def _problem():
    return ocef.envy.audit.AuditProblem(RHO, PROBS, LABELS)


# qualified name -> (callable taking the keyword arguments, valid keyword arguments)
def _oracle():
    users = pd.DataFrame({"g": np.repeat([0, 1], 20), "mrr": np.linspace(0, 1, 40)})
    return ocef.fairrec.search.GroupOracle.from_user_metrics(users, ["g"], "mrr", min_users=5)


VALID = {
    "ocef.fairrec.search.search": (ocef.fairrec.search.search, lambda: dict(
        oracle=_oracle(), method="exhaustive", n_resamples=5, rng=0)),
    "ocef.envy.auditor.OCEF.__init__": (ocef.envy.auditor.OCEF, lambda: dict(n_arms=3, delta=0.05, alpha=0.05,
                                                                            epsilon=0.05)),
    "ocef.envy.live.audit_live": (ocef.envy.live.audit_live, lambda: dict(
        pull=lambda g, a: 0.5, n_groups=2, group_sizes=[1, 1], alpha=0.5, delta=0.5, epsilon=0.5, max_steps=3)),
    "ocef.reo.simulate.make_traffic_world": (ocef.reo.simulate.make_traffic_world,
                                             lambda: dict(n_users=20, n_items=10, rng=0)),
    "ocef.reo.simulate.simulate_traffic": (ocef.reo.simulate.simulate_traffic, lambda: dict(
        world=_world(), requests_per_day=50, k=2, rng=0)),
    "ocef.reo.simulate.simulate_ab": (ocef.reo.simulate.simulate_ab, lambda: dict(
        world=_world(), arms={"a": None, "b": None}, requests_per_day=50, k=2, rng=0)),
    "ocef.reo.simulate.stream_traffic": (ocef.reo.simulate.stream_traffic, lambda: dict(
        world=_world(), out_dir=tempfile.mkdtemp(prefix="ocef-stream-"), requests_per_day=20, k=2, rng=0)),
    "ocef.envy.exact.envy_report": (ocef.envy.exact.envy_report, lambda: dict(rho=RHO, probs=PROBS, labels=LABELS)),
    "ocef.envy.runner.run_bandits": (ocef.envy.runner.run_bandits, lambda: dict(
        configs=CONFIGS, means={1: paper_instance(1)}, trials=1, max_steps=5, rng=0)),
    "ocef.envy.audit.AuditProblem.__init__": (ocef.envy.audit.AuditProblem,
                                              lambda: dict(rho=RHO, policy=PROBS, labels=LABELS)),
    "ocef.envy.audit.run_audit": (ocef.envy.audit.run_audit, lambda: dict(problem=_problem(), max_steps=5, rng=0)),
    "ocef.reo.estimate.estimate_reo": (ocef.reo.estimate.estimate_reo,
                                         lambda: dict(default=LOG_D, random=LOG_R)),
    "ocef.reo.bootstrap.bootstrap_reo_ci": (ocef.reo.bootstrap.bootstrap_reo_ci,
                                            lambda: dict(default=LOG_D, random=LOG_R, n_resamples=10, rng=0)),
    "ocef.reo.ab.ab_test": (ocef.reo.ab.ab_test, lambda: dict(control=LOG_D, treatment=LOG_D, random=LOG_R,
                                                              n_resamples=10, rng=0)),
    "ocef.reo.daily.estimate_reo_by": (ocef.reo.daily.estimate_reo_by,
                                       lambda: dict(default=LOG_D, random=LOG_R, by="day")),
    "ocef.metrics.bias.recommender_bias": (ocef.metrics.bias.recommender_bias, lambda: dict(
        scores=RHO, groups=LABELS, k=1, n_resamples=5, rng=0)),
    "ocef.offpolicy.audit.offpolicy_audit": (ocef.offpolicy.audit.offpolicy_audit, lambda: dict(
        log=OP_LOG, target=OP_TARGET, estimators=["ips"])),
    "ocef.offpolicy.audit.slate_audit": (ocef.offpolicy.audit.slate_audit, lambda: dict(
        log=pd.DataFrame({"slate_id": np.repeat(np.arange(20), 2), "position": np.tile([0, 1], 20),
                          "reward": np.tile([1.0, 0.0], 20), "propensity": 0.5, "target_probability": 0.5,
                          "propensity_prefix": 0.25, "target_probability_prefix": 0.25}),
        estimators=["iips"])),
    "ocef.offpolicy.scale.group_values": (ocef.offpolicy.scale.group_values, lambda: dict(
        sums=ocef.offpolicy.scale.group_sums(OP_LOG, OP_TARGET))),
    "ocef.pairwise.accuracy.pairwise_accuracy": (ocef.pairwise.accuracy.pairwise_accuracy, lambda: dict(
        pairs=PAIRS, n_resamples=5, rng=0)),
    "ocef.pairwise.counts.pair_counts": (ocef.pairwise.counts.pair_counts, lambda: dict(pairs=PAIRS)),
    "ocef.reo.simulate.default_recommendations": (ocef.reo.simulate.default_recommendations,
                                                  lambda: dict(world=_world(), k=2)),
    "ocef.reo.simulate.ground_truth": (ocef.reo.simulate.ground_truth, lambda: dict(world=_world(), k=2)),
    "ocef.reo.simulate.expected_relevance": (ocef.reo.simulate.expected_relevance,
                                             lambda: dict(world=_world(), k=2, p_act=0.1)),
    "ocef.reo.planning.expected_random_rows": (ocef.reo.planning.expected_random_rows,
                                               lambda: dict(p_act=0.1, n_requests=100, k=2)),
    "ocef.reo.planning.p_act_for": (ocef.reo.planning.p_act_for, lambda: dict(n_random=10, n_requests=100, k=2)),
    "ocef.metrics.from_log.seed004_from_log": (ocef.metrics.from_log.seed004_from_log, lambda: dict(
        source=SEED004_LOG, n_items=4, user_group="ug")),
    "ocef.datasets.toy.make_toy_envy": (ocef.datasets.toy.make_toy_envy, lambda: dict(n_per_group=2)),
    "ocef.datasets.toy.make_toy_reo_log": (ocef.datasets.toy.make_toy_reo_log, lambda: dict(n_per_group=100)),
    "ocef.datasets.toy.make_toy_reo_logs": (ocef.datasets.toy.make_toy_reo_logs, lambda: dict(n_per_group=100)),
    "ocef.datasets.toy.make_toy_reo_daily": (ocef.datasets.toy.make_toy_reo_daily, lambda: dict(n_per_group=1000)),
    "ocef.datasets.toy.make_toy_rankings": (ocef.datasets.toy.make_toy_rankings, lambda: dict(n_users=20, k=3,
                                                                                            n_items=6, rng=0)),
    "ocef.datasets.toy.make_toy_propensity_log": (ocef.datasets.toy.make_toy_propensity_log,
                                                  lambda: dict(n=20, slate=False, rng=0)),
    # re-rankers (issue 29): one user's candidates, or a (users x candidates) batch
    "ocef.mitigate.boost.boost_rerank": (ocef.mitigate.boost.boost_rerank, _one_user()),
    "ocef.mitigate.boost.boost_batch": (ocef.mitigate.boost.boost_batch, _batch()),
    "ocef.mitigate.calibrated.calibrated_rerank": (ocef.mitigate.calibrated.calibrated_rerank,
                                                   _one_user(lam=0.5, target=[0.5, 0.5])),
    "ocef.mitigate.exposure_lp.lp_rerank": (ocef.mitigate.exposure_lp.lp_rerank, _one_user(lam=1.0)),
    "ocef.mitigate.expohedron.expohedron_rerank": (ocef.mitigate.expohedron.expohedron_rerank,
                                                   _one_user(alpha=0.5, fairness="demographic")),
    "ocef.mitigate.fair.fair_rerank": (ocef.mitigate.fair.fair_rerank, _one_user(p=0.5, alpha=0.1)),
    "ocef.mitigate.fair.fair_batch": (ocef.mitigate.fair.fair_batch, _batch(p=0.5, alpha=0.1)),
    "ocef.mitigate.fair.mtable": (ocef.mitigate.fair.mtable, lambda: dict(k=10, p=0.5, alpha=0.1)),
    "ocef.mitigate.fair.adjusted_mtable": (ocef.mitigate.fair.adjusted_mtable, lambda: dict(k=10, p=0.5, alpha=0.1)),
    "ocef.mitigate.fair.is_fair": (ocef.mitigate.fair.is_fair, lambda: dict(
        protected_flags=[1, 0, 1, 0, 1, 0, 1, 0, 1, 0], k=10, p=0.5, alpha=0.1)),
    "ocef.mitigate.detconstsort.detconstsort_rerank": (ocef.mitigate.detconstsort.detconstsort_rerank,
                                                       _one_user(target="equal")),
    "ocef.mitigate.detconstsort.detconstsort_batch": (ocef.mitigate.detconstsort.detconstsort_batch,
                                                      _batch(target=[0.5, 0.5])),
    "ocef.mitigate.epsilon_greedy.epsilon_greedy_rerank": (ocef.mitigate.epsilon_greedy.epsilon_greedy_rerank,
                                                           _one_user(epsilon=0.5, legacy_seed=3)),
    # the mitigate -> re-audit loop (issue 29)
    "ocef.mitigate.loop.mitigate": (ocef.mitigate.loop.mitigate, lambda: dict(
        candidates=pd.DataFrame({"user": np.repeat([0, 1], 3), "item": np.tile([0, 1, 2], 2),
                                 "score": [0.9, 0.5, 0.1, 0.8, 0.4, 0.2], "g": ["a", "b", "b"] * 2}),
        item_group="g", k=2, rng=0)),
    "ocef.mitigate.paired.equivalence_certificate": (ocef.mitigate.paired.equivalence_certificate, lambda: dict(
        estimates=[0.01], ses=[0.01], df=10)),
    "ocef.exposure.audit.exposure_fairness": (ocef.exposure.audit.exposure_fairness, lambda: dict(
        rankings=RLOG, item_group="g")),
    "ocef.exposure.statistics.ranking_statistics": (ocef.exposure.statistics.ranking_statistics, lambda: dict(
        source=RLOG, item_group="g")),
    "ocef.exposure.ranking_metrics.ranking_fairness": (ocef.exposure.ranking_metrics.ranking_fairness, lambda: dict(
        source=RLOG, item_group="g", metrics=["awrf", "ndkl"])),
    "ocef.exposure.ranking_metrics.per_user_fairness": (ocef.exposure.ranking_metrics.per_user_fairness,
                                                        lambda: dict(source=RLOG, item_group="g", metrics=["ndkl"])),
    "ocef.exposure.frame.mean_interval": (ocef.exposure.frame.mean_interval, lambda: dict(
        n=4, total=2.0, total_sq=1.5)),
    "ocef.exposure.frame.compare_means": (ocef.exposure.frame.compare_means, lambda: dict(a=MOMENTS, b=MOMENTS)),
    "ocef.exposure.frame.hall_interval": (ocef.exposure.frame.hall_interval, lambda: dict(
        n=4, total=2.0, total_sq=1.5, total_cu=1.25)),
    "ocef.exposure.frame.metric_frame": (ocef.exposure.frame.metric_frame, lambda: dict(
        data=pd.DataFrame({"user": range(4), "m": [0.1, 0.4, 0.2, 0.5], "s": list("aabb")}), metrics="m", by="s")),
    "ocef.exposure.frame.metric_frame_from_moments": (ocef.exposure.frame.metric_frame_from_moments, lambda: dict(
        table=pd.DataFrame({"s": ["a", "b"], "metric": "m", "n": [3, 3], "sum": [1.0, 2.0], "sum_sq": [0.5, 1.5],
                            "min": 0.0, "max": 1.0}), by=["s"])),
    # issue 27: the remaining front doors (seed 004's holisticai metrics, REO counts, FairRec's user
    # metrics, the pairwise simulators, Wilson's interval)
    "ocef.inference.wilson_interval": (ocef.inference.wilson_interval, lambda: dict(successes=3, n=10)),
    "ocef.reo.counts.reo_counts": (ocef.reo.counts.reo_counts, lambda: dict(logs={"default": LOG_D, "random": LOG_R})),
    "ocef.fairrec.unfairness.user_metrics": (ocef.fairrec.unfairness.user_metrics, lambda: dict(
        candidates=pd.DataFrame({"user": [0, 0, 0, 1, 1, 1], "item": [0, 1, 2, 0, 1, 2], "label": [0, 1, 0, 1, 0, 0]}),
        scores=[0.9, 0.5, 0.1, 0.2, 0.8, 0.3], k=2)),
    "ocef.pairwise.simulate.pairs_truth": (ocef.pairwise.simulate.pairs_truth, lambda: dict(world=_pair_world())),
    "ocef.pairwise.simulate.simulate_pairs": (ocef.pairwise.simulate.simulate_pairs, lambda: dict(
        world=_pair_world(), n_requests=50, p_pair=0.5, rng=0)),
    "ocef.metrics.recommender.exposure": (ocef.metrics.recommender.exposure, lambda: dict(scores=RHO, k=1)),
    "ocef.metrics.recommender.aggregate_diversity": (ocef.metrics.recommender.aggregate_diversity, lambda: dict(scores=RHO, k=1)),
    "ocef.metrics.recommender.gini_index": (ocef.metrics.recommender.gini_index, lambda: dict(scores=RHO, k=1)),
    "ocef.metrics.recommender.exposure_entropy": (ocef.metrics.recommender.exposure_entropy, lambda: dict(scores=RHO, k=1)),
    "ocef.metrics.recommender.avg_recommendation_popularity": (ocef.metrics.recommender.avg_recommendation_popularity, lambda: dict(scores=RHO, k=1)),
    "ocef.metrics.recommender.gini": (ocef.metrics.recommender.gini, lambda: dict(dist=[0.2, 0.3, 0.5])),
    "ocef.metrics.recommender.exposure_total_variation": (ocef.metrics.recommender.exposure_total_variation, lambda: dict(group_a=GA, group_b=GB, scores=RHO, k=1)),
    "ocef.metrics.recommender.exposure_kl": (ocef.metrics.recommender.exposure_kl, lambda: dict(group_a=GA, group_b=GB, scores=RHO, k=1)),
    "ocef.metrics.recommender.mad_score": (ocef.metrics.recommender.mad_score, lambda: dict(group_a=GA, group_b=GB, scores=RHO)),
    "ocef.metrics.recommender.avg_precision_ratio": (ocef.metrics.recommender.avg_precision_ratio, lambda: dict(group_a=GA, group_b=GB, scores=RHO, truth=TRUTH, k=1)),
    "ocef.metrics.recommender.avg_recall_ratio": (ocef.metrics.recommender.avg_recall_ratio, lambda: dict(group_a=GA, group_b=GB, scores=RHO, truth=TRUTH, k=1)),
    "ocef.metrics.recommender.avg_f1_ratio": (ocef.metrics.recommender.avg_f1_ratio, lambda: dict(group_a=GA, group_b=GB, scores=RHO, truth=TRUTH, k=1)),
    "ocef.metrics.recommender.recommender_rmse_ratio": (ocef.metrics.recommender.recommender_rmse_ratio, lambda: dict(group_a=GA, group_b=GB, scores=RHO, truth=TRUTH)),
    "ocef.metrics.recommender.recommender_mae_ratio": (ocef.metrics.recommender.recommender_mae_ratio, lambda: dict(group_a=GA, group_b=GB, scores=RHO, truth=TRUTH)),
    "ocef.metrics.recommender.recommender_bias_metrics": (ocef.metrics.recommender.recommender_bias_metrics, lambda: dict(group_a=GA, group_b=GB, scores=RHO, k=1)),
}

CASES = [(name, param, value) for name, (_, decl) in sorted(DECLARED.items()) for param, constraint in decl.items()
         for value in constraint.invalid_values()]


def test_every_declared_front_door_has_valid_arguments():
    assert len(DECLARED) >= 15
    assert sorted(set(DECLARED) - set(VALID)) == []


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_arguments_work(name):
    make, valid = VALID[name]
    make(**valid())


@pytest.mark.parametrize("name, param, value", CASES, ids=[f"{n.rsplit('.', 2)[-2:]}-{p}={v!r}"[:80]
                                                           for n, p, v in CASES])
def test_declared_invalid_values_raise_a_clear_error(name, param, value):
    make, valid = VALID[name]
    with pytest.raises((ValueError, TypeError)) as info:
        make(**{**valid(), param: value})
    assert isinstance(info.value, OcefError), f"{name}({param}={value!r}) raised {type(info.value).__name__}"
    # (the declarations of i19/i20's doors raise OcefError too: the check runs before their own)
    assert param in str(info.value), f"{name}({param}={value!r}): {info.value} does not name {param}"
