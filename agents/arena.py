"""The arena: tournaments between bots on any registered game, with numbers a reviewer can trust.

    python -m tabletop_rl.agents.arena --game fae --players 4 --agents greedy mcts random random --games 400
    python -m tabletop_rl.agents.arena --game fae --players 2 --agents mcts:iterations=100 greedy --games 200 --name mcts100

Design:
- **Seat rotation.** With P players, the games come in blocks of P: in rotation r (0..P-1), bot j
  (the j-th of `--agents`) sits at seat (j + r) mod P, so every bot plays every seat equally
  often. `--games` is rounded up to a multiple of P.
- **Duplicate deals** (default `--deals duplicate`): the P games of a block share one seed, so
  they are the same deal (in Fae the board and colours; in games with chance, every chance
  source has its own generator spawned from that seed, so the cards come out the same whatever
  the choices) played with the seats permuted; luck of the deal cancels. `--deals independent`
  gives every game its own seed (rotation is kept).
- **Seeds.** Deal seeds and bot seeds are derived from `--seed` with `numpy.random.SeedSequence`;
  same seed, same games, same results, however many worker processes (results are collected by
  game index). Timings are reported separately and are not part of the results.
- **Statistics.** Win share (a shared win counts 1/k to each of the k winners) with a Wilson 95%
  interval over games. Games on the same deal are correlated (same board for every bot), so the
  Wilson interval, which assumes independent games, is only approximate; the deal-clustered
  interval (normal interval on the per-deal mean share) accounts for it. Mean return (the
  game's returns) and mean score (the seat's final game score when the game defines one).
  OpenSkill (Plackett-Luce) rating per bot, updated game by game in game order: winners rank
  first, the others by score, so it works at 3-4 player tables.
- **Outputs** in `--out` (default `runs/arena/<--name or timestamp>`): `results.json` (config,
  per-bot and per-seat results, timing), `summary.csv` (the table), `games.csv` (one row per
  game), `records.jsonl` (one replayable game record per game, see `tabletop_rl.agents.records`) and
  `ratings.png` (ratings with +-2 sigma, and win shares with their intervals).

A bot is `name` or `name:key=value,key=value` (keyword arguments for `make_agent`, e.g.
`mcts:iterations=200,c=0.5`); any bot registered with `tabletop_rl.agents.register_agent` works, and
`--import mypackage.bots` imports a module that registers your own. A trained policy plays as
`ppo:path=policy.npz` (safe to take from others); an SB3 `ppo:path=model.zip` is unpickled, which
can run code, so it needs `--trust-pickle` (only for files you made). A spec itself can never say
`trust_pickle=...`: `parse_agent` refuses it, so a results file or a request cannot switch it on.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from tabletop_rl.options import BOT_WORDS, parse_options
from tabletop_rl.stats import Z95, wilson_interval  # noqa: F401  (re-exported: part of this module's API)

BULK_GAMES, BULK_CHUNK = 2000, 4  # runs of BULK_GAMES+ games hand workers BULK_CHUNK games at a time

__all__ = ["ArenaConfig", "parse_agent", "schedule", "wilson_interval", "run_arena", "rate_games", "summarize",
           "timing_summary", "main"]


# ------------------------------------------------------------------------------- configuration
def _bot_kwargs(kwargs: dict, trust_pickle: bool) -> dict:
    """--trust-pickle (and only it) reaches every bot given a path= (the ppo bot loads SB3 .zip files
    only with it); a trust flag among a spec's own arguments is refused, never passed on."""
    _refuse_trust_flags(kwargs, "a bot spec")
    if trust_pickle is True and "path" in kwargs:
        return {**kwargs, "trust_pickle": True}
    return kwargs


def _refuse_trust_flags(kwargs: dict, where: str) -> None:
    """A spec is text a user, a results file or a web request wrote: it never switches on unpickling."""
    flags = sorted(k for k in kwargs if "trust" in k.lower())
    if flags:
        raise ValueError(f"{where} may not set {', '.join(flags)}: loading a pickle runs its code, so only "
                         "the --trust-pickle flag (or trust_pickle=True in Python) allows it")


