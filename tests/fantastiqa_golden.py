"""The Fantastiqa golden reference set: complete recorded games with the state digest after every step.

    .venv/bin/python -m tests.fantastiqa_golden            # check: regenerate in memory, diff against the file
    .venv/bin/python -m tests.fantastiqa_golden --write    # rewrite tests/data/fantastiqa_golden.jsonl

Regenerate ONLY deliberately, after a rules change you mean (then review the diff: which games and
from which step they change). tests/test_fantastiqa_golden.py replays every game from its
(num_players, seed, goal, options) and checks each step's digest, so any unintended change in the
rules core, the deal or the chance sources fails there.

One JSON line per game: name, covers (what it exercises), num_players, seed, goal, options (the
rule options, turn_limit included), actions, digests (the first 12 hex digits of sha256 of the
canonical JSON of `state.to_dict()` after each action; the rng states are part of it), and final
(winners, end_reason, turns, scores, final_scores). The games are played by the greedy bot with
some uniformly random moves (epsilon, seeded), so they reach CANCELs, odd payments and every
decision kind; the seed of a game that must end a certain way (creature deck, turn limit) is the
first one from `seed` that does.

Regenerated in issue 25 (fantastiqa_v1): the engine rule Q-T2 (a CANCEL budget per turn, cards
played for their power in play until the end of the turn) changes play. The games recorded before
it (fantastiqa_v0) stay in tests/data/fantastiqa_golden_v0.jsonl (actions and results, no digests):
the unbounded reading, option turn_loops="allow", must replay them to the same results.
"""
from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import numpy as np

from fantastiqa_rl import FantastiqaState
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

PATH = pathlib.Path(__file__).resolve().parent / "data" / "fantastiqa_golden.jsonl"

# name, num_players, first seed, goal, options, epsilon, wanted end_reason (None: any), covers
GAMES = (
    ("2p short defaults", 2, 0, "short", {}, 0.1, "goal", ["2p", "goal"]),
    ("2p long defaults", 2, 1, "long", {}, 0.1, None, ["2p", "long"]),
    ("3p short defaults", 3, 2, "short", {}, 0.1, None, ["3p"]),
    ("4p short defaults", 4, 3, "short", {}, 0.1, None, ["4p"]),
    ("2p deck out", 2, 4, "long", {}, 0.05, "creature deck empty", ["creature deck empty"]),
    ("2p turn limit", 2, 5, "short", {"turn_limit": 12}, 0.5, "turn_limit", ["turn_limit"]),
    ("2p abbey", 2, 6, "short", {"abbey": True}, 0.1, None, ["abbey"]),
    ("3p abbey", 3, 7, "short", {"abbey": True}, 0.1, None, ["abbey", "3p"]),
    ("4p teams", 4, 8, "short", {"teams": True}, 0.1, None, ["teams"]),
    ("4p teams abbey", 4, 9, "short", {"teams": True, "abbey": True}, 0.1, None, ["teams", "abbey"]),
    ("adventure_path loops", 2, 10, "short", {"adventure_path": "loops"}, 0.1, None, ["adventure_path=loops"]),
    ("fly_in_adventure strict", 2, 11, "short", {"fly_in_adventure": False}, 0.1, None,
     ["fly_in_adventure=False"]),
    ("bought_to hand", 3, 12, "short", {"bought_to": "hand"}, 0.1, None, ["bought_to=hand"]),
    ("card_use both", 2, 13, "short", {"card_use": "both"}, 0.1, None, ["card_use=both"]),
    ("draw_rule draw_5", 3, 14, "short", {"draw_rule": "draw_5"}, 0.1, None, ["draw_rule=draw_5"]),
    ("mark_return allow", 2, 15, "short", {"mark_return": "allow", "turn_limit": 15}, 0.3, None,
     ["mark_return=allow"]),
    ("turn_loops allow", 2, 16, "short", {"turn_loops": "allow", "turn_limit": 15}, 0.3, None,
     ["turn_loops=allow"]),
)


def digest(state) -> str:
    return hashlib.sha256(json.dumps(state.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def play(n: int, seed: int, goal: str, options: dict, epsilon: float):
    """One complete game: greedy bots (seeded per seat) with uniformly random moves at rate epsilon."""
    s = FantastiqaState.new(n, seed=seed, goal=goal, **options)
    rng = np.random.default_rng(seed)
    bots = [FantastiqaGreedyAgent(seed * 10 + p) for p in range(n)]
    mask = np.zeros(s.num_actions, dtype=bool)
    actions, digests = [], []
    while not s.is_terminal():
        la = s.legal_actions()
        if rng.random() < epsilon:
            a = int(la[rng.integers(la.size)])
        else:
            mask[:] = False
            mask[la] = True
            a = int(bots[s.cur].act(None, mask, state=s, seat=s.cur))
        s.apply(a)
        actions.append(a)
        digests.append(digest(s))
    return s, actions, digests


def build() -> list:
    out = []
    for name, n, seed0, goal, options, eps, want, covers in GAMES:
        for seed in range(seed0, seed0 + 1000, len(GAMES)):
            s, actions, digests = play(n, seed, goal, options, eps)
            if want is None or s.end_reason == want:
                break
        else:
            raise RuntimeError(f"{name}: no seed ends by {want!r}")
        out.append({
            "name": name, "covers": covers + [s.end_reason], "num_players": n, "seed": seed, "goal": goal,
            "options": options, "epsilon": eps, "actions": actions, "digests": digests,
            "final": {"winners": s.winners(), "end_reason": s.end_reason, "turns": s.turns,
                      "scores": list(s.scores), "final_scores": list(s.final_scores())},
        })
    return out


def dumps(games: list) -> str:
    return "".join(json.dumps(g, separators=(",", ":")) + "\n" for g in games)


def main(argv) -> int:
    text = dumps(build())
    if "--write" in argv:
        PATH.write_text(text)
        print(f"wrote {PATH} ({len(GAMES)} games)")
        return 0
    same = PATH.exists() and PATH.read_text() == text
    print("golden file is up to date" if same else f"golden file differs from a fresh build: {PATH}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
