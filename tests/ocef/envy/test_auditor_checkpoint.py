"""OCEF checkpoints (to_dict/from_dict, pickle) and the input checks of issue 8 (tracker) / 14."""
import dataclasses
import json
import pickle

import numpy as np
import pytest

from ocef import OCEF, Verdict
from ocef.envy.auditor import AuditorState
from ocef.environments.bandits import paper_instance


def _run(auditor, rewards, start=0):
    """Drive ``auditor`` with the pre-drawn reward table from step ``start``; (arm, reward) trajectory."""
    traj = []
    while auditor.verdict is Verdict.RUNNING:
        k = auditor.next_arm()
        r = rewards[auditor.t, k]
        auditor.observe(k, r)
        traj.append((k, r, auditor.verdict.value, len(auditor.active)))
    return traj


def _lockstep(a, b, n):
    """Drive ``a`` and ``b`` with the same ``n`` rewards; they pick the same arms and end in the same state."""
    for r in np.random.default_rng(0).random(n):
        k = a.next_arm()
        assert b.next_arm() == k
        a.observe(k, r)
        b.observe(k, r)
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("instance, alpha, group_size", [(1, 0.05, 1), (2, 0.05, 1), (4, 0.3, 4)])
def test_interrupted_and_restored_auditor_follows_the_same_trajectory(instance, alpha, group_size):
    means = paper_instance(instance, 4)
    rewards = np.random.default_rng(instance).binomial(group_size, means, size=(20000, len(means))) / group_size
    ref = OCEF(4, 0.05, alpha, 0.05, group_size=group_size, rng=11)
    full = _run(ref, rewards)
    assert ref.verdict is not Verdict.RUNNING
    assert group_size > 1 or len(full) > 4096           # crosses a refill of the ℓ-buffer
    # interrupt at random steps (and at buffer edges), through JSON and through pickle
    stops = sorted(set(np.random.default_rng(0).integers(0, len(full), 6).tolist())
                   | {s for s in (0, 4095, 4096, 4097) if s < len(full)})
    for stop in stops:
        a = OCEF(4, 0.05, alpha, 0.05, group_size=group_size, rng=11)
        head = []
        while a.t < stop:
            k = a.next_arm()
            a.observe(k, rewards[a.t, k])
            head.append(k)
        text = json.dumps(a.to_dict(), allow_nan=False)          # strict JSON
        for restored in (OCEF.from_dict(json.loads(text)), pickle.loads(pickle.dumps(a))):
            tail = _run(restored, rewards)
            assert [k for k, *_ in full[:stop]] == head
            assert tail == full[stop:], f"trajectory differs after restoring at step {stop}"
            np.testing.assert_array_equal(restored.counts, ref.counts)
            np.testing.assert_array_equal(restored.means, ref.means)
            assert restored.t == ref.t and restored.verdict is ref.verdict


def test_checkpoint_with_a_pending_arm_and_after_the_verdict():
    a = OCEF(3, 0.05, 0.5, 0.05, rng=2)
    k = a.next_arm()
    b = OCEF.from_dict(a.to_dict())
    b.observe(k, 0.5)                       # the pending arm survives the checkpoint
    a.observe(k, 0.5)
    assert b.to_dict() == a.to_dict()
    while a.verdict is Verdict.RUNNING:
        k = a.next_arm()
        a.observe(k, 1.0 if k == 0 else 0.0)
    c = pickle.loads(pickle.dumps(a))
    assert c.verdict is a.verdict and c.t == a.t
    assert c.to_dict() == a.to_dict()


def test_generator_state_is_json_safe():
    d = OCEF(2, 0.05, 0.5, 0.05, rng=np.random.SeedSequence(5)).to_dict()
    text = json.dumps(d, allow_nan=False)
    def ints(o):
        if isinstance(o, dict):
            return [v for x in o.values() for v in ints(x)]
        if isinstance(o, list):
            return [v for x in o for v in ints(x)]
        return [o] if isinstance(o, int) and not isinstance(o, bool) else []
    assert all(abs(v) <= 2**53 for v in ints(json.loads(text)))      # 128-bit state as strings


@pytest.mark.parametrize("bad, match", [({"format": "other"}, "format"), ("text", "format")])
def test_from_dict_refuses_foreign_states(bad, match):
    with pytest.raises(ValueError, match=match):
        OCEF.from_dict(bad)


def test_from_dict_refuses_inconsistent_states():
    d = OCEF(2, 0.05, 0.5, 0.05, rng=0).to_dict()
    d["t"] = 5
    with pytest.raises(ValueError, match="t=5"):
        OCEF.from_dict(d)


def test_observe_with_a_float_arm_changes_nothing():
    # Before: observe(float(arm), r) incremented t, then failed indexing the counts.
    a = OCEF(3, 0.05, 0.5, 0.05, rng=0)
    arm = a.next_arm()
    before = a.to_dict()
    with pytest.raises(TypeError, match="arm"):
        a.observe(float(arm), 0.5)
    assert a.to_dict() == before and a.t == 0
    a.observe(np.int64(arm), 0.5)           # numpy integers are integers
    assert a.t == 1


def test_huge_group_size_is_a_clear_value_error():
    # Before: a numpy TypeError from deep inside the bounds.
    with pytest.raises(ValueError, match="group_size"):
        OCEF(3, 0.05, 0.05, 0.05, group_size=10**30)
    assert OCEF(3, 0.05, 0.05, 0.05, group_size=2**53).group_size == 2**53


def test_rng_accepts_seed_sequence_and_refuses_others():
    # Before: a SeedSequence was a TypeError.
    a = OCEF(3, 0.05, 0.5, 0.05, rng=np.random.SeedSequence(7))
    b = OCEF(3, 0.05, 0.5, 0.05, rng=np.random.default_rng(np.random.SeedSequence(7)))
    # the first arm is 0 whatever the seed (all counts 0): compare the generators' states and a trajectory
    assert a.to_dict()["rng"] == b.to_dict()["rng"]
    assert a.to_dict()["rng"] != OCEF(3, 0.05, 0.5, 0.05, rng=np.random.SeedSequence(8)).to_dict()["rng"]
    assert [a.next_arm() for _ in range(1)] == [b.next_arm()]
    a.observe(0, 0.5)
    b.observe(0, 0.5)
    _lockstep(a, b, 300)
    with pytest.raises(TypeError, match="rng"):
        OCEF(3, 0.05, 0.5, 0.05, rng="seed")


def test_snapshot_follows_the_result_protocol():
    a = OCEF(2, 0.05, 0.5, 0.05, rng=0)
    for _ in range(5):
        k = a.next_arm()
        a.observe(k, 0.5)
    s = a.snapshot()
    assert isinstance(s, AuditorState)
    frame = s.to_frame()
    assert list(frame["arm"]) == [0, 1, 2] and frame["count"].sum() == 5
    d = json.loads(s.to_json())
    assert d["t"] == 5 and d["verdict"] == "running"
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.t = 3                              # frozen


def test_checkpoint_of_a_generator_with_an_array_state():
    # MT19937's state holds a numpy array (the key): written as a JSON list, restored exactly.
    a = OCEF(3, 0.05, 0.5, 0.05, rng=np.random.Generator(np.random.MT19937(1)))
    text = json.dumps(a.to_dict(), allow_nan=False)
    b = OCEF.from_dict(json.loads(text))
    assert b.to_dict() == a.to_dict()
    _lockstep(a, b, 50)
