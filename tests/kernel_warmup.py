"""Compile the slowest numba kernels into numba's cache, beside a `pytest -n 2` run (tests/conftest.py).

    python tests/kernel_warmup.py      # what conftest starts; harmless alone (a warm cache loads in seconds)

On a cold cache (a fresh clone: CI, a new user's `make test`) Fantastiqa's batched engine, its greedy kernel
and the card view's take ~130 s of one core to compile, Fae's searches ~25 s, and each pytest worker that met
them compiled them again for itself, at the same time as the other. Here they are compiled once, in
one process, while the workers run the tests that do not need them (conftest puts the test files that
do at the end of the run and has them wait for this process). It plays the engine through its public
calls, so the kernels compile for the argument types the tests and a training run pass them.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

LOCK_ENV = "TABLETOP_TEST_WARMUP_LOCK"  # conftest's lock file, for the workers (they inherit the environment)


def warm_fae() -> None:
    """Fae's searches (the scalar MCTS's kernels, the batched and the guided search) and the greedy margin."""
    import fae_rl
    from tabletop_rl.agents import make_agent

    env = fae_rl.env(num_players=2)
    env.reset(seed=1)
    obs, *_ = env.last()
    for name in ("greedy", "mcts", "mcts_batched", "mcts_guided"):
        make_agent("fae", name, seed=0).act(obs["observation"], obs["action_mask"], state=env.unwrapped.game,
                                            seat=env.unwrapped.game.current_player)


def warm_fantastiqa() -> None:
    from tabletop_rl.agents.fantastiqa_batch import FantastiqaBatch

    for options in (dict(), dict(view="cards", action_features="greedy")):
        b = FantastiqaBatch(4, 2, **options)   # the engine with the greedy bot (the flat view, then the card view)
        b.reset(np.arange(4))
        rng = np.random.default_rng(0)
        for _ in range(300):   # long enough to draw through a deck: the reshuffle kernels with Generators
            mask = b.legal_mask()
            b.observe()
            b.greedy_actions()
            b.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask]))
            b.reset_done(rng.integers(2**31, size=4))
        b.set_state(0, b.state(1))   # the row transfers both ways


def main(argv: list[str]) -> None:
    """argv: [DONE_PATH]: a file written once every kernel has compiled (tests/test_kernel_warmup.py reads it)."""
    warm_fae()   # the shorter first: the Fae search tests run before the Fantastiqa engine's
    warm_fantastiqa()
    if argv:
        Path(argv[0]).write_text("compiled\n")


if __name__ == "__main__":
    main(sys.argv[1:])
