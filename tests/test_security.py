"""The trust boundary (docs/security.md): no file the suite loads can run code.

Every loader is fed a crafted pickle payload whose unpickling would create a marker file; the
test asserts the load failed with an error that names the problem and that the marker does not
exist (the payload never ran)."""
import base64
import json
import pickle
import zipfile

import numpy as np
import pytest

from tabletop_rl.agents.ppo_agent import PolicyFileError, PolicyWeights, PPOAgent
from tabletop_rl.agents.registry import make_agent


class Payload:
    """Unpickling this calls open(marker, "w"): the marker file appears iff the pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def payload_bytes(marker) -> bytes:
    return pickle.dumps(Payload(marker))


def sb3_zip_with_payload(path, marker) -> None:
    """The shape of an SB3 model.zip whose `lr_schedule` is a cloudpickled object (the red-team file)."""
    data = {"lr_schedule": {":type:": "<class 'function'>",
                            ":serialized:": base64.b64encode(payload_bytes(marker)).decode()}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.3.0")


@pytest.mark.parametrize("how", ["PolicyWeights.load", "PPOAgent", "make_agent fae", "make_agent fantastiqa",
                                 "make_agent other game"])
def test_sb3_zip_is_refused_without_trust_pickle(tmp_path, how):
    marker, path = tmp_path / "pwned", tmp_path / "model.zip"
    sb3_zip_with_payload(path, marker)
    load = {"PolicyWeights.load": lambda: PolicyWeights.load(path),
            "PPOAgent": lambda: PPOAgent(path=path),
            "make_agent fae": lambda: make_agent("fae", "ppo", path=str(path)),
            "make_agent fantastiqa": lambda: make_agent("fantastiqa", "ppo", path=str(path)),
            "make_agent other game": lambda: make_agent("no-such-game-xyz", "ppo", path=str(path))}[how]
    with pytest.raises(PolicyFileError, match="trust_pickle=True") as err:
        load()
    assert "arbitrary code" in str(err.value) and "model.zip" in str(err.value)
    assert not marker.exists()


def test_arena_refuses_a_zip_policy_unless_told_to_trust_it(tmp_path):
    from tabletop_rl.agents.arena import ArenaConfig, main

    marker, path = tmp_path / "pwned", tmp_path / "model.zip"
    sb3_zip_with_payload(path, marker)
    with pytest.raises(PolicyFileError, match="--trust-pickle"):
        ArenaConfig(game="fae", agents=[f"ppo:path={path}", "random"], games=2, workers=1).validate()
    with pytest.raises(SystemExit):  # the CLI reports it as a usage error
        main(["--game", "fae", "--agents", f"ppo:path={path}", "random", "--games", "2", "--workers", "1",
              "--out", str(tmp_path / "out"), "--quiet"])
    assert not marker.exists()


def test_trust_pickle_warns_before_unpickling(tmp_path):
    """With trust_pickle=True the user asked for it: a warning names the risk (here the file is not a
    real model, so SB3 fails after the warning; nothing of ours unpickles it first)."""
    pytest.importorskip("sb3_contrib")
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", "{}")
    with pytest.warns(UserWarning, match="runs any code"), pytest.raises(Exception):
        PolicyWeights.load(path, trust_pickle=True)


def test_npz_with_a_pickled_object_array_is_refused(tmp_path):
    marker, path = tmp_path / "pwned", tmp_path / "policy.npz"
    header = np.frombuffer(json.dumps({"activation": "tanh", "layers": 1, "meta": {}}).encode(), dtype=np.uint8)
    obj = np.empty(1, dtype=object)
    obj[0] = Payload(marker)
    np.savez(path, header=header, W0=obj, b0=np.zeros(3, np.float32))  # np.save pickles object arrays
    with pytest.raises(PolicyFileError, match="policy.npz") as err:
        make_agent("fae", "ppo", path=str(path))
    assert "pickle" in str(err.value).lower()
    assert not marker.exists()


@pytest.mark.parametrize("suffix", [".npz", ".npy", ""])
def test_a_plain_pickle_posing_as_a_policy_is_refused(tmp_path, suffix):
    marker, path = tmp_path / "pwned", tmp_path / f"policy{suffix}"
    path.write_bytes(payload_bytes(marker))
    with pytest.raises(PolicyFileError, match="not an .npz archive"):
        PolicyWeights.load(path)
    assert not marker.exists()


def test_a_pickled_header_is_refused(tmp_path):
    marker, path = tmp_path / "pwned", tmp_path / "policy.npz"
    header = np.empty(1, dtype=object)
    header[0] = Payload(marker)
    np.savez(path, header=header, W0=np.zeros((2, 3), np.float32), b0=np.zeros(3, np.float32))
    with pytest.raises(PolicyFileError, match="pickle"):
        PolicyWeights.load(path)
    assert not marker.exists()


def _policy(n_in=4, n_out=3):
    """A small policy whose meta names no game (a 4-input policy labelled with a game whose sizes
    differ is refused at load: agents/policy_file.py check_policy), so the labels still round-trip."""
    rng = np.random.default_rng(0)
    return PolicyWeights([(rng.normal(size=(n_in, 5)), np.zeros(5)), (rng.normal(size=(5, n_out)), np.ones(n_out))],
                         meta={"note": "test policy", "num_players": 2})


def _write_npz(path, header, **arrays):
    np.savez(path, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays)


@pytest.mark.parametrize("header,arrays,problem", [
    ({"activation": "tanh", "layers": 1}, {"W0": np.zeros((2, 3), np.float32)}, "do not match"),
    ({"activation": "tanh", "layers": 1}, {"W0": np.zeros((2, 3), np.float32), "b0": np.zeros(4, np.float32)},
     "'b0' has 4 values"),
    ({"activation": "tanh", "layers": 1}, {"W0": np.zeros((2, 3), np.int64), "b0": np.zeros(3, np.float32)},
     "'W0' must be a 2-D float"),
    ({"activation": "tanh", "layers": 1}, {"W0": np.full((2, 3), np.nan, np.float32),
                                           "b0": np.zeros(3, np.float32)}, "NaN"),
    ({"activation": "gelu", "layers": 1}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3)}, "'activation'"),
    ({"activation": "tanh", "layers": 10 ** 9}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3)}, "'layers'"),
    ({"activation": "tanh", "layers": True}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3)}, "'layers'"),
    ({"activation": "tanh", "layers": 1, "meta": []}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3)}, "'meta'"),
    ({"activation": "tanh", "layers": 1, "code": "x"}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3)}, "keys"),
    ({"activation": "tanh", "layers": 2}, {"W0": np.zeros((2, 3)), "b0": np.zeros(3), "W1": np.zeros((4, 2)),
                                           "b1": np.zeros(2)}, "layer 1 takes 4 inputs"),
])
def test_malformed_policy_files_name_the_problem(tmp_path, header, arrays, problem):
    path = tmp_path / "p.npz"
    _write_npz(path, header, **arrays)
    with pytest.raises(PolicyFileError, match=problem):
        PolicyWeights.load(path)


def test_policy_npz_and_dict_round_trips_are_exact(tmp_path):
    policy = _policy()
    policy.save(tmp_path / "p.npz")
    again = PolicyWeights.load(tmp_path / "p.npz")
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    assert np.array_equal(again.logits(x), policy.logits(x)) and again.meta == policy.meta
    via_json = PolicyWeights.from_dict(json.loads(json.dumps(policy.to_dict())))
    assert np.array_equal(via_json.logits(x), policy.logits(x))
    for bad in ({}, {**policy.to_dict(), "weights": [[[[1.0]], ["x"]]]}, {**policy.to_dict(), "weights": []}):
        with pytest.raises(ValueError, match="from_dict"):
            PolicyWeights.from_dict(bad)


def test_selfplay_snapshot_with_pickled_state_is_refused(tmp_path):
    from tabletop_rl.training.selfplay import SelfPlayEnv

    marker = tmp_path / "pwned"
    env = SelfPlayEnv("fae", opponent="random")
    env.reset(seed=0)
    snap = env.get_snapshot()
    before = env.get_snapshot()
    for bad in (payload_bytes(marker), base64.b64encode(payload_bytes(marker)).decode()):
        with pytest.raises(ValueError, match="'state'"):
            env.set_snapshot({**snap, "state": bad})
    assert not marker.exists()
    assert env.get_snapshot() == before, "a refused snapshot leaves the env as it was"


def test_opponent_pool_state_with_pickled_weights_is_refused(tmp_path):
    from tabletop_rl.training.selfplay import OpponentPool

    marker = tmp_path / "pwned"
    pool = OpponentPool(fixed={"random": 1.0}, snapshot_prob=0.5)
    pool.add_snapshot(_policy())
    d = json.loads(json.dumps(pool.state_dict()))  # JSON-safe
    again = OpponentPool.from_state_dict(d)
    assert list(again.snapshots) == list(pool.snapshots) and again.next_id == pool.next_id
    d["snapshots"][0][1] = payload_bytes(marker)
    with pytest.raises(ValueError, match="from_dict"):
        OpponentPool.from_state_dict(d)
    assert not marker.exists()


def test_records_and_card_files_are_never_unpickled(tmp_path):
    from fantastiqa_rl.cards import CardFileError, load_card_set
    from tabletop_rl.agents.records import ReplayError, read_records

    marker = tmp_path / "pwned"
    for name in ("records.jsonl", "records.pkl"):
        (tmp_path / name).write_bytes(payload_bytes(marker))
        with pytest.raises(ReplayError, match=name):
            list(read_records(tmp_path / name))
    for name in ("cards.json", "cards.toml", "cards.pkl"):
        (tmp_path / name).write_bytes(payload_bytes(marker))
        with pytest.raises(CardFileError, match=name):
            load_card_set(str(tmp_path / name))
    assert not marker.exists()


def test_no_pickle_on_any_load_path_of_the_suite():
    """A source scan: the packages import no pickle/cloudpickle/dill/joblib and call no
    torch.load without weights_only=True (train.py is checked by its own tests)."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    offenders = []
    for folder in ("agents", "envs", "fae_rl", "fantastiqa_rl"):
        for f in (root / folder).rglob("*.py"):
            text = f.read_text(encoding="utf-8")
            if re.search(r"^\s*(import|from)\s+(pickle|cloudpickle|dill|joblib|shelve|marshal)\b", text, re.M):
                offenders.append(f"{f.relative_to(root)}: imports a pickle module")
            if re.search(r"allow_pickle\s*=\s*True", text):
                offenders.append(f"{f.relative_to(root)}: allow_pickle=True")
            for m in re.finditer(r"torch\.load\(([^)]*)\)", text):
                if "weights_only=True" not in m.group(1):
                    offenders.append(f"{f.relative_to(root)}: torch.load without weights_only=True")
    assert not offenders, offenders


