"""README's quickstarts run verbatim: every ```python block of README.md, in order, in one fresh
interpreter (later blocks may use names of earlier ones, as a reader pasting them would). A block may
be skipped only by a visible marker line right above it, with its reason:

    <!-- readme-test: skip (reason) -->
"""
from __future__ import annotations

import re
import subprocess
import sys

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_SKIP = re.compile(r"<!-- readme-test: skip \((.+)\) -->\s*$")


def readme_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line, code, skip reason or None) of every ```python block."""
    blocks = []
    for m in _BLOCK.finditer(text):
        before = text[:m.start()].rstrip("\n").splitlines()
        skip = _SKIP.search(before[-1]) if before else None
        blocks.append((text.count("\n", 0, m.start()) + 1, m.group(1), skip.group(1) if skip else None))
    return blocks


def test_skip_marker_needs_a_reason_and_is_found():
    text = "a\n<!-- readme-test: skip (trains for an hour) -->\n```python\nx = 1\n```\n```python\ny = 2\n```\n"
    assert [(code, why) for _, code, why in readme_blocks(text)] == [("x = 1\n", "trains for an hour"),
                                                                      ("y = 2\n", None)]
    assert readme_blocks("<!-- readme-test: skip () -->\n```python\nx\n```\n")[0][2] is None


def test_readme_python_blocks_run_verbatim(tmp_path, repo_root):
    with open(repo_root / "README.md", encoding="utf-8") as f:
        blocks = readme_blocks(f.read())
    run = [(line, code) for line, code, skip in blocks if skip is None]
    assert len(run) >= 6, "README's quickstarts are gone?"
    script = []
    for line, code in run:  # each block announces itself, so a failure names its README line
        script.append(f"print('--- README.md block at line {line}', flush=True)\n{code}")
    path = tmp_path / "readme_blocks.py"
    path.write_text("\n".join(script), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=480,
                          cwd=tmp_path)  # outside the checkout: only the installed packages
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("--- README.md block")]
    assert proc.returncode == 0, f"{last[-1] if last else 'before the first block'} failed:\n{proc.stderr[-3000:]}"
    assert len(last) == len(run)
