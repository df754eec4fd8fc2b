"""Human play at the terminal (`python -m tabletop_rl.agents.play GAME --human S`): a person sees only
what its seat may know (F-I1, Q-I1), Fae's prompt takes moves as `4 32` / `4->32`, lists them only
on `?`, and every echoed bot move is in a form the prompt accepts."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from fae_rl import FaeState, action_to_string, move_action, resolve_action
from fae_rl.board import NUM_ACTIONS, string_to_action
from fae_rl.render import LEGEND
from tabletop_rl.agents.human import HumanAgent, QuitGame, listing_order, parse_answer
from tabletop_rl.envs import get_game



def _random_states(spec, num_players, seed, steps):
    """States along a random game, every `steps // 6` moves."""
    rng = np.random.default_rng(seed)
    state = spec.new_state(num_players=num_players, seed=seed)
    out = []
    for k in range(steps):
        if state.is_terminal():
            break
        if k % max(1, steps // 6) == 0:
            out.append(state.clone())
        state.apply(int(rng.choice(np.flatnonzero(spec.action_mask(state, state.current_player)))))
    return out


def _shown(spec, state, seat) -> str:
    """Everything HumanAgent prints to `seat` before its first answer (it answers q)."""
    out = io.StringIO()
    human = HumanAgent(input_fn=lambda prompt: "q", output=out, view=spec.view_text)
    with pytest.raises(QuitGame):
        human.act(None, spec.action_mask(state, seat), state=state, seat=seat)
    return out.getvalue()


# ------------------------------------------------------------------ hidden information (F-I1, Q-I1)
@pytest.mark.parametrize("num_players", [2, 4])
def test_F_I1_fae_human_view_ignores_other_seats_colours(num_players, fae_spec):
    differs = 0
    for state in _random_states(fae_spec, num_players, seed=num_players, steps=60):
        seat = state.current_player
        for k in range(4):
            other = state.sample_consistent(seat, np.random.default_rng(k))  # other seats' colours redrawn
            assert other.colours[seat] == state.colours[seat]
            differs += other.colours != state.colours
            assert _shown(fae_spec, other, seat) == _shown(fae_spec, state, seat)
    assert differs > 0  # the pairs really differ in hidden colours
    text = _shown(fae_spec, state, seat)
    assert "your secret colour" in text and LEGEND in text


@pytest.mark.parametrize("options", [{}, {"abbey": True}])
def test_Q_I1_fantastiqa_human_view_ignores_other_hands_deck_orders_and_rngs(options, fantastiqa_spec):
    rng = np.random.default_rng(0)
    state = fantastiqa_spec.new_state(num_players=2, seed=5, **options)
    hands_differ = leaky_differ = 0
    for step in range(400):
        if state.is_terminal():
            break
        seat = state.current_player
        if step % 40 == 0:
            other = state.sample_consistent(seat, np.random.default_rng(step))
            assert other.hand[seat] == state.hand[seat]
            hands_differ += sorted(other.hand[1 - seat]) != sorted(state.hand[1 - seat])
            leaky_differ += str(other) != str(state)  # str(state) shows every hand: never shown to a human
            assert _shown(fantastiqa_spec, other, seat) == _shown(fantastiqa_spec, state, seat)
            assert "hand of player_%d" % seat in _shown(fantastiqa_spec, state, seat)
        state.apply(int(rng.choice(state.legal_actions())))
    assert hands_differ > 0 and leaky_differ > 0


# ------------------------------------------------------------------ Fae's prompt
def test_fae_action_texts_round_trip_and_short_forms():
    for a in range(NUM_ACTIONS):
        assert string_to_action(action_to_string(a)) == a
    for text in ("4 32", "4->32", "4-32", "move 4->32", " MOVE 4 -> 32 "):
        assert string_to_action(text) == move_action(4, 32), text
    assert string_to_action("resolve 17") == string_to_action("r 17") == resolve_action(17)
    for bad, why in (("4 7", "not adjacent"), ("4 61", "not in 1..60"), ("four 32", "not a move"),
                     ("resolve", "resolve 17"), ("4 32 5", "not a move")):
        with pytest.raises(ValueError, match=why):
            string_to_action(bad)


def test_fae_terrain_letters_match_names_and_the_board_has_a_legend():
    text = str(FaeState.new(2, seed=0))
    assert "legend: Hi Hills, Mu Mushrooms, Mo Mountains, Fo Forest" in text
    assert " 1 Fo " in text  # space 1 is Forest (Clans letter S)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_every_echoed_move_is_accepted_by_the_prompt(game):
    spec = get_game(game)
    for state in _random_states(spec, 3, seed=1, steps=120):
        legal = [int(a) for a in np.flatnonzero(spec.action_mask(state, state.current_player))]
        order, texts = listing_order(state, legal)
        for a in legal:
            # play_human echoes a bot's move as action_text(state, a), taken before the move is applied
            assert parse_answer(state, legal, order, texts, state.action_to_string(a)) == (a, None)


def test_fae_prompt_lists_moves_only_on_request_grouped_by_source(fae_spec):
    state = FaeState.new(2, seed=0)
    answers = iter(["?", "n 4", "n 99", "4 7", "? 4", "4 32"])
    out = io.StringIO()
    human = HumanAgent(input_fn=lambda prompt: next(answers), output=out)
    assert human.act(None, fae_spec.action_mask(state, 0), state=state, seat=0) == move_action(4, 32)
    text = out.getvalue()
    before, after = text.split("legal actions (answer", 1)
    assert "type ? to list them" in before and "move 4-> [" not in before  # no 270-line listing
    assert "270 other moves (no ritual), from spaces" in after  # `?`: the sources, in brief
    from_4 = [line for line in after.splitlines() if "move 4-> [" in line]
    assert len(from_4) == 1 and from_4[0].split()[2:] == ["[11]", "1", "[12]", "3", "[13]", "5", "[14]", "32"]  # `? 4`
    assert "space 4 Mushrooms" in after and "~32 Mountains" in after  # neighbours, with river crossings
    assert "space must be an int in 1..60" in after and "not adjacent" in after


def _mid_game(seed=3, moves=20) -> FaeState:
    state, rng = FaeState.new(2, seed=seed), np.random.default_rng(seed)
    for _ in range(moves):
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return state


def _answer(spec, state, answers: list[str]) -> str:
    """What HumanAgent prints at `state` for `answers` (then q)."""
    answers, out = iter(answers + ["q"]), io.StringIO()
    human = HumanAgent(input_fn=lambda prompt: next(answers), output=out, view=spec.view_text)
    with pytest.raises(QuitGame):
        human.act(None, spec.action_mask(state, state.current_player), state=state, seat=state.current_player)
    return out.getvalue()


def test_fae_question_mark_fits_a_terminal_with_ritual_moves_first(fae_spec):
    state = _mid_game()
    legal = np.flatnonzero(state.legal_mask()).tolist()
    listing = _answer(fae_spec, state, ["?"]).split("legal actions (answer", 1)[1].splitlines()[1:]
    assert len(listing) + 2 <= 12  # with its header and the prompt: half a 24-line terminal (it was 70 lines)
    rituals = [line for line in listing if line.startswith("  ritual: move ")]
    starts = []
    for a in legal:
        after = state.clone()
        after.apply(a)
        if after.cards_used > state.cards_used or after.pending:  # a stack is isolated (F-R1)
            starts.append(a)
    assert 0 < len(starts) < len(legal) and "other moves (no ritual)" in listing[len(rituals)]
    shown = [int(k) for line in rituals for k in re.findall(r"\[(\d+)\]", line)]
    assert shown == list(range(len(starts)))  # ritual moves first, indices 0..k-1
    order, _ = listing_order(state, legal)
    assert sorted(order[k] for k in shown) == starts
    # `? SOURCE` for each source space it names lists every other move, with its index
    sources = " ".join(listing[len(rituals) + 1:]).split()
    text = _answer(fae_spec, state, [f"? {s}" for s in sources])
    listed = {int(k) for k in re.findall(r"\[(\d+)\] \d+", text.split("your secret colour", 1)[1])}
    assert listed - set(shown) == set(range(len(starts), len(legal)))


def test_answers_are_printed_on_the_first_turn_only(fae_spec):
    state = FaeState.new(2, seed=0)
    answers = iter(["4 32", "h", "5 6"])
    out = io.StringIO()
    human = HumanAgent(input_fn=lambda prompt: out.write(prompt) and next(answers), output=out, view=fae_spec.view_text)
    assert human.act(None, fae_spec.action_mask(state, 0), state=state, seat=0) == move_action(4, 32)
    first = out.getvalue()
    state.apply(move_action(4, 32))
    state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    human.act(None, fae_spec.action_mask(state, 0), state=state, seat=0)
    second = out.getvalue()[len(first):]
    assert first.count("answers:") == 1 and LEGEND in first and LEGEND in second  # the board every turn
    assert second.split("your move")[0].count("answers:") == 0 and second.count("answers:") == 1  # only on `h`


def test_fae_cli_driven_through_stdin(repo_root):
    script = "?\nn 4\n4->32\nq\n"
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run([sys.executable, "-m", "tabletop_rl.agents.play", "fae", "--human", "0", "--agents",
                           "random"], input=script, capture_output=True, text=True, timeout=120, cwd=repo_root, env=env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert LEGEND in out and "your secret colour" in out
    assert "you play move 4->32" in out and "player_1 (random) plays move " in out and "quit." in out
    assert out.count("legal actions (answer") == 1  # listed once, on ?
    assert out.count("your secret colour") == 2 and out.count("answers:") == 1  # board each turn, answers once
