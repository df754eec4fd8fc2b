"""The fae_v0 AEC env: PettingZoo's own tests on every option value, protections, rewards, infos."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tabletop_rl import envs
import fae_rl
from fae_rl import FaeState

# env._cumulative_rewards is PettingZoo's own AECEnv field (its API test reads it too).

OPTION_SETS = [
    dict(num_players=2), dict(num_players=3), dict(num_players=4),
    dict(num_players=2, big_stack_merge=True), dict(num_players=3, history="none"),
    dict(num_players=4, reward="score_diff"), dict(num_players=2, history="none", reward="score_diff"),
]


pytestmark = pytest.mark.usefixtures("quiet_warnings")  # conftest.py


@pytest.mark.parametrize("kw", OPTION_SETS, ids=str)
def test_pettingzoo_api_seed_and_render_tests(kw):
    api_test(fae_rl.env(**kw), num_cycles=300)
    api_test(fae_rl.raw_env(**kw), num_cycles=300)
    seed_test(lambda: fae_rl.env(**kw), num_cycles=300)
    render_test(lambda render_mode=None: fae_rl.env(render_mode=render_mode, **kw))


def test_registries():
    assert pettingzoo.spec("aec", "fae_v0").entry_point == "fae_rl.environment:env"
    e = pettingzoo.make("aec", "fae_v0", num_players=3)
    e.reset(seed=1)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert envs.make("fae_v0", num_players=4).num_players == 4
    assert envs.get_game("fae").env_id == "fae_v0"
    with pytest.raises(ValueError, match="unknown game"):
        envs.make("nope_v0")


@pytest.mark.parametrize("kw, match", [
    (dict(num_players=5), "num_players"), (dict(history="full"), "history"),
    (dict(reward="dense"), r"reward must be one of \('win_loss', 'score_diff'\)"),
    (dict(render_mode="video"), "render_mode"), (dict(big_stack_merge=None), "big_stack_merge"),
])
def test_bad_options_name_the_allowed_values(kw, match):
    with pytest.raises(ValueError, match=match):
        fae_rl.env(**kw)


def play_random(env, seed, rng):
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return totals, info


def test_win_loss_rewards_equal_core_returns_and_infos_reveal_colours():
    rng = np.random.default_rng(0)
    for seed in range(10):
        env = fae_rl.env(num_players=3)
        totals, info = play_random(env, seed, rng)
        core = env.unwrapped.game
        assert [totals[a] for a in env.possible_agents] == pytest.approx(core.returns().tolist())
        assert info["colours"] == {f"player_{i}": c for i, c in enumerate(core.colours)}
        assert info["final_scores"] == core.final_colour_scores().tolist()
        assert info["raw_scores"] == core.scores().tolist()
        assert info["winners"].tolist() == [int(p in core.winners()) for p in range(3)]  # per seat 0/1


def test_score_diff_rewards_sum_to_the_final_margin():
    rng = np.random.default_rng(1)
    for seed in range(10):
        env = fae_rl.env(num_players=2, reward="score_diff")
        totals, _ = play_random(env, seed, rng)
        g = env.unwrapped.game
        for seat, agent in enumerate(env.possible_agents):
            own = g.colours[seat]
            margin = g.scores()[own] + g.ritual_cards()[seat] - max(g.scores()[c] for c in range(5) if c != own)
            assert totals[agent] == pytest.approx(margin)


def test_env_follows_the_core_step_by_step():
    rng = np.random.default_rng(2)
    env = fae_rl.raw_env(num_players=4)
    env.reset(seed=11)
    core = FaeState.new(4, seed=11)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert agent == f"player_{core.current_player}"
        assert (obs["action_mask"] == core.legal_mask()).all()
        assert (obs["observation"] == fae_rl.observe(core, core.current_player)).all()
        legal = core.legal_actions()
        a = int(legal[rng.integers(legal.size)])
        env.step(a)
        core.apply(a)
    assert core.is_terminal()


def test_protected_env_ends_the_game_on_an_illegal_move():
    env = fae_rl.env(num_players=3)
    env.reset(seed=0)
    env.step(0)  # legal: every space is occupied at the start
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    offender = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert all(env._cumulative_rewards[a] == 0.0 for a in env.agents if a != offender)
    with pytest.raises(ValueError, match="outside the action space"):
        e2 = fae_rl.env()
        e2.reset(seed=0)
        e2.step(999)


def test_raw_env_raises_on_illegal_action_and_keeps_state():
    env = fae_rl.raw_env()
    env.reset(seed=0)
    env.step(0)
    before = env.unwrapped.game.to_dict()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {illegal} .* is illegal"):
        env.step(illegal)
    assert env.unwrapped.game.to_dict() == before


def test_protected_env_enforces_reset_first():
    env = fae_rl.env()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AttributeError):
        env.agent_selection  # noqa: B018


def test_state_space_and_render_image():
    env = fae_rl.env(num_players=2, render_mode="rgb_array")
    env.reset(seed=3)
    st = env.state()
    assert env.state_space.contains(st)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.std() > 0
    text = fae_rl.env(render_mode="ansi")
    text.reset(seed=3)
    assert "player_0" in text.render() and "R12" in text.render()
