"""Play bots against each other (or against yourself) and print win rates per bot and per seat.

    python -m tabletop_rl.agents.play fae --agents greedy random --games 100 --players 2
    python -m tabletop_rl.agents.play fae --agents greedy random --games 10 --record games.jsonl
    python -m tabletop_rl.agents.play fae --human 0 --agents mcts            # you are seat 0, MCTS seat 1
    python -m tabletop_rl.agents.play fae --human 1 --agents greedy random   # 3 players, you are seat 1

Bots rotate through the seats (game g seats bot j at seat (j + g) mod N), so every bot plays every
seat equally often when N divides the number of games. A shared win counts 1/k to each of the k
winners. Game g uses seed `--seed + g`. With `--human S` you keep seat S in every game (no
rotation) and the bots fill the other seats in order; you see only what your seat may know (the
game's `view_text`) and answer with an action text (Fae: `4 32`, `4->32`, `resolve 17`), an index of
the `?` listing or `#id` (see `tabletop_rl.agents.human`); bots' moves are echoed in a form you can
type. For tournaments with ratings and confidence intervals use `python -m tabletop_rl.agents.arena`.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from tabletop_rl.agents import make_agent
from tabletop_rl.agents.match import play_game
from tabletop_rl.envs.registry import get_game
from tabletop_rl.options import parse_options


def _ensure_bots() -> None:
    import tabletop_rl.agents.mcts  # noqa: F401  (registers "mcts")


def run(game: str, agent_names: list[str], games: int, players: int, seed: int = 0, options=None, progress=True,
        record_path=None):
    """Returns ({'bot#j': win share}, [win share per seat]); optionally writes JSONL records."""
    _ensure_bots()
    spec = get_game(game)
    if len(agent_names) != players:
        raise ValueError(f"--agents lists {len(agent_names)} bots for --players {players}; give one bot per seat")
    if games < 1:
        raise ValueError(f"--games must be >= 1; got {games}")
    bots = [make_agent(spec.name, name, seed=seed + 1000 * j) for j, name in enumerate(agent_names)]
    rule_opts, obs_opts = spec.check_options(options or {})
    wins_by_bot = defaultdict(float)
    games_by_bot = defaultdict(int)
    wins_by_seat = [0.0] * players
    records = []
    for g in range(games):
        order = [(j + g) % players for j in range(players)]  # seat of bot j
        seated = [None] * players
        for j, seat in enumerate(order):
            seated[seat] = bots[j]
        result = play_game(spec, seated, seed=seed + g, agent_seeds=[seed + 7919 * g + s for s in range(players)],
                           rule_options=rule_opts, observation_options=obs_opts)
        if record_path is not None:
            names = [None] * players
            for j, seat in enumerate(order):
                names[seat] = agent_names[j]
            records.append(result.to_record(spec, agents=names))
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
    if record_path is not None:
        from tabletop_rl.agents.records import write_records

        write_records(record_path, records)
    return {k: wins_by_bot[k] / games_by_bot[k] for k in games_by_bot}, [w / games for w in wins_by_seat]


def play_human(game: str, human_seat: int, agent_names: list[str], games: int = 1, seed: int = 0, options=None,
               record_path=None, input_fn=None, output=None) -> list:
    """A person (seat `human_seat`) against `agent_names` in the other seats. Returns the GameResults."""
    from tabletop_rl.agents.human import HumanAgent, QuitGame, action_text

    _ensure_bots()
    spec = get_game(game)
    players = len(agent_names) + 1
    if not spec.min_players <= players <= spec.max_players:
        raise ValueError(f"{spec.name} takes {spec.min_players}..{spec.max_players} players; --human plus "
                         f"{len(agent_names)} bots make {players}")
    if not 0 <= human_seat < players:
        raise ValueError(f"--human seat must be in 0..{players - 1}; got {human_seat}")
    rule_opts, obs_opts = spec.check_options(options or {})
    out = output or sys.stdout
    view = spec.view_text
    if view is None:
        raise ValueError(f"{spec.name} has no view_text in its GameSpec: human play needs one")
    human = HumanAgent(input_fn=input_fn, output=output, view=view)
    bots = [make_agent(spec.name, name, seed=seed + 1000 * j) for j, name in enumerate(agent_names)]
    seated = bots[:human_seat] + [human] + bots[human_seat:]
    names = agent_names[:human_seat] + ["human"] + agent_names[human_seat:]

    def show(state, seat, action):
        who = "you play" if seat == human_seat else f"player_{seat} ({names[seat]}) plays"
        print(f"{who} {action_text(state, action)}", file=out)  # before the move: texts follow the decision

    results = []
    for g in range(games):
        try:
            result = play_game(spec, seated, seed=seed + g, agent_seeds=[seed + 7919 * g + s for s in range(players)],
                               rule_options=rule_opts, observation_options=obs_opts, on_choice=show)
        except QuitGame:
            print("quit.", file=out)
            break
        print(view(result.final_state, human_seat), file=out)
        verdict = "you win" if human_seat in result.winners else "you lose"
        if human_seat in result.winners and len(result.winners) > 1:
            verdict = f"you share the win with {len(result.winners) - 1} other(s)"
        print(f"game {g + 1}: winners {result.winners} ({verdict}); returns {result.returns}", file=out)
        results.append(result)
        if record_path is not None:
            from tabletop_rl.agents.records import append_record

            append_record(record_path, result.to_record(spec, agents=names))
    return results


def main(argv=None) -> int:
    from tabletop_rl.agents.base import limit_blas_threads

    limit_blas_threads()
    from tabletop_rl.envs.registry import rule_options_help

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="rule options (--option NAME=VALUE; the default first):\n"
                                            + rule_options_help())
    parser.add_argument("game", help="game name, e.g. fae")
    parser.add_argument("--agents", nargs="+", required=True,
                        help="one bot name per seat, e.g. greedy random (with --human: the other seats)")
    parser.add_argument("--games", type=int, default=None, help="default 100 (1 with --human)")
    parser.add_argument("--players", type=int, default=None, help="defaults to the number of --agents (+1 with --human)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="rule/observation option, e.g. big_stack_merge=true (repeatable); the rule options "
                             "are listed below")
    parser.add_argument("--record", default=None, metavar="PATH", help="write a JSONL game record per game")
    parser.add_argument("--human", type=int, default=None, metavar="SEAT", help="play seat SEAT yourself")
    args = parser.parse_args(argv)
    # Bad input raises ValueError naming the problem (as this CLI always has).
    options = parse_options(args.option)
    if args.human is not None:
        players = len(args.agents) + 1
        if args.players is not None and args.players != players:
            raise ValueError(f"--players {args.players} but --human plus {len(args.agents)} bots make {players}")
        play_human(args.game, args.human, args.agents, games=args.games or 1, seed=args.seed, options=options,
                   record_path=args.record)
        return 0
    players = args.players or len(args.agents)
    games = 100 if args.games is None else args.games
    by_bot, by_seat = run(args.game, args.agents, games, players, args.seed, options=options,
                          record_path=args.record)
    print(f"{games} games of {args.game}, {players} players (shared wins count 1/k)")
    print(f"{'bot':20s} win rate")
    for k, v in by_bot.items():
        print(f"{k:20s} {v:.3f}")
    print(f"{'seat':20s} win rate")
    for s, v in enumerate(by_seat):
        print(f"{'seat ' + str(s):20s} {v:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