def test_rllib_checkpoint_is_refused_without_trust_pickle(tmp_path):
    """An RLlib checkpoint directory is unpickled by RLlib: refused before Ray is even imported."""
    from tabletop_rl.agents.rllib_agent import MLPPolicy, RLlibAgent

    marker, ckpt = tmp_path / "pwned", tmp_path / "checkpoint"
    (ckpt / "main").mkdir(parents=True)
    (ckpt / "main" / "module_state.pkl").write_bytes(payload_bytes(marker))
    (ckpt / "main" / "class_and_ctor_args.pkl").write_bytes(payload_bytes(marker))
    with pytest.raises(PolicyFileError, match="trust_pickle=True"):
        RLlibAgent(path=ckpt)
    with pytest.raises(PolicyFileError, match="trust_pickle=True"):
        make_agent("fae", "rllib", path=str(ckpt))
    (tmp_path / "policy.npz").write_bytes(payload_bytes(marker))
    with pytest.raises(PolicyFileError, match="not an .npz archive"):
        MLPPolicy.load(tmp_path / "policy.npz")
    assert not marker.exists()


@pytest.mark.parametrize("flag", ["trust_pickle=true", "trust_pickle=1", "trust_pickle='yes'", "TRUST_PICKLE=true",
                                  " trust_pickle = True"])
