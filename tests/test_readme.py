"""README's code runs as written: every ```python block of README.md runs ALONE in a fresh
interpreter, outside the checkout (a reader pastes one block, not the page), so a block that uses a
name only an earlier block defined fails here.

The fence's info string says what a block needs, in words the test reads:

    ```python needs=pyspiel          skipped, saying so, where `pyspiel` is not installed
    ```python no-run=REASON          never run (a block that takes long or needs a server); REASON is shown
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)
_NEEDS = re.compile(r"^needs=([A-Za-z_][\w.]*)$")
_NO_RUN = re.compile(r"^no-run=(\S.*)$")


class Block:
    def __init__(self, line: int, code: str, needs: tuple[str, ...], no_run: str | None):
        self.line, self.code, self.needs, self.no_run = line, code, needs, no_run


def readme_blocks(text: str) -> list[Block]:
    """Every ```python block with its README line and what its fence says; an info string the test
    does not understand is an error (a typo must not silently skip a block)."""
    blocks = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        info = m.group(1).strip()
        needs, no_run = [], None
        for word in ([info] if info.startswith("no-run=") else info.split()):
            if (n := _NEEDS.match(word)) is not None:
                needs.append(n.group(1))
            elif (r := _NO_RUN.match(word)) is not None:
                no_run = r.group(1)
            else:
                raise ValueError(f"README.md:{line}: fence info {info!r}: expected needs=MODULE or no-run=REASON")
        blocks.append(Block(line, m.group(2), tuple(needs), no_run))
    return blocks


def test_fence_info_is_read_and_typos_are_errors():
    text = ("```python\nx = 1\n```\n```python needs=pyspiel needs=torch.nn\ny = 2\n```\n"
            "```python no-run=starts a web server\nz = 3\n```\n")
    got = [(b.line, b.code, b.needs, b.no_run) for b in readme_blocks(text)]
    assert got == [(1, "x = 1\n", (), None), (4, "y = 2\n", ("pyspiel", "torch.nn"), None),
                   (7, "z = 3\n", (), "starts a web server")]
    for bad in ("```python skip\nx\n```\n", "```python needs=\nx\n```\n", "```python no-run=\nx\n```\n"):
        with pytest.raises(ValueError, match="fence info"):
            readme_blocks(bad)


def run_alone(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` as the whole program of a fresh interpreter, run from `cwd`."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_a_block_runs_alone_so_names_from_an_earlier_block_are_missing(tmp_path):
    first, second = readme_blocks("```python\nimport numpy as np\n```\n```python\nprint(np.zeros(1))\n```\n")
    assert run_alone(first.code, tmp_path).returncode == 0
    proc = run_alone(second.code, tmp_path)
    assert proc.returncode != 0 and "NameError: name 'np' is not defined" in proc.stderr


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_its_blocks():
    assert len(BLOCKS) >= 12, "README's quickstarts are gone?"
    assert {m for b in BLOCKS for m in b.needs} == {"pyspiel", "torchrl", "tianshou"}


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_block_runs_alone(block, tmp_path):
    if block.no_run is not None:
        pytest.skip(f"README.md:{block.line} is marked no-run: {block.no_run}")
    missing = [m for m in block.needs if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        pytest.skip(f"README.md:{block.line} needs {', '.join(missing)}, not installed")
    proc = run_alone(block.code, tmp_path)  # outside the checkout: only the installed packages
    assert proc.returncode == 0, f"README.md block at line {block.line} failed:\n{proc.stderr[-3000:]}"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchor of every heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#{1,6} (.+)$", markdown, re.M)}


def test_readme_links_reach_their_headings():
    text = README.read_text(encoding="utf-8")
    docs = {"": _anchors(text)}
    links = re.findall(r"\]\(([\w/.\-]*\.md)?#([\w\-]+)\)", text)
    assert len(links) >= 10
    for path, anchor in links:
        if path not in docs:
            docs[path] = _anchors((README.parent / path).read_text(encoding="utf-8"))
        assert anchor in docs[path], f"README links to {path or 'README.md'}#{anchor}, which has no such heading"


def test_the_bridges_section_has_one_block_per_library_each_fenced_with_its_needs():
    text = README.read_text(encoding="utf-8")
    start = text.index("### Use with OpenSpiel / TorchRL / Tianshou")
    end = re.compile(r"^#{1,3} ", re.M).search(text, start + 1).start()
    blocks = readme_blocks(text[start:end])
    assert [b.needs for b in blocks] == [("pyspiel",), ("torchrl",), ("tianshou",)]
    assert [("pyspiel" in b.code, "torchrl" in b.code, "tianshou" in b.code) for b in blocks] == [
        (True, False, False), (False, True, False), (False, False, True)]


def test_every_script_the_figures_name_exists():
    """docs/benchmarks.md gives each figure with the command that produces it: those scripts exist."""
    root = README.parent
    for doc in (README, root / "docs" / "benchmarks.md"):
        scripts = set(re.findall(r"python (benchmarks/[\w/]+\.py|train\.py)", doc.read_text(encoding="utf-8")))
        assert len(scripts) >= 3, doc
        missing = sorted(s for s in scripts if not (root / s).is_file())
        assert not missing, f"{doc.name} names scripts that do not exist: {missing}"
