"""Disk cache of fitted models."""
from __future__ import annotations

import numpy as np

from ocef.environments.cache import array_fingerprint, cache_dir, cache_key, cached_arrays


def test_cache_dir_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path
    monkeypatch.delenv("OCEF_CACHE_DIR")
    assert cache_dir().name == "ocef"


def test_cached_arrays_computes_once_per_key(monkeypatch, tmp_path):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return {"x": np.arange(3.0)}

    a = cached_arrays("t", {"p": 1}, compute)
    b = cached_arrays("t", {"p": 1}, compute)
    c = cached_arrays("t", {"p": 2}, compute)
    assert len(calls) == 2
    np.testing.assert_array_equal(a["x"], b["x"])
    np.testing.assert_array_equal(a["x"], c["x"])
    assert len(list(tmp_path.glob("t-*.npz"))) == 2


def test_keys_and_fingerprints():
    assert cache_key("k", {"a": 1, "b": 2}) == cache_key("k", {"b": 2, "a": 1})
    assert cache_key("k", {"a": 1}) != cache_key("k", {"a": 2})
    assert array_fingerprint(np.zeros(3)) != array_fingerprint(np.zeros(4))
    assert array_fingerprint(np.zeros(3)) != array_fingerprint(np.zeros(3, dtype=np.float32))
