"""The one evaluation of every training backend and game (`evaluate_policy`) and its thin callers.

`evaluate_policy` plays seat-rotated games of a numpy policy (`PolicyWeights`) against a bot, all
at once in the learner core (batched where the game has an engine; one policy forward for every
game): train.py's periodic and final evaluations, the RLlib trainer's (`tabletop_rl.training.rllib.
evaluate`) and `train.py --evaluate`'s (`evaluate_in_processes`: on the scalar cores, split over
processes) use it; `evaluate_batched` is its Fae name, kept for the notebooks.
"""
from __future__ import annotations

import time

import numpy as np

from tabletop_rl.stats import wilson_interval as wilson


def evaluate_policy(weights, game: str, num_players: int, opponent: str, games: int, seed: int,
                    options: dict | None = None, max_steps: int = 0, learner_sample: bool = False,
                    batched: bool = True, greedy_agreement: bool = False, opponent_epsilon: float = 0.0) -> dict:
    """The one evaluation of every backend and game: the win share of `weights` (a `PolicyWeights`:
    train.py's, the RLlib backend's export; played as `PPOAgent` plays it: argmax of the masked
    logits with its cycle breaking; sampled with `learner_sample`) over `games` seat-rotated games
    against `opponent` (any registered bot), all played at once in the learner core
    (`tabletop_rl.training.learner`: the game's batched engine, or with `batched=False` / a game without
    one, N scalar games; one policy forward per step for every game).

    Game i seats the policy at i mod num_players; a shared win counts 1/k; a game the step guard
    (`max_steps`, 0: the game's own) cuts is not won; 95% Wilson interval. Every draw comes from
    `seed`: same arguments, same games.

    `opponent_epsilon` weakens the opponent (not "random"): each of its moves is a uniform legal one with
    that chance (the learner core's `opponent_epsilon`).

    `greedy_agreement` (an observation with the greedy block, option action_features=greedy): the row
    also gives the share of the policy's decisions with more than one legal action where it played
    the greedy bot's move (`greedy_agreement`, over `agreement_decisions`): 1.0 is greedy play.
    """
    from tabletop_rl.agents.ppo_agent import PPOAgent
    from tabletop_rl.training.learner import make_learner_core

    start = time.perf_counter()
    core = make_learner_core(game, games, num_players, batched=batched is True, opponents={opponent: 1.0},
                             reward="win_loss", max_steps=max_steps or None, opponent_epsilon=opponent_epsilon, seed=seed,
                             **dict(options or {}))
    # a card-reading policy scores a fixed table of ids; a card file's own (smaller) table is its prefix
    pad = weights.num_actions - core.num_actions if weights.meta.get("architecture") == "card_sets" else 0
    if weights.obs_size != core.obs_size or pad < 0 or (weights.num_actions != core.num_actions and not pad):
        raise ValueError(f"the policy maps {weights.obs_size} inputs to {weights.num_actions} actions; {game} with options "
                         f"{dict(options or {})} has {core.obs_size} and {core.num_actions}")
    if greedy_agreement is True and dict(options or {}).get("action_features") != "greedy":
        raise ValueError("greedy_agreement reads the greedy block: it needs the option action_features=greedy")
    core.reset()
    agreed = decisions = 0
    # One PPOAgent per game chooses from the batched logits, so the policy plays exactly as the bot
    # does in the arena (argmax, breaking cycles of repeated observations: Fantastiqa's turns can loop).
    players = [PPOAgent(weights=weights) for _ in range(games)]
    obs = np.zeros((games, core.obs_size), dtype=np.float32)
    share = np.full(games, np.nan)
    while np.isnan(share).any():
        masks = core.masks()
        if pad:
            masks = np.pad(masks, ((0, 0), (0, pad)))
        logits = np.where(masks, weights.logits(core.learner_obs(obs)).astype(np.float64), -np.inf)
        actions = np.argmax(masks, axis=1)  # retired games: any legal action (ignored)
        live = np.flatnonzero(core.active)
        if learner_sample is True:
            actions[live] = np.argmax(logits[live] + core.rng.gumbel(size=(live.size, logits.shape[1])), axis=1)
        else:
            actions[live] = [players[i].choose(obs[i], logits[i]) for i in live]
        if greedy_agreement is True:  # the block is the observation's last num_actions floats (1 on greedy's move)
            block = obs[live, obs.shape[1] - weights.num_actions:]
            choice = (masks[live].sum(axis=1) > 1) & (block.sum(axis=1) > 0)
            decisions += int(choice.sum())
            agreed += int((block[np.arange(live.size), actions[live]] > 0)[choice].sum())
        _, _, finished = core.step(actions)
        for f in finished:
            share[f["index"]] = f["win_share"]
        core.retire([f["index"] for f in finished])  # its result is in: stop playing that game
    row = win_share_row(opponent, float(share.sum()), games, time.perf_counter() - start)
    if greedy_agreement is True:
        row.update(greedy_agreement=agreed / decisions if decisions else float("nan"), agreement_decisions=decisions)
    return row


def win_share_row(opponent: str, wins: float, games: int, seconds: float) -> dict:
    """The evaluation row every report reads: win share with its 95% Wilson interval."""
    low, high = wilson(wins, games)
    return {"opponent": opponent, "games": games, "win_share": wins / games if games else float("nan"),
            "ci_low": low, "ci_high": high, "seconds": seconds}


def evaluate_in_processes(weights, game: str, num_players: int, opponent: str, games: int, seed: int,
                          options: dict | None = None, max_steps: int = 0, workers: int = 1) -> dict:
    """`evaluate_policy` on the scalar cores (`batched=False`: an independent check of the batched
    engine, as `train.py --evaluate` runs it), its games split over `workers` processes (chunk k
    seeded seed + k)."""
    start = time.perf_counter()
    sizes = [games * (k + 1) // workers - games * k // workers for k in range(workers)] if workers > 1 else [games]
    sizes = [n for n in sizes if n]
    jobs = [(weights, game, num_players, opponent, n, seed + k, options, max_steps, False, False)
            for k, n in enumerate(sizes)]
    if len(jobs) > 1:
        import concurrent.futures as cf
        import multiprocessing as mp

        with cf.ProcessPoolExecutor(len(jobs), mp_context=mp.get_context("spawn")) as pool:
            rows = list(pool.map(_evaluate_job, jobs))
    else:
        rows = [_evaluate_job(jobs[0])]
    wins = sum(r["win_share"] * r["games"] for r in rows)
    return win_share_row(opponent, wins, games, time.perf_counter() - start)


def _evaluate_job(args) -> dict:
    from tabletop_rl.agents.base import limit_blas_threads

    limit_blas_threads()  # in worker processes too: numpy policies on one thread
    return evaluate_policy(*args)


def evaluate_batched(weights, num_players: int, opponent: str, games: int, seed: int, options: dict,
                     learner_sample: bool = False) -> dict:
    """Fae's `evaluate_policy` (the name the notebooks use; kept)."""
    return evaluate_policy(weights, "fae", num_players, opponent, games, seed, options, learner_sample=learner_sample)
