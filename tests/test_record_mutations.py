"""Tampering with game records (issue 14): reference records of every ending (a terminal Fae game,
an illegal-action ending, truncated Fae and Fantastiqa episodes) are mutated field by field (each
field changed, types included), action by action (deleted, inserted, reordered) and byte by byte
(a line truncated, bytes corrupted), well over 200 mutations. Every mutation that changes what a
record says raises a ReplayError naming the file and line (and the field, when the line parses);
only the unverifiable labels (agents, meta, package_version, rewards) may change unnoticed, the
observation options may be left out (an older record's form), and
other actions that reach the very same final position and outcome (a consistent record)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_rl.agents import make_agent
from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.records import ReplayError, read_records, replay, write_records
from tabletop_rl.agents.recording import RecordEpisodes, make_recorded

LABELS = {"agents", "meta", "package_version", "rewards"}


def _random_episode(env, seed, steps=None):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for k, _ in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.fixture(scope="module")
def references(fae_spec):
    res = play_game(fae_spec, [make_agent("fae", "random", seed=1), make_agent("fae", "greedy", seed=2)], seed=7)
    terminal = res.to_record(fae_spec, agents=["random", "greedy"], meta={"note": "reference"})
    got = []
    env = RecordEpisodes(fae_spec.env(num_players=3), sink=got.append)
    env.reset(seed=3)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))  # illegal
    illegal = got[0]
    q = make_recorded("fantastiqa_v1", sink=got.append, num_players=2, max_turns=2)
    _random_episode(q, 11)
    fantastiqa_truncated = got[1]
    assert (terminal["ended"], illegal["ended"], fantastiqa_truncated["ended"]) == (
        "terminal", "illegal_action", "truncated")
    return {"fae terminal": terminal, "fae illegal": illegal, "fantastiqa truncated": fantastiqa_truncated}


def _other_values(value):
    """Replacements of a field's value: other values and other types of the same meaning."""
    out = [None, "x", [], {}, True]
    if isinstance(value, bool):
        out += [not value, int(value)]
    elif isinstance(value, int):
        out += [value + 1, value - 1, float(value) + 0.5, str(value), float(value) if value else 1.5, -value - 1]
    elif isinstance(value, float):
        out += [value + 0.25, -value - 1, str(value), int(value) + 2]
    elif isinstance(value, str):
        out += [value + "x", value.upper() if value.upper() != value else value.lower() + "_", 0]
    elif isinstance(value, list):
        out += [value[:-1], value + value[-1:], value[::-1], [str(x) for x in value], [None] * len(value)]
    elif isinstance(value, dict):
        out += [{**value, "unexpected": 1}, {k: v for k, v in list(value.items())[1:]}]
    return [v for v in out if v != value or type(v) is not type(value)]


