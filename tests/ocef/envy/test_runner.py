"""The vectorized runner: same semantics as the ask/tell OCEF, statistics of App. D.1."""
import numpy as np
import pandas as pd
import pytest

from ocef.environments.bandits import EXPECTED_VERDICT, paper_instance
from ocef import OCEF, Verdict
from ocef.envy.runner import bernoulli_sampler, run_bandits, run_batch


def _replay_tables(n_steps, means, seed):
    """Pre-drawn rewards r[t, k] so that both implementations see the same rewards."""
    rng = np.random.default_rng(seed)
    return (rng.random((n_steps, len(means))) < means).astype(float)


@pytest.mark.parametrize("instance, alpha", [(1, 0.3), (2, 0.2), (3, 0.5), (4, 0.4)])
def test_vectorized_replays_ask_tell_exactly(instance, alpha):
    # With the same ℓ-uniform stream (one double per step from the same seed) and the same
    # reward table, both implementations must follow the very same trajectory.
    means = paper_instance(instance, 4)
    table = _replay_tables(60000, means, seed=instance)
    a = OCEF(4, 0.05, alpha, 0.05, rng=np.random.default_rng(11))
    while a.verdict is Verdict.RUNNING:
        k = a.next_arm()
        a.observe(k, table[a.t, k])
    step = {"t": 0}

    def sample(runs, arms, rng):
        r = table[step["t"], arms]
        step["t"] += 1
        return r

    res = run_batch(np.array([4]), 0.05, alpha, 0.05, sample, rng=np.random.default_rng(11),
                    true_means=means[None, :])
    assert res.verdict_names()[0] == a.verdict.value
    assert res.duration[0] == a.t
    np.testing.assert_array_equal(res.counts[0], a.counts)
    np.testing.assert_allclose(res.means[0], a.means)


def test_cost_and_constraint_from_counts():
    means = paper_instance(3)
    mu = np.tile(means, (20, 1))
    res = run_batch(np.full(20, 9), 0.05, 0.1, 0.05, bernoulli_sampler(mu), true_means=mu, rng=5)
    # eq. (10): C_τ = τ μ_0 − Σ_s μ_{k_s} = τ μ_0 − Σ_k N_k μ_k
    np.testing.assert_allclose(res.cost, res.duration * means[0] - res.counts @ means, atol=1e-8)
    np.testing.assert_array_equal(res.counts.sum(axis=1), res.duration)
    assert res.constraint_held.all()
    assert np.all(res.counts @ means >= 0.9 * means[0] * res.duration - 1e-9)   # (7) at τ


def test_timeout_and_padding_arms():
    mu = np.array([[0.6, 0.3, 0.3, 0.0, 0.0], [0.6, 0.3, 0.3, 0.3, 0.3]])
    res = run_batch(np.array([2, 4]), 0.05, 0.05, 0.05, bernoulli_sampler(mu), true_means=mu, rng=0,
                    max_steps=500)
    assert list(res.verdict_names()) == ["timeout", "timeout"]
    np.testing.assert_array_equal(res.duration, [500, 500])
    assert res.counts[0, 3:].sum() == 0          # arms beyond K are never pulled


def test_run_batch_validates():
    mu = np.array([[0.5, 0.5]])
    with pytest.raises(ValueError, match="delta"):
        run_batch(np.array([1]), 1.0, 0.1, 0.05, bernoulli_sampler(mu))
    with pytest.raises(ValueError, match="alpha"):
        run_batch(np.array([1]), 0.1, 0.0, 0.05, bernoulli_sampler(mu))
    with pytest.raises(ValueError, match="epsilon"):
        run_batch(np.array([1]), 0.1, 0.1, 2.0, bernoulli_sampler(mu))
    with pytest.raises(ValueError, match="n_arms"):
        run_batch(np.array([0]), 0.1, 0.1, 0.05, bernoulli_sampler(mu))
    with pytest.raises(ValueError, match="true_means"):
        run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), true_means=np.zeros((1, 3)))
    # |g| must be a whole count (before: 1.5 passed as int(1.5) = 1 and the audit ran with |g| = 1.5)
    with pytest.raises(TypeError, match="group_size"):
        run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), group_size=1.5)
    with pytest.raises(ValueError, match="group_size"):
        run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), group_size=0)
    assert run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), group_size=2.0, rng=0,
                     max_steps=10).duration[0] >= 1


