"""The red-team report of issue 24: every loader attack, and what each entry point made of it.

    python benchmarks/redteam.py            # the full run (76 s on 2 busy cores; the bombs are full size)
    python benchmarks/redteam.py --quick    # smaller bombs (tests/test_redteam.py runs this part)

Targets: policy `.npz` payloads (`PolicyWeights.load`), bot specs and Python arguments that try to
switch on unpickling (`parse_agent`, the arena, `make_agent`, `PolicyWeights.load`, `RLlibAgent`),
OpenSpiel actions and histories (`python_fae`), and actions and seeds that are not integers
(`SelfPlayEnv`, the Fae vector adapters, `FaeVector`). Rows of `benchmarks/redteam_web.py` and
`benchmarks/redteam_state.py` (the web app, state dicts and resume) are added when those modules exist.

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


GOOD_HEADER = {"activation": "tanh", "layers": 1, "meta": {"game": "fae"}}


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
    return cases


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
    from tabletop_rl.envs.fae_vector_env import FaeLearnerCore, FaeLearnerVectorEnv
    from tabletop_rl.envs.selfplay import SelfPlayEnv

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
        from tabletop_rl.envs.fae_vector_env import _sb3_vecenv

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
        out = npz_rows(folder, quick) + trust_rows(folder) + openspiel_rows() + action_rows()
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
    args = parser.parse_args(argv)
    start = time.perf_counter()
    all_rows = rows(quick=args.quick)
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
