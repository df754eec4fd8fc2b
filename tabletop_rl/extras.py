"""Optional dependencies (pyproject's extras): name the extra to install when one is missing.

A raw `ModuleNotFoundError: No module named 'stable_baselines3'` leaves a newcomer to find out which
extra brings it; `require_extra("train", ...)` says `pip install "tabletop-rl[train]"` instead.
Entry points call it before they change anything (a run folder, a server), so a missing extra
leaves nothing behind.
"""
from __future__ import annotations

import importlib.util


class MissingExtraError(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message says which extra to install."""


def require_extra(extra: str, modules: tuple[str, ...], purpose: str) -> None:
    """Raise `MissingExtraError` naming `extra` if any of `modules` cannot be imported."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtraError(
            f"{purpose} needs {', '.join(missing)} (the '{extra}' extra), which is not installed: "
            f"pip install \"tabletop-rl[{extra}]\" (in a checkout: pip install -e \".[{extra}]\")",
            name=missing[0])
