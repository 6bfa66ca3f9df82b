"""Fair re-ranking of any recommender's candidates (issue 29).

Each re-ranker is a pure function of ONE user's candidates — ``scores`` (n,), integer item
``groups`` (n,), a list length ``k`` and an ``rng`` — returning a :class:`Lottery` of rankings
(one ranking with probability 1 for deterministic methods). :data:`RERANKERS` registers them by
method name with their declared parameters and default grids; :func:`ocef.mitigate.rerank.rerank` (by method name; the package attribute
``rerank`` is that module) and :func:`rerank_batch` (vectorized over users for the deterministic methods) are the front doors.

One module per family: :mod:`~ocef.mitigate.boost` (the score-boost baseline),
:mod:`~ocef.mitigate.fair` (FA*IR), :mod:`~ocef.mitigate.detconstsort` (Geyik et al.),
:mod:`~ocef.mitigate.epsilon_greedy` (Feng & Shah), :mod:`~ocef.mitigate.calibrated` (Steck),
:mod:`~ocef.mitigate.exposure_lp` (Singh & Joachims), :mod:`~ocef.mitigate.expohedron` (Kletti et al.).

The loop: :func:`mitigate` re-ranks candidates with every grid point, writes the re-ranked
logs and re-audits each against the unmitigated top-k with paired intervals, a certificate
and the utility-disparity front (:mod:`~ocef.mitigate.loop`, :mod:`~ocef.mitigate.paired`).
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562).
_HOME = {
    'lottery': ('Lottery', 'check_candidates', 'check_candidate_matrix', 'deterministic', 'lottery_from_rankings'),
    'rerank': ('RERANKERS', 'Reranker', 'get_reranker', 'rerank_batch'),
    'boost': ('boost_rerank', 'boost_batch', 'boosted_scores', 'top_k'),
    'fair': ('fair_rerank', 'fair_batch', 'mtable', 'fail_probability', 'adjusted_mtable', 'is_fair'),
    'detconstsort': ('detconstsort_rerank', 'detconstsort_batch', 'target_shares'),
    'epsilon_greedy': ('epsilon_greedy_rerank', 'epsilon_greedy_order'),
    'exposure_lp': ('lp_rerank', 'fair_ranking_lp', 'birkhoff_von_neumann', 'position_bias'),
    'expohedron': ('expohedron_rerank', 'pareto_curve', 'caratheodory_decomposition', 'majorized', 'identify_face',
                   'face_intersection', 'group_pareto_curve', 'group_pareto_point', 'group_unfairness'),
    'calibrated': ('calibrated_rerank', 'calibrated_greedy', 'minmax_scale', 'genre_distribution'),
    # the mitigate -> re-audit loop (paired intervals, certificates, the front)
    'loop': ('mitigate', 'MitigationResult', 'arm_values'),
    'paired': ('Moments', 'delta_interval', 'paired_interval', 'equivalence_certificate'),
}
_MODULES = ("lottery", "rerank", "boost", "fair", "detconstsort", "epsilon_greedy", "calibrated", "exposure_lp",
            "expohedron", "loop", "paired")

__all__ = [
    "Lottery", "check_candidates", "check_candidate_matrix", "deterministic", "lottery_from_rankings",
    "RERANKERS", "Reranker", "get_reranker", "rerank_batch",
    "boost_rerank", "boost_batch", "boosted_scores", "top_k",
    "fair_rerank", "fair_batch", "mtable", "fail_probability", "adjusted_mtable", "is_fair",
    "detconstsort_rerank", "detconstsort_batch", "target_shares",
    "epsilon_greedy_rerank", "epsilon_greedy_order",
    "calibrated_rerank", "calibrated_greedy", "minmax_scale", "genre_distribution",
    "lp_rerank", "fair_ranking_lp", "birkhoff_von_neumann", "position_bias",
    "expohedron_rerank", "pareto_curve", "caratheodory_decomposition", "majorized", "identify_face", "face_intersection",
    "group_pareto_curve", "group_pareto_point", "group_unfairness",
    "mitigate", "MitigationResult", "arm_values",
    "Moments", "delta_interval", "paired_interval", "equivalence_certificate",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
