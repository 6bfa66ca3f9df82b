import pandas as pd
import pytest

from ocef.experiments import registry
from ocef.cli import main


def test_reproduce_list(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("bandit-alpha", "bandit-delta", "bandit-arms"):
        assert name in out


def test_reproduce_unknown_name_is_an_error(capsys):
    assert main(["reproduce", "no-such-figure"]) == 2
    assert "unknown experiment" in capsys.readouterr().err


@pytest.mark.slow
def test_bandit_delta_quick_writes_results_and_resumes(tmp_path):
    paths = registry.run("bandit-delta", out=tmp_path, quick=True, rng=3, progress=False)
    csv = tmp_path / "bandit-delta" / "bandit-delta.csv"
    png = tmp_path / "bandit-delta" / "bandit-delta.png"
    assert csv in paths and png in paths and png.stat().st_size > 10_000
    summary = pd.read_csv(csv)
    assert set(summary["instance"]) == {1, 2, 3, 4}
    assert {"delta", "duration_mean", "duration_ci95", "cost_mean", "duration_bound", "correct_rate"} <= set(summary)
    assert summary["constraint_held"].all()
    assert (summary["duration_bound"] > summary["duration_mean"]).all()     # Theorem 6 holds here
    # Resume: parts on disk are reused, so a rerun gives identical numbers without recomputing.
    parts = sorted((tmp_path / "bandit-delta" / "parts").glob("*.csv"))
    mtimes = [p.stat().st_mtime_ns for p in parts]
    registry.run("bandit-delta", out=tmp_path, quick=True, rng=3, progress=False)
    assert [p.stat().st_mtime_ns for p in parts] == mtimes
    pd.testing.assert_frame_equal(pd.read_csv(csv), summary)


def test_reproduce_skips_an_experiment_whose_data_is_missing(tmp_path, capsys):
    assert main(["reproduce", "reo-real-data", "--quick", "--out", str(tmp_path), "--data-dir",
                 str(tmp_path / "nowhere")]) == 0
    out = capsys.readouterr().out
    assert "skipped:" in out and "skipped for missing data: reo-real-data" in out


def test_bounds_once_per_configuration_equal_the_per_run_bounds():
    # _with_bounds evaluates Theorems 6-7 once per configuration; every run row gets exactly the
    # numbers of the per-run formula, in the original row order.
    import numpy as np

    from ocef.envy import bounds
    from ocef.environments.bandits import paper_instance
    from ocef.experiments._bandit import _with_bounds

    rng = np.random.default_rng(3)
    mu = paper_instance(2, 9)
    n = 60
    runs = pd.DataFrame({"trial": np.arange(n), "n_arms": rng.choice([2, 5, 9], n),
                         "delta": rng.choice([0.01, 0.05, 0.2], n), "alpha": rng.choice([0.02, 0.3], n),
                         "epsilon": 0.05, "duration": rng.integers(1, 10**4, n)})
    out = _with_bounds(runs, mu)
    assert list(out["trial"]) == list(range(n)) and len(out) == n
    for r in out.itertuples():
        m = mu[: r.n_arms + 1]
        assert r.duration_bound == float(bounds.duration_bound(m, r.delta, r.alpha, r.epsilon))
        assert r.cost_bound == float(bounds.cost_bound(m, r.delta, r.alpha, r.epsilon))
