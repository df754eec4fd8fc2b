"""The import graph: layers point down, and no module imports itself through others.

Every .py under fae_rl, fantastiqa_rl, envs, agents and tabletop_rl, and train.py, is parsed with
`ast`; every import counts, at any depth (inside functions too: a lazy import still couples the two
modules). Each module belongs to one layer of `docs/architecture.md`:

    base -> data -> rules -> encoders -> env -> bots -> training | apps

A module may import a module of its own layer or of a lower one; `training` and `apps` are
siblings and import neither each other. The test fails, naming file:line, on (a) an import
cycle between modules and (b) an import of a higher layer or of a sibling. A module missing from
`LAYERS` fails too: a new module is placed deliberately. Two folder rules hold whatever the
layers say: the game packages import only the env base of the suite, and no module of envs/
(`tabletop_rl.envs`) reaches `tabletop_rl.agents` or `tabletop_rl.training` through any chain of
imports (the learner core and its faces are `tabletop_rl.training.*`; the records wrapper and
`FantastiqaBatch`, which plays the greedy bot, are `tabletop_rl.agents.*`).
"""
from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
# repository folder -> installed package name (pyproject's package-dir mapping)
FOLDERS = {"fae_rl": "fae_rl", "fantastiqa_rl": "fantastiqa_rl", "envs": "tabletop_rl.envs",
           "agents": "tabletop_rl.agents", "tabletop_rl": "tabletop_rl"}
# layer -> rank; a module may import ranks below its own, and its own layer
RANKS = {"base": 0, "data": 1, "rules": 2, "encoders": 3, "env": 4, "bots": 5, "training": 6, "apps": 6, "probes": 7}

