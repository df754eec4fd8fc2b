"""Red-team table of the state-dict, card-file and checkpoint loaders (issue 24), and issue 36's state,
action and env cases.

    python benchmarks/redteam_state.py            # prints the table, then every case not "clear"
    python benchmarks/redteam_state.py --quick    # without the checkpoint rows (they train a tiny run)
    python benchmarks/redteam_state.py --issue36  # only issue 36's rows (items 4, 5 and 7's env parts)

`rows()` mutates valid inputs systematically and classifies what each loader does with each one:
    clear              refused with the loader's own error, naming the problem (the key path, the
                       card and field, or the checkpoint file and why it was skipped)
    unclear            refused, but with another exception or a message that names nothing
    silently accepted  an invalid input loaded and played on (or was picked for --resume)
    crash later        loaded, then a later step (40 random moves; a game on the card file) crashed
    code executed      a payload ran (a marker file appeared)
Every mutation is invalid by construction: a required key dropped, a value of another JSON type,
an int out of any range the rules reach, a 10,000-deep nested list; plus the issue's semantic
cases (a score of 999, the loser named winner, ...). `benchmarks/redteam.py` imports `rows()`.
Bounded: the whole run takes 10 to 30 s on one core (the checkpoint part trains a tiny run).

Issue 36's rows (`issue36_rows`): states play reaches (a doubled card released, played for its
power, given by a Bitter Brew, drawn back by a Bell; whole random games of both games) must load:
clear when they round-trip, unclear when refused (the loader is wrong about them); the 0-d int64
array SB3's `MaskablePPO.predict` returns must play on every face as its int (clear; refused:
unclear), and 0-d bool, float, object and string arrays must be refused (clear); tampered state
objects written by `FaeVector.set_state` / `FantastiqaVector.set_state`, the AEC env edges
(unknown agents, last() after the end, reset's seed) and uint64 seeds past int64 must be refused
with an error naming the problem and nothing changed (clear).
"""
from __future__ import annotations

import contextlib
import copy
import gc
import io
import json
import os
import re
import sys
import tempfile
import tomllib
import warnings

import numpy as np

from tabletop_rl.training import checkpoint_paths

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTCOMES = ("clear", "unclear", "silently accepted", "crash later", "code executed")
NAMED_KEY = re.compile(r"^from_dict: (key '[^']+'|missing key|unknown key|expected a dict)")
DEEP = 10_000


