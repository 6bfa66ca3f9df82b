"""Checkpointed live audits (ocef.envy.live): exact resume, keyed randomness, equality with run_audit."""
import json

import numpy as np
import pandas as pd
import pytest

from ocef.envy.audit import AuditProblem, run_audit
from ocef.envy.live import LiveAuditResult, ask_tell_audit, audit_live, audit_root, keyed_pull

COLUMNS = ["group", "name", "size", "verdict", "duration", "cost", "constraint_held", "true_envy"]


def known_envy_arrays(seed: int = 5, labels=None):
    """``(rho, probs, labels)``: 4 groups of 6 users, 5 items, one-hot policies: groups 0-2 see their
    favourite item (0.75; others ~0.3), group 3 is shown item 4 (0.35) and values group 1's item at
    0.6 (envy Δ ≈ 0.25 > ε). Shared by the audit, live-audit, service and ``ocef audit`` tests."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(4), 6) if labels is None else labels
    rho = np.clip(0.3 + rng.normal(0, 0.03, size=(24, 5)), 0, 1)
    rho[labels < 3, labels[labels < 3]] = 0.75
    rho[labels == 3, 1] = 0.6
    rho[labels == 3, 4] = 0.35
    probs = np.eye(5)[np.where(labels < 3, labels, 4)]
    return rho, probs, labels


def small_problem(seed: int = 5) -> AuditProblem:
    """The :func:`known_envy_arrays` system as an audit problem, groups named a-d."""
    return AuditProblem(*known_envy_arrays(seed), group_names=["a", "b", "c", "d"])


PARAMS = dict(alpha=0.5, delta=0.05, epsilon=0.05, max_steps=1500)


@pytest.fixture(scope="module")
def problem():
    return small_problem()


@pytest.fixture(scope="module")
def reference(problem):
    return ask_tell_audit(problem, rng=3, **PARAMS)


class Recorder:
    """A keyed pull that records every call and can crash after ``crash_after`` pulls."""

    def __init__(self, problem, seed, crash_after=None):
        self.pull, self.calls, self.crash_after = keyed_pull(problem, seed), [], crash_after

    def __call__(self, group, arm, step):
        if self.crash_after is not None and len(self.calls) >= self.crash_after:
            raise KeyboardInterrupt("simulated crash")
        self.calls.append((group, arm, step))
        return self.pull(group, arm, step)


def _run(problem, pull, **kw):
    return audit_live(pull, problem.n_groups, problem.sizes, rng=3, group_names=problem.group_names,
                      true_means=problem.arm_means, **PARAMS, **kw)


def test_in_process_live_audit_equals_run_audit_ask_tell(problem, reference):
    # The j-th audit of run_audit(engine="ask-tell") uses root audit_root(seed, j): audit 0 = seed 3.
    report = run_audit(problem, engine="ask-tell", rng=3, alpha=0.5, max_steps=1500)
    pd.testing.assert_frame_equal(reference.groups[COLUMNS].reset_index(drop=True),
                                  report.groups[COLUMNS].reset_index(drop=True), check_dtype=False)
    assert set(reference.groups["verdict"]) <= {"envy", "no_envy", "timeout"}
    assert reference.groups.loc[3, "verdict"] == "envy"


def test_interrupted_audits_resume_exactly(problem, reference, tmp_path):
    full = Recorder(problem, 3)
    _run(problem, full)
    n = len(full.calls)
    assert n > 200
    for crash_after in np.random.default_rng(1).integers(1, n - 1, 5):
        path = tmp_path / f"ck{crash_after}.json"
        first = Recorder(problem, 3, crash_after=int(crash_after))
        with pytest.raises(KeyboardInterrupt):
            _run(problem, first, checkpoint=path, every=7)
        saved = json.loads(path.read_text())
        step = saved["step"]
        assert step % 7 == 0 and saved["checkpoint_steps"][-1] == step
        # the crashed run made the pulls of the uninterrupted one, those of its first `step` steps included
        assert first.calls == full.calls[:len(first.calls)]
        done_before = sum(1 for _, _, t in full.calls if t < step)
        assert len(first.calls) >= done_before
        second = Recorder(problem, 3)
        res = _run(problem, second, checkpoint=path, every=7)
        assert second.calls == full.calls[done_before:], f"trajectory differs after resuming at step {step}"
        assert res.resumed_from == step
        pd.testing.assert_frame_equal(res.groups, reference.groups)
        assert [a.to_dict() for a in res.auditors] == [a.to_dict() for a in reference.auditors]
        assert res.checkpoint_steps[-1] == res.steps


def test_resuming_a_finished_audit_pulls_nothing(problem, reference, tmp_path):
    path = tmp_path / "done.json"
    _run(problem, Recorder(problem, 3), checkpoint=path, every=100)
    again = Recorder(problem, 3)
    res = _run(problem, again, checkpoint=path, every=100)
    assert again.calls == [] and res.resumed_from == res.steps
    pd.testing.assert_frame_equal(res.groups, reference.groups)


def test_result_follows_the_result_protocol(reference):
    assert isinstance(reference, LiveAuditResult)
    d = json.loads(reference.to_json())
    assert {"version", "seed", "params", "steps", "checkpoint_steps", "wall_time", "groups"} <= set(d)
    assert d["seed"] == {"entropy": "3", "spawn_key": [0]}
    assert list(reference.to_frame().columns) == COLUMNS


def test_checkpoint_of_another_audit_is_refused(problem, tmp_path):
    path = tmp_path / "ck.json"
    audit_live(keyed_pull(problem, 3), 4, problem.sizes, alpha=0.5, delta=0.05, epsilon=0.05, rng=3,
               max_steps=20, checkpoint=path, every=5)
    with pytest.raises(ValueError, match="alpha"):
        audit_live(keyed_pull(problem, 3), 4, problem.sizes, alpha=0.4, delta=0.05, epsilon=0.05, rng=3,
                   max_steps=20, checkpoint=path)
    with pytest.raises(ValueError, match="seed"):
        audit_live(keyed_pull(problem, 4), 4, problem.sizes, alpha=0.5, delta=0.05, epsilon=0.05, rng=4,
                   max_steps=20, checkpoint=path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="JSON"):
        audit_live(keyed_pull(problem, 3), 4, problem.sizes, alpha=0.5, delta=0.05, epsilon=0.05, rng=3,
                   checkpoint=path)


def test_keyed_pulls_are_pure_functions_of_group_arm_step(problem):
    a, b = keyed_pull(problem, 9), keyed_pull(problem, audit_root(9))
    assert a(3, 1, 17) == b(3, 1, 17)
    draws = [a(3, 1, t) for t in range(200)]
    assert len(set(draws)) > 1                                  # different steps, different draws
    # and the keyed pulls keep the distribution of PULL-ARM: mean reward ≈ μ_1 of group 3
    se = np.sqrt(0.25 / (6 * 200))
    assert abs(np.mean(draws) - problem.arm_means[3, 1]) < 4 * se


def test_two_argument_pulls_and_batches_are_accepted():
    means = np.array([[0.5, 0.9], [0.5, 0.2]])
    rng = np.random.default_rng(0)
    res = audit_live(lambda i, arm: float(rng.random() < means[i, arm]), 2, [1, 1], alpha=0.5,
                     delta=0.05, epsilon=0.05, rng=1)
    assert list(res.groups["verdict"]) == ["envy", "no_envy"]

    class Batch:
        def pull_many(self, keys):
            return [float(rng.random() < means[g, arm]) for g, arm, _ in keys][:-1]

    with pytest.raises(ValueError, match="pull_many returned"):
        audit_live(Batch(), 2, [1, 1], alpha=0.5, delta=0.05, epsilon=0.05, rng=1)


@pytest.mark.parametrize("kw, match", [(dict(every=0), "every"), (dict(group_names=["x"]), "group_names"),
                                       (dict(true_means=np.zeros((3, 3))), "true_means"), (dict(delta=1.0), "delta")])
def test_bad_arguments(kw, match):
    args = dict(alpha=0.5, delta=0.05, epsilon=0.05) | kw
    with pytest.raises((ValueError, TypeError), match=match):
        audit_live(lambda g, a: 0.5, 2, [1, 1], **args)


@pytest.mark.parametrize("sizes, error", [([1.5, 2], TypeError), ([1, 2, 3], ValueError), (["a", "b"], TypeError),
                                          ([0, 1], ValueError), ([np.nan, 1], TypeError)])
def test_group_sizes_must_be_whole_numbers_one_per_group(sizes, error):
    # |g| enters the confidence width of Lemma 3: 1.5 used to be truncated to 1 without a word
    with pytest.raises(error, match="group_sizes"):
        audit_live(lambda g, a: 0.5, 2, sizes, alpha=0.5, delta=0.05, epsilon=0.05, max_steps=3)


def test_whole_float_group_sizes_are_accepted():
    res = audit_live(lambda g, a: 0.5, 2, [2.0, 3.0], alpha=0.5, delta=0.05, epsilon=0.05, rng=0, max_steps=3)
    assert res.params["group_sizes"] == [2, 3] and [a.group_size for a in res.auditors] == [2, 3]
    res = audit_live(lambda g, a: 0.5, 3, 4, alpha=0.5, delta=0.05, epsilon=0.05, rng=0, max_steps=3)
    assert res.params["group_sizes"] == [4, 4, 4]