LAYERS = {
    # the contract and shared utilities: no suite imports at all
    "base": ["tabletop_rl", "tabletop_rl.envs.game_state", "tabletop_rl.envs.rewards", "tabletop_rl.stats", "tabletop_rl.options",
             "tabletop_rl.extras", "tabletop_rl.shown"],
    # constants, tables, card files
    "data": ["fae_rl.board", "fantastiqa_rl.board", "fantastiqa_rl.actions", "fantastiqa_rl.cards",
             "fantastiqa_rl.data.make_standin", "fantastiqa_rl.card_gen"],
    # the rules cores (no PettingZoo); fae_rl.render draws a position from the board alone, and the
    # state's own text (str, view_text) is drawn by it
    "rules": ["fae_rl.state", "fae_rl.options", "fae_rl.serialization", "fae_rl.vector_core", "fae_rl.render", "fantastiqa_rl.state",
              "fantastiqa_rl.game", "fantastiqa_rl.payment", "fantastiqa_rl.queries", "fantastiqa_rl.validation",
              "fantastiqa_rl.debug",
              # fantastiqa_rl/state.py's jobs (issue 17 part B): the state class and its rules (no mixin);
              # a rule topic's folder: its scalar rules here, its kernels with the encoders below
              "fantastiqa_rl.rules", "fantastiqa_rl.powers", "fantastiqa_rl.powers.rules", "fantastiqa_rl.statues",
              "fantastiqa_rl.statues.rules", "fantastiqa_rl.turn_flow", "fantastiqa_rl.turn_flow.rules",
              "fantastiqa_rl.abbey", "fantastiqa_rl.abbey.rules", "fantastiqa_rl.quests", "fantastiqa_rl.quests.rules",
              "fantastiqa_rl.setup", "fantastiqa_rl.setup.rules", "fantastiqa_rl.adventure",
              "fantastiqa_rl.adventure.rules", "fantastiqa_rl.free_actions", "fantastiqa_rl.free_actions.rules",
              "fantastiqa_rl.options", "fantastiqa_rl.chance",
              "fantastiqa_rl.serialization",
              "fantastiqa_rl.text", "fantastiqa_rl.turn_search", "fantastiqa_rl.state_fields",
              # the one table of the decisions: rules resolves its scalar pairs; it names the kernels as
              # strings and imports them only when asked (`resolve`, by the engines and tests above)
              "fantastiqa_rl.decisions"],
    # what a seat sees: observations, masks, features, renders, information states
    "encoders": ["fae_rl.observation", "fae_rl.obs_layout", "fae_rl.obs_kernel", "fae_rl.features", "fae_rl.margin", "fae_rl.vector_mcts",
                 "fae_rl.vector", "fantastiqa_rl.observation", "fantastiqa_rl.card_view", "fantastiqa_rl.render",
                 "fantastiqa_rl.abbey_view", "fantastiqa_rl.information", "fantastiqa_rl.obs_kernel",
                 "fantastiqa_rl.vector", "fantastiqa_rl.vector_greedy", "fantastiqa_rl.vector_state",
                 "fantastiqa_rl.vector_kernels", "fantastiqa_rl.vector_pay", "fantastiqa_rl.vector_chance",
                 "fantastiqa_rl.vector_rules", "fantastiqa_rl.vector_steps", "fantastiqa_rl.rewards",
                 "fantastiqa_rl.vector_rows", "fantastiqa_rl.statues.kernels",
                 "fantastiqa_rl.powers.kernels", "fantastiqa_rl.turn_flow.kernels", "fantastiqa_rl.quests.kernels",
                 "fantastiqa_rl.setup.kernels", "fantastiqa_rl.adventure.kernels", "fantastiqa_rl.free_actions.kernels"],
    # the AEC envs, the suite registry and their base; bridges that present a game to another library
    "env": ["fae_rl", "fae_rl.environment", "fae_rl.spec", "fae_rl.openspiel", "fae_rl.playthrough",
            "fantastiqa_rl", "fantastiqa_rl.environment", "fantastiqa_rl.spec",
            "tabletop_rl.envs", "tabletop_rl.envs.aec_base", "tabletop_rl.envs.registry",
            "tabletop_rl.envs.scalar_batch", "tabletop_rl.envs.fae_batch"],
    # bots, the bot-driving loop, game records
    "bots": ["tabletop_rl.agents", "tabletop_rl.agents.base", "tabletop_rl.agents.registry",
             "tabletop_rl.agents.fae_greedy", "tabletop_rl.agents.fantastiqa_greedy", "tabletop_rl.agents.mcts",
             "tabletop_rl.agents.fae_mcts_batched", "tabletop_rl.agents.fae_mcts_guided",
             "tabletop_rl.agents.first_legal",
             "tabletop_rl.agents.fantastiqa_mcts", "tabletop_rl.agents.policy_file", "tabletop_rl.agents.policy_versions",
             "tabletop_rl.agents.ppo_agent", "tabletop_rl.agents.card_policy",
             "tabletop_rl.agents.rllib_agent", "tabletop_rl.agents.openspiel_bots", "tabletop_rl.agents.human",
             "tabletop_rl.agents.imitation", "tabletop_rl.agents.match", "tabletop_rl.agents.records",
             "tabletop_rl.agents.recording", "tabletop_rl.agents.fantastiqa_batch"],
    # the learner core, its opponent pool and faces (self-play adapters), and the trainers
    "training": ["tabletop_rl.training.learner", "tabletop_rl.training.opponents", "tabletop_rl.training.learner_envs",
                 "tabletop_rl.training.selfplay", "tabletop_rl.training.fae_vector_env", "tabletop_rl.training.rllib_env",
                 "tabletop_rl.training", "tabletop_rl.training.sb3", "tabletop_rl.training.rllib",
                 "tabletop_rl.training.evaluation", "tabletop_rl.training.checkpoints", "tabletop_rl.training.reports",
                 "tabletop_rl.training.rollout_buffer",
                 "tabletop_rl.ppo_policy", "tabletop_rl.card_net",
                 "tabletop_rl.train", "train"],
    # what people run: the arena, terminal play, the web app
    "apps": ["tabletop_rl.agents.arena", "tabletop_rl.agents.play", "tabletop_rl.agents.web",
             "tabletop_rl.agents.web.__main__", "tabletop_rl.agents.web.server", "tabletop_rl.agents.web.views",
             "tabletop_rl.agents.web.guard", "tabletop_rl.agents.web.bots", "tabletop_rl.agents.web.options",
             "tabletop_rl.text_face", "tabletop_rl.agents.llm_agent", "tabletop_rl.mcp_server",
             "tabletop_rl.agents.baseline_table", "tabletop_rl.agents.ladder"],
    # tools that train and then play in the arena: the exploitability probe
    "probes": ["tabletop_rl.agents.exploit"],
}
LAYER_OF = {m: layer for layer, mods in LAYERS.items() for m in mods}


def find_modules(root: Path = ROOT) -> dict[str, Path]:
    """Installed module name -> file, for every .py of the suite (symlinks skipped: tabletop_rl/train.py
    is train.py)."""
    mods = {}
    for folder, name in FOLDERS.items():
        for path in sorted((root / folder).rglob("*.py")):
            if path.is_symlink():
                continue
            parts = [p for p in path.relative_to(root / folder).with_suffix("").parts if p != "__init__"]
            mods[".".join([name, *parts])] = path
    mods["train"] = root / "train.py"
    return mods


