"""Game records: they replay to identical states, catch tampering, and come from the arena, the
play CLI and any env (the recording wrapper); the human agent and the --human CLI."""
from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

import tabletop_rl.agents.mcts  # noqa: F401
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.human import HumanAgent, QuitGame, listing_order
from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.play import main as play_main
from tabletop_rl.agents.play import play_human
from tabletop_rl.agents.records import (FORMAT_VERSION, ReplayError, make_record, read_records, replay, state_digest,
                            transitions, write_records)
from tabletop_rl.agents.recording import RecordEpisodes, make_recorded
from tabletop_rl.envs.registry import get_game
from fae_rl import FaeState, action_mask, observe

SPEC = get_game("fae")


def _game(num_players=3, seed=4, opts=None):
    states = []
    bots = [make_agent("fae", n, seed=j, **({"iterations": 6} if n == "mcts" else {}))
            for j, n in enumerate(["greedy", "random", "mcts", "random"][:num_players])]
    res = play_game(SPEC, bots, seed=seed, agent_seeds=[1, 2, 3, 4][:num_players], rule_options=opts,
                    on_action=lambda s, seat, a: states.append(s.clone()))
    return res, states


@pytest.mark.parametrize("num_players,opts", [(2, None), (3, {"big_stack_merge": True}), (4, None)])
def test_records_replay_to_identical_states(num_players, opts, tmp_path):
    res, states = _game(num_players, seed=num_players, opts=opts)
    rec = res.to_record(SPEC, agents=["a"] * num_players)
    path = tmp_path / "games.jsonl"
    write_records(path, [rec, rec])
    back = list(read_records(path))
    assert back == [json.loads(json.dumps(rec))] * 2
    replayed = replay(back[0])
    assert replayed[0] == FaeState.new(num_players, seed=num_players, **(opts or {}))
    assert replayed[1:] == states  # every state, compared with FaeState.__eq__ (to_dict)
    assert rec["returns"] == res.returns and rec["winners"] == res.winners
    assert rec["final_state_sha256"] == state_digest(states[-1])
    assert rec["env_id"] == "fae_v0" and rec["env_version"] == 0 and rec["format_version"] == FORMAT_VERSION
    assert rec["options"] == (opts or {}) and rec["seed"] == num_players


def test_tampered_records_are_caught():
    res, _ = _game(2, seed=9)
    rec = res.to_record(SPEC)
    bad = dict(rec, actions=rec["actions"][:-3])
    with pytest.raises(ReplayError, match="not over"):
        replay(bad)
    bad = dict(rec, actions=[329] + rec["actions"][1:])
    with pytest.raises(ReplayError, match=r"field 'actions\[0\]'"):
        replay(bad)
    bad = dict(rec, returns=rec["returns"][::-1])
    if bad["returns"] != rec["returns"]:
        with pytest.raises(ReplayError, match="returns"):
            replay(bad)
    bad = dict(rec, final_state_sha256="0" * 64)
    with pytest.raises(ReplayError, match="final state"):
        replay(bad)
    bad = dict(rec, seed=rec["seed"] + 1)
    with pytest.raises(ReplayError):
        replay(bad)
    with pytest.raises(ReplayError, match="'seed': missing"):
        replay({k: v for k, v in rec.items() if k != "seed"})
    with pytest.raises(ReplayError, match="format_version"):
        replay(dict(rec, format_version=99))
    with pytest.raises(ReplayError, match="fae_v0"):
        replay(dict(rec, env_id="fae_v7"))
    with pytest.raises(ValueError, match="int seed"):
        make_record(SPEC, num_players=2, seed=None, rule_options={}, actions=[])


def test_read_records_names_the_bad_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n\nnot json\n')
    with pytest.raises(ReplayError, match=":3:"):
        list(read_records(path))


def test_transitions_give_offline_rl_data():
    res, states = _game(2, seed=1)
    rec = res.to_record(SPEC)
    steps = list(transitions(rec, history="none"))
    assert len(steps) == len(rec["actions"])
    first = FaeState.new(2, seed=1)
    assert np.array_equal(steps[0]["observation"], observe(first, 0, history="none"))
    assert all(s["action_mask"][s["action"]] == 1 for s in steps)


def test_records_keep_each_seats_observation_options_and_transitions_use_them():
    # the shipped policy observes with history="none", action_features="versus" (2,183 floats); greedy
    # with the defaults (1,703): each seat's transitions have the width that seat saw
    ppo = make_agent("fae", "ppo", seed=0)
    res = play_game(SPEC, [ppo, make_agent("fae", "greedy", seed=1)], seed=5, agent_seeds=[0, 1])
    rec = json.loads(json.dumps(res.to_record(SPEC)))  # as read back from a file
    assert rec["observation_options"] == [{"history": "none", "action_features": "versus"},
                                          {"history": "summary", "action_features": "none"}]
    steps = list(transitions(rec))
    widths = {s["seat"]: s["observation"].shape for s in steps}
    assert widths == {0: (2183,), 1: (1703,)}
    first = FaeState.new(2, seed=5)
    assert np.array_equal(steps[0]["observation"],
                          SPEC.observe(first, steps[0]["seat"], **rec["observation_options"][steps[0]["seat"]]))
    # a keyword still overrides them for every seat
    plain = SPEC.observe(first, 0, history="summary").shape
    assert {s["observation"].shape for s in transitions(rec, action_features="none", history="summary")} == {plain}


