"""OpenSpiel's MCTS and ISMCTS bots in our arena (tabletop_rl.agents.openspiel_bots)."""
import json

import pytest

pytest.importorskip("pyspiel")

from fae_rl import FaeState  # noqa: E402
from tabletop_rl.agents import agent_names, make_agent  # noqa: E402
from tabletop_rl.agents.arena import main  # noqa: E402
from tests.fae_helpers import random_state  # noqa: E402

BOTS = ["openspiel_mcts", "openspiel_ismcts"]


def test_bots_are_registered_for_fae():
    assert set(BOTS) <= set(agent_names("fae"))
    assert not set(BOTS) & set(agent_names("fantastiqa"))


@pytest.mark.parametrize("name", BOTS)
def test_bot_plays_legal_moves_reproducibly(name):
    s = random_state(2, 6, 3)
    mask = s.legal_mask()
    a = make_agent("fae", name, seed=1, simulations=20).act(None, mask, state=s, seat=s.current_player)
    b = make_agent("fae", name, seed=1, simulations=20).act(None, mask, state=s, seat=s.current_player)
    assert a == b and mask[a] == 1


@pytest.mark.parametrize("name", BOTS)
def test_bot_never_reads_other_seats_colours(name):
    """F-I1: with the other seats' colours swapped, the same seed plays the same move."""
    for seed in range(3):
        s = random_state(seed, 10 + seed, 3)
        seat = s.current_player
        d = s.to_dict()
        others = [p for p in range(3) if p != seat]
        d["colours"][others[0]], d["colours"][others[1]] = d["colours"][others[1]], d["colours"][others[0]]
        t = FaeState.from_dict(d)
        mask = s.legal_mask()
        a = make_agent("fae", name, seed=seed, simulations=15).act(None, mask, state=s, seat=seat)
        b = make_agent("fae", name, seed=seed, simulations=15).act(None, mask, state=t, seat=seat)
        assert a == b


def test_bad_options_name_the_problem():
    with pytest.raises(ValueError, match="simulations must be an int >= 1"):
        make_agent("fae", "openspiel_ismcts", simulations=0)
    with pytest.raises(ValueError, match="c must be a number >= 0"):
        make_agent("fae", "openspiel_mcts", c=-1.0)
    s = random_state(1, 3, 2)
    with pytest.raises(ValueError, match="is not to move"):
        make_agent("fae", "openspiel_mcts").act(None, s.legal_mask(), state=s, seat=1 - s.current_player)


def test_ismcts_plays_whole_games_against_random_and_wins():
    """A search bot that plays: 8 whole games of 2 players against random, ISMCTS with 30
    simulations, every move legal (play checks it), and at least one win.

    How much better than random it is cannot be a unit test at this budget: OpenSpiel's ISMCTS is
    not exactly reproducible run to run (see agents/openspiel_bots.py), and these 8 games gave 3, 5
    and 5 wins in three runs (100 simulations: 5, 7 and 8). An earlier version required a majority
    (> 4 of 8) and failed in a clean-clone CI run with 3. Measure its strength with the arena:
    `python -m tabletop_rl.agents.arena --game fae --agents openspiel_ismcts random --games 400`.
    At a win rate near 0.55, losing all 8 has probability 0.45^8, about 0.002."""
    wins = 0.0
    for seed in range(8):
        s = FaeState.new(2, seed=seed)
        bots = [make_agent("fae", "openspiel_ismcts", seed=seed, simulations=30), make_agent("fae", "random", seed=seed)]
        if seed % 2:
            bots.reverse()
        me = seed % 2
        while not s.is_terminal():
            p = s.current_player
            a = bots[p].act(None, s.legal_mask(), state=s, seat=p)
            assert s.legal_mask()[a]
            s.apply(a)
        wins += (me in s.winners()) / len(s.winners())
    assert wins >= 1


def test_arena_runs_openspiel_bots_against_ours(tmp_path):
    rc = main(["--game", "fae", "--agents", "openspiel_ismcts:simulations=10", "mcts:iterations=10",
               "--games", "2", "--workers", "1", "--out", str(tmp_path), "--no-plot", "--import",
               "tabletop_rl.agents.openspiel_bots", "--quiet"])
    assert rc == 0
    bots = json.loads((tmp_path / "results.json").read_text())["results"]["bots"]
    assert [b["bot"] for b in bots] == ["openspiel_ismcts:simulations=10", "mcts:iterations=10"]
    assert all(b["games"] == 2 for b in bots)
    assert sum(b["wins"] for b in bots) == pytest.approx(2.0)
