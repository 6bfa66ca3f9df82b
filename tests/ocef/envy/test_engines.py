"""ocef.envy.engines: what "auto" stands for counts the compilation of the numba kernel."""
import pytest

from ocef.envy import _kernel
from ocef.envy.engines import AUTO_NUMBA_COLD_MIN_RUNS, AUTO_NUMBA_MIN_RUNS, resolve_engine


@pytest.mark.parametrize("cached, n_runs, expected", [
    (True, AUTO_NUMBA_MIN_RUNS - 1, "numpy"), (True, AUTO_NUMBA_MIN_RUNS, "numba"), (True, None, "numba"),
    (False, AUTO_NUMBA_MIN_RUNS, "numpy"), (False, AUTO_NUMBA_COLD_MIN_RUNS - 1, "numpy"),
    (False, AUTO_NUMBA_COLD_MIN_RUNS, "numba"), (False, None, "numba"),
])
def test_auto_compiles_only_for_work_that_pays_for_it(monkeypatch, cached, n_runs, expected):
    monkeypatch.setattr(_kernel, "is_cached", lambda: cached)
    assert resolve_engine("auto", discrete=True, n_runs=n_runs) == expected
    assert resolve_engine("auto", discrete=False, n_runs=n_runs) == "numpy"      # numba needs finite rewards
    assert resolve_engine("numba", discrete=True, n_runs=1) == "numba"          # asked for: as is


def test_the_cache_probe_sees_an_empty_cache(monkeypatch, tmp_path):
    class Empty:
        def _load_index(self):
            return {}

    monkeypatch.setattr(_kernel._run_many._cache, "_cache_file", Empty())
    assert _kernel.is_cached() is False
