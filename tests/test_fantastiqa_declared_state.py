"""The declared state of FantastiqaState (issue 38 item 2): `fantastiqa_rl.state_fields.FIELDS`
names every instance field, and only those, with its kind (how clone copies it), owner, state-dict
key and meaning.

Random games (2, 3 and 4 seats, teams, the Abbey, a generated card file) are played to the end with clones,
state-dict round trips, determinizations and the batched engine's unpacked states along the way;
every state reached must carry exactly the declared fields. A control shows the check fails on an
undeclared field and on a declared one left unset."""
import json

import numpy as np
import pytest

from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import state as state_module
from fantastiqa_rl import state_fields as SF

GAMES = [  # (num_players, seed, options)
    (2, 0, {}), (3, 1, {}), (4, 2, {}),
    (4, 3, {"teams": True}),
    (2, 4, {"abbey": True}), (3, 5, {"abbey": True}),
    (4, 6, {"teams": True, "abbey": True}),
    (2, 7, {"card_set": "generated:3"}), (3, 8, {"card_set": "generated:3"}),
    (2, 9, dict(fly_in_adventure=True, card_use="both", adventure_path="loops", bought_to="hand",
                draw_rule="draw_5", turn_loops="allow", goal="long")),
]
STEPS = 6000        # random games end by the turn limit (Q-E5) after 2,000-4,000 steps


def undeclared(s) -> str:
    """'' when s's instance attributes are exactly the declared fields, else what differs."""
    have = set(vars(s)) | {a for c in type(s).__mro__ for a in getattr(c, "__slots__", ()) if hasattr(s, a)}
    extra, missing = sorted(have - SF.NAMES), sorted(SF.NAMES - have)
    out = []
    if extra:
        out.append(f"set but not declared in fantastiqa_rl/state_fields.py: {extra}")
    if missing:
        out.append(f"declared but never set: {missing}")
    return "; ".join(out)


SHARED_OBJECTS = {"g", "opts", "_legal"}    # shared containers no rule changes in place


def _check(s, where):
    msg = undeclared(s)
    assert not msg, f"{where}: {msg}"
    for f in SF.FIELDS:                       # a field clone shares must not be a list or dict a rule could change
        if f.kind == SF.SHARED and f.name not in SHARED_OBJECTS:
            assert type(getattr(s, f.name)) in (int, bool, str, tuple, type(None)), f"{where}: {f.name}"


def _round_trip(s):
    return FantastiqaState.from_dict(json.loads(json.dumps(s.to_dict())))


@pytest.mark.parametrize("n,seed,opts", GAMES)
def test_every_reached_state_has_exactly_the_declared_fields(n, seed, opts):
    rng = np.random.default_rng(seed)
    s = FantastiqaState.new(n, seed=seed, **opts)
    _check(s, "new")
    phases = set()
    for step in range(STEPS):
        if s.is_terminal():
            break
        la = s.legal_actions()
        s.apply(int(la[rng.integers(len(la))]))
        phases.add(s.phase_name)
        where = f"{n} seats {opts}, step {step}, {s.phase_name}"
        _check(s, where)
        if step % 7 == 0:
            c = s.clone()
            _check(c, where + " (clone)")
            _check(s, where + " (original after clone)")
            assert c.to_dict() == s.to_dict()
        if step % 23 == 0:
            t = _round_trip(s)
            _check(t, where + " (from_dict)")
            assert t.to_dict() == s.to_dict()
            s = t                                   # play on from the loaded state
        if step % 41 == 0 and not s.is_terminal():
            _check(s.sample_consistent(step % n, np.random.default_rng(step)), where + " (sample_consistent)")
    assert s.is_terminal() and s.winners_ is not None    # the end of the game's fields reached too
    _check(s.clone(), "terminal clone")
    _check(_round_trip(s), "terminal from_dict")
    assert len(phases) > 5, phases