@contextlib.contextmanager
def _gc_paused():
    """The mutation rows allocate millions of short-lived objects (deep copies, 10,000-deep lists) that
    reference counting frees; with the cyclic collector on, its passes took 2/3 of the rows' time
    (state rows 9.5 -> 3.3 s, card rows 1.0 -> 0.6 s). What cycles the loaders leave are collected at the end (peak
    memory ~170 MB for the state rows)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
        gc.collect()


def _deep(depth: int = DEEP):
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


# ---------------------------------------------------------------------------- mutations of a dict
def _paths(node, path=()):
    """Every key of every dict, and the first, middle and last entry of every list."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,), v
            yield from _paths(v, path + (k,))
    elif isinstance(node, list) and node:
        for i in sorted({0, len(node) // 2, len(node) - 1}):
            yield path + (i,), node[i]
            yield from _paths(node[i], path + (i,))


def _wrong_types(v) -> list:
    if isinstance(v, bool):
        return [0, "true"]
    if isinstance(v, int):
        return ["1", 1.5, None, [v]]
    if isinstance(v, str):
        return [5, None, [v]]
    if isinstance(v, list):
        return ["x", {}, None]
    if isinstance(v, dict):
        return [[], "x"]
    return [5, "x"]  # None


def _out_of_range(path, v) -> list:
    if isinstance(v, bool) or not isinstance(v, int):
        return []
    if "rng" in path:                      # PCG64 states: any int below 2**128 is one
        return [-1, 2 ** 130]
    if path[-1] == "turn_limit":           # an option: any int >= 1 is allowed
        return [0, -10 ** 9]
    return [10 ** 9, -10 ** 9]


# list entries whose removal may leave a valid state (fewer doubled cards, effects, ...)
_OPTIONAL_ENTRIES = ("boosted", "powered", "token_left", "effects", "winners")


def mutations(d: dict):
    """(description, mutated copy) of every invalid-by-construction mutation of `d`."""
    for path, v in list(_paths(d)):
        where = ".".join(map(str, path))
        changes = [("drop", None)] if not (isinstance(path[-1], int) and any(p in path for p in _OPTIONAL_ENTRIES)) else []
        wrong = [w for w in _wrong_types(v) if not (path[-1] == "turn_limit" and w is None)]  # None: no limit
        changes += [(f"type {type(w).__name__} {json.dumps(w)[:12]}", w) for w in wrong]
        changes += [(f"range {w}", w) for w in _out_of_range(path, v)]
        changes += [("deep nesting", "DEEP")]
        for what, w in changes:
            e = copy.deepcopy(d)
            parent = e
            for k in path[:-1]:
                parent = parent[k]
            if what == "drop":
                del parent[path[-1]]
            else:
                parent[path[-1]] = _deep() if w == "DEEP" else copy.deepcopy(w)
            yield f"{where}: {what}", e


# ---------------------------------------------------------------------------- state dicts
def _classify_state(cls, d, rng) -> str:
    try:
        s = cls.from_dict(d)
    except ValueError as exc:
        return "clear" if NAMED_KEY.match(str(exc)) else "unclear"
    except Exception:  # noqa: BLE001  (any other exception breaks the loader's contract)
        return "unclear"
    try:
        for _ in range(40):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
            s.to_dict()
    except Exception:  # noqa: BLE001
        return "crash later"
    return "silently accepted"


def _fantastiqa_positions():
    from fantastiqa_rl.state import FantastiqaState
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

    out = {"setup": FantastiqaState.new(num_players=3, seed=1)}
    rng = np.random.default_rng(0)
    s = FantastiqaState.new(num_players=2, seed=3)
    while not (s.phase_name == "ADV_MOVE" and s.adventure and s.turns > 4):
        s.apply(int(rng.choice(s.legal_actions())))
    out["mid-adventure"] = s
    s = FantastiqaState.new(num_players=2, seed=4, abbey=True)
    for _ in range(120):
        s.apply(int(rng.choice(s.legal_actions())))
    out["abbey game"] = s
    s = FantastiqaState.new(num_players=2, seed=2)
    bots = [FantastiqaGreedyAgent(20), FantastiqaGreedyAgent(21)]
    while not s.is_terminal():
        s.apply(bots[s.cur].act(None, None, state=s, seat=s.cur))
    out["finished game"] = s
    return {k: json.loads(json.dumps(v.to_dict())) for k, v in out.items()}


def _fantastiqa_semantic(pos):
    """The issue's cases: each edits a reachable dict into one play cannot reach."""
    mid, done, setup = pos["mid-adventure"], pos["finished game"], pos["setup"]

    def edit(d, fn):
        e = copy.deepcopy(d)
        fn(e)
        return e

    loser = next(p for p in range(done["num_players"]) if p not in done["winners"])
    other = 1 - mid["current"]
    yield "score 999", edit(mid, lambda e: e["players"][0].__setitem__("scores", 999))
    yield "score +1 (no quest for it)", edit(mid, lambda e: e["players"][1].__setitem__("scores", e["players"][1]["scores"] + 1))
    yield "winners name the loser", edit(done, lambda e: e.__setitem__("winners", [loser]))
    yield "winners: everyone", edit(done, lambda e: e.__setitem__("winners", list(range(e["num_players"]))))
    yield "doubled card in the opponent's deck", edit(mid, lambda e: e["turn"].__setitem__(
        "boosted", [e["players"][other]["deck"][0]]))
    yield "doubled card in the creature deck", edit(mid, lambda e: e["turn"].__setitem__("boosted", [e["creature_deck"][0]]))
    yield "current changed during setup", edit(setup, lambda e: e.__setitem__("current", 0))
    yield "phase MAIN mid-adventure", edit(mid, lambda e: e.__setitem__("phase", "MAIN"))
    yield "option key missing (draw_rule)", edit(mid, lambda e: e["options"].pop("draw_rule"))
    yield "end_reason turn_limit before the limit", edit(done, lambda e: e.__setitem__("end_reason", "turn_limit"))


def _fae_positions():
    from fae_rl import FaeState

    out = {"deal": FaeState.new(3, seed=0)}
    for seed in range(100):
        rng = np.random.default_rng(seed)
        s = FaeState.new(2, seed=seed)
        while not s.is_terminal() and len(s.pending) < 2:
            s.apply(int(rng.choice(s.legal_actions())))
        if len(s.pending) >= 2:
            out["rituals pending"] = s
            break
    rng = np.random.default_rng(1)
    s = FaeState.new(4, seed=1)
    while not s.is_terminal():
        s.apply(int(rng.choice(s.legal_actions())))
    out["finished game"] = s
    return {k: json.loads(json.dumps(v.to_dict())) for k, v in out.items()}


def _fae_semantic(pos):
    deal, pend = pos["deal"], pos["rituals pending"]

    def edit(d, fn):
        e = copy.deepcopy(d)
        fn(e)
        return e

    yield "terminal at the deal", edit(deal, lambda e: e.update(terminal=True, current_player=-1))
    yield "pending_rituals dropped", edit(pend, lambda e: e.__setitem__("pending_rituals", []))
    yield "one pending ritual dropped", edit(pend, lambda e: e.__setitem__("pending_rituals", e["pending_rituals"][:1]))
    yield "history: druids moved without a move", edit(deal, lambda e: e["history"][1].__setitem__("moved", [1, 0, 0, 0, 0]))
    yield "history: last action without a move", edit(deal, lambda e: e["history"][2].__setitem__("last_action", 3))
    yield "current_player changed", edit(pend, lambda e: e.__setitem__("current_player", 1 - e["current_player"]))


def state_rows() -> list[dict]:
    out: list[dict] = []
    with _gc_paused():
        _state_rows(out)
    return out


def _state_rows(out: list[dict]) -> None:
    from fae_rl import FaeState
    from fantastiqa_rl.state import FantastiqaState

    for target, cls, positions, semantic in (("fantastiqa state", FantastiqaState, _fantastiqa_positions(), _fantastiqa_semantic),
                                             ("fae state", FaeState, _fae_positions(), _fae_semantic)):
        rng = np.random.default_rng(24)
        for name, d in positions.items():
            for case, bad in mutations(d):
                out.append({"target": target, "case": f"{name}: {case}", "outcome": _classify_state(cls, bad, rng)})
        for case, bad in semantic(positions):
            out.append({"target": target, "case": case, "outcome": _classify_state(cls, bad, rng)})


# ---------------------------------------------------------------------------- card files
def _card_raw():
    from fantastiqa_rl import STANDIN_PATH

    with open(STANDIN_PATH, "rb") as f:
        return tomllib.load(f)


def _classify_cards(raw, tmp) -> str:
    from fantastiqa_rl.cards import CardFileError, parse_card_set

    try:
        parse_card_set(raw, "cards.json")
    except CardFileError as exc:
        return "clear" if re.match(r"^cards\.json: card .*field ", str(exc)) else "unclear"
    except Exception:  # noqa: BLE001
        return "unclear"
    return _plays(raw, tmp)


def _plays(raw, tmp) -> str:
    """An accepted card file: does a game on it run 300 random steps?"""
    from fantastiqa_rl.state import FantastiqaState

    path = os.path.join(tmp, "accepted.json")
    with open(path, "w") as f:
        json.dump(raw, f)
    try:
        s = FantastiqaState.new(num_players=2, seed=0, card_set=path)
        rng = np.random.default_rng(0)
        for _ in range(300):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
    except Exception:  # noqa: BLE001
        return "crash later"
    return "silently accepted"


def card_rows() -> list[dict]:
    from fantastiqa_rl.cards import _REQUIRED, CardFileError, load_card_set

    base, out = _card_raw(), []
    with tempfile.TemporaryDirectory() as tmp, _gc_paused():
        seen = set()
        for i, card in enumerate(base["card"]):          # one card of each type, every field
            if card["type"] in seen:
                continue
            seen.add(card["type"])
            for fld, v in card.items():
                values = [("drop", None)] if fld in _REQUIRED[card["type"]] | {"name", "type"} else []
                values += [(f"type {json.dumps(w)[:12]}", w) for w in _wrong_types(v) + [{"a": 1}, ["SWORD", []]]]
                values += [(f"range {w}", w) for w in ([10 ** 9, -1] if isinstance(v, int) and not isinstance(v, bool) else [])]
                values += [("deep nesting", "DEEP")]
                for what, w in values:
                    raw = copy.deepcopy(base)
                    if what == "drop":
                        del raw["card"][i][fld]
                    else:
                        raw["card"][i][fld] = _deep() if w == "DEEP" else w
                    out.append({"target": "card file", "case": f"{card['type']} {card['name']!r}.{fld}: {what}",
                                "outcome": _classify_cards(raw, tmp)})
        for key in list(base):                             # top-level fields
            for what, w in [("drop", None)] + [(f"type {json.dumps(x)[:12]}", x) for x in _wrong_types(base[key])]:
                raw = copy.deepcopy(base)
                if what == "drop":
                    del raw[key]
                else:
                    raw[key] = w
                if key == "name" and what == "drop":      # optional: the file name is used
                    continue
                out.append({"target": "card file", "case": f"top-level {key}: {what}", "outcome": _classify_cards(raw, tmp)})
        text = json.dumps(base)
        files = {
            "duplicate JSON key (a card's cost twice)": text.replace('"cost": 3', '"cost": 0, "cost": 3', 1).encode(),
            "duplicate top-level key": text.replace('{"format": 1', '{"format": 1, "format": 1', 1).encode(),
            "100,000-deep JSON": b"[" * 100_000 + b"]" * 100_000,
            "not UTF-8": b'{"format": 1, "name": "\xff"}',
            "2 MiB file": b" " * (2 << 20) + text.encode(),
            "truncated JSON": text[: len(text) // 2].encode(),
        }
        for case, data in files.items():
            path = os.path.join(tmp, f"f{len(out)}.json")
            with open(path, "wb") as f:
                f.write(data)
            try:
                load_card_set(path)
                outcome = "silently accepted"
            except CardFileError:
                outcome = "clear"
            except Exception:  # noqa: BLE001
                outcome = "unclear"
            out.append({"target": "card file", "case": case, "outcome": outcome})
        try:
            load_card_set(tmp)
            outcome = "silently accepted"
        except CardFileError:
            outcome = "clear"
        except Exception:  # noqa: BLE001
            outcome = "unclear"
        out.append({"target": "card file", "case": "a directory as the card file", "outcome": outcome})
    return out


# ---------------------------------------------------------------------------- checkpoints
def _tiny_run(runs_dir: str) -> str:
    sys.path.insert(0, ROOT)
    import train

    cfg = train.Config(**{**train.PRESETS["tiny"], "total_steps": 1536, "checkpoint_every": 512, "keep_checkpoints": 10,
                          "final_eval_games": 0, "eval_every": 0, "bc_teacher": "", "runs_dir": runs_dir,
                          "run_name": "r", "progress": False})
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train.train(cfg)
    return os.path.join(runs_dir, "r")


def _classify_checkpoint(run: str, cfg, marker: str) -> str:
    import train

    newest = checkpoint_paths(run)[-1]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hasattr(train, "restores_cleanly"):
                found = train.latest_valid_checkpoint(run, restores=lambda c: train.restores_cleanly(cfg, c))
            else:  # train.py before issue 24 (to measure it): --resume took the newest that parsed
                found = train.latest_valid_checkpoint(run)
    except BaseException:  # noqa: BLE001  (a traceback out of --resume)
        found = "raised"
    if os.path.exists(marker):
        os.remove(marker)
        return "code executed"
    if found == "raised":
        return "unclear"
    if found is not None and found[0] == newest:  # picked: does the run's own restore then crash?
        try:
            with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pool = train.make_pool(cfg)
                venv, model = train.build(cfg, pool)
                train.restore(found[1], model, venv, pool, {})
                venv.close()
        except Exception:  # noqa: BLE001
            return "crash later"
        return "silently accepted"
    name = os.path.basename(newest)[:-3]
    return "clear" if f"skipping damaged checkpoint: " in err.getvalue() and name in err.getvalue() else "unclear"


def _pickle_payload(path: str, marker: str) -> None:
    """A .pt file whose pickle would create `marker` if anything unpickled it unrestricted."""
    import pickle

    class Payload:
        def __reduce__(self):
            return (open, (marker, "w"))

    with open(path, "wb") as f:
        pickle.dump({"t0": Payload()}, f)


def checkpoint_rows() -> list[dict]:
    sys.path.insert(0, ROOT)
    import train

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        run = _tiny_run(tmp)
        cfg = train.Config(**{**json.loads(open(os.path.join(run, "config.json")).read()), "resume": run})
        newest = checkpoint_paths(run)[-1]
        meta_path = newest[:-3] + ".json"
        good_meta, good_pt = open(meta_path).read(), open(newest, "rb").read()
        marker = os.path.join(tmp, "MARKER")
        d = json.loads(good_meta)

        def nested(e, path, value):
            parent = e
            for k in path[:-1]:
                parent = parent[k]
            parent[path[-1]] = value

        cases = []
        for key, v in d.items():
            cases.append((f"{key}: drop", lambda e, k=key: e.pop(k)))
            for w in _wrong_types(v):
                cases.append((f"{key}: type {json.dumps(w)[:12]}", lambda e, k=key, w=w: e.__setitem__(k, w)))
        for where, value in ((("num_timesteps",), -512), (("num_timesteps",), 10 ** 18), (("n_updates",), -1),
                             (("rng", "numpy"), "MT19937"), (("rng", "torch"), {"__tensor__": "t0"}),
                             (("rng", "python"), [1, 2]), (("fae_vector", "meta", "games", 0, "num_players"), 9),
                             (("fae_vector", "meta", "games", 0, "druids"), [[0] * 5] * 60),
                             (("fae_vector", "meta", "rng", "state"), "x"), (("config", "game"), "fantastiqa"),
                             (("history", "evals"), "x"), (("last_obs",), [0.0])):
            cases.append((f"{'.'.join(map(str, where))} = {json.dumps(value)[:16]}",
                          lambda e, p=where, v=value: nested(e, p, v)))
        for case, edit in cases:
            e = json.loads(good_meta)
            try:
                edit(e)
            except (KeyError, IndexError, TypeError):
                continue
            with open(meta_path, "w") as f:
                json.dump(e, f)
            out.append({"target": "checkpoint", "case": case, "outcome": _classify_checkpoint(run, cfg, marker)})
        files = {
            "json: 100,000-deep": ("json", "[" * 100_000 + "]" * 100_000),
            "json: truncated": ("json", good_meta[: len(good_meta) // 2]),
            "json: missing": ("json", None),
            "pt: truncated": ("pt", good_pt[:100]),
            "pt: a pickle that writes a file": ("pt", "PICKLE"),
        }
        for case, (part, data) in files.items():
            with open(meta_path, "w") as f:
                f.write(good_meta)
            with open(newest, "wb") as f:
                f.write(good_pt)
            if part == "json":
                if data is None:
                    os.remove(meta_path)
                else:
                    with open(meta_path, "w") as f:
                        f.write(data)
            elif data == "PICKLE":
                _pickle_payload(newest, marker)
            else:
                with open(newest, "wb") as f:
                    f.write(data)
            out.append({"target": "checkpoint", "case": case, "outcome": _classify_checkpoint(run, cfg, marker)})
        with open(meta_path, "w") as f:
            f.write(good_meta)
        with open(newest, "wb") as f:
            f.write(good_pt)
        good_config = open(os.path.join(run, "config.json")).read()
        for case, text in (("config.json: 100,000-deep", "[" * 100_000 + "]" * 100_000),
                           ("config.json: a list", "[1, 2]"), ("config.json: game a number", '{"game": 5}'),
                           ("config.json: truncated", good_config[: len(good_config) // 2])):
            with open(os.path.join(run, "config.json"), "w") as f:
                f.write(text)
            out.append({"target": "checkpoint", "case": case, "outcome": _classify_resume_cli(train, run)})
    return out


def _classify_resume_cli(train, run: str) -> str:
    """`train.py --resume run` on a damaged config.json: a SystemExit naming it is clear."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            train.train(train.parse_args(["--resume", run, "--total-steps", "1536"]))
    except SystemExit as exc:
        return "clear" if "config.json" in str(exc) else "unclear"
    except Exception:  # noqa: BLE001
        return "unclear"
    return "silently accepted"


# ---------------------------------------------------------------------------- issue 36: what play and SB3 reach, tampered rows, env edges
# A doubled card's places that from_dict refused (issue 36, item 4), each with the first seeded
# random game reaching it: (zone of the state, num_players, seed, options).
_DOUBLED = {
    "played for its power, in play": ("held", 4, 20, dict(teams=True, fly_in_adventure=False, bought_to="hand")),
    "released into the box": ("box", 4, 109, dict(card_use="both", fly_in_adventure=False, bought_to="hand")),
    "chosen from the discard to release": ("release_from_discard", 4, 173, dict(
        teams=True, card_use="both", draw_rule="draw_5", turn_loops="allow")),
    "drawn back by a Bell": ("revealed", 4, 220, dict(teams=True, draw_rule="draw_5", mark_return="allow",
                                                      turn_loops="allow")),
    "given by a Bitter Brew, in play": ("in_play", 3, 270, dict(abbey=True, fly_in_adventure=False,
                                                                mark_return="allow", turn_loops="allow")),
    "given by a Bitter Brew, in an opponent's discard": ("opponent", 3, 270, dict(
        abbey=True, fly_in_adventure=False, mark_return="allow", turn_loops="allow")),
}
_REACHED_OPTIONS = [(2, {}), (3, {"abbey": True}), (4, {"teams": True}), (4, {"teams": True, "abbey": True}),
                    (2, {"card_use": "both", "turn_loops": "allow"}), (3, {"bought_to": "hand", "draw_rule": "draw_5"})]


def _zone(s, zone: str) -> list:
    from fantastiqa_rl.powers import held_in_play

    if zone == "held":
        return [i for i in s.powered if held_in_play(s.opts, s.g, i)]
    if zone == "opponent":
        return [i for o in range(s.n) if s.is_opponent(s.cur, o) for i in s.discard[o]]
    return list(getattr(s, zone))


def _first_reaching(pred, n, seed, opts, games=3):
    from fantastiqa_rl.state import FantastiqaState

    for g in range(seed, seed + games):
        rng = np.random.default_rng(g)
        s = FantastiqaState.new(n, seed=g, turn_limit=30, **opts)
        while not s.is_terminal():
            if pred(s):
                return s
            s.apply(int(rng.choice(s.legal_actions())))
    return None


def _classify_reached(cls, state) -> str:
    """A state play reached must load equal: clear; refused (a wrong answer of the loader): unclear;
    loaded different: crash later."""
    try:
        again = cls.from_dict(json.loads(json.dumps(state.to_dict())))
    except Exception:  # noqa: BLE001
        return "unclear"
    return "clear" if again.to_dict() == state.to_dict() else "crash later"


def reached_rows() -> list[dict]:
    """Issue 36, item 4: reached states that must round-trip (the issue's position, a doubled card in
    each place play moves it, and whole random games of both games sampled every 25 steps)."""
    from fae_rl import FaeState
    from fantastiqa_rl.state import FantastiqaState

    out = []
    s = FantastiqaState.new(2, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(400):
        s.apply(int(rng.choice(s.legal_actions())))
    out.append({"target": "reached state", "case": "the issue's position (seed 3, 400 random moves)",
                "outcome": _classify_reached(FantastiqaState, s)})
    for case, (zone, n, seed, opts) in _DOUBLED.items():
        s = _first_reaching(lambda s, z=zone: bool(s.boosted) and any(i in _zone(s, z) for i in s.boosted), n, seed,
                            opts)
        out.append({"target": "reached state", "case": f"a doubled card {case}",
                    "outcome": "unclear" if s is None else _classify_reached(FantastiqaState, s)})
    for k, (n, opts) in enumerate(_REACHED_OPTIONS):
        s, rng, outcomes = FantastiqaState.new(n, seed=k, **opts), np.random.default_rng(k), []
        step = 0
        while True:
            if step % 25 == 0 or s.is_terminal() or any(i not in s.hand[s.cur] for i in s.boosted):
                outcomes.append(_classify_reached(FantastiqaState, s))
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
            step += 1
        worst = next((o for o in OUTCOMES[1:] if o in outcomes), "clear")
        out.append({"target": "reached state", "case": f"Fantastiqa {n}p {opts or 'defaults'}: {len(outcomes)} "
                                                        "states of a random game", "outcome": worst})
    for k in range(6):
        s, rng, outcomes = FaeState.new(2 + k % 3, seed=k, big_stack_merge=k % 2 == 1), np.random.default_rng(k), []
        while True:
            outcomes.append(_classify_reached(FaeState, s))
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
        worst = next((o for o in OUTCOMES[1:] if o in outcomes), "clear")
        out.append({"target": "reached state", "case": f"Fae {2 + k % 3}p: every state of a random game",
                    "outcome": worst})
    return out


def _snapshot_env(env):
    game = getattr(env.unwrapped, "game", None)
    return None if game is None else json.dumps(game.to_dict(), sort_keys=True)


def _faces(game: str):
    """(face name, make() -> (stepper, snapshot, legal int)) of every single-game face of `game`."""
    from fae_rl import FaeState
    from fantastiqa_rl.state import FantastiqaState
    from tabletop_rl.training.learner import make_learner_core
    from tabletop_rl.training.learner_envs import LearnerEnv
    from tabletop_rl.envs.registry import get_game
    from tabletop_rl.training.selfplay import SelfPlayEnv

    def core():
        s = FaeState.new(2, seed=0) if game == "fae" else FantastiqaState.new(2, seed=0)
        return s.apply, lambda: json.dumps(s.to_dict(), sort_keys=True), int(s.legal_actions()[0])

    def aec(face):
        def make():
            env = getattr(get_game(game), face)(num_players=2)
            env.reset(seed=0)
            mask = env.observe(env.agent_selection)["action_mask"]
            return env.step, lambda: _snapshot_env(env), int(np.flatnonzero(mask)[0])
        return make

    def gym(kind):
        def make():
            env = SelfPlayEnv(game, opponent="random", seat=0) if kind == "SelfPlayEnv" else \
                LearnerEnv(make_learner_core(game, 1, opponents={"random": 1.0}))
            env.reset(seed=0)
            snap = (lambda: json.dumps(env.get_snapshot(), sort_keys=True, default=str)) if kind == "SelfPlayEnv" \
                else (lambda: json.dumps(env.core.batch.state(0).to_dict(), sort_keys=True))
            return env.step, snap, int(np.flatnonzero(env.action_masks())[0])
        return make

    return [("core apply", core), ("AEC env.step", aec("env")), ("AEC raw_env.step", aec("raw_env")),
            ("SelfPlayEnv.step", gym("SelfPlayEnv")), ("LearnerEnv.step", gym("LearnerEnv"))]


def sb3_action_rows() -> list[dict]:
    """Issue 36, item 5: the 0-d int64 array MaskablePPO.predict returns plays on every face as its
    int (clear: the same state as the int gives; refused: unclear); 0-d bool, float, object and
    string arrays are still refused (clear: a ValueError and nothing changed)."""
    try:
        import gymnasium
        from sb3_contrib import MaskablePPO
    except ImportError:
        print("sb3-contrib is not installed: the SB3 predict rows are not included")
        return []
    from tabletop_rl.envs.registry import get_game

    class Spaces(gymnasium.Env):
        def __init__(self, obs, n):
            self.observation_space, self.action_space = obs, gymnasium.spaces.Discrete(n)

        def action_masks(self):
            return np.ones(self.action_space.n, dtype=bool)

    out = []
    for game in ("fae", "fantastiqa"):
        env = get_game(game).env(num_players=2)
        env.reset(seed=0)
        agent = env.agent_selection
        obs = env.observe(agent)
        model = MaskablePPO("MlpPolicy", Spaces(env.observation_space(agent)["observation"], env.action_space(agent).n),
                            n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")
        predicted, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool),
                                     deterministic=True)
        for face, make in _faces(game):
            step, snapshot, legal = make()
            twin_step, twin_snapshot, _ = make()
            case = f"{game} {face}: MaskablePPO.predict's {predicted.dtype} array of shape {predicted.shape}"
            action = np.array(legal, dtype=predicted.dtype)  # predict's type and shape, this face's legal move
            try:
                step(action)
                twin_step(legal)
                outcome = "clear" if snapshot() == twin_snapshot() else "crash later"
            except Exception:  # noqa: BLE001
                outcome = "unclear"
            out.append({"target": "SB3 predict action", "case": case, "outcome": outcome})
            for bad in (np.array(True), np.array(float(legal)), np.array(legal, dtype=object), np.array(str(legal))):
                step, snapshot, _ = make()
                before = snapshot()
                try:
                    step(bad)
                    outcome = "silently accepted"
                except ValueError:
                    outcome = "clear" if snapshot() == before else "crash later"
                except Exception:  # noqa: BLE001
                    outcome = "unclear"
                out.append({"target": "SB3 predict action", "case": f"{game} {face}: 0-d {bad.dtype} array {bad!r}",
                            "outcome": outcome})
    return out


def _refusal(fn, before, after, pattern: str) -> str:
    """clear: a ValueError/RuntimeError matching `pattern` and nothing changed; silently accepted: no
    error; unclear: another exception or a message that names nothing; crash later: refused after a
    change."""
    try:
        fn()
    except (ValueError, RuntimeError) as exc:
        if not re.search(pattern, str(exc)):
            return "unclear"
        return "clear" if after() == before else "crash later"
    except Exception:  # noqa: BLE001
        return "unclear"
    return "silently accepted"


def vector_rows() -> list[dict]:
    """Issue 36, item 7: state objects changed by hand, written into a FaeVector / FantastiqaVector row."""
    from fae_rl import FaeState
    from fae_rl.vector import FaeVector
    from fantastiqa_rl.state import FantastiqaState
    from fantastiqa_rl.vector import FantastiqaVector

    out = []
    rng = np.random.default_rng(4)
    fae = FaeState.new(2, seed=4)
    while not fae.pending:
        fae.apply(int(rng.choice(fae.legal_actions())))
    from fae_rl import vector_core as C

    def row(name, offset, value):  # a FaeState is one row of FaeVector's layout (issue 38)
        return lambda s: getattr(s, name).__setitem__((0, offset), value)

    tampers = {"seat 9": row("_w", C.W_CURRENT, 9), "pending flag 2": row("_b", C.B_PENDING, 2),
               "colour 9": lambda s: setattr(s, "colours", [s.colours[0], 9]),
               "last action 5000": row("_w", C.W_LAST, 5000),
               "200 druids on a space": row("_b", C.B_DRUIDS, 200),
               "count 255": row("_b", C.B_COUNT, 255), "resolved 2": row("_b", C.B_RESOLVED, 2),
               "13 ritual cards": row("_w", C.W_RITUAL, 13),
               "terminal 2": row("_w", C.W_TERMINAL, 2),
               "moved -1": row("_w", C.W_MOVED, -1)}
    v = FaeVector(3, 2)
    v.reset(np.arange(3))
    for case, tamper in tampers.items():
        bad = fae.clone()
        tamper(bad)
        before = (v._b.tobytes(), v._w.tobytes())
        out.append({"target": "vector set_state", "case": f"FaeVector: {case}", "outcome": _refusal(
            lambda b=bad: v.set_state(1, b), before, lambda: (v._b.tobytes(), v._w.tobytes()), r"set_state: state\.")})
    fq = FantastiqaState.new(2, seed=5)
    rng = np.random.default_rng(5)
    while not (fq.phase_name == "MAIN" and fq.turns > 3):
        fq.apply(int(rng.choice(fq.legal_actions())))
    m = fq.g.num_instances
    tampers = {"seat 9": lambda s: setattr(s, "cur", 9), "phase 99": lambda s: setattr(s, "phase", 99),
               "return phase 99": lambda s: setattr(s, "ret", 99), "position 9": lambda s: s.position.__setitem__(0, 9),
               "hand card past the card file": lambda s: s.hand[0].__setitem__(0, m + 10),
               "board card past the card file": lambda s: s.board.__setitem__(0, m + 10),
               "target past the card file": lambda s: setattr(s, "target", m + 5),
               "reason 7": lambda s: setattr(s, "reason", 7), "winners before the end": lambda s: setattr(s, "winners_", [0]),
               "effect argument 99": lambda s: setattr(s, "effects", [("gain_gems", 99, 0)]),
               "negative gems": lambda s: s.gems.__setitem__(1, -3)}
    w = FantastiqaVector(3, 2)
    w.reset(np.arange(3))
    for case, tamper in tampers.items():
        bad = fq.clone()
        tamper(bad)
        before = (w._c.tobytes(), w._w.tobytes())
        out.append({"target": "vector set_state", "case": f"FantastiqaVector: {case}", "outcome": _refusal(
            lambda b=bad: w.set_state(1, b), before, lambda: (w._c.tobytes(), w._w.tobytes()),
            r"game 1: .*value outside what its rows hold")})
    return out


def aec_rows() -> list[dict]:
    """Issue 36, item 7: the AEC env edges (an unknown agent, last() after the end, reset's seed) and
    seeds past int64 in the batched engines."""
    from fae_rl.vector import FaeVector
    from tabletop_rl.envs.registry import get_game
    from tabletop_rl.envs.scalar_batch import ScalarBatch

    out = []
    for game in ("fae", "fantastiqa"):
        for face in ("env", "raw_env"):
            def make():
                env = getattr(get_game(game), face)(num_players=2, **({"max_turns": 2} if game == "fantastiqa" else {}))
                env.reset(seed=0)
                return env
            env = make()
            for agent in ("player_9", "bob", ["player_0"]):
                for call in ("observe", "observation_space", "action_space"):
                    out.append({"target": "AEC env edge", "case": f"{game} {face}.{call}({agent!r})", "outcome": _refusal(
                        lambda c=call, a=agent: getattr(env, c)(a), None, lambda: None, r"agent must be one of .*got")})
            for seed in (True, 1.5, "1", -1, [1, 2], np.float32(2)):
                env = make()
                out.append({"target": "AEC env edge", "case": f"{game} {face}.reset(seed={seed!r})", "outcome": _refusal(
                    lambda e=env, s=seed: e.reset(seed=s), _snapshot_env(env), lambda e=env: _snapshot_env(e),
                    r"^seed must be an int")})
            env = make()
            rng = np.random.default_rng(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in env.agent_iter():
                    obs, _, term, trunc, _ = env.last()
                    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            out.append({"target": "AEC env edge", "case": f"{game} {face}.last() after the end", "outcome": _refusal(
                env.last, None, lambda: None, r"last\(\) called after the game ended")})
            if face == "raw_env":
                out.append({"target": "AEC env edge", "case": f"{game} raw_env.step(0) after the end",
                            "outcome": _refusal(lambda e=env: e.step(0), None, lambda: None,
                                                r"step\(\) called after the game ended")})
                fresh = getattr(get_game(game), face)(num_players=2)
                out.append({"target": "AEC env edge", "case": f"{game} raw_env.step(0) before reset",
                            "outcome": _refusal(lambda e=fresh: e.step(0), None, lambda: None,
                                                r"step\(\) called before reset")})
    for name, batch in (("FaeVector", FaeVector(2, 2)), ("ScalarBatch(fantastiqa)", ScalarBatch(get_game("fantastiqa"), 2, 2))):
        batch.reset([1, 2])

        def dealt(b=batch):
            return [json.dumps(b.state(i).to_dict(), sort_keys=True) for i in range(2)]
        for seeds in (np.array([1, 2**64 - 1], dtype=np.uint64), [1, 2**63], [1, 2**70]):
            out.append({"target": "AEC env edge", "case": f"{name}.reset({seeds!r})", "outcome": _refusal(
                lambda b=batch, s=seeds: b.reset(s), dealt(), dealt, r"seeds must fit int64")})
    return out


def issue36_rows() -> list[dict]:
    """Every row of issue 36's items 4, 5 and 7 (the state, action and env parts)."""
    return reached_rows() + sb3_action_rows() + vector_rows() + aec_rows()


# ---------------------------------------------------------------------------- the table
def rows(quick: bool = False) -> list[dict]:
    """Every case of the targets: {"target", "case", "outcome"}; `quick` leaves out the checkpoint
    rows (they train a tiny run first)."""
    return state_rows() + card_rows() + issue36_rows() + ([] if quick else checkpoint_rows())


def table(all_rows: list[dict]) -> str:
    targets = list(dict.fromkeys(r["target"] for r in all_rows))
    head = f"{'target':18s} {'tried':>6s} " + " ".join(f"{o:>17s}" for o in OUTCOMES)
    lines = [head, "-" * len(head)]
    for t in targets + ["all"]:
        sel = [r for r in all_rows if t in ("all", r["target"])]
        lines.append(f"{t:18s} {len(sel):6d} " + " ".join(f"{sum(r['outcome'] == o for r in sel):17d}" for o in OUTCOMES))
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    import time

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="leave out the checkpoint rows (no tiny training run)")
    parser.add_argument("--issue36", action="store_true", help="only the rows of issue 36 (reached states, SB3 "
                                                               "predict actions, vector set_state, AEC env edges)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    all_rows = issue36_rows() if args.issue36 else rows(quick=args.quick)
    print(table(all_rows))
    print(f"\n({time.perf_counter() - start:.0f} s)")
    rest = [r for r in all_rows if r["outcome"] != "clear"]
    if rest:
        print("\nnot clear:")
        for r in rest:
            print(f"  {r['target']:16s} {r['outcome']:17s} {r['case']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
