"""Card files: the STAND-IN set's shapes, the loader's validation errors, card_set=PATH."""
import copy
import json
import os
import tomllib

import numpy as np
import pytest

from fantastiqa_rl import STANDIN_PATH, CardFileError, FantastiqaState, load_card_set
from fantastiqa_rl import actions as A
from fantastiqa_rl.cards import parse_card_set
from fantastiqa_rl.data import make_standin
from fantastiqa_rl.game import Game


def raw():
    with open(STANDIN_PATH, "rb") as f:
        return tomllib.load(f)


def test_standin_file_is_labelled_and_generated():
    assert "STAND-IN" in os.path.basename(STANDIN_PATH)
    text = open(STANDIN_PATH).read()
    assert "STAND-IN card set" in text.splitlines()[1]
    assert text == make_standin.build(), "the shipped file equals the generator's output"
    assert load_card_set().name == "STAND-IN"


def test_standin_shapes_follow_the_spec():
    cs = load_card_set()
    by = {}
    for k in cs.kinds:
        by.setdefault(k.type, []).append(k)
    creatures = by["creature"]
    assert sum(k.copies for k in creatures) + sum(k.copies for k in by["raven"]) == 59
    for sec, strength, width in ((1, 1, 1), (2, 2, 1), (3, 3, 2)):
        cs_sec = [k for k in creatures if k.section == sec]
        assert len(cs_sec) == 18
        assert all(k.strength == strength and len(k.symbols) == width for k in cs_sec)
        assert all(k.vulnerability == (k.symbols[0] - 1) % 9 for k in cs_sec)
        assert sum(k.gem for k in cs_sec) == 9
    for n, want in ((2, (18, 18, 9)), (3, (18, 9, 18)), (4, (18, 18, 18))):
        assert tuple(sum(1 for k in creatures if k.section == s and n in k.players) for s in (1, 2, 3)) == want
    assert [(k.section, k.copies, k.players) for k in by["raven"]] == [(2, 1, (2, 3, 4)), (3, 2, (2, 3, 4)), (3, 2, ())]
    assert len(by["beast"]) == 18 and all(k.cost == 3 and len(k.symbols) == 2 for k in by["beast"])
    assert sum(k.copies for k in by["artifact"]) == 24 and sum(k.copies for k in by["start_artifact"]) == 5
    assert all(2 <= k.cost <= 5 for k in by["artifact"])
    assert len(by["start_quest"]) == 9 and len(by["quest"]) == 36
    assert [k.points for k in by["quest"][:6]] == [2, 2, 3, 2, 2, 4]
    assert len(by["abbey"]) == 18
    assert cs.goals == {"short": {2: 9, 3: 8, 4: 7}, "long": {2: 11, 3: 10, 4: 9}}
    assert cs.abbey_goals["short"][2] == ((9, 0), (8, 3), (7, 5))
    g = Game(cs, 4)
    assert sum(len(v) for v in g.sections.values()) == 54 + 3


def mutate(fn):
    d = raw()
    fn(d)
    return d


