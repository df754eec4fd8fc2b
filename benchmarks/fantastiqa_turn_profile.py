"""How each bot of a Fantastiqa arena run spends its turns: what a win share alone does not say.

    python -m tabletop_rl.agents.arena --game fantastiqa --agents ppo:path=POLICY.npz greedy --games 40 --name prof
    python benchmarks/fantastiqa_turn_profile.py runs/arena/prof/records.jsonl

Replays every record (`tabletop_rl.agents.records.replay`: checked, no code run) and counts, per bot
and per game it played: its turns; the turns it ended with its turn action unused, and how many of
those could have visited the statue; its turn actions (adventures, statue visits by option, quests
completed, Abbey explorations); its decisions after a statue draw (BUY), those where it could
afford a drawn card, and the cards it bought; its final score. Issue 37: the
from-scratch card learner (`--preset fantastiqa-cards`) ended about half its turns without a turn
action where greedy visits the statue to buy cards (docs/benchmarks.md, "Fantastiqa on any card file").
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fantastiqa_rl import actions as A  # noqa: E402
from tabletop_rl.agents.records import read_records, replay  # noqa: E402

COLUMNS = ("turns", "unused", "unused_statue_legal", "adventures", "statue_draw", "statue_release",
           "statue_teleport", "quests", "explore", "buy_decisions", "affordable", "bought", "score")
_STATUE = {A.STATUE_DRAW: "statue_draw", A.STATUE_RELEASE: "statue_release", A.STATUE_TELEPORT: "statue_teleport"}


def profile(records) -> dict[str, dict]:
    """{bot: {column: total, "games": n}} over Fantastiqa records (COLUMNS; module docstring)."""
    out: dict[str, dict] = defaultdict(lambda: dict.fromkeys(("games",) + COLUMNS, 0))
    for rec in records:
        if rec.get("game") != "fantastiqa":
            raise SystemExit(f"{getattr(rec, 'source', 'a record')}: a {rec.get('game')!r} record; this profile "
                             f"reads Fantastiqa's")
        states = replay(rec, stream=True)       # checks every field first (ReplayError naming it)
        bots, actions = rec.get("agents"), rec["actions"]
        if bots is None:
            raise SystemExit(f"{getattr(rec, 'source', 'a record')}: no 'agents' field: this profile needs the bots' "
                             f"names (the arena writes them)")
        last = None
        for i, s in enumerate(states):
            last = s
            if i == len(actions):
                break
            a, p, ph = actions[i], s.current_player, s.phase
            row = out[str(bots[p])]
            if ph == A.MAIN and a == A.DONE:
                row["turns"] += 1
                if not s.action_used:
                    row["unused"] += 1
                    row["unused_statue_legal"] += int(A.VISIT_STATUE in s.legal_actions().tolist())
            elif ph == A.MAIN and a == A.ADVENTURE:
                row["adventures"] += 1
            elif ph == A.STATUE_OPTION and a in _STATUE:
                row[_STATUE[a]] += 1
            elif ph == A.MAIN and a == s.layout.explore:   # the Abbey
                row["explore"] += 1
            elif ph == A.BUY:
                row["buy_decisions"] += 1
                row["affordable"] += int(any(s.layout.pick <= x < s.layout.quest for x in s.legal_actions().tolist()))
                row["bought"] += int(s.layout.pick <= a < s.layout.quest)
        for p, bot in enumerate(bots):
            row = out[str(bot)]
            row["games"] += 1
            row["quests"] += len(last.completed[p])
            row["score"] += rec["scores"][p]
    return dict(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="+", help="records.jsonl files of Fantastiqa arena runs")
    args = ap.parse_args(argv)
    table = profile(r for path in args.records for r in read_records(path))
    print("per game played (a turn: a MAIN decision ended by DONE; unused: its turn action not taken)")
    print(f"{'bot':34s} {'games':>5s} " + " ".join(f"{c:>10s}" for c in COLUMNS))
    for bot, row in table.items():
        n = max(row["games"], 1)
        print(f"{bot[:34]:34s} {row['games']:5d} " + " ".join(f"{row[c] / n:10.2f}" for c in COLUMNS))


if __name__ == "__main__":
    main()
