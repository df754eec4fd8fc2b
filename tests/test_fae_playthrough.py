"""Golden playthroughs: regenerate and diff (python -m fae_rl.playthrough --write after a deliberate change)."""
import difflib

import pytest

from fae_rl.playthrough import CONFIGS, DATA_DIR, playthrough


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_playthrough_matches_the_golden_file(name):
    expected = (DATA_DIR / name).read_text()
    got = playthrough(**CONFIGS[name])
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "golden", "now", n=2))
        pytest.fail(f"{name} differs from the golden file:\n{diff[:4000]}")