@pytest.mark.parametrize("edit,card,field", [
    (lambda d: d["card"][0].update(symbols=["SPOON"]), "Spatula", "symbols"),
    (lambda d: d["card"][0].pop("per_player"), "Spatula", "per_player"),
    (lambda d: d["card"][12].update(strength=0), None, "strength"),
    (lambda d: d["card"][12].update(colour="red"), None, "colour"),
    (lambda d: d["card"][12].update(type="monster"), None, "type"),
    (lambda d: d["card"][12].update(players=[5]), None, "players"),
    (lambda d: d["card"][1].update(name="Spatula"), "Spatula", "name"),
    (lambda d: next(c for c in d["card"] if c["type"] == "artifact").update(effects=["fly 2"]), None, "effects"),
    (lambda d: next(c for c in d["card"] if c["type"] == "artifact").update(effects=["draw"]), None, "effects"),
    (lambda d: next(c for c in d["card"] if c["type"] == "quest").update(region="Moon"), None, "region"),
    (lambda d: next(c for c in d["card"] if c["type"] == "quest").update(reward={"cake": 1}), None, "reward"),
    (lambda d: next(c for c in d["card"] if c["type"] == "quest").update(needs={}), None, "needs"),
    (lambda d: d["card"][9].update(power="TELEPORT"), "Dog", "power"),
    (lambda d: d["goals"]["short"].pop("3"), "-", "goals.short"),
    (lambda d: d["supply"].pop("gems"), "-", "supply"),
    (lambda d: d["card"][10].update(supply=3), "Peaceful Dragon", "total"),     # total and supply
    (lambda d: d["card"][9].update(total=3), "Dog", "total"),                   # < per_player x 4
    (lambda d: d.update(format=2), "-", "format"),
])
def test_bad_card_file_names_file_card_field(edit, card, field):
    d = mutate(edit)
    with pytest.raises(CardFileError) as e:
        parse_card_set(d, "my_cards.toml")
    msg = str(e.value)
    assert msg.startswith("my_cards.toml: card ")
    assert f"field '{field}'" in msg or f"field {field!r}" in msg
    if card:
        assert f"card {card!r}" in msg or f"card '{card}'" in msg


