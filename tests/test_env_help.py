"""`help(fae_rl.env)` shows the env's doc page and `env`'s signature names its real arguments
(issue 27, item 4): the page used to sit on `raw_env`, and `env(**kwargs)` hid every argument."""
import inspect
import pydoc

import pytest

import fae_rl
import fantastiqa_rl


@pytest.mark.parametrize("module", [fae_rl, fantastiqa_rl])
def test_env_shows_the_doc_page_and_the_raw_env_arguments(module):
    page = pydoc.plain(pydoc.render_doc(module.env))
    assert "### Arguments" in page and "### Observation space" in page and "### Rewards" in page
    params = inspect.signature(module.env).parameters
    raw = inspect.signature(module.raw_env).parameters
    assert list(params) == [p for p in raw if p != "_protected"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params.values())
    assert params["num_players"].default == 2 and params["reward"].default == "win_loss"
    assert module.env(num_players=3)._protected is True  # still the protected env
