"""Issue 28: plain `ppo` plays the catalogue's default for the table it sits at (fae_3p_v1 at 3
players, fae_4p_v1 at 4), from `num_players=` or from what it sees; a table without a shipped
version is refused; an explicit version= still wins."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_rl.agents import make_agent
from tabletop_rl.agents import policy_versions as pv
from tabletop_rl.agents.arena import ArenaConfig, run_arena
from tabletop_rl.agents.match import play_game

TABLES = {2: "fae_2p_v7", 3: "fae_3p_v1", 4: "fae_4p_v1"}


@pytest.mark.parametrize("players, version", sorted(TABLES.items()))
def test_num_players_picks_the_tables_default(players, version):
    assert pv.default_version("fae", players) == version and pv.table_sizes("fae") == [2, 3, 4]
    bot = make_agent("fae", "ppo", seed=0, num_players=players)
    assert bot.version == version and bot.policy.meta["num_players"] == players


@pytest.mark.parametrize("players", [3, 4])
def test_plain_ppo_plays_the_default_of_the_table_it_sees(fae_spec, players):
    """No num_players: the first observation says the table; the games are those of the named version."""
    plain = play_game(fae_spec, [make_agent("fae", "ppo", seed=0) for _ in range(players)], seed=7)
    named = play_game(fae_spec, [make_agent("fae", "ppo", seed=0, version=TABLES[players]) for _ in range(players)],
                      seed=7)
    assert plain.actions == named.actions
    bot = make_agent("fae", "ppo", seed=0)
    play_game(fae_spec, [bot] + [make_agent("fae", "greedy", seed=1) for _ in range(players - 1)], seed=3)
    assert bot.version == TABLES[players] and bot.policy.meta["num_players"] == players
    assert bot.deterministic is True  # each table's version is played as its catalogue entry says (argmax here)
    play_game(fae_spec, [bot, make_agent("fae", "greedy", seed=1)], seed=3)  # back at 2 players
    assert bot.version == TABLES[2] and bot.deterministic is pv.play_mode("fae", TABLES[2])[0] is False  # sampled
    forced = make_agent("fae", "ppo", seed=0, deterministic=True)  # the caller's choice holds at every table
    play_game(fae_spec, [forced] + [make_agent("fae", "greedy", seed=1) for _ in range(players - 1)], seed=3)
    play_game(fae_spec, [forced, make_agent("fae", "greedy", seed=1)], seed=3)
    assert forced.version == TABLES[2] and forced.deterministic is True


def test_the_arena_spec_ppo_plays_the_tables_default(tmp_path):
    def actions(spec):
        cfg = ArenaConfig(game="fae", agents=[spec, "greedy", "greedy"], players=3, games=3, workers=1)
        return [r["record"]["actions"] for r in run_arena(cfg, plot=False, quiet=True, write=False)["rows"]]

    assert actions("ppo") == actions("ppo:version=fae_3p_v1") != actions("ppo:version=fae_2p_v2")


def test_an_explicit_version_wins_at_any_table(fae_spec):
    bot = make_agent("fae", "ppo", seed=0, version="fae_2p_v2")
    play_game(fae_spec, [bot, make_agent("fae", "greedy"), make_agent("fae", "greedy")], seed=3)
    assert bot.version == "fae_2p_v2" and not bot.follows_table


def test_act_batch_follows_the_batch_table():
    from tabletop_rl.envs.fae_batch import FaeBatch

    batch = FaeBatch(4, 4, history="none", action_features="versus")
    batch.reset(np.arange(4))
    bot = make_agent("fae", "ppo", seed=0)
    bot.act_batch(batch, np.ones(4, dtype=bool), np.random.default_rng(0))
    assert bot.version == "fae_4p_v1"


def test_a_table_without_a_shipped_version_is_refused(fantastiqa_spec):
    with pytest.raises(ValueError, match=r"no shipped fantastiqa policy for a 3-player table; shipped tables: \[2\]"):
        make_agent("fantastiqa", "ppo", num_players=3)
    with pytest.raises(ValueError, match="no shipped fae policy for a 5-player table"):
        pv.default_version("fae", 5)
    bot = make_agent("fantastiqa", "ppo", seed=0)
    before = bot.version
    state = fantastiqa_spec.new_state(num_players=3, seed=0)
    obs = fantastiqa_spec.observe(state, state.current_player)
    with pytest.raises(ValueError, match="3-player table"):
        bot.act(obs, fantastiqa_spec.action_mask(state, state.current_player), state=state,
                seat=state.current_player)  # the default observes the greedy block: it needs the state
    assert bot.version == before  # refused: nothing changed


@pytest.fixture
def catalogue_with(tmp_path, monkeypatch):
    """Writes a 2- and 3-player catalogue with the given table_defaults; the cache is cleared after."""
    def write(table_defaults):
        entry = {"game": "fae", "options": {}, "command": "c", "figures": {}}
        versions = [{**entry, "name": f"t_{p}p", "file": f"t{p}.npz", "details": f"t{p}.json", "players": p}
                    for p in (2, 3)]
        (tmp_path / "versions.json").write_text(json.dumps({"game": "fae", "default": "t_2p", "versions": versions,
                                                            "table_defaults": table_defaults}))
        monkeypatch.setitem(pv.POLICY_FOLDERS, "fae", tmp_path)
        pv.catalogue.cache_clear()

    yield write
    pv.catalogue.cache_clear()


@pytest.mark.parametrize("table_defaults, words", [
    ({"2": "t_2p"}, "other than \\[2\\]"),        # the default's own table
    ({"3": "t_2p"}, "trained at 3 players"),      # a version of another table
    ({"3": "nope"}, "trained at 3 players"),
    ({"three": "t_3p"}, "must be a table size"),
    (["t_3p"], "must be an object"),
])
def test_malformed_table_defaults_name_the_problem(catalogue_with, table_defaults, words):
    catalogue_with(table_defaults)
    with pytest.raises(ValueError, match=words):
        pv.version_names("fae")


def test_table_defaults_are_read(catalogue_with):
    catalogue_with({"3": "t_3p"})
    assert pv.default_version("fae", 3) == "t_3p" and pv.default_version("fae") == "t_2p"


@pytest.mark.parametrize("players", [True, "3", 2.5, [3], None.__class__])
def test_a_num_players_that_is_not_an_int_is_refused_by_name(players):
    with pytest.raises(ValueError, match="num_players must be an int table size"):
        make_agent("fae", "ppo", num_players=players)
