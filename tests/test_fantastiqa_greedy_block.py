"""Fantastiqa's greedy block (`FantastiqaBatch(..., action_features="greedy")`): 1 on the move the
mover's greedy bot makes; the same numbers in the batched learner path and in PPOAgent's scalar
path; a decision asked of its bot once; no hidden information; a policy file that records it."""
from __future__ import annotations

import numpy as np
import pytest

from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent
from tabletop_rl.envs import get_game
from tabletop_rl.agents.fantastiqa_batch import FantastiqaBatch, observe_block_game
from tabletop_rl.training.learner import make_batch

from tests.batch_helpers import random_actions

GREEDY = {"action_features": "greedy"}


def block_policy(batch: FantastiqaBatch, coef: float = 5.0, seed: int = 0) -> PolicyWeights:
    """A small random MLP plus the greedy block through a skip scale: a policy over the block."""
    rng = np.random.default_rng(seed)
    w0 = rng.normal(0, 0.01, (batch.obs_size, 8)).astype(np.float32)
    w1 = rng.normal(0, 0.01, (8, batch.num_actions)).astype(np.float32)
    return PolicyWeights([(w0, np.zeros(8)), (w1, np.zeros(batch.num_actions))], "relu",
                         {"game": "fantastiqa", "num_players": batch.num_players, "options": dict(GREEDY)},
                         [(batch.n_base, coef)])


def test_the_option_is_the_batchs_and_defaults_to_none():
    plain, block = make_batch("fantastiqa", 2), make_batch("fantastiqa", 2, **GREEDY)
    assert plain.action_features == "none" and plain.observation_options == {} and plain.action_blocks == {}
    assert block.obs_size == plain.obs_size + block.num_actions and block.n_base == plain.obs_size
    assert block.action_blocks == {"greedy": (slice(plain.obs_size, block.obs_size), True)}
    with pytest.raises(ValueError, match="action_features must be one of"):
        make_batch("fantastiqa", 2, action_features="margin")
    with pytest.raises(ValueError, match="batched engine"):
        make_batch("fantastiqa", 2, batched=False, **GREEDY)
    with pytest.raises(ValueError, match="unknown option"):
        make_batch("fantastiqa", 2, history="none")


def test_block_is_the_movers_greedy_move_and_zero_elsewhere():
    b = FantastiqaBatch(4, **GREEDY)
    b.reset(np.arange(4))
    rng = np.random.default_rng(1)
    for _ in range(300):
        cur = b.current_player
        obs = b.observe()
        block = obs[:, b.n_base:]
        live = cur >= 0
        assert np.array_equal(obs[:, :b.n_base], FantastiqaBatch.observe(b, np.where(live, cur, -1))[:, :b.n_base])
        moves = b.greedy_actions()
        assert (block[live].sum(axis=1) == 1).all() and (block[~live] == 0).all()
        assert np.array_equal(np.argmax(block[live], axis=1), moves[live])
        other = np.where(live, (cur + 1) % 2, -1)
        assert not b.observe(other)[:, b.n_base:].any()  # a seat not to move sees zeros there
        b.step(random_actions(b.legal_mask(), rng))
        if b.terminated.any():
            assert not b.observe(np.where(b.terminated, 0, -1))[:, b.n_base:].any()  # a finished game: zeros
            b.reset_done(np.arange(4) + 100)


class CountingGreedy(FantastiqaGreedyAgent):
    calls = 0

    def act(self, *args, **kwargs):
        CountingGreedy.calls += 1
        return super().act(*args, **kwargs)


def test_a_decision_is_asked_of_its_bot_once():
    """observe (the block), then the warm start's teacher and a greedy opponent ask the same decision:
    the bot is asked once (its plans would change if asked twice), and all get the same move."""
    b = FantastiqaBatch(3, **GREEDY)
    b._greedy = CountingGreedy
    b.reset(np.arange(3))
    rng = np.random.default_rng(2)
    decisions = 0
    for _ in range(200):
        live = ~b.terminated
        first = np.argmax(b.observe()[:, b.n_base:], axis=1)
        again = b.greedy_actions(rng)
        assert np.array_equal(first[live], again[live]) and np.array_equal(b.greedy_actions(games=live), again)
        decisions += int(live.sum())
        b.step(random_actions(b.legal_mask(), rng))
        b.reset_done(np.arange(3) + 50)
    assert CountingGreedy.calls == decisions


