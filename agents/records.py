"""Game records: one JSON object per game, one game per line (JSONL), replayable on the rules core.

    from tabletop_rl.agents.records import read_records, replay
    for record in read_records("runs/arena/demo/records.jsonl"):
        states = replay(record)             # every state, from the deal to the end
        print(states[-1])

A record holds what rebuilds the game exactly (env id and version, package version, number of
players, rule options, seed, actions) and what it produced (returns, winners, seat scores, a
SHA-256 digest of the final state's `to_dict()`), plus optional labels (the bot on each seat).
The deal, and in games with chance every chance event, comes from `seed` inside the rules core's
`new_state`, so seed + actions determine every state. `replay` checks the returns, winners and
digest and raises `ReplayError` naming the first mismatch, so a record doubles as a regression
test, a bug report and offline-RL data (`transitions(record)` yields observation, mask, action).

Fields (format_version 1): format, format_version, game, env_id, env_version, package_version,
num_players, options (rule options), seed, actions, returns, winners, scores (or null),
final_state_sha256 (or null), and optionally agents (per seat), ended ("terminal" or
"illegal_action"), illegal_action, rewards (env rewards summed, from `tabletop_rl.envs.recording`), meta.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Iterable, Iterator

import numpy as np

FORMAT = "tabletop-rl/game-record"
FORMAT_VERSION = 1
REQUIRED_KEYS = ("format", "format_version", "game", "env_id", "num_players", "options", "seed", "actions", "returns")

__all__ = [
    "FORMAT", "FORMAT_VERSION", "ReplayError", "make_record", "state_digest", "seat_scores", "write_records",
    "append_record", "read_records", "replay", "transitions", "package_version",
]


class ReplayError(ValueError):
    """A record does not replay to what it says (bad action, other returns, other final state)."""


def package_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("tabletop-rl")
    except Exception:  # not installed (running from a checkout)
        return None


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def state_digest(state) -> str | None:
    """SHA-256 of the state's `to_dict()` as canonical JSON; None if the state has no to_dict."""
    to_dict = getattr(state, "to_dict", None)
    if to_dict is None:
        return None
    blob = json.dumps(_jsonable(to_dict()), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def seat_scores(state) -> list[float] | None:
    """Final game score of each seat, if the game defines one.

    Uses `state.final_scores()` (per seat) when the rules core has it; for cores that score
    colours (Fae: `final_colour_scores()` and `colours`), each seat's colour's score; else None.
    """
    if hasattr(state, "final_scores"):
        return [float(v) for v in state.final_scores()]
    if hasattr(state, "final_colour_scores") and hasattr(state, "colours"):
        final = state.final_colour_scores()
        return [float(final[c]) for c in state.colours]
    return None


def _env_version(env_id: str) -> int | None:
    head, sep, tail = env_id.rpartition("_v")
    return int(tail) if sep and tail.isdigit() else None


def make_record(spec, *, num_players: int, seed: int, rule_options: dict | None, actions: Iterable[int],
                final_state=None, agents: list[str] | None = None, **extra) -> dict:
    """Build a record for a game of `spec` (a `GameSpec`). `final_state` fills the outcome fields."""
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"a record needs an int seed to be replayable; got {seed!r}")
    rec = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": spec.name,
        "env_id": spec.env_id,
        "env_version": _env_version(spec.env_id),
        "package_version": package_version(),
        "num_players": int(num_players),
        "options": _jsonable(dict(rule_options or {})),
        "seed": int(seed),
        "actions": [int(a) for a in actions],
    }
    if final_state is not None:
        rec["returns"] = [float(r) for r in np.asarray(final_state.returns())]
        rec["winners"] = [int(w) for w in final_state.winners()]
        rec["scores"] = seat_scores(final_state)
        rec["final_state_sha256"] = state_digest(final_state)
    if agents is not None:
        if len(agents) != num_players:
            raise ValueError(f"agents lists {len(agents)} names for {num_players} seats")
        rec["agents"] = [str(a) for a in agents]
    rec.update(_jsonable(extra))
    return rec


def write_records(path: str | os.PathLike, records: Iterable[dict], append: bool = False) -> int:
    """Write records as JSONL (one per line); returns how many were written."""
    n = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(_jsonable(rec), separators=(",", ":")) + "\n")
            n += 1
    return n


def append_record(path: str | os.PathLike, record: dict) -> None:
    write_records(path, [record], append=True)


def read_records(path: str | os.PathLike) -> Iterator[dict]:
    """Yield the records of a JSONL file; a bad line raises ValueError naming the line number."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not a JSON record ({exc})") from None
            if not isinstance(rec, dict):
                raise ValueError(f"{path}:{lineno}: a record must be a JSON object, got {type(rec).__name__}")
            yield rec


def _check(record: dict) -> None:
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a dict; got {type(record).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        raise ValueError(f"record is missing {missing} (required: {list(REQUIRED_KEYS)})")
    if record["format"] != FORMAT:
        raise ValueError(f"record format is {record['format']!r}, expected {FORMAT!r}")
    if record["format_version"] != FORMAT_VERSION:
        raise ValueError(f"record format_version {record['format_version']!r} is not supported "
                         f"(this code reads {FORMAT_VERSION})")


def _spec_for(record: dict):
    from tabletop_rl.envs.registry import get_game

    spec = get_game(record["game"])
    if spec.env_id != record["env_id"]:
        raise ReplayError(f"record was made with env {record['env_id']!r}; this suite has {spec.env_id!r}")
    return spec


def replay(record: dict, check: bool = True) -> list:
    """Every state of the recorded game: `states[0]` is the deal, `states[i+1]` follows action i.

    With `check` (default) the recorded returns, winners and final-state digest must match; a
    mismatch, or an action the rules reject, raises `ReplayError` naming it.
    """
    _check(record)
    spec = _spec_for(record)
    unknown = sorted(set(record["options"]) - set(spec.rule_options))
    if unknown:
        raise ReplayError(f"record options {unknown} are not rule options of {spec.name} ({list(spec.rule_options)})")
    state = spec.new_state(num_players=record["num_players"], seed=record["seed"], **record["options"])
    states = [state.clone()]
    for i, a in enumerate(record["actions"]):
        try:
            state.apply(int(a))
        except ValueError as exc:
            raise ReplayError(f"action {i} ({a}) cannot be replayed: {exc}") from None
        states.append(state.clone())
    if check and record.get("ended", "terminal") == "terminal" and "returns" in record:
        if not state.is_terminal():
            raise ReplayError(f"after {len(record['actions'])} actions the game is not over")
        got = [float(r) for r in np.asarray(state.returns())]
        if not np.allclose(got, record["returns"]):
            raise ReplayError(f"returns {got} differ from the recorded {record['returns']}")
        if "winners" in record and list(state.winners()) != list(record["winners"]):
            raise ReplayError(f"winners {list(state.winners())} differ from the recorded {record['winners']}")
        want = record.get("final_state_sha256")
        if want is not None and state_digest(state) != want:
            raise ReplayError("the final state differs from the recorded one (final_state_sha256)")
    return states


def transitions(record: dict, **observation_options) -> Iterator[dict]:
    """Offline-RL view of a record: for each action, the acting seat's observation, mask and action."""
    spec = _spec_for(record)
    states = replay(record)
    for state, action in zip(states, record["actions"]):
        seat = state.current_player
        yield {"seat": seat, "observation": spec.observe(state, seat, **observation_options),
               "action_mask": spec.action_mask(state, seat), "action": int(action)}
