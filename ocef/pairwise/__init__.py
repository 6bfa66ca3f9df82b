"""Pairwise fairness from randomized pairs (Beutel et al. 2019, Sec. 3-6).

* :mod:`ocef.pairwise.counts` — the pairs table (``query, j, jp, s_j, s_jp, z, score_j,
  score_jp``), its checks and its reduction to counts (pandas or DuckDB);
* :mod:`ocef.pairwise.accuracy` — overall / intra / inter pairwise accuracies with clustered
  bootstrap intervals, the per-kind summary (ratio, gap), eq. (7), exposure (Sec. 6.4), rank
  positions (eq. 8);
* :mod:`ocef.pairwise.regularizer` — |Corr(A, B)| of eq. (10)-(12) with its exact gradient and
  a numpy matrix-factorisation trainer minimising squared error + λ·|Corr|;
* :mod:`ocef.pairwise.simulate` — randomized pairs served on a :class:`ocef.reo.simulate.TrafficWorld`
  with their exact pairwise accuracies;
* :mod:`ocef.pairwise.lemmas` — the calibrated / equal-MSE models of Lemmas 1-2 (Sec. 4.2);
* :mod:`ocef.pairwise.datasets` — scored pairs of Coat and the Open Bandit Dataset.
"""
from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562), so ``ocef pairwise``
#: on a file loads neither the simulator (scipy.optimize) nor the trainer.
_HOME = {
    "counts": ("KINDS", "PAIR_COLUMNS", "SCORE_COLUMNS", "PairCounts", "attach_scores", "check_pairs",
               "counts_from_arrays", "group_mapping", "pair_counts", "read_table"),
    "accuracy": ("PairwiseAccuracy", "bootstrap_counts", "bootstrap_counts_literal", "cell_intervals",
                 "cell_statistics", "summary_intervals", "decompose_accuracy", "exposure_table", "pairwise_accuracy",
                 "position_decomposition", "rank_positions", "summary_statistics"),
    "regularizer": ("MFModel", "RegularizerValue", "fit_mf_pairwise", "mf_loss_and_gradient", "pairwise_regularizer",
                    "pairs_to_indices"),
    "simulate": ("PairsTruth", "SimulatedPairs", "pairs_truth", "relevant_sets", "simulate_pairs"),
}
_MODULES = ("counts", "accuracy", "regularizer", "simulate", "lemmas", "datasets")

__all__ = [
    "MFModel", "RegularizerValue", "fit_mf_pairwise", "mf_loss_and_gradient", "pairwise_regularizer",
    "pairs_to_indices", "PairsTruth", "SimulatedPairs", "pairs_truth", "relevant_sets", "simulate_pairs",
    "KINDS", "PAIR_COLUMNS", "SCORE_COLUMNS", "PairCounts", "attach_scores", "check_pairs", "counts_from_arrays",
    "group_mapping", "pair_counts", "read_table",
    "PairwiseAccuracy", "bootstrap_counts", "bootstrap_counts_literal", "cell_intervals", "cell_statistics",
    "summary_intervals", "decompose_accuracy",
    "exposure_table", "pairwise_accuracy", "position_decomposition", "rank_positions", "summary_statistics",
]

__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
