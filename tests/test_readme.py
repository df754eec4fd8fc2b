"""README's code runs as written: every ```python block of README.md and of the pages under docs/
(where README's long sections live: docs/install.md, docs/usage/*.md, ...) runs ALONE in a fresh
interpreter, outside the checkout (a reader pastes one block, not the page), so a block that uses a
name only an earlier block defined fails here. README stays short (at most README_MAX_LINES lines),
and every relative link of these pages reaches a file of the repository (and, in a page, a heading).

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

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: README and every docs page: the blocks and links checked here
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 300  # issue 39: what it is, the two commands, the first ten minutes, usage by task with links
_BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)
_NEEDS = re.compile(r"^needs=([A-Za-z_][\w.]*)$")
_NO_RUN = re.compile(r"^no-run=(\S.*)$")


class Block:
    def __init__(self, line: int, code: str, needs: tuple[str, ...], no_run: str | None, page: str = "README.md"):
        self.line, self.code, self.needs, self.no_run, self.page = line, code, needs, no_run, page

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def readme_blocks(text: str, page: str = "README.md") -> list[Block]:
    """Every ```python block of a page with its line and what its fence says; an info string the test
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
                raise ValueError(f"{page}:{line}: fence info {info!r}: expected needs=MODULE or no-run=REASON")
        blocks.append(Block(line, m.group(2), tuple(needs), no_run, page))
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


def _page_name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


BLOCKS = [b for page in PAGES for b in readme_blocks(page.read_text(encoding="utf-8"), _page_name(page))]


def test_readme_has_its_blocks():
    """The quickstarts README had before issue 39 still run, in README or in the page they moved to."""
    readme = [b for b in BLOCKS if b.page == "README.md"]
    assert len(readme) >= 3, "README's quickstarts are gone?"
    assert len(BLOCKS) >= 14, "README's or the usage pages' blocks are gone?"
    assert {m for b in BLOCKS for m in b.needs} == {"pyspiel", "torchrl", "tianshou"}
    pages = {b.page for b in BLOCKS}
    assert {"docs/install.md", "docs/usage/envs.md", "docs/usage/bots.md", "docs/usage/libraries.md"} <= pages


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_readme_block_runs_alone(block, tmp_path):
    if block.no_run is not None:
        pytest.skip(f"{block.where} is marked no-run: {block.no_run}")
    missing = [m for m in block.needs if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        pytest.skip(f"{block.where} needs {', '.join(missing)}, not installed")
    proc = run_alone(block.code, tmp_path)  # outside the checkout: only the installed packages
    assert proc.returncode == 0, f"the block at {block.where} failed:\n{proc.stderr[-3000:]}"


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail to docs/ (at most {README_MAX_LINES})"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchor of every heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", markdown), re.M)}


_LINK = re.compile(r"\]\(([^()\s]+)\)")  # [text](target) and ![alt](target)
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def relative_links(markdown: str) -> list[str]:
    """The targets of a page's links that stay in the repository: web links (scheme:...) left out,
    as are fenced code blocks (code, not links)."""
    return [t for t in _LINK.findall(_FENCE.sub("", markdown)) if not re.match(r"[a-z][a-z+.-]*:", t)]


def broken_links(page: Path, root: Path) -> list[str]:
    """'page: target: why' for each relative link of `page` that reaches no file under `root`, or a
    page without that heading."""
    problems = []
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root).as_posix()
    for target in relative_links(text):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page.resolve()
        if root.resolve() not in dest.parents:
            problems.append(f"{name}: {target}: leaves the repository")
        elif not dest.is_file():
            problems.append(f"{name}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
            problems.append(f"{name}: {target}: {dest.name} has no such heading")
    return problems


def test_link_check_catches_a_missing_file_a_missing_heading_and_a_way_out(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Title\n\n## Some `code` here\n")
    page = tmp_path / "README.md"
    page.write_text("[ok](docs/a.md#some-code-here) [self](#top) ![pic](docs/a.md) [web](https://x.org/y.md)\n"
                    "[gone](docs/b.md) [heading](docs/a.md#nope) [out](../elsewhere.md)\n"
                    "# Top\n```python\nx[0](1)\n```\n")
    assert broken_links(page, tmp_path) == ["README.md: docs/b.md: no such file",
                                            "README.md: docs/a.md#nope: a.md has no such heading",
                                            "README.md: ../elsewhere.md: leaves the repository"]


def test_every_relative_link_of_readme_and_docs_reaches_a_file_and_heading():
    links = [t for page in PAGES for t in relative_links(page.read_text(encoding="utf-8"))]
    assert len(links) >= 40, "the pages' links are gone?"
    problems = [p for page in PAGES for p in broken_links(page, ROOT)]
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_bridges_page_has_one_block_per_library_each_fenced_with_its_needs():
    text = (ROOT / "docs" / "usage" / "libraries.md").read_text(encoding="utf-8")
    sections = [text[text.index(f"## {name}\n"):] for name in ("OpenSpiel", "TorchRL", "Tianshou")]
    blocks = [readme_blocks(s.split("\n## ", 1)[0])[0] for s in sections]  # each section's first block
    assert [b.needs for b in blocks] == [("pyspiel",), ("torchrl",), ("tianshou",)]
    assert [("pyspiel" in b.code, "torchrl" in b.code, "tianshou" in b.code) for b in blocks] == [
        (True, False, False), (False, True, False), (False, False, True)]


def test_every_script_the_figures_name_exists():
    """docs/benchmarks.md gives each figure with the command that produces it, and the other pages
    name the scripts to run: those scripts exist."""
    named = {}  # script -> the pages that name it
    for doc in PAGES:
        for script in re.findall(r"python (benchmarks/[\w/]+\.py|train\.py)", doc.read_text(encoding="utf-8")):
            named.setdefault(script, set()).add(_page_name(doc))
    assert len([s for s, pages in named.items() if "docs/benchmarks.md" in pages]) >= 3
    missing = sorted(f"{sorted(pages)}: {s}" for s, pages in named.items() if not (ROOT / s).is_file())
    assert not missing, f"pages name scripts that do not exist: {missing}"
