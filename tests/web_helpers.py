"""Inputs of the issue-24 red team against the web app and the records, shared by
tests/test_web_security.py, tests/test_records.py and benchmarks/redteam_web.py."""
from __future__ import annotations

import base64
import json
import pickle
import zipfile

import numpy as np

from tabletop_rl.agents.records import make_record
from tabletop_rl.envs.registry import get_game

__all__ = ["evil_sb3_zip", "looping_record", "deep_json", "EVIL_ORIGIN"]

EVIL_ORIGIN = "http://evil.example"


class _CreatesMarker:
    """Unpickling this calls open(marker, "w"): the marker file appears iff the pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def evil_sb3_zip(path, marker) -> None:
    """The red team's model.zip: SB3's `data` entry with a cloudpickled `lr_schedule` that creates
    `marker` when SB3 unpickles it (`MaskablePPO.load`, reached by `trust_pickle=True`)."""
    data = {"lr_schedule": {":type:": "<class 'function'>",
                            ":serialized:": base64.b64encode(pickle.dumps(_CreatesMarker(marker))).decode()}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.3.0")


def looping_record(loops: int, seed: int = 0) -> dict:
    """A valid Fantastiqa record (ended "truncated") whose turn goes VISIT_STATUE, CANCEL `loops`
    times: 2 * loops + a few actions, each state legal, all but the last equal to an earlier one.
    Played under turn_loops="allow" (Q-T2's unbounded reading, offered for human play): the default
    rules end the loop after 3 CANCELs, but the record bounds must hold for any rules."""
    spec = get_game("fantastiqa")
    options = {"turn_loops": "allow"}
    state = spec.new_state(num_players=2, seed=seed, **options)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    for _ in range(5000):
        legal = [int(a) for a in state.legal_actions()]
        visit = [a for a in legal if state.action_to_string(a) == "VISIT_STATUE"]
        if visit:
            probe = state.clone()
            probe.apply(visit[0])
            cancel = [int(a) for a in probe.legal_actions() if probe.action_to_string(int(a)) == "CANCEL"]
            if cancel:
                for _ in range(loops):
                    state.apply(visit[0])
                    state.apply(cancel[0])
                actions += [visit[0], cancel[0]] * loops
                return make_record(spec, num_players=2, seed=seed, rule_options=options, actions=actions,
                                   final_state=state)
        a = legal[rng.integers(len(legal))]
        state.apply(a)
        actions.append(a)
    raise RuntimeError("no VISIT_STATUE / CANCEL loop met")


def deep_json(depth: int) -> bytes:
    """A JSON array nested `depth` deep."""
    return b"[" * depth + b"]" * depth
