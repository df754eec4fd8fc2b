"""`OpponentPool`: where the learner's opponents come from, the one pool of every learner path.

    pool = OpponentPool(fixed={"random": 1, "greedy": 2}, snapshot_prob=0.2, max_snapshots=8)
    pool.add_snapshot(policy_weights)          # a frozen copy of the learner (PolicyWeights)
    kinds = pool.draw(rng, k)                  # k opponent kinds: index into names, or len(names) + snapshot index

The learner core (`tabletop_rl.training.learner.LearnerCore`, `opponents=`) draws one opponent per
episode from it; `SelfPlayEnv` and the training loops share one pool between the cores they build
and add snapshots to it. Each draw: with chance `snapshot_prob` (once a snapshot exists) a frozen
snapshot of the learner, uniform over the `max_snapshots` latest (oldest dropped); otherwise a fixed
bot by `fixed` weight, a registered bot name ("random", "greedy", your own via `register_agent`).
`agents` names Agent instances a caller hands in (`SelfPlayEnv(opponent=my_agent)`): played as they
are, in a core of one game only, and never part of `state_dict`.

The pool holds no random state: cores draw from it with their own generators. `fixed` is read
when a core is built (it prepares each bot's batched form), so change it by building a new pool.
Snapshot ids are unique and never reused (`next_id`), so a checkpoint names each snapshot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def finite_weights(opponents) -> dict[str, float]:
    """{name: weight > 0} from a mapping of bot names to finite weights >= 0 with a positive sum;
    ValueError naming the problem otherwise."""
    if not isinstance(opponents, dict) or not opponents or not all(isinstance(k, str) for k in opponents):
        raise ValueError(f"opponents must map bot names to weights; got {opponents!r}")
    try:
        w = {k: float(v) for k, v in opponents.items()}
    except (TypeError, ValueError):
        raise ValueError(f"opponents weights must be numbers; got {opponents!r}") from None
    if any(not np.isfinite(x) or x < 0 for x in w.values()) or sum(w.values()) <= 0:
        raise ValueError(f"opponents must map bot names to weights >= 0 with a positive sum; got {opponents!r}")
    return {k: x for k, x in w.items() if x > 0}


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


@dataclass
class OpponentPool:
    """Fixed bots by weight plus frozen snapshots of the learner (module docstring)."""

    fixed: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_prob: float = 0.0
    max_snapshots: int = 8
    snapshots: dict[int, Any] = field(default_factory=dict)  # id -> PolicyWeights, oldest first
    next_id: int = 0
    agents: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # name -> a caller's Agent

    def __post_init__(self):
        self.fixed = finite_weights(self.fixed)
        sp = self.snapshot_prob
        if isinstance(sp, bool) or not isinstance(sp, (int, float, np.integer, np.floating)) or not 0.0 <= sp <= 1.0:
            raise ValueError(f"snapshot_prob must be a number in [0, 1]; got {sp!r}")
        if not _is_int(self.max_snapshots) or self.max_snapshots < 1:
            raise ValueError(f"max_snapshots must be an int >= 1; got {self.max_snapshots!r}")
        if not _is_int(self.next_id) or self.next_id < 0:
            raise ValueError(f"next_id must be an int >= 0; got {self.next_id!r}")
        self.snapshot_prob, self.max_snapshots = float(sp), int(self.max_snapshots)

    @property
    def names(self) -> list[str]:
        """The fixed bots, in the order of their kinds."""
        return list(self.fixed)

    @property
    def snapshot_list(self) -> list:
        """The kept snapshots, oldest first (kind len(names) + k is the k-th)."""
        return list(self.snapshots.values())

    def add_snapshot(self, weights) -> int:
        """Keep `weights` (dropping the oldest beyond max_snapshots); returns its id."""
        sid = self.next_id
        self.next_id += 1
        self.snapshots[sid] = weights
        while len(self.snapshots) > self.max_snapshots:
            del self.snapshots[next(iter(self.snapshots))]
        return sid

    def kind_name(self, kind: int) -> str:
        return self.names[kind] if kind < len(self.fixed) else "snapshot"

    def draw(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """int64 (k,): each an index into `names`, or len(names) + an index into `snapshot_list`."""
        names = self.names
        w = np.asarray([self.fixed[n] for n in names], dtype=np.float64)
        kinds = rng.choice(len(names), size=k, p=w / w.sum())
        if self.snapshots and self.snapshot_prob > 0:
            snap = rng.random(k) < self.snapshot_prob
            kinds = np.where(snap, len(names) + rng.integers(len(self.snapshots), size=k), kinds)
        return np.asarray(kinds, dtype=np.int64)

    # ------------------------------------------------------------------ JSON (no pickle)
    STATE_KEYS = ("fixed", "snapshot_prob", "max_snapshots", "snapshots", "next_id")

    def state_dict(self) -> dict:
        """JSON-safe (snapshots as [id, PolicyWeights.to_dict()] pairs); inverse of `from_state_dict`."""
        return {"fixed": dict(self.fixed), "snapshot_prob": self.snapshot_prob, "max_snapshots": self.max_snapshots,
                "next_id": self.next_id, "snapshots": [[int(k), w.to_dict()] for k, w in self.snapshots.items()]}

    @classmethod
    def from_state_dict(cls, d: dict) -> "OpponentPool":
        """A pool from `state_dict()` output (a file from outside: every field checked)."""
        from tabletop_rl.agents.ppo_agent import PolicyWeights

        if not isinstance(d, dict) or set(d) != set(cls.STATE_KEYS):
            raise ValueError(f"OpponentPool.from_state_dict: needs exactly the keys {sorted(cls.STATE_KEYS)}")
        snaps = d["snapshots"]
        if not isinstance(snaps, list) or not all(isinstance(x, list) and len(x) == 2 and _is_int(x[0]) for x in snaps):
            raise ValueError("OpponentPool.from_state_dict: 'snapshots' must be a list of [id, weights] pairs")
        return cls(fixed=d["fixed"], snapshot_prob=d["snapshot_prob"], max_snapshots=d["max_snapshots"],
                   next_id=d["next_id"], snapshots={int(k): PolicyWeights.from_dict(w) for k, w in snaps})

    def load_state_dict(self, d: dict, obs_size: int | None = None, num_actions: int | None = None) -> None:
        """Take `from_state_dict(d)`'s snapshots and counters in place (the cores sharing this pool
        see them); its fixed bots must be this pool's and, where given, its snapshots must map
        `obs_size` inputs to `num_actions` logits. Nothing changes unless all of it checks out."""
        other = self.from_state_dict(d)
        if other.fixed != self.fixed:
            raise ValueError(f"OpponentPool.load_state_dict: fixed bots {other.fixed} differ from {self.fixed}")
        if obs_size is not None and any(w.obs_size != obs_size or w.num_actions != num_actions
                                        for w in other.snapshots.values()):
            raise ValueError(f"OpponentPool.load_state_dict: snapshots must map {obs_size} inputs to {num_actions} actions")
        self.snapshot_prob, self.max_snapshots = other.snapshot_prob, other.max_snapshots
        self.snapshots, self.next_id = other.snapshots, other.next_id


__all__ = ["OpponentPool", "finite_weights"]