def _mutations(rec):
    """(description, mutated record or None, raw line bytes or None, changes meaning?)"""
    rng = np.random.default_rng(len(rec["actions"]))
    for key, value in rec.items():
        for new in _other_values(value):
            # options: leaving out an option at its default value says the same thing
            # another action that is illegal there too cannot be told from the offending one
            kind = {"options": "actions", "illegal_action": "illegal"}.get(key, key not in LABELS)
            yield f"{key}={new!r}", dict(rec, **{key: new}), None, kind
        # without observation_options a record reads as an older one (every seat on the defaults)
        yield f"delete {key}", {k: v for k, v in rec.items() if k != key}, None, key not in LABELS | {
            "ended", "observation_options"} or (key == "ended" and rec["ended"] != "terminal")
    yield "unknown field", dict(rec, extra=1), None, True
    acts = rec["actions"]
    for i in sorted(set(rng.integers(len(acts), size=8).tolist())):
        yield f"delete action {i}", dict(rec, actions=acts[:i] + acts[i + 1:]), None, "actions"
        yield f"insert action at {i}", dict(rec, actions=acts[:i] + [acts[i]] + acts[i:]), None, "actions"
        yield f"insert 0 at {i}", dict(rec, actions=acts[:i] + [0] + acts[i:]), None, "actions"
        j = int(rng.integers(len(acts)))
        if acts[i] != acts[j]:
            swapped = list(acts)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            yield f"swap actions {i},{j}", dict(rec, actions=swapped), None, "actions"
    yield "delete two thirds of the actions", dict(rec, actions=acts[: len(acts) // 3]), None, "actions"
    yield "actions reversed", dict(rec, actions=acts[::-1]), None, "actions"
    line = json.dumps(rec, separators=(",", ":")).encode()
    for cut in sorted(set(rng.integers(1, len(line), size=6).tolist())):
        yield f"line truncated at {cut}", None, line[:cut], True
    for pos in sorted(set(rng.integers(0, len(line), size=12).tolist())):
        for byte in (0xFF, ord("9"), ord('"')):
            if line[pos] != byte:
                yield f"byte {pos} -> {byte:#x}", None, line[:pos] + bytes([byte]) + line[pos + 1:], None


def test_every_meaningful_mutation_of_a_record_is_a_replay_error(references, tmp_path):
    path = tmp_path / "r.jsonl"
    total = caught = alternatives = 0
    for name, rec in references.items():
        write_records(path, [rec])
        replay(next(read_records(path)))  # the reference itself replays
        for what, bad, raw, meaningful in _mutations(rec):
            if raw is None:
                path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
            else:
                path.write_bytes(raw + b"\n")
            total += 1
            try:
                for r in read_records(path):
                    replay(r)
            except ReplayError as exc:
                caught += 1
                assert str(exc).startswith(f"{path}:1:"), f"{name}, {what}: {exc}"
                continue
            except Exception as exc:  # anything else is a bug: a bare TypeError, KeyError, ...
                pytest.fail(f"{name}, {what}: {type(exc).__name__}: {exc}")
            if meaningful == "actions":
                # Other actions that replay, all legal, to the very same final position and
                # outcome (e.g. two moves of a Fae game in the other order) say the same thing:
                # the record is a consistent record of that game. Anything else must have failed.
                final = replay(rec)[-1].to_dict()
                meaningful = replay(bad)[-1].to_dict() != final
                alternatives += not meaningful
            if meaningful == "illegal":
                final = replay(rec)[-1]
                meaningful = type(bad["illegal_action"]) is not int or bad["illegal_action"] in final.legal_actions()
            if meaningful is None:  # a corrupted byte: accepted only if it changed nothing but labels
                back = next(read_records(path))
                changed = {k for k in set(back) | set(rec) if back.get(k) != rec.get(k)}
                meaningful = bool(changed - LABELS)
            assert not meaningful, f"{name}, {what}: replayed without error"
    assert total >= 200 and caught > 0.8 * total and alternatives <= 10, (total, caught, alternatives)


@pytest.mark.parametrize("field,value,pattern", [
    ("actions", [271.5], r"'actions\[0\]': must be an int"),
    ("actions", ["271"], r"'actions\[0\]': must be an int"),
    ("actions", [None], r"'actions\[0\]': must be an int"),
    ("actions", None, r"'actions': must be a list"),
    ("seed", "123", r"'seed': must be an int"),
    ("env_version", 3, r"'env_version'.*does not match"),
    ("format_version", 2, r"'format_version'.*not supported"),
    ("format_version", "1", r"'format_version'.*not supported"),
])
def test_red_team_record_fields_are_replay_errors(references, tmp_path, field, value, pattern):
    path = tmp_path / "r.jsonl"
    write_records(path, [dict(references["fae terminal"], **{field: value})])
    with pytest.raises(ReplayError, match=f"^{path}:1: field " + pattern):
        replay(next(read_records(path)))


def test_non_utf8_and_non_json_files_are_replay_errors(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": 1}\n{"format": "\xff\xfe"}\n')
    with pytest.raises(ReplayError, match=f"^{path}:2: not UTF-8"):
        list(read_records(path))
    path.write_bytes(b'{"a": NaN}\n')
    with pytest.raises(ReplayError, match=f"^{path}:1: not a JSON record"):
        list(read_records(path))
    path.write_bytes(b'{"a": 1, "a": 2}\n')
    with pytest.raises(ReplayError, match="duplicate key"):
        list(read_records(path))


def test_records_of_every_ending_carry_the_final_digest(references):
    for name, rec in references.items():
        assert isinstance(rec["final_state_sha256"], str) and len(rec["final_state_sha256"]) == 64, name
        forged = dict(rec, final_state_sha256="0" * 64)
        with pytest.raises(ReplayError, match="final_state_sha256"):
            replay(forged)
    illegal = references["fae illegal"]
    with pytest.raises(ReplayError, match="'returns'"):
        replay(dict(illegal, returns=illegal["returns"][::-1] if illegal["returns"][::-1] != illegal["returns"]
                    else [1.0, 0.0, -1.0]))
    with pytest.raises(ReplayError, match="'winners'"):
        replay(dict(illegal, winners=[0]))
    with pytest.raises(ReplayError, match="'illegal_action'.*legal"):
        replay(dict(illegal, illegal_action=replay(illegal)[-1].legal_actions().tolist()[0]))
