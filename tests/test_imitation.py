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
    from tabletop_rl.training.learner import make_learner_core

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


# ------------------------------------------------------------------ distilling Fae's search (issue 28)
def test_search_teacher_searches_as_fae_mcts_and_gives_its_visit_shares(fae_spec):
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.imitation import SearchTeacher

    state = fae_spec.new_state(num_players=2, seed=11)
    for a in (0, 1, 2):  # into the game a little
        state.apply(int(state.legal_actions()[a]))
    seat, mask = state.current_player, fae_spec.action_mask(state, state.current_player).astype(bool)
    teacher, mcts = SearchTeacher(seed=5, iterations=60), make_agent("fae", "mcts", seed=5, iterations=60)
    move = teacher.act(None, mask, state=state, seat=seat)
    assert move == mcts.act(None, mask, state=state, seat=seat), "the same search, the same move"
    p = teacher.action_distribution(None, mask)
    assert np.isclose(p.sum(), 1.0) and not p[~mask].any() and p[move] == p.max()
    assert (p > 0).sum() > 1, "visit shares, not only the move"
    forced = np.zeros(330, dtype=bool)
    forced[move] = True
    assert teacher.act(None, forced, state=state, seat=seat) == move
    assert teacher.action_distribution(None, forced)[move] == 1.0  # no search: all its mass
    values = SearchTeacher(seed=5, iterations=60, target="values")
    assert values.act(None, mask, state=state, seat=seat) == move, "the target does not change the search"
    q = values.action_distribution(None, mask)
    assert np.isclose(q.sum(), 1.0) and set(np.flatnonzero(q)) <= set(np.flatnonzero(p))
    tried = {a: v for a, (n, v) in values._root.items() if n >= 2}
    assert q[max(tried, key=tried.get)] == q.max(), "the most mass on the best mean value"
    with pytest.raises(ValueError, match="target must be 'visits' or 'values'"):
        SearchTeacher(target="moves")


def test_fae_search_data_labels_the_learners_own_states_and_is_seeded():
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.imitation import fae_search_data

    def data(version, opponents, seed=3):
        return fae_search_data(make_agent("fae", "ppo", version=version), opponents, 2, seed, iterations=20)

    o, m, a, p = data("fae_2p_v2", ["greedy"])
    assert np.array_equal(o, data("fae_2p_v2", ["greedy"])[0]), "same seed, same data"
    assert o.shape == (len(a), 2183) and m[np.arange(len(a)), a].all() and not (p > 0)[~m].any()
    # against greedy only the learner's decisions are labelled: one per move of its seat (~half a game)
    assert 20 <= len(a) <= 45
    # DAgger: the states are the ones the learner's own moves lead to (another policy, other states)
    assert not np.array_equal(o[5:10], data("fae_2p_v1", ["greedy"])[0][5:10])
    # an MCTS opponent labels its own decisions too: both seats' decisions, about twice as many
    assert len(data("fae_2p_v2", ["mcts"])[2]) > 1.6 * len(a)


def test_refit_policy_starts_from_the_weights_and_fits_the_labels():
    from tabletop_rl.agents.imitation import fae_search_data, refit_policy
    from tabletop_rl.agents.ppo_agent import PPOAgent

    agent = PPOAgent(version="fae_2p_v2")
    o, m, _, p = fae_search_data(agent, ["mcts"], 2, 1, iterations=20)
    same, _ = refit_policy(agent.policy, o, m, p, 0, 1e-3, seed=0)
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(same.weights, agent.policy.weights))

    def loss(w):
        return imitation_loss(torch.as_tensor(w.logits(o)), torch.as_tensor(m), torch.as_tensor(p)).item()

    # learning rate 0: the fit's loss is the torch forward's over the data, the numpy policy's loss
    _, frozen = refit_policy(agent.policy, o, m, p, 1, 0.0, seed=0)
    assert frozen[0] == pytest.approx(loss(agent.policy), rel=1e-4)
    new, losses = refit_policy(agent.policy, o, m, p, 6, 3e-3, seed=0)
    assert losses[-1] < losses[0] and loss(new) < loss(agent.policy)
    assert [s for s, _ in new.skip] == [s for s, _ in agent.policy.skip] and new.skip != agent.policy.skip
    unread = ~agent.policy.weights[0][0].any(axis=1)
    assert unread.sum() > 1000 and not new.weights[0][0][unread].any(), "the MLP still reads only the board"


