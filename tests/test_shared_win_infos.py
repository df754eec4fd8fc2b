"""End-of-game infos have one shape and type whoever wins (issue 27, item 1).

`info["winners"]` is an int8 array with one 0/1 entry per seat in the AEC envs and the Gymnasium
self-play env alike. A names list changed length on a shared win, and Tianshou's replay buffer,
which stores infos in fixed-shape arrays, crashed on the first tie of a long run. Each test plays a
scripted single-winner game and a scripted shared win (found by seeded random play on the rules
core, replayed move for move) through one bridge.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from tabletop_rl.agents.base import Agent
from tabletop_rl.envs.registry import get_game

# turn_limit=1: a Fantastiqa game of one turn per player, often scoreless (a shared win) or decided
# by the Q-E4 tie-breaks (one winner); Fae's 2-player random games tie about once in 300.
OPTIONS = {"fae": {}, "fantastiqa": {"turn_limit": 1}}
GAMES = ["fae", "fantastiqa"]


@functools.cache
def scripted_game(game: str, shared: bool) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(seed, actions, winner flags) of the first 2-player random game, seeds 0.., that ends in a
    shared win (`shared`) or with one winner."""
    spec = get_game(game)
    for seed in range(2000):
        state = spec.new_state(num_players=2, seed=seed, **OPTIONS[game])
        rng, actions = np.random.default_rng(seed), []
        while not state.is_terminal():
            legal = np.flatnonzero(spec.action_mask(state, state.current_player))
            actions.append(int(rng.choice(legal)))
            state.apply(actions[-1])
        if (len(state.winners()) > 1) == shared:
            return seed, tuple(actions), tuple(int(p in state.winners()) for p in range(2))
    raise AssertionError(f"no {'shared' if shared else 'single'} win in 2000 random {game} games")


def both_outcomes(game: str):
    return [scripted_game(game, shared=False), scripted_game(game, shared=True)]


def check_winners(info: dict, flags: tuple[int, ...]) -> None:
    winners = info["winners"]
    assert isinstance(winners, np.ndarray) and winners.dtype == np.int8 and winners.shape == (2,)
    assert tuple(winners.tolist()) == flags


def aec_env(game: str):
    spec = get_game(game)
    return spec.env(num_players=2, **OPTIONS[game])


@pytest.mark.parametrize("game", GAMES)
def test_aec_env_names_winners_per_seat_in_a_shared_win(game):
    env = aec_env(game)
    for (seed, actions, flags), shared in zip(both_outcomes(game), (False, True)):
        env.reset(seed=seed)
        for a in actions:
            env.step(a)
        assert all(env.terminations.values()) and sum(flags) == (2 if shared else 1)
        for agent in env.possible_agents:
            check_winners(env.infos[agent], flags)


class Replay(Agent):
    """Plays the next move of a script shared with the test (the learner plays the others)."""
    name = "replay"

    def __init__(self, moves):
        super().__init__(0)
        self.moves = moves

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        return next(self.moves)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_names_winners_per_seat_in_a_shared_win(game):
    from tabletop_rl.training.selfplay import SelfPlayEnv

    spec = get_game(game)
    for seed, actions, flags in both_outcomes(game):
        deal = spec.new_state(num_players=2, seed=seed, **OPTIONS[game])
        seat = deal.current_player  # the learner moves first (Fantastiqa: seat 1, Q-S4)
        moves = iter(actions)
        env = SelfPlayEnv(game, 2, opponent=Replay(moves), seat=seat, **OPTIONS[game])
        env.reset(seed=0)
        env.set_snapshot(dict(env.get_snapshot(), state=deal.to_dict()))  # the scripted deal
        done = False
        while not done:
            _, reward, terminated, truncated, info = env.step(next(moves))
            done = terminated or truncated
        assert terminated and next(moves, None) is None
        check_winners(info, flags)
        assert info["won"] is bool(flags[seat])


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_buffer_stores_a_single_and_a_shared_win(game):
    pytest.importorskip("tianshou")
    from tianshou.data import Batch, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    venv = DummyVectorEnv([lambda: PettingZooEnv(aec_env(game))])
    buffer = VectorReplayBuffer(1000, buffer_num=1)
    for seed, actions, flags in both_outcomes(game):
        obs, info = venv.reset(seed=seed)
        for a in actions:  # what Tianshou's Collector adds per step
            obs_next, rew, terminated, truncated, info = venv.step(np.array([a]))
            buffer.add(Batch(obs=obs, act=np.array([a]), obs_next=obs_next, rew=rew, terminated=terminated,
                             truncated=truncated, done=terminated | truncated, info=info), buffer_ids=[0])
            obs = obs_next
        assert terminated.all()
        check_winners(info[0], flags)
    venv.close()
    final = buffer.info.winners[buffer.done.astype(bool)]
    assert final.tolist() == [list(flags) for _, _, flags in both_outcomes(game)]


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
@pytest.mark.parametrize("game", GAMES)
def test_torchrl_wrapper_plays_a_shared_win_to_zero_rewards(game):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper

    seed, actions, flags = scripted_game(game, shared=True)
    env = PettingZooWrapper(aec_env(game), use_mask=True, categorical_actions=True)
    td = env.reset(seed=seed)  # passed on to the AEC env's reset: the scripted deal
    for a in actions:
        for group in env.group_map:
            td[group, "action"] = torch.tensor([a])
        td = env.step(td)
        if td["next", "done"].all():
            break
        td = env.step_mdp(td)
    assert td["next", "done"].all() and a == actions[-1]
    assert [float(td["next", g, "reward"]) for g in env.group_map] == [0.0, 0.0]  # a shared win of all: 0 each
    for agent in env.possible_agents:
        check_winners(env._env.infos[agent], flags)
    env.close()
