"""tabletop_rl.agents.imitation: the teacher data and loss of the behaviour-cloning warm start (both backends)."""
import numpy as np
import pytest
import torch

import fae_rl
from tabletop_rl.agents.imitation import imitation_loss, teacher_data


def test_teacher_data_is_seeded_legal_and_aligned(fae_spec):
    o1, m1, a1, p1 = teacher_data("fae", 2, "greedy", 300, 0.5, seed=4)
    o2, m2, a2, p2 = teacher_data("fae", 2, "greedy", 300, 0.5, seed=4)
    assert o1.shape == (300, fae_rl.observation_size("summary")) and m1.shape == (300, 330) and a1.shape == (300,)
    assert np.array_equal(o1, o2) and np.array_equal(a1, a2) and np.array_equal(p1, p2)
    assert m1[np.arange(300), a1].all(), "labels are legal moves"
    # Greedy has action_distribution: soft targets, on legal moves only, summing to 1, and the
    # chosen move is one of the teacher's best (positive probability).
    assert p1.shape == (300, 330) and np.allclose(p1.sum(1), 1.0, atol=1e-2)
    assert not (p1 > 0)[~m1].any() and (p1[np.arange(300), a1] > 0).all()
    o3, _, _, _ = teacher_data("fae", 2, "greedy", 300, 0.5, seed=5)
    assert not np.array_equal(o1, o3), "different seeds, different data"
    # With explore=0 the recorded moves are the ones played: replaying them from the same deal
    # reproduces every recorded observation (each label belongs to its observation).
    o, m, a, _ = teacher_data("fae", 2, "greedy", 30, 0.0, seed=4)
    rng = np.random.default_rng(4)
    rng.integers(2**63)  # the teacher's seed
    state = fae_spec.new_state(num_players=2, seed=int(rng.integers(2**63)))
    for i in range(30):
        seat = state.current_player
        assert np.array_equal(fae_spec.observe(state, seat, history="summary"), o[i])
        assert np.array_equal(fae_spec.action_mask(state, seat).astype(bool), m[i])
        state.apply(int(a[i]))


def test_teacher_without_distribution_gives_hard_targets():
    _, m, a, p = teacher_data("fae", 2, "random", 50, 0.0, seed=1)
    assert p is None and m[np.arange(50), a].all()


def test_imitation_loss_hard_and_soft_agree_on_one_hot_targets():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 3.0, 1.0]])
    masks = torch.tensor([[True, True, False], [True, True, True]])
    hard = torch.tensor([0, 2])
    soft = torch.nn.functional.one_hot(hard, 3).float()
    assert imitation_loss(logits, masks, hard).item() == pytest.approx(imitation_loss(logits, masks, soft).item())
    # An illegal action gets no probability: masking it out lowers the loss of a legal target.
    assert imitation_loss(logits, masks, hard).item() < torch.nn.functional.cross_entropy(logits, hard).item()


def test_fit_learns_the_teacher_and_is_seeded():
    from tabletop_rl.agents.imitation import fit

    _, m, a, p = teacher_data("fae", 2, "greedy", 400, 0.5, seed=3)
    o = np.eye(400, dtype=np.float32)  # one feature per decision: a separable toy problem

    def run():
        torch.manual_seed(0)
        layer = torch.nn.Linear(400, 330)
        return fit(layer, list(layer.parameters()), o, m, p, epochs=20, learning_rate=0.5, seed=1)

    first, second = run(), run()
    assert first == second, "same seed, same fit"
    # Soft targets: the loss cannot go below their entropy (greedy's ties); it gets close to it.
    entropy = float(-(p * np.log(np.where(p > 0, p, 1.0))).sum(1).mean())
    assert first[-1] < first[0] and first[-1] - entropy < 0.5 * (first[0] - entropy)


def test_core_teacher_data_labels_the_policys_own_states_with_the_teacher():
    """DAgger (`policy`): the games advance by the policy's moves, each recorded state is labelled
    with the teacher's move there; seeded by the core's generator; without `policy` the teacher plays."""
    from tabletop_rl.agents.imitation import core_teacher_data
    from tabletop_rl.envs.learner import make_learner_core

    def core():
        c = make_learner_core("fantastiqa", 3, opponents={"random": 1.0}, seed=2)
        c.reset()
        return c

    def greedy(c):
        return c.batch.greedy_actions(c.rng)

    def lowest(o, m):
        return np.argmax(m, axis=1)

    o, m, a = core_teacher_data(core(), greedy, 120, 0.0, policy=lowest)
    o2, _, a2 = core_teacher_data(core(), greedy, 120, 0.0, policy=lowest)
    assert o.shape == (120, core().obs_size) and np.array_equal(o, o2) and np.array_equal(a, a2)
    assert m[np.arange(120), a].all(), "labels are legal moves"
    assert (a != lowest(o, m)).any(), "the labels are the teacher's, not the moves played"
    twin = core()  # replaying the policy's moves (and asking the teacher alike) reproduces every row
    for t in range(0, 120, 3):
        assert np.array_equal(twin.learner_obs(), o[t:t + 3])
        assert np.array_equal(greedy(twin), a[t:t + 3])
        twin.rng.random(3)  # the explore draws
        twin.rng.random(m[t:t + 3].shape)
        twin.step(lowest(o[t:t + 3], m[t:t + 3]))
    ot, _, at = core_teacher_data(core(), greedy, 120, 0.0)
    assert not np.array_equal(ot, o)
    assert np.array_equal(at[:3], a[:3])  # the same first states: the deal
