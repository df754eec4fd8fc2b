"""GENERATED card files (fantastiqa_rl.card_gen): valid, seeded, within the learner's and the batched
engine's bounds, varied, and playable to a rules end by random and greedy play."""
import json
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter

import numpy as np
import pytest

from fantastiqa_rl import FantastiqaState, load_card_set
from fantastiqa_rl.board import P_GEM, P_PEACEFUL
from fantastiqa_rl.card_gen import (DEFAULT_KNOBS, MAX_INSTANCES, MAX_KINDS, MAX_QUEST_KINDS, counts,
                                    generate_card_set, main, to_toml, write_card_file)
from fantastiqa_rl.cards import EFFECT_OPS, parse_card_set
from fantastiqa_rl.game import Game
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from tests.fantastiqa_helpers import random_walk

SEEDS = range(20)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """seed -> path of its TOML file (every seed of SEEDS)."""
    d = tmp_path_factory.mktemp("generated")
    return {s: write_card_file(d / f"gen{s}.toml", s) for s in SEEDS}


def by_type(cs):
    out = {}
    for k in cs.kinds:
        out.setdefault(k.type, []).append(k)
    return out


def test_files_load_and_keep_the_bounds(files):
    for seed, path in files.items():
        cs = load_card_set(path)
        assert cs.name == f"GENERATED seed {seed} (not the real cards)"
        assert "NOT the published cards" in open(path).read().splitlines()[0]
        K, Q, m = counts(generate_card_set(seed))
        assert (K, Q) == (cs.num_card_kinds, cs.num_quest_kinds)
        assert K <= MAX_KINDS <= 128 and Q <= MAX_QUEST_KINDS <= 64
        assert Game(cs, 4).num_instances == m <= MAX_INSTANCES == 255     # uint8 rows of the batched engine
        for n in (2, 3):
            assert Game(cs, n).num_instances < m


def test_deterministic_by_seed_and_seeds_differ(tmp_path, files):
    raws = [generate_card_set(s) for s in SEEDS]
    assert raws[3] == generate_card_set(3)
    again = write_card_file(tmp_path / "again.toml", 3)
    assert open(again, "rb").read() == open(files[3], "rb").read()
    cards = [json.dumps(r["card"], sort_keys=True) for r in raws]
    assert len(set(cards)) == len(cards)
    sizes = [counts(r) for r in raws]
    assert len({k for k, _, _ in sizes}) >= 5 and len({q for _, q, _ in sizes}) >= 5


def test_toml_and_json_hold_the_same_file(tmp_path):
    for seed in (0, 11):
        raw = generate_card_set(seed)
        assert tomllib.loads(to_toml(raw)) == raw          # the emitter writes exactly the dict
        a = load_card_set(write_card_file(tmp_path / f"g{seed}.toml", seed))
        b = load_card_set(write_card_file(tmp_path / f"g{seed}.json", seed))
        assert json.load(open(b.path)) == raw
        assert (a.kinds, a.goals, a.abbey_goals, a.supply, a.name) == (b.kinds, b.goals, b.abbey_goals, b.supply, b.name)


def test_names_reveal_nothing_and_blocks_are_shuffled(files):
    labels = {"adventurer": "Adventurer", "starter": "Starter", "creature": "Creature", "raven": "Raven",
              "beast": "Beast", "artifact": "Artifact", "start_artifact": "Start Artifact", "quest": "Quest",
              "start_quest": "Start Quest", "abbey": "Abbey"}
    dog_at, first_symbol = Counter(), Counter()
    for path in files.values():
        cs = load_card_set(path)
        seen = Counter()
        for k in cs.kinds:
            seen[k.type] += 1
            assert re.fullmatch(r"[A-Za-z ]+ \d\d", k.name) and k.name == f"{labels[k.type]} {seen[k.type]:02d}"
        t = by_type(cs)
        dog_at[[k.power for k in t["starter"]].index(P_GEM)] += 1
        first_symbol[t["adventurer"][0].symbols] += 1
    assert len(dog_at) == 2 and len(first_symbol) >= 5


