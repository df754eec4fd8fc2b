"""The red-team report of issue 24: every loader attack, and what each entry point made of it.

    python benchmarks/redteam.py            # the full run (this module's rows: 65 s on 2 busy cores; the bombs are full size)
    python benchmarks/redteam.py --quick    # smaller bombs (tests/test_redteam.py runs this part)
    python benchmarks/redteam.py --no-others   # this module's rows only (not redteam_web's and redteam_state's)

Targets: policy `.npz` payloads (`PolicyWeights.load`), bot specs and Python arguments that try to
switch on unpickling (`parse_agent`, the arena, `make_agent`, `PolicyWeights.load`, `RLlibAgent`),
OpenSpiel actions and histories (`python_fae`), actions and seeds that are not integers
(`SelfPlayEnv`, the Fae vector adapters, `FaeVector`), and (issue 36) policy files whose meta, sizes,
skip terms or logits would fail at the first move, run folders whose config.json names Python to
import (`train.py --resume`), and checkpoints that restored and then crashed or trained on wrongly
(NaN weights, dtype "O", unknown eval_opponents, NaN episode infos, string step counters, stray
tensors). Rows of `benchmarks/redteam_web.py` and `benchmarks/redteam_state.py` (the web app, state
dicts and resume) are added when those modules exist.

Each row is {"target", "case", "outcome"}; the outcome is one of
- "clear": refused with the error the entry point documents (naming the problem), nothing changed;
- "unclear": refused, but with another exception (AttributeError, RecursionError, a hang, out of memory);
- "silently accepted": taken as if valid;
- "crash later": taken, and the damage shows later (NaN logits, an error on first use);
- "code executed": a pickle inside it ran (a marker file appeared).
Every policy-file case runs in a forked child with a memory cap (1.5 GiB above the parent) and a
time limit, so a file that would allocate gigabytes on old code is reported, not suffered.
"""
from __future__ import annotations

import argparse
import base64
import importlib
import io
import json
import os
import pickle
import resource
import select
import signal
import struct
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

OUTCOMES = ("clear", "unclear", "silently accepted", "crash later", "code executed")
CHILD_SECONDS = 60  # one policy-file case at most (a full-size bomb loads in a few seconds on old code)
CHILD_EXTRA_BYTES = 3 << 29  # address space a case may add to the parent's
REFUSAL_BYTES = 16 << 20  # a refused policy file allocates less than this (the budget is checked first)


# ----------------------------------------------------------------------------- payload pieces
class Payload:
    """Unpickling this calls open(marker, "w"): the marker file appears iff the pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


def header_bytes(header) -> bytes:
    return npy(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))


GOOD_HEADER = {"activation": "tanh", "layers": 1, "meta": {}}  # names no game: 4 inputs and 3 actions are its own


def good_members(**override) -> dict:
    """Members of a valid one-layer policy (4 inputs, 3 actions); `override` replaces members (None drops)."""
    members = {"header.npy": header_bytes(GOOD_HEADER), "W0.npy": npy(np.zeros((4, 3), np.float32)),
               "b0.npy": npy(np.zeros(3, np.float32))}
    members.update(override)
    return {k: v for k, v in members.items() if v is not None}


def write_zip(path, members: dict, method=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return Path(path)


def patch_zip(path, member: str, local_offset: int, central_offset: int, fmt: str, value) -> None:
    """Overwrite a field of `member`'s local and central headers (zipfile will not write these)."""
    data = bytearray(Path(path).read_bytes())
    name = member.encode()
    for sig, off in ((b"PK\x03\x04", local_offset), (b"PK\x01\x02", central_offset)):
        i = data.find(sig)
        name_at = 30 if sig == b"PK\x03\x04" else 46
        while i >= 0 and data[i + name_at:i + name_at + len(name)] != name:
            i = data.find(sig, i + 1)
        struct.pack_into(fmt, data, i + off, value)
    Path(path).write_bytes(bytes(data))


def stream_member(z: zipfile.ZipFile, name: str, head: bytes, nbytes: int) -> None:
    """A member of `head` then `nbytes` zero bytes, deflated while written (never held in memory)."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with z.open(info, "w", force_zip64=True) as f:
        f.write(head)
        chunk = bytes(1 << 22)
        while nbytes > 0:
            f.write(chunk[:min(nbytes, len(chunk))])
            nbytes -= len(chunk)


def width_bomb(path, width: int) -> Path:
    """The issue's 0.98 MB file: hidden width `width` of float16 zeros (Fae's 2183 inputs)."""
    return zeros_policy(path, [(2183, width), (width, 330)])


def zeros_policy(path, shapes) -> Path:
    """A policy of float16 zeros with layers of these (in, out) shapes, deflated while written."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.npy", header_bytes({"activation": "tanh", "layers": len(shapes), "meta": {"game": "fae"}}))
        members = [(f"{k}{i}", shape if k == "W" else shape[1:]) for i, shape in enumerate(shapes) for k in "Wb"]
        for name, shape in members:
            buf = io.BytesIO()
            np.lib.format.write_array_header_1_0(buf, {"descr": "<f2", "fortran_order": False, "shape": shape})
            head = buf.getvalue()
            stream_member(z, f"{name}.npy", head, 2 * int(np.prod(shape)))
    return Path(path)


