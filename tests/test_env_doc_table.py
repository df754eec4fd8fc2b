"""The env pages' table says what is true (issue 39 item 7): "Parallel API: No" was wrong, since
PettingZoo's `turn_based_aec_to_parallel` gives both games the Parallel API
(tests/test_parallel_conversion.py runs `parallel_api_test` on it). The line names the converter;
this test plays a few steps through the converter it names."""
import re

import numpy as np
import pytest
from pettingzoo.utils import conversions

import fae_rl
import fantastiqa_rl
from fae_rl import environment as fae_environment
from fantastiqa_rl import environment as fantastiqa_environment


@pytest.mark.parametrize("module,page", [(fae_rl, fae_environment.__doc__), (fantastiqa_rl, fantastiqa_environment.__doc__)],
                         ids=["fae", "fantastiqa"])
def test_parallel_api_line_names_a_converter_that_works(module, page):
    line = next(ln for ln in page.splitlines() if ln.startswith("| Parallel API |"))
    assert line.split("|")[2].strip().startswith("Yes")
    name = re.search(r"pettingzoo\.utils\.conversions\.(\w+)\(env\)", line).group(1)
    env = getattr(conversions, name)(module.env())
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
                   for a, o in observations.items()}
        observations, rewards, terminations, truncations, _ = env.step(actions)
    assert set(observations) == set(env.possible_agents)
