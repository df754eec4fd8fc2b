"""The OpenSpiel game python_fae (fae_rl.openspiel): OpenSpiel's own checks, move-for-move
agreement with FaeState, explicit chance (F-S1, F-S2) and hidden information (F-I1)."""
import itertools
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from fae_rl import FaeState  # noqa: E402
from fae_rl.openspiel import (  # noqa: E402
    COLOUR_DEALS,
    NUM_CHANCE_NODES,
    REGION_DEALS,
    deal_outcomes,
    state_from_fae,
    state_from_history,
)
from tests.fae_helpers import random_state  # noqa: E402


def load(players=2, merge=False):
    return pyspiel.load_game(f"python_fae(players={players},big_stack_merge={str(merge).lower()})")


def dealt(game, fae: FaeState):
    s = game.new_initial_state()
    for a in deal_outcomes(fae):
        assert s.is_chance_node()
        s.apply_action(a)
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_passes(players):
    pyspiel.random_sim_test(load(players), num_sims=3, serialize=True, verbose=False)


def test_random_sim_test_with_big_stack_merge():
    pyspiel.random_sim_test(load(3, True), num_sims=2, serialize=True, verbose=False)


def test_load_game_by_name_and_parameters():
    game = pyspiel.load_game("python_fae(players=3)")
    assert game.num_players() == 3 and game.num_distinct_actions() == 330
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert pyspiel.load_game("python_fae").num_players() == 2
    with pytest.raises(Exception, match="players must be 2, 3 or 4"):
        pyspiel.load_game("python_fae(players=5)")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_chance_nodes_deal_as_the_rules_say(players):
    """F-S1: 12 region nodes of 120 uniform outcomes; F-S2: one spirit node."""
    s = load(players).new_initial_state()
    for r in range(12):
        outcomes = s.chance_outcomes()
        assert len(outcomes) == 120 and all(p == pytest.approx(1 / 120) for _, p in outcomes)
        s.apply_action(r * 7 % 120)
    outcomes = s.chance_outcomes()
    assert len(outcomes) == {2: 20, 3: 60, 4: 120}[players]
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    s.apply_action(len(outcomes) - 1)
    assert s.current_player() == 0
    d = s.fae.druids()
    for r in range(12):
        assert tuple(d[5 * r:5 * r + 5].argmax(axis=1)) == REGION_DEALS[r * 7 % 120]
    assert tuple(s.fae.colours) == COLOUR_DEALS[players][-1]
    assert len(s.history()) == NUM_CHANCE_NODES


@pytest.mark.parametrize("players", [2, 3, 4])
def test_agrees_with_fae_state_move_for_move(players):
    """Differential: the same deal played with the same moves in both, 30 games per table size."""
    game = load(players, merge=players == 3)
    for seed in range(30):
        fae = FaeState.new(players, seed=seed, big_stack_merge=players == 3)
        s = dealt(game, fae)
        assert s.fae == fae
        rng = np.random.default_rng(seed)
        while not fae.is_terminal():
            assert s.current_player() == fae.current_player
            assert s.legal_actions() == fae.legal_actions().tolist()
            a = int(rng.choice(fae.legal_actions()))
            fae.apply(a)
            s.apply_action(a)
            assert s.fae == fae
        assert s.is_terminal() and s.returns() == fae.returns().tolist()
        assert sum(s.returns()) == pytest.approx(0.0)


def test_deal_outcomes_round_trip_from_deal():
    for seed in range(20):
        fae = FaeState.new(4, seed=seed)
        outs = deal_outcomes(fae)
        back = FaeState.from_deal(4, [REGION_DEALS[k] for k in outs[:12]], COLOUR_DEALS[4][outs[12]])
        assert back == fae


def test_from_deal_rejects_bad_deals():
    good = [list(range(5))] * 12
    with pytest.raises(ValueError, match="regions must be 12 permutations"):
        FaeState.from_deal(2, good[:11], [0, 1])
    with pytest.raises(ValueError, match="regions must be 12 permutations"):
        FaeState.from_deal(2, [[0, 0, 1, 2, 3]] + good[1:], [0, 1])
    with pytest.raises(ValueError, match="colours must be 2 distinct"):
        FaeState.from_deal(2, good, [1, 1])
    with pytest.raises(ValueError, match="colours must be 3 distinct"):
        FaeState.from_deal(3, good, [0, 1, 7])


def test_serialization_round_trip():
    game = load(3)
    rng = np.random.default_rng(0)
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(int(rng.integers(len(s.chance_outcomes()))))
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
        text = pyspiel.serialize_game_and_state(game, s)
        game2, s2 = pyspiel.deserialize_game_and_state(text)
        assert str(s2) == str(s) and s2.history() == s.history()
        if s.fae is not None:
            assert s2.fae == s.fae


