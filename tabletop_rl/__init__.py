"""tabletop-rl: the suite's one collision-free import root.

The repository keeps the design card's layout (`envs/`, `agents/` at the top); what is installed puts
them under this package, so a researcher's own `envs` or `agents` folders neither break the suite nor
get shadowed by it:

    tabletop_rl.envs     suite registry (`make`, `get_game`), the AEC base, the learner core and its faces, recording
    tabletop_rl.agents   baseline bots, the arena, game records, human play
    tabletop_rl.training the SB3 and RLlib trainers, the one evaluation, checkpoints, reports (train.py)
    tabletop_rl.stats, tabletop_rl.options  the one Wilson interval and the one key=value parser
    tabletop_rl.shown    the loaders' bounded repr of untrusted values in error messages
    fae_rl, fantastiqa_rl  the games (unique names, importable as they are)

Nothing is imported here eagerly: the game packages import `tabletop_rl.envs.aec_base`, and the
bots are registered when `tabletop_rl.agents` is imported.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tabletop-rl")
except PackageNotFoundError:  # a checkout used without installing it
    __version__ = "0+unknown"
