"""The single-agent Gymnasium envs as a newcomer meets them: the module-qualified ids work in a fresh
interpreter without importing the game first, and the masked sampling loop that docs/usage/envs.md documents
runs under `gymnasium.vector.SyncVectorEnv` across episode ends (all-zero masks, next-step autoreset)."""
from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest


@pytest.mark.parametrize("gym_id", ["fae_rl:fae_rl/Fae-v0", "fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"])
def test_module_qualified_id_needs_no_import_in_a_fresh_interpreter(gym_id):
    code = (
        "import sys, gymnasium\n"
        f"env = gymnasium.make({gym_id!r}, opponent='random')\n"
        "obs, info = env.reset(seed=0)\n"
        "assert obs.shape == env.observation_space.shape and info['action_mask'].any()\n"
        "obs, r, term, trunc, info = env.step(int(info['action_mask'].argmax()))\n"
        "print('ok', obs.dtype)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok float32"


def test_bare_id_without_the_import_fails_as_documented():
    code = "import gymnasium\ngymnasium.make('fae_rl/Fae-v0')\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert proc.returncode != 0 and "fae_rl" in proc.stderr


def test_readme_vector_sampling_loop_survives_autoreset():
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("fae_rl:fae_rl/Fae-v0", opponent="random") for _ in range(3)])
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes, zero_rows_at_end, steps = 0, 0, 0
    pending_reset = np.zeros(3, dtype=bool)
    while episodes < 6:
        masks = infos["action_mask"].astype(bool)
        # The trap: a finished env's row is all zero (naive rng.choice(np.flatnonzero(m)) raises).
        assert (~masks.any(axis=1) == pending_reset).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        steps += 1
        ended = terminated | truncated
        zero_rows_at_end += int((~infos["action_mask"].astype(bool).any(axis=1) & ended).sum())
        pending_reset = ended
        episodes += int(ended.sum())
        assert steps < 5_000
    assert zero_rows_at_end == episodes
    assert infos["action_mask"][~pending_reset].any(axis=1).all()
    envs.close()


@pytest.mark.parametrize("gym_id", ["fae_rl:fae_rl/Fae-v0", "fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"])
def test_human_render_mode_is_refused_with_the_alternatives(gym_id):
    """Issue 39 item 6: gymnasium.make(..., render_mode="human") silently wrapped the env in a
    pygame window at 1 frame a second (training looked hung); now it raises, naming what to use."""
    with pytest.raises(ValueError, match=r'render_mode="human" is not offered.*"ansi".*"rgb_array".*HumanRendering'):
        gymnasium.make(gym_id, opponent="random", render_mode="human")
    # The alternatives it names do work through the same make().
    env = gymnasium.make(gym_id, opponent="random", render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()
    env = gymnasium.make(gym_id, opponent="random", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().ndim == 3
    with pytest.warns(UserWarning, match="not in the possible render_modes"), \
            pytest.raises(ValueError, match=r"render_mode must be one of \['ansi', 'rgb_array'\] or None; got 'bogus'"):
        gymnasium.make(gym_id, opponent="random", render_mode="bogus")


def test_instances_list_only_the_render_modes_they_draw():
    """The class lists "human" for gymnasium.make's sake only; an env lists what render() draws, so
    Gymnasium's check_env (one env per listed mode) passes with render modes checked."""
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("fae_rl:fae_rl/Fae-v0", opponent="random", render_mode="ansi")
    assert env.metadata["render_modes"] == ["ansi", "rgb_array"]
    check_env(env.unwrapped)