def parse_agent(spec: str) -> tuple[str, dict]:
    """'mcts:iterations=200,c=0.5' -> ('mcts', {'iterations': 200, 'c': 0.5}). A spec naming a trust
    flag (`ppo:path=m.zip,trust_pickle=true`) is refused: ValueError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent must be a non-empty name; got {spec!r}")
    name, _, rest = spec.partition(":")
    kwargs = parse_options(rest, words=BOT_WORDS, what=f"agent {spec!r}:")
    _refuse_trust_flags(kwargs, f"agent {spec!r}")
    return name.strip(), kwargs


@dataclass
class ArenaConfig:
    game: str
    agents: list[str]  # one bot spec per seat of the table, e.g. ["greedy", "mcts:iterations=200"]
    games: int
    players: int | None = None
    seed: int = 0
    deals: str = "duplicate"  # or "independent"
    workers: int | None = None  # None: os.cpu_count(); 1: in this process
    options: dict = field(default_factory=dict)  # rule and observation options
    imports: list[str] = field(default_factory=list)  # modules that register extra bots
    records: bool = True
    trust_pickle: bool = False  # let bots load pickle-based files (SB3 .zip) from their path=: runs their code

    def validate(self):
        """Check everything a run needs; returns the GameSpec. Errors name the problem."""
        from tabletop_rl.envs.registry import get_game

        spec = get_game(self.game)
        if self.players is None:
            self.players = len(self.agents)
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"--players must be an int; got {self.players!r}")
        if not spec.min_players <= self.players <= spec.max_players:
            raise ValueError(f"{spec.name} takes {spec.min_players}..{spec.max_players} players; got --players {self.players}")
        if len(self.agents) != self.players:
            raise ValueError(f"--agents lists {len(self.agents)} bots for --players {self.players}; give one bot per seat")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"--games must be an int >= 1; got {self.games!r}")
        if self.deals not in ("duplicate", "independent"):
            raise ValueError(f"--deals must be 'duplicate' or 'independent'; got {self.deals!r}")
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 1):
            raise ValueError(f"--workers must be an int >= 1; got {self.workers!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"--seed must be an int >= 0; got {self.seed!r}")
        if not isinstance(self.trust_pickle, bool):
            raise ValueError(f"trust_pickle must be True or False; got {self.trust_pickle!r}")
        spec.check_options(self.options)
        _import_bots(self.imports)
        from tabletop_rl.agents.registry import make_agent

        for a in self.agents:  # fail here, not in a worker
            name, kwargs = parse_agent(a)
            make_agent(spec.name, name, seed=0, **_bot_kwargs(kwargs, self.trust_pickle))
        spec.new_state(num_players=self.players, seed=0, **spec.split_options(self.options)[0])
        return spec

    def labels(self) -> list[str]:
        """Entrant labels: the bot spec, with '#j' added where the same spec appears twice."""
        return [a if self.agents.count(a) == 1 else f"{a}#{j}" for j, a in enumerate(self.agents)]


def _import_bots(modules) -> None:
    from tabletop_rl import agents  # noqa: F401  (registers the built-in bots)
    import tabletop_rl.agents.mcts  # noqa: F401
    from tabletop_rl.agents.base import import_user_modules

    import_user_modules(modules or [], "--import")  # the current folder first, as `python -m`; ValueError if not found


# ------------------------------------------------------------------------------- schedule
def _seed_words(root: int, key: tuple, n: int) -> list[int]:
    return [int(x) for x in np.random.SeedSequence(root, spawn_key=key).generate_state(n, dtype=np.uint32)]


def schedule(players: int, games: int, seed: int = 0, deals: str = "duplicate") -> list[dict]:
    """The games to play: rounded up to a multiple of `players`, in blocks of `players` rotations.

    Each game is {index, deal, rotation, seed, seats, agent_seeds}: `seats[s]` is the entrant
    (index into --agents) at seat s; with duplicate deals the games of a block share `seed`.
    """
    if deals not in ("duplicate", "independent"):
        raise ValueError(f"deals must be 'duplicate' or 'independent'; got {deals!r}")
    n_games = -(-games // players) * players
    blocks = n_games // players
    deal_seeds = _seed_words(seed, (0,), n_games if deals == "independent" else blocks)
    out = []
    for g in range(n_games):
        block, r = divmod(g, players)
        seats = [0] * players
        for j in range(players):
            seats[(j + r) % players] = j
        out.append({
            "index": g,
            "deal": block if deals == "duplicate" else g,
            "rotation": r,
            "seed": deal_seeds[block] if deals == "duplicate" else deal_seeds[g],
            "seats": seats,
            "agent_seeds": _seed_words(seed, (1, g), players),  # per seat
        })
    return out


# ------------------------------------------------------------------------------- playing
_W: dict = {}


def _init_worker(game: str, agents: list[str], options: dict, imports: list[str], seed: int, records: bool,
                 trust_pickle: bool = False) -> None:
    from tabletop_rl.agents.base import limit_blas_threads
    from tabletop_rl.agents.registry import make_agent
    from tabletop_rl.envs.registry import get_game

    limit_blas_threads()
    _import_bots(imports)
    spec = get_game(game)
    bots = []
    for j, a in enumerate(agents):
        name, kwargs = parse_agent(a)
        bots.append(make_agent(spec.name, name, seed=_seed_words(seed, (2, j), 1)[0],
                               **_bot_kwargs(kwargs, trust_pickle)))
    _W.update(spec=spec, bots=bots, agents=agents, rule=spec.split_options(options)[0],
              obs=spec.split_options(options)[1], records=records)


def _play(task: dict) -> dict:
    from tabletop_rl.agents.match import play_game

    spec, bots = _W["spec"], _W["bots"]
    seated = [bots[j] for j in task["seats"]]
    res = play_game(spec, seated, seed=task["seed"], agent_seeds=task["agent_seeds"], rule_options=_W["rule"],
                    observation_options=_W["obs"], timing=True)
    row = dict(task)
    row.update(returns=res.returns, winners=res.winners, scores=res.scores, steps=res.steps,
               move_times=res.move_times)
    if _W["records"]:
        row["record"] = res.to_record(spec, agents=[_W["agents"][j] for j in task["seats"]],
                                      meta={"arena_game": task["index"], "deal": task["deal"],
                                            "rotation": task["rotation"]})
    return row


def _progress(total: int, desc: str, quiet: bool):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, disable=quiet, smoothing=0.05)


def play_all(config: ArenaConfig, tasks: list[dict], quiet: bool = False) -> list[dict]:
    """Play the scheduled games (in parallel processes unless workers == 1); rows in game order."""
    workers = config.workers or os.cpu_count() or 1
    workers = max(1, min(workers, len(tasks)))
    init_args = (config.game, config.agents, config.options, config.imports, config.seed, config.records,
                 config.trust_pickle)
    rows = []
    if workers == 1:
        _init_worker(*init_args)
        bar = _progress(len(tasks), f"arena {config.game}", quiet)
        for t in tasks:
            rows.append(_play(t))
            if bar is not None:
                bar.update(1)
    else:
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        chunk = _chunksize(len(tasks))
        # The pool is started before the progress bar, so no bar thread exists when it forks.
        with mp.get_context(method).Pool(workers, initializer=_init_worker, initargs=init_args) as pool:
            bar = _progress(len(tasks), f"arena {config.game}", quiet)
            for row in pool.imap_unordered(_play, tasks, chunksize=chunk):
                rows.append(row)
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    rows.sort(key=lambda r: r["index"])
    return rows


def _chunksize(n_tasks: int) -> int:
    """Games a worker takes at once: 1 below BULK_GAMES (the progress bar moves game by game),
    else BULK_CHUNK (fewer round trips on big runs)."""
    return 1 if n_tasks < BULK_GAMES else BULK_CHUNK


# ------------------------------------------------------------------------------- statistics
def _ranks(row: dict) -> list[int]:
    """Finishing ranks per seat (0 = best): winners first, then the others by score."""
    winners = set(row["winners"])
    n = len(row["returns"])
    scores = row.get("scores")
    losers = [s for s in range(n) if s not in winners]
    if scores is None:
        return [0 if s in winners else 1 for s in range(n)]
    distinct = sorted({scores[s] for s in losers}, reverse=True)
    return [0 if s in winners else 1 + distinct.index(scores[s]) for s in range(n)]


def rate_games(rows: list[dict], labels: list[str]) -> list:
    """OpenSkill (Plackett-Luce) ratings of the entrants, updated game by game in the order of `rows`
    (`row["seats"][s]`: the entrant at seat s). An entrant at several seats of one game (the baseline
    table's one-bot-against-copies tables) takes the mean of its seats' updates."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=lab) for lab in labels]
    for row in rows:
        if not row["winners"]:
            continue
        seats = row["seats"]
        new = model.rate([[ratings[j]] for j in seats], ranks=_ranks(row))
        for j in set(seats):
            mine = [new[s][0] for s in range(len(seats)) if seats[s] == j]
            ratings[j] = model.rating(mu=float(np.mean([r.mu for r in mine])),
                                      sigma=float(np.mean([r.sigma for r in mine])), name=labels[j])
    return ratings


def summarize(rows: list[dict], labels: list[str], players: int) -> dict:
    """Per-bot and per-seat results from the played rows (deterministic given the rows). An entrant
    at several seats of a game counts once per seat (its share is per seat played)."""
    ratings = rate_games(rows, labels)
    n_entrants = len(labels)
    share = [[] for _ in range(n_entrants)]
    rets = [[] for _ in range(n_entrants)]
    scores = [[] for _ in range(n_entrants)]
    per_deal = [dict() for _ in range(n_entrants)]
    seat_share = [0.0] * players
    for row in rows:
        winners = row["winners"]
        k = len(winners)
        for s in range(players):
            j = row["seats"][s]
            w = (1.0 / k) if s in winners else 0.0
            share[j].append(w)
            rets[j].append(row["returns"][s])
            if row.get("scores") is not None:
                scores[j].append(row["scores"][s])
            per_deal[j].setdefault(row["deal"], []).append(w)
            seat_share[s] += w
    bots = []
    for j, lab in enumerate(labels):
        n = len(share[j])
        wins = float(sum(share[j]))
        lo, hi = wilson_interval(wins, n)
        deal_means = [float(np.mean(v)) for v in per_deal[j].values()]
        if len(deal_means) > 1:
            se = float(np.std(deal_means, ddof=1) / math.sqrt(len(deal_means)))
            c_lo, c_hi = max(0.0, wins / n - Z95 * se), min(1.0, wins / n + Z95 * se)
        else:
            c_lo, c_hi = 0.0, 1.0
        r = ratings[j]
        bots.append({
            "bot": lab, "games": n, "wins": round(wins, 6), "win_share": wins / n,
            "wilson95": [lo, hi], "deal_clustered95": [c_lo, c_hi],
            "mean_return": float(np.mean(rets[j])),
            "mean_score": float(np.mean(scores[j])) if scores[j] else None,
            "openskill_mu": float(r.mu), "openskill_sigma": float(r.sigma), "openskill_ordinal": float(r.ordinal()),
        })
    n_games = len(rows)
    return {
        "games": n_games,
        "deals": len({r["deal"] for r in rows}),
        "bots": bots,
        "seats": [{"seat": s, "win_share": seat_share[s] / n_games if n_games else 0.0} for s in range(players)],
        "draws_all_win": sum(1 for r in rows if len(r["winners"]) == players),
    }


def timing_summary(rows: list[dict], labels: list[str]) -> list[dict]:
    times = [[] for _ in labels]
    for row in rows:
        for s, ts in enumerate(row.get("move_times") or []):
            times[row["seats"][s]].extend(ts)
    return [{"bot": lab, "moves": len(t),
             "median_move_s": float(np.median(t)) if t else None,
             "p90_move_s": float(np.percentile(t, 90)) if t else None,
             "max_move_s": float(np.max(t)) if t else None} for lab, t in zip(labels, times)]


# ------------------------------------------------------------------------------- outputs
def format_table(config: ArenaConfig, summary: dict, timing: list[dict]) -> str:
    # the bot column fits the longest label: labels that differ only in a budget's digits stay apart
    w = max([len("bot")] + [len(b["bot"]) for b in summary["bots"]])
    lines = [
        f"{summary['games']} games of {config.game}, {config.players} players, {summary['deals']} "
        f"{'duplicate deals (each played in all ' + str(config.players) + ' seat rotations)' if config.deals == 'duplicate' else 'independent deals, seats rotated'}; seed {config.seed}",
        "win share: a shared win counts 1/k. Wilson 95% treats games as independent; games on one deal",
        "are correlated, so also see the deal-clustered 95% interval.",
        f"{'bot':{w}s} {'games':>5s} {'win share':>9s} {'Wilson 95%':>15s} {'deal-clust 95%':>15s} "
        f"{'mean ret':>8s} {'mean score':>10s} {'OpenSkill mu+-sigma':>20s} {'median move':>11s}",
    ]
    for b, t in zip(summary["bots"], timing):
        ms = "-" if b["mean_score"] is None else f"{b['mean_score']:.2f}"
        mt = "-" if t["median_move_s"] is None else f"{t['median_move_s'] * 1000:.2f} ms"
        lines.append(
            f"{b['bot']:{w}s} {b['games']:5d} {b['win_share']:9.3f} "
            f"{'[%.3f, %.3f]' % tuple(b['wilson95']):>15s} {'[%.3f, %.3f]' % tuple(b['deal_clustered95']):>15s} "
            f"{b['mean_return']:8.3f} {ms:>10s} {'%.2f +- %.2f' % (b['openskill_mu'], b['openskill_sigma']):>20s} {mt:>11s}")
    lines.append("seat win share: " + "  ".join(f"seat {s['seat']} {s['win_share']:.3f}" for s in summary["seats"]))
    return "\n".join(lines)


def save_plot(path: str, summary: dict, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = summary["bots"]
    labels = [b["bot"] for b in bots]
    y = np.arange(len(bots))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 1.5 + 0.6 * len(bots)), sharey=True)
    mu = np.array([b["openskill_mu"] for b in bots])
    sig = np.array([b["openskill_sigma"] for b in bots])
    ax1.errorbar(mu, y, xerr=2 * sig, fmt="o", capsize=4)
    ax1.set_yticks(y, labels)
    ax1.set_xlabel("OpenSkill (Plackett-Luce) mu, bars = +-2 sigma")
    ax1.grid(axis="x", alpha=0.3)
    ws = np.array([b["win_share"] for b in bots])
    lo = np.array([b["wilson95"][0] for b in bots])
    hi = np.array([b["wilson95"][1] for b in bots])
    ax2.errorbar(ws, y, xerr=[np.maximum(ws - lo, 0), np.maximum(hi - ws, 0)], fmt="s", capsize=4, color="C1")
    ax2.axvline(1.0 / len(summary["seats"]), color="grey", ls="--", lw=1)
    ax2.set_xlabel("win share, bars = Wilson 95%; dashed = 1 / players")
    ax2.set_xlim(0, 1)
    ax2.set_ylim(-0.6, len(bots) - 0.4)
    ax1.set_ylim(-0.6, len(bots) - 0.4)
    ax2.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _write_outputs(out: str, config: ArenaConfig, labels, summary, timing, rows, plot: bool) -> dict:
    os.makedirs(out, exist_ok=True)
    paths = {"json": os.path.join(out, "results.json"), "summary_csv": os.path.join(out, "summary.csv"),
             "games_csv": os.path.join(out, "games.csv")}
    cfg = asdict(config)
    with open(paths["json"], "w", encoding="utf-8") as f:
        json.dump({"config": cfg, "labels": labels, "results": summary, "timing": timing}, f, indent=1)
    with open(paths["summary_csv"], "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["bot", "games", "wins", "win_share", "wilson95_lo", "wilson95_hi", "deal_clustered95_lo",
                    "deal_clustered95_hi", "mean_return", "mean_score", "openskill_mu", "openskill_sigma",
                    "openskill_ordinal", "median_move_s"])
        for b, t in zip(summary["bots"], timing):
            w.writerow([b["bot"], b["games"], b["wins"], b["win_share"], *b["wilson95"], *b["deal_clustered95"],
                        b["mean_return"], b["mean_score"], b["openskill_mu"], b["openskill_sigma"],
                        b["openskill_ordinal"], t["median_move_s"]])
    with open(paths["games_csv"], "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        n = config.players
        w.writerow(["game", "deal", "rotation", "seed", "steps", "winners"]
                   + [f"seat{s}_bot" for s in range(n)] + [f"seat{s}_return" for s in range(n)]
                   + [f"seat{s}_score" for s in range(n)])
        for r in rows:
            sc = r["scores"] if r.get("scores") is not None else [""] * n
            w.writerow([r["index"], r["deal"], r["rotation"], r["seed"], r["steps"], " ".join(map(str, r["winners"]))]
                       + [labels[j] for j in r["seats"]] + list(r["returns"]) + list(sc))
    if config.records:
        from tabletop_rl.agents.records import write_records

        paths["records"] = os.path.join(out, "records.jsonl")
        write_records(paths["records"], (r["record"] for r in rows))
    if plot:
        paths["plot"] = os.path.join(out, "ratings.png")
        save_plot(paths["plot"], summary, f"{config.game}, {config.players} players, {summary['games']} games, seed {config.seed}")
    return paths


def default_out_dir(name: str | None = None) -> str:
    return os.path.join("runs", "arena", name or time.strftime("%Y%m%d-%H%M%S"))


def run_arena(config: ArenaConfig, out: str | None = None, plot: bool = True, quiet: bool = False,
              write: bool = True) -> dict:
    """Validate, schedule, play, summarize and (with `write`) save. Returns a dict with
    `summary`, `timing`, `rows`, `labels`, `paths`, `table`, `wall_s` and `notes` (what was left out
    and why: ratings.png without matplotlib, which the 'train' extra brings)."""
    from tabletop_rl.extras import MissingExtraError, require_extra

    t0 = time.perf_counter()
    config.validate()
    labels = config.labels()
    notes = []
    if plot and write:  # asked before the games: a missing plotting library costs the picture, not the results
        try:
            require_extra("train", ("matplotlib",), "the ratings plot (ratings.png)")
        except MissingExtraError as exc:
            plot = False
            notes.append(f"ratings.png not drawn: {exc}; --no-plot skips it")
    tasks = schedule(config.players, config.games, config.seed, config.deals)
    rows = play_all(config, tasks, quiet=quiet)
    summary = summarize(rows, labels, config.players)
    timing = timing_summary(rows, labels)
    paths = _write_outputs(out or default_out_dir(), config, labels, summary, timing, rows, plot) if write else {}
    return {"summary": summary, "timing": timing, "rows": rows, "labels": labels, "paths": paths,
            "table": format_table(config, summary, timing), "wall_s": time.perf_counter() - t0, "notes": notes}


def main(argv=None) -> int:
    from tabletop_rl.envs.registry import rule_options_help

    parser = argparse.ArgumentParser(prog="python -m tabletop_rl.agents.arena", description=__doc__,
                                     epilog="rule options (--option NAME=VALUE; the default first):\n"
                                            + rule_options_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="game name or env id, e.g. fae")
    parser.add_argument("--agents", nargs="+", required=True, metavar="BOT",
                        help="one bot per seat: name or name:key=value,... (e.g. greedy mcts:iterations=200 random)")
    parser.add_argument("--games", type=int, required=True, help="number of games (rounded up to a multiple of --players)")
    parser.add_argument("--players", type=int, default=None, help="defaults to the number of --agents")
    parser.add_argument("--seed", type=int, default=0, help="root seed of deals and bots (default 0)")
    parser.add_argument("--deals", choices=("duplicate", "independent"), default="duplicate")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPU count; 1 = no pool)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="rule or observation option of the game, e.g. big_stack_merge=true (repeatable); "
                             "the rule options are listed below")
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import MODULE first (it registers your own bots with tabletop_rl.agents.register_agent)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="let ppo:path=model.zip load an SB3 .zip: it is unpickled, which runs any code in it "
                             "(only for files you made; policy .npz files need no flag)")
    parser.add_argument("--out", default=None, help="output folder (default runs/arena/<--name or timestamp>)")
    parser.add_argument("--name", default=None, help="run name for the default output folder")
    parser.add_argument("--no-records", action="store_true", help="do not write records.jsonl")
    parser.add_argument("--no-plot", action="store_true", help="do not draw ratings.png")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:

        config = ArenaConfig(game=args.game, agents=args.agents, games=args.games, players=args.players,
                             seed=args.seed, deals=args.deals, workers=args.workers,
                             options=parse_options(args.option), imports=args.imports, records=not args.no_records,
                             trust_pickle=args.trust_pickle)
        result = run_arena(config, out=args.out or default_out_dir(args.name), plot=not args.no_plot,
                           quiet=args.quiet)
    except ValueError as exc:
        parser.error(str(exc))
    print(result["table"])
    print(f"saved: {', '.join(result['paths'].values())}  ({result['wall_s']:.1f} s)")
    for note in result["notes"]:
        print(note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