def header_bomb(path, nbytes: int) -> Path:
    """A `header` member of `nbytes` uint8 (the issue: 1 GiB, decompressed before the 1 MiB check)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "|u1", "fortran_order": False, "shape": (nbytes,)})
        stream_member(z, "header.npy", buf.getvalue(), nbytes)
        z.writestr("W0.npy", npy(np.zeros((4, 3), np.float32)))
        z.writestr("b0.npy", npy(np.zeros(3, np.float32)))
    return Path(path)


def npz_payloads(folder, quick: bool = False) -> list[tuple[str, Path]]:
    """(case, path) of malformed or oversized policy files, each one to be refused with PolicyFileError."""
    folder = Path(folder)
    marker = folder / "pwned"
    cases: list[tuple[str, Path]] = []

    def add(case, members, **kw):
        cases.append((case, write_zip(folder / f"npz{len(cases)}.npz", members, **kw)))

    def header(**h):
        return good_members(**{"header.npy": header_bytes({**GOOD_HEADER, **h})})

    add("member without the .npy magic", good_members(**{"W0.npy": b"just some bytes"}))
    add("member without the .npy suffix", {**good_members(**{"W0.npy": None}), "W0": npy(np.zeros((4, 3), np.float32))})
    add("header JSON 100,000 deep", good_members(**{"header.npy": npy(np.frombuffer(b"[" * 100_000, np.uint8))}))
    add("meta nested 500 deep", header(meta={"game": "fae", "x": json.loads("[" * 500 + "]" * 500)}))
    add("header not UTF-8", good_members(**{"header.npy": npy(np.frombuffer(b"\xff\xfe{}", np.uint8))}))
    add("header a JSON list", good_members(**{"header.npy": header_bytes([1, 2])}))
    add("header of int64", good_members(**{"header.npy": npy(np.arange(5))}))
    add("header pickled object array", good_members(**{"header.npy": npy(np.array([Payload(marker)], dtype=object))}))
    add("W0 pickled object array", good_members(**{"W0.npy": npy(np.array([Payload(marker)], dtype=object))}))
    add("W0 structured dtype", good_members(**{"W0.npy": npy(np.zeros(3, dtype=[("a", "<f4"), ("b", "<f4")]))}))
    add("W0 int64", good_members(**{"W0.npy": npy(np.zeros((4, 3), np.int64))}))
    add("W0 0-D", good_members(**{"W0.npy": npy(np.float32(1.0).reshape(()))}))
    add("b0 2-D", good_members(**{"b0.npy": npy(np.zeros((3, 1), np.float32))}))
    add("W0 1e300 (inf as float32)", good_members(**{"W0.npy": npy(np.full((4, 3), 1e300))}))
    add("W0 NaN float16", good_members(**{"W0.npy": npy(np.full((4, 3), np.nan, np.float16))}))
    add("b0 -inf", good_members(**{"b0.npy": npy(np.full(3, -np.inf, np.float32))}))
    add("W0 data shorter than its .npy header", good_members(**{"W0.npy": npy(np.zeros((4, 3), np.float32))[:-8]}))
    add(".npy format 3.0", good_members(**{"W0.npy": b"\x93NUMPY\x03\x00" + npy(np.zeros((4, 3), np.float32))[10:]}))
    add(".npy header 100 kB", good_members(**{"W0.npy": b"\x93NUMPY\x02\x00" + struct.pack("<I", 100_000)
                                              + b"{" + b" " * 99_998 + b"\n"}))
    add("skip null", header(skip=None))
    add("skip [null, 1]", header(skip=[[None, 1.0]]))
    add("skip [[0], 1]", header(skip=[[[0], 1.0]]))
    add("skip [0, null]", header(skip=[[0, None]]))
    add("skip [0, [1]]", header(skip=[[0, [1.0]]]))
    add("skip [true, 1]", header(skip=[[True, 1.0]]))
    add("skip past the observation", header(skip=[[3, 1.0]]))
    add("activation a list", header(activation=[]))
    add("activation gelu", header(activation="gelu"))
    add("layers true", header(layers=True))
    add("layers 10**9", header(layers=10 ** 9))
    add("layers 2, members of 1", header(layers=2))
    add("extra header key", header(code="import os"))
    add("meta a list", header(meta=[]))
    add("meta.game = 5", header(meta={"game": 5}))
    add("meta.game = 'nope'", header(meta={"game": "nope"}))
    add("meta.game = null", header(meta={"game": None}))
    add("meta.num_players = 'x'", header(meta={"game": "fae", "num_players": "x"}))
    add("meta.options a list", header(meta={"game": "fae", "options": [1]}))
    add("meta.options holds a dict", header(meta={"game": "fae", "options": {"history": {"a": 1}}}))
    add("no header member", good_members(**{"header.npy": None}))
    add("W0 in a folder", {**good_members(**{"W0.npy": None}), "x/W0.npy": npy(np.zeros((4, 3), np.float32))})
    add("200 members", {**good_members(), **{f"junk{i}.npy": npy(np.zeros(1, np.float32)) for i in range(200)}})
    add("bzip2 member", good_members(), method=zipfile.ZIP_BZIP2)
    dup = folder / "dup.npz"
    with zipfile.ZipFile(dup, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, data in good_members().items():
            z.writestr(name, data)
        z.writestr("W0.npy", npy(np.full((4, 3), np.nan, np.float32)))
    cases.append(("a member name twice", dup))
    for case, local, central, fmt, value in (("zip method 99", 8, 10, "<H", 99),
                                             ("encrypted flag", 6, 8, "<H", 1),
                                             ("directory size smaller than the data", 22, 24, "<I", 10),
                                             ("compressed size past the end of the file", 18, 20, "<I", 1 << 30)):
        path = write_zip(folder / f"npz{len(cases)}.npz", good_members(), method=zipfile.ZIP_STORED)
        patch_zip(path, "W0.npy", local, central, fmt, value)
        cases.append((case, path))
    many = 30_000 if quick else 300_000
    with zipfile.ZipFile(folder / "many.npz", "w") as z:  # a directory zipfile would parse into many objects
        for name, data in good_members().items():
            z.writestr(name, data)
        for i in range(many):
            z.writestr(f"{i}.npy", b"")
    cases.append((f"zip directory of {many:,} entries", folder / "many.npz"))
    truncated = write_zip(folder / "truncated.npz", good_members())
    truncated.write_bytes(truncated.read_bytes()[:-30])
    cases.append(("truncated zip", truncated))
    width = 20_000 if quick else 200_000
    cases.append((f"hidden width {width:,} of float16 zeros", width_bomb(folder / "width.npz", width)))
    cases.append(("layers within the member limit, over the budget together",
                  zeros_policy(folder / "budget.npz", [(4000, 2600), (2600, 2600), (2600, 330)])))
    size = 64 << 20 if quick else 1 << 30
    cases.append((f"header member of {size >> 20} MiB", header_bomb(folder / "header.npz", size)))
    cases += [(case, write_zip(folder / f"play{i}.npz", members)) for i, (case, members) in enumerate(play_payloads())]
    return cases


FAE_VERSUS = {"history": "none", "action_features": "versus"}  # the shipped Fae policies': 2183 inputs, 330 actions
FAE_SKIPS = [[863, 1.0], [1193, 1.0], [1523, 0.5], [1853, 0.5]]


def policy_members(layers, meta, skip=(), activation="relu") -> dict:
    """The members of a policy file of these (W, b) layers, header fields as given (no checks)."""
    members = {"header.npy": header_bytes({"activation": activation, "layers": len(layers), "meta": meta,
                                           "skip": [list(t) for t in skip]})}
    for i, (w, b) in enumerate(layers):
        members[f"W{i}.npy"], members[f"b{i}.npy"] = npy(np.asarray(w, np.float32)), npy(np.asarray(b, np.float32))
    return members


def small_mlp(inputs=2183, actions=330, hidden=4, b0=0.0):
    rng = np.random.default_rng(1)
    return [(rng.normal(0, 0.01, (inputs, hidden)), np.full(hidden, b0)),
            (rng.normal(0, 0.01, (hidden, actions)), np.zeros(actions))]


def play_payloads() -> list[tuple[str, dict]]:
    """Issue 36's policy files that loaded and then failed (or played NaN logits) at the first move."""
    meta = {"game": "fae", "num_players": 2, "options": FAE_VERSUS}
    fq = {"game": "fantastiqa", "num_players": 2}
    cases = [
        ("meta.options history='bogus'", small_mlp(), {**meta, "options": {**FAE_VERSUS, "history": "bogus"}}, FAE_SKIPS),
        ("meta.options an option Fae has not", small_mlp(), {**meta, "options": {**FAE_VERSUS, "os.system": "x"}},
         FAE_SKIPS),
        ("meta.options big_stack_merge='yes'", small_mlp(), {**meta, "options": {**FAE_VERSUS, "big_stack_merge": "yes"}},
         FAE_SKIPS),
        ("meta.num_players 9 for Fae", small_mlp(), {**meta, "num_players": 9}, FAE_SKIPS),
        ("meta.options Fantastiqa action_features='evil'", small_mlp(3786, 405), {**fq, "options": {"action_features": "evil"}},
         []),
        ("meta.options Fantastiqa goal='x'", small_mlp(3786, 405), {**fq, "options": {"goal": "x"}}, []),
        ("a Fae policy whose meta says Fantastiqa", small_mlp(1703, 330), fq, []),
        ("0 actions (meta.game fae)", small_mlp(2183, 0), meta, []),
        ("0 actions (no meta.game)", small_mlp(6, 0), {}, []),
        ("100 input rows for Fae", small_mlp(100, 330), {"game": "fae"}, []),
        ("Fae's inputs without its options in meta", small_mlp(), {"game": "fae", "num_players": 2}, FAE_SKIPS),
        ("skip coefficient 1e308", small_mlp(), meta, [[863, 1e308]]),
        ("skip coefficient -1e5", small_mlp(), meta, [[863, -1e5]]),
        ("10,000 skip terms", small_mlp(), meta, [[863, 1.0]] * 10_000),
        ("logits inf on a zero observation", [(np.zeros((2183, 4)), np.full(4, 3e38)), (np.full((4, 330), 3e38),
                                                                                      np.zeros(330))], meta, FAE_SKIPS),
        ("logits inf on an all-one observation", [(np.full((2183, 4), 3e38), np.zeros(4)), (np.ones((4, 330)), np.zeros(330))],
         meta, FAE_SKIPS),
    ]
    return [(case, policy_members(layers, m, skip)) for case, layers, m, skip in cases]


