"""Multi-attribute fairness testing of recommenders (seed 002, FairRec)."""
