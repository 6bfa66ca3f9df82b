"""Recommender bias metrics of holisticai (outcome, opportunity and item-exposure metrics), from
score matrices and from top-k logs (:mod:`ocef.metrics.from_log`). Position-aware exposure fairness
of top-k logs is its own audit, :mod:`ocef.exposure`.

Two groups, with the numbers of ``holisticai`` 1.0.14 (:mod:`ocef.metrics.recommender`), and
any number of groups with bootstrap intervals (:func:`recommender_bias`, :mod:`ocef.metrics.bias`).
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: What one family of "significant" labels is (``family`` of :func:`ocef.metrics.bias.recommender_bias`;
#: here, so that the CLI lists them without importing numpy): ``"report"`` (default) — every pair
#: p-value of every metric in the result, Holm-adjusted together (EKL tests ETV's hypothesis and shares
#: its adjusted p-value, counted once); ``"table"`` — each metric's pairs on their own (the family-wise
#: error then holds per metric, not for the report).
FAMILIES: tuple[str, ...] = ("report", "table")
#: How each family is stated in the output.
FAMILY_TEXT = {"report": "Holm-adjusted over every pair of every metric (one family for the whole report)",
               "table": "Holm-adjusted over the pairs, per metric (one family per metric's table)"}
#: Bootstrap resamples :func:`~ocef.metrics.bias.recommender_bias` computes at once; more are computed
#: in chunks of this size with a progress bar (time left) and a memory check of the replicates kept.
RESAMPLE_CHUNK = 2000

#: where each public name lives; modules are imported on first use (PEP 562), so that
#: ``ocef exposure`` on a log loads only the log reduction, not pandas' and scipy's bootstrap
#: machinery of holisticai (about 80 MB of peak memory at 10^8 rows).
_HOME = {
    'from_log': ('seed004_from_log',),
    'bias': ('RecommenderBiasResult', 'bootstrap_interval', 'bootstrap_weights', 'recommender_bias'),
    'recommender': ('aggregate_diversity', 'avg_f1_ratio', 'avg_precision_ratio', 'avg_recall_ratio', 'avg_recommendation_popularity', 'entropy', 'exposure', 'exposure_distribution', 'exposure_entropy', 'exposure_kl', 'exposure_l1', 'exposure_total_variation', 'gini', 'gini_index', 'kl_divergence', 'mad_score', 'min_max_normalize', 'recommender_bias_metrics', 'recommender_mae_ratio', 'recommender_rmse_ratio', 'total_variation'),
}
_MODULES = ("recommender", "bias", "from_log")

__all__ = [
    "recommender_bias", "RecommenderBiasResult", "bootstrap_weights", "bootstrap_interval",
    "exposure", "min_max_normalize", "exposure_distribution", "gini", "entropy", "total_variation",
    "kl_divergence", "aggregate_diversity", "gini_index", "exposure_entropy", "avg_recommendation_popularity",
    "mad_score", "exposure_total_variation", "exposure_l1", "exposure_kl", "avg_precision_ratio",
    "avg_recall_ratio", "avg_f1_ratio", "recommender_rmse_ratio", "recommender_mae_ratio",
    "recommender_bias_metrics", "seed004_from_log",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