# ----------------------------------------------------------------------------- running a case
def in_child(fn, seconds: float = CHILD_SECONDS, extra_bytes: int = CHILD_EXTRA_BYTES) -> str:
    """fn() -> outcome, run in a forked child with an address-space cap and a time limit (either
    exceeded: "unclear")."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            if os.path.exists("/proc/self/status"):  # Linux: cap the address space above what the parent holds
                vm = int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmSize")))
                resource.setrlimit(resource.RLIMIT_AS, (vm * 1024 + extra_bytes, resource.RLIM_INFINITY))
            outcome = fn()
        except BaseException as exc:  # noqa: BLE001 - the child reports whatever happened
            outcome = f"unclear ({type(exc).__name__})"
        os.write(write, outcome.encode()[:500])
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], seconds)
    outcome = os.read(read, 500).decode() if ready else ""
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read)
    return outcome or "unclear (no answer: killed, out of memory or past the time limit)"


def policy_outcome(path: Path) -> str:
    """What `PolicyWeights.load` made of a malformed file (and, if it took it, of playing it). A
    refusal after allocating more than REFUSAL_BYTES (traced by tracemalloc) is "unclear": the size
    budget was not enforced before the allocation."""
    import tracemalloc

    from tabletop_rl.agents.ppo_agent import PolicyFileError, PolicyWeights, PPOAgent

    tracemalloc.start()
    try:
        weights = PolicyWeights.load(path)
    except PolicyFileError as exc:
        peak = tracemalloc.get_traced_memory()[1]
        if peak > REFUSAL_BYTES:
            return f"unclear (allocated {peak >> 20} MiB before refusing)"
        return "clear" if str(path) in str(exc) else "unclear"
    except Exception:  # noqa: BLE001 - any other exception is the finding
        return "unclear"
    finally:
        tracemalloc.stop()
    try:
        obs = np.ones(weights.obs_size, np.float32)
        logits = weights.logits(obs)
        PPOAgent(weights=weights).act(obs, np.ones(weights.num_actions, bool))
    except Exception:  # noqa: BLE001
        return "crash later"
    return "silently accepted" if np.isfinite(logits).all() else "crash later"


def npz_rows(folder, quick: bool = False) -> list[dict]:
    marker = Path(folder) / "pwned"
    rows = []
    for case, path in npz_payloads(folder, quick):
        outcome = in_child(lambda: policy_outcome(path))
        if marker.exists():
            outcome = "code executed"
            marker.unlink()
        rows.append({"target": "policy npz (PolicyWeights.load)", "case": case,
                     "outcome": outcome.split(" (")[0]})
    return rows


def evil_sb3_zip(path, marker) -> Path:
    """The shape of an SB3 model.zip whose `lr_schedule` is a cloudpickled object (the red-team file)."""
    data = {"lr_schedule": {":type:": "<class 'function'>",
                            ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}}
    return write_zip(path, {"data": json.dumps(data), "_stable_baselines3_version": "2.3.0"})


def refused(fn, marker: Path, clear_if=lambda exc: isinstance(exc, ValueError)) -> str:
    """Outcome of an attempt that must be refused: "clear" for the documented error, and nothing ran."""
    try:
        fn()
        outcome = "silently accepted"
    except Exception as exc:  # noqa: BLE001
        outcome = "clear" if clear_if(exc) else "unclear"
    if marker.exists():
        marker.unlink()
        return "code executed"
    return outcome


def trust_rows(folder) -> list[dict]:
    """Bot specs and arguments that try to switch on unpickling without --trust-pickle / True."""
    from tabletop_rl.agents.arena import ArenaConfig, parse_agent
    from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent
    from tabletop_rl.agents.registry import make_agent
    from tabletop_rl.agents.rllib_agent import RLlibAgent

    folder = Path(folder)
    marker = folder / "pwned"
    evil = evil_sb3_zip(folder / "evil.zip", marker)
    ckpt = folder / "checkpoint" / "main"
    ckpt.mkdir(parents=True, exist_ok=True)
    for name in ("module_state.pkl", "class_and_ctor_args.pkl"):
        (ckpt / name).write_bytes(pickle.dumps(Payload(marker)))
    cases = []
    for flag in ("trust_pickle=true", "trust_pickle=1", "trust_pickle='yes'", "TRUST_PICKLE=true", " trust_pickle = True"):
        spec = f"ppo:path={evil},{flag}"
        cases.append(("parse_agent", f"ppo:path=evil.zip,{flag.strip()}", lambda s=spec: parse_agent(s)))
        cases.append(("arena (no --trust-pickle)", f"--agents 'ppo:path=evil.zip,{flag.strip()}' random",
                      lambda s=spec: ArenaConfig(game="fae", agents=[s, "random"], games=2, workers=1).validate()))
    cases.append(("arena (no --trust-pickle)", "trust_pickle='yes' in ArenaConfig",
                  lambda: ArenaConfig(game="fae", agents=[f"ppo:path={evil}", "random"], games=2, workers=1,
                                      trust_pickle="yes").validate()))
    for value in ("no", 1, "True", np.True_, [True]):
        cases.append(("PolicyWeights.load", f"trust_pickle={value!r}", lambda v=value: PolicyWeights.load(evil, trust_pickle=v)))
        cases.append(("PPOAgent", f"trust_pickle={value!r}", lambda v=value: PPOAgent(path=evil, trust_pickle=v)))
        cases.append(("make_agent", f"trust_pickle={value!r}",
                      lambda v=value: make_agent("fae", "ppo", path=str(evil), trust_pickle=v)))
        cases.append(("RLlibAgent", f"checkpoint, trust_pickle={value!r}",
                      lambda v=value: RLlibAgent(path=ckpt.parent, trust_pickle=v)))
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target, case, fn in cases:
            rows.append({"target": f"trust flag ({target})", "case": case, "outcome": refused(fn, marker)})
    return rows


def openspiel_rows() -> list[dict]:
    """python_fae: chance outcomes and actions out of range, and histories from others."""
    try:
        import pyspiel

        from fae_rl.openspiel import NUM_REGIONS, state_from_history
    except ImportError:
        print("openspiel: pyspiel is not installed; its rows are not included")
        return []
    game = pyspiel.load_game("python_fae")

    def at_node(colour: bool):
        s = game.new_initial_state()
        for _ in range(NUM_REGIONS if colour else 0):  # past the region deals: the spirits' chance node
            s.apply_action(0)
        return s

    rows = []
    for node in ("region", "colour"):
        for action in (999, 120, -1, True, 3.5, np.float64(2)):
            s = at_node(node == "colour")
            before = s.history()

            def attempt(s=s, action=action):
                s.apply_action(action)

            outcome = refused(attempt, Path("/nonexistent-marker"))
            if outcome == "clear" and s.history() != before:
                outcome = "crash later"
            rows.append({"target": "openspiel (apply_action)", "case": f"{node} chance outcome {action!r}",
                         "outcome": outcome})
    for case, history in (("history with 999", [999]), ("history with '3'", ["3"]), ("history with 2.0", [2.0]),
                          ("history with True", [True]), ("history of 10,000 zeros", [0] * 10_000)):
        rows.append({"target": "openspiel (state_from_history)", "case": case,
                     "outcome": refused(lambda h=history: state_from_history(game, h), Path("/nonexistent-marker"))})
    return rows


def openspiel_deserialize_note(folder) -> str:
    """OpenSpiel's own deserializer on a crafted string: README lists it as unsafe (not ours to fix)."""
    try:
        import pyspiel

        import fae_rl.openspiel  # noqa: F401
    except ImportError:
        return "pyspiel not installed"
    marker = Path(folder) / "pwned-openspiel"
    game = pyspiel.load_game("python_fae")
    text = pyspiel.serialize_game_and_state(game, game.new_initial_state())
    evil = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    text = "\n".join(f"__dict__={evil}" if line.startswith("__dict__=") else line for line in text.splitlines()) + "\n"
    try:
        pyspiel.deserialize_game_and_state(text)
    except Exception:  # noqa: BLE001
        pass
    ran = marker.exists()
    return ("code executed" if ran else "no code ran") + " (OpenSpiel's own unpickling; README: unsafe, use state_from_history)"


