"""One arena table per game and table size: every shipped baseline against random, greedy, MCTS and
the earlier baselines, written into the docs.

    python -m tabletop_rl.agents.baseline_table --game fae --players 2 --games 1000 --mcts-games 400
    python -m tabletop_rl.agents.baseline_table --game fantastiqa --games 40 --mcts-games 10

The baselines are the game's shipped policy versions for that table size
(`tabletop_rl.agents.policy_versions`, oldest first), each played as `ppo:version=NAME`. Each one
meets each opponent (random, greedy, `--mcts`, every earlier baseline) in its own arena run
(`tabletop_rl.agents.arena`: seat rotation, duplicate deals, the same `--seed`, so every pairing
plays the same deals): the baseline at one seat, the opponent at all the others. Two anchor pairings
(greedy against random, MCTS against greedy) place the references on the same scale. Results:
- per pairing, the baseline's win share with its 95% Wilson interval (and, at 3-4 players, each
  opponent seat's mean share: "beats greedy at its table" means above 1/N and above that);
- one OpenSkill (Plackett-Luce) rating per entrant over every game of every pairing, the games
  taken in turn from each pairing (game 0 of each, then game 1, ...) so no pairing comes last;
- each entrant's median time per move, over all its moves.

The table is written between the markers `<!-- baselines GAME NP -->` and `<!-- /baselines GAME NP -->`
of `--doc` (default docs/baselines.md), added at the end if they are missing; `--json` also saves the
numbers. Games with MCTS in them take `--mcts-games` (MCTS is ~100x slower per move).

Beside it, between `<!-- baselines GAME probes NP -->` and its end marker, the exploitability probe
of every version of the table as the catalogue records it (`policy_versions.probe_figure`: the
latest 10-minute probe, else "not measured"); `--probes-only` rewrites that section alone, playing
no game.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tabletop_rl.agents.arena import ArenaConfig, rate_games, run_arena, summarize, timing_summary
from tabletop_rl.agents.policy_versions import default_version, probe_figure, version_names, version_entry
from tabletop_rl.options import parse_options

DEFAULT_DOC = Path(__file__).resolve().parents[1] / "docs" / "baselines.md"
REFERENCES = ("random", "greedy")


def baselines(game: str, players: int) -> list[str]:
    """The shipped versions of `game` trained at a `players` table, oldest first."""
    return [v for v in version_names(game) if version_entry(game, v)["players"] == players]


def pairings(game: str, players: int, mcts: str = "mcts") -> list[tuple[str, str]]:
    """(entrant, opponent) bot specs: each baseline against the references and every earlier
    baseline, then the anchors (greedy vs random, MCTS vs greedy)."""
    specs = [f"ppo:version={v}" for v in baselines(game, players)]
    pairs = [(b, o) for i, b in enumerate(specs) for o in (*REFERENCES, mcts, *specs[:i])]
    return pairs + [("greedy", "random"), (mcts, "greedy")]


def run_table(game: str, players: int = 2, games: int = 1000, mcts_games: int = 200, mcts: str = "mcts",
              seed: int = 0, workers: int = 1, options: dict | None = None, quiet: bool = False) -> dict:
    """Play every pairing and combine them (module docstring); returns a JSON-able dict."""
    if not baselines(game, players):
        raise ValueError(f"no shipped {game} policy for {players} players; shipped: "
                         f"{[(v, version_entry(game, v)['players']) for v in version_names(game)]}")
    start, cpu = time.perf_counter(), time.process_time()
    labels: list[str] = []
    cells, runs = [], []
    for entrant, opponent in pairings(game, players, mcts):
        n = mcts_games if mcts in (entrant, opponent) else games
        cfg = ArenaConfig(game=game, agents=[entrant] + [opponent] * (players - 1), games=n, players=players,
                          seed=seed, workers=workers, options=dict(options or {}), records=False)
        t = time.perf_counter()
        out = run_arena(cfg, plot=False, quiet=True, write=False)
        bots = out["summary"]["bots"]
        opp_share = sum(b["win_share"] for b in bots[1:]) / (players - 1)
        cells.append({"entrant": entrant, "opponent": opponent, "games": bots[0]["games"],
                      "win_share": bots[0]["win_share"], "wilson95": bots[0]["wilson95"],
                      "opponent_seat_share": opp_share, "seconds": round(time.perf_counter() - t, 1)})
        for lab in (entrant, opponent):
            if lab not in labels:
                labels.append(lab)
        index = [labels.index(entrant)] + [labels.index(opponent)] * (players - 1)
        runs.append([{**r, "seats": [index[j] for j in r["seats"]]} for r in out["rows"]])
        if not quiet:
            print(f"{entrant} vs {opponent}: {bots[0]['win_share']:.3f} over {bots[0]['games']} games "
                  f"({cells[-1]['seconds']} s)", file=sys.stderr, flush=True)
    longest = max(len(r) for r in runs)
    rows = [run[i] for i in range(longest) for run in runs if i < len(run)]  # in turn from each pairing
    ratings = rate_games(rows, labels)
    overall = summarize(rows, labels, players)["bots"]
    timing = timing_summary(rows, labels)
    entrants = [{"bot": lab, "openskill_mu": float(r.mu), "openskill_sigma": float(r.sigma), "games": o["games"],
                 "median_move_s": t["median_move_s"]} for lab, r, o, t in zip(labels, ratings, overall, timing)]
    return {"game": game, "players": players, "seed": seed, "games": games, "mcts_games": mcts_games, "mcts": mcts,
            "options": dict(options or {}), "workers": workers, "pairings": cells,
            "entrants": sorted(entrants, key=lambda e: -e["openskill_mu"]),
            "wall_s": round(time.perf_counter() - start, 1), "cpu_s": round(time.process_time() - cpu, 1),
            "date": time.strftime("%Y-%m-%d", time.gmtime())}


def _share(cell: dict) -> str:
    lo, hi = cell["wilson95"]
    return f"{cell['win_share']:.3f} [{lo:.3f}, {hi:.3f}] ({cell['games']})"


def markdown(result: dict, command: str) -> str:
    """The table as a docs section (pairings, then ratings and time per move)."""
    players, mcts = result["players"], result["mcts"]
    specs = [f"ppo:version={v}" for v in baselines(result["game"], players)]
    columns = [*REFERENCES, mcts, *specs[:-1]]
    by = {(c["entrant"], c["opponent"]): c for c in result["pairings"]}
    extra = " and the mean share of its opponent's seats" if players > 2 else ""
    cpu = "" if result.get("cpu_s") is None or result["workers"] > 1 else f", {result['cpu_s'] / 60:.1f} min of CPU"
    lines = [f"Measured {result['date']} with `{command}` ({result['wall_s'] / 60:.1f} min wall{cpu}, "
             f"{result['workers']} worker{'s' if result['workers'] > 1 else ''}; seed {result['seed']}, duplicate "
             f"deals, seats rotated). Each cell: the row's win share against the column, one row bot and "
             f"{players - 1} of the column's, 95% Wilson interval, games{extra}; a shared win counts 1/k; "
             f"fair share 1/{players} = {1 / players:.3f}.", "",
             "| baseline | " + " | ".join(f"vs {c}" for c in columns) + " |",
             "|---" * (len(columns) + 1) + "|"]
    for b in specs:
        cells = []
        for c in columns:
            cell = by.get((b, c))
            text = "" if cell is None else _share(cell)
            if cell is not None and players > 2:
                text += f"; each {c} seat {cell['opponent_seat_share']:.3f}"
            cells.append(text)
        lines.append(f"| `{b}` | " + " | ".join(cells) + " |")
    anchors = [c for c in result["pairings"] if not c["entrant"].startswith("ppo:")]
    lines += ["", "Anchors: " + "; ".join(f"`{c['entrant']}` vs `{c['opponent']}` {_share(c)}" for c in anchors) + ".",
              "", "| entrant | OpenSkill mu +- sigma (all games) | seat-games | median time per move |", "|---|---|---|---|"]
    for e in result["entrants"]:
        mt = "-" if e["median_move_s"] is None else f"{e['median_move_s'] * 1000:.2f} ms"
        lines.append(f"| `{e['bot']}` | {e['openskill_mu']:.2f} +- {e['openskill_sigma']:.2f} | {e['games']} | {mt} |")
    return "\n".join(lines)


def probe_markdown(game: str, players: int, minutes: float = 10) -> str:
    """The probe figure of every version of the table, from the catalogue (module docstring)."""
    versions = baselines(game, players)
    if not versions:
        raise ValueError(f"no shipped {game} policy for {players} players")
    default = default_version(game, players)
    lines = [f"The {minutes:g}-minute exploitability probe of each shipped version (`python -m tabletop_rl.agents.exploit "
             f"--game {game} --target ppo:version=NAME --minutes {minutes:g}`, the catalogue's `figures.exploit_probe`): "
             f"the best response's win share against the version, 95% Wilson interval, arena games; lower is "
             f"harder to exploit (fair share {1 / players:.3f}). A lower bound on exploitability at that budget: the "
             f"learner steps a probe reached depend on the machine's load.", "",
             "| version | best response vs version | learner steps | measured | command |", "|---|---|---|---|---|"]
    for v in versions:
        p = probe_figure(game, v, minutes)
        name = f"`{v}`" + (" (default)" if v == default else "")
        if p is None:
            lines.append(f"| {name} | not measured | | | |")
            continue
        lo, hi = p["wilson95"]
        lines.append(f"| {name} | {p['best_response_win_share']:.3f} [{lo:.3f}, {hi:.3f}] ({p['games']}) | "
                     f"{p['learner_steps']:,} | {p['date']} | `{p['measured_by']}` |")
    return "\n".join(lines)


def write_section(doc: Path, game: str, players: int, text: str) -> None:
    """Replace the text between this table's markers in `doc` (added at the end if missing)."""
    start, end = f"<!-- baselines {game} {players}p -->", f"<!-- /baselines {game} {players}p -->"
    page = doc.read_text(encoding="utf-8") if doc.exists() else "# Baselines\n"
    block = f"{start}\n{text}\n{end}"
    if start in page and end in page:
        head, rest = page.split(start, 1)
        page = head + block + rest.split(end, 1)[1]
    else:
        page = page.rstrip("\n") + f"\n\n## {game}, {players} players\n\n{block}\n"
    doc.write_text(page, encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop_rl.agents.baseline_table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="a game with shipped policies: fae or fantastiqa")
    parser.add_argument("--players", type=int, default=2, help="table size (default 2)")
    parser.add_argument("--games", type=int, default=1000, help="games per pairing without MCTS (default 1000)")
    parser.add_argument("--mcts-games", type=int, default=200, help="games per pairing with MCTS (default 200)")
    parser.add_argument("--mcts", default="mcts", help="the MCTS bot spec (default: mcts at its default budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="arena processes (default 1)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    parser.add_argument("--doc", default=str(DEFAULT_DOC), help="the docs page to write (default docs/baselines.md)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also save the numbers here")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--probes-only", action="store_true",
                        help="rewrite only the probe section from the catalogue (plays no game)")
    args = parser.parse_args(argv)
    try:
        probes = probe_markdown(args.game, args.players)
    except ValueError as exc:
        parser.error(str(exc))
    if args.probes_only:
        write_section(Path(args.doc), f"{args.game} probes", args.players, probes)
        print(probes)
        return 0
    try:
        result = run_table(args.game, args.players, args.games, args.mcts_games, args.mcts, args.seed, args.workers,
                           parse_options(args.option), quiet=args.quiet)
    except ValueError as exc:
        parser.error(str(exc))
    command = (f"python -m tabletop_rl.agents.baseline_table --game {args.game} --players {args.players} "
               f"--games {args.games} --mcts-games {args.mcts_games}" + (f" --mcts {args.mcts}" if args.mcts != "mcts" else "")
               + (f" --seed {args.seed}" if args.seed else "") + (f" --workers {args.workers}" if args.workers != 1 else "")
               + "".join(f" --option {o}" for o in args.option))  # what decides the table (not --doc, --json)
    text = markdown(result, command)
    write_section(Path(args.doc), args.game, args.players, text)
    write_section(Path(args.doc), f"{args.game} probes", args.players, probes)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
