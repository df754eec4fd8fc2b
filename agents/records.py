"""Game records: one JSON object per game, one game per line (JSONL), replayable on the rules core.

    from tabletop_rl.agents.records import read_records, replay
    for record in read_records("runs/arena/demo/records.jsonl"):
        states = replay(record)             # every state, from the deal to the end
        print(states[-1])
        for state in replay(record, stream=True):   # the same states, one at a time, none kept
            pass

A record holds what rebuilds the game exactly (env id and version, package version, number of
players, rule options, seed, actions), what each seat observed with (its observation options),
and what it produced (returns, winners, seat scores, a
SHA-256 digest of the final state's `to_dict()`), plus optional labels (the bot on each seat).
The deal, and in games with chance every chance event, comes from `seed` inside the rules core's
`new_state`, so seed + actions determine every state. `replay` checks every field, then the
outcome (digest, returns, winners, scores) whatever ended the game, and raises `ReplayError`
naming the first problem, so a record doubles as a regression
test, a bug report and offline-RL data (`transitions(record)` yields observation, mask, action,
each observation made with the options the acting seat played with).

Fields (format_version 1): format, format_version, game, env_id, env_version, package_version,
num_players, options (rule options), observation_options (one object per seat: the observation
options that seat's observations were made with, every option of the game written out; absent in
older records, which then mean the defaults), seed, actions, returns, winners, scores (`GameState.seat_scores`),
final_state_sha256, ended ("terminal", "illegal_action" or "truncated"; absent means terminal), and optionally agents
(per seat), illegal_action (with ended "illegal_action"), rewards (env rewards summed, from
`tabletop_rl.agents.recording`), meta. Every record carries the digest of its final state, whatever
ended the game. Returns are the game's outcome: the rules' returns at a terminal state; -1 for the
seat that made the illegal action and 0 for the others; 0 for every seat of a truncated game.

Files from others are data, never code: `read_records` parses JSON only, and `replay` checks
every field (types included) against the rules; every failure is a `ReplayError` naming the
file, the line and the field. Labels (agents, meta, package_version, rewards) are type-checked
but cannot be verified; observation_options are checked against the game's options and values,
but which ones a seat really observed with cannot be verified either. A record's length is bounded too: `replay` refuses one with more than
`max_steps` actions (default MAX_REPLAY_STEPS) before replaying anything, since a short file can
hold a long legal game (under Fantastiqa's `turn_loops="allow"`, a turn that loops VISIT_STATUE /
CANCEL 100,000 times is valid).
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import reprlib
from typing import Any, Iterable, Iterator

import numpy as np

from tabletop_rl.envs.game_state import GameState

FORMAT = "tabletop-rl/game-record"
FORMAT_VERSION = 1
REQUIRED_KEYS = ("format", "format_version", "game", "env_id", "env_version", "num_players", "options", "seed",
                 "actions", "returns")

__all__ = [
    "FORMAT", "FORMAT_VERSION", "ReplayError", "make_record", "state_digest", "seat_scores", "write_records",
    "append_record", "read_records", "replay", "MAX_REPLAY_STEPS", "validate_record", "check_setup", "transitions",
    "package_version", "Record",
]


class ReplayError(ValueError):
    """A record is malformed or does not replay to what it says; the message names the file and line
    (records from `read_records`) and the field."""


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


def state_digest(state: GameState) -> str:
    """SHA-256 of the state's `to_dict()` as canonical JSON."""
    blob = json.dumps(_jsonable(state.to_dict()), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def seat_scores(state: GameState) -> list[float]:
    """Final game score of each seat: `state.seat_scores()` (`GameState`; Fae: each seat's colour's
    final score, Fantastiqa: `final_scores()`), as plain floats."""
    return [float(v) for v in state.seat_scores()]


def _env_version(env_id: str) -> int | None:
    head, sep, tail = env_id.rpartition("_v")
    return int(tail) if sep and tail.isascii() and tail.isdigit() else None


def observation_defaults(spec) -> dict:
    """The default value of each of `spec`'s observation options (from its `observe` signature)."""
    params = inspect.signature(spec.observe).parameters
    return {k: params[k].default for k in spec.observation_options
            if k in params and params[k].default is not inspect.Parameter.empty}


def seat_observation_options(spec, num_players: int, observation_options=None) -> list[dict]:
    """One dict per seat of every observation option of `spec`, defaults filled in: what a record
    stores. `observation_options` is one dict for every seat, a list with one per seat, or None."""
    per_seat = observation_options if isinstance(observation_options, (list, tuple)) else \
        [observation_options] * num_players
    if len(per_seat) != num_players:
        raise ValueError(f"observation_options lists {len(per_seat)} seats for {num_players}")
    out = []
    for opts in per_seat:
        opts = dict(opts or {})
        unknown = sorted(set(opts) - set(spec.observation_options), key=str)
        if unknown:
            raise ValueError(f"{unknown} are not observation options of {spec.name} ({list(spec.observation_options)})")
        out.append(_jsonable({**observation_defaults(spec), **opts}))
    return out


def make_record(spec, *, num_players: int, seed: int, rule_options: dict | None, actions: Iterable[int],
                final_state: GameState | None = None, agents: list[str] | None = None,
                observation_options: dict | list[dict] | None = None, **extra) -> dict:
    """Build a record for a game of `spec` (a `GameSpec`). `final_state` fills the outcome fields.
    `observation_options`: one dict for every seat or a list with one per seat (None: the defaults)."""
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
        "observation_options": seat_observation_options(spec, int(num_players), observation_options),
        "seed": int(seed),
        "actions": [int(a) for a in actions],
    }
    if final_state is not None:
        # the outcome, whatever ended the game (ended: "terminal", "illegal_action" or "truncated")
        ended = extra.pop("ended", "terminal" if final_state.is_terminal() else "truncated")
        if ended not in ENDINGS:
            raise ValueError(f"ended must be one of {list(ENDINGS)}; got {ended!r}")
        rec["returns"] = _outcome_returns(final_state, ended, int(num_players))
        rec["winners"] = [int(w) for w in final_state.winners()] if ended == "terminal" else []
        rec["scores"] = seat_scores(final_state)
        rec["final_state_sha256"] = state_digest(final_state)
        rec["ended"] = ended
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


