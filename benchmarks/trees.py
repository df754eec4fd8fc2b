"""Import this repository's packages from another checkout (the A/B benchmarks' workers).

`mount_tree(tree)` puts `tree` first on sys.path and imports `tabletop_rl` and the folders pyproject's
package-dir maps into it (`envs/` as `tabletop_rl.envs`, `agents/` as `tabletop_rl.agents`) from
`tree`: with sys.path alone, an editable install of another checkout would still serve those two
(setuptools' editable finder maps them), and the A/B would time a mix of both trees.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def mount_tree(tree) -> None:
    tree = Path(tree).resolve()
    sys.path[:0] = [str(tree), str(tree / "benchmarks")]
    import tabletop_rl

    if Path(tabletop_rl.__file__).resolve().parent != tree / "tabletop_rl":
        raise RuntimeError(f"tabletop_rl was imported from {tabletop_rl.__file__} before mount_tree({tree})")
    for name, folder in (("tabletop_rl.envs", tree / "envs"), ("tabletop_rl.agents", tree / "agents")):
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        setattr(tabletop_rl, name.rsplit(".", 1)[1], module)
        spec.loader.exec_module(module)


def alternate(script, trees: dict, worker_args, requests, rounds: int) -> dict:
    """Old and new code in one run, alternated (the A/B benchmarks' driver).

    Starts `script x x --worker TREE *worker_args` once per tree of `trees` ({name: folder}; the tree's
    own .venv python if it has one, PYTHONHASHSEED=0 in each so string hashes, dict layouts, match),
    then for each of `rounds` rounds sends every line of `requests` to each worker in turn, the order
    of the workers reversed every other round, and reads one JSON answer per line. Returns
    {(name, request): [answers]}.
    """
    import json
    import os
    import subprocess

    procs = {}
    for name, tree in trees.items():
        py = Path(tree) / ".venv/bin/python"
        cmd = [str(py) if py.exists() else sys.executable, str(Path(script).resolve()), "x", "x", "--worker",
               str(Path(tree).resolve()), *map(str, worker_args)]
        procs[name] = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree,
                                       env=dict(os.environ, PYTHONHASHSEED="0"))
    answers = {(name, req): [] for name in procs for req in requests}
    order = list(procs)
    try:
        for r in range(rounds):
            for req in requests:
                for name in (order if r % 2 == 0 else order[::-1]):
                    procs[name].stdin.write(f"{req}\n")
                    procs[name].stdin.flush()
                    line = procs[name].stdout.readline()
                    if not line:
                        raise RuntimeError(f"the {name} worker ({trees[name]}) stopped without an answer to {req!r}")
                    answers[name, req].append(json.loads(line))
    finally:
        for pr in procs.values():
            pr.stdin.close()
            pr.wait()
    return answers
