"""A missing optional extra is named, with the pip command that installs it, and the entry point
leaves nothing behind (issue 27, item 4): a raw `ModuleNotFoundError` used to leave the newcomer to
find which extra brings `stable_baselines3`, `uvicorn` or `ray`, and `--backend rllib` left an
empty run folder."""
import runpy
import sys

import pytest

import train
from tabletop_rl.extras import MissingExtraError, require_extra


def block(monkeypatch, *modules):
    """Make `modules` unimportable, as if their extra were not installed (None in sys.modules)."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_require_extra_names_the_extra_and_the_command(monkeypatch):
    block(monkeypatch, "uvicorn")
    require_extra("web", ("json",), "nothing")  # installed: no error
    with pytest.raises(MissingExtraError, match=r"uvicorn \(the 'web' extra\).*pip install \"tabletop-rl\[web\]\""):
        require_extra("web", ("json", "uvicorn"), "the web app")
    assert issubclass(MissingExtraError, ModuleNotFoundError)  # callers catching ImportError still do


@pytest.mark.parametrize("args,extra,modules", [
    (["--backend", "rllib"], "rllib", ("ray",)),
    ([], "train", ("stable_baselines3", "sb3_contrib")),
])
def test_train_names_the_extra_and_makes_no_run_folder(tmp_path, monkeypatch, args, extra, modules):
    block(monkeypatch, *modules)
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit, match=rf"tabletop-rl\[{extra}\]") as caught:
        train.main([*args, "--runs-dir", str(runs)])
    assert not runs.exists()
    # RLlib gets its own environment (issue 39 item 7: the hint named this one): the Makefile's target says how
    message = str(caught.value)
    assert ("make venv-rllib" in message and ".venv-rllib/bin/python train.py" in message) == (extra == "rllib")


def test_web_app_names_the_web_extra(monkeypatch):
    block(monkeypatch, "uvicorn", "starlette")
    with pytest.raises(SystemExit, match=r"the web app needs starlette, uvicorn .*tabletop-rl\[web\]"):
        runpy.run_module("tabletop_rl.agents.web", run_name="__main__")
