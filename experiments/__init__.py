"""Paper-figure experiments, one module each, run by ``ocef reproduce``."""
