"""One scenario test (at least) per Fae rule id of docs/rules/fae.md."""
import numpy as np
import pytest

from fae_rl import FaeState, move_action, resolve_action
from fae_rl.board import NEIGHBOURS, NUM_RITUAL_CARDS, REGION, TERRAIN, TERRAIN_LETTERS
from tests.fae_helpers import scenario

KEEP = {57: {4: 1}, 58: {4: 1}}  # a far-away pair so the game goes on after the tested move


def terrain(space):
    return TERRAIN_LETTERS[TERRAIN[space - 1]]


# ------------------------------------------------------------------ setup
@pytest.mark.parametrize("seed", range(50))
def test_F_S1_one_druid_per_space_one_of_each_colour_per_region(seed):
    d = FaeState.new(4, seed=seed).druids()
    assert (d.sum(axis=1) == 1).all()
    for r in range(12):
        assert (d[5 * r:5 * r + 5].sum(axis=0) == 1).all()


def test_F_S1_colour_is_independent_of_terrain_over_seeds():
    # Over many deals each colour lands on each terrain: no fixed colour/terrain pattern.
    seen = np.zeros((5, 4), dtype=int)
    for seed in range(40):
        d = FaeState.new(2, seed=seed).druids()
        for i in range(60):
            seen[d[i].argmax(), TERRAIN[i]] += 1
    assert (seen > 0).all()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_F_S2_distinct_colours_dealt_and_neutral_colours_score(n):
    for seed in range(20):
        s = FaeState.new(n, seed=seed)
        assert len(s.colours) == n == len(set(s.colours)) and all(0 <= c < 5 for c in s.colours)
    # A neutral colour (nobody holds 4 here) scores like any other.
    s = scenario({4: {4: 1}, 5: {4: 2}, **{57: {0: 1}, 58: {0: 1}}}, colours=[0, 1])
    s.apply(move_action(4, 5))
    assert s.scores()[4] > 0


def test_F_S3_scores_start_at_zero_and_cards_in_fixed_order():
    s = FaeState.new(3, seed=1)
    assert s.scores().tolist() == [0] * 5 and s.ritual_cards().tolist() == [0, 0, 0] and s.cards_used == 0


def test_F_S4_seat_zero_first_then_seat_order():
    s = FaeState.new(3, seed=2)
    seen = []
    for _ in range(6):
        seen.append(s.current_player)
        s.apply(int(s.legal_actions()[0]))
        while s.pending:
            s.apply(int(s.legal_actions()[0]))
    assert seen[:3] == [0, 1, 2]


# ------------------------------------------------------------------ a turn
def test_F_T1_moves_all_druids_and_only_onto_occupied_spaces():
    s = scenario({1: {0: 2, 1: 1}, 2: {2: 1}, 3: {3: 1}, **KEEP})
    assert not s.is_legal(move_action(1, 4))  # 4 is empty
    assert not s.is_legal(move_action(4, 1))  # empty source
    s.apply(move_action(1, 2))
    d = s.druids()
    assert d[0].sum() == 0 and d[1].tolist() == [2, 1, 1, 0, 0]
    with pytest.raises(ValueError, match="empty"):
        s.apply(move_action(1, 3))


def test_F_T2_adjacency_is_the_edge_list():
    with pytest.raises(ValueError, match="not adjacent"):
        move_action(23, 42)  # a lake pair
    s = FaeState.new(2, seed=0)  # every space holds one druid: legal moves = both directions of every edge
    assert s.legal_actions().tolist() == list(range(270))


def test_F_T3_seven_or_more_cannot_move_but_can_be_destination():
    s = scenario({1: {0: 7}, 2: {1: 1}, 3: {2: 6}, **KEEP})
    assert not s.is_legal(move_action(1, 2))
    assert s.is_legal(move_action(2, 1))
    assert s.is_legal(move_action(3, 1))  # 6 may move
    with pytest.raises(ValueError, match="7 or more"):
        s.apply(move_action(1, 2))


def test_F_T4_big_stack_merge_option():
    s = scenario({1: {0: 7}, 2: {1: 7}, 3: {2: 8}, **KEEP}, big_stack_merge=True)
    assert s.is_legal(move_action(1, 2))  # 7 onto 7
    assert s.is_legal(move_action(1, 3))  # 7 onto 8
    assert not s.is_legal(move_action(3, 1))  # 8 onto 7
    off = scenario({1: {0: 7}, 2: {1: 7}, **KEEP})
    assert not off.is_legal(move_action(1, 2))


def test_F_T4_big_merge_legality_follows_the_destination_growing():
    # 4 has 7; 5 has 5. 5 -> 4 is illegal for 7 > 5... then 3 moves onto 5 and makes it 8 >= 7.
    s = scenario({4: {0: 7}, 5: {1: 5}, 3: {2: 3}, 1: {3: 1}, **KEEP}, big_stack_merge=True)
    assert not s.is_legal(move_action(4, 5))
    s.apply(move_action(3, 5))
    assert s.is_legal(move_action(4, 5))


