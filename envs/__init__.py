"""The suite's base for the games: the registry, the AEC base env, the `GameState` protocol, the reward
names; and the learner's batches (`scalar_batch`, `fae_batch`). Nothing here imports bots or training:
the learner core and its faces are `tabletop_rl.training`, the bots and the recording wrapper
`tabletop_rl.agents` (docs/architecture.md).

This folder is the package `tabletop_rl.envs` (pyproject.toml `[tool.setuptools.package-dir]`): import it by that name, not as `envs`.

    from tabletop_rl import envs
    env = envs.make("fae_v0", num_players=3)      # the protected AEC env
    spec = envs.get_game("fae")                    # rules core, encoders, env factories

Every game of the suite is described by a `GameSpec`, so tools (arena, training, benchmarks)
work on any registered game without knowing its rules.
"""
from tabletop_rl.envs.registry import GameSpec, get_game, list_games, make, register_game

__all__ = ["GameSpec", "get_game", "list_games", "make", "register_game"]