NOT_INTS = [3.7, True, "3", np.float64(3.0), np.array(3.0), np.array([3]), None, np.bool_(True)]


def action_rows() -> list[dict]:
    """Non-integer actions and seeds at the learner-facing entry points: refused, nothing changes."""
    from fae_rl.vector import FaeVector
    from tabletop_rl.training.fae_vector_env import FaeLearnerCore, FaeLearnerVectorEnv
    from tabletop_rl.training.selfplay import SelfPlayEnv

    rows = []

    def row(target, case, fn, snapshot, setup):
        setup()  # a fresh episode: an earlier accepted case may have ended the last one
        before = snapshot()
        outcome = refused(fn, Path("/nonexistent-marker"))
        if outcome == "clear" and not _same(snapshot(), before):
            outcome = "crash later"
        rows.append({"target": target, "case": case, "outcome": outcome})

    env = SelfPlayEnv("fae", opponent="random")
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    for a in NOT_INTS + [float(legal)]:
        row("SelfPlayEnv.step", repr(a), lambda a=a: env.step(a), env.get_snapshot, lambda: env.reset(seed=0))
    for seed in (True, 1.5, "1", np.float32(2)):
        row("SelfPlayEnv.reset", f"seed={seed!r}", lambda s=seed: env.reset(seed=s), env.get_snapshot,
            lambda: env.reset(seed=0))
    n = 4
    venv = FaeLearnerVectorEnv(num_envs=n, opponents={"random": 1.0}, seed=0)
    venv.reset(seed=0)
    core = venv.core

    def core_state():
        return (core.vec.engine._b.copy(), core.vec.engine._w.copy(), core.rng.bit_generator.state)

    def again():
        venv.reset(seed=0)

    firsts = np.array([np.flatnonzero(m)[0] for m in core.masks()])
    bad_batches = {"float64 array": firsts.astype(np.float64), "float array + 0.7": firsts + 0.7,
                   "bool array": np.ones(n, bool), "list with True": [True] + firsts[1:].tolist(),
                   "list of floats": [float(a) for a in firsts], "strings": [str(a) for a in firsts],
                   "object array": firsts.astype(object).astype(str).astype(object)}
    for case, acts in bad_batches.items():
        row("FaeLearnerVectorEnv.step", case, lambda a=acts: venv.step(a), core_state, again)
        row("FaeLearnerCore.step", case, lambda a=acts: core.step(a), core_state, again)
        row("FaeVector.step", case, lambda a=acts: core.vec.engine.step(a), core_state, again)
    for seed in (True, 1.5, "1"):
        row("FaeLearnerVectorEnv.reset", f"seed={seed!r}", lambda s=seed: venv.reset(seed=s), core_state, again)
    try:
        from tabletop_rl.training.fae_vector_env import _sb3_vecenv

        sb3 = _sb3_vecenv()(n, opponents={"random": 1.0}, seed=0)
        sb3.reset()
        for case, acts in bad_batches.items():
            row("FaeLearnerVecEnv.step_async (SB3)", case, lambda a=acts: sb3.step_async(a),
                lambda: (sb3.core.vec.engine._b.copy(), sb3.core.vec.engine._w.copy()), sb3.reset)
    except ImportError:
        print("SB3 is not installed: FaeLearnerVecEnv rows are not included")
    return rows


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    return a == b