def fantastiqa_labels(seed=3, policy=None, opponent="mcts"):
    from tabletop_rl.agents.imitation import fantastiqa_search_data

    return fantastiqa_search_data("generated:2", 1, seed, policy=policy, opponent=opponent,
                                  rule_options={"turn_limit": 8}, iterations=8)


def test_fantastiqa_search_data_records_the_card_view_and_the_searchs_moves():
    from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE
    from tabletop_rl.agents import make_agent

    o, m, a, c, g = fantastiqa_labels()
    assert all(np.array_equal(x, y) for x, y in zip((o, m, a, c, g), fantastiqa_labels())), "same seed, same data"
    assert o.dtype == np.float16 and o.shape == (len(a), VIEW_SIZE + NUM_ACTIONS_MAX) and m.shape == (len(a), NUM_ACTIONS_MAX)
    assert len(a) > 50 and m[np.arange(len(a)), a].all() and (m.sum(axis=1) > 1).all(), "decisions with a choice only"
    block = o[:, VIEW_SIZE:].astype(np.float32)
    assert (block.sum(axis=1) == 1).all() and m[np.arange(len(a)), block.argmax(axis=1)].all(), "greedy's move, legal"
    not_greedy = block[np.arange(len(a)), a] == 0
    assert 0 < not_greedy.mean() < 0.5, "the search plays greedy's move mostly, not always"
    # the choices: the moves the search compared (greedy's and up to 3 others) where it searched, else every
    # legal move; its move is one of them, and it leaves greedy's move only where it searched
    assert not (c & ~m).any() and c[np.arange(len(a)), a].all() and c[np.arange(len(a)), block.argmax(axis=1)].all()
    fewer = (c != m).any(axis=1)
    assert fewer.any() and (c[fewer].sum(axis=1) == 4).all() and (m[fewer].sum(axis=1) > 4).all()
    # the gains: finite on the compared moves only (the search's samples) or on the move alone where it
    # did not search; greedy's 0; the move played is greedy's or one whose gain beat the margin (0.03)
    rows = np.arange(len(a))
    assert (np.isfinite(g) <= c).all() and (g[rows, block.argmax(axis=1)] == 0).all()
    best = g.max(axis=1)
    assert (g[rows, a][not_greedy] > 0.029).all() and (g[rows, a] == best)[not_greedy].all()
    assert (best[~not_greedy] <= 0.031).all() and (best > 0).any()
    # DAgger: the policy plays one seat, labelled by the search; a greedy opponent labels nothing
    policy = make_agent("fantastiqa", "ppo", version="fantastiqa_2p_cards_v3")
    od, md, ad, _, _ = fantastiqa_labels(policy=policy, opponent="greedy")
    assert 0 < len(ad) < 0.75 * len(a) and md[np.arange(len(ad)), ad].all()
    assert not np.array_equal(od[:20], o[:20])


def test_refit_card_policy_starts_from_the_weights_and_fits_the_labels():
    from tabletop_rl.agents import make_agent
    from tabletop_rl.card_net import refit_card_policy

    o, m, a, _, _ = fantastiqa_labels(seed=5)
    policy = make_agent("fantastiqa", "ppo", version="fantastiqa_2p_cards_v3").policy
    x = o.astype(np.float32)

    def loss(w):
        return imitation_loss(torch.as_tensor(w.logits(x)), torch.as_tensor(m), torch.as_tensor(a)).item()

    same, _ = refit_card_policy(policy, o, m, a, 0, 1e-3, seed=0)
    assert all(np.array_equal(p, q) for (p, _), (q, _) in zip(same.weights, policy.weights)) and same.greedy
    # learning rate 0: the fit's loss is the torch forward's over the float16 data, the numpy policy's loss
    _, frozen = refit_card_policy(policy, o, m, a, 1, 0.0, seed=0)
    assert frozen[0] == pytest.approx(loss(policy), rel=1e-3)
    new, losses = refit_card_policy(policy, o, m, a, 4, 3e-3, seed=0)
    assert losses[-1] < losses[0] and loss(new) < loss(policy) and new.meta == policy.meta
