"""Multi-attribute fairness testing of recommenders (Guo et al. 2023, FairRec)."""

#: The searches of :func:`ocef.fairrec.search.search` (here, so that the CLI lists them without
#: importing numpy and pandas).
METHODS: tuple[str, ...] = ("dpso", "exhaustive", "testsgd", "vanilla")
#: What ``epsilon`` is a share of in :func:`ocef.fairrec.search.search` (``epsilon_base``): every cell of
#: the attribute grid, or the valid groups.
EPSILON_BASES: tuple[str, ...] = ("cells", "groups")
#: How a group's AUC is computed (:func:`ocef.fairrec.unfairness.group_values`): over the group's pooled
#: candidate rows, or the mean of its users' AUCs.
AUC_MODES: tuple[str, ...] = ("pooled", "mean")
#: How the p-value of UF is computed (:mod:`ocef.fairrec.inference`).
TESTS: tuple[str, ...] = ("permutation", "bound")
