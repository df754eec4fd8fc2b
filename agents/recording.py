"""A PettingZoo AEC wrapper that writes a game record (JSONL, `tabletop_rl.agents.records`) per episode.

    from tabletop_rl.agents.recording import RecordEpisodes, make_recorded
    env = make_recorded("fae_v0", "games.jsonl", num_players=3)       # any registered env id
    env = RecordEpisodes(fae_rl.env(num_players=3), path="games.jsonl")  # or wrap an env you have
    env.reset(seed=42)
    ...   # play as usual; when the episode ends one line is appended to games.jsonl
    from tabletop_rl.agents.records import read_records, replay
    states = replay(next(read_records("games.jsonl")))

Works for every game of the suite registry: the wrapper finds the game by the env's
`metadata["name"]` (its env id), reads the rule options from the unwrapped env's attributes of
the same name or its `rule_options` dict (or takes `options=`), the observation options (e.g.
Fae's `history`, `action_features`) from its attributes of the same name (or takes
`observation_options=`), so `transitions()` observes as the env did, and seat i is
`possible_agents[i]`. A record needs the seed
that dealt the game: when `reset()` gets no seed the wrapper draws one from its own generator
(seeded by `seed=` at construction) and passes it on, so every recorded episode is replayable.
At the end the wrapper rebuilds the final state from seed + actions on the rules core (cheap)
and records returns, winners, scores and the final-state digest from it (whatever ended the
episode), and the env rewards summed per seat (`rewards`). An episode that the protected env
ended because of an illegal action is recorded with `ended: "illegal_action"` and the offending
`illegal_action`; one cut short (truncated) with `ended: "truncated"`.
"""
from __future__ import annotations

import os
from typing import Callable

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["RecordEpisodes", "make_recorded"]


class RecordEpisodes(BaseWrapper):
    """Records every episode of `env` to the JSONL file `path` and/or passes it to `sink(record)`."""

    def __init__(self, env, path: str | os.PathLike | None = None, sink: Callable[[dict], None] | None = None,
                 options: dict | None = None, seed: int | None = None, meta: dict | None = None,
                 observation_options: dict | None = None):
        super().__init__(env)
        from tabletop_rl.envs.registry import get_game

        if path is None and sink is None:
            raise ValueError("RecordEpisodes needs path= (a JSONL file) or sink= (a callable taking a record)")
        env_id = (getattr(env, "metadata", None) or {}).get("name")
        if not env_id:
            raise ValueError("RecordEpisodes: the env has no metadata['name'] (its env id), so its game is unknown")
        self.spec = get_game(env_id)
        raw = env.unwrapped
        if options is None:
            # an option is an attribute of the same name, or an entry of the env's `rule_options` dict
            held = getattr(raw, "rule_options", None)
            held = held if isinstance(held, dict) else {}
            missing = [k for k in self.spec.rule_options if not hasattr(raw, k) and k not in held]
            if missing:
                raise ValueError(f"RecordEpisodes: the env has no attribute(s) {missing} for rule options of "
                                 f"{self.spec.name}; pass options= explicitly")
            options = {k: getattr(raw, k) if hasattr(raw, k) else held[k] for k in self.spec.rule_options}
        else:
            unknown = sorted(set(options) - set(self.spec.rule_options))
            if unknown:
                raise ValueError(f"options {unknown} are not rule options of {self.spec.name} "
                                 f"({list(self.spec.rule_options)})")
        self.rule_options = dict(options)
        if observation_options is None:
            # every seat observes with the env's own options, its attributes of the same name
            missing = [k for k in self.spec.observation_options if not hasattr(raw, k)]
            if missing:
                raise ValueError(f"RecordEpisodes: the env has no attribute(s) {missing} for observation options of "
                                 f"{self.spec.name}; pass observation_options= explicitly")
            observation_options = {k: getattr(raw, k) for k in self.spec.observation_options}
        from tabletop_rl.agents.records import seat_observation_options

        seat_observation_options(self.spec, 1, observation_options)  # unknown names fail here, not at the first record
        self.observation_options = dict(observation_options)
        self.path = path
        self.sink = sink
        self.meta = meta
        self._rng = np.random.default_rng(seed)
        self._seed: int | None = None
        self._actions: list[int] = []
        self._rewards: list[float] = []
        self._done = True
        self.last_record: dict | None = None
        self.episodes_recorded = 0

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = int(self._rng.integers(2**31 - 1))
        self._seed = int(seed)
        self._actions, self._done = [], False
        self.env.reset(seed=self._seed, options=options)
        self._rewards = [0.0] * len(self.env.possible_agents)

    def step(self, action) -> None:
        env = self.env
        agent = env.agent_selection
        live = not (env.terminations.get(agent, False) or env.truncations.get(agent, False))
        env.step(action)
        if self._done or not live:
            return
        agents = env.possible_agents
        for i, a in enumerate(agents):
            self._rewards[i] += float(env.rewards.get(a, 0.0))
        ended_illegal = any(isinstance(info, dict) and "illegal_move_by" in info for info in env.infos.values())
        if not ended_illegal:
            self._actions.append(int(action))
        if all(env.terminations.get(a, True) or env.truncations.get(a, True) for a in env.agents):
            self._done = True
            self._write(illegal=int(action) if ended_illegal else None)

    def _write(self, illegal: int | None) -> None:
        from tabletop_rl.agents.records import append_record, make_record

        spec = self.spec
        n = len(self.env.possible_agents)
        state = spec.new_state(num_players=n, seed=self._seed, **self.rule_options)
        for a in self._actions:
            state.apply(a)
        extra = {"rewards": self._rewards}
        if self.meta:
            extra["meta"] = self.meta
        ended = "illegal_action" if illegal is not None else "terminal" if state.is_terminal() else "truncated"
        rec = make_record(spec, num_players=n, seed=self._seed, rule_options=self.rule_options, actions=self._actions,
                          observation_options=self.observation_options, final_state=state, ended=ended,
                          **({"illegal_action": illegal} if illegal is not None else {}), **extra)
        self.last_record = rec
        self.episodes_recorded += 1
        if self.path is not None:
            append_record(self.path, rec)
        if self.sink is not None:
            self.sink(rec)

    def __str__(self) -> str:
        return f"RecordEpisodes<{self.env}>"


def make_recorded(env_id: str, path: str | os.PathLike | None = None, *, sink=None, raw: bool = False,
                  recorder_seed: int | None = None, **kwargs) -> RecordEpisodes:
    """`tabletop_rl.envs.make(env_id, raw, **kwargs)` wrapped in `RecordEpisodes(path=..., sink=...)`."""
    from tabletop_rl.envs.registry import make

    return RecordEpisodes(make(env_id, raw=raw, **kwargs), path=path, sink=sink, seed=recorder_seed)
