"""Tests of ocef.envy.groups: partitions of the users (Sec. 4)."""
import numpy as np
import pytest

from ocef.envy.groups import check_partition, group_members


def test_labels_roundtrip():
    lab = check_partition([1, 0, 1, 2], 4)
    np.testing.assert_array_equal(lab, [1, 0, 1, 2])
    members = group_members(lab)
    assert [m.tolist() for m in members] == [[1], [0, 2], [3]]


def test_member_lists_and_integer_floats():
    np.testing.assert_array_equal(check_partition([np.array([2, 0]), np.array([1])], 3), [0, 1, 0])
    np.testing.assert_array_equal(check_partition(np.array([0.0, 1.0]), 2), [0, 1])


@pytest.mark.parametrize("groups, n, match", [
    ([0, 1], 3, "expected length 3, got 2"),
    ([0, 2, 2], 3, r"group\(s\) \[1\] are empty"),
    ([0, -1, 1], 3, "0..G-1"),
    ([0.5, 1, 0], 3, "integers"),
    ([[0, 1], [1, 2]], 3, "more than one group"),
    ([[0], [2]], 3, "in no group"),
    ([[0, 1, 2], []], 3, "group 1 is empty"),
    (np.zeros((2, 2), dtype=int), 2, "1-d"),
])
def test_bad_partitions(groups, n, match):
    with pytest.raises(ValueError, match=match):
        check_partition(groups, n)


def test_string_and_bool_labels_are_group_names():
    from ocef.envy.groups import check_partition

    np.testing.assert_array_equal(check_partition(np.array(["b", "a", "b", "c"]), 4), [1, 0, 1, 2])
    np.testing.assert_array_equal(check_partition(np.array([True, False, True]), 3), [1, 0, 1])
    np.testing.assert_array_equal(check_partition(["x", "y", "x"], 3), [0, 1, 0])


def test_policy_rows_summing_to_one_within_1e_6_are_accepted():
    from ocef.policies import ArrayPolicy

    probs = np.array([[0.5, 0.5 + 5e-7], [1.0, 0.0]])
    assert ArrayPolicy(probs).probabilities().shape == (2, 2)
    with pytest.raises(ValueError, match="sum to 1"):
        ArrayPolicy(np.array([[0.5, 0.5 + 1e-4], [1.0, 0.0]]))


def test_rng_accepts_a_list_of_seeds():
    from ocef.validation import as_generator

    assert as_generator([1, 2]).random() == np.random.default_rng([1, 2]).random()


def test_group_names_one_check_for_envy_audit_and_live():
    from ocef.envy.audit import AuditProblem
    from ocef.envy.exact import envy_report
    from ocef.envy.groups import check_group_names
    from ocef.envy.live import audit_live

    assert check_group_names(None, 3) == ["0", "1", "2"]
    assert check_group_names(["a", 2, "c"], 3) == ["a", "2", "c"]
    rho = np.full((4, 3), 0.5)
    probs = np.full((4, 3), 1 / 3)
    labels = np.array([0, 0, 1, 1])
    msg = "group_names must have 2 names, got 3"
    for call in (lambda: envy_report(rho, probs, labels, group_names=["a", "b", "c"]),
                 lambda: AuditProblem(rho, probs, labels, group_names=["a", "b", "c"]),
                 lambda: audit_live(lambda g, a: 0.5, 2, [2, 2], alpha=0.05, delta=0.05, epsilon=0.05,
                                    group_names=["a", "b", "c"])):
        with pytest.raises(ValueError, match=msg):
            call()
    assert list(envy_report(rho, probs, labels, group_names=["x", "y"]).to_frame()["name"]) == ["x", "y"]
    assert AuditProblem(rho, probs, labels).group_names == ["0", "1"]
