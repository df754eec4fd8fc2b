"""Helpers for building Fae scenario positions through the public `FaeState.from_dict`."""
from __future__ import annotations

import numpy as np

from fae_rl import FaeState
from fae_rl.board import NEIGHBOURS, NUM_SPACES

GOLDEN_PATH = __import__("pathlib").Path(__file__).resolve().parent / "data" / "fae_golden.jsonl"


def scenario(stacks: dict[int, dict[int, int]], num_players: int = 2, colours=None, cards_used: int = 0,
             ritual_cards=None, current_player: int = 0, big_stack_merge: bool = False, scores=None) -> FaeState:
    """A position with only `stacks` ({space: {colour: druids}}) on the board (set up by hand, so
    `conserved=False`: the other druids are simply not there).

    `cards_used` rituals are recorded as already resolved on empty spaces far from any stack
    (from_dict requires one resolved space per drawn card). `ritual_cards` splits them among seats
    (default: all to seat 0). `scores` are credited to seat 0's history.
    """
    druids = [[0] * 5 for _ in range(NUM_SPACES)]
    for space, cols in stacks.items():
        for colour, n in cols.items():
            druids[space - 1][colour] = n
    occupied = {s - 1 for s in stacks}
    far = [i for i in range(NUM_SPACES) if i not in occupied and not any(m in occupied for m in NEIGHBOURS[i])]
    resolved = sorted(i + 1 for i in far[:cards_used])
    assert len(resolved) == cards_used, "not enough free spaces to record the drawn cards"
    scores = list(scores or [0] * 5)
    cards = list(ritual_cards) if ritual_cards is not None else [cards_used] + [0] * (num_players - 1)
    history = [{"moved": [0] * 5, "points": scores if p == 0 else [0] * 5, "last_action": -1} for p in range(num_players)]
    return FaeState.from_dict({
        "version": 1, "num_players": num_players, "big_stack_merge": big_stack_merge, "druids": druids,
        "colours": list(colours) if colours is not None else list(range(num_players)),
        "scores": scores, "ritual_cards": cards, "current_player": current_player, "pending_rituals": [],
        "resolved": resolved, "terminal": False, "history": history,
    }, conserved=False)


def random_state(seed: int, steps: int, num_players: int = 2, big: bool = False) -> FaeState:
    rng = np.random.default_rng(seed)
    s = FaeState.new(num_players, seed=seed, big_stack_merge=big)
    for _ in range(steps):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply(int(legal[rng.integers(legal.size)]))
    return s


def other_colourings(state: FaeState, seat: int, rng: np.random.Generator, tries: int = 3) -> list[FaeState]:
    """Copies of `state` whose other seats' colours (and so the unheld ones) are redrawn, `seat`'s
    own kept: what a search must not read. Draws equal to `state`'s are left out."""
    own, out = state.colours[seat], []
    for _ in range(tries):
        other = state.clone()
        free = rng.permutation([c for c in range(5) if c != own]).tolist()
        other.colours = [own if p == seat else free.pop() for p in range(state.num_players)]
        if other.colours != state.colours:
            out.append(other)
    return out


def randomly_played_vector(num_envs: int, num_players: int, plies: int, seed: int = 0):
    """A FaeVector of `num_envs` games dealt from seeds 0.., each stepped `plies` uniformly random legal moves."""
    from fae_rl.vector import FaeVector

    vec = FaeVector(num_envs, num_players)
    vec.reset(np.arange(num_envs))
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        mask = vec.legal_mask()
        vec.step(np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1))
    return vec


def assert_act_needs_the_movers_state(bot, state: FaeState) -> None:
    """A search bot's act() refuses to run without `state=`, or for a seat that is not to move."""
    import pytest

    from fae_rl import action_mask

    with pytest.raises(ValueError, match="state="):
        bot.act(None, action_mask(state, 0))
    other = 1 - state.current_player
    with pytest.raises(ValueError, match="not to move"):
        bot.act(None, action_mask(state, other), state=state, seat=other)
