"""The text face (issue 39, language-model agents): a seat's JSON view hides what the tensors hide
(F-I1, Q-I1), with a control showing the check catches a leaky view; action texts round-trip to ids;
replies are read as documented."""
import itertools
import json

import numpy as np
import pytest

from fae_rl import FaeState
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl import text_face as T
from tests.fae_helpers import random_state as fae_state
from tests.fantastiqa_helpers import random_state as fq_state
from tests.fantastiqa_helpers import reorder_decks, swap_hidden


def with_colours(state: FaeState, colours) -> FaeState:
    d = state.to_dict()
    d["colours"] = list(colours)
    return FaeState.from_dict(d)


def fae_variants(s: FaeState, seat: int):
    """Copies of `s` where only the other seats' colours differ (all a seat cannot know in Fae)."""
    own = s.colours[seat]
    others = [c for c in range(5) if c != own]
    for perm in itertools.islice(itertools.permutations(others, s.num_players - 1), 8):
        colours = list(perm)
        colours.insert(seat, own)
        yield with_colours(s, colours)


def fantastiqa_variants(s: FantastiqaState, seat: int, rng):
    """Copies of `s` that seat cannot tell apart: another seat's hand/deck split, every deck order,
    and a full resample of everything hidden from seat (`sample_consistent`)."""
    for p in range(s.num_players):
        if p != seat:
            yield reorder_decks(swap_hidden(s, p, rng), rng)
    yield s.sample_consistent(seat, rng)


def leaks(view_fn, states, variants) -> list:
    """(seat, index) of every state whose view by `view_fn` changes with what the seat may not know."""
    found = []
    for k, s in enumerate(states):
        for seat in range(s.num_players):
            base = json.dumps(view_fn(s, seat), sort_keys=True)
            if any(json.dumps(view_fn(t, seat), sort_keys=True) != base for t in variants(s, seat)):
                found.append((seat, k))
    return found


def fae_states():
    return [fae_state(seed, seed * 7 % 45, 2 + seed % 3) for seed in range(10)]


def fantastiqa_states():
    return [s for s in (fq_state(seed, 30 + 97 * seed, 2 + seed % 3) for seed in range(8)) if not s.is_terminal()]


def prompt_or_view(s, seat):
    """The seat view, and the prompt too when the seat is to move (it holds the view and the legal list)."""
    out = {"view": T.seat_view(s, seat)}
    if not s.is_terminal() and s.current_player == seat:
        out["prompt"] = T.make_prompt(s, seat, include_legal=True)
    return out


def test_fae_seat_view_and_prompt_hide_other_colours():
    states = [s for s in fae_states() if not s.is_terminal()]
    assert len(states) >= 8
    assert leaks(prompt_or_view, states, fae_variants) == []


def test_fantastiqa_seat_view_and_prompt_hide_other_hands_decks_and_chance():
    rng = np.random.default_rng(0)
    states = fantastiqa_states()
    assert len(states) >= 6
    assert leaks(prompt_or_view, states, lambda s, seat: fantastiqa_variants(s, seat, rng)) == []


def test_control_the_leak_check_catches_a_leaky_view():
    """A view that adds another seat's secret fails the same check, so the checks above can fail."""
    def fae_leaky(s, seat):
        return dict(T.seat_view(s, seat), other=int(s.colours[(seat + 1) % s.num_players]))

    def fantastiqa_leaky(s, seat):
        other = (seat + 1) % s.num_players
        return dict(T.seat_view(s, seat), other_hand=sorted(s.card_name(i) for i in s.hand[other]))

    fae = [s for s in fae_states() if not s.is_terminal()]
    assert len(leaks(fae_leaky, fae, fae_variants)) == sum(s.num_players for s in fae)
    rng = np.random.default_rng(0)
    fq = fantastiqa_states()
    assert len(leaks(fantastiqa_leaky, fq, lambda s, seat: fantastiqa_variants(s, seat, rng))) >= len(fq)


def test_control_what_the_seat_knows_is_in_its_view():
    s = fae_state(3, 10, 3)
    for seat in range(3):
        assert T.seat_view(s, seat)["your_colour"] == ["red", "yellow", "green", "blue", "purple"][s.colours[seat]]
        moved = s.clone()
        moved.apply(moved.legal_actions()[0])
        assert T.seat_view(moved, seat) != T.seat_view(s, seat)  # a public change shows
    q = fantastiqa_states()[0]
    seat = q.current_player
    t = swap_hidden(q, seat, np.random.default_rng(1))
    if sorted(q.card_name(i) for i in t.hand[seat]) != sorted(q.card_name(i) for i in q.hand[seat]):
        assert T.seat_view(t, seat)["hand"] != T.seat_view(q, seat)["hand"]