def test_shapes_the_engine_needs_are_kept(files):
    for path in files.values():
        cs = load_card_set(path)
        t = by_type(cs)
        assert sorted(k.symbols for k in t["adventurer"]) == [(s,) for s in range(9)]
        assert all(k.per_player == 1 for k in t["adventurer"])
        assert sorted((k.power, k.total) for k in t["starter"]) == [(P_GEM, 4), (P_PEACEFUL, 16)]
        assert sorted((k.section, k.copies, k.players) for k in t["raven"]) == [(2, 1, (2, 3, 4)), (3, 2, ()),
                                                                                 (3, 2, (2, 3, 4))]
        assert {k.section for k in t["creature"]} == {1, 2, 3}
        assert sum(k.copies for k in t["start_artifact"]) >= 4 and all(k.cost == 0 for k in t["start_artifact"])
        assert sum(k.copies for k in t["start_quest"]) >= 6
        for n in (2, 3, 4):
            used = sum(k.copies for k in t["creature"] if n in k.players)
            assert 30 <= used <= 57
        assert cs.goals["short"][2] < cs.goals["long"][2]
        assert cs.supply["carpets"] >= 12 and cs.supply["reshuffles"] >= 12


def test_what_varies_varies(files):
    """Across the seeds: companions, doubles, off-cycle vulnerabilities, every effect op, the
    strengths, costs, quest points, regions and goals all take several values."""
    ops, shapes, strengths, costs, points, goals, vuln_off = set(), set(), set(), set(), set(), set(), 0
    for path in files.values():
        cs = load_card_set(path)
        goals.add(cs.goals["short"][2])
        for k in cs.kinds:
            ops |= {op for op, _, _ in k.effects}
            if k.type in ("creature", "beast"):
                shapes.add("single" if len(k.symbols) == 1 else "double" if k.symbols[0] == k.symbols[1] else "companion")
            if k.type == "creature":
                strengths.add(k.strength)
                vuln_off += k.vulnerability != (k.symbols[0] - 1) % 9
            if k.type in ("beast", "artifact"):
                costs.add(k.cost)
            if k.type == "quest":
                points.add(k.points)
    assert ops == set(EFFECT_OPS)
    assert shapes == {"single", "double", "companion"}
    assert strengths == {1, 2, 3, 4} and len(costs) >= 5 and len(points) >= 4 and len(goals) == 3 and vuln_off > 0


def test_knobs(tmp_path):
    raw = generate_card_set(5, quests=(30, 30), start_quests=(8, 8), vary_supply=False, goal_shift=(0, 0))
    cs = parse_card_set(raw)
    t = by_type(cs)
    assert len(t["quest"]) == 30 and len(t["start_quest"]) == 8
    assert cs.supply == {"gems": 60, "carpets": 16, "reshuffles": 12, "bonus_tokens": 12}
    assert cs.goals == {"short": {2: 9, 3: 8, 4: 7}, "long": {2: 11, 3: 10, 4: 9}}
    assert "quests=(30, 30)" in raw["name"] and "GENERATED seed 5" in raw["name"]
    unshuffled = parse_card_set(generate_card_set(5, shuffle=False))
    assert [k.symbols for k in by_type(unshuffled)["adventurer"]] == [(s,) for s in range(9)]
    with pytest.raises(ValueError, match="unknown knob"):
        generate_card_set(0, creatures=3)
    with pytest.raises(ValueError, match="start_quests"):
        generate_card_set(0, start_quests=(2, 3))
    with pytest.raises(ValueError, match="bounds"):
        generate_card_set(0, quests=(70, 70))
    with pytest.raises(ValueError):
        generate_card_set(-1)
    assert set(DEFAULT_KNOBS) >= {"quests", "beasts", "artifacts", "abbey_cards", "shuffle"}