MAX_LINE_BYTES = 64 << 20  # a longer line is refused before parsing
ENDINGS = ("terminal", "illegal_action", "truncated")
_OPTIONAL_KEYS = ("observation_options", "package_version", "winners", "scores", "final_state_sha256", "agents", "ended",
                  "illegal_action", "rewards", "meta")
KNOWN_KEYS = REQUIRED_KEYS + _OPTIONAL_KEYS


class Record(dict):
    """A record read from a file: a plain dict that also knows where it came from (`source`:
    'path:line'), so every ReplayError about it names the file and the line."""

    source: str | None = None


def _where(record) -> str:
    return getattr(record, "source", None) or "<record>"


def _fail(record, field: str | None, problem: str) -> ReplayError:
    return ReplayError(f"{_where(record)}: " + (f"field {field!r}: " if field else "") + problem)


_REPR = reprlib.Repr()
_REPR.maxlist = _REPR.maxdict = _REPR.maxtuple = 6
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlevel = 3


def _short(value) -> str:
    """`repr(value)`, cut short (a field of millions of items is named, never printed whole)."""
    return _REPR.repr(value)


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def read_records(path: str | os.PathLike) -> Iterator[dict]:
    """Yield the records of a JSONL file (as `Record`s, plain dicts that know 'path:line').

    Anything that is not a JSON object per line (bad UTF-8, bad JSON, NaN, duplicate keys, a line
    over MAX_LINE_BYTES) raises ReplayError naming the file and line. The fields are checked by
    `replay` (or `validate_record`), whose errors name the file, line and field too."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with f:
        lineno = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            lineno += 1
            where = f"{path}:{lineno}"
            if len(raw) > MAX_LINE_BYTES:
                raise ReplayError(f"{where}: line longer than {MAX_LINE_BYTES} bytes")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ReplayError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys)
            except (ValueError, RecursionError) as exc:
                raise ReplayError(f"{where}: not a JSON record ({exc})") from None
            if not isinstance(rec, dict):
                raise ReplayError(f"{where}: a record must be a JSON object, got {type(rec).__name__}")
            out = Record(rec)
            out.source = where
            yield out


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x) -> bool:
    return (isinstance(x, (int, float)) and not isinstance(x, bool)) and bool(np.isfinite(x))


def _check(record: dict) -> None:
    """Structure and types of every field (no rules): ReplayError naming file, line and field."""
    if not isinstance(record, dict):
        raise ReplayError(f"a record must be a dict; got {type(record).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        raise _fail(record, missing[0], f"missing (required: {list(REQUIRED_KEYS)})")
    unknown = sorted(set(record) - set(KNOWN_KEYS))
    if unknown:
        raise _fail(record, unknown[0], f"unknown field (format_version {FORMAT_VERSION} has {list(KNOWN_KEYS)})")
    if record["format"] != FORMAT:
        raise _fail(record, "format", f"is {_short(record['format'])}, expected {FORMAT!r}")
    if not _is_int(record["format_version"]) or record["format_version"] != FORMAT_VERSION:
        raise _fail(record, "format_version", f"{_short(record['format_version'])} is not supported "
                                              f"(this code reads {FORMAT_VERSION})")
    for key in ("game", "env_id"):
        if not isinstance(record[key], str):
            raise _fail(record, key, f"must be a string; got {_short(record[key])}")
    n = record["num_players"]
    if not _is_int(n) or not 1 <= n <= 64:
        raise _fail(record, "num_players", f"must be an int; got {_short(n)}")
    if not isinstance(record["options"], dict):
        raise _fail(record, "options", f"must be an object; got {type(record['options']).__name__}")
    for k, v in record["options"].items():
        if v is not None and not isinstance(v, (str, int, float, bool)):
            raise _fail(record, f"options.{k}", f"must be a JSON scalar; got {type(v).__name__}")
    if "observation_options" in record:  # absent in older records (the defaults); present, it is checked
        seat_opts = record["observation_options"]
        if not isinstance(seat_opts, list) or len(seat_opts) != n or not all(isinstance(o, dict) for o in seat_opts):
            raise _fail(record, "observation_options", f"must be a list of {n} objects (one per seat); got {_short(seat_opts)}")
        for seat, opts in enumerate(seat_opts):
            for k, v in opts.items():
                if v is not None and not isinstance(v, (str, int, float, bool)):
                    raise _fail(record, f"observation_options[{seat}].{k}", f"must be a JSON scalar; got {type(v).__name__}")
    if not _is_int(record["seed"]) or record["seed"] < 0:
        raise _fail(record, "seed", f"must be an int >= 0; got {_short(record['seed'])}")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise _fail(record, "actions", f"must be a list of ints; got {type(actions).__name__}")
    for i, a in enumerate(actions):
        if not _is_int(a):
            raise _fail(record, f"actions[{i}]", f"must be an int; got {_short(a)}")
    for key in ("returns", "rewards", "scores"):
        v = record.get(key)
        if v is None and key != "returns":
            continue
        if not isinstance(v, list) or len(v) != n or not all(_is_number(x) for x in v):
            raise _fail(record, key, f"must be a list of {n} finite numbers; got {_short(v)}")
    winners = record.get("winners")
    if winners is not None and (not isinstance(winners, list) or not all(_is_int(w) and 0 <= w < n for w in winners)
                                or len(set(winners)) != len(winners)):
        raise _fail(record, "winners", f"must be a list of distinct seats in 0..{n - 1}; got {_short(winners)}")
    digest = record.get("final_state_sha256")
    if digest is not None and not (isinstance(digest, str) and len(digest) == 64
                                   and all(c in "0123456789abcdef" for c in digest)):
        raise _fail(record, "final_state_sha256", f"must be 64 lowercase hex digits; got {_short(digest)}")
    if not _is_int(record["env_version"]):
        raise _fail(record, "env_version", f"must be an int; got {_short(record['env_version'])}")
    if "package_version" in record and not (record["package_version"] is None
                                            or isinstance(record["package_version"], str)):
        raise _fail(record, "package_version", f"must be a string or null; got {_short(record['package_version'])}")
    agents = record.get("agents")
    if agents is not None and (not isinstance(agents, list) or len(agents) != n
                               or not all(isinstance(a, str) for a in agents)):
        raise _fail(record, "agents", f"must be a list of {n} strings; got {_short(agents)}")
    ended = record.get("ended", "terminal")
    if ended not in ENDINGS:
        raise _fail(record, "ended", f"must be one of {list(ENDINGS)}; got {_short(ended)}")
    if ended == "illegal_action":
        if not _is_int(record.get("illegal_action")):
            raise _fail(record, "illegal_action", f"must be an int when ended is 'illegal_action'; got "
                                                  f"{_short(record.get('illegal_action'))}")
    elif "illegal_action" in record:
        raise _fail(record, "illegal_action", f"only with ended 'illegal_action' (ended is {_short(ended)})")
    if "meta" in record and not isinstance(record["meta"], dict):
        raise _fail(record, "meta", f"must be an object; got {type(record['meta']).__name__}")


def validate_record(record: dict):
    """Every field's type and the game's identity, without replaying; returns the GameSpec."""
    _check(record)
    return _spec_for(record)


def _spec_for(record: dict):
    from tabletop_rl.envs.registry import get_game

    try:
        spec = get_game(record["game"])
    except ValueError as exc:
        raise _fail(record, "game", str(exc)) from None
    if spec.env_id != record["env_id"]:
        raise _fail(record, "env_id", f"record was made with env {_short(record['env_id'])}; "
                                      f"this suite has {spec.env_id!r}")
    if record["env_version"] != _env_version(spec.env_id):
        raise _fail(record, "env_version", f"{_short(record['env_version'])} does not match env {spec.env_id!r} "
                                           f"(version {_env_version(spec.env_id)})")
    if not spec.min_players <= record["num_players"] <= spec.max_players:
        raise _fail(record, "num_players", f"{spec.name} takes {spec.min_players}..{spec.max_players}; "
                                           f"got {record['num_players']}")
    unknown = sorted(set(record["options"]) - set(spec.rule_options))
    if unknown:
        raise _fail(record, "options", f"{unknown} are not rule options of {spec.name} ({list(spec.rule_options)})")
    for seat, opts in enumerate(record.get("observation_options") or []):
        unknown = sorted(set(opts) - set(spec.observation_options))
        if unknown:
            raise _fail(record, f"observation_options[{seat}]", f"{unknown} are not observation options of "
                                                                f"{spec.name} ({list(spec.observation_options)})")
    return spec


def _outcome_returns(state, ended: str, n: int) -> list[float]:
    """What a record's `returns` must be: the game's returns; after an illegal action -1 for the
    offender (the seat to move) and 0 for the others (as the protected env pays); truncated: 0."""
    if ended == "terminal":
        return [float(r) for r in np.asarray(state.returns())]
    if ended == "illegal_action":
        return [-1.0 if p == state.current_player else 0.0 for p in range(n)]
    return [0.0] * n


#: Actions `replay` replays at most unless told otherwise (`max_steps=None`: no budget, for
#: records you made). Real games are far shorter (Fae about 40 actions, Fantastiqa under 2,000);
#: keeping every state of 50,000 Fantastiqa steps costs about 0.4 GB, so the budget bounds the
#: memory of `replay` and the time of both modes.
MAX_REPLAY_STEPS = 50_000


def replay(record: dict, check: bool = True, *, max_steps: int | None = MAX_REPLAY_STEPS, stream: bool = False):
    """Every state of the recorded game: `states[0]` is the deal, `states[i+1]` follows action i.

    Every field is checked first (types included); with `check` (default) so is the outcome,
    whatever ended the game: the final state's digest, the returns (see `_outcome_returns`),
    winners and scores; terminal records must end the game, illegal_action records must name an
    action the rules reject there, truncated ones must not be over. Every failure raises
    `ReplayError` naming the file and line (for records from `read_records`) and the field.

    `max_steps` is a step budget: a record with more actions is refused (ReplayError) before
    anything is replayed. `stream=True` keeps no state: it returns an iterator over the same
    states, each the one live state (the next step changes it: `clone()` one to keep it), and
    the outcome checks run when the iterator is exhausted (its last `next` raises ReplayError).
    """
    for name, flag in (("check", check), ("stream", stream)):
        if not isinstance(flag, bool):
            raise ValueError(f"replay: {name} must be True or False; got {flag!r}")
    if max_steps is not None and (not _is_int(max_steps) or max_steps < 0):
        raise ValueError(f"replay: max_steps must be an int >= 0 or None; got {max_steps!r}")
    states = _replay_stream(record, check, max_steps)
    if stream is True:
        return states
    return [s.clone() for s in states]


def _replay_stream(record: dict, check: bool, max_steps: int | None) -> Iterator:
    spec = validate_record(record)
    if max_steps is not None and len(record["actions"]) > max_steps:
        raise _fail(record, "actions", f"{len(record['actions'])} actions exceed the replay budget of "
                                       f"{max_steps} steps (max_steps)")
    return _replayed_states(record, spec, check)


def check_setup(record: dict, seed: int | None = None) -> tuple:
    """What `replay` checks before it replays an action, without replaying one: every field's type
    and the game's identity (`validate_record`), the rules take the options (they deal the game,
    from `seed`, default the record's) and the observation takes each seat's observation options.
    Returns (GameSpec, the deal); ReplayError names the file, line and field. The web app runs it
    on every uploaded record before it keeps one."""
    spec = validate_record(record)
    return spec, _first_state(record, spec, record["seed"] if seed is None else seed)


def _first_state(record: dict, spec, seed: int):
    n = record["num_players"]
    try:
        state = spec.new_state(num_players=n, seed=seed, **record["options"])
    except ValueError as exc:
        raise _fail(record, "options", f"rejected by the rules: {exc}") from None
    for seat, opts in enumerate(record.get("observation_options", [])):
        try:  # a value the observation refuses (it cannot check which options a seat really used)
            spec.observe(state, seat, **opts)
        except (ValueError, TypeError) as exc:
            raise _fail(record, f"observation_options[{seat}]", f"rejected by the observation: {exc}") from None
    return state


def _replayed_states(record: dict, spec, check: bool) -> Iterator:
    state = _first_state(record, spec, record["seed"])
    yield state
    for i, a in enumerate(record["actions"]):
        try:
            state.apply(a)
        except ValueError as exc:
            raise _fail(record, f"actions[{i}]", f"action {a} cannot be replayed: {exc}") from None
        yield state
    if check is True:
        _check_outcome(record, state)


def _check_outcome(record: dict, state) -> None:
    """The final state against the record's outcome fields (see `replay`)."""
    n = record["num_players"]
    ended = record.get("ended", "terminal")
    if ended == "terminal" and not state.is_terminal():
        raise _fail(record, "actions", f"after {len(record['actions'])} actions the game is not over "
                                       "(ended is 'terminal')")
    if ended != "terminal" and state.is_terminal():
        raise _fail(record, "ended", f"is {ended!r} but the game is over after {len(record['actions'])} actions")
    if ended == "illegal_action":
        bad = record["illegal_action"]
        if bad in set(int(x) for x in state.legal_actions()):
            raise _fail(record, "illegal_action", f"{bad} is legal at the end of the recorded actions")
    want_digest = state_digest(state)
    if record.get("final_state_sha256") is None:
        raise _fail(record, "final_state_sha256", "missing: every record carries its final state digest")
    if record["final_state_sha256"] != want_digest:
        raise _fail(record, "final_state_sha256", "the final state differs from the recorded one")
    got = _outcome_returns(state, ended, n)
    if got != [float(x) for x in record["returns"]]:
        raise _fail(record, "returns", f"{got} differ from the recorded {record['returns']}")
    winners = [int(w) for w in state.winners()] if ended == "terminal" else []
    if "winners" not in record or record["winners"] != winners:
        raise _fail(record, "winners", f"{winners} differ from the recorded {record.get('winners')}")
    scores = seat_scores(state)
    if record.get("scores") != scores:
        raise _fail(record, "scores", f"{scores} differ from the recorded {record.get('scores')}")


def transitions(record: dict, **observation_options) -> Iterator[dict]:
    """Offline-RL view of a record: for each action, the acting seat's observation, mask and action.

    Each observation is made with the observation options the acting seat played with (the
    record's `observation_options`; the defaults for older records without them), so a policy
    gets the width it saw; keyword arguments override them for every seat."""
    spec = validate_record(record)
    for _ in replay(record, stream=True):  # the whole record checks out before any transition
        pass
    seat_opts = [{**opts, **observation_options}
                 for opts in record.get("observation_options", [{}] * record["num_players"])]
    for state, action in zip(replay(record, False, stream=True), record["actions"]):
        seat = state.current_player
        yield {"seat": seat, "observation": spec.observe(state, seat, **seat_opts[seat]),
               "action_mask": spec.action_mask(state, seat), "action": int(action)}
