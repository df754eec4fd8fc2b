"""The shipped policies by stable version name, read from one small JSON catalogue per game.

    version_names("fae")                 # ['fae_2p_v1', 'fae_2p_v2', ...]
    default_version("fae")               # the strongest: what make_agent("fae", "ppo") plays
    default_version("fae", players=3)    # the default at a 3-player table (fae_3p_v1)
    table_sizes("fae")                   # [2, 3, 4]: the tables with a default
    version_path("fae", "fae_2p_v1")     # fae_rl/policies/fae_2p_v1.npz
    version_entry("fae", "fae_2p_v1")    # name, file, game, players, options, command, figures, ...
    probe_figure("fae", "fae_2p_v5")     # its 10-minute exploitability probe, or None: not measured

The catalogue (`versions.json` beside the policy files: `fae_rl/policies/`, `fantastiqa_rl/policies/`)
is data, never code: a version name is looked up in it and nowhere else, and the file it names must
be a plain `.npz` name in that folder, so a name from a request or a bot spec (`ppo:version=NAME`)
can only ever pick one of the shipped files.

A version's `figures` may hold `exploit_probe`: a list of probes of it (`tabletop_rl.agents.exploit`),
each with its `minutes`, `best_response_win_share`, `wilson95`, `games`, `learner_steps`, `date` and
`measured_by` (the command); an empty list says it was never probed. `probe_figure` reads the
strongest probe at a budget (10 minutes: the figure the baselines table publishes).

A version's optional `play` says how it is played when picked by name (or as the default):
`{"deterministic": false, "temperature": 1.0}` samples from its policy (a mixed strategy: a policy
trained with an entropy bonus against its own best responses is meant to be played so, and its
figures were measured so), `{"deterministic": true}` (the same as no `play`) plays the argmax.
`play_mode` reads it; `PPOAgent` follows it unless the caller says `deterministic=` itself.

`any_card_file` (optional) names the version the default `ppo` plays on another card file than its
default's (Fantastiqa's card-reading policy plays any card file; the default reads the STAND-IN's).

A policy is trained at one table size. `default` names the catalogue's default (the 2-player
table's); the optional `table_defaults` ({"3": name, ...}) names the default of each other table
size, each a version trained at that size, so the `ppo` bot plays the right one wherever it sits
and a table without one is refused rather than played by a policy trained elsewhere.
"""
from __future__ import annotations

import importlib.util
import json
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

CATALOGUE_FILE = "versions.json"
MAX_CATALOGUE_BYTES = 64 * 1024  # the catalogues are a few kB; a bigger file is not one of ours
NAME = re.compile(r"[a-z0-9][a-z0-9_]{0,63}")
FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.npz")
DETAILS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.json")
ENTRY_KEYS = {"name", "file", "details", "game", "players", "options", "command", "figures"}
CATALOGUE_KEYS = {"game", "default", "versions"}
OPTIONAL_KEYS = {"table_defaults", "any_card_file"}
OPTIONAL_ENTRY_KEYS = {"play"}
PLAY_KEYS = {"deterministic", "temperature"}
TEMPERATURES = (0.05, 20.0)  # the range PPOAgent accepts


def _package_dir(name: str) -> Path:
    """A game package's folder, found without importing it (checkout and installed wheel alike)."""
    return Path(importlib.util.find_spec(name).origin).parent


#: game -> the folder of its shipped policies and their catalogue
POLICY_FOLDERS = {"fae": _package_dir("fae_rl") / "policies", "fantastiqa": _package_dir("fantastiqa_rl") / "policies"}


def _bad(path: Path, problem: str) -> ValueError:
    return ValueError(f"policy catalogue {path}: {problem}")