def test_training_and_play_see_the_same_numbers():
    """Random games: every mover's row of the batch (the learner path) equals the observation
    PPOAgent builds for that seat from the scalar state (the arena's path), step by step; its
    bots keep their plans between decisions, as the batch's do (a fresh bot each decision would
    differ: counted as the control)."""
    n, seeds = 3, [7, 8, 9]
    b = FantastiqaBatch(n, **GREEDY)
    b.reset(seeds)
    weights = block_policy(b)
    agents = [[PPOAgent(weights=weights, game="fantastiqa") for _ in range(2)] for _ in range(n)]
    for row in agents:
        for agent in row:
            agent.reset(0)
    states = [FantastiqaState.new(2, seed=s) for s in seeds]
    rng = np.random.default_rng(3)
    fresh_differs = steps = 0
    while not b.terminated.all() and steps < 1500:
        obs, cur = b.observe(), b.current_player
        for i in np.flatnonzero(cur >= 0):
            seat = int(cur[i])
            mine = agents[i][seat]._own_observation(states[i], seat)
            assert np.array_equal(mine, obs[i]), (i, steps)
            fresh_differs += not np.array_equal(observe_block_game(None, states[i], seat, True, "greedy")[1], obs[i])
        actions = random_actions(b.legal_mask(), rng)
        b.step(actions)
        for i in np.flatnonzero(cur >= 0):
            states[i].apply(int(actions[i]))
        steps += 1
    assert steps > 200 and fresh_differs > 0


def test_block_reveals_no_hidden_information():
    """The mover's block is the same in every state its seat cannot tell apart (another seat's hand,
    every deck order resampled: sample_consistent). Control: the same check on another seat's own
    view fails, so the resampling does change what the mover may not know."""
    spec = get_game("fantastiqa")
    rng = np.random.default_rng(4)
    checked = leaks = 0
    for seed in range(4):
        s = FantastiqaState.new(2, seed=seed)
        bots = [FantastiqaGreedyAgent(), FantastiqaGreedyAgent()]
        for _ in range(400):
            if s.is_terminal():
                break
            p = s.current_player
            block = observe_block_game(None, s, p, True, "greedy")[1]
            for _ in range(2):
                other = s.sample_consistent(p, rng)
                assert np.array_equal(observe_block_game(None, other, p, True, "greedy")[1], block)
                leaks += not np.array_equal(spec.observe(other, 1 - p), spec.observe(s, 1 - p))
                checked += 1
            s.apply(bots[p].act(None, None, state=s, seat=p) if rng.random() < 0.7
                    else int(rng.choice(np.flatnonzero(spec.action_mask(s, p)))))
    assert checked > 500 and leaks > checked // 4


def test_policy_meta_rebuilds_the_observation_in_the_arena_and_in_evaluation(tmp_path):
    """A policy file recording action_features="greedy" plays in play_game (PPOAgent observes its own
    block from the rules state) as in the batched evaluation; a policy over the block that trusts
    it fully plays the greedy bot's games."""
    from tabletop_rl.training.evaluation import evaluate_policy

    b = FantastiqaBatch(1, **GREEDY)
    path = tmp_path / "block.npz"
    block_policy(b, coef=50.0).save(path)
    agent = make_agent("fantastiqa", "ppo", path=str(path))
    assert agent.uses_state is True and agent.observation_options == GREEDY
    assert make_agent("fantastiqa", "ppo", version="fantastiqa_2p_v1").uses_state is False  # a policy without it: as before
    spec = get_game("fantastiqa")
    for seed in (0, 1):
        ours = play_game(spec, [agent, make_agent("fantastiqa", "random")], seed=seed, agent_seeds=[0, 1])
        theirs = play_game(spec, [make_agent("fantastiqa", "greedy"), make_agent("fantastiqa", "random")], seed=seed,
                           agent_seeds=[0, 1])
        assert ours.actions == theirs.actions
    row = evaluate_policy(PolicyWeights.load(path), "fantastiqa", 2, "random", 6, seed=0, options=GREEDY)
    assert row["win_share"] > 0.5
    plain = make_batch("fantastiqa", 2)  # a batch without the block: the agent cannot observe it there
    plain.reset(np.arange(2))
    with pytest.raises(ValueError, match="batched engine's greedy block"):
        agent.act_batch(plain, np.ones(2, dtype=np.bool_), np.random.default_rng(0))


