"""Before/after check for refactors of the Fantastiqa rules core: same seeds, same games, same bytes.

    .venv/bin/python benchmarks/check_fantastiqa_determinism.py            # 50 random + 20 greedy games
    .venv/bin/python benchmarks/check_fantastiqa_determinism.py --random 5 --greedy 2   # smoke run

Plays uniform-random games (seeds 0..R-1) and greedy-vs-greedy games (seeds 0..G-1), 2-4 players
cycled, the rule options cycled over every non-default value (the Abbey, teams, each option of
`fantastiqa_rl.options.OPTIONS`, a short turn limit), and prints one sha256 digest per kind of
output, folded over every step of every game:

    state     canonical JSON of `to_dict()` after every step (the rng states included), and the
              legal actions of every decision
    text      `action_to_string` of every legal action and `str(state)`, every 7th step
    errors    the ValueError message of one illegal action, every 11th step
    restore   every 13th step the game continues from `from_dict(json round trip of to_dict())`
              or from `clone()` (alternately), so both must restore an identical state

Run it on the commit before a refactor and after it (with that commit's code on the import path)
and compare the digests: a pure refactor leaves all four unchanged. No timing is measured here.

Issue 17 (fantastiqa_rl/state.py split by job), 50 random + 20 greedy games, 146,691 steps, the same
on c127ac7 (before) and after the split:
    state    0c4bec4752abb0d4af449b2a8671e81acff03c0efd364fac0307cc1366855aa8
    text     32dc14bb793c242e0555580eb1409a2de7b6b74848effc7777ac0ae8a852aa9f
    errors   8cf0d53bd7cb7cb19584fe11cab5879a2a16b4399a6685111ee4e089cec2d930
    restore  aeb94a5ee55a24f33cb32b275bcc58ebbb02199bed0f0cf16036c1e145a7a1c8
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent  # noqa: E402
from fantastiqa_rl import FantastiqaState  # noqa: E402

# One options dict per game, cycled: the defaults, then every non-default value of each option.
VARIANTS = (
    {}, {"abbey": True}, {"teams": True}, {"teams": True, "abbey": True},
    {"adventure_path": "loops"}, {"fly_in_adventure": False}, {"bought_to": "hand"},
    {"card_use": "both"}, {"draw_rule": "draw_5"}, {"mark_return": "allow", "turn_limit": 20},
    {"goal": "long"}, {"turn_limit": 8},
)


def _players(seed: int, opts: dict) -> int:
    return 4 if opts.get("teams") else 2 + seed % 3


def play(kind: str, seed: int, digests: dict, max_steps: int) -> int:
    opts = dict(VARIANTS[seed % len(VARIANTS)])
    goal = opts.pop("goal", "short")
    n = _players(seed, opts)
    s = FantastiqaState.new(n, seed=seed, goal=goal, **opts)
    rng = np.random.default_rng(1000 + seed)
    bots = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(n)] if kind == "greedy" else None
    mask = np.zeros(s.num_actions, dtype=bool)
    step = 0
    while not s.is_terminal() and step < max_steps:
        la = s.legal_actions()
        digests["state"].update(la.tobytes())
        if step % 7 == 0:
            digests["text"].update(str(s).encode())
            digests["text"].update("|".join(s.action_to_string(int(a)) for a in la).encode())
        if step % 11 == 0:
            bad = next(a for a in range(s.num_actions + 1) if a not in s.legal_set())
            try:
                s.apply(bad)
            except ValueError as e:
                digests["errors"].update(str(e).encode())
        if bots is None:
            a = int(la[rng.integers(len(la))])
        else:
            mask[:] = False
            mask[la] = True
            a = bots[s.cur].act(None, mask, state=s, seat=s.cur)
        s.apply(a)
        step += 1
        d = s.to_dict()
        blob = json.dumps(d, sort_keys=True)
        digests["state"].update(blob.encode())
        if step % 13 == 0:
            s = FantastiqaState.from_dict(json.loads(blob)) if step % 26 else s.clone()
            digests["restore"].update(json.dumps(s.to_dict(), sort_keys=True).encode())
    digests["state"].update(repr((s.winners(), s.end_reason, s.turns, s.final_scores())).encode())
    return step


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=50, help="uniform-random games (seeds 0..N-1)")
    ap.add_argument("--greedy", type=int, default=20, help="greedy-vs-greedy games (seeds 0..N-1)")
    ap.add_argument("--max-steps", type=int, default=4000, help="step cap per game")
    args = ap.parse_args()
    digests = {k: hashlib.sha256() for k in ("state", "text", "errors", "restore")}
    steps = 0
    for seed in range(args.random):
        steps += play("random", seed, digests, args.max_steps)
    for seed in range(args.greedy):
        steps += play("greedy", seed, digests, args.max_steps)
    print(f"{args.random} random + {args.greedy} greedy games, {steps} steps")
    for k, h in digests.items():
        print(f"{k:<8} {h.hexdigest()}")


if __name__ == "__main__":
    main()