def test_records_without_observation_options_still_read_with_the_defaults():
    res, _ = _game(2, seed=1)
    rec = res.to_record(SPEC)
    del rec["observation_options"]  # a record written before the field existed
    assert replay(rec)[-1] == res.final_state
    assert {s["observation"].shape for s in transitions(rec)} == {(1703,)}


@pytest.mark.parametrize("value, problem", [
    ({"history": "none"}, "list of 2 objects"), ([{}], "list of 2 objects"),
    ([{"history": ["none"]}, {}], "observation_options\\[0\\].history.*JSON scalar"),
    ([{}, {"big_stack_merge": True}], "observation_options\\[1\\].*not observation options"),
    ([{"history": "bogus"}, {}], "observation_options\\[0\\].*history must be one of")])
def test_bad_observation_options_in_a_record_are_refused(value, problem):
    res, _ = _game(2, seed=1)
    rec = res.to_record(SPEC)
    rec["observation_options"] = value
    with pytest.raises(ReplayError, match=problem):
        list(transitions(rec))


def test_recording_wrapper_keeps_the_envs_observation_options(tmp_path):
    got = []
    env = RecordEpisodes(get_game("fae").env(num_players=2, history="none", action_features="versus"), sink=got.append)
    _random_episode(env, np.random.default_rng(0), seed=8)
    width = env.observation_space(env.possible_agents[0])["observation"].shape
    assert got[0]["observation_options"] == [{"history": "none", "action_features": "versus"}] * 2
    assert {s["observation"].shape for s in transitions(got[0])} == {width} == {(2183,)}
    with pytest.raises(ValueError, match="not observation options"):
        RecordEpisodes(get_game("fae").env(), sink=print, observation_options={"big_stack_merge": True})


def _random_episode(env, rng, seed):
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_recording_wrapper_on_any_env(tmp_path):
    path = tmp_path / "env.jsonl"
    env = make_recorded("fae_v0", path, num_players=3, big_stack_merge=True, recorder_seed=0)
    rng = np.random.default_rng(0)
    _random_episode(env, rng, seed=21)
    final_21 = env.unwrapped.game.clone()
    _random_episode(env, rng, seed=None)  # the wrapper draws a seed so the episode is replayable
    final_2 = env.unwrapped.game.clone()
    recs = list(read_records(path))
    assert len(recs) == 2 and recs[0]["seed"] == 21 and isinstance(recs[1]["seed"], int)
    assert recs[0]["options"] == {"big_stack_merge": True}
    assert replay(recs[0])[-1] == final_21 and replay(recs[1])[-1] == final_2
    assert recs[0]["rewards"] == recs[0]["returns"]  # win_loss rewards sum to the returns


def test_recording_wrapper_records_an_illegal_ending():
    got = []
    env = RecordEpisodes(get_game("fae").env(num_players=2), sink=got.append)
    env.reset(seed=3)
    first = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(first)
    env.step(329)  # illegal now: the protected env ends the game
    assert len(got) == 1 and got[0]["ended"] == "illegal_action" and got[0]["illegal_action"] == 329
    assert got[0]["actions"] == [first] and got[0]["returns"] == [0.0, -1.0]
    assert len(replay(got[0])) == 2  # the legal prefix replays


def test_recording_wrapper_bad_input():
    with pytest.raises(ValueError, match="path= .* or sink="):
        RecordEpisodes(get_game("fae").env())
    with pytest.raises(ValueError, match="not rule options"):
        RecordEpisodes(get_game("fae").env(), sink=print, options={"history": "none"})


def test_play_cli_records_replay(tmp_path, capsys):
    path = tmp_path / "play.jsonl"
    assert play_main(["fae", "--agents", "greedy", "random", "--games", "4", "--record", str(path)]) == 0
    assert "win rate" in capsys.readouterr().out
    recs = list(read_records(path))
    assert [r["agents"] for r in recs[:2]] == [["greedy", "random"], ["random", "greedy"]]
    for r in recs:
        replay(r)


# ------------------------------------------------------------------------------------ human play
def _scripted(answers):
    it = iter(answers)
    return lambda prompt: next(it)


