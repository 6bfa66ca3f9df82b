import numpy as np
import pytest

from ocef.environments.bandits import BernoulliBandit, paper_instance


def test_paper_instances_app_d1():
    np.testing.assert_allclose(paper_instance(1), [0.6] + [0.3] * 9)
    np.testing.assert_allclose(paper_instance(2), [0.3, 0.6] + [0.3] * 8)
    mu3 = paper_instance(3)
    assert mu3.size == 10 and mu3[0] == 0.7
    assert mu3[1] == pytest.approx(0.5241679497943293)       # 0.7 − 0.7·0.1^0.6
    assert mu3[9] == pytest.approx(0.04288172464830142)      # 0.7 − 0.7·0.9^0.6
    mu4 = paper_instance(4)
    assert mu4[0] == mu3[1] and mu4[1] == mu3[0] and np.all(mu4[2:] == mu3[2:])


def test_kmax_100_versions():
    assert paper_instance(1, 100).size == 101
    mu3 = paper_instance(3, 100)
    assert mu3[1] == pytest.approx(0.7 - 0.7 * (1 / 101) ** 0.6)
    assert np.all(np.diff(mu3) < 0)


def test_bad_instances():
    with pytest.raises(ValueError, match="number"):
        paper_instance(5)
    with pytest.raises(ValueError, match="n_arms"):
        paper_instance(1, 0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        BernoulliBandit(np.array([0.5, 1.2]))
    with pytest.raises(ValueError, match="at least one other arm"):
        BernoulliBandit(np.array([0.5]))


def test_group_average_rewards():
    b = BernoulliBandit(np.array([0.2, 0.7]), group_size=5)
    r = b.sample(np.ones(20000, dtype=int), rng=0)
    assert set(np.unique(r)) <= {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}
    # mean 0.7, sd of the mean sqrt(0.7·0.3/5/20000) ≈ 0.00145: 5 sd tolerance
    assert r.mean() == pytest.approx(0.7, abs=0.0073)