def test_state_from_history_replays_and_validates():
    game = load(2)
    rng = np.random.default_rng(1)
    s = game.new_initial_state()
    for _ in range(30):
        s.apply_action(int(rng.integers(len(s.chance_outcomes()))) if s.is_chance_node() else int(rng.choice(s.legal_actions())))
    t = state_from_history(game, s.history())
    assert t.history() == s.history() and t.fae == s.fae
    with pytest.raises(ValueError, match="entry 0 \\(120\\) is not legal"):
        state_from_history(game, [120])
    with pytest.raises(ValueError, match="entry 13 \\(329\\) is not legal"):
        state_from_history(game, s.history()[:13] + [329])
    with pytest.raises(ValueError, match="entry 1 must be an int"):
        state_from_history(game, [0, "3"])


def other_colourings(fae: FaeState, seat: int, limit: int = 12):
    own = fae.colours[seat]
    others = [c for c in range(5) if c != own]
    for perm in itertools.islice(itertools.permutations(others, fae.num_players - 1), limit):
        colours = list(perm)
        colours.insert(seat, own)
        d = fae.to_dict()
        d["colours"] = colours
        yield FaeState.from_dict(d)


def views(s, p):
    return (s.information_state_string(p), s.observation_string(p),
            tuple(s.information_state_tensor(p)), tuple(s.observation_tensor(p)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_information_and_observations_hide_other_seats_colours(players):
    """F-I1: changing the other seats' colours changes none of a player's four views."""
    game = load(players)
    for seed in range(8):
        fae = FaeState.new(players, seed=seed)
        s = dealt(game, fae)
        rng = np.random.default_rng(seed)
        for _ in range(seed * 5):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        for p in range(players):
            base = views(s, p)
            assert f"own colour {s.fae.colours[p]}" in base[0]
            for other in other_colourings(s.fae, p):
                t = s.clone()
                t.fae = other
                assert views(t, p) == base


def test_views_differ_between_seats_only_by_what_each_may_see():
    game = load(2)
    s = dealt(game, FaeState.new(2, seed=3))
    assert s.information_state_string(0) != s.information_state_string(1)
    # The colour chance outcome never appears in an information state string.
    spirit = deal_outcomes(s.fae)[-1]
    assert s.information_state_string(0).split("|")[-1].split() == [str(a) for a in s.history()[:12]]
    assert len(s.history()) == 13 and s.history()[-1] == spirit


def test_resample_from_infostate_keeps_what_the_player_knows():
    game = load(3)
    s = dealt(game, FaeState.new(3, seed=11))
    for a in (0, 2):
        s.apply_action(s.legal_actions()[a])
    seen = set()
    for i in range(200):
        t = s.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert t.information_state_string(1) == s.information_state_string(1)
        assert t.fae.colours[1] == s.fae.colours[1]
        seen.add(tuple(t.fae.colours))
        assert t.legal_actions() == s.legal_actions()
    assert len(seen) == 12  # every assignment of the 4 other colours to the 2 other seats


def test_state_from_fae_wraps_a_position():
    game = load(2)
    fae = random_state(4, 15, 2)
    s = state_from_fae(game, fae)
    assert s.fae == fae and s.fae is not fae and s.current_player() == fae.current_player
    t = state_from_fae(game, next(other_colourings(fae, 0)))
    assert t.information_state_string(0) == s.information_state_string(0)
    with pytest.raises(ValueError, match="the position has 3 players"):
        state_from_fae(game, random_state(4, 15, 3))


def test_fae_rl_does_not_import_open_spiel():
    code = "import sys, fae_rl, tabletop_rl.envs, tabletop_rl.agents; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_non_movers_have_no_legal_action_and_an_all_zero_mask():
    game = load(3)
    s = dealt(game, FaeState.new(3, seed=5))
    for _ in range(4):
        mover = s.current_player()
        for p in range(3):
            mask = s.legal_actions_mask(p)
            assert (sum(mask) > 0) == (p == mover) and (s.legal_actions(p) == []) == (p != mover)
        s.apply_action(s.legal_actions()[-1])


@pytest.mark.parametrize("node", ["region", "colour"])
@pytest.mark.parametrize("action", [999, "k", -1, True, 3.5])
def test_out_of_range_chance_outcomes_are_value_errors(node, action):
    """Issue 24: a chance outcome past the node's outcomes was stored (999 at a region node, an
    IndexError later) or hit OpenSpiel's own check (SpielError for -1); now every bad id raises a
    ValueError and the state keeps its history."""
    from fae_rl.openspiel import NUM_REGIONS

    s = load().new_initial_state()
    for _ in range(NUM_REGIONS if node == "colour" else 0):
        s.apply_action(0)
    assert s.is_chance_node()
    if action == "k":
        action = len(s.chance_outcomes())  # one past the last outcome
    before = s.history()
    with pytest.raises(ValueError):
        s.apply_action(action)
    assert s.history() == before and s.is_chance_node()
