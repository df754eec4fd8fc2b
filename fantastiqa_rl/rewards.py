"""Fantastiqa's potentials (the learner's dense rewards), read from a seat's observation rows.

    from fantastiqa_rl.rewards import POTENTIALS, potentials
    phi = potentials(obs, "progress", num_players=2, teams=False)   # obs: (N, D) rows of fantastiqa_rl.observe

A potential-based reward pays the change of phi from one of the learner's decisions to the next,
so it sums to the final phi and leaves the game's best play unchanged. Each potential reads only
the per-player PUBLIC counters of the observation (`p{k}_counters`, seat-relative: k = 0 is the
observer; `fantastiqa_rl.observation`), never the observer's own hand or deck: what it pays for,
every seat could compute for every other seat.

- "score_diff": own side's quest points minus the best opposing side's (the game spec's
  `fantastiqa_rl.environment.potential`; a side is a seat, or a team with teams=True).
- "progress": score_diff plus, per side, the steps towards points that the rules make public:
  PROGRESS_WEIGHTS per gem (they buy cards at statues), per card owned (hand, deck, discard and
  committed: subdued creatures and bought cards join the deck) and per quest completed, own side minus the best opposing side's.
  Measured against score_diff in docs/benchmarks.md ("Training: Fantastiqa").
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from fantastiqa_rl.actions import TERMINAL
from fantastiqa_rl.observation import GEM_SCALE, SCORE_SCALE, SIZE_SCALE, observation_layout
from tabletop_rl.envs.rewards import SCORE_DIFF

POTENTIALS = (SCORE_DIFF, "progress")  # Fantastiqa's potentials: the spec's score_diff (from the rows) and its own progress
# progress: points per unit (a quest is worth 1-4 points, the short goal 9)
PROGRESS_WEIGHTS = {"gems": 0.1, "cards": 0.1, "completed": 0.5}
# p{k}_counters: gems, carpets, reshuffles, score, bonus tokens, hand, deck, discard sizes, completed quests
_GEMS, _SCORE, _HAND, _DECK, _DISCARD, _COMPLETED = 0, 3, 5, 6, 7, 8


@lru_cache(maxsize=8)
def _counter_starts(card_set: str | None, num_players: int) -> tuple[int, ...]:
    layout = observation_layout(card_set)
    return tuple(layout[f"p{k}_counters"].start for k in range(num_players))


@lru_cache(maxsize=8)
def _committed_blocks(card_set: str | None, num_players: int) -> tuple[slice, ...]:
    layout = observation_layout(card_set)
    return tuple(layout[f"p{k}_committed"] for k in range(num_players))


@lru_cache(maxsize=8)
def _terminal_column(card_set: str | None) -> int:
    return observation_layout(card_set)["phase"].start + TERMINAL


def _per_player(obs: np.ndarray, starts, column: int, scale: float) -> np.ndarray:
    """(N, num_players) float64: counter `column` of each seat-relative player, unscaled."""
    return np.rint(obs[:, [s + column for s in starts]].astype(np.float64) * scale)


def _side_diff(values: np.ndarray, teams: bool) -> np.ndarray:
    """(N,) own side's value minus the best opposing side's; values (N, n) seat-relative."""
    n = values.shape[1]
    if teams:  # partners sit two apart (Q-TM1): seat-relative 0 and 2 against 1 and 3
        return values[:, 0::2].sum(axis=1) - values[:, 1::2].sum(axis=1)
    return values[:, 0] - values[:, 1:n].max(axis=1)


def potentials(obs: np.ndarray, kind: str, num_players: int, teams: bool = False,
               card_set: str | None = None) -> np.ndarray:
    """float64 (N,): potential `kind` of each row's observer (rows of `fantastiqa_rl.observe`)."""
    if kind not in POTENTIALS:
        raise ValueError(f"Fantastiqa's potentials are {POTENTIALS}; got {kind!r}")
    starts = _counter_starts(card_set, int(num_players))
    phi = _side_diff(_per_player(obs, starts, _SCORE, SCORE_SCALE), teams)
    if kind == "progress":
        w = PROGRESS_WEIGHTS
        cards = sum(_per_player(obs, starts, c, SIZE_SCALE) for c in (_HAND, _DECK, _DISCARD))
        cards += np.stack([obs[:, b].sum(axis=1, dtype=np.float64) for b in _committed_blocks(card_set, num_players)], 1)
        value = (w["gems"] * _per_player(obs, starts, _GEMS, GEM_SCALE) + w["cards"] * cards
                 + w["completed"] * _per_player(obs, starts, _COMPLETED, SIZE_SCALE))
        running = obs[:, _terminal_column(card_set)] == 0
        phi = phi + np.where(running, _side_diff(value, teams), 0.0)
    return phi


__all__ = ["POTENTIALS", "PROGRESS_WEIGHTS", "potentials"]