def _alias(name: str) -> str:
    """tabletop_rl.train is train.py (a symlink)."""
    return "train" + name[len("tabletop_rl.train"):] if name == "tabletop_rl.train" or name.startswith(
        "tabletop_rl.train.") else name


def imports_of(module: str, path: Path, mods: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported suite module, line) for every import in `path`, at any depth. `from pkg import x`
    is an import of pkg.x when that is a module, else of pkg; other packages are ignored."""

    def known(name: str) -> str | None:
        name = _alias(name)
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                pkg = ".".join(base + ([node.module] if node.module else []))
            else:
                pkg = node.module
            names = [f"{pkg}.{a.name}" if _alias(f"{pkg}.{a.name}") in mods else pkg for a in node.names]
        else:
            continue
        for name in names:
            target = known(name)
            if target is not None and target != module:
                out.append((target, node.lineno))
    return out


def build_graph(root: Path = ROOT) -> tuple[dict[str, Path], dict[str, list[tuple[str, int]]]]:
    mods = find_modules(root)
    return mods, {m: imports_of(m, p, mods) for m, p in mods.items()}


def find_cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted({t for t, _ in graph.get(start, [])})))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted({t for t, _ in graph.get(w, [])}))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def upward_imports(mods, graph, root: Path = ROOT) -> list[str]:
    """file:line of every import of a higher layer or of a sibling (modules without a layer are
    left to `test_every_module_has_a_layer`)."""
    bad = []
    for m, edges in sorted(graph.items()):
        src = LAYER_OF.get(m)
        for target, line in edges:
            dst = LAYER_OF.get(target)
            if src and dst and dst != src and RANKS[dst] >= RANKS[src]:
                kind = "a sibling" if RANKS[dst] == RANKS[src] else "a higher"
                bad.append(f"{mods[m].relative_to(root)}:{line}: {m} ({src}) imports {target} ({dst}), {kind} layer")
    return bad


def _where(mods, graph, comp) -> list[str]:
    return [f"{mods[a].relative_to(ROOT)}:{line}: {a} imports {b}" for a in comp for b, line in graph[a] if b in comp]


# ------------------------------------------------------------------------------------ tests
def test_every_module_has_a_layer():
    mods = find_modules()
    missing = sorted(set(mods) - set(LAYER_OF))
    assert not missing, f"modules without a layer (add them to LAYERS in {Path(__file__).name}): {missing}"
    stale = sorted(m for m in LAYER_OF if m not in mods and _alias(m) not in mods)
    assert not stale, f"LAYERS names modules that do not exist: {stale}"


def test_no_import_cycles():
    mods, graph = build_graph()
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n\n".join("\n".join(_where(mods, graph, c)) for c in cycles)


def test_layers_point_down():
    mods, graph = build_graph()
    bad = upward_imports(mods, graph)
    assert not bad, "imports that point up or sideways:\n" + "\n".join(bad)


def test_game_packages_import_only_the_env_base_of_the_suite():
    """fae_rl and fantastiqa_rl know nothing of bots, training or apps: of the suite they import only
    tabletop_rl.envs' registry, AEC base, reward names and the GameState contract, the option
    declarations (tabletop_rl.options) and the loaders' bounded repr."""
    allowed = {"tabletop_rl.envs", "tabletop_rl.envs.registry", "tabletop_rl.envs.aec_base",
               "tabletop_rl.envs.game_state", "tabletop_rl.envs.rewards", "tabletop_rl.options", "tabletop_rl.shown"}
    mods, graph = build_graph()
    bad = [f"{mods[m].relative_to(ROOT)}:{line}: {m} imports {t}" for m, edges in graph.items()
           if m.split(".")[0] in ("fae_rl", "fantastiqa_rl") for t, line in edges
           if t.startswith("tabletop_rl") and t not in allowed]
    assert not bad, "\n".join(bad)


