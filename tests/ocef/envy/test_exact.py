"""Tests of ocef.envy.exact: exact envy on Do et al.'s tables and propositions (Sec. 3-4, 6, App. A)."""
import numpy as np
import pytest

from ocef.envy.exact import (envy_report, envy_summary, group_envy, group_utilities, individual_envy,
                       own_group_utilities, transported_user_utilities, utility_matrix)
from ocef.envy.matching import mixture_weights
from ocef.policies import (argmax_policy, equity_of_exposure_policy, parity_of_exposure_policy, utility,
                      softmax_policy, topk_ranking_policy)

# Table 1 of Do et al. 2022 (OCEF): 4 users, 2 items, g_1 = {1, 2}, g_2 = {3, 4}; policies optimal for rho.
T1_RHO = np.array([[1.0, 0.0], [0.5, 1.0], [1.0, 0.0], [1.0, 0.0]])
T1_PI = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
T1_GROUPS = np.array([0, 0, 1, 1])

# Table 2 of Do et al. 2022 (App. A): 4 items, categories {1, 2} and {3, 4}, 2 users.
T2_RHO = np.array([[1.0, 0.0, 0.8, 0.7], [0.8, 0.7, 1.0, 0.0]])
T2_CATS = np.array([0, 0, 1, 1])


def test_table1_average_policies_detect_spurious_group_envy():
    U = utility_matrix(T1_RHO, T1_PI)
    assert individual_envy(U).max() == 0.0                      # envy-free system
    np.testing.assert_allclose(own_group_utilities(U, T1_GROUPS), [1.0, 1.0])   # mu^i
    w = mixture_weights(T1_PI, T1_GROUPS, matching="average")
    mu = group_utilities(U, T1_GROUPS, w)
    np.testing.assert_allclose(mu, [[0.625, 0.75], [0.5, 1.0]])  # Table 1's bold values
    np.testing.assert_allclose(group_envy(mu), [0.125, 0.0])     # group 1 "envies" group 2


def test_table1_transported_policies_no_group_envy():
    U = utility_matrix(T1_RHO, T1_PI)
    w = mixture_weights(T1_PI, T1_GROUPS, matching="transport")
    mu = group_utilities(U, T1_GROUPS, w)
    np.testing.assert_allclose(np.diag(mu), [1.0, 1.0])          # mu_i^i = mu^i
    np.testing.assert_allclose(mu, [[1.0, 0.75], [0.5, 1.0]])
    np.testing.assert_allclose(group_envy(mu), [0.0, 0.0])


def test_table2_equity_optima_envy_each_other():
    pol = equity_of_exposure_policy(T2_RHO, T2_CATS)
    np.testing.assert_allclose(pol.probs, [[0.4, 0, 0.6, 0], [0.6, 0, 0.4, 0]])
    U = utility_matrix(T2_RHO, pol)
    np.testing.assert_allclose(U, [[0.88, 0.92], [0.92, 0.88]])
    np.testing.assert_allclose(individual_envy(U), [0.04, 0.04])


def test_utility_matrix_matches_loops_with_contexts():
    rng = np.random.default_rng(0)
    rho = rng.random((4, 3, 5))
    pi = softmax_policy(rng.normal(size=(4, 3, 5)), beta=1.5).probs
    q = rng.dirichlet(np.ones(3), size=4)
    U = utility_matrix(rho, pi, context_probs=q)
    for m in range(4):
        for n in range(4):
            expected = sum(q[m, x] * pi[n, x, a] * rho[m, x, a] for x in range(3) for a in range(5))
            assert U[m, n] == pytest.approx(expected)


def _random_instance(rng, n_users=30, n_items=12, n_cat=3, n_groups=4):
    rho = rng.random((n_users, n_items))
    cats = np.arange(n_items) % n_cat
    labels = np.arange(n_users) % n_groups
    rng.shuffle(labels)
    return rho, cats, labels


@pytest.mark.parametrize("seed", range(5))
def test_proposition1_parity_optima_are_envy_free(seed):
    rng = np.random.default_rng(seed)
    rho, cats, _ = _random_instance(rng)
    U = utility_matrix(rho, parity_of_exposure_policy(rho, cats))
    assert individual_envy(U).max() <= 1e-12


def test_proposition1_equity_optima_can_be_envious():
    rng = np.random.default_rng(0)
    envious = 0
    for _ in range(5):
        rho, cats, _ = _random_instance(rng)
        U = utility_matrix(rho, equity_of_exposure_policy(rho, cats))
        envious += int(individual_envy(U).max() > 1e-3)
    assert envious >= 1