def test_batched_engines_states_have_the_declared_fields():
    """FantastiqaVector builds its states field by field (vector_state.unpack): the same set."""
    from fantastiqa_rl.vector import FantastiqaVector

    v = FantastiqaVector(4, num_players=3, abbey=True)
    v.reset(np.arange(4))
    rng = np.random.default_rng(0)
    for step in range(60):
        m = v.legal_mask()
        v.step(np.argmax(np.where(m, rng.random(m.shape), -1.0), axis=1))
        if step % 20 == 19:
            for i in range(4):
                _check(v.state(i), f"FantastiqaVector.state({i}) after {step + 1} steps")


def test_the_declaration_is_complete_and_drives_clone():
    for f in SF.FIELDS:
        assert f.owner.strip() and f.owner in SF.OWNERS, f
        assert f.meaning.strip(), f
        assert f.kind in SF.KINDS, f
    assert len(SF.NAMES) == len(SF.FIELDS)
    assert all(SF.OWNERS.values())
    # clone copies every mutable container the declaration names, by its kind
    assert state_module._LISTS == SF.names_of(SF.LIST)
    assert state_module._NESTED == SF.names_of(SF.PER_SEAT)
    assert state_module._SEAT_MAPS == SF.names_of(SF.PER_SEAT_MAP)
    s = FantastiqaState.new(3, seed=1, abbey=True)
    for _ in range(40):
        s.apply(int(s.legal_actions()[-1]))
    c = s.clone()
    for f in SF.FIELDS:
        a, b = getattr(s, f.name), getattr(c, f.name)
        if f.kind == SF.SHARED or f.kind == SF.GENERATORS:
            assert a is b, f.name
        elif f.kind in (SF.LIST, SF.PER_SEAT, SF.PER_SEAT_MAP, SF.OWN_FLAGS):
            assert a == b and a is not b, f.name
        if f.kind in (SF.PER_SEAT, SF.PER_SEAT_MAP):
            assert all(x is not y for x, y in zip(a, b)), f.name
    assert not any(s._own) and not any(c._own)


def _dict_keys(d, prefix=""):
    """The leaf keys of a state dict, seats as players[], stopping at the declared keys."""
    out = set()
    for k, v in d.items():
        path = prefix + k
        if k == "players":
            out |= _dict_keys(v[0], "players[].")
        elif isinstance(v, dict) and path not in DECLARED_KEYS:
            out |= _dict_keys(v, path + ".")
        else:
            out.add(path)
    return out


DECLARED_KEYS = {f.key for f in SF.FIELDS if f.key}
ABBEY_KEYS = {f.key for f in SF.FIELDS if f.key and f.name.startswith("abbey_")}


@pytest.mark.parametrize("abbey", [True, False])
def test_state_dict_keys_are_the_declared_keys(abbey):
    s = FantastiqaState.new(4, seed=2, abbey=abbey)
    keys = _dict_keys(s.to_dict())
    assert "version" in keys                 # the format's, not a field's
    expected = DECLARED_KEYS if abbey else DECLARED_KEYS - ABBEY_KEYS
    assert keys - {"version"} == expected
    for f in SF.FIELDS:
        if not f.key:
            assert any(w in f.meaning for w in ("derived", "from ", "cache", "per source")), f


def test_control_the_check_names_a_field_set_but_not_declared_or_never_set(monkeypatch):
    s = FantastiqaState.new(2, seed=0)
    assert undeclared(s) == ""
    s.scratch = 1                           # a mixin setting a field nobody declared
    assert "set but not declared" in undeclared(s) and "scratch" in undeclared(s)
    with pytest.raises(AssertionError, match="scratch"):
        _check(s, "control")
    t = FantastiqaState.new(2, seed=0).clone()
    del t.cancels                           # a declared field no rule sets
    assert "declared but never set: ['cancels']" in undeclared(t)
    monkeypatch.setattr(SF, "NAMES", SF.NAMES | {"ghost"})    # a field declared that no rule sets
    assert undeclared(FantastiqaState.new(2, seed=0)) == "declared but never set: ['ghost']"
