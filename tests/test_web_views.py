"""The web page's views (issue 27 item 5, issue 39 item 5, issue 38): buttons and log lines read as
words, not engine names (`KEEP_REST_AND_DRAW`, `HAND Dog`); one score per seat comes with its
breakdown; Fantastiqa's table is sent as data the page draws, holding only what the seat may see;
the end says why the game ended; the setup form offers each game's own options with the engine's
defaults first."""
import json
import re

import numpy as np
import pytest

from fae_rl import FaeState
from fantastiqa_rl import FantastiqaState
from fantastiqa_rl.text import action_words, end_text, in_words
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.match import bot_action
from tabletop_rl.agents.web.bots import default_params
from tabletop_rl.agents.web.options import NOT_OFFERED, page_options
from tabletop_rl.agents.web.views import choice_label, move_text, state_view
from tabletop_rl.envs.registry import get_game

# an engine name: WORDS_WITH_UNDERSCORES, or a capitalised word of 3+ letters (HAND, BAT, DISCARD)
ENGINE_NAME = re.compile(r"\b[A-Z]+_[A-Z_]+\b|\b[A-Z]{3,}\b")


def test_choice_labels_put_engine_names_in_words():
    assert choice_label("KEEP_REST_AND_DRAW") == "Keep the rest and draw"
    assert choice_label("DISCARD Pail") == "Discard Pail"
    assert choice_label("HAND Dog") == "Play Dog for its power"  # the FREE_MENU's card power (was "HAND Dog")
    assert choice_label("EXPLORE the Abbey (face up: Abbey 14, BAT)") == "Explore the Abbey (face up: Abbey 14, Bat)"
    assert choice_label("move 4->32") == "move 4->32"  # not an engine name: unchanged
    assert choice_label("FREE_ACTION") == in_words("FREE_ACTION") == "Take a free action"


def _greedy_game(seed: int, n: int = 2, **options):
    """(states before each move, the moves) of a greedy Fantastiqa game."""
    spec = get_game("fantastiqa")
    state = spec.new_state(num_players=n, seed=seed, **options)
    bots = [make_agent("fantastiqa", "greedy", seed=seed + p) for p in range(n)]
    before, moves = [], []
    while not state.is_terminal():
        a = bot_action(bots[state.current_player], spec, state.clone(), state.current_player)
        before.append(state.clone())
        moves.append(a)
        state.apply(a)
    return before, moves, state


def test_every_choice_label_is_words_and_the_score_has_its_breakdown():
    rng = np.random.default_rng(0)
    for seed in range(3):
        state = FantastiqaState.new(2, seed=seed, abbey=seed == 1)
        for _ in range(600):
            if state.is_terminal():
                break
            seat = state.current_player
            view = state_view("fantastiqa", state, seat)
            assert view["choices"] and not [c["label"] for c in view["choices"] if ENGINE_NAME.search(c["label"])]
            for b, track, final in zip(view["score_breakdown"], state.scores, state.final_scores()):
                assert (b["track"], b["score"]) == (track, final) and b["track"] - b["open_personal_quests"] == b["score"]
            # public information: every viewer reads the same scores
            assert state_view("fantastiqa", state, None)["score_breakdown"] == view["score_breakdown"]
            state.apply(int(rng.choice(state.legal_actions())))


def test_log_lines_are_words_for_every_viewer():
    """Every move of whole greedy games (and random Abbey moves) as the log shows it: no engine name."""
    lines = []
    for seed, opts in ((0, {}), (1, {"abbey": True})):
        before, moves, _ = _greedy_game(seed, **opts)
        for state, a in zip(before, moves):
            assert action_words(state, a) == in_words(state.action_to_string(a))
            for viewer in (None, 0, 1):
                lines.append(move_text("fantastiqa", state, a, viewer, over=viewer is None))
    bad = [t for t in lines if ENGINE_NAME.search(t)]
    assert not bad, bad[:10]
    assert any("Play" in t and "for its power" in t for t in lines)  # the free action once read "HAND Dog"
    # control: the engine text those lines come from does hold engine names
    state = before[0]
    assert ENGINE_NAME.search(state.action_to_string(int(state.legal_actions()[0])))