def test_human_agent_parses_index_id_and_text():
    state = FaeState.new(2, seed=0)
    mask = action_mask(state, 0)
    legal = [int(a) for a in np.flatnonzero(mask)]
    out = io.StringIO()
    bot = HumanAgent(input_fn=_scripted(["zz", "999", "#5000", "?", "3"]), output=out)
    assert bot.act(None, mask, state=state, seat=0) == listing_order(state, legal)[0][3]  # index of the ? listing
    text = out.getvalue()
    assert "is not a move" in text and "out of range" in text and "not legal" in text
    assert "your secret colour" in text and "to move: player_0" in text
    bot = HumanAgent(input_fn=_scripted([f"#{legal[7]}"]), output=io.StringIO())
    assert bot.act(None, mask, state=state, seat=0) == legal[7]
    name = state.action_to_string(legal[5])
    bot = HumanAgent(input_fn=_scripted([name.upper()]), output=io.StringIO())
    assert bot.act(None, mask, state=state, seat=0) == legal[5]
    with pytest.raises(QuitGame):
        HumanAgent(input_fn=_scripted(["q"]), output=io.StringIO()).act(None, mask, state=state, seat=0)


def test_play_human_full_game_against_bots(tmp_path):
    out = io.StringIO()
    path = tmp_path / "human.jsonl"
    results = play_human("fae", 1, ["random", "greedy"], games=1, seed=3, input_fn=lambda p: "0", output=out,
                         record_path=path)
    assert len(results) == 1 and results[0].final_state.is_terminal()
    text = out.getvalue()
    assert "player_0 (random) plays move" in text and "player_2 (greedy) plays" in text and "GAME OVER" in text
    rec = next(read_records(path))
    assert rec["agents"] == ["random", "human", "greedy"]
    replay(rec)
    quit_out = io.StringIO()
    assert play_human("fae", 0, ["random"], input_fn=lambda p: "q", output=quit_out) == []
    assert "quit" in quit_out.getvalue()
    with pytest.raises(ValueError, match="--human seat"):
        play_human("fae", 3, ["random"], input_fn=lambda p: "0")


# ---------------------------------------------------------------- issue 24: bounded replays
def test_replay_has_a_step_budget_checked_before_replaying():
    res, _ = _game(2, seed=1)
    rec = res.to_record(SPEC)
    n = len(rec["actions"])
    with pytest.raises(ReplayError, match=f"{n} actions exceed the replay budget of 10 steps"):
        replay(rec, max_steps=10)
    with pytest.raises(ReplayError, match="replay budget"):
        replay(rec, stream=True, max_steps=10)  # refused at the call, before any state is made
    assert len(replay(rec, max_steps=n)) == n + 1 and len(replay(rec, max_steps=None)) == n + 1
    for bad in (-1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="max_steps"):
            replay(rec, max_steps=bad)
    with pytest.raises(ValueError, match="stream must be True or False"):
        replay(rec, stream="yes")


def test_streaming_replay_keeps_no_state_and_checks_the_outcome_at_the_end():
    res, states = _game(3, seed=5)
    rec = res.to_record(SPEC)
    full = replay(rec)
    seen, ids = [], set()
    for state in replay(rec, stream=True):
        ids.add(id(state))
        seen.append(state.to_dict())
    assert len(ids) == 1  # one live state, never a list of them
    assert seen == [s.to_dict() for s in full]
    stream = replay(dict(rec, final_state_sha256="0" * 64), stream=True)
    with pytest.raises(ReplayError, match="final state"):
        for _ in stream:
            pass
    assert len(list(transitions(rec))) == len(rec["actions"])
    with pytest.raises(ReplayError, match="final state"):  # transitions still checks the whole record first
        next(transitions(dict(rec, final_state_sha256="0" * 64)))


def test_check_setup_makes_replays_checks_before_the_first_action():
    """Issue 36, item 2: `check_setup` (what the web app runs on every upload) refuses what `replay`
    refuses before replaying an action, and returns the same deal; the control replays."""
    from tabletop_rl.agents.records import check_setup

    res, _ = _game(2, seed=5)
    rec = res.to_record(SPEC, agents=["a", "b"])
    spec, deal = check_setup(rec)
    assert spec is SPEC and state_digest(deal) == state_digest(replay(rec)[0])
    for bad, field in [(dict(rec, winners=[0, 0]), "winners"),
                       (dict(rec, observation_options=[{"history": "all"}, {}]), "observation_options[0]"),
                       (dict(rec, options={"big_stack_merge": "sometimes"}), "options"),
                       (dict(rec, agents=["a"] * 3), "agents")]:
        for check in (check_setup, replay):
            with pytest.raises(ReplayError, match=rf"field '{re.escape(field)}'"):
                check(bad)


def test_a_field_of_many_items_is_named_not_printed_whole():
    res, _ = _game(2, seed=5)
    rec = res.to_record(SPEC)
    for field in ("winners", "agents", "returns", "observation_options"):
        with pytest.raises(ReplayError) as err:
            replay(dict(rec, **{field: [[]] * 100_000}))
        assert f"field {field!r}" in str(err.value) and len(str(err.value)) < 400, str(err.value)[:300]
