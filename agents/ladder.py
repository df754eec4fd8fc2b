"""The budget ladder: a bot's win share against MCTS at growing iteration budgets, and the budget it matches.

    python -m tabletop_rl.agents.ladder --game fae                      # ppo and mcts_guided, 400 games a rung
    python -m tabletop_rl.agents.ladder --game fae --entrants ppo "mcts_guided:iterations={n}" --games 400 100
    python -m tabletop_rl.agents.ladder --game fantastiqa --budgets 30 100 --games 20

Each entrant (a bot spec; `{n}` in it is replaced by the rung's budget, so `mcts_guided:iterations={n}`
searches as long as its opponent) meets the game's MCTS at each budget of `--budgets` (default 30,
100, 300, 1,000, 3,000 iterations) in one arena run (`tabletop_rl.agents.arena`: seats rotated,
duplicate deals, the same `--seed` for every rung, so every rung plays the same deals; Wilson 95%
intervals). The opponent is Fae's `mcts_batched` (`make_agent("fae", "mcts")`'s algorithm and
defaults compiled with numba, ~30x cheaper a move, so 3,000 iterations x 400 games is minutes, not
hours) and Fantastiqa's `mcts` (scalar, with rollouts: seconds a move at high budgets, so give it
few games and low budgets).

The headline is the budget the entrant matches: where its win share crosses the fair share 1/2,
interpolated in log budget between the last rung it wins and the first it loses ("> the top rung"
when it wins them all, "< the bottom rung" when it loses them all). A crossing between two rungs
whose intervals both hold 1/2 is within the noise; the table shows the intervals.

The table is written into `--doc` (default docs/baselines.md) between the markers
`<!-- baselines GAME ladder 2p -->` and `<!-- /baselines GAME ladder 2p -->` (the baseline table's
writer, `tabletop_rl.agents.baseline_table.write_section`); `--json` also saves the numbers, `--no-doc`
only prints.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from tabletop_rl.agents.arena import ArenaConfig, run_arena
from tabletop_rl.agents.baseline_table import DEFAULT_DOC, write_section

BUDGETS = (30, 100, 300, 1000, 3000)
#: game -> (the MCTS bot spec at budget {n}, the entrants by default, modules that register them)
GAMES = {
    "fae": ("mcts_batched:iterations={n}", ("ppo", "mcts_guided"), ()),
    "fantastiqa": ("mcts:iterations={n}", ("ppo",), ()),
}


def rung_spec(spec: str, budget: int) -> str:
    return spec.replace("{n}", str(int(budget)))


def matched_budget(rungs: list[dict]) -> dict:
    """Where the win share crosses 1/2 (module docstring): {"budget": float or None, "text": str}."""
    rungs = sorted(rungs, key=lambda r: r["budget"])
    if all(r["win_share"] >= 0.5 for r in rungs):
        return {"budget": None, "text": f"> {rungs[-1]['budget']:,}"}
    if rungs[0]["win_share"] < 0.5:
        return {"budget": None, "text": f"< {rungs[0]['budget']:,}"}
    for a, b in zip(rungs, rungs[1:]):
        if a["win_share"] >= 0.5 > b["win_share"]:
            t = (a["win_share"] - 0.5) / (a["win_share"] - b["win_share"])
            budget = math.exp(math.log(a["budget"]) + t * (math.log(b["budget"]) - math.log(a["budget"])))
            return {"budget": budget, "text": f"~{budget:,.0f} (between {a['budget']:,} and {b['budget']:,})"}
    raise AssertionError("unreachable: the first rung wins and some later one loses")


def run_ladder(game: str, entrants=None, budgets=BUDGETS, games=(400,), seed: int = 0, workers: int = 1,
               quiet: bool = False) -> dict:
    """Every entrant against the game's MCTS at every budget (module docstring); a JSON-able dict.
    `games`: one count for every entrant, or one per entrant."""
    if game not in GAMES:
        raise ValueError(f"the ladder knows {sorted(GAMES)}; got {game!r}")
    mcts, default_entrants, imports = GAMES[game]
    entrants = list(entrants or default_entrants)
    games = list(games)
    if len(games) == 1:
        games = games * len(entrants)
    if len(games) != len(entrants):
        raise ValueError(f"--games: one count, or one per entrant ({len(entrants)}); got {len(games)}")
    if not budgets or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in budgets):
        raise ValueError(f"--budgets must be ints >= 1; got {list(budgets)}")
    start = time.perf_counter()
    rows = []
    for entrant, n_games in zip(entrants, games):
        rungs = []
        for budget in budgets:
            cfg = ArenaConfig(game=game, agents=[rung_spec(entrant, budget), rung_spec(mcts, budget)], games=n_games,
                              players=2, seed=seed, workers=workers, imports=list(imports), records=False)
            t = time.perf_counter()
            bot = run_arena(cfg, plot=False, quiet=True, write=False)["summary"]["bots"][0]
            rungs.append({"budget": budget, "games": bot["games"], "win_share": bot["win_share"],
                          "wilson95": bot["wilson95"], "seconds": round(time.perf_counter() - t, 1)})
            if not quiet:
                print(f"{rung_spec(entrant, budget)} vs {rung_spec(mcts, budget)}: {bot['win_share']:.3f} over "
                      f"{bot['games']} games ({rungs[-1]['seconds']} s)", file=sys.stderr, flush=True)
        rows.append({"entrant": entrant, "rungs": rungs, "matches": matched_budget(rungs)})
    return {"game": game, "players": 2, "mcts": mcts, "budgets": list(budgets), "seed": seed, "workers": workers,
            "entrants": rows, "wall_s": round(time.perf_counter() - start, 1),
            "date": time.strftime("%Y-%m-%d", time.gmtime())}


def markdown(result: dict, command: str) -> str:
    """The ladder as a docs section."""
    budgets = result["budgets"]
    lines = [f"Measured {result['date']} with `{command}` ({result['wall_s'] / 60:.1f} min wall, {result['workers']} "
             f"worker{'s' if result['workers'] > 1 else ''}; seed {result['seed']}, duplicate deals, seats rotated). "
             f"Each cell: the entrant's win share against `{result['mcts']}` at that budget, 95% Wilson interval, "
             "games; a shared win counts 1/2. Matches: the budget where the share crosses 1/2 (log interpolation).", "",
             "| entrant | " + " | ".join(f"vs {b:,} it." for b in budgets) + " | matches |",
             "|---" * (len(budgets) + 2) + "|"]
    for row in result["entrants"]:
        cells = [f"{r['win_share']:.3f} [{r['wilson95'][0]:.3f}, {r['wilson95'][1]:.3f}] ({r['games']})"
                 for r in row["rungs"]]
        lines.append(f"| `{row['entrant']}` | " + " | ".join(cells) + f" | {row['matches']['text']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop_rl.agents.ladder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--entrants", nargs="+", default=None, metavar="SPEC",
                        help="bot specs ({n}: the rung's budget); default: fae ppo mcts_guided, fantastiqa ppo")
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS), help="MCTS iterations per rung")
    parser.add_argument("--games", nargs="+", type=int, default=[400], help="games a rung: one, or one per entrant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="arena processes (default 1)")
    parser.add_argument("--doc", default=str(DEFAULT_DOC), help="the docs page to write (default docs/baselines.md)")
    parser.add_argument("--no-doc", action="store_true", help="print the table, write no page")
    parser.add_argument("--json", default=None, metavar="PATH", help="also save the numbers here")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = run_ladder(args.game, args.entrants, args.budgets, args.games, args.seed, args.workers, args.quiet)
    except ValueError as exc:
        parser.error(str(exc))
    command = (f"python -m tabletop_rl.agents.ladder --game {args.game}"
               + (" --entrants " + " ".join(f'"{e}"' if "{" in e or " " in e else e for e in args.entrants)
                  if args.entrants else "")
               + (" --budgets " + " ".join(map(str, args.budgets)) if list(args.budgets) != list(BUDGETS) else "")
               + (" --games " + " ".join(map(str, args.games)) if args.games != [400] else "")
               + (f" --seed {args.seed}" if args.seed else "") + (f" --workers {args.workers}" if args.workers != 1 else ""))
    text = markdown(result, command)
    if not args.no_doc:
        write_section(Path(args.doc), f"{args.game} ladder", 2, text)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
