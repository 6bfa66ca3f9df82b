import numpy as np
import pandas as pd
import pytest

from ocef.pairwise import fit_mf_pairwise, mf_loss_and_gradient, pairwise_regularizer


def _numeric_grad(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("kind", ["inter", "all"])
@pytest.mark.parametrize("rebalance", [True, False])
def test_regularizer_gradient_matches_finite_differences(kind, rebalance):
    rng = np.random.default_rng(0)
    n = 30
    a, b = rng.normal(size=n), rng.normal(size=n)
    sj, sjp = rng.integers(0, 2, n), rng.integers(0, 2, n)
    r = pairwise_regularizer(a, b, sj, sjp, kind=kind, rebalance=rebalance)
    val = lambda x: pairwise_regularizer(x, b, sj, sjp, kind=kind, rebalance=rebalance).value
    valp = lambda x: pairwise_regularizer(a, x, sj, sjp, kind=kind, rebalance=rebalance).value
    np.testing.assert_allclose(r.grad_score_j, _numeric_grad(val, a), atol=1e-8)
    np.testing.assert_allclose(r.grad_score_jp, _numeric_grad(valp, b), atol=1e-8)


def test_regularizer_value_rebalancing_and_degenerate_cases():
    # inter pairs only: B = +-1; A larger when group 1 is clicked -> correlation 1
    s_j = np.array([1, 1, 1, 0])
    r = pairwise_regularizer([2.0, 2.0, 2.0, 1.0], [0.0, 0.0, 0.0, 0.0], s_j, 1 - s_j)
    assert r.value == pytest.approx(1.0) and r.corr == pytest.approx(1.0)
    assert r.weights[s_j == 1].sum() == pytest.approx(0.5) and r.weights[s_j == 0].sum() == pytest.approx(0.5)
    # equal score differences: zero variance of A -> (0, 0)
    z = pairwise_regularizer([1.0, 1.0], [0.0, 0.0], [1, 0], [0, 1])
    assert z.value == 0 and not z.grad_score_j.any()
    # intra pairs only with kind="inter": nothing to regularize
    assert pairwise_regularizer([1.0, 0.0], [0.0, 1.0], [1, 0], [1, 0]).value == 0
    # matches numpy's Pearson correlation without rebalancing
    rng = np.random.default_rng(2)
    a, b, sj = rng.normal(size=50), rng.normal(size=50), rng.integers(0, 2, 50)
    r = pairwise_regularizer(a, b, sj, 1 - sj, rebalance=False)
    assert r.corr == pytest.approx(np.corrcoef(a - b, sj - (1 - sj))[0, 1])


def test_mf_objective_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    nu, ni, k = 6, 7, 3
    ratings = {"u": rng.integers(0, nu, 30), "i": rng.integers(0, ni, 30), "r": rng.random(30)}
    pairs = {"u": rng.integers(0, nu, 25), "j": rng.integers(0, ni, 25), "jp": rng.integers(0, ni, 25),
             "s_j": rng.integers(0, 2, 25).astype(float), "s_jp": rng.integers(0, 2, 25).astype(float)}
    theta = rng.normal(size=1 + nu + ni + (nu + ni) * k)
    f = lambda t: mf_loss_and_gradient(t, ratings, pairs, n_users=nu, n_items=ni, rank=k, lam=0.7, l2=0.01)
    np.testing.assert_allclose(f(theta)[1], _numeric_grad(lambda t: f(t)[0], theta), atol=1e-7)


def test_mf_trainer_learns_and_regularizer_lowers_corr():
    rng = np.random.default_rng(0)
    nu, ni = 40, 30
    true = rng.normal(size=(nu, 2)) @ rng.normal(size=(2, ni))
    u, i = np.nonzero(rng.random((nu, ni)) < 0.5)
    ratings = pd.DataFrame({"user": u, "item": i, "rating": true[u, i]})
    base = fit_mf_pairwise(ratings, n_users=nu, n_items=ni, rank=2, epochs=300, rng=0, l2=0.0)
    assert base.history.mse.iloc[-1] < 0.05 * base.history.mse.iloc[0]
    groups = (np.arange(ni) < 10).astype(int)
    pu = rng.integers(0, nu, 400)
    j, jp = rng.integers(0, ni, 400), rng.integers(0, ni, 400)
    pairs = pd.DataFrame({"query": pu, "j": j, "jp": jp, "s_j": groups[j], "s_jp": groups[jp]})
    pairs = pairs[pairs.j != pairs.jp]
    reg = fit_mf_pairwise(ratings, pairs, lam=1.0, n_users=nu, n_items=ni, epochs=200, lr=0.01, init=base, rng=0)
    assert abs(reg.history["corr"].iloc[-1]) < abs(reg.history["corr"].iloc[0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="lam"):
        fit_mf_pairwise(pd.DataFrame({"user": [0], "item": [0], "rating": [1.0]}), lam=-0.1)
    with pytest.raises(ValueError, match="kind"):
        pairwise_regularizer([1.0], [0.0], [1], [0], kind="intra-only")
    with pytest.raises(ValueError, match="0/1"):
        pairwise_regularizer([1.0], [0.0], [2], [0])


def test_fine_tuning_keeps_the_models_sizes():
    # fine-tuning on ratings of a subset of users (and items) keeps init's users and items: it used to
    # size the model from the data and fail with a numpy broadcast error
    ratings = pd.DataFrame({"user": np.arange(10), "item": np.arange(10) % 5, "rating": np.linspace(0, 1, 10)})
    base = fit_mf_pairwise(ratings, n_users=10, n_items=5, rank=2, epochs=5, rng=0)
    tuned = fit_mf_pairwise(ratings[ratings.user < 6], init=base, l2=0.0, epochs=3, rng=0)
    assert tuned.user_factors.shape == (10, 2) and tuned.item_factors.shape == (5, 2)
    np.testing.assert_array_equal(tuned.user_bias[6:], base.user_bias[6:])     # no data, no l2: no gradient
    assert not np.array_equal(tuned.user_bias[:6], base.user_bias[:6])
    explicit = fit_mf_pairwise(ratings[ratings.user < 6], init=base, n_users=10, n_items=5, l2=0.0, epochs=3, rng=0)
    np.testing.assert_array_equal(explicit.scores(), tuned.scores())
    with pytest.raises(ValueError, match="init has 10 users and 5 items, got n_users=None, n_items=7"):
        fit_mf_pairwise(ratings, init=base, n_items=7, epochs=2)
    with pytest.raises(ValueError, match="ratings reference users or items beyond n_users=4"):
        fit_mf_pairwise(ratings, n_users=4, n_items=5, epochs=2)