# ----------------------------------------------------------------------------- run folders and checkpoints (issue 36)
ROOT = Path(__file__).resolve().parents[1]


def _quiet():
    """stdout and stderr captured (returned), warnings silenced: what --resume prints is read, not shown."""
    import contextlib

    err = io.StringIO()
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(contextlib.redirect_stderr(err))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack, err


def tiny_run(runs_dir: Path):
    """A tiny Fae run with checkpoints at 512 and 1024 steps; (train module, run folder)."""
    sys.path.insert(0, str(ROOT))
    import train

    cfg = train.parse_args(["--preset", "tiny", "--total-steps", "1536", "--checkpoint-every", "512",
                            "--keep-checkpoints", "10", "--final-eval-games", "0", "--eval-every", "0",
                            "--bc-teacher", "", "--runs-dir", str(runs_dir), "--run-name", "r"])
    stack, _ = _quiet()
    with stack:
        train.train(cfg)
    return train, runs_dir / "r"


def run_folder_rows(train, run: Path, folder: Path) -> list[dict]:
    """A run folder from someone else, whose config.json names Python shipped in it (`reward_fn`
    "runs.<name>.evil:f", `imports`): `train.py --resume` must refuse it, naming the field and the
    flag that would allow it, before anything is imported."""
    import shutil

    rows = []
    cases = [("reward_fn names a .py in the folder", {"reward_fn": "{m}:f"}, [], False),
             ("imports names a .py in the folder", {"imports": "{m}"}, [], False),
             ("reward_fn and imports both", {"reward_fn": "{m}:f", "imports": "{m}"}, [], False),
             ("reward_fn, and every checkpoint's config says the same", {"reward_fn": "{m}:f"}, [], True),
             ("imports, and every checkpoint's config says the same", {"imports": "{m}"}, [], True),
             ("reward_fn changed on the command line", {"reward_fn": "{m}:f"},
              ["--reward-fn", "tests.learner_helpers:step_penalty"], False),
             ("reward_fn names the folder's package __init__", {"reward_fn": "{p}:f"}, [], False)]
    for i, (case, fields, flags, in_checkpoints) in enumerate(cases):
        pkg = f"rt36_runs_{i}"
        copy = folder / pkg / "r"
        shutil.copytree(run, copy)
        marker = folder / f"ran{i}"
        code = f"open({str(marker)!r}, 'w').close()\n\ndef f(batch, seats, dones):\n    return 0.0\n"
        (copy / "evil.py").write_text(code)
        (copy / "__init__.py").write_text(code)
        names = {k: v.format(m=f"{pkg}.r.evil", p=f"{pkg}.r") for k, v in fields.items()}
        config = json.loads((copy / "config.json").read_text())
        (copy / "config.json").write_text(json.dumps({**config, **names}))
        if in_checkpoints:
            for path in (copy / "checkpoints").glob("*.json"):
                d = json.loads(path.read_text())
                d["config"].update(names)
                path.write_text(json.dumps(d))
        sys.path.insert(0, str(folder))  # as `python train.py` puts the checkout (with runs/) on sys.path
        stack, _ = _quiet()
        try:
            with stack:
                train.train(train.parse_args(["--resume", str(copy), "--total-steps", "2048", *flags]))
            outcome = "silently accepted"
        except SystemExit as exc:
            text = str(exc)
            named = all(k in text and f"--{k.replace('_', '-')} {v}" in text for k, v in names.items())
            outcome = "clear" if named and "config.json" in text else "unclear"
        except Exception:  # noqa: BLE001 - the finding
            outcome = "unclear"
        finally:
            sys.path.remove(str(folder))
        if marker.exists():
            outcome = "code executed"
        rows.append({"target": "run folder (train.py --resume)", "case": case, "outcome": outcome})
    return rows