@pytest.mark.slow
def test_correct_in_1_minus_delta_of_200_runs_per_instance_and_constraint_always_held():
    delta = 0.05
    cfg = pd.DataFrame({"instance": [1, 2, 3, 4], "alpha": 0.1, "delta": delta, "epsilon": 0.05})
    runs = run_bandits(cfg, {i: paper_instance(i) for i in (1, 2, 3, 4)}, trials=200, rng=2024).to_frame()
    for inst, df in runs.groupby("instance"):
        correct = (df["verdict"] == EXPECTED_VERDICT[inst]).mean()
        assert correct >= 1 - delta, f"instance {inst}: correct in {correct:.3f} of runs"
    assert runs["constraint_held"].all()
    assert (runs["verdict"] != "timeout").all()


@pytest.mark.slow
def test_ask_tell_and_vectorized_agree_statistically():
    # Same verdict rates and mean durations within 4 standard errors of the difference.
    cfg = pd.DataFrame({"instance": [1, 2, 3, 4], "alpha": 0.3, "delta": 0.05, "epsilon": 0.05})
    means = {i: paper_instance(i) for i in (1, 2, 3, 4)}
    vec = run_bandits(cfg, means, trials=60, rng=1).to_frame()
    ask = run_bandits(cfg, means, trials=60, rng=2, engine="ask-tell").to_frame()
    for inst in (1, 2, 3, 4):
        at = ask[ask["instance"] == inst]
        v = vec[vec["instance"] == inst]
        assert (at["verdict"] == EXPECTED_VERDICT[inst]).all() and (v["verdict"] == EXPECTED_VERDICT[inst]).all()
        se = np.sqrt(at["duration"].var() / len(at) + v["duration"].var() / len(v))
        assert abs(at["duration"].mean() - v["duration"].mean()) < 4 * se
        assert at["constraint_held"].all()


def _legacy_generator(seed):
    """A Generator on numpy's legacy-seeded MT19937: the stream numba's np.random.seed gives."""
    bg = np.random.MT19937()
    bg._legacy_seeding(int(seed))
    return np.random.Generator(bg)


@pytest.mark.parametrize("instance, alpha, group_size", [(1, 0.3, 1), (2, 0.2, 3), (3, 0.5, 1), (4, 0.4, 2)])
def test_numba_engine_replays_numpy_engine_exactly(instance, alpha, group_size):
    # The compiled engine draws, per run, ℓ's uniform then the reward's uniform from the run's
    # own MT19937 stream; the numpy engine with one run and that stream must do the very same.
    from ocef.envy.runner import DiscreteRewards
    means = paper_instance(instance, 5)[None, :]
    rewards = DiscreteRewards.binomial(means, group_size)
    seed = np.random.default_rng(3).integers(0, 2**32, size=1, dtype=np.int64)[0]
    kw = dict(group_size=group_size, true_means=means, max_steps=200_000)
    fast = run_batch(np.array([5]), 0.05, alpha, 0.05, rewards, rng=np.random.default_rng(3), engine="numba", **kw)
    ref = run_batch(np.array([5]), 0.05, alpha, 0.05, rewards, rng=_legacy_generator(seed), engine="numpy", **kw)
    assert fast.verdict_names()[0] == ref.verdict_names()[0] == EXPECTED_VERDICT[instance]
    assert fast.duration[0] == ref.duration[0]
    np.testing.assert_array_equal(fast.counts, ref.counts)
    np.testing.assert_allclose(fast.means, ref.means, rtol=1e-12)
    np.testing.assert_allclose(fast.cost, ref.cost, rtol=1e-9)
    np.testing.assert_allclose(fast.min_budget, ref.min_budget, rtol=1e-9)


def test_discrete_rewards_binomial_distribution():
    from ocef.envy.runner import DiscreteRewards
    rewards = DiscreteRewards.binomial(np.array([[0.2, 0.7]]), group_size=4)
    draws = rewards(np.zeros(40000, dtype=int), np.ones(40000, dtype=int), np.random.default_rng(0))
    counts = np.bincount(np.rint(draws * 4).astype(int), minlength=5) / draws.size
    from scipy.stats import binom
    np.testing.assert_allclose(counts, binom.pmf(np.arange(5), 4, 0.7), atol=0.01)   # > 4 sd of each frequency


def test_numba_engine_needs_discrete_rewards():
    mu = np.array([[0.5, 0.5]])
    with pytest.raises(ValueError, match="DiscreteRewards"):
        run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), engine="numba")
    with pytest.raises(ValueError, match="engine"):
        run_batch(np.array([1]), 0.1, 0.1, 0.05, bernoulli_sampler(mu), engine="gpu")


