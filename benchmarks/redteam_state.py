"""Red-team table of the state-dict, card-file and checkpoint loaders (issue 24).

    python benchmarks/redteam_state.py          # prints the table, then every case not "clear"

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
"""
from __future__ import annotations

import contextlib
import copy
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
    from fae_rl import FaeState
    from fantastiqa_rl.state import FantastiqaState

    out = []
    for target, cls, positions, semantic in (("fantastiqa state", FantastiqaState, _fantastiqa_positions(), _fantastiqa_semantic),
                                             ("fae state", FaeState, _fae_positions(), _fae_semantic)):
        rng = np.random.default_rng(24)
        for name, d in positions.items():
            for case, bad in mutations(d):
                out.append({"target": target, "case": f"{name}: {case}", "outcome": _classify_state(cls, bad, rng)})
        for case, bad in semantic(positions):
            out.append({"target": target, "case": case, "outcome": _classify_state(cls, bad, rng)})
    return out


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
    with tempfile.TemporaryDirectory() as tmp:
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


# ---------------------------------------------------------------------------- the table
def rows() -> list[dict]:
    """Every case of the four targets: {"target", "case", "outcome"}."""
    return state_rows() + card_rows() + checkpoint_rows()


def table(all_rows: list[dict]) -> str:
    targets = list(dict.fromkeys(r["target"] for r in all_rows))
    head = f"{'target':18s} {'tried':>6s} " + " ".join(f"{o:>17s}" for o in OUTCOMES)
    lines = [head, "-" * len(head)]
    for t in targets + ["all"]:
        sel = [r for r in all_rows if t in ("all", r["target"])]
        lines.append(f"{t:18s} {len(sel):6d} " + " ".join(f"{sum(r['outcome'] == o for r in sel):17d}" for o in OUTCOMES))
    return "\n".join(lines)


def main() -> int:
    import time

    start = time.perf_counter()
    all_rows = rows()
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