def checkpoint_cases(quick: bool) -> dict:
    """case -> edit(d, tensors) of the newest checkpoint's .json dict `d` and .pt tensors `tensors`."""
    import math

    import torch

    def key(node):
        return node.get("__tensor__") or node.get("__array__")

    def at(d, *where):
        for k in where:
            d = d[k]
        return d

    def opt(d, index):
        return dict((k, v) for k, v in d["optimizer"]["state"]["__items__"])[index]

    def history(name, value):
        return lambda d, t: d["history"].__setitem__(name, value)

    def fill(where, value):
        return lambda d, t: t[key(at(d, *where))].view(-1).__setitem__(0, value)

    def stray(n):
        return lambda d, t: t.__setitem__("t_stray", torch.zeros(n, dtype=torch.uint8))

    def stray_in(node_of):
        def edit(d, t):
            t["t_stray"] = torch.zeros(1_000_000)
            node_of(d)["junk"] = {"__tensor__": "t_stray"}
        return edit

    def retype(where, dtype, text=None):
        def edit(d, t):
            node = at(d, *where)
            t[key(node)] = t[key(node)].to(dtype)
            if text:
                node["dtype"] = text
        return edit

    big = 5_000_000 if quick else 50_000_000
    return {
        "a tensor key that decodes to nothing (NameError: meta_path)":
            lambda d, t: d["policy"].__setitem__("skip_param", {"__tensor__": "nope"}),
        "NaN in a policy weight (later 'action 0 is illegal')": fill(("policy", "mlp_extractor.policy_net.0.weight"), math.nan),
        "inf in the action layer": fill(("policy", "action_net.bias"), math.inf),
        "inf in Adam's exp_avg": lambda d, t: t[key(opt(d, 1)["exp_avg"])].fill_(math.inf),
        "Adam's exp_avg of another shape": lambda d, t: t.__setitem__(key(opt(d, 1)["exp_avg"]), torch.zeros(3, 3)),
        "optimizer eps NaN": lambda d, t: d["optimizer"]["param_groups"][0].__setitem__("eps", math.nan),
        "NaN in last_obs": fill(("last_obs",), math.nan),
        "NaN in a snapshot's weights": fill(("fae_vector", "arrays", "snap0_W0"), math.nan),
        "a complex tensor": retype(("policy", "value_net.bias"), torch.complex64),
        'last_obs dtype "O"': lambda d, t: d["last_obs"].__setitem__("dtype", "O"),
        'rng.numpy array dtype "O"': lambda d, t: d["rng"]["numpy"]["__tuple__"][1].__setitem__("dtype", "|O"),
        'last_obs dtype "<U4"': lambda d, t: d["last_obs"].__setitem__("dtype", "<U4"),
        'last_obs dtype "<f8" over float32 data': lambda d, t: d["last_obs"].__setitem__("dtype", "<f8"),
        "last_episode_starts as floats": retype(("last_episode_starts",), torch.float32, "<f4"),
        "eval_opponents with an unknown bot": history("eval_opponents", ["random", "nobody"]),
        "eval_opponents of another run": history("eval_opponents", ["greedy"]),
        "eval_opponents a string": history("eval_opponents", "random,greedy"),
        "episode info r NaN": lambda d, t: d["ep_info_buffer"][0].__setitem__("r", math.nan),
        "episode info l a string": lambda d, t: d["ep_info_buffer"][0].__setitem__("l", "18"),
        "episode info with a stray key": lambda d, t: d["ep_info_buffer"][0].__setitem__("x", [0] * 1000),
        "last_snapshot a string": history("last_snapshot", "1024"),
        "last_eval a string": history("last_eval", "0"),
        "last_checkpoint a string": history("last_checkpoint", "1024"),
        "last_checkpoint past num_timesteps": history("last_checkpoint", 10 ** 9),
        "total_steps a string": history("total_steps", "1536"),
        "wall_seconds NaN": history("wall_seconds", math.nan),
        "env_seconds negative": history("env_seconds", -1.0),
        "stopped_by_time_limit a string": history("stopped_by_time_limit", "no"),
        "history with an unknown key": history("junk", 1),
        "an evaluation row with win_share 7": history("evals", [{
            "opponent": "random", "games": 4, "win_share": 7.0, "ci_low": 0.0, "ci_high": 1.0, "seconds": 1.0,
            "steps": 512, "wall_seconds": 1.0}]),
        "rng.numpy cached gaussian NaN": lambda d, t: d["rng"]["numpy"]["__tuple__"].__setitem__(4, math.nan),
        "an unknown top-level key": lambda d, t: d.__setitem__("junk", [1, 2]),
        f"a stray {big // 1_000_000}M-element tensor in the .pt file": stray(big),
        "a stray tensor among the snapshot arrays": stray_in(lambda d: d["fae_vector"]["arrays"]),
        "a stray tensor in Adam's state": stray_in(lambda d: opt(d, 1)),
    }