def test_end_screens_say_why_the_game_ended():
    _, _, state = _greedy_game(0)
    assert state.end_reason == "goal"
    w = state.winners()[0]
    assert end_text(state).startswith(f"player_{w} reached {state.scores[w]} quest points")
    assert state_view("fantastiqa", state, 0)["end_reason"] == end_text(state)
    short = FantastiqaState.new(2, seed=1, turn_limit=1)  # Q-E5: the turn limit, scored as a deck end
    rng = np.random.default_rng(1)
    while not short.is_terminal():
        short.apply(int(rng.choice(short.legal_actions())))
    assert short.end_reason == "turn_limit" and "turn limit" in end_text(short) and "final score" in end_text(short)
    assert end_text(FantastiqaState.new(2, seed=0)) == ""  # not over: no reason
    fae = FaeState.new(2, seed=0)
    while not fae.is_terminal():
        fae.apply(int(fae.legal_actions()[0]))
    why = state_view("fae", fae, 0)["end_reason"]
    assert ("12th ritual card" in why) == (fae.cards_used == 12) and "ritual card its player holds" in why


# ---------------------------------------------------------------- hidden information (Q-I1)
def _midgame(n: int, seed: int, steps: int):
    state = FantastiqaState.new(n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("n", [2, 3])
def test_the_table_view_holds_only_what_the_seat_may_see(n):
    """The whole view (the table the page draws included) is the same for every state the seat
    cannot tell apart (`sample_consistent`: other hands, every deck order, the chance generators).
    Control: the view of a seat the samples do not hold fixed changes, so the check can fail."""
    rng = np.random.default_rng(n)
    control = 0
    for seed in range(4):
        state = _midgame(n, seed, 60 + 40 * seed)
        for seat in [None, *range(n)]:
            seen = json.dumps(state_view("fantastiqa", state, seat), sort_keys=True)
            for _ in range(3):
                other = state.sample_consistent(0 if seat is None else seat, rng)
                if seat is None:  # the public view: no seat's secret, so any seat's samples
                    other = other.sample_consistent(1, rng)
                assert json.dumps(state_view("fantastiqa", other, seat), sort_keys=True) == seen, (seed, seat)
                other_seat = ((0 if seat is None else seat) + 1) % n
                control += state_view("fantastiqa", other, other_seat) != state_view("fantastiqa", state, other_seat)
    assert control > 0
    table = state_view("fantastiqa", state, 0)["table"]
    assert len(table["positions"]) == 6 and len(table["spaces"]) == 7 and len(table["players"]) == n
    assert all(isinstance(p["hand"], int) and isinstance(p["deck"], int) for p in table["players"])


# ---------------------------------------------------------------- the setup form's options (issue 38)
def _engine_default(spec, name, values):
    """The value of option `name` the engine plays when it is not given: the one whose new state
    equals the state made without it (same seed). Exactly one value must match."""
    n = 4 if name == "teams" else 2  # teams: 4 players only
    plain = json.dumps(spec.new_state(num_players=n, seed=5).to_dict(), sort_keys=True, default=str)
    same = [v for v in values
            if json.dumps(spec.new_state(num_players=n, seed=5, **{name: v}).to_dict(), sort_keys=True, default=str)
            == plain]
    assert len(same) == 1, (name, values, same)  # the control: every other value gives another state
    return same[0]


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_the_form_offers_every_option_with_the_engine_default_first(game):
    spec = get_game(game)
    offered = page_options(game)
    assert set(offered) | (set(NOT_OFFERED) & set(spec.rule_options)) == set(spec.rule_options)
    for name, values in offered.items():
        assert len(set(values)) == len(values) >= 2
        assert values[0] == _engine_default(spec, name, values), name
        for v in values:  # every value shown can be played
            spec.new_state(num_players=4 if name == "teams" else 2, seed=0, **{name: v})
    # what the server hands the page is this table
    from tabletop_rl.agents.web.server import config

    assert config()["games"][game]["options"] == offered
    # the MCTS iterations the form shows first are the bot's own default (its game's table)
    from tabletop_rl.agents.fantastiqa_mcts import FANTASTIQA_MCTS_DEFAULTS
    from tabletop_rl.agents.mcts import FAE_DEFAULTS

    table = {"fae": FAE_DEFAULTS, "fantastiqa": FANTASTIQA_MCTS_DEFAULTS}[game]
    assert default_params(game)["mcts"]["iterations"] == table["iterations"]


def test_fantastiqa_strict_flying_reading_is_offered_and_not_the_default():
    """Issue 38: the form showed fly_in_adventure false while the game played true."""
    values = page_options("fantastiqa")["fly_in_adventure"]
    assert values == (True, False)
    assert FantastiqaState.new(2, seed=0).opts["fly_in_adventure"] is values[0]