def test_a_tiny_run_trains_over_the_block_through_a_skip_and_the_file_plays_it(tmp_path):
    """train.py with action_features=greedy: the policy's skip is the batch's greedy block (found from
    its action_blocks), it starts at skip_init, the warm start's teacher and the block agree, and
    the saved file records the option so PPOAgent rebuilds the same observation."""
    import train

    cfg = train.parse_args(["--preset", "tiny", "--game", "fantastiqa", "--options", "action_features=greedy",
                            "--runs-dir", str(tmp_path), "--run-name", "g", "--n-envs", "4", "--total-steps", "512",
                            "--eval-every", "0", "--final-eval-games", "4", "--checkpoint-every", "0",
                            "--bc-samples", "64", "--max-game-steps", "300", "--skip-init", "4"])
    batch = FantastiqaBatch(1, **GREEDY)
    starts, init, inputs = train.policy_layout(cfg)
    assert starts == (batch.n_base,) and init == (4.0,) and len(inputs) == batch.n_base
    assert train.policy_layout(train.parse_args(["--preset", "fantastiqa"]))[2] is None  # mlp_inputs=all
    summary = train.train(cfg)
    assert summary["steps"] == 512
    weights = PolicyWeights.load(tmp_path / "g" / "policy.npz")
    assert weights.meta["options"] == GREEDY and [s for s, _ in weights.skip] == [batch.n_base]
    assert weights.obs_size == batch.obs_size and not weights.weights[0][0][batch.n_base:].any()
    agent = PPOAgent(weights=weights, game="fantastiqa")
    result = play_game(get_game("fantastiqa"), [agent, make_agent("fantastiqa", "random")], seed=0,
                       agent_seeds=[0, 1], max_steps=300)
    assert result.steps > 0


def batched_game_actions(weights: PolicyWeights, seed: int, max_steps: int = 4000) -> list[int]:
    """The moves of a game where `weights` (seat 0, as PPOAgent chooses) meets the greedy bot (seat 1),
    played in a one-game FantastiqaBatch dealt as FantastiqaState.new(2, seed=seed)."""
    b = FantastiqaBatch(1, **GREEDY)
    b.reset([seed])
    chooser = PPOAgent(weights=weights, game="fantastiqa")
    actions: list[int] = []
    while not b.terminated[0] and len(actions) < max_steps:
        if b.current_player[0] == 0:
            obs = b.observe()[0].copy()
            logits = np.where(b.legal_mask()[0], weights.logits(obs).astype(np.float64), -np.inf)
            action = chooser.choose(obs, logits)
        else:
            action = int(b.greedy_actions()[0])
        b.step([action])
        actions.append(action)
    return actions


def test_make_agent_plays_the_shipped_default_over_its_block():
    """The shipped default records action_features=greedy: make_agent's bot builds its block from the
    rules state and plays, in play_game (the arena's path), the moves the batched path plays."""
    bot = make_agent("fantastiqa", "ppo", seed=0)
    assert bot.observation_options == GREEDY and bot.uses_state is True
    for seed in (0, 1):
        game = play_game(get_game("fantastiqa"), [bot, make_agent("fantastiqa", "greedy")], seed=seed,
                         agent_seeds=[0, 1], max_steps=4000)
        assert game.actions == batched_game_actions(bot.policy, seed)