def checkpoint_rows(train, run: Path, folder: Path, quick: bool) -> list[dict]:
    """Each case damages a copy's newest checkpoint: --resume must skip it, naming it (clear), and
    pick the older one. Picked, it is then resumed for one more rollout: an exception there is
    "crash later", none "silently accepted"; a traceback out of the checkpoint choice is "unclear"."""
    import shutil

    import torch

    rows = []
    for i, (case, edit) in enumerate(checkpoint_cases(quick).items()):
        copy = folder / f"ckpt{i}"
        shutil.copytree(run, copy)
        newest = sorted((copy / "checkpoints").glob("ckpt_*.pt"))[-1]
        meta = newest.with_suffix(".json")
        d, tensors = json.loads(meta.read_text()), torch.load(newest, map_location="cpu", weights_only=True)
        edit(d, tensors)
        torch.save(tensors, newest)
        meta.write_text(json.dumps(d))
        del tensors
        cfg = train.Config(**{**json.loads((copy / "config.json").read_text()), "resume": str(copy)})
        stack, err = _quiet()
        try:
            with stack:
                found = train.latest_valid_checkpoint(str(copy), restores=lambda c: train.restores_cleanly(cfg, c))
        except Exception:  # noqa: BLE001 - the finding (NameError: meta_path)
            found = "raised"
        if found == "raised":
            outcome = "unclear"
        elif found is not None and found[0] == str(newest):
            stack, _ = _quiet()
            try:
                with stack:
                    train.train(train.parse_args(["--resume", str(copy), "--total-steps", "1536"]))
                outcome = "silently accepted"
            except (Exception, SystemExit):  # noqa: BLE001
                outcome = "crash later"
        else:
            outcome = "clear" if "skipping damaged checkpoint" in err.getvalue() and newest.stem in err.getvalue() \
                else "unclear"
        shutil.rmtree(copy)
        rows.append({"target": "checkpoint (train.py --resume)", "case": case, "outcome": outcome})
    return rows