def test_F_T5_no_legal_move_ends_the_game():
    # After 1 -> 2 (2 is isolated and scored), only 57/58 remain: both 7+, so nobody can move.
    s = scenario({1: {0: 1}, 2: {1: 1}, 57: {2: 7}, 58: {3: 7}})
    s.apply(move_action(1, 2))
    assert s.is_terminal() and s.current_player == -1 and s.legal_actions().size == 0
    assert s.cards_used == 1
    # With big_stack_merge the 7-stacks may merge, so the game goes on.
    t = scenario({1: {0: 1}, 2: {1: 1}, 57: {2: 7}, 58: {3: 7}}, big_stack_merge=True)
    t.apply(move_action(1, 2))
    assert not t.is_terminal() and t.current_player == 1


# ------------------------------------------------------------------ rituals
def test_F_R1_isolated_space_triggers_a_ritual_only_next_to_the_source():
    s = scenario({3: {0: 1}, 1: {1: 1}, **KEEP})
    s.apply(move_action(1, 3))  # 3's other neighbours (2, 4, 5) are empty: isolated
    assert s.resolved()[2] and s.cards_used == 1
    # A far-away already-isolated unresolved stack is not triggered by an unrelated move.
    t = scenario({10: {0: 1}, 1: {1: 1}, 2: {2: 1}, 57: {4: 1}, 58: {4: 1}, 59: {4: 1}})
    assert all(t.druids()[m].sum() == 0 for m in NEIGHBOURS[9])  # space 10 is already isolated
    t.apply(move_action(57, 58))
    assert not t.resolved()[9] and t.cards_used == 0


def test_F_R2_mover_chooses_the_order_and_order_matters():
    # Moving 1 -> 2 isolates 2 and 4 (both Mushrooms). Card 3 (value 1) curses Mushrooms, card 4
    # (value 2) blesses them: the space resolved first is cursed, the second blessed.
    assert terrain(2) == terrain(4) == "M"
    base = dict(stacks={1: {0: 1}, 2: {1: 1}, 4: {2: 2}, **KEEP}, cards_used=3)
    for first, second in ((2, 4), (4, 2)):
        s = scenario(**base)
        s.apply(move_action(1, 2))
        assert s.pending == [2, 4] and s.current_player == 0
        assert s.legal_actions().tolist() == [resolve_action(2), resolve_action(4)]
        with pytest.raises(ValueError, match="pending"):
            s.apply(move_action(57, 58))
        s.apply(resolve_action(first))
        assert s.pending == [second] and s.current_player == 0  # the last one needs its own action
        assert s.legal_actions().tolist() == [resolve_action(second)]
        s.apply(resolve_action(second))
        assert s.current_player == 1 and s.ritual_cards().tolist() == [5, 0]
        d = s.druids()
        assert d[first - 1].sum() == 0  # cursed
        expected = {2: 2 + 2, 4: 2 + 2}[second]  # druids (2 after the move onto 2; 2 on 4) + blessing 2
        colours = np.flatnonzero(d[second - 1])
        assert all(s.scores()[c] == expected for c in colours)


def test_F_R3_card_is_the_top_of_the_leftmost_nonempty_stack():
    # Resolving a Hills space of 2 druids after `used` cards: value 1 cards (0..3) bless Hills (+1),
    # value 2 (4..6) and value 4 (9, 10) leave it plain, value 3 (7, 8) curse it, value 5 (11) +5.
    assert terrain(5) == "F"
    for used, points in ((0, 3), (3, 3), (4, 2), (6, 2), (7, 0), (8, 0), (9, 2), (10, 2), (11, 7)):
        s = scenario({4: {0: 1}, 5: {0: 1}, **KEEP}, cards_used=used)
        s.apply(move_action(4, 5))
        assert s.scores()[0] == points, used


def test_F_R4_curse_returns_all_druids_and_nobody_scores():
    assert terrain(2) == "M"  # card 0 curses Mushrooms
    s = scenario({1: {0: 3}, 2: {1: 2, 2: 1}, **KEEP})
    s.apply(move_action(1, 2))
    assert s.druids()[1].sum() == 0 and s.scores().tolist() == [0] * 5
    assert s.ritual_cards().tolist() == [1, 0]  # F-R7: the mover keeps the card anyway


def test_F_R5_strife_removes_single_druids_when_all_five_present():
    assert terrain(5) == "F"  # card 0 blesses Hills (+1)
    s = scenario({4: {0: 1, 1: 1}, 5: {2: 1, 3: 2, 4: 3}, **KEEP})
    s.apply(move_action(4, 5))
    assert s.druids()[4].tolist() == [0, 0, 0, 2, 3]
    assert s.scores().tolist() == [0, 0, 0, 6, 6]  # 5 remaining + 1 blessing