def test_command_line(tmp_path, capsys):
    assert main(["--seed", "7", "--out", str(tmp_path / "cards.json")]) == 0
    assert load_card_set(str(tmp_path / "cards.json")).name.startswith("GENERATED seed 7")
    assert main(["--seed", "3", "--count", "3", "--out-dir", str(tmp_path / "many")]) == 0
    names = sorted(os.listdir(tmp_path / "many"))
    assert names == [f"fantastiqa_GENERATED_seed{s}.toml" for s in (3, 4, 5)]
    assert load_card_set(str(tmp_path / "many" / names[2])).name.startswith("GENERATED seed 5 ")
    assert len(capsys.readouterr().out.splitlines()) == 4
    with pytest.raises(SystemExit):
        main(["--seed", "1"])                             # neither --out nor --out-dir
    r = subprocess.run([sys.executable, "-m", "fantastiqa_rl.card_gen", "--seed", "7", "--out",
                        str(tmp_path / "cli.toml")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert load_card_set(str(tmp_path / "cli.toml")).kinds == load_card_set(str(tmp_path / "cards.json")).kinds


# ------------------------------------------------------------------------------------ play
def greedy_game(path, n, seed, **options):
    s = FantastiqaState.new(n, seed=seed, card_set=path, **options)
    agents = [FantastiqaGreedyAgent(10 * seed + i) for i in range(n)]
    while not s.is_terminal():
        m = np.zeros(s.num_actions, dtype=bool)
        m[s.legal_actions()] = True
        a = agents[s.cur].act(None, m, state=s, seat=s.cur)
        assert a in s.legal_set()
        s.apply(a)
    return s


def random_game(path, seed, **options):
    """Uniform random legal moves to the end; the state dict is validated (every card in one place,
    tokens conserved, ...) every 100 steps and at the end."""
    s = FantastiqaState.new(2, seed=seed, card_set=path, **options)
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal():
        random_walk(s, rng, 100)
        steps += 100
        assert steps < 20_000, "a random game far longer than the STAND-IN set's (about 2,000 steps)"
        assert FantastiqaState.from_dict(s.to_dict()).to_dict() == s.to_dict()
    return s


def ended_by_the_rules(s, limit=100):
    """Terminal by a rules end: the goal (Q-E1), the creature deck (Q-E2) or the default turn limit
    (Q-E5, scored like Q-E2: not a cut); never past the limit; somebody won."""
    return (s.is_terminal() and s.end_reason in ("goal", "creature deck empty", "turn_limit")
            and s.turns <= limit * s.n and len(s.winners()) >= 1)


PLAY_SEEDS = (0, 1, 2, 3, 4)


@pytest.mark.parametrize("seed", PLAY_SEEDS)
def test_random_games_end_by_the_rules(files, seed):
    """As with the STAND-IN set, uniform random play ends at the Q-E5 turn limit (docs/rules
    pacing); it must get there, terminal and scored, with a valid state all along."""
    s = random_game(files[seed], seed)
    assert ended_by_the_rules(s)


def test_greedy_games_end_by_a_win(files):
    """Greedy self-play at 2 players on each of PLAY_SEEDS' files (two games each) and at 4 players on
    one: every game ends by the rules within the default limit, and most by a player reaching the goal
    (measured on the files of seeds 0-39: 69 of 70 two-player games; the other stalled to the limit)."""
    ends = Counter()
    for seed in PLAY_SEEDS:
        for game in range(2):
            s = greedy_game(files[seed], 2, 100 * seed + game)
            assert ended_by_the_rules(s)
            ends[s.end_reason] += 1
    assert ends["goal"] >= 8, ends
    s = greedy_game(files[5], 4, 5)
    assert ended_by_the_rules(s) and s.end_reason == "goal"


@pytest.mark.parametrize("seed", (6, 7))
def test_abbey_games_end(files, seed):
    """The Abbey option (abbey=True): greedy self-play reaches a goal line, random play a rules end."""
    s = greedy_game(files[seed], 2, seed, abbey=True)
    assert ended_by_the_rules(s) and s.end_reason == "goal"
    assert ended_by_the_rules(random_game(files[seed], seed, abbey=True))
