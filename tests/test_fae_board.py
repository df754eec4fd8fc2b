"""Board data invariants from the spec (the Clans board, which reviews report identical to Fae's)."""
from collections import Counter, deque

from fae_rl import board


def test_sixty_spaces_in_twelve_regions_of_five():
    assert board.NUM_SPACES == 60 and len(board.TERRAIN) == 60 and len(board.CENTRES) == 60
    assert Counter(board.REGION) == {r: 5 for r in range(12)}


def test_fifteen_spaces_per_terrain_and_every_region_has_all_four():
    assert Counter(board.TERRAIN) == {t: 15 for t in range(4)}
    for r in range(12):
        terrains = Counter(board.TERRAIN[5 * r:5 * r + 5])
        assert len(terrains) == 4 and sorted(terrains.values()) == [1, 1, 1, 2]


def test_edges_count_order_and_kinds():
    assert len(board.EDGES) == 135 and len(set(board.EDGES)) == 135
    assert all(a < b for a, b in board.EDGES)
    assert list(board.EDGES) == sorted(board.EDGES)
    inside = sum(1 for a, b in board.EDGES if board.REGION[a - 1] == board.REGION[b - 1])
    assert (inside, 135 - inside) == (90, 45)


def test_no_two_adjacent_spaces_share_a_terrain():
    assert all(board.TERRAIN[a - 1] != board.TERRAIN[b - 1] for a, b in board.EDGES)


def test_graph_connected_and_degree_histogram():
    seen, todo = {0}, deque([0])
    while todo:
        for m in board.NEIGHBOURS[todo.popleft()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    assert len(seen) == 60
    assert Counter(len(n) for n in board.NEIGHBOURS) == {3: 12, 4: 18, 5: 18, 6: 12}


def test_F_T2_lake_pairs_are_not_adjacent():
    assert len(board.LAKE_PAIRS) == 14
    for a, b in board.LAKE_PAIRS:
        assert (min(a, b), max(a, b)) not in board.EDGES
        assert b - 1 not in board.NEIGHBOURS[a - 1]


def test_action_encoding_round_trip():
    for k, (a, b) in enumerate(board.EDGES):
        assert board.move_action(a, b) == 2 * k and board.move_action(b, a) == 2 * k + 1
        assert board.action_to_string(2 * k) == f"move {a}->{b}"
    assert board.resolve_action(1) == 270 and board.resolve_action(60) == 329 == board.NUM_ACTIONS - 1


def test_F_S3_ritual_cards_in_ascending_stacks():
    values = [v for v, _, _ in board.RITUAL_CARDS]
    assert values == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]
    assert board.RITUAL_CARDS[-1] == (5, None, None)  # blesses every terrain, curses none
