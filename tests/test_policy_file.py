"""The policy .npz reader (tabletop_rl.agents.policy_file): valid files load exactly, and any
damage to one gives PolicyFileError or a valid policy, never another exception (issue 24 section 4)."""
from __future__ import annotations

import json
import os
import re
import sys
import zipfile

import numpy as np
import pytest

from tabletop_rl.agents.ppo_agent import SHIPPED, PolicyFileError, PolicyWeights


def _policy(meta=None) -> PolicyWeights:
    rng = np.random.default_rng(0)
    return PolicyWeights([(rng.normal(size=(6, 5)), rng.normal(size=5)), (rng.normal(size=(5, 4)), np.ones(4))],
                         activation="relu", meta=meta or {"num_players": 2, "trained_steps": 7},
                         skip=[(1, 0.5)])


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_shipped_policies_load_as_numpy_reads_them(game):
    weights = PolicyWeights.load(SHIPPED[game])
    with np.load(SHIPPED[game], allow_pickle=False) as z:
        for i, (w, b) in enumerate(weights.weights):
            assert np.array_equal(w, z[f"W{i}"].astype(np.float32)) and np.array_equal(b, z[f"b{i}"].astype(np.float32))
    assert weights.meta["game"] == game


@pytest.mark.parametrize("how", ["savez_compressed float16", "savez float64 (stored)", "fortran order"])
def test_valid_variants_load_exactly(tmp_path, how):
    policy = _policy()
    path = tmp_path / "p.npz"
    header = np.frombuffer(json.dumps({"activation": "relu", "layers": 2, "meta": policy.meta,
                                       "skip": [[1, 0.5]]}).encode(), dtype=np.uint8)
    arrays = {}
    for i, (w, b) in enumerate(policy.weights):
        if how == "savez_compressed float16":
            w, b = w.astype(np.float16), b.astype(np.float16)
        elif how == "savez float64 (stored)":
            w, b = w.astype(np.float64), b.astype(np.float64)
        else:
            w = np.asfortranarray(w)
        arrays[f"W{i}"], arrays[f"b{i}"] = w, b
    (np.savez_compressed if how.startswith("savez_compressed") else np.savez)(path, header=header, **arrays)
    again = PolicyWeights.load(path)
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    for (w, b), (w2, b2) in zip(again.weights, [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(2)]):
        assert np.array_equal(w, w2.astype(np.float32)) and np.array_equal(b, b2.astype(np.float32))
    assert again.skip == [(1, 0.5)] and again.meta == policy.meta and np.isfinite(again.logits(x)).all()


def test_damaged_files_raise_policy_file_error_or_load_a_valid_policy(tmp_path):
    """Fuzz: 400 seeded damages of a saved policy (byte flips anywhere, truncations, bytes
    inserted). Each either loads as a finite policy or raises PolicyFileError; nothing else."""
    path = tmp_path / "p.npz"
    _policy().save(path)
    good = path.read_bytes()
    rng = np.random.default_rng(24)
    other = {}
    outcomes = {"loaded": 0, "refused": 0}
    for trial in range(400):
        data = bytearray(good)
        kind = trial % 4
        if kind == 0:  # flip a few random bytes
            for i in rng.integers(len(data), size=int(rng.integers(1, 4))):
                data[i] ^= int(rng.integers(1, 256))
        elif kind == 1:  # flip bytes of the zip directory (the last ~400 bytes)
            for i in rng.integers(max(0, len(data) - 400), len(data), size=2):
                data[i] ^= int(rng.integers(1, 256))
        elif kind == 2:
            data = data[:int(rng.integers(len(data)))]
        else:
            i = int(rng.integers(len(data)))
            data[i:i] = rng.integers(256, size=int(rng.integers(1, 64))).astype(np.uint8).tobytes()
        damaged = tmp_path / f"d{trial}.npz"
        damaged.write_bytes(bytes(data))
        try:
            weights = PolicyWeights.load(damaged)
            assert np.isfinite(weights.logits(np.ones(weights.obs_size, np.float32))).all()
            outcomes["loaded"] += 1
        except PolicyFileError:
            outcomes["refused"] += 1
        except Exception as exc:  # noqa: BLE001 - the finding
            other.setdefault(type(exc).__name__, f"trial {trial}: {exc}"[:200])
        damaged.unlink()
    assert not other, other
    assert outcomes["refused"] > 200