@pytest.mark.parametrize("n", [1, 2, 7, 150, 2000])
def test_binomial_pmf_equals_scipy(n):
    from scipy.stats import binom

    from ocef.envy.runner import binomial_pmf

    for p in (0.0, 1e-3, 0.3, 0.5, 0.97, 1.0):
        np.testing.assert_allclose(binomial_pmf(n, p), binom.pmf(np.arange(n + 1), n, p), rtol=1e-9, atol=1e-300)


def test_the_compiled_generator_is_numpys_legacy_mt19937():
    # the kernel keeps each run's generator in its own state (resumable runs, issue 28): it must be
    # the stream numba's np.random.seed gave, numpy's legacy MT19937 (its 53-bit doubles)
    from ocef.envy import _kernel

    for seed in (0, 1, 12345, 2**32 - 1):
        mt, idx = np.zeros(_kernel.MT_N, dtype=np.int64), _kernel.MT_N
        _kernel._mt_seed(mt, seed)
        got = []
        for _ in range(1500):                               # past two twists of the 624 words
            u, idx = _kernel._mt_random(mt, idx)
            got.append(u)
        np.testing.assert_array_equal(got, np.random.RandomState(seed).random_sample(1500))


@pytest.mark.parametrize("slice_steps", [1, 7, 1000])
def test_compiled_runs_in_slices_of_steps_equal_one_call_bit_for_bit(monkeypatch, slice_steps):
    # issue 28: a long compiled run is advanced COMPILED_STEPS steps a call (progress, Ctrl-C); its
    # results must not depend on the slicing: envy, no-envy and timeout runs
    import ocef.envy.runner as runner
    from ocef.envy.runner import DiscreteRewards

    means = np.concatenate([np.repeat(paper_instance(i, 4)[None, :], 3, axis=0) for i in (1, 2, 3, 4)])
    means[::5, 1:] = means[::5, :1]                          # zero gaps: these run to max_steps
    kw = dict(group_size=2, true_means=means, rng=4, engine="numba", max_steps=3000)
    rewards = DiscreteRewards.binomial(means, 2)
    whole = run_batch(np.full(12, 4), 0.05, 0.3, 0.05, rewards, **kw)
    monkeypatch.setattr(runner, "COMPILED_STEPS", slice_steps)
    sliced = run_batch(np.full(12, 4), 0.05, 0.3, 0.05, rewards, **kw)
    assert set(whole.verdict_names()) >= {"timeout"} and len(set(whole.verdict_names())) >= 2
    for name in ("verdict", "duration", "counts", "means", "cost", "min_budget"):
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name), err_msg=name)


def test_run_bandits_takes_a_list_of_dicts_as_its_dataframe_and_keeps_runs_as_columns():
    records = [{"instance": "a", "alpha": 0.05, "delta": 0.05, "epsilon": 0.05, "label": "x"},
               {"instance": "a", "alpha": 0.2, "delta": 0.1, "epsilon": 0.05, "group_size": 3, "n_arms": 1}]
    means = {"a": [0.5, 0.8, 0.2]}
    from_frame = run_bandits(pd.DataFrame(records), means, trials=3, rng=5, engine="numpy", max_steps=500)
    from_list = run_bandits(records, means, trials=3, rng=5, engine="numpy", max_steps=500)
    pd.testing.assert_frame_equal(from_list.to_frame(), from_frame.to_frame(), check_exact=True)
    assert from_list.to_json() == from_frame.to_json()
    cols = from_list.columns
    assert list(cols) == ["trial", "instance", "alpha", "delta", "epsilon", "label", "group_size", "n_arms",
                          "verdict", "duration", "cost", "constraint_held"]
    assert list(cols["trial"]) == [0, 1, 2, 0, 1, 2] and list(cols["n_arms"]) == [2, 2, 2, 1, 1, 1]
    assert list(from_list.runs["group_size"]) == [1, 1, 1, 3, 3, 3]   # absent in row 0: the default |g| = 1


@pytest.mark.parametrize("configs", [{"instance": "a", "alpha": 0.05, "delta": 0.05, "epsilon": 0.05}, "a", [1, 2]])
def test_run_bandits_refuses_configs_that_are_neither_a_dataframe_nor_dicts(configs):
    from ocef.errors import ParameterTypeError

    with pytest.raises(ParameterTypeError, match="configs must be a pandas DataFrame or a list of dicts"):
        run_bandits(configs, {"a": [0.5, 0.8]}, trials=1, rng=0)
