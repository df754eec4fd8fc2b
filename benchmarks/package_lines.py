"""Lines of Python per package, now and at an earlier commit (issue 38: "package lines fall").

    python benchmarks/package_lines.py                 # the working tree
    python benchmarks/package_lines.py --base 7424e47  # and at that commit, with the change

A line counts when it is neither blank nor only a comment; docstrings count (they are the
documentation pages). Reads the commit through `git ls-tree` / `git cat-file`, so it needs no
checkout of it.
"""
from __future__ import annotations

import argparse
import os
import subprocess

PACKAGES = ("fae_rl", "fantastiqa_rl", "envs", "agents", "tabletop_rl", "train.py", "benchmarks", "tests")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def package_of(path: str) -> str | None:
    top = path.split("/", 1)[0]
    return top if top in PACKAGES else None


def counts_in_tree() -> dict[str, int]:
    """Tracked .py files of the working tree (symlinks skipped: tabletop_rl/train.py is train.py)."""
    out = dict.fromkeys(PACKAGES, 0)
    for path in _git("ls-files", "*.py").splitlines():
        full = os.path.join(ROOT, path)
        if package_of(path) and not os.path.islink(full) and os.path.exists(full):
            with open(full, encoding="utf-8") as f:
                out[package_of(path)] += code_lines(f.read())
    return out


def counts_at(commit: str) -> dict[str, int]:
    out = dict.fromkeys(PACKAGES, 0)
    files = []
    for line in _git("ls-tree", "-r", commit).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind == "blob" and mode != "120000" and path.endswith(".py") and package_of(path):
            files.append((package_of(path), blob))
    batch = subprocess.run(["git", "cat-file", "--batch"], cwd=ROOT, check=True, capture_output=True,
                           input="".join(f"{blob}\n" for _, blob in files).encode()).stdout
    at = 0
    for package, _ in files:  # each answer: "<sha> blob <size>\n<content>\n"
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        out[package] += code_lines(batch[header_end + 1:header_end + 1 + size].decode("utf-8"))
        at = header_end + 1 + size + 1
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="", help="an earlier commit to compare with")
    args = p.parse_args(argv)
    now = counts_in_tree()
    base = counts_at(args.base) if args.base else None
    print(f"{'package':<16}" + (f"{args.base[:10]:>12}" if base else "") + f"{'now':>10}" + ("   change" if base else ""))
    for name in PACKAGES:
        row = f"{name:<16}" + (f"{base[name]:>12,}" if base else "") + f"{now[name]:>10,}"
        print(row + (f"{now[name] - base[name]:>+9,}" if base else ""))


if __name__ == "__main__":
    main()
