"""The arena's table prints whole bot labels (issue 27, item 4): it cut them at 28 characters, so two
budgets of one bot (`...iterations=2000` and `...iterations=20000`) printed alike."""
from tabletop_rl.agents.arena import ArenaConfig, format_table, summarize

LABELS = ["fantastiqa_mcts:iterations=2000,rollouts=4", "fantastiqa_mcts:iterations=20000,rollouts=4"]


def test_table_keeps_whole_labels_and_aligned_columns():
    rows = [{"index": i, "deal": i // 2, "seats": [i % 2, 1 - i % 2], "returns": [1, -1], "winners": [0],
             "scores": [3, 1]} for i in range(4)]
    summary = summarize(rows, LABELS, 2)
    timing = [{"median_move_s": 0.01}, {"median_move_s": None}]
    lines = format_table(ArenaConfig("fantastiqa", LABELS, 4), summary, timing).splitlines()
    header = next(line for line in lines if line.startswith("bot "))
    body = [next(line for line in lines if line.startswith(label + " ")) for label in LABELS]
    games_column = header.index("games") + len("games")
    assert all(line[:games_column].endswith("    4") for line in body)  # every row lines up with the header
