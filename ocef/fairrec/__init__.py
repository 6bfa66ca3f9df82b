"""Multi-attribute fairness testing of recommenders (seed 002, FairRec)."""

#: The searches of :func:`ocef.fairrec.search.search` (here, so that the CLI lists them without
#: importing numpy and pandas).
METHODS: tuple[str, ...] = ("dpso", "exhaustive", "testsgd", "vanilla")
