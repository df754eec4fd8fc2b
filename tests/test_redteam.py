"""Issue 24's loader attacks, from benchmarks/redteam.py: every malformed or oversized policy file
is refused with PolicyFileError before it allocates, and the quick red-team run has no row where
code ran or a bad input was taken."""
from __future__ import annotations

import tracemalloc

import pytest

from tabletop_rl.agents.ppo_agent import PolicyFileError, PolicyWeights
from tests.redteam_helpers import redteam


def test_every_policy_npz_payload_is_refused_clearly_before_allocating(tmp_path):
    """The issue's payloads (a member without the .npy magic, nested header JSON, zip method 99, an
    encrypted flag, skip null/list, 1e300 -> inf, meta.game 5 / "nope", a 64 MiB header member, a
    hidden width of 20,000, ...) and issue 36's (meta options the game refuses, another game's
    sizes, 0 actions, 1e308 skip coefficients, 10,000 skip terms, logits not finite): each raises
    PolicyFileError naming the file, with under 16 MiB allocated (tracemalloc), and no pickle runs."""
    rt = redteam()
    payloads = rt.npz_payloads(tmp_path, quick=True)
    assert len(payloads) >= 65 and sum(case in dict(payloads) for case, _ in rt.play_payloads()) == 16
    wrong = []
    for case, path in payloads:
        tracemalloc.start()
        try:
            PolicyWeights.load(path)
            wrong.append(f"{case}: loaded")
        except PolicyFileError as exc:
            if str(path) not in str(exc):
                wrong.append(f"{case}: the error does not name the file: {exc}")
        except Exception as exc:  # noqa: BLE001 - the finding
            wrong.append(f"{case}: {type(exc).__name__}: {exc}"[:300])
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if peak > rt.REFUSAL_BYTES:
            wrong.append(f"{case}: allocated {peak >> 20} MiB before refusing")
    assert not (tmp_path / "pwned").exists()
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("part", ["trust", "openspiel", "actions", "resume"])
def test_quick_redteam_rows_are_all_clear(tmp_path, part):
    """"resume" (issue 36): run folders whose config.json names Python to import and checkpoints
    that restored and then crashed or trained on wrongly; it trains a tiny run first."""
    rt = redteam()
    rows = {"trust": lambda: rt.trust_rows(tmp_path), "openspiel": rt.openspiel_rows, "actions": rt.action_rows,
            "resume": lambda: rt.resume_rows(tmp_path, quick=True)}[part]()
    if part == "resume" and not rows:
        pytest.skip("SB3 is not installed")
    if part == "openspiel" and not rows:
        pytest.skip("pyspiel is not installed")
    assert rows and all(set(r) == {"target", "case", "outcome"} and r["outcome"] in rt.OUTCOMES for r in rows)
    bad = [r for r in rows if r["outcome"] in ("code executed", "silently accepted")]
    assert not bad, bad
    unclear = [r for r in rows if r["outcome"] != "clear"]
    assert not unclear, unclear


def test_report_table_counts_each_outcome_per_target():
    rt = redteam()
    rows = [{"target": "a", "case": "1", "outcome": "clear"}, {"target": "a", "case": "2", "outcome": "crash later"},
            {"target": "b", "case": "3", "outcome": "code executed"}]
    lines = rt.table(rows).splitlines()
    assert lines[0].split()[:3] == ["target", "tried", "clear"]
    assert lines[1].split() == ["a", "2", "1", "0", "0", "1", "0"]
    assert lines[2].split() == ["b", "1", "0", "0", "0", "0", "1"]
    assert lines[3].split() == ["all", "3", "1", "0", "0", "1", "1"]
