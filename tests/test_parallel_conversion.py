"""PettingZoo's Parallel API over our turn-based AEC envs, as docs/usage/envs.md says: `turn_based_aec_to_parallel`
(one agent acts per step, the others' actions are ignored) passes `parallel_api_test` on both games;
`aec_to_parallel`, meant for envs that update once per cycle, refuses them."""
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import fae_rl
import fantastiqa_rl

GAMES = {"fae 3p": lambda: fae_rl.env(num_players=3), "fantastiqa 2p": lambda: fantastiqa_rl.env(num_players=2)}


@pytest.mark.parametrize("make", GAMES.values(), ids=GAMES.keys())
def test_turn_based_aec_to_parallel_passes_parallel_api_test(make):
    env = turn_based_aec_to_parallel(make())
    parallel_api_test(env, num_cycles=200)
    observations, infos = env.reset(seed=0)
    assert set(observations) == set(env.possible_agents)
    assert sum(o["action_mask"].any() for o in observations.values()) == 1  # only the mover has legal actions


@pytest.mark.parametrize("make", GAMES.values(), ids=GAMES.keys())
def test_aec_to_parallel_refuses_a_turn_based_env(make):
    with pytest.raises(AssertionError, match="not generally safe"):
        aec_to_parallel(make())