def test_views_are_json_and_hold_no_legal_list_or_drawing():
    for s in [fae_states()[1], fantastiqa_states()[0]]:
        for seat in range(s.num_players):
            v = T.seat_view(s, seat)
            assert json.loads(json.dumps(v)) == v
            assert "choices" not in v and v["you"] == f"player_{seat}"
            assert v["to_move"] == f"player_{s.current_player}"
    g = T.seat_view(fae_states()[1], 0)["geometry"]
    assert "centres" not in g and "colour_rgb" not in g and len(g["edges"]) > 100
    with pytest.raises(ValueError, match="seat must be"):
        T.seat_view(fae_states()[1], 7)
    with pytest.raises(ValueError, match="text face covers"):
        T.seat_view(object(), 0)


def test_every_legal_text_parses_back_to_its_id():
    rng = np.random.default_rng(2)
    for s0 in [FaeState.new(2, seed=1), FantastiqaState.new(2, seed=1)]:
        s = s0.clone()
        for _ in range(300):
            if s.is_terminal():
                break
            texts = T.action_strings(s)
            assert sorted(texts) == [int(a) for a in s.legal_actions()]
            for a, text in texts.items():
                assert T.parse_action(s, text) == a
                assert T.parse_action(s, "  " + text.upper().replace(" ", "   ") + " ") == a
                assert T.parse_action(s, f"#{a}") == a
            s.apply(int(rng.choice(list(texts))))


def test_parse_refuses_with_a_clear_reason():
    s = FaeState.new(2, seed=0)
    legal = T.action_strings(s)
    a = next(iter(legal))
    assert T.parse_action(s, legal[a].replace("move ", "").replace("->", " ")) == a  # Fae's short form
    illegal = next(x for x in range(300) if x not in legal)
    for text, reason in [("", "empty"), ("   ", "empty"), ("17", "bare number"), ("fly away", "not a move"),
                         (f"#{illegal}", "not legal now"), ("move 1->60", "not adjacent|not legal|adjacent"),
                         ("#x", "#57")]:
        with pytest.raises(ValueError, match=reason):
            T.parse_action(s, text)
    with pytest.raises(ValueError, match="must be a text"):
        T.parse_action(s, 5)
    q = FantastiqaState.new(2, seed=0)
    with pytest.raises(ValueError, match="'dance' is not a legal action now"):
        T.parse_action(q, "dance")


def test_extract_answer_reads_the_last_action_line():
    assert T.extract_answer("I think 4->5 is weak.\nACTION: move 4->32") == "move 4->32"
    assert T.extract_answer("ACTION: move 1->2\nno wait\n**Action:** `move 3->4`") == "move 3->4"
    assert T.extract_answer("  move 4->32  ") == "move 4->32"
    assert T.extract_answer("action:END_TURN") == "END_TURN"
    for reply, reason in [("first line\nsecond line", "no line 'ACTION"), (None, "must be text"),
                          ("x" * (T.MAX_REPLY_CHARS + 1), "characters")]:
        with pytest.raises(ValueError, match=reason):
            T.extract_answer(reply)


def test_prompt_lists_the_legal_actions_only_when_asked():
    s = FaeState.new(2, seed=4)
    texts = list(T.action_strings(s).values())
    bare = T.make_prompt(s, 0)
    assert not any(t in bare for t in texts) and "ACTION: <action>" in bare and "move A->B" in bare
    listed = T.make_prompt(s, 0, include_legal=True)
    assert all(t in listed for t in texts)
    assert "refused: nope" in T.make_prompt(s, 0, feedback="nope")
    with pytest.raises(ValueError, match="not to move"):
        T.make_prompt(s, 1)
    q = FantastiqaState.new(2, seed=4)
    assert "legal actions now" not in T.make_prompt(q, q.current_player)


def test_fae_view_sums_each_players_public_moves():
    s = FaeState.new(2, seed=6)
    a = int(s.legal_actions()[5])
    moved = int(s.druids()[int(T.action_strings(s)[a].split()[1].split("->")[0]) - 1].sum())
    s.apply(a)
    h = T.seat_view(s, 1)["history"]
    assert h[0] == {"player": "player_0", "druids_moved_per_colour": h[0]["druids_moved_per_colour"],
                    "points_given_per_colour": [0] * 5, "last_move": s.action_to_string(a)}
    assert sum(h[0]["druids_moved_per_colour"]) == moved and h[1]["last_move"] is None
