"""Issue 38 item 3: a game's rule options and the reward names are declared once, and everything
that shows or checks them reads that declaration."""
import subprocess
import sys

import pytest

from tabletop_rl.envs.registry import get_game, rule_options_help
from tabletop_rl.envs.rewards import AEC_REWARDS, SCORE_DIFF, WIN_LOSS, check_reward, learner_rewards
from tabletop_rl.options import Option, check_values, options_doc

GAMES = ("fae", "fantastiqa")


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_core_checks_each_option_with_its_declaration(game):
    spec = get_game(game)
    assert spec.rule_options == tuple(o.name for o in spec.option_table)
    for opt in spec.option_table:
        players = 4 if opt.name == "teams" else 2
        for v in opt.values:  # every declared value plays
            spec.new_state(num_players=players, seed=0, **{opt.name: v})
        with pytest.raises(ValueError, match=f"option '{opt.name}'"):
            spec.new_state(num_players=players, seed=0, **{opt.name: 1.5})  # no option takes a float


@pytest.mark.parametrize("game", GAMES)
def test_the_env_docstring_and_the_cli_help_list_the_declared_options(game):
    spec = get_game(game)
    doc = spec.env.__doc__
    assert "{rule_options}" not in doc and options_doc(spec.option_table) in doc.replace("\n  ", "\n")
    text = rule_options_help()
    for opt in spec.option_table:
        assert f"`{opt.name}` ({opt.rule})" in doc
        assert f"{opt.name}=" in text and f"({opt.rule})" in text
    out = subprocess.run([sys.executable, "-m", "tabletop_rl.agents.arena", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and rule_options_help() in out.stdout


def test_an_option_table_refuses_what_it_does_not_declare():
    table = (Option("colour", ("red", "blue"), "X-1", "a colour"),
             Option("size", (), "X-2", "a size", default=3, check=lambda v: None if v in (3, 4) else "3 or 4"))
    assert check_values(table, {}) == {"colour": "red", "size": 3}
    assert check_values(table, {"size": 4}) == {"colour": "red", "size": 4}
    with pytest.raises(ValueError, match="unknown rule option 'shape'"):
        check_values(table, {"shape": 1})
    with pytest.raises(ValueError, match=r"allowed values: \['red', 'blue'\]"):
        check_values(table, {"colour": "green"})
    with pytest.raises(ValueError, match="3 or 4"):
        check_values(table, {"size": 5})
    with pytest.raises(ValueError, match="needs a check"):
        Option("free", (), "X-3", "no values, no check", default=1)


def test_reward_names_are_declared_once():
    from fae_rl.environment import raw_env as fae_env
    from fantastiqa_rl.environment import raw_env as fantastiqa_env
    from fantastiqa_rl.rewards import POTENTIALS as FANTASTIQA_POTENTIALS
    from tabletop_rl.envs.fae_batch import POTENTIALS as FAE_POTENTIALS
    from tabletop_rl.training.fae_vector_env import REWARDS as FAE_VECTOR_REWARDS
    from tabletop_rl.training.selfplay import REWARDS as SELFPLAY_REWARDS

    assert AEC_REWARDS == (WIN_LOSS, SCORE_DIFF) and SELFPLAY_REWARDS is AEC_REWARDS
    assert FAE_VECTOR_REWARDS == learner_rewards(FAE_POTENTIALS) == ("win_loss", "score_diff", "seat_diff")
    assert FAE_POTENTIALS[0] == FANTASTIQA_POTENTIALS[0] == SCORE_DIFF
    for make in (fae_env, fantastiqa_env):
        for reward in AEC_REWARDS:
            assert make(reward=reward).reward_type == reward
        with pytest.raises(ValueError, match=r"reward must be one of \('win_loss', 'score_diff'\)"):
            make(reward="seat_diff")
    assert check_reward("progress", learner_rewards(FANTASTIQA_POTENTIALS)) == "progress"
    with pytest.raises(ValueError, match="got 1"):
        check_reward(1)


@pytest.mark.parametrize("game", GAMES)
def test_the_base_env_pays_score_diff_from_the_game_potential(game):
    """The one `_set_rewards`: each seat's rewards over a game sum to its final potential (the shaping
    telescopes), and win_loss pays only the returns at the end."""
    import numpy as np

    spec = get_game(game)
    totals = {}
    for reward in AEC_REWARDS:
        env = spec.raw_env(reward=reward, **({"turn_limit": 3} if game == "fantastiqa" else {}))
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(20_000):
            obs, r, term, trunc, _ = env.last()
            total[agent] += r
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        totals[reward] = total
        state = env.game
        if reward == SCORE_DIFF:
            for seat, a in enumerate(env.possible_agents):
                assert total[a] == pytest.approx(spec.potential(state, seat))
        else:
            assert [total[a] for a in env.possible_agents] == pytest.approx(list(state.returns()))
    assert totals[WIN_LOSS] != totals[SCORE_DIFF]  # control: the two rewards differ
