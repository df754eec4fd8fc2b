"""Reading a policy `.npz` (`PolicyWeights.save`'s format) that someone else may have written.

    header, arrays = read_policy_npz(path)   # validated JSON header, {"W0": float32 array, "b0": ...}

The file is data, never code, and never a way to exhaust the machine: no pickle (no `np.load`), and
every size is checked before the bytes it sizes are read. The zip directory is checked first (only
`.npy` members, unique names, stored or deflated, not encrypted, member sizes within the budget),
then each member's `.npy` header (a float or, for `header`, uint8 dtype; its shape within the budget
and matching the member's size), and only then its data, read up to the size the directory gave.
The budget, `MAX_POLICY_VALUES` float values in all layers together, is ~30x the largest shipped
policy; a 1 MB file that would decompress to gigabytes is refused before any allocation.

Then what the header and arrays say together (`check_policy`), so that a file that loads also plays:
`meta.options` must be options `meta.game` takes (the game's own check: the engine it trains on
is built with them), and for the MLP the layers must chain, give at least one action, have as many
inputs and actions as that game with those options and seats, carry at most `MAX_SKIP_TERMS` skip
terms with coefficients within +-`MAX_SKIP_COEFFICIENT`, and give finite logits on an all-zero
and an all-one observation. (A policy of another architecture, `meta.architecture`, has its
layers checked by its own class.)

Every malformed file raises `PolicyFileError` naming the file and the problem.
"""
from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

MAX_LAYERS = 64  # a policy file naming more layers is rejected (no real policy comes close)
MAX_HEADER_BYTES = 1 << 20  # the JSON header
MAX_POLICY_VALUES = 1 << 24  # weights and biases of all layers (64 MiB as float32); shipped: 0.53M at most
MAX_FILE_BYTES = 1 << 28
MAX_JSON_DEPTH = 16  # the header's nesting (a real one is 3 deep: header -> meta -> options)
MAX_DIRECTORY_BYTES = 1 << 16  # the zip directory (a shipped policy's: under 1 kB)
_NPY_HEADER_BYTES = 1 << 14  # a member's .npy header (numpy's own parser stops at 10,000 bytes)
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
_READ_ERRORS = (ValueError, TypeError, OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError,
                RuntimeError)
_HEADER_KEYS = {"activation", "layers", "meta", "skip"}
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}  # the hidden layers' activations
MAX_SKIP_TERMS = 16  # skip terms of a policy (train.py writes one per per-action block: Fae's versus has 4)
MAX_SKIP_COEFFICIENT = 1e4  # |coefficient| of a skip term (shipped: at most 25; 1e308 is inf as float32)


class PolicyFileError(ValueError):
    """A policy file that cannot be loaded (unsafe, malformed or inconsistent); names file and problem."""


def file_error(path, problem: str) -> PolicyFileError:
    return PolicyFileError(f"policy file {str(path)!r}: {problem}")