def test_meta_game_must_be_a_registered_game_name(tmp_path):
    for game, needle in ((5, "meta 'game' must be a game name"), ("nope", "unknown game 'nope'; known: .*fae")):
        path = tmp_path / "p.npz"
        _policy(meta={"game": game}).save(path)
        with pytest.raises(PolicyFileError, match=needle):
            PolicyWeights.load(path)


@pytest.mark.parametrize("game", [5, "nope"])
def test_train_evaluate_refuses_a_policy_with_a_bad_meta_game(tmp_path, game, capsys):
    """`train.py --evaluate` crashed with AttributeError on meta.game 5 and played meta.game "nope"
    as Fae; now it stops with a usage error naming the problem."""
    pytest.importorskip("sb3_contrib")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import train

    path = tmp_path / "p.npz"
    _policy(meta={"game": game, "num_players": 2}).save(path)
    with pytest.raises(SystemExit, match="meta 'game'"):
        train.main(["--evaluate", str(path), "--final-eval-games", "2"])


@pytest.mark.parametrize("options,named", [({"action_features": "evil"}, "action_features must be one of"),
                                           ({"os.system": "x"}, "unknown option(s) ['os.system']"),
                                           ({"action_features": "greedy"}, "the policy maps 6 inputs to 4 actions")])
def test_train_evaluate_names_options_or_sizes_the_game_refuses(tmp_path, options, named, capsys):
    """A policy file's meta options and sizes are the file's say: `train.py --evaluate` stopped with a
    ValueError (or numpy broadcast) traceback on an option value or name the game refuses and on a
    policy whose sizes do not fit the game; now a usage error names the problem before any game
    result is printed."""
    pytest.importorskip("sb3_contrib")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import train

    path = tmp_path / "p.npz"
    _policy(meta={"game": "fantastiqa", "num_players": 2, "options": options}).save(path)
    with pytest.raises(SystemExit, match=re.escape(named)):
        train.main(["--evaluate", str(path), "--final-eval-games", "2", "--eval-workers", "1"])
    assert "win share" not in capsys.readouterr().out


