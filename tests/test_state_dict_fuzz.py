"""Mutation fuzzing of the state dicts (issue 14): `to_dict()` output of positions from random
games, mutated at a random place (a value replaced by another of any JSON type, a key or list
entry deleted or added, two entries swapped), either loads into a state that round-trips and
plays on, or raises a ValueError naming the key; never a later IndexError/KeyError/TypeError."""
from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from fae_rl import FaeState
from fantastiqa_rl.state import FantastiqaState

NAMED = re.compile(r"^from_dict: (key '[^']+'|missing key|unknown key|expected a dict)")


def _positions(game, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        if game == "fae":
            s = FaeState.new(int(rng.integers(2, 5)), seed=int(rng.integers(1 << 30)))
        else:
            opts = [{}, {"abbey": True}, {"teams": True}, {"bought_to": "hand"}][k % 4]
            s = FantastiqaState.new(num_players=4 if opts.get("teams") else int(rng.integers(2, 5)),
                                    seed=int(rng.integers(1 << 30)), **opts)
        for _ in range(int(rng.integers(0, 400))):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
        out.append(json.loads(json.dumps(s.to_dict())))
    return out


def _paths(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


def _replacement(rng, old):
    choices = [None, True, False, -1, 0, 1, 2, 7, 10 ** 9, -(10 ** 9), 0.5, "x", "", [], {}, [0], {"a": 1}]
    if isinstance(old, int) and not isinstance(old, bool):
        choices += [old + 1, old - 1, float(old), str(old), old + 1000]
    if isinstance(old, list) and old:
        choices += [old[:-1], old + old[-1:], old[::-1]]
    return copy.deepcopy(choices[int(rng.integers(len(choices)))])


def _mutate(d, rng):
    """A copy of d with one random mutation; returns (mutated dict, description)."""
    d = copy.deepcopy(d)
    paths = [p for p, _ in _paths(d) if p]
    path = paths[int(rng.integers(len(paths)))]
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    kind = ["replace", "replace", "replace", "delete", "add", "swap"][int(rng.integers(6))]
    if kind == "delete":
        del parent[key]
    elif kind == "add":
        if isinstance(parent, dict):
            parent["unexpected"] = 1
        else:
            parent.insert(int(key), copy.deepcopy(parent[key]))
    elif kind == "swap" and isinstance(parent, list) and len(parent) > 1:
        j = int(rng.integers(len(parent)))
        parent[key], parent[j] = parent[j], parent[key]
    else:
        parent[key] = _replacement(rng, parent[key])
    return d, f"{kind} at {'/'.join(map(str, path))}"


def _plays_on(cls, state, rng, steps=40):
    again = cls.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.to_dict() == state.to_dict()
    for _ in range(steps):
        if state.is_terminal():
            return
        legal = state.legal_actions()
        assert legal.size > 0
        state.apply(int(rng.choice(legal)))
        state.to_dict()


@pytest.mark.parametrize("game,cls,positions,mutations", [("fae", FaeState, 12, 40),
                                                           ("fantastiqa", FantastiqaState, 8, 40)])
def test_mutated_state_dicts_load_validly_or_name_the_key(game, cls, positions, mutations):
    rng = np.random.default_rng(14)
    loaded = rejected = 0
    for d in _positions(game, positions, seed=len(game)):
        for _ in range(mutations):
            bad, what = _mutate(d, rng)
            try:
                state = cls.from_dict(bad)
            except ValueError as exc:
                assert NAMED.match(str(exc)), f"{what}: {exc}"
                rejected += 1
                continue
            _plays_on(cls, state, rng)  # any IndexError/KeyError/TypeError here fails the test
            loaded += 1
    assert rejected + loaded == positions * mutations
    assert rejected > loaded, (rejected, loaded)  # almost every mutation breaks something


def test_fantastiqa_from_dict_names_each_problem():
    """The red-team cases: each a ValueError naming the key path (Q-S, Q-X1 supplies)."""
    s = FantastiqaState.new(num_players=2, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        s.apply(int(rng.choice(s.legal_actions())))
    d = json.loads(json.dumps(s.to_dict()))
    hand0 = d["players"][0]["hand"] or d["players"][0]["deck"]
    cases = [
        (lambda e: e["players"][0].__setitem__("hand", [99999]), r"players\[0\]\.hand\[0\].*in 0\.\."),
        (lambda e: e["players"][1]["hand"].append(hand0[0]), r"players\[1\]\.hand\[\d+\].*also at"),
        (lambda e: e["players"][0].__setitem__("gems", -1), r"players\[0\]\.gems"),
        (lambda e: e["players"][0].__setitem__("gems", 10 ** 6), r"supply\.gems.*add up"),
        (lambda e: e.__setitem__("num_players", 3), r"key 'players'"),
        (lambda e: e.__setitem__("version", 99), r"key 'version'"),
        (lambda e: e.__setitem__("extra", 1), r"key 'extra'.*unknown"),
        (lambda e: e["turn"].__setitem__("extra", 1), r"turn\.extra"),
        (lambda e: e.__setitem__("phase", "NAPPING"), r"key 'phase'"),
        (lambda e: e.__setitem__("winners", [0]), r"key 'winners'"),
        (lambda e: e.__setitem__("current", 2), r"key 'current'"),
        (lambda e: e["turn"].__setitem__("ret", "TERMINAL"), r"turn\.ret"),
        (lambda e: e["rng"][3].__setitem__("bit_generator", "MT19937"), r"rng\[3\]"),
        (lambda e: e["supply"].__setitem__("carpets", e["supply"]["carpets"] + 1), r"supply\.carpets"),
        (lambda e: e.__setitem__("box", e["box"][:-1]), r"key 'box'.*nowhere"),
        (lambda e: e.__setitem__("board_gems", [1] * 7), r"board_gems|supply\.gems"),
        (lambda e: e["options"].__setitem__("abbey", "yes"), r"key 'options'"),
    ]
    for mutate, pattern in cases:
        e = copy.deepcopy(d)
        mutate(e)
        with pytest.raises(ValueError, match=pattern):
            FantastiqaState.from_dict(e)
    assert FantastiqaState.from_dict(d).to_dict() == s.to_dict()


# ------------------------------------------------------------------ every reached state round-trips (issue 36, item 4)
ROUND_TRIP_EVERY = 25
FANTASTIQA_OPTION_SETS = [
    (2, {}), (3, {"abbey": True}), (4, {"teams": True}), (4, {"teams": True, "abbey": True}),
    (2, {"card_use": "both", "turn_loops": "allow", "mark_return": "allow"}),
    (3, {"bought_to": "hand", "draw_rule": "draw_5", "adventure_path": "loops", "fly_in_adventure": False}),
    (4, {"abbey": True, "card_use": "both", "goal": "long"}),
    (2, {"abbey": True, "teams": False, "turn_loops": "allow", "bought_to": "hand"}),
]


def _round_trip(cls, state):
    d = state.to_dict()
    again = cls.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    assert np.array_equal(again.legal_actions(), state.legal_actions())


def _doubled_card_left_the_hand(s) -> bool:
    """Fantastiqa: a card doubled this turn is no longer in the mover's hand (paid, played, released,
    given, ...): rare states (a few in a thousand), each round-tripped as well."""
    return isinstance(s, FantastiqaState) and any(i not in s.hand[s.cur] for i in s.boosted)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_every_reached_state_round_trips(game):
    """Random games played to the end (Fantastiqa: every option set, the Abbey and teams among
    them); every ROUND_TRIP_EVERY steps (offset per game, so every stage of a game is sampled) the
    state goes through to_dict, JSON and from_dict and comes back equal (Fantastiqa: also every state
    whose doubled card has left the hand). from_dict refused some
    states that play reaches (a doubled card released or given away), so a learner checkpoint or an
    env snapshot of such a game could not be restored."""
    cls = FaeState if game == "fae" else FantastiqaState
    trips = 0
    games = range(300) if game == "fae" else range(len(FANTASTIQA_OPTION_SETS) * 2)
    for k in games:
        rng = np.random.default_rng(3600 + k)
        if game == "fae":
            s = FaeState.new(2 + k % 3, seed=k, big_stack_merge=k % 4 == 0)
        else:
            n, opts = FANTASTIQA_OPTION_SETS[k % len(FANTASTIQA_OPTION_SETS)]
            opts = {"goal": "short", **opts}
            s = FantastiqaState.new(n, seed=k, **opts)
        step = k % ROUND_TRIP_EVERY
        while True:
            if step % ROUND_TRIP_EVERY == 0 or s.is_terminal() or _doubled_card_left_the_hand(s):
                _round_trip(cls, s)
                trips += 1
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
            step += 1
    assert trips > (600 if game == "fae" else 1000), trips