def read_policy_npz(path) -> tuple[dict, dict[str, np.ndarray]]:
    """(header, arrays) of a policy .npz: the header's types checked (`check_header`), the arrays
    `W0, b0, ...` as finite float32 arrays of the right ranks, one pair per layer."""
    path = Path(path)
    if not path.is_file():
        raise file_error(path, "no such file" if not path.exists() else "not a regular file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise file_error(path, f"{path.stat().st_size} bytes; a policy file has at most {MAX_FILE_BYTES}")
    if not zipfile.is_zipfile(path):
        raise file_error(path, "not an .npz archive (policies are .npz files written by PolicyWeights.save)")
    try:
        members = _read_members(path)
    except PolicyFileError:
        raise
    except _READ_ERRORS as exc:
        raise file_error(path, f"unreadable ({type(exc).__name__}: {exc})") from None
    if "header" not in members:
        raise file_error(path, "no 'header' entry")
    header = check_header(path, _parse_json(path, members.pop("header")))
    expected = {f"{k}{i}" for i in range(header["layers"]) for k in "Wb"}
    if set(members) != expected:
        raise file_error(path, f"entries {sorted(members | {'header': 0})} do not match {header['layers']} layer(s): "
                               f"expected {sorted(expected | {'header'})}")
    arrays = {}
    for key, arr in members.items():
        ndim = 2 if key[0] == "W" else 1
        if arr.ndim != ndim:
            raise file_error(path, f"'{key}' must be a {ndim}-D float array; got {arr.ndim}-D {arr.dtype}")
        with np.errstate(over="ignore"):
            arr = arr.astype(np.float32)  # finiteness after the cast: 1e300 in float64 is inf in float32
        if not np.isfinite(arr).all():
            raise file_error(path, f"'{key}' holds NaN or infinite values (as float32)")
        arrays[key] = arr
    check_policy(path, header, arrays)
    return header, arrays


def check_policy(path, header: dict, arrays: dict) -> None:
    """What the header and arrays say together (module docstring): `meta.options` by the game's own
    check and, for the MLP, its layers, skip terms, sizes and finite logits. PolicyFileError naming
    the problem."""
    meta = header["meta"]
    sizes = game_sizes(path, meta)  # (inputs, actions) of meta.game with its options, or None
    if "architecture" in meta:  # another architecture (tabletop_rl.agents.card_policy): its class checks its layers
        return
    layers = [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(header["layers"])]
    for i, (w, b) in enumerate(layers):
        if b.shape[0] != w.shape[1]:
            raise file_error(path, f"'b{i}' has {b.shape[0]} values for the {w.shape[1]} outputs of 'W{i}'")
        if i and w.shape[0] != layers[i - 1][0].shape[1]:
            raise file_error(path, f"layer {i} takes {w.shape[0]} inputs but layer {i - 1} gives {layers[i - 1][0].shape[1]}")
        if 0 in w.shape:
            raise file_error(path, f"'W{i}' is {w.shape[0]} x {w.shape[1]}: a policy maps at least one input to at "
                                   "least one action through layers of at least one unit")
    inputs, actions = layers[0][0].shape[0], layers[-1][0].shape[1]
    skip = header["skip"]
    if len(skip) > MAX_SKIP_TERMS:
        raise file_error(path, f"{len(skip)} skip terms; a policy has at most {MAX_SKIP_TERMS}")
    for start, coef in skip:
        if not 0 <= start <= inputs - actions:
            raise file_error(path, f"skip term [{start}, {coef}]: its {actions} inputs from {start} are past the "
                                   f"policy's {inputs}")
        if abs(coef) > MAX_SKIP_COEFFICIENT:
            raise file_error(path, f"skip term [{start}, {coef}]: its coefficient is over {MAX_SKIP_COEFFICIENT:g} "
                                   "in size")
    if sizes is not None and sizes != (inputs, actions):
        raise file_error(path, f"the policy maps {inputs} inputs to {actions} actions; {meta['game']} with options "
                               f"{meta.get('options') or {}} at {meta.get('num_players', 'its fewest')} players has "
                               f"{sizes[0]} and {sizes[1]}")
    act = ACTIVATIONS[header["activation"]]
    for fill in (0.0, 1.0):
        obs = np.full(inputs, fill, dtype=np.float32)
        x = obs
        with np.errstate(all="ignore"):
            for w, b in layers[:-1]:
                x = act(x @ w + b)
            logits = x @ layers[-1][0] + layers[-1][1]
            for start, coef in skip:
                logits = logits + np.float32(coef) * obs[start:start + actions]
        if not np.isfinite(logits).all():
            raise file_error(path, f"its logits on an all-{fill:g} observation are not finite (NaN or inf): weights "
                                   "too large for float32")


def game_sizes(path, meta: dict) -> tuple[int, int] | None:
    """(inputs, actions) of the game `meta` names (None: it names none), with its `options` and
    `num_players` (default: the game's fewest), as the game's engine sees them: the options are
    checked by the game itself (its spec's option names, then the engine or rules core built with
    them). PolicyFileError naming the options the game refuses."""
    game = meta.get("game")
    if game is None:
        return None
    from tabletop_rl.envs.registry import get_game

    spec = get_game(game)
    options = dict(meta.get("options") or {})
    players = spec.min_players if meta.get("num_players") is None else meta["num_players"]
    engine = _engine(spec.name)
    try:
        spec.check_options(options, also=tuple(getattr(engine, "OPTIONS", ())))
        if engine is not None:  # the batched engine training used: every option checked, the sizes it observes
            batch = engine(1, players, **options)
            return int(batch.obs_size), int(batch.num_actions)
        rules, observation = spec.split_options(options)
        state = spec.new_state(num_players=players, seed=0, **rules)
        return int(np.asarray(spec.observe(state, 0, **observation)).size), int(np.asarray(spec.action_mask(state, 0)).size)
    except Exception as exc:  # noqa: BLE001 - whatever the game raises on options it refuses
        raise file_error(path, f"meta 'options' {str(options)[:200]} (num_players {players}) are not what {spec.name} "
                               f"takes: {type(exc).__name__}: {str(exc)[:300]}") from None


def _engine(game: str):
    """The batched engine a game trains on (`tabletop_rl.training.learner.BATCHES`, which this layer
    cannot import), or None: a game without one observes through its spec."""
    if game == "fae":
        from tabletop_rl.envs.fae_batch import FaeBatch

        return FaeBatch
    if game == "fantastiqa":
        from tabletop_rl.agents.fantastiqa_batch import FantastiqaBatch

        return FantastiqaBatch
    return None


def _check_directory(path: Path) -> None:
    """The zip directory's size, from its end record, before zipfile parses it: zipfile reads the
    whole directory into ZipInfo objects (a 100 MB directory is millions of them, gigabytes)."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - (1 << 16) - 22))
        tail = f.read()
    end = tail.rfind(b"PK\x05\x06")
    if end < 0 or len(tail) < end + 22:
        raise file_error(path, "no zip end-of-directory record")
    entries, directory_bytes = struct.unpack_from("<HI", tail, end + 10)
    if tail[max(0, end - 20):end - 16] == b"PK\x06\x07":
        raise file_error(path, "a zip64 directory (a policy file has at most a few hundred entries)")
    if entries > 2 * MAX_LAYERS + 1 or directory_bytes > MAX_DIRECTORY_BYTES:
        raise file_error(path, f"its zip directory lists {entries} entries in {directory_bytes} bytes; a policy of "
                               f"at most {MAX_LAYERS} layers has {2 * MAX_LAYERS + 1} in at most {MAX_DIRECTORY_BYTES}")


def _read_members(path: Path) -> dict[str, np.ndarray]:
    """Every member: the zip directory and every member's .npy header are checked, and the budget
    summed over all members, before any member's data is read."""
    _check_directory(path)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if len(infos) > 2 * MAX_LAYERS + 1:
            raise file_error(path, f"{len(infos)} entries; a policy of at most {MAX_LAYERS} layers has "
                                   f"{2 * MAX_LAYERS + 1}")
        names = [info.filename for info in infos]
        if len(set(names)) != len(names):
            raise file_error(path, "an entry name appears twice")
        layouts = [_member_layout(path, zf, info) for info in infos]
        values = sum(math.prod(shape) for key, shape, *_ in layouts if key != "header")
        if values > MAX_POLICY_VALUES:
            raise file_error(path, f"its arrays hold {values} values, more than {MAX_POLICY_VALUES}; "
                                   "no policy of this suite comes close")
        out = {}
        for info, (key, shape, fortran, dtype, start) in zip(infos, layouts):
            with zf.open(info) as f:  # reads stop at the directory's file_size (then the CRC is checked)
                f.read(start)
                data = f.read(info.file_size - start)
            out[key] = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return out


def _member_layout(path: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple:
    """(key, shape, fortran_order, dtype, data offset) of a member, from the directory and its .npy
    header alone: the sizes are checked here, before anything sized by them is read."""
    name = info.filename
    if not name.endswith(".npy"):
        raise file_error(path, f"entry {name!r} is not an .npy array")
    if info.flag_bits & 0x1:
        raise file_error(path, f"entry {name!r} is encrypted")
    if info.compress_type not in _METHODS:
        raise file_error(path, f"entry {name!r} uses zip compression method {info.compress_type}; "
                               f"a policy file uses {sorted(_METHODS)} ({', '.join(_METHODS.values())})")
    key = name[:-4]
    limit = _NPY_HEADER_BYTES + (MAX_HEADER_BYTES if key == "header" else 8 * MAX_POLICY_VALUES)
    if info.file_size > limit or info.compress_size > path.stat().st_size:
        raise file_error(path, f"entry {name!r} is {info.file_size} bytes uncompressed ({info.compress_size} "
                               f"compressed); at most {limit}")
    with zf.open(info) as f:
        shape, fortran, dtype = _npy_header(path, name, f)
        start = f.tell()
    count = math.prod(shape)
    if key == "header":
        if dtype != np.uint8 or len(shape) != 1 or count > MAX_HEADER_BYTES:
            raise file_error(path, "'header' must be a 1-D uint8 array of JSON (at most 1 MiB)")
    elif dtype.kind != "f" or dtype.itemsize not in (2, 4, 8):
        raise file_error(path, f"'{key}' must be a {2 if key[:1] == 'W' else 1}-D float array; got "
                               f"{len(shape)}-D {dtype}")
    if start + count * dtype.itemsize != info.file_size:
        raise file_error(path, f"entry {name!r}: its .npy header gives {count * dtype.itemsize} bytes of data, "
                               f"the entry holds {info.file_size - start}")
    return key, shape, fortran, dtype, start


def _npy_header(path: Path, name: str, f) -> tuple[tuple, bool, np.dtype]:
    """(shape, fortran_order, dtype) from a member's .npy header; anything else is refused."""
    try:
        version = np.lib.format.read_magic(f)
        read = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read is None:
            raise ValueError(f".npy format version {version} (a policy file uses 1.0 or 2.0)")
        shape, fortran, dtype = read(f, max_header_size=_NPY_HEADER_BYTES)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError, EOFError) as exc:
        raise file_error(path, f"entry {name!r} is not a .npy array ({type(exc).__name__}: {exc})") from None
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise file_error(path, f"entry {name!r} holds {dtype} values (object arrays are pickles: never loaded)")
    return shape, fortran, dtype


def _parse_json(path: Path, raw: np.ndarray):
    try:
        value = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise file_error(path, f"'header' is not UTF-8 JSON ({type(exc).__name__}: {str(exc)[:200]})") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise file_error(path, f"'header' nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def _depth(value) -> int:
    """Nesting depth of parsed JSON (iterative: deep input cannot exhaust the stack)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def check_header(path, header) -> dict:
    """The header's keys and types (`activation`, `layers`, `meta`, `skip`); returns it with defaults."""
    if not isinstance(header, dict) or set(header) - _HEADER_KEYS:
        raise file_error(path, "'header' must be a JSON object with keys activation, layers, meta (and optionally skip)")
    layers, activation = header.get("layers"), header.get("activation")
    if isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        raise file_error(path, f"header 'layers' must be an int in 1..{MAX_LAYERS}; got {layers!r}")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise file_error(path, f"header 'activation' must be one of {sorted(ACTIVATIONS)}; got {activation!r}")
    skip = header.get("skip", [])
    if not isinstance(skip, list) or not all(
            isinstance(s, list) and len(s) == 2 and _is_int(s[0]) and _is_number(s[1]) for s in skip):
        raise file_error(path, f"header 'skip' must be a list of [int start, number coefficient] pairs; got "
                               f"{str(skip)[:200]}")
    meta = header.get("meta", {})
    check_meta(path, meta)
    return {"layers": layers, "activation": activation, "meta": meta, "skip": skip}


def check_meta(path, meta) -> None:
    """What `meta` says the policy was trained on: a registered game, a seat count, scalar options."""
    if not isinstance(meta, dict):
        raise file_error(path, f"header 'meta' must be a JSON object; got {type(meta).__name__}")
    if "game" in meta:
        from tabletop_rl.envs.registry import get_game

        game = meta["game"]
        if not isinstance(game, str):
            raise file_error(path, f"meta 'game' must be a game name (a string); got {game!r}")
        try:
            get_game(game)
        except ValueError as exc:
            raise file_error(path, f"meta 'game': {exc}") from None
    players = meta.get("num_players")
    if players is not None and not (_is_int(players) and 1 <= players <= 64):
        raise file_error(path, f"meta 'num_players' must be an int in 1..64; got {players!r}")
    options = meta.get("options")
    if options is not None and not (isinstance(options, dict) and all(
            isinstance(v, (str, int, float, bool)) or v is None for v in options.values())):
        raise file_error(path, f"meta 'options' must be an object of scalar values; got {str(options)[:200]}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