def resume_rows(folder, quick: bool = False) -> list[dict]:
    """Issue 36's run-folder and checkpoint rows (a tiny run is trained first: ~10 s)."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        print("SB3 is not installed: the run-folder and checkpoint rows are not included")
        return []
    folder = Path(folder) / "resume"
    folder.mkdir()
    train, run = tiny_run(folder / "runs")
    return run_folder_rows(train, run, folder) + checkpoint_rows(train, run, folder, quick)


def other_rows() -> list[dict]:
    """Rows of the web app's and the state loaders' red-team modules, when present."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    rows = []
    for name in ("redteam_web", "redteam_state"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            print(f"{name}: module missing (benchmarks/{name}.py); its rows are not included")
            continue
        rows += module.rows()
    return rows


def rows(quick: bool = False, others: bool = True) -> list[dict]:
    """Every row of the report (this module's, then the other modules')."""
    with tempfile.TemporaryDirectory() as folder:
        out = npz_rows(folder, quick) + trust_rows(folder) + openspiel_rows() + action_rows() + resume_rows(folder, quick)
    return out + (other_rows() if others else [])


def table(rows: list[dict]) -> str:
    """tried / clear / unclear / silently accepted / crash later / code executed, per target."""
    targets = list(dict.fromkeys(r["target"] for r in rows))
    head = ["target", "tried", *OUTCOMES]
    lines = [head]
    for t in targets + ["all"]:
        mine = [r for r in rows if t in ("all", r["target"])]
        lines.append([t, str(len(mine)), *(str(sum(r["outcome"] == o for r in mine)) for o in OUTCOMES)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller bombs (64 MiB header, width 20,000)")
    parser.add_argument("--cases", action="store_true", help="also list every case that was not 'clear'")
    parser.add_argument("--no-others", action="store_true",
                        help="this module's rows only (not those of redteam_web.py and redteam_state.py)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    all_rows = rows(quick=args.quick, others=not args.no_others)
    print(table(all_rows))
    bad = [r for r in all_rows if r["outcome"] != "clear"]
    if args.cases or bad:
        for r in bad:
            print(f"  {r['outcome']:18s} {r['target']}: {r['case']}")
    with tempfile.TemporaryDirectory() as folder:
        print(f"OpenSpiel deserialize_game_and_state of a crafted string: {openspiel_deserialize_note(folder)}")
    print(f"{len(all_rows)} cases in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
