"""Fae's MCTS at reduced budgets as named bots, for train.py's opponent pool (`--imports`).

    nice -n 10 python train.py --preset make-train --init fae_2p_v2 --imports benchmarks.fae_league \
        --opponents mcts30=1.0 --run-name fae_league

Registers `mcts30` and `mcts100`: `make_agent("fae", "mcts")` (FAE_DEFAULTS) with 30 or 100
iterations instead of 300 (about 1 and 3 ms a move instead of 9 on a quiet core): cheap enough to
sit at a share of the learner core's games, where the default budget would make every step wait.
"""
from __future__ import annotations

from tabletop_rl.agents import make_agent, register_agent

BUDGETS = (30, 100)

for _n in BUDGETS:
    register_agent("fae", f"mcts{_n}", lambda seed=None, _n=_n, **kw: make_agent("fae", "mcts", seed=seed, iterations=_n, **kw))