@pytest.mark.parametrize("seed", range(5))
def test_proposition4_transport_keeps_own_utility(seed):
    rng = np.random.default_rng(seed)
    rho, cats, labels = _random_instance(rng)
    for pol in (softmax_policy(rng.normal(size=rho.shape), beta=2.0),
                argmax_policy(np.round(rng.random(rho.shape), 1)),     # ties between users' policies
                topk_ranking_policy(rng.random(rho.shape), k=5)):
        U = utility_matrix(rho, pol)
        w = mixture_weights(pol, labels)
        mu = group_utilities(U, labels, w)
        np.testing.assert_allclose(np.diag(mu), own_group_utilities(U, labels), atol=1e-12)
        T = transported_user_utilities(U, labels, w)
        np.testing.assert_allclose(T[np.arange(labels.size), labels], np.diag(U), atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_proposition4_envy_free_system_is_group_envy_free(seed):
    rng = np.random.default_rng(seed)
    rho, cats, labels = _random_instance(rng)
    pol = parity_of_exposure_policy(rho, cats)         # envy-free by Prop. 1
    mu = group_utilities(utility_matrix(rho, pol), labels, mixture_weights(pol, labels))
    assert group_envy(mu).max() <= 1e-12
    # an eps-envy-free system is eps-group-envy-free (Prop. 2): Delta^i <= max_m envy_m
    soft = softmax_policy(rho, beta=3.0)
    U = utility_matrix(rho, soft)
    mu = group_utilities(U, labels, mixture_weights(soft, labels))
    assert group_envy(mu).max() <= individual_envy(U).max() + 1e-12


def test_envy_summary_values_and_frame():
    U = utility_matrix(T1_RHO, T1_PI)
    w = mixture_weights(T1_PI, T1_GROUPS, matching="average")
    s = envy_summary(U, T1_GROUPS, w, epsilon=0.1)
    assert s.individual_average_envy == 0.0 and s.individual_prop_envious == 0.0
    assert s.group_average_envy == pytest.approx(0.0625)
    assert s.group_prop_envious == 0.5
    assert s.groups["envious"].tolist() == [True, False]
    assert s.groups["best_group"].tolist() == [1, 1]
    d = s.as_dict()
    assert [{k: g[k] for k in ("group", "name", "size", "envy", "envious")} for g in d["groups"]] == [
        {"group": 0, "name": "0", "size": 2, "envy": 0.125, "envious": True},
        {"group": 1, "name": "1", "size": 2, "envy": 0.0, "envious": False}]
    assert s.to_frame()["best_name"].tolist() == ["1", "1"]
    assert envy_summary(U, T1_GROUPS, w, epsilon=0.125).group_prop_envious == 0.0   # strict >
    t2 = envy_report(T2_RHO, equity_of_exposure_policy(T2_RHO, T2_CATS), epsilon=0.03)
    assert t2.individual_average_envy == pytest.approx(0.04) and t2.individual_prop_envious == 1.0
    assert t2.as_dict()["group_average_envy"] is None


def test_bad_inputs():
    U = utility_matrix(T1_RHO, T1_PI)
    w = mixture_weights(T1_PI, T1_GROUPS)
    with pytest.raises(ValueError, match="square"):
        individual_envy(U[:, :3])
    with pytest.raises(ValueError, match="different partition"):
        group_utilities(U, np.array([1, 1, 0, 0]), w)
    with pytest.raises(ValueError, match="one label per user"):
        group_utilities(U, np.array([0, 1, 0]), w)
    with pytest.raises(ValueError, match="without weights"):
        envy_summary(U, T1_GROUPS)
    with pytest.raises(ValueError, match="epsilon"):
        envy_summary(U, epsilon=-0.1)
    with pytest.raises(ValueError, match="same number of users"):
        utility_matrix(T1_RHO, T1_PI[:3])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        utility_matrix(T1_RHO * 2, T1_PI)
    with pytest.raises(ValueError, match="sums to"):
        utility_matrix(T1_RHO, T1_PI * 0.5)
    with pytest.raises(ValueError, match="non-negative"):
        utility_matrix(T1_RHO, [[1.5, -0.5]] + T1_PI[1:].tolist())
    with pytest.raises(ValueError, match="empty"):
        envy_report(T1_RHO, T1_PI, np.array([0, 0, 2, 2]))


def test_utility_matrix_float32_is_close():
    rng = np.random.default_rng(5)
    rho = rng.random((50, 300))
    pi = softmax_policy(rng.normal(size=(50, 300)), beta=2.0).probs
    U64 = utility_matrix(rho, pi)
    U32 = utility_matrix(rho, pi, dtype=np.float32)
    assert U32.dtype == np.float64
    np.testing.assert_allclose(U32, U64, atol=1e-5)
    with pytest.raises(ValueError, match="dtype"):
        utility_matrix(rho, pi, dtype=np.int64)


def test_utility_matrix_sparse_path_matches_dense():
    rng = np.random.default_rng(6)
    rho = rng.random((40, 500))
    pol = topk_ranking_policy(rng.random((40, 500)), k=5)          # 1% non-zeros: sparse product
    dense = rho @ pol.probs.T
    np.testing.assert_allclose(utility_matrix(rho, pol), dense, rtol=1e-13, atol=1e-15)
    cats = np.arange(500) % 4
    rho3 = rng.random((40, 2, 500))
    par = parity_of_exposure_policy(rng.random((40, 2, 500)), cats).probs
    U = utility_matrix(rho3, par, context_probs=[0.3, 0.7])
    ref = np.einsum("x,mxa,nxa->mn", [0.3, 0.7], rho3, par)
    np.testing.assert_allclose(U, ref, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("matching", ["transport", "average"])
def test_transported_utilities_equal_utility_of_explicit_mixtures(matching):
    rng = np.random.default_rng(7)
    rho, _, labels = _random_instance(rng, n_users=12, n_items=6, n_groups=3)
    pi = softmax_policy(rng.normal(size=rho.shape), beta=2.0).probs
    w = mixture_weights(pi, labels, matching=matching)
    T = transported_user_utilities(utility_matrix(rho, pi), labels, w)
    for i, g_i in enumerate(w.members):
        for k, g_k in enumerate(w.members):
            mixed = w[i, k] @ pi[g_k]                      # pi_k^m = sum_n gamma_mn pi^n (eq. 4)
            np.testing.assert_allclose(T[g_i, k], utility(rho[g_i], mixed), atol=1e-12)
