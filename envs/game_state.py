"""The rules-state contract every game of the suite satisfies, `GameState`, and its batched twin, `BatchedGame`.

    from tabletop_rl.envs.game_state import GameState
    isinstance(fae_rl.FaeState.new(2, seed=0), GameState)            # True (checked at runtime)
    state: GameState = fantastiqa_rl.FantastiqaState.new(2, seed=0)   # and statically (mypy)

The tools above the rules cores (bots, MCTS, arena, game records, training) use only these members;
a new game's core provides them (with any extra methods of its own) and is checked by
`tests/test_game_state.py`, at runtime and with mypy. Game packages need not import this module:
the Protocol is structural, and this module imports nothing of the suite (the bottom layer,
`docs/architecture.md`).

`isinstance(x, GameState)` (the Protocol is runtime-checkable) checks only that every member
exists, not its signature; the mypy test checks the signatures. The same holds for `BatchedGame`
(N games stepped together: what the learner core runs on; `FaeVector`, `ScalarBatch`).
"""
from __future__ import annotations

from typing import Any, Protocol, Self, runtime_checkable

import numpy as np


@runtime_checkable
class GameState(Protocol):
    """One position of a turn-based game for 2+ seats (seats are 0..num_players-1).

    Chance (the deal, draws) comes from the `seed` given to the game's `new_state`, so seed +
    actions determine every state.
    """

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        ...

    @property
    def current_player(self) -> int:
        """Seat to act, or -1 once the game is over."""
        ...

    def legal_actions(self) -> np.ndarray:
        """Ascending int64 array of the legal action ids of `current_player` (empty at the end).
        Read-only: it may be shared with clones."""
        ...

    def apply(self, action: int) -> None:
        """Play `action` for `current_player`; an illegal one raises ValueError naming it and
        leaves the state unchanged."""
        ...

    def clone(self) -> Self:
        """An independent copy (applying actions to one never changes the other)."""
        ...

    def is_terminal(self) -> bool:
        ...

    def winners(self) -> list[int]:
        """Winning seats, ascending; [] before the end."""
        ...

    def returns(self) -> np.ndarray:
        """float64 win_loss returns per seat (k winners of N: +1/k each, losers -1/(N-k) each;
        all 0 if every seat wins or before the end)."""
        ...

    def seat_scores(self) -> list[float]:
        """Each seat's game score as the rules count it at the end (Fae: the final score of the
        seat's colour; Fantastiqa: the final score, Q-E3). Defined before the end too."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that `from_dict` turns back into an equal state."""
        ...

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Self:
        """The state `d` describes; a malformed `d` raises ValueError naming the problem (the dict
        may come from a file someone sent: it is validated, never executed)."""
        ...

    def sample_consistent(self, seat: int, rng: np.random.Generator) -> Self:
        """A full state `seat` cannot tell apart from this one (hidden parts re-drawn from `rng`,
        using only what `seat` knows): the determinization for imperfect-information search."""
        ...


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def one_integer(value):
    """`value` unwrapped when it is a 0-d array of an integer dtype (what SB3's `predict` returns for
    one observation, and what `Discrete.contains` accepts): its numpy integer. Any other value is
    returned as it is, for the caller's check to accept or refuse (a 0-d bool, float, object or
    string array stays an array, so it is refused)."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return value[()]
    return value


def integers(value, what: str = "action", shape: tuple | None = None):
    """`value` as integers, or a ValueError naming `what` and the problem: the one check of the
    learner-facing entry points (actions, seeds), as strict as the rules cores. Python ints, numpy
    integers and 0-d integer arrays (`one_integer`) only; bools, floats (3.7 must not play 3),
    strings, None and arrays of any other dtype are refused, never coerced.

    `shape=None`: one integer, returned as an int. Otherwise an array (or list) of that shape with an
    integer dtype (every item checked for a list, where numpy would quietly turn True into 1),
    returned as int64: a value past int64 (a uint64 seed >= 2**63) is refused, not wrapped to a
    negative one."""
    if shape is None:
        value = one_integer(value)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{what} must be an int; got {value!r} ({type(value).__name__})")
        return int(value)
    if not isinstance(value, np.ndarray):
        for item in np.ravel(np.asarray(value, dtype=object)):
            item = integers(item, f"each entry of {what}")
            if not _INT64_MIN <= item <= _INT64_MAX:  # numpy would make the list uint64 or object
                raise ValueError(f"each entry of {what} must fit int64 ({_INT64_MIN}..{_INT64_MAX}); got {item}")
    arr = np.asarray(value)
    if arr.shape != tuple(shape):
        raise ValueError(f"{what} must have shape {tuple(shape)}; got {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be integers; got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > _INT64_MAX:  # as int64 it would wrap to a negative
        raise ValueError(f"{what} must fit int64 (..{_INT64_MAX}); got {int(arr.max())} ({arr.dtype})")
    return arr.astype(np.int64, copy=False)


@runtime_checkable
class BatchedGame(Protocol):
    """N games of one table size and rule set stepped together: the learner's engine.

    `fae_rl.vector.FaeVector` has this shape, `tabletop_rl.envs.scalar_batch.ScalarBatch` presents
    N scalar `GameState`s of any registered game through it, and the learner core
    (`tabletop_rl.training.learner`) runs on any of them. Game i of a batch is an ordinary game: seeds,
    masks, observations and returns are exactly those of its scalar core.
    """

    @property
    def num_envs(self) -> int:
        """Games in the batch (N)."""
        ...

    @property
    def num_players(self) -> int:
        ...

    @property
    def num_actions(self) -> int:
        """Width of `legal_mask()`."""
        ...

    @property
    def obs_size(self) -> int:
        """Width of `observe()`."""
        ...

    def reset(self, seeds: Any) -> None:
        """Deal every game: game i exactly as the scalar core's new state with seed `seeds[i]`."""
        ...

    def reset_done(self, seeds: Any) -> np.ndarray:
        """Deal again only the finished games (game i with `seeds[i]`); returns their indices."""
        ...

    @property
    def current_player(self) -> np.ndarray:
        """int64 (N,): the seat to act, -1 where the game is over."""
        ...

    @property
    def terminated(self) -> np.ndarray:
        """bool (N,)."""
        ...

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool (N, num_actions): the mover's legal actions; all False where the game is over."""
        ...

    def observe(self, seats: Any = None, *, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, obs_size): row i is seat `seats[i]`'s observation of game i (default: the
        movers); a seat of -1 gives zeros."""
        ...

    def step(self, actions: Any, games: Any = None) -> None:
        """Apply `actions[i]` to every unfinished game i (only where the bool `games` is True, if
        given); an illegal action raises ValueError naming the game, and no game changes."""
        ...

    def returns(self) -> np.ndarray:
        """float64 (N, num_players): each game's `GameState.returns()` (zeros until it is over)."""
        ...

    def state(self, i: int) -> Any:
        """A `GameState` equal (to_dict) to game i: a copy."""
        ...

    def set_state(self, i: int, state: Any) -> None:
        """Make game i equal to `state` (a state of this batch's game, table size and rules)."""
        ...


def missing_members(obj: Any, protocol: type) -> list[str]:
    """The public members of `protocol` that `obj`'s class lacks. Unlike `isinstance`, it reads no
    property, so it also checks a batch that is not dealt yet (whose queries raise)."""
    names = [n for n, v in vars(protocol).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))]
    return [n for n in names if not hasattr(type(obj), n) and not hasattr(obj, n)]


__all__ = ["BatchedGame", "GameState", "integers", "missing_members", "one_integer"]
