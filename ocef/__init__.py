"""OCEF: online fairness audits of recommender systems."""
__version__ = "0.1.0"