def test_bad_files_on_disk(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text("format = [")
    with pytest.raises(CardFileError, match="broken.toml: card '-': field '-': cannot parse"):
        load_card_set(str(p))
    with pytest.raises(CardFileError, match="not found"):
        load_card_set(str(tmp_path / "missing.toml"))
    with pytest.raises(CardFileError):
        FantastiqaState.new(2, card_set=str(p))


def test_card_set_path_loads_another_file(tmp_path):
    """A JSON file of the same format, with one beast fewer and a different goal, drives a game."""
    d = raw()
    beasts = [c for c in d["card"] if c["type"] == "beast"]
    d["card"].remove(beasts[0])
    d["goals"]["short"]["2"] = 3
    d["name"] = "my set"
    p = tmp_path / "cards.json"
    p.write_text(json.dumps(d))
    s = FantastiqaState.new(2, seed=0, card_set=str(p))
    assert s.goal == 3 and s.g.cs.name == "my set"
    assert s.num_actions == FantastiqaState.num_actions_for(str(p)) == A.HAND + 3 * 109 + 45 == 30 + 3 * 109 + 45
    rng = np.random.default_rng(0)
    for _ in range(500):
        if s.is_terminal():
            break
        s.apply(int(rng.choice(s.legal_actions())))
    t = FantastiqaState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert t.to_dict() == s.to_dict()


def test_Q_S3_published_component_counts_are_in_the_card_file():
    """Q-S3 / Q-X1: the supplies are the rulebook's component counts, not stand-ins: 60 gems,
    16 flying carpets, 12 reshuffle tokens, 12 +1 bonus tokens, 4 Dogs, 16 Peaceful Dragons."""
    cs = load_card_set()
    assert cs.supply == {"gems": 60, "carpets": 16, "reshuffles": 12, "bonus_tokens": 12}
    starters = {k.name: k for k in cs.kinds if k.type == "starter"}
    assert (starters["Dog"].total, starters["Dog"].per_player) == (4, 1)
    assert (starters["Peaceful Dragon"].total, starters["Peaceful Dragon"].per_player) == (16, 1)
    text = open(STANDIN_PATH).read()
    assert "published component counts, NOT stand-in" in text


@pytest.mark.parametrize("n", [2, 3, 4])
def test_Q_S3_supply_after_setup_per_player_count(n):
    """Q-S3: each seat takes 3 gems, 3 carpets, 3 reshuffle tokens from the supply and holds one
    Dog and one Peaceful Dragon; the other dragons are the supply, unused Dogs stay boxed."""
    g = Game(load_card_set(), n)
    s = FantastiqaState.new(n, seed=1)
    assert (s.supply_gems, s.supply_carpets, s.supply_reshuffles, s.supply_bonus_tokens) == (60 - 3 * n, 16 - 3 * n, 12 - 3 * n, 12)
    assert s.gems == s.carpets == s.reshuffles == [3] * n
    assert len(s.dragons) == 16 - n and all(s.card_name(i) == "Peaceful Dragon" for i in s.dragons)
    for p in range(n):
        names = [s.card_name(i) for i in g.start_cards[p]]
        assert names.count("Dog") == 1 and names.count("Peaceful Dragon") == 1 and len(names) == 11
    assert [s.card_name(i) for i in s.box].count("Dog") == 4 - n
    dragons = sum(s.card_name(i) == "Peaceful Dragon" for i in range(g.num_instances))
    dogs = sum(s.card_name(i) == "Dog" for i in range(g.num_instances))
    assert (dragons, dogs) == (16, 4)


@pytest.mark.parametrize("n", [2, 4])
def test_Q_X1_finite_supplies_are_conserved_in_play(n):
    """Q-X1: gems, carpets, reshuffle and bonus tokens never exceed the published totals: at every
    step of random play, supply + players + board (+ set aside) add up to 60 / 16 / 12 / 12."""
    s = FantastiqaState.new(n, seed=7, abbey=True)
    rng = np.random.default_rng(7)
    for _ in range(3000):
        if s.is_terminal():
            break
        assert s.supply_gems + sum(s.gems) + sum(s.board_gems) + s.abbey_reward[0] == 60
        assert s.supply_carpets + sum(s.carpets) + s.abbey_reward[1] == 16
        assert s.supply_reshuffles + sum(s.reshuffles) + s.abbey_reward[2] == 12
        assert s.supply_bonus_tokens + sum(s.bonus_tokens) + sum(s.open_bonus) == 12
        la = s.legal_actions()
        s.apply(int(la[rng.integers(len(la))]))


# one card of each type of the STAND-IN set, and values of every JSON type a field can be given
def _deep(depth=10_000):
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


WRONG_VALUES = ([], [[]], ["SWORD", []], {}, {"a": 1}, None, True, 1.5, -1, "x", [1, 2], _deep())


def _one_card_per_type(base):
    seen, out = set(), []
    for i, c in enumerate(base["card"]):
        if c["type"] not in seen:
            seen.add(c["type"])
            out.append(i)
    return out


def test_any_value_in_any_card_field_is_a_card_file_error_naming_card_and_field():
    """Issue 24: a list or dict where a symbol, power or region belongs raised TypeError
    (unhashable) instead of CardFileError; every field of every card type is tried here."""
    tried, base = 0, raw()
    for i in _one_card_per_type(base):
        name = base["card"][i]["name"]
        for fld in base["card"][i]:
            for value in WRONG_VALUES:
                d = copy.deepcopy(base)
                d["card"][i][fld] = value
                tried += 1
                try:
                    parse_card_set(d, "my_cards.json")
                except CardFileError as e:
                    msg = str(e)
                    assert msg.startswith("my_cards.json: card "), msg
                    if fld != "name":
                        assert f"card {name!r}" in msg and f"field {fld!r}" in msg, (fld, value, msg)
    assert tried > 300


@pytest.mark.parametrize("text,where", [
    ('{"format": 1, "format": 1}', "format"),
    ('{"a": {"gems": 1, "gems": 2}}', "gems"),
])
def test_duplicate_json_keys_are_refused(tmp_path, text, where):
    p = tmp_path / "dup.json"
    p.write_text(text)
    with pytest.raises(CardFileError, match=f"duplicate key {where!r}"):
        load_card_set(str(p))


def test_duplicate_key_in_a_real_card_file_is_refused(tmp_path):
    """A card file whose card lists `cost` twice (the second silently won before)."""
    text = json.dumps(raw())
    beast = text.index('"cost": 3')
    p = tmp_path / "cards.json"
    p.write_text(text[:beast] + '"cost": 0, ' + text[beast:])
    json.loads(p.read_text())                  # plain json takes the last value
    with pytest.raises(CardFileError, match="duplicate key 'cost'"):
        load_card_set(str(p))