@lru_cache(maxsize=None)
def catalogue(game: str) -> dict:
    """`game`'s catalogue, checked: {"default": name, "versions": {name: entry}}. ValueError names
    the problem (a game without shipped policies, a malformed file)."""
    if game not in POLICY_FOLDERS:
        raise ValueError(f"no shipped policy for game {game!r}; pass path=... (a train.py policy.npz or model.zip)")
    path = POLICY_FOLDERS[game] / CATALOGUE_FILE
    if path.stat().st_size > MAX_CATALOGUE_BYTES:
        raise _bad(path, f"larger than {MAX_CATALOGUE_BYTES} bytes")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not CATALOGUE_KEYS <= set(data) <= CATALOGUE_KEYS | OPTIONAL_KEYS \
            or data["game"] != game or not isinstance(data["versions"], list) or not data["versions"]:
        raise _bad(path, f"must hold game ({game!r}), default and a non-empty list of versions "
                         f"(and optionally {sorted(OPTIONAL_KEYS)})")
    versions = {}
    for entry in data["versions"]:
        if not isinstance(entry, dict) or not ENTRY_KEYS <= set(entry) <= ENTRY_KEYS | OPTIONAL_ENTRY_KEYS:
            raise _bad(path, f"each version needs exactly the keys {sorted(ENTRY_KEYS)} "
                             f"(and optionally {sorted(OPTIONAL_ENTRY_KEYS)})")
        name, file = entry["name"], entry["file"]
        if not (isinstance(name, str) and NAME.fullmatch(name)) or name in versions:
            raise _bad(path, f"version name {name!r} must be unique, lower case letters, digits and _")
        if not (isinstance(file, str) and FILE.fullmatch(file)):
            raise _bad(path, f"{name}: file {file!r} must be a plain .npz name in {path.parent}")
        if not (isinstance(entry["details"], str) and DETAILS.fullmatch(entry["details"])):
            raise _bad(path, f"{name}: details {entry['details']!r} must be a plain .json name in {path.parent}")
        if entry["game"] != game or isinstance(entry["players"], bool) or not isinstance(entry["players"], int) \
                or not isinstance(entry["options"], dict) or not isinstance(entry["figures"], dict):
            raise _bad(path, f"{name}: game must be {game!r}, players an int, options and figures objects")
        _check_probes(path, name, entry["figures"].get("exploit_probe", []))
        _check_play(path, name, entry.get("play", {"deterministic": True}))
        versions[name] = entry
    if data["default"] not in versions:
        raise _bad(path, f"default {data['default']!r} is not one of its versions {sorted(versions)}")
    any_file = data.get("any_card_file")
    if any_file is not None and (not isinstance(any_file, str) or any_file not in versions):
        raise _bad(path, f"any_card_file {str(any_file)[:80]!r} is not one of its versions {sorted(versions)}")
    return {"default": data["default"], "versions": versions, "any_card_file": any_file,
            "tables": _table_defaults(path, data["default"], data.get("table_defaults", {}), versions)}


PROBE_KEYS = {"minutes", "best_response_win_share", "wilson95", "games", "learner_steps", "date", "measured_by"}


def _check_probes(path: Path, name: str, probes) -> None:
    """A version's `exploit_probe` figures: a list of probe records with numbers where numbers go."""
    def number(x) -> bool:
        return not isinstance(x, bool) and isinstance(x, (int, float))

    ok = isinstance(probes, list)
    for p in probes if ok else ():
        ok = ok and isinstance(p, dict) and PROBE_KEYS <= set(p) and number(p["minutes"]) and p["minutes"] > 0 \
            and number(p["best_response_win_share"]) and 0 <= p["best_response_win_share"] <= 1 \
            and isinstance(p["wilson95"], list) and len(p["wilson95"]) == 2 and all(map(number, p["wilson95"])) \
            and isinstance(p["games"], int) and isinstance(p["learner_steps"], int) \
            and isinstance(p["date"], str) and isinstance(p["measured_by"], str)
    if not ok:
        raise _bad(path, f"{name}: figures.exploit_probe must be a list of probes, each with {sorted(PROBE_KEYS)}")


def is_temperature(t) -> bool:
    """Whether `t` is a sampling temperature the ppo bot accepts: a number (not a bool) in TEMPERATURES."""
    return not isinstance(t, bool) and isinstance(t, (int, float)) and TEMPERATURES[0] <= float(t) <= TEMPERATURES[1]


def _check_play(path: Path, name: str, play) -> None:
    """A version's `play`: {"deterministic": true} or {"deterministic": false[, "temperature": T]}."""
    ok = isinstance(play, dict) and "deterministic" in play and set(play) <= PLAY_KEYS \
        and isinstance(play["deterministic"], bool)
    if ok and "temperature" in play:  # a temperature only for sampled play
        ok = play["deterministic"] is False and is_temperature(play["temperature"])
    if not ok:
        raise _bad(path, f"{name}: play must be {{\"deterministic\": true}} or {{\"deterministic\": false, "
                         f"\"temperature\": T}} with T in {list(TEMPERATURES)}")