def test_a_zip_member_that_is_not_a_plain_file_entry_is_refused(tmp_path):
    path = tmp_path / "p.npz"
    _policy().save(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(PolicyFileError, match="'notes.txt' is not an .npy array"):
        PolicyWeights.load(path)


# ---------------------------------------------------------------------------- issue 36 item 7: a file that loads plays
FAE_VERSUS = {"history": "none", "action_features": "versus"}  # the shipped Fae policies' options: 2183 inputs
FAE_SKIPS = [[863, 1.0], [1193, 1.0], [1523, 0.5], [1853, 0.5]]


def _write(path, layers, meta, skip=(), activation="relu"):
    """A policy file written as `PolicyWeights.save` does, without its constructor's checks."""
    header = {"activation": activation, "layers": len(layers), "meta": meta, "skip": [list(s) for s in skip]}
    arrays = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"W{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    np.savez_compressed(path, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays)
    return path


def _mlp(inputs=2183, actions=330, hidden=4, scale=0.01, b0=0.0):
    rng = np.random.default_rng(1)
    return [(rng.normal(0, scale, (inputs, hidden)), np.full(hidden, b0)), (rng.normal(0, scale, (hidden, actions)),
                                                                             np.zeros(actions))]


FAE_META = {"game": "fae", "num_players": 2, "options": FAE_VERSUS}
REFUSED = {
    # meta.options the game refuses (its own check), or seats it has not
    "history 'bogus'": (_mlp(), {**FAE_META, "options": {**FAE_VERSUS, "history": "bogus"}}, FAE_SKIPS,
                        r"meta 'options' .* are not what fae takes: .*history must be one of"),
    "an option Fae has not": (_mlp(), {**FAE_META, "options": {**FAE_VERSUS, "os.system": "x"}}, FAE_SKIPS,
                              r"unknown option\(s\) \['os.system'\]"),
    "big_stack_merge 'yes'": (_mlp(), {**FAE_META, "options": {**FAE_VERSUS, "big_stack_merge": "yes"}}, FAE_SKIPS,
                              "option 'big_stack_merge'; must be True or False"),
    "9 Fae players": (_mlp(), {**FAE_META, "num_players": 9}, FAE_SKIPS, r"num_players 9\).*num_players must be one of"),
    "Fantastiqa action_features 'evil'": (_mlp(3786, 405), {"game": "fantastiqa", "num_players": 2,
                                                            "options": {"action_features": "evil"}}, [],
                                          "action_features must be one of"),
    "Fantastiqa goal 'x'": (_mlp(3786, 405), {"game": "fantastiqa", "options": {"goal": "x"}}, [], "bad value 'x' for option 'goal'"),
    # sizes: another game, no action, input rows that do not match the game
    "a Fae policy labelled Fantastiqa": (_mlp(1703, 330), {"game": "fantastiqa", "num_players": 2}, [],
                                         "the policy maps 1703 inputs to 330 actions; fantastiqa .* has 3786 and 405"),
    "0 actions (meta.game fae)": (_mlp(2183, 0), FAE_META, [], r"'W1' is 4 x 0"),
    "0 actions (no meta.game)": (_mlp(6, 0), {}, [], r"'W1' is 4 x 0"),
    "100 input rows for Fae": (_mlp(100, 330), {"game": "fae"}, [], "maps 100 inputs to 330 actions; fae .* 1703 and 330"),
    "Fae's inputs without its options": (_mlp(), {"game": "fae", "num_players": 2}, FAE_SKIPS,
                                         "maps 2183 inputs to 330 actions; fae .* 1703 and 330"),
    # skip terms: their number and coefficients
    "a 1e308 skip coefficient": (_mlp(), FAE_META, [[863, 1e308]], "coefficient is over 10000"),
    "a -1e5 skip coefficient": (_mlp(), FAE_META, [[863, -1e5]], "coefficient is over 10000"),
    "10,000 skip terms": (_mlp(), FAE_META, [[863, 1.0]] * 10_000, "10000 skip terms; a policy has at most 16"),
    "a skip term past the inputs": (_mlp(), FAE_META, [[2000, 1.0]], r"its 330 inputs from 2000 are past"),
    # weights finite as float32 whose logits are not
    "logits inf on a zero observation": (_mlp(b0=3e38) + [(np.full((330, 330), 3e38), np.zeros(330))],
                                         FAE_META, FAE_SKIPS, "all-0 observation are not finite"),
    "logits inf on an all-one observation": ([(np.full((2183, 4), 3e38), np.zeros(4)), (np.ones((4, 330)), np.zeros(330))],
                                             FAE_META, FAE_SKIPS, "all-1 observation are not finite"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_policy_file_that_would_fail_at_its_first_move_is_refused_at_load(tmp_path, case):
    """Each of these loaded and then failed (or played NaN logits) at the first move, or took 10,000
    additions per move: now PolicyWeights.load (PPOAgent, make_agent, the arena, the web app's
    --policy) refuses it with a PolicyFileError naming the file and the problem."""
    layers, meta, skip, named = REFUSED[case]
    path = _write(tmp_path / "p.npz", layers, meta, skip)
    with pytest.raises(PolicyFileError, match=named) as err:
        PolicyWeights.load(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("meta", [FAE_META, {"game": "fae", "options": FAE_VERSUS}, {"options": {"history": "none"}}, {}])
def test_a_policy_that_fits_its_game_loads_and_plays(tmp_path, meta):
    """The control: a Fae-sized policy (with or without seats, or no game at all) loads and moves."""
    from tabletop_rl.agents.ppo_agent import PPOAgent

    path = _write(tmp_path / "p.npz", _mlp(), meta, FAE_SKIPS)
    weights = PolicyWeights.load(path)
    assert (weights.obs_size, weights.num_actions) == (2183, 330) and len(weights.skip) == 4
    mask = np.zeros(330, bool)
    mask[[3, 7]] = True
    assert PPOAgent(weights=weights).act(np.zeros(2183, np.float32), mask) in (3, 7)
    assert np.isfinite(weights.logits(np.ones(2183, np.float32))).all()


def test_the_skip_limits_take_every_shipped_policy():
    for game, path in SHIPPED.items():
        w = PolicyWeights.load(path)
        assert all(abs(c) <= 100 for _, c in w.skip) and len(w.skip) <= 4, game
