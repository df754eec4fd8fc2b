"""F-I1: an agent's observation and mask never reveal another player's colour."""
import itertools

import numpy as np
import pytest

import fae_rl
from fae_rl import FaeState
from fae_rl.observation import observation_layout
from fae_rl.render import render_rgb, render_text
from tests.fae_helpers import random_state


def with_colours(state: FaeState, colours) -> FaeState:
    d = state.to_dict()
    d["colours"] = list(colours)
    return FaeState.from_dict(d)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("history", ["summary", "none"])
def test_observation_is_unchanged_when_other_seats_colours_change(n, history):
    for seed in range(15):
        s = random_state(seed, seed * 3 % 50, n)
        for seat in range(n):
            base = fae_rl.observe(s, seat, history)
            own = s.colours[seat]
            others = [c for c in range(5) if c != own]
            for perm in itertools.islice(itertools.permutations(others, n - 1), 12):
                colours = list(perm)
                colours.insert(seat, own)
                t = with_colours(s, colours)
                assert (fae_rl.observe(t, seat, history) == base).all()
                assert (fae_rl.action_mask(t, seat) == fae_rl.action_mask(s, seat)).all()


def test_own_colour_is_the_only_private_feature():
    s = random_state(1, 10, 3)
    layout = observation_layout()
    for seat in range(3):
        obs = fae_rl.observe(s, seat)
        assert obs[layout["own_colour"]].tolist() == np.eye(5)[s.colours[seat]].tolist()


def test_non_movers_get_an_all_zero_mask():
    for seed in range(20):
        s = random_state(seed, seed, 4)
        if s.is_terminal():
            continue
        for seat in range(4):
            mask = fae_rl.action_mask(s, seat)
            assert mask.dtype == np.int8 and mask.shape == (330,)
            assert mask.any() == (seat == s.current_player)


def test_env_masks_for_non_movers_are_zero():
    env = fae_rl.env(num_players=3)
    env.reset(seed=4)
    for _ in range(10):
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.any() == (agent == env.agent_selection)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[0]))


def test_renders_hide_spirits_until_the_end():
    s = random_state(6, 12, 2)
    assert not s.is_terminal()
    t = with_colours(s, [s.colours[1], s.colours[0]])
    assert render_text(s) == render_text(t)
    assert (render_rgb(s) == render_rgb(t)).all()


def test_sample_consistent_keeps_public_state_and_own_colour():
    rng = np.random.default_rng(0)
    s = random_state(7, 20, 3)
    seen = set()
    for _ in range(300):
        t = s.sample_consistent(1, rng)
        assert t.colours[1] == s.colours[1] and len(set(t.colours)) == 3
        dt, ds = t.to_dict(), s.to_dict()
        dt.pop("colours"), ds.pop("colours")
        assert dt == ds
        seen.add(tuple(t.colours))
    assert len(seen) == 12  # every assignment of the 4 other colours to 2 seats is drawn
    assert s.information_state(1)["colours"] == [-1, s.colours[1], -1]


def test_sample_consistent_never_reads_hidden_colours():
    s = random_state(8, 25, 3)
    t = with_colours(s, [s.colours[0], s.colours[2], s.colours[1]])  # other seats swapped
    a = s.sample_consistent(0, np.random.default_rng(5))
    b = t.sample_consistent(0, np.random.default_rng(5))
    assert a.colours == b.colours
