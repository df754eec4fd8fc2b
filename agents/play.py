"""Play bots against each other and print win rates per bot and per seat.

    python -m agents.play fae --agents greedy random --games 100 --players 2

Bots rotate through the seats (game g seats bot j at seat (j + g) mod N), so every bot plays every
seat equally often when N divides the number of games. A shared win counts 1/k to each of the k
winners. Game g uses seed `--seed + g`.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from agents import make_agent
from agents.match import play_game
from envs.registry import get_game


def run(game: str, agent_names: list[str], games: int, players: int, seed: int = 0, options=None, progress=True):
    spec = get_game(game)
    if len(agent_names) != players:
        raise ValueError(f"--agents lists {len(agent_names)} bots for --players {players}; give one bot per seat")
    bots = [make_agent(spec.name, name, seed=seed + 1000 * j) for j, name in enumerate(agent_names)]
    rule_opts, obs_opts = spec.split_options(options or {})
    wins_by_bot = defaultdict(float)
    games_by_bot = defaultdict(int)
    wins_by_seat = [0.0] * players
    for g in range(games):
        order = [(j + g) % players for j in range(players)]  # seat of bot j
        seated = [None] * players
        for j, seat in enumerate(order):
            seated[seat] = bots[j]
        result = play_game(spec, seated, seed=seed + g, agent_seeds=[seed + 7919 * g + s for s in range(players)],
                           rule_options=rule_opts, observation_options=obs_opts)
        share = 1.0 / len(result.winners) if result.winners else 0.0
        for j, seat in enumerate(order):
            key = f"{agent_names[j]}#{j}"
            games_by_bot[key] += 1
            if seat in result.winners:
                wins_by_bot[key] += share
        for seat in result.winners:
            wins_by_seat[seat] += share
        if progress and (g + 1) % max(1, games // 10) == 0:
            print(f"  {g + 1}/{games} games", file=sys.stderr)
    return {k: wins_by_bot[k] / games_by_bot[k] for k in games_by_bot}, [w / games for w in wins_by_seat]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help="game name, e.g. fae")
    parser.add_argument("--agents", nargs="+", required=True, help="one bot name per seat, e.g. greedy random")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=None, help="defaults to the number of --agents")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    players = args.players or len(args.agents)
    by_bot, by_seat = run(args.game, args.agents, args.games, players, args.seed)
    print(f"{args.games} games of {args.game}, {players} players (shared wins count 1/k)")
    print(f"{'bot':20s} win rate")
    for k, v in by_bot.items():
        print(f"{k:20s} {v:.3f}")
    print(f"{'seat':20s} win rate")
    for s, v in enumerate(by_seat):
        print(f"{'seat ' + str(s):20s} {v:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
