"""The decision table (fantastiqa_rl.decisions) is the code's: every phase, every handler resolves,
and the kernels' dispatch chains send each phase to the functions the table names. That the
differential runs each ported decision in its kernels is checked by
tests/test_fantastiqa_vector_kernels.py (`test_every_ported_decision_runs_in_a_kernel_...`)."""
import inspect
import re

import pytest

from fantastiqa_rl import actions as A
from fantastiqa_rl import rules, vector_kernels, vector_steps
from fantastiqa_rl.decisions import DECISIONS, resolve


def test_every_phase_has_its_scalar_handlers_and_kernels_or_a_reason():
    assert list(DECISIONS) == list(A.PHASES)
    for ph, d in enumerate(DECISIONS.values()):
        assert (resolve(d.legal), resolve(d.apply)) == rules.HANDLERS[ph], d.name
        assert (d.mask_row is None) == (d.step is None), d.name
        if d.step is None:
            assert d.scalar_because, d.name
        else:
            assert not d.scalar_because
            for name in (d.mask_row, d.step):
                assert callable(resolve(name)), name


def _source(name: str) -> str:
    fn = resolve(name)
    return inspect.getsource(getattr(fn, "py_func", None) or getattr(fn, "__wrapped__", None) or fn)


def _dispatches(source: str, phase: str, function: str) -> bool:
    """Whether the chain's test of `phase` leads, within three lines and before the next phase's test,
    to a call of `function`."""
    between = r"(?:(?![^\n]*\bph ==)[^\n]*\n){0,2}?"
    return re.search(rf"A\.{phase}\b[^\n]*:\n{between}[^\n]*\b{function}\(", source) is not None


def _chains():
    return _source("vector_kernels.legal"), _source("vector_steps.apply")


@pytest.mark.parametrize("name", [d.name for d in DECISIONS.values() if d.step is not None])
def test_the_kernels_dispatch_each_phase_to_its_handlers(name):
    legal, apply = _chains()
    d = DECISIONS[name]
    assert _dispatches(legal, name, d.mask_row.rpartition(".")[2]), (name, d.mask_row)
    assert _dispatches(apply, name, d.step.rpartition(".")[2]), (name, d.step)


def test_a_wrong_pairing_is_caught():
    """Control: the check fails for a function the chain does not send the phase to."""
    legal, apply = _chains()
    assert not _dispatches(legal, "BUY", "_chest_row")
    assert not _dispatches(apply, "BUY", "chest")
    assert not _dispatches(legal, "ABBEY_MATCH", "_main_row")


def test_the_phases_left_to_the_scalar_core_have_no_kernel_branch():
    legal, apply = _chains()
    for d in DECISIONS.values():
        if d.step is None and d.name != "TERMINAL":
            assert f"A.{d.name}" not in legal and f"A.{d.name}" not in apply, d.name
    assert vector_kernels is not None and vector_steps is not None