def test_a_bot_spec_never_carries_a_trust_flag(tmp_path, flag):
    """Issue 24 section 2: only --trust-pickle (or trust_pickle=True in Python) unpickles; a spec
    that names the flag is refused by parse_agent, the arena (config and CLI) and before any load."""
    from tabletop_rl.agents.arena import ArenaConfig, _bot_kwargs, main, parse_agent

    marker, path = tmp_path / "pwned", tmp_path / "model.zip"
    sb3_zip_with_payload(path, marker)
    spec = f"ppo:path={path},{flag}"
    with pytest.raises(ValueError, match="may not set .*--trust-pickle"):
        parse_agent(spec)
    with pytest.raises(ValueError, match="may not set"):
        ArenaConfig(game="fae", agents=[spec, "random"], games=2, workers=1).validate()
    with pytest.raises(ValueError, match="may not set"):  # even with the flag given: the spec may not say it
        _bot_kwargs({"path": str(path), "trust_pickle": True}, trust_pickle=True)
    with pytest.raises(SystemExit):
        main(["--game", "fae", "--agents", spec, "random", "--games", "2", "--workers", "1",
              "--out", str(tmp_path / "out"), "--quiet"])
    assert not marker.exists()


@pytest.mark.parametrize("value", ["no", 1, "True", np.True_, [True]], ids=repr)
def test_only_trust_pickle_true_itself_unpickles(tmp_path, value):
    """`PolicyWeights.load(path, trust_pickle="no")` (or 1) tested truthiness and unpickled: every
    loader now tests `is True`, and make_agent / ArenaConfig refuse a flag that is not a bool."""
    from tabletop_rl.agents.arena import ArenaConfig
    from tabletop_rl.agents.rllib_agent import RLlibAgent

    marker, path = tmp_path / "pwned", tmp_path / "model.zip"
    sb3_zip_with_payload(path, marker)
    ckpt = tmp_path / "checkpoint"
    (ckpt / "main").mkdir(parents=True)
    (ckpt / "main" / "module_state.pkl").write_bytes(payload_bytes(marker))
    for load in (lambda: PolicyWeights.load(path, trust_pickle=value), lambda: PPOAgent(path=path, trust_pickle=value),
                 lambda: RLlibAgent(path=ckpt, trust_pickle=value)):
        with pytest.raises(PolicyFileError, match="trust_pickle=True"):
            load()
    with pytest.raises(ValueError, match="trust_pickle must be True or False"):
        make_agent("fae", "ppo", path=str(path), trust_pickle=value)
    with pytest.raises(ValueError, match="trust_pickle must be True or False"):
        ArenaConfig(game="fae", agents=[f"ppo:path={path}", "random"], games=2, workers=1, trust_pickle=value).validate()
    assert not marker.exists()


@pytest.mark.parametrize("value", ["no", "false", 0, 1])
def test_ppo_agent_flags_are_bools(value):
    """A flag is True or False: deterministic="no" played deterministically (bool("no") is True).
    (None is no flag: it leaves the choice to the version's catalogue `play`.)"""
    with pytest.raises(ValueError, match="deterministic must be True or False"):
        PPOAgent(deterministic=value)