def envs_reaching_bots_or_training(mods, graph, root: Path = ROOT) -> list[str]:
    """Each module of the folder envs/ (tabletop_rl.envs) that reaches a module of tabletop_rl.agents
    or tabletop_rl.training, through any chain of imports (lazy ones included), with the chain. The
    layers would catch it only while every envs module sits in a layer below the bots; this holds
    the folder itself to it, whatever layer a module is given."""
    upper = ("tabletop_rl.agents", "tabletop_rl.training")

    def is_upper(name: str) -> bool:
        return any(name == u or name.startswith(u + ".") for u in upper)

    bad = []
    for start in sorted(m for m in graph if m == "tabletop_rl.envs" or m.startswith("tabletop_rl.envs.")):
        seen, todo = {start: None}, [start]
        while todo:
            m = todo.pop()
            for target, line in sorted(graph.get(m, [])):
                if target in seen:
                    continue
                seen[target] = (m, line)
                if is_upper(target):
                    chain, at = [], target
                    while seen[at] is not None:
                        src, ln = seen[at]
                        chain.append(f"{mods[src].relative_to(root)}:{ln}: {src} imports {at}")
                        at = src
                    bad.append("\n  ".join([f"{start} reaches {target}:"] + chain[::-1]))
                else:
                    todo.append(target)
    return bad


def test_envs_import_no_bots_or_training():
    """No module of envs/ imports tabletop_rl.agents or tabletop_rl.training, directly or through other
    modules: the games' base (the AEC base env, the registry, the GameState protocol, the reward
    names) and the batches know nothing of bots or training (issue 38 item 4)."""
    mods, graph = build_graph()
    bad = envs_reaching_bots_or_training(mods, graph)
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------------ the checker can fail
def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / "train.py").touch()
    return tmp_path


def test_checker_finds_a_cycle_through_an_import_inside_a_function(tmp_path):
    root = _plant(tmp_path, {
        "fae_rl/__init__.py": "",
        "fae_rl/a.py": "from fae_rl.b import x\n",
        "fae_rl/b.py": "def f():\n    import fae_rl.a\n",
    })
    _, graph = build_graph(root)
    assert find_cycles(graph) == [["fae_rl.a", "fae_rl.b"]]
    assert ("fae_rl.a", 2) in graph["fae_rl.b"]


def test_checker_finds_an_upward_import(tmp_path):
    root = _plant(tmp_path, {
        "fae_rl/__init__.py": "",
        "fae_rl/state.py": "def f():\n    from tabletop_rl.agents import base\n",
        "agents/__init__.py": "",
        "agents/base.py": "",
    })
    mods, graph = build_graph(root)
    assert upward_imports(mods, graph, root) == [
        "fae_rl/state.py:2: fae_rl.state (rules) imports tabletop_rl.agents.base (bots), a higher layer"]


def test_checker_finds_envs_reaching_the_bots_or_training(tmp_path):
    """The envs/ check fails on a lazy import of a bot, and on one reached through a module outside
    envs/, whatever layer LAYERS gives the envs module."""
    root = _plant(tmp_path, {
        "envs/__init__.py": "",
        "envs/aec_base.py": "from tabletop_rl.envs import game_state\n",
        "envs/game_state.py": "",
        "envs/recording.py": "def f():\n    from tabletop_rl.agents.records import replay\n",
        "envs/batch.py": "import tabletop_rl.shown\n",
        "tabletop_rl/__init__.py": "",
        "tabletop_rl/shown.py": "def f():\n    import tabletop_rl.training.learner\n",
        "tabletop_rl/training/__init__.py": "",
        "tabletop_rl/training/learner.py": "",
        "agents/__init__.py": "",
        "agents/records.py": "",
    })
    mods, graph = build_graph(root)
    assert envs_reaching_bots_or_training(mods, graph, root) == [
        "tabletop_rl.envs.batch reaches tabletop_rl.training.learner:\n"
        "  envs/batch.py:1: tabletop_rl.envs.batch imports tabletop_rl.shown\n"
        "  tabletop_rl/shown.py:2: tabletop_rl.shown imports tabletop_rl.training.learner",
        "tabletop_rl.envs.recording reaches tabletop_rl.agents.records:\n"
        "  envs/recording.py:2: tabletop_rl.envs.recording imports tabletop_rl.agents.records",
    ]
    # a planted envs/ whose imports stay in the base passes
    clean = _plant(tmp_path / "clean", {"envs/__init__.py": "", "envs/aec_base.py": "import tabletop_rl.shown\n",
                                        "tabletop_rl/__init__.py": "", "tabletop_rl/shown.py": ""})
    assert envs_reaching_bots_or_training(*build_graph(clean), clean) == []


def test_test_modules_do_not_import_each_other():
    """Shared test code lives in helper modules (tests/*_helpers.py) and fixtures in conftest.py,
    never in another test module (importing one re-collects nothing but couples the two)."""
    bad = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [f"tests/{path.name}:{node.lineno}: imports {n}" for n in names
                    if n.split(".")[-1].startswith("test_") or n.startswith("tests.test_")]
    assert not bad, "\n".join(bad)
