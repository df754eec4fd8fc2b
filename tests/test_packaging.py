"""The installed wheel takes collision-free names (issue 16).

A researcher's project commonly has its own `envs/` and `agents/` folders. The wheel must install
only `fae_rl`, `fantastiqa_rl` and `tabletop_rl` (whose `envs`/`agents` are the repository's
folders), so both the suite and the user's own packages keep working side by side. This builds the
wheel, installs it into a fresh virtualenv that borrows this environment's site-packages for the
dependencies only, and drives the suite from a folder that holds its own `envs` and `agents`.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest



def test_every_package_folder_is_listed_in_pyproject(repo_root):
    listed = set(tomllib.loads((repo_root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapped = {"envs": "tabletop_rl.envs", "agents": "tabletop_rl.agents"}
    found = set()
    # top folders first: globbing from the root walked .venv, runs/ and build/ (12 s of the suite)
    tops = [d for d in repo_root.iterdir() if d.is_dir() and not d.name.startswith(".")
            and d.name not in {"tests", "build", "runs"} and not d.name.endswith(".egg-info")]
    for init in (i for d in tops for i in d.glob("**/__init__.py")):
        rel = init.parent.relative_to(repo_root)
        top = mapped.get(rel.parts[0], rel.parts[0])
        found.add(".".join((top,) + rel.parts[1:]))
    assert found <= listed, f"folders with __init__.py {sorted(found - listed)} are not in pyproject packages"
    # the others are data folders, listed so setuptools does not warn "package would be ignored"
    data = {"fae_rl.policies", "fantastiqa_rl.data", "fantastiqa_rl.policies", "tabletop_rl.agents.web.static"}
    assert listed - found == data, f"pyproject packages {sorted(listed - found - data)} are no package folders"


def test_build_prints_no_setuptools_banners(repo_root, tmp_path):
    """Data folders Python sees as namespace packages are listed: no "package would be ignored"."""
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
                            "-w", str(tmp_path), str(repo_root)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    assert "would be ignored" not in build.stdout + build.stderr


def test_mapped_folders_name_their_import_path(repo_root):
    """A top folder pyproject's package-dir maps (envs/, agents/) says in its __init__ docstring which
    package it is, so a reader of the folder knows the name to import (issue 38 item 5; agents/web
    is named by its parent)."""
    mapping = tomllib.loads((repo_root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    top = {name: folder for name, folder in mapping.items() if "/" not in folder}
    assert set(top) == {"tabletop_rl.envs", "tabletop_rl.agents"}, top
    for name, folder in top.items():
        doc = ast.get_docstring(ast.parse((repo_root / folder / "__init__.py").read_text())) or ""
        assert f"the package `{name}`" in doc, f"{folder}/__init__.py's docstring does not name `{name}`"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, repo_root) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(repo_root)], check=True, capture_output=True, text=True)
    (path,) = out.glob("tabletop_rl-*.whl")
    return path


def test_wheel_contents(wheel, repo_root):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"fae_rl", "fantastiqa_rl", "tabletop_rl"}, tops
    assert "fantastiqa_rl/data/fantastiqa_STAND-IN.toml" in names
    for folder in ("fae_rl/policies", "fantastiqa_rl/policies"):  # every shipped version, with its catalogue
        catalogue = json.loads((repo_root / folder / "versions.json").read_text())
        files = {f"{folder}/{v[k]}" for v in catalogue["versions"] for k in ("file", "details")}
        assert {f"{folder}/versions.json"} | files <= set(names)
    assert {"tabletop_rl/envs/aec_base.py", "tabletop_rl/agents/arena.py", "tabletop_rl/train.py"} <= set(names)
    # the modules issue 38 moved out of envs/: the learner side in tabletop_rl.training, two to the bots
    assert {f"tabletop_rl/training/{m}.py" for m in ("learner", "opponents", "learner_envs", "selfplay",
                                                     "fae_vector_env", "rllib_env")} <= set(names)
    assert {"tabletop_rl/agents/recording.py", "tabletop_rl/agents/fantastiqa_batch.py"} <= set(names)
    stale = {n for n in names if n.startswith("tabletop_rl/envs/") and n.rsplit("/", 1)[1] in (
        "learner.py", "opponents.py", "learner_envs.py", "selfplay.py", "fae_vector_env.py", "rllib_env.py",
        "recording.py", "fantastiqa_batch.py")}
    assert not stale, f"the wheel ships modules from their old place (a stale build/lib? remove build/): {stale}"
    # The web app's page (package-data of tabletop_rl.agents.web).
    assert {f"tabletop_rl/agents/web/static/{f}" for f in ("index.html", "app.js", "style.css")} <= set(names)
    assert not any(n.startswith("tests/") or "/tests/" in n for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "tabletop-arena = tabletop_rl.agents.arena:main" in scripts
    assert "tabletop-web = tabletop_rl.agents.web.__main__:main" in scripts  # checks the web extra first
    assert "tabletop-mcp = tabletop_rl.mcp_server:main" in scripts  # checks the llm extra first


USER_CODE = textwrap.dedent('''
    import subprocess, sys
    import envs, agents                      # the user's own packages, not ours
    assert envs.OWNER == agents.OWNER == "user", (envs.__file__, agents.__file__)

    import gymnasium, numpy as np
    import fae_rl, fantastiqa_rl
    from tabletop_rl.agents import agent_names, make_agent
    from tabletop_rl.envs import make as make_env
    assert "site-packages" in fae_rl.__file__

    # Fae quickstart
    env = fae_rl.env(num_players=2, render_mode="ansi")
    env.reset(seed=42)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert "winners" in info

    # Fantastiqa quickstart (STAND-IN cards): the card file comes from the wheel
    env = fantastiqa_rl.env(num_players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"].any()
    assert make_env("fae_v0", num_players=3).possible_agents == ["player_0", "player_1", "player_2"]

    # every registered bot builds, and moves but for Fae's searches: their first move compiles their numba
    # kernels again for this copy (~15 s of CPU; the repository's tests play them), where greedy's move
    # already shows the installed files' kernels compile and cache
    searches = {("fae", "mcts"), ("fae", "mcts_batched"), ("fae", "mcts_guided")}
    for game, spec in (("fae", fae_rl), ("fantastiqa", fantastiqa_rl)):
        e = spec.env(num_players=2)
        e.reset(seed=1)
        obs, *_ = e.last()
        for name in agent_names(game):
            bot = make_agent(game, name, seed=0)
            if (game, name) in searches:
                assert callable(bot.act), (game, name)
                continue
            a = bot.act(obs["observation"], obs["action_mask"], state=e.unwrapped.game, seat=e.unwrapped.game.current_player)
            assert obs["action_mask"][a], (game, name)

    # the Gymnasium adapters, in the form that needs no import of ours first
    for gid in ("fae_rl:fae_rl/Fae-v0", "fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"):
        g = gymnasium.make(gid, opponent="random")
        g.reset(seed=0)
        g.close()

    # the CLIs, as console scripts and as modules
    bindir = __import__("os").path.dirname(sys.executable)
    for cmd in ([bindir + "/tabletop-arena"], [sys.executable, "-m", "tabletop_rl.agents.arena"]):
        subprocess.run(cmd + ["--game", "fae", "--players", "2", "--agents", "greedy", "random", "--games", "4",
                              "--workers", "1", "--out", "arena_out", "--quiet", "--no-plot"], check=True)
    subprocess.run([bindir + "/tabletop-play", "fae", "--agents", "random", "random", "--games", "2"], check=True)
    subprocess.run([bindir + "/tabletop-train", "--help"], check=True, capture_output=True)
    print("USER-OK")
''')


@pytest.mark.slow
def test_installed_wheel_beside_a_users_own_envs_and_agents(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # dependencies only: a plain path line does not run this environment's .pth files (our editable finder)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    user = tmp_path / "research"
    for pkg in ("envs", "agents"):
        (user / pkg).mkdir(parents=True)
        (user / pkg / "__init__.py").write_text('OWNER = "user"\n')
    (user / "run.py").write_text(USER_CODE)
    clean_env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    result = subprocess.run([str(python), "run.py"], cwd=user, env=clean_env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "USER-OK" in result.stdout
