"""Sub-commands of the ``ocef`` CLI, one module each (see :mod:`ocef.cli`)."""
