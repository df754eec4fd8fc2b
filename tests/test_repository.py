"""The repository stands alone (issue 12): no tracked file refers to a path outside its root.

A user's clone has nothing beside it, so a link to a sibling folder (`..` then `/shared`), a `Path(__file__).parents[k]` walk
above the root or an absolute path to this machine's folders would break for them. The scan reads
every tracked text file; `test_scan_catches_a_planted_reference` proves it can fail.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".toml", ".txt", ".cfg", ".ini", ".json", ".jsonl", ".yml", ".yaml", ".sh", ""}
DOTDOT = re.compile(r"((?:\.\./)+)([\w.-]*)")
PARENTS = re.compile(r"parents\[(\d+)\]")
ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(work|home|root|Users|mnt|srv|tmp)/[\w.-]+")


def tracked_files(root: Path) -> list[Path]:
    if (root / ".git").exists():
        out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
        return [root / line for line in out.splitlines()]
    return [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]


def outside_references(root: Path) -> list[str]:
    """'file:line: text' for each reference that leaves `root`."""
    problems = []
    for path in tracked_files(root):
        if path.suffix not in TEXT_SUFFIXES or path.is_symlink() or not path.is_file():
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(root)
        depth = len(rel.parts) - 1  # folders between the root and the file
        for number, line in enumerate(lines, 1):
            for m in DOTDOT.finditer(line):
                target = os.path.normpath(os.path.join(str(rel.parent), m.group(1)))
                if target == ".." or target.startswith(".." + os.sep):
                    problems.append(f"{rel}:{number}: leaves the repository: {m.group(0)!r}")
            for m in PARENTS.finditer(line):
                if "__file__" in line and int(m.group(1)) > depth:
                    problems.append(f"{rel}:{number}: walks above the repository root: {m.group(0)!r}")
            for m in ABSOLUTE.finditer(line):
                problems.append(f"{rel}:{number}: absolute path: {m.group(0)!r}")
    return problems


def test_no_tracked_file_refers_outside_the_repository(repo_root):
    problems = outside_references(repo_root)
    assert not problems, "references outside the repository:\n" + "\n".join(problems)


def test_scan_catches_a_planted_reference(tmp_path):
    up, work, sibling = "..", "/wo" + "rk", "sha" + "red"  # split, so this file does not plant them in the repository itself
    (tmp_path / "tests").mkdir()
    (tmp_path / "README.md").write_text(f"Specs: `docs/rules/fae.md`.\nOld link: {up}/{sibling}/rules/fae.md\n")
    (tmp_path / "tests" / "helpers.py").write_text(
        "from pathlib import Path\n"
        "OK = Path(__file__).resolve().parents[1] / 'docs'\n"
        "BAD = Path(__file__).resolve().parents" + "[2] / 'shared' / 'rules'\n"
        f"SIBLING = '{up}/data/x.jsonl'\n"
        f"ABS = '{work}/{sibling}/rules/fae.md'\n")
    found = outside_references(tmp_path)
    assert any(p.startswith("README.md:2:") and f"{up}/shared" in p for p in found)
    assert any(p.startswith(os.path.join("tests", "helpers.py") + ":3:") and "parents[2]" in p for p in found)
    assert any(":5:" in p and f"{work}/shared" in p for p in found)
    assert len(found) == 3, found  # parents[1] from tests/ and ../data from tests/ stay inside


def test_rules_specifications_and_golden_games_live_in_the_repository(repo_root):
    for rel in ("docs/rules/fae.md", "docs/rules/fantastiqa.md", "tests/data/fae_golden.jsonl"):
        assert (repo_root / rel).is_file(), rel
