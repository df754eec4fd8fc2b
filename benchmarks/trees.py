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