def _table_defaults(path: Path, default: str, named, versions: dict) -> dict[int, str]:
    """players -> default version: the catalogue's default at its own table, `table_defaults` at
    the others (each trained at the table it is the default of)."""
    tables = {versions[default]["players"]: default}
    if not isinstance(named, dict):
        raise _bad(path, "table_defaults must be an object {\"players\": version name}")
    for key, name in named.items():
        # ASCII digits only ('²' and '٣' are str.isdigit too: int() fails on the one, reads the other)
        players = int(key) if isinstance(key, str) and re.fullmatch(r"[0-9]{1,2}", key) else None
        if players is None or players in tables:
            raise _bad(path, f"table_defaults key {key!r} must be a table size (ASCII digits 0-9) "
                             f"other than {sorted(tables)}, each named once")
        if not isinstance(name, str) or name not in versions or versions[name]["players"] != players:
            raise _bad(path, f"table_defaults[{key!r}] = {str(name)[:80]!r} must be a version trained at "
                             f"{players} players")
        tables[players] = name
    return dict(sorted(tables.items()))


def version_names(game: str) -> list[str]:
    """The shipped versions of `game`, in the catalogue's order (oldest first); [] if it ships none."""
    return list(catalogue(game)["versions"]) if game in POLICY_FOLDERS else []


def default_version(game: str, players: int | None = None) -> str:
    """The version `make_agent(game, "ppo")` plays: the strongest measured, at a `players` table
    (None: the catalogue's default). A table without one raises ValueError naming those that have."""
    cat = catalogue(game)
    if players is None:
        return cat["default"]
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise ValueError(f"num_players must be an int table size; got {type(players).__name__} {str(players)[:20]!r}")
    if int(players) not in cat["tables"]:
        raise ValueError(f"no shipped {game} policy for a {str(players)[:20]}-player table; shipped tables: "
                         f"{list(cat['tables'])} (play another bot there, or pass path=... / version=...)")
    return cat["tables"][int(players)]


def any_card_file_version(game: str) -> str | None:
    """The version the default `ppo` plays on a card file other than the one its default was trained on
    (Fantastiqa: a card-reading policy, `tabletop_rl.agents.card_policy`); None where there is none."""
    return catalogue(game)["any_card_file"] if game in POLICY_FOLDERS else None


def table_sizes(game: str) -> list[int]:
    """The table sizes with a default version (for `default_version(game, players)`)."""
    return list(catalogue(game)["tables"])


def version_entry(game: str, version: str | None = None) -> dict:
    """The catalogue entry of `version` (default: the default one); an unknown name raises
    ValueError listing the known ones."""
    cat = catalogue(game)
    version = cat["default"] if version is None else version
    if not isinstance(version, str) or version not in cat["versions"]:
        raise ValueError(f"no shipped {game} policy version {str(version)[:80]!r}; known: {list(cat['versions'])}")
    return cat["versions"][version]


def probe_figure(game: str, version: str | None = None, minutes: float = 10) -> dict | None:
    """The exploitability probe of `version` (default: the default one) at `minutes` of training
    whose best response won most: each probe is a lower bound on exploitability, so the highest is
    the tightest (a probe on a loaded machine runs fewer learner steps and finds less). None where
    it was not measured at that budget."""
    probes = [p for p in version_entry(game, version)["figures"].get("exploit_probe", []) if p["minutes"] == minutes]
    return max(probes, key=lambda p: p["best_response_win_share"]) if probes else None


def play_mode(game: str, version: str | None = None) -> tuple[bool, float]:
    """(deterministic, temperature): how `version` (default: the default one) is played by name:
    its catalogue `play`, else argmax (True, 1.0)."""
    play = version_entry(game, version).get("play", {"deterministic": True})
    return play["deterministic"], float(play.get("temperature", 1.0))


def version_path(game: str, version: str | None = None) -> Path:
    """The policy file of `version` (default: the default one), inside the game's policies folder."""
    file = version_entry(game, version)["file"]  # first: an unknown game raises naming it
    return POLICY_FOLDERS[game] / file


__all__ = ["CATALOGUE_FILE", "POLICY_FOLDERS", "any_card_file_version", "catalogue", "default_version", "is_temperature",
           "play_mode", "probe_figure", "table_sizes", "version_entry", "version_names", "version_path"]
