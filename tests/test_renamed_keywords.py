"""Renamed keywords (issue 18, one vocabulary; issue 27, no pre-release shims): no release shipped
the former spellings, so none is accepted — each is an ordinary ``TypeError`` — and no public
signature holds one. The CHANGELOG keeps the table of renames for readers of earlier commits."""
from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest

#: qualified name -> the former keywords that were renamed (engine -> backend, n_show -> k, ...)
FORMER = {
    "ocef.backends.count_keys": ("engine",), "ocef.backends.group_counts": ("engine",),
    "ocef.backends.start_counts": ("engine",), "ocef.pairwise.counts.pair_counts": ("engine",),
    "ocef.pairwise.accuracy.pairwise_accuracy": ("engine",), "ocef.reo.estimate.estimate_reo": ("engine",),
    "ocef.reo.daily.estimate_reo_by": ("engine",), "ocef.reo.ab.ab_test": ("engine", "method", "bootstrap_interval"),
    "ocef.reo.bootstrap.bootstrap_reo_ci": ("engine", "method", "delta_interval"),
    "ocef.reo.counts.reo_counts": ("engine",), "ocef.reo.simulate.default_recommendations": ("n_show",),
    "ocef.reo.simulate.ground_truth": ("n_show",), "ocef.reo.simulate.expected_relevance": ("n_show",),
    "ocef.reo.simulate.simulate_traffic": ("n_show",), "ocef.reo.simulate.simulate_ab": ("n_show",),
    "ocef.reo.simulate.stream_traffic": ("n_show",), "ocef.reo.planning.expected_random_rows": ("n_show",),
    "ocef.reo.planning.p_act_for": ("n_show",), "ocef.metrics.bias.bootstrap_interval": ("method",),
    "ocef.experiments.registry.run": ("seed",),
}


@pytest.mark.parametrize("qualname", sorted(FORMER))
def test_no_signature_holds_a_former_name_and_no_wrapper_forwards_it(qualname):
    module, _, name = qualname.rpartition(".")
    func = getattr(importlib.import_module(module), name)
    params = inspect.signature(func).parameters
    assert not set(FORMER[qualname]) & set(params)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_a_former_keyword_is_an_ordinary_type_error():
    from ocef import reo

    d = pd.DataFrame({"Y": np.r_[1, 0, 1, 0], "S": np.r_[0, 0, 1, 1]})
    with pytest.raises(TypeError, match="unexpected keyword argument 'engine'"):
        reo.estimate_reo(d, d, engine="pandas")
    with pytest.raises(TypeError, match="n_show"):
        reo.p_act_for(60, n_requests=1000, k=6, n_show=6)