def test_F_R5_strife_that_empties_the_space_scores_nothing():
    s = scenario({4: {0: 1, 1: 1}, 5: {2: 1, 3: 1, 4: 1}, **KEEP})
    s.apply(move_action(4, 5))
    assert s.druids()[4].sum() == 0 and s.scores().tolist() == [0] * 5 and s.ritual_cards()[0] == 1


def test_F_R6_every_colour_present_gains_the_full_value():
    assert terrain(3) == "G"  # card 0 neither blesses nor curses Mountains
    s = scenario({1: {0: 3}, 3: {1: 1}, **KEEP})
    s.apply(move_action(1, 3))
    assert s.scores().tolist() == [4, 4, 0, 0, 0]
    # value-5 card blesses every terrain
    t = scenario({1: {0: 3}, 3: {1: 1}, **KEEP}, cards_used=11)
    t.apply(move_action(1, 3))
    assert t.scores().tolist() == [9, 9, 0, 0, 0]


def test_F_R7_mover_keeps_the_card_worth_one_point_at_the_end():
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP}, cards_used=11, colours=[0, 1])
    s.apply(move_action(1, 3))
    assert s.is_terminal() and s.ritual_cards().tolist() == [12, 0]
    assert s.final_colour_scores()[0] == s.scores()[0] + 12


def test_F_R8_resolved_space_is_frozen_forever():
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP})
    s.apply(move_action(1, 3))
    assert s.resolved()[2]
    before = s.druids()[2].copy()
    touching_3 = {move_action(3, n + 1) for n in NEIGHBOURS[2]} | {move_action(n + 1, 3) for n in NEIGHBOURS[2]}
    while not s.is_terminal():  # no later move may enter or leave space 3
        assert not touching_3 & set(s.legal_actions().tolist())
        s.apply(int(s.legal_actions()[0]))
    assert (s.druids()[2] == before).all() and s.resolved()[2]


def test_F_R9_more_pending_than_cards_left_mover_picks():
    s = scenario({1: {0: 1}, 2: {1: 1}, 4: {2: 2}, **KEEP}, cards_used=11)
    s.apply(move_action(1, 2))
    assert s.pending == [2, 4] and not s.is_terminal()
    s.apply(resolve_action(4))
    assert s.is_terminal() and s.pending == [] and s.cards_used == NUM_RITUAL_CARDS
    assert s.scores()[2] == 2 + 5 and s.scores()[0] == s.scores()[1] == 0  # space 2 not scored
    assert not s.resolved()[1]


# ------------------------------------------------------------------ end
def test_F_E1_game_ends_after_the_twelfth_ritual():
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP}, cards_used=11)
    s.apply(move_action(1, 3))
    assert s.is_terminal() and s.current_player == -1


def test_F_E2_F_E3_card_bonus_and_neutral_colours_cannot_win():
    # Colour 4 is neutral and has the most points; seat 1 (colour 1) wins on the card bonus.
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP}, cards_used=11, colours=[0, 1], ritual_cards=[0, 11],
                 scores=[0, 0, 0, 0, 50])
    s.apply(move_action(1, 3))  # 2 druids + 5 (value-5 card) to colours 0 and 1; seat 0 takes card 12
    assert s.scores().tolist() == [7, 7, 0, 0, 50]  # ritual points only
    assert s.final_colour_scores().tolist() == [7 + 1, 7 + 11, 0, 0, 50]
    assert s.winners() == [1]
    assert s.returns().tolist() == [-1.0, 1.0]


def test_F_E4_tie_broken_by_fewest_ritual_cards():
    # Colours 0 and 1 both end on 16; seat 0 holds 3 cards, seat 1 holds 9.
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP}, cards_used=11, colours=[0, 1], ritual_cards=[2, 9],
                 scores=[6, 0, 0, 0, 0])
    s.apply(move_action(1, 3))
    assert s.final_colour_scores()[:2].tolist() == [16, 16]
    assert s.winners() == [0] and s.returns().tolist() == [1.0, -1.0]


def test_F_E4_still_tied_shares_the_win():
    s = scenario({1: {0: 1}, 3: {1: 1}, **KEEP}, num_players=3, cards_used=11, colours=[0, 1, 2],
                 ritual_cards=[2, 3, 6])
    s.apply(move_action(1, 3))  # colour 0: 7 + 3 cards, colour 1: 7 + 3 cards
    assert s.final_colour_scores()[:3].tolist() == [10, 10, 6]
    assert s.winners() == [0, 1]
    assert s.returns().tolist() == [0.5, 0.5, -1.0]


def test_F_E5_bounds_hold_in_random_games():
    rng = np.random.default_rng(5)
    for seed in range(200):
        s = FaeState.new(2 + seed % 3, seed=seed)
        moves = steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            a = int(legal[rng.integers(legal.size)])
            moves += a < 270
            steps += 1
            s.apply(a)
        assert moves <= 59 and steps <= 71


def test_regions_and_terrain_tables_are_consistent():
    assert REGION[0] == 0 and REGION[59] == 11
