"""Self-play MaskablePPO on any registered game of the suite: one story for every game.

    python train.py                                    # Fae, 2 players, the defaults below
    python train.py --preset make-train                # what `make train` runs (<= 15 min on 2 cores)
    python train.py --preset fantastiqa                # Fantastiqa, 2 players (~25 min)
    python train.py --preset fantastiqa-short          # Fantastiqa in a few minutes: 3 min of PPO, then 400 games vs greedy
    python train.py --game fantastiqa --num-players 4 --preset tiny   # 3 and 4 players: the same path
    python train.py --resume runs/<run-name>           # continue an interrupted run
    python train.py --evaluate runs/<run-name>/policy.npz   # 1000 seat-rotated games vs random and greedy
    python train.py --help                             # every hyper-parameter and preset, with its help line

Installed (pip install -e ".[train]"), `tabletop-train` is the same command (tabletop-train --preset tiny).

How the agent learns, in the order `_train` below does it (the parts: `tabletop_rl.training.sb3`):
1. The learner core (`tabletop_rl.training.learner`): `n_envs` games stepped together in the game's
   batched engine (Fae: `FaeVector`, Fantastiqa: `FantastiqaVector`; a game without one:
   `ScalarBatch`, N scalar games, same path, slower). In each the learner holds one seat (rotating) and the other seats are one opponent per
   game from the run's one pool (`make_pool`: random, greedy, your own bots with `--imports` and
   `--opponents`, and frozen snapshots of the learner added every `snapshot_every` steps). The
   reward is the game's potential (`reward`) plus `win_bonus` x the result, and your
   `--reward-fn module:function` over the batch. (`--vec-env dummy|subproc`: the scalar
   `SelfPlayEnv` face of the same core and pool, the reference of benchmarks/bench_learner.py.)
2. The policy: sb3-contrib MaskablePPO on the core's SB3 face (`LearnerVecEnv`), separate policy
   and value MLPs (`net_arch`). A game with per-action observation blocks (its batch's
   `action_blocks`: Fae's `action_features`, each action's greedy margin and best flag, and the
   versus margin; Fantastiqa's `action_features=greedy`, 1 on the greedy bot's move) adds them to
   the logits through learned scales (`skip_init`, `skip_lr_scale`), so the policy starts near
   greedy play.
3. The warm start: the policy imitates a teacher bot (`bc_teacher`, `bc_samples`) before PPO, or
   `--init` copies a policy's head (a shipped version name or a .npz; the value net starts fresh);
   the learning curve starts at the policy PPO starts from (step 0). It counts apart from
   `time_limit_min`, with the compiles a first run does in it.
4. Learning: PPO for `total_steps` learner steps, or `time_limit_min` minutes of PPO (its periodic
   evaluations included), whichever ends first; the summary warns when PPO made fewer than 5
   updates (`tabletop_rl.training.reports.MIN_PPO_UPDATES`); checkpoints (no pickle:
   tensors for `torch.load(weights_only=True)` plus JSON, written atomically) every
   `checkpoint_every` steps; `--resume` continues from the newest one that passes its checks and
   restores, with the flags that are safe to change (`RESUME_SAFE`) applied and the others refused.
   A run folder is data: a saved `reward_fn`/`imports` is imported only if given again on the command line.
5. Evaluation: every `eval_every` steps and at the end, the policy (argmax, as the ppo bot plays)
   plays seat-rotated games against random and greedy, all at once in the learner core
   (`tabletop_rl.training.evaluate_policy`, the one evaluation of every backend); win shares with
   95% Wilson intervals go to TensorBoard and `eval.csv`. `--eval-options` plays them with other
   options (a validation card file: `card_sets=generated:50`), and `--keep-best OPPONENT` keeps the
   policy of the evaluation (step 0, periodic, the final policy on the same deals) with the best win
   share against that bot as `policy_best.npz`, as SB3's `EvalCallback` keeps its best model: where
   a run ends is not always its best point.
6. Saving: `runs/<run-name>/` holds

    model.zip  policy.npz  config.json  curve.png  eval.csv  summary.json  logs/ (TensorBoard, SB3 csv)
    policy_best.npz  (with --keep-best; summary.json's "best" says which evaluation chose it)

and a one-screen summary is printed: throughput (env steps/s, share of time inside the envs) and
each win share next to the fair share (1 / players) and the value where PPO started.
`--backend rllib` trains with Ray RLlib instead (`tabletop_rl.training.rllib`, .venv-rllib).
"""
from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from dataclasses import dataclass

from tabletop_rl.training import (  # noqa: F401  (the names tests, notebooks and benchmarks read from train)
    check_checkpoint, evaluate_batched, evaluate_in_processes, evaluate_policy, explicit_fields,
    latest_valid_checkpoint, load_checkpoint, parse_options, plot_curve, print_summary, prune_checkpoints,
    read_run_config, resume_config, save_checkpoint, wilson, write_eval_csv,
)
from tabletop_rl.training.rllib import RLlibFields
from tabletop_rl.training.sb3 import (  # noqa: F401  (kept importable from train: behaviour_clone, batched_teacher_data, ...)
    TimedVecEnv, _EnvFactory, batched_teacher_data, bc_samples, behaviour_clone, build, check_evaluations,
    check_learning_flags, eval_policy,
    evaluation_opponents,
    final_evaluation, has_batched_greedy, import_modules, keep_final_if_best, learn, learner_opponents, make_callback, make_core,
    make_pool, new_history, open_run, policy_layout, policy_weights, resolve_vec_env, restore, restores_cleanly,
    resume_from, save_run, teacher_games, user_reward, warm_start, whole_rollouts,
)


@dataclass
class Config(RLlibFields):
    """Every setting of a run, one line of help each (--help); the RLlib-only ones are `RLlibFields`'.

    `time_limit_min` is PPO's time (rollouts, updates, and the periodic evaluations and checkpoints
    between them): the warm start (teacher games, fitting, the step-0 evaluation, and the compiles a
    first run does in them) counts apart (`tabletop_rl.training.sb3.limit_seconds_used`), so a short
    limit still trains: a 3-minute limit once went to a 4-minute warm start. A preset's whole run
    is its warm start, then the limit, then the final evaluation (each preset's help line)."""

    # --- game
    game: str = "fae"  # registered game name (envs.get_game)
    num_players: int = 2  # players at the table (the learner takes one seat)
    options: str = ""  # game options as k=v pairs, comma separated (rule and observation options); "" = the game's training default (GAME_OPTIONS)
    reward: str = "score_diff"  # "win_loss" (terminal only) or a potential of the game (dense): "score_diff" (the game spec's), Fae's "seat_diff" (score_diff against the other seats' colours only: a training signal that reads them)
    win_bonus: float = 5.0  # score_diff only: win_loss return x this, added at the end of a game
    reward_scale: float = 0.1  # every reward is multiplied by this (Fae margins are ~+-10 points)
    max_game_steps: int = 0  # step guard of training episodes and evaluation games (0 = the game's own); a game cut by it is not won
    cut_reward: float = 0.0  # sb3: the learner's reward when max_game_steps cuts a training episode (below -1: stalling pays less than losing)
    # --- run
    total_steps: int = 1_000_000  # learner env steps (rounded up to a whole number of rollouts)
    seed: int = 0  # seeds torch, numpy, python and every env
    run_name: str = ""  # directory under runs_dir; default <game>_<players>p_s<seed>_<UTC time>
    runs_dir: str = "runs"  # where runs are written
    time_limit_min: float = 0.0  # stop PPO after this many minutes of it (0 = no limit), periodic evaluations included; the warm start counts apart; the summary says so
    progress: bool = True  # show a progress bar
    # --- vectorised envs
    vec_env: str = "auto"  # "auto" (= "learner", old name "fae-vector"): the learner core, batched where the game has an engine; "dummy" or "subproc": the scalar SelfPlayEnv face, in-process or one process per env
    n_envs: int = 256  # games played at once (the learner core's batch, or scalar envs)
    torch_threads: int = 1  # torch intra-op threads
    # --- PPO (sb3-contrib MaskablePPO)
    n_steps: int = 32  # steps per env per rollout
    batch_size: int = 2048  # minibatch size
    n_epochs: int = 2  # passes over each rollout
    learning_rate: float = 3e-4  # Adam step size (constant unless anneal_lr)
    anneal_lr: bool = False  # learning_rate falls linearly to 0 by the run's end: total_steps, or time_limit_min if that comes first
    gamma: float = 0.95  # discount
    gae_lambda: float = 0.9  # GAE lambda
    clip_range: float = 0.2  # PPO clip
    ent_coef: float = 0.001  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    net_arch: str = "64"  # hidden sizes of the policy and (separate) value MLPs
    vf_arch: str = ""  # hidden sizes of the value MLP alone ("" = net_arch's); only training runs it, so the shipped policy file does not grow
    skip_init: float = 3.0  # a game with per-action blocks (its batch's action_blocks: Fae's action_features, Fantastiqa's greedy): initial scale of the greedy blocks added to the logits (Fae's margin and best, Fantastiqa's greedy; 0 = learn from nothing; Fae's versus blocks start at 0)
    skip_lr_scale: float = 10.0  # the skip scales learn this many times faster than the weights (Adam; see tabletop_rl.ppo_policy)
    anchor_coef: float = 0.0  # Fantastiqa's card view with the greedy block: weight of the loss term pulling the policy toward the greedy bot's move (tabletop_rl.card_net, the anchor; 0 = none)
    value_warmup_steps: int = 0  # PPO's first N learner steps train the value head alone, the policy held: a fresh critic's noisy advantages (and its gradients through shared layers) would otherwise move a warm-started policy first (0 = none)
    mlp_inputs: str = "board"  # what the MLPs read: "board" (the observation less the per-action blocks, which reach the logits through the skips, and Fae's constant terrain block) or "all"
    activation: str = "relu"  # "tanh" or "relu"
    # --- opponent pool
    pool_random: float = 1.0  # weight of the random bot among fixed opponents
    pool_greedy: float = 0.5  # weight of the greedy bot among fixed opponents (if the game has one)
    opponent_epsilon: float = 0.0  # learner core: each move of a fixed bot but random is a uniform legal move with this chance (a weaker bot that still races to the goal; 0 = none)
    opponents: str = ""  # more fixed opponents as name=weight pairs, comma separated: any registered bot (your own via --import)
    reward_fn: str = ""  # learner core: "module:function" whose reward_fn(batch, seats, dones) -> (N,) floats is added to the reward
    imports: str = ""  # modules to import first, comma separated (e.g. one that calls register_agent for --opponents)
    snapshot_prob: float = 0.2  # chance an opponent is a snapshot of the learner (once one exists)
    snapshot_every: int = 40_000  # steps between snapshots
    max_snapshots: int = 8  # snapshots kept (oldest dropped)
    # --- warm start by behaviour cloning (before PPO; policy head only)
    bc_teacher: str = "greedy"  # bot whose moves the policy imitates before PPO ("" = no warm start)
    init: str = ""  # start PPO's policy head from this policy .npz or shipped version name (e.g. fae_2p_v2) instead of the warm start (sb3; the value net starts fresh)
    bc_samples: int = 0  # teacher decisions to imitate (0 = total_steps / 20, at most 100,000: the warm start scales with the run)
    bc_explore: float = 0.5  # chance each move of the cloning games is random instead of the teacher's
    bc_epochs: int = 5  # passes over the cloning data
    bc_learning_rate: float = 1e-3  # Adam step size for cloning
    bc_workers: int = 2  # processes generating the cloning data (scalar envs; Fae's batched env needs none)
    # --- evaluation and checkpoints
    eval_every: int = 100_000  # steps between evaluations (0 = only at the end)
    eval_games: int = 100  # games per opponent per periodic evaluation (seat-rotated)
    eval_opponents: str = ""  # the bots every evaluation plays, comma separated registered names (e.g. greedy,mcts_batched); "" = random and greedy
    eval_options: str = ""  # options every evaluation plays, k=v pairs over the run's own (e.g. card_sets=generated:50: a validation card file, neither trained on nor held out); "" = the run's
    keep_best: str = ""  # an evaluation opponent: each evaluation (step 0, periodic, final) with the best win share against it so far saves the policy as policy_best.npz (SB3's EvalCallback best model); "" = none
    final_eval_games: int = 1000  # games per opponent in the final evaluation (0 = skip)
    eval_workers: int = 2  # processes for --evaluate's games on the scalar cores (training's evaluations run batched)
    checkpoint_every: int = 50_000  # steps between checkpoints (0 = none)
    keep_checkpoints: int = 2  # most recent checkpoints kept
    # --- backend
    backend: str = "sb3"  # "sb3" (MaskablePPO: tabletop_rl.training.sb3) or "rllib" (Ray RLlib PPO: tabletop_rl.training.rllib, its own fields in RLlibFields)
    # --- not a hyper-parameter
    resume: str = ""  # run directory (or name under runs_dir) to continue; its config.json is used (a saved reward_fn/imports only if given again: a run folder imports nothing)
    evaluate: str = ""  # only evaluate this policy file (.npz or .zip) over final_eval_games per opponent, then exit (on the scalar cores; on the batched engine for an option only it encodes); rule options in --options (e.g. card_set=generated:100) are played, the policy's own observation options kept
    preset: str = ""  # named set of defaults (PRESETS); explicit flags override it


PRESETS = {
    # `make train`: Fae 2p, fae_2p_v2's recipe (its measurements: docs/benchmarks.md).
    "make-train": dict(
        total_steps=8_000_000, time_limit_min=12.0,  # a budget of 12 min of training (<= 15 min with evaluation)
        options="history=none,action_features=versus",  # the compact board plus the versus margin blocks PPO learns
        reward="seat_diff",  # the dense margin against the other seats' colours: the one that decides the game
        n_envs=512, n_steps=16, batch_size=4096, torch_threads=2,  # fewer, larger torch calls per env step
        pool_random=0.25, pool_greedy=1.0,  # greedy mostly: random is beaten from the start
        bc_samples=20_000, bc_epochs=3,  # a short warm start: the policy starts near greedy through its skips
        eval_every=500_000, eval_games=1000, checkpoint_every=500_000),  # a readable curve (batched: ~1 s each)
    # Fae 2p against the search (issue 28): PPO from fae_2p_v2's policy head against Fae's MCTS at its
    # default budget, batched (mcts_batched: the same search in numba), the rate annealed to 0 by the
    # time limit. Measured (0.554 against mcts, 400 games): docs/baselines.md.
    "fae-search": dict(
        total_steps=40_000_000, time_limit_min=55.0,  # the time limit ends the run (~2,900 steps/s on 2 cores)
        options="history=none,action_features=versus", reward="seat_diff",  # fae_2p_v2's observation and reward
        init="fae_2p_v2",  # its policy head (the value net starts fresh)
        opponents="mcts_batched=1", pool_random=0.0, pool_greedy=0.0, snapshot_prob=0.0,  # the search only
        n_envs=512, n_steps=16, batch_size=4096, torch_threads=2,
        n_epochs=4, vf_arch="256,256",  # the search's moves are most of the time: more passes and a larger value net cost little
        anneal_lr=True,  # 3e-4 falling to 0: a run at a constant rate plateaued near 0.53 against mcts
        eval_opponents="greedy,mcts_batched", eval_games=400, eval_every=500_000, checkpoint_every=1_000_000),
    # Fantastiqa, 2 players, within 30 minutes on 2 shared cores (22 min with the warm start, then
    # 1000 + 1000 evaluation games), on the learner core's FantastiqaBatch. Measured: docs/benchmarks.md.
    "fantastiqa": dict(
        game="fantastiqa",
        options="action_features=greedy",  # the greedy block: 1 on greedy's move, added to the logits by a learned scale
        max_game_steps=4000,  # a game still running after 4,000 steps is cut, not won (greedy vs random: ~700)
        cut_reward=-2.0,  # a cut pays less than a loss: from scratch, -2 is what got a learner out of stalling turns
        total_steps=8_000_000, time_limit_min=22.0,  # 22 min of PPO end the run (~4M steps on 2 quiet cores); with the warm start before and the final games after, <= 30 min
        reward="score_diff",  # the score margin (+ win_bonus x the result): what decides the game
        gamma=0.99, gae_lambda=0.95,  # a quest takes tens of decisions: a longer horizon than Fae's
        n_envs=64, n_steps=128, batch_size=2048,  # 8,192-step rollouts in 4 minibatches: the batched core is cheap
        n_epochs=2, torch_threads=2,  # PPO updates are most of the time: 2 epochs gave ~1.35x the steps/s of 4, 2 threads 1.3x of 1
        learning_rate=3e-4, anneal_lr=True,  # 3e-4 falling to 0 by the time limit: 0.571 -> 0.613 vs greedy over a constant 3e-4
        net_arch="128,128",  # hidden sizes of the policy and value MLPs
        mlp_inputs="all",  # the MLPs also read the greedy block: where to deviate depends on what greedy plays
        pool_random=0.25, pool_greedy=1.0, snapshot_prob=0.1,  # mostly greedy: the opponent to beat
        bc_samples=50_000, bc_epochs=4, bc_explore=0.25,  # the skip already plays greedy: a short warm start fits the rest
        eval_every=300_000, eval_games=200, checkpoint_every=1_000_000),  # a curve of 4-5 points (each ~1 min here)
    # Fantastiqa 2p from scratch on the card view (issue 37): the card-reading policy, no imitation and no
    # greedy block, so the same recipe trains on any card file (--options view=cards,card_set=PATH).
    "fantastiqa-cards": dict(
        game="fantastiqa",
        # a card is its features (fantastiqa_rl.card_view), read by the card-reading policy (tabletop_rl.card_net); the
        # games split over the STAND-IN set (a quarter) and six generated card files, so it learns cards, not one file
        options="view=cards,card_sets=standin;standin;generated:0;generated:1;generated:2;generated:3;generated:4;generated:5",
        net_arch="64,32,128,32",  # card encoder, quest encoder, context, entity sizes
        max_game_steps=4000, cut_reward=-2.0,  # as the flat preset: a game still running after 4,000 steps is cut, not won
        total_steps=40_000_000, time_limit_min=25.0,  # the time limit ends the run; the final games then fit in 30 min
        # gamma 0.997: a bought card pays off turns later (0.99 never bought one; runs G3 / G5, seeds 0 / 1: 0.112 / 0.076
        # vs greedy where 0.99 gave 0.072 / 0.057 (F4 / F5), 0.994 / 0.999 vs random; 0.999 was worse: docs/benchmarks.md)
        reward="score_diff", gamma=0.997, gae_lambda=0.95,
        # 4 epochs, not 8: 1.7x the steps in 25 min, 0.158 / 0.054 / 0.156 vs greedy on seeds 0-2 (runs H3-H5) where 8
        # gave 0.112 / 0.076 (G3 / G5), >= 0.99 vs random on each; 2 epochs (I1) 0.092 and lr 2e-3 (I4) 0.064 on seed 0
        # (docs/benchmarks.md).
        # 256 games x 64 steps at lr 1e-3 (first at 8 epochs: 0.812 vs random after 15 min where 2 epochs from 3e-4 moved the
        # untrained net nowhere: 0.591 at 512 x 16 and at 256 x 64; approx_kl ~1e-4 an update): docs/benchmarks.md, S1/S2
        n_envs=256, n_steps=64, batch_size=2048, n_epochs=4, torch_threads=2,
        learning_rate=1e-3, anneal_lr=True,
        # random and its own snapshots: from scratch greedy wins ~every game, random is the opponent it learns to beat
        # first (runs F4 / F5 at gamma 0.99, 25 min, seeds 0 / 1: 0.991 / 1.000 vs random, 0.07 / 0.06 vs greedy; F2 with
        # greedy at 0.25: 0.956 after 26; the greedy-heavy mix 0.81 after 15); snapshots a fifth of the games
        pool_random=1.0, pool_greedy=0.0, snapshot_prob=0.2,
        bc_teacher="",  # no warm start: learning on its own
        eval_every=1_000_000, eval_games=200, checkpoint_every=1_000_000),
    # Seconds, for tests and the notebook: learns nothing useful, exercises everything.
    "tiny": dict(
        total_steps=4096, n_envs=16, n_steps=32, batch_size=256, n_epochs=2, net_arch="32,32",  # a few small updates
        snapshot_every=1024, eval_every=2048, checkpoint_every=1024,  # every hook fires at least twice
        eval_games=6, final_eval_games=10, eval_workers=1, progress=False,  # quick, quiet evaluations
        bc_samples=400, bc_epochs=2, bc_workers=1),  # a warm start in one process
}
# Fantastiqa in a few minutes (issue 39): the flat preset's recipe with a shorter warm start and PPO limit, and
# evaluations against greedy only (random loses every game from step 0: 1.000 in every run of the preset), at step 0
# and at the end, so the summary says what 3 minutes of PPO changed against the bot to beat. Measured: docs/benchmarks.md.
PRESETS["fantastiqa-short"] = dict(
    PRESETS["fantastiqa"],
    time_limit_min=3.0,  # minutes of PPO; the warm start counts apart
    bc_samples=20_000,  # ~15 s of teacher games and fitting on quiet cores (50,000: ~35 s)
    eval_opponents="greedy", eval_games=200, final_eval_games=400,  # step 0 and the end: +-0.07 and +-0.05 (95%)
    eval_every=2_000_000, checkpoint_every=0)  # no periodic evaluation within 3 min (they would count in the limit)
# The card-reading policy that ships (issue 37): the card view over the STAND-IN set and 14 generated files, with
# the greedy block (the greedy bot reads every card file: 1 on its move, added to the logits by a learned scale,
# so it starts as greedy play on any file), a short warm start, then PPO, as the flat preset does on one file.
# 256 games x 64 steps (16,384-step rollouts; the from-scratch preset runs 512 x 16): with 16 steps a game per
# rollout GAE leaned on the critic after 16 decisions and PPO drifted below greedy; at 64 one run moved past
# greedy on held-out files and a second ended below it (docs/benchmarks.md: E1, E2). The value head trains alone
# for the first 300,000 steps (the policy held). No anchor: 0.1 kept greedy's argmax at every decision
# (docs/benchmarks.md, "What the anchor kept").
PRESETS["fantastiqa-cards-greedy"] = dict(
    PRESETS["fantastiqa-cards"],
    options="view=cards,action_features=greedy,card_sets=standin;standin;" + ";".join(f"generated:{k}" for k in range(14)),
    n_envs=256, n_steps=64, value_warmup_steps=300_000, gamma=0.99,  # its runs' horizon (the from-scratch one is longer)
    n_epochs=2, learning_rate=3e-4,  # its runs E1-E3 (the from-scratch preset's 4 epochs from 1e-3 are not tried here)
    pool_random=0.25, pool_greedy=1.0, snapshot_prob=0.1,  # mostly greedy, the bot to beat (runs A1-A4, fantastiqa_2p_cards_v3)
    time_limit_min=25.0, bc_teacher="greedy", bc_samples=50_000, bc_epochs=4, bc_explore=0.25,
    # fantastiqa_2p_cards_v3's recipe (run A3, with --seed 4): a small anchor kept the curve from falling far, and where
    # a run ends decides its figure, so it keeps its best policy on two validation files (docs/benchmarks.md)
    anchor_coef=0.01, eval_every=250_000, eval_games=300, eval_opponents="greedy", keep_best="greedy",
    eval_options="card_sets=generated:50;generated:51", checkpoint_every=250_000, final_eval_games=400)

PRESET_HELP = {
    "make-train": "Fae 2p, fae_2p_v2's recipe (beats greedy): up to 8M learner steps within 12 min, then 1000 + 1000 evaluation games",
    "fantastiqa": "Fantastiqa 2p on the learner core over the greedy block: a warm start (~35 s on quiet cores; a first run adds the compiles), 22 min of PPO, then 1000 + 1000 games (<= 30 min)",
    "fantastiqa-short": "Fantastiqa 2p in a few minutes: the fantastiqa preset with a 20,000-decision warm start, 3 min of PPO, 200 games vs greedy at step 0 and 400 at the end (~4-5 min on 2 cores; a first run adds the compiles)",
    "fae-search": "Fae 2p from fae_2p_v2 against the batched MCTS at its default budget, 55 min, the rate annealed (how fae_2p_v4 began: docs/baselines.md)",
    "fantastiqa-cards": "Fantastiqa 2p from scratch on the card view (any card file), no imitation, no greedy block: 256 games x 64 steps, 4 epochs from lr 1e-3, against random and its snapshots, 25 min, then 1000 + 1000 games",
    "fantastiqa-cards-greedy": "the card view over 16 card files with the greedy block (any card file's greedy bot), 256 games x 64 steps, the value head trained alone for the first 300,000 steps, the anchor 0.01: 25 min, the best policy on 2 validation files kept (policy_best.npz), then 400 games vs greedy there",
    "tiny": "seconds, for tests and the notebook: learns nothing useful, exercises everything",
}
# Each game's observation options when --options is empty: Fae adds the action-centric margin features.
GAME_OPTIONS = {"fae": "history=summary,action_features=versus"}


# ---------------------------------------------------------------------------- CLI from the dataclass
def _field_help() -> dict[str, str]:
    """The `# ...` comment of each Config field (and of the RLlib fields it inherits), for --help."""
    import inspect

    out = {}
    for cls in (RLlibFields, Config):
        for line in inspect.getsource(cls).splitlines():
            line = line.strip()
            if ":" in line and "#" in line and not line.startswith("#"):
                out[line.split(":")[0].strip()] = line.split("#", 1)[1].strip()
    return out


def parse_args(argv=None) -> Config:
    helps = _field_help()
    from tabletop_rl.envs.registry import rule_options_help

    epilog = "presets (--preset NAME; explicit flags override them):\n" + "\n".join(
        f"  {name:11s} {PRESET_HELP[name]}\n              {PRESETS[name]}" for name in PRESETS) \
        + "\n\nrule options (--options NAME=VALUE,...; the default first):\n" + rule_options_help()
    parser = argparse.ArgumentParser(description=__doc__, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    rllib = parser.add_argument_group("RLlib backend (--backend rllib; run with .venv-rllib/bin/python, `make venv-rllib`)")
    rllib_names = {f.name for f in dataclasses.fields(RLlibFields)}
    fields = sorted(dataclasses.fields(Config), key=lambda f: f.name in rllib_names)  # Config's own first
    for f in fields:
        group = rllib if f.name in rllib_names else parser
        flag = "--" + f.name.replace("_", "-")
        kind = type(f.default)
        if kind is bool:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=helps.get(f.name))
        else:
            group.add_argument(flag, type=kind, default=None, metavar=kind.__name__.upper(),
                               help=f"{helps.get(f.name, '')} (default: {f.default!r})")
    args = vars(parser.parse_args(argv))
    given = {k: v for k, v in args.items() if v is not None}
    preset = given.get("preset", "")
    if preset and preset not in PRESETS:
        parser.error(f"unknown preset {preset!r}; known: {sorted(PRESETS)}")
    cfg = Config(**{**PRESETS.get(preset, {}), **given})
    cfg._flags_given = frozenset(given)  # not a field: --resume applies or refuses exactly these (resume_config)
    return cfg


# ---------------------------------------------------------------------------- the story
def train(cfg: Config) -> dict:
    """Train as `cfg` says; returns the run's summary. SB3's and gymnasium's UserWarnings (render_mode
    and the like) are silenced inside the run only: the caller's warning filters are left as they were."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        return _train(cfg)


def _train(cfg: Config) -> dict:
    from tabletop_rl.extras import MissingExtraError, require_extra

    import_modules(cfg)  # --imports: your bots (register_agent) and reward functions
    if cfg.backend == "rllib":
        try:  # before the run folder is made
            require_extra("rllib", ("ray", "torch"), "--backend rllib")
        except MissingExtraError as exc:  # not into this environment: ray[rllib] pins its own gymnasium
            raise MissingExtraError(
                f"--backend rllib needs ray[rllib], which is not installed here. RLlib has its own environment, "
                f".venv-rllib (ray[rllib] pins its own gymnasium, so installing it here would change this one's): "
                f"in the checkout run `make venv-rllib`, then `.venv-rllib/bin/python train.py --backend rllib ...` "
                f"(or `make train-rllib`); outside a checkout, a fresh virtual environment with "
                f"pip install \"tabletop-rl[rllib]\"", name=exc.name) from None
        if cfg.anchor_coef or cfg.value_warmup_steps:
            raise SystemExit("--anchor-coef and --value-warmup-steps shape MaskablePPO's updates: --backend sb3")
        if cfg.opponent_epsilon:
            raise SystemExit("--opponent-epsilon weakens the bots of train.py's learner core: --backend sb3")
        if cfg.eval_options or cfg.keep_best:
            raise SystemExit("--eval-options and --keep-best are train.py's own evaluations: --backend sb3")
        from tabletop_rl.training.rllib import train_rllib  # imports ray/torch lazily; needs the rllib extra

        return train_rllib(cfg)
    if cfg.backend != "sb3":
        raise SystemExit(f"--backend must be 'sb3' or 'rllib'; got {cfg.backend!r}")
    require_extra("train", ("torch", "stable_baselines3", "sb3_contrib"), "training with --backend sb3")
    check_learning_flags(cfg)  # before the run folder is made
    check_evaluations(cfg, cfg.options or GAME_OPTIONS.get(cfg.game, ""))
    cfg, run_dir, ckpt_path, ckpt = open_run(cfg, Config, GAME_OPTIONS)  # a new run folder, or --resume's
    total = whole_rollouts(cfg)
    setup_start = time.perf_counter()

    pool = make_pool(cfg)  # 1. the learner core's one opponent pool: fixed bots and the learner's snapshots
    venv, model = build(cfg, pool)  # 1.-2. the learner core (its SB3 face) and MaskablePPO's policy on it
    history = new_history(cfg, total)
    if ckpt is not None:
        resume_from(ckpt_path, ckpt, model, venv, pool, history, run_dir, total)
    else:
        warm_start(model, cfg, history, run_dir, setup_start)  # 3. imitate the teacher; evaluate step 0
    learn(model, cfg, run_dir, pool, venv, history, total, fresh=ckpt is None)  # 4. PPO, with its hooks

    weights = policy_weights(model, cfg)
    keep_final_if_best(weights, cfg, run_dir, history, model.num_timesteps)  # --keep-best: on the same deals
    final, eval_seconds = final_evaluation(weights, cfg, history, model.num_timesteps)  # 5. evaluation
    summary = save_run(model, weights, cfg, run_dir, history, final, eval_seconds, total)  # 6. saving
    print_summary(summary)
    return summary


def evaluate_only(cfg: Config) -> list[dict]:
    """`--evaluate PATH`: the final evaluation of a saved policy, printed as in the summary."""
    import_modules(cfg)
    from tabletop_rl.agents.ppo_agent import PolicyWeights
    from tabletop_rl.training.learner import batch_class, batch_only_options

    try:  # a malformed file or meta (meta.game 5 or "nope") is a usage error naming the problem
        weights = PolicyWeights.load(cfg.evaluate)
    except ValueError as exc:
        raise SystemExit(f"train.py --evaluate: {exc}") from None
    meta = weights.meta
    if meta.get("game"):
        # The policy says what it was trained on: evaluate it there, with its own options (history, features),
        # and the rule options given here (e.g. card_set=generated:100: a card-reading policy on another file).
        from tabletop_rl.envs.registry import get_game

        try:
            rules = get_game(meta["game"]).split_options(parse_options(cfg.options))[0] if cfg.options else {}
        except ValueError as exc:
            raise SystemExit(f"train.py --evaluate: --options: {exc}") from None
        opts = ",".join(f"{k}={v}" for k, v in {**(meta.get("options") or {}), **rules}.items())
        cfg = dataclasses.replace(cfg, game=meta["game"], num_players=int(meta.get("num_players", cfg.num_players)),
                                  options=opts)
        print(f"{cfg.evaluate} was trained on {cfg.game} ({cfg.num_players} players, options {opts or 'none'}): "
              f"evaluating there", flush=True)
    options = parse_options(cfg.options)
    # An option only the batched engine encodes (Fantastiqa's greedy block) has no scalar-core form:
    # such a policy is evaluated on the batched engine, and the line says so.
    batch_only = batch_only_options(cfg.game, options)
    if batch_only:
        print(f"{', '.join(batch_only)} is encoded by {batch_class(cfg.game).__name__} only: evaluating on the "
              f"batched engine, not the scalar cores", flush=True)
    rows = []  # the one evaluation on the scalar cores: an independent check of the batched engine training used
    for opp in evaluation_opponents(cfg):
        try:  # options or sizes the game refuses (the file's meta says what to play) are a usage error
            if batch_only:
                r = evaluate_policy(weights, cfg.game, cfg.num_players, opp, cfg.final_eval_games, 999_983, options,
                                    cfg.max_game_steps)
            else:
                r = evaluate_in_processes(weights, cfg.game, cfg.num_players, opp, cfg.final_eval_games, 999_983,
                                          options, cfg.max_game_steps, cfg.eval_workers)
        except ValueError as exc:
            raise SystemExit(f"train.py --evaluate: {cfg.evaluate}: {exc}") from None
        rows.append(r)
        print(f"{cfg.evaluate} vs {opp:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
              f"  ({r['games']} seat-rotated games, {r['seconds']:.0f} s)", flush=True)
    return rows


def main(argv=None) -> int:
    from tabletop_rl.agents.base import limit_blas_threads

    from tabletop_rl.extras import MissingExtraError

    cfg = parse_args(argv)
    limit_blas_threads()  # snapshot opponents and evaluations play numpy policies
    try:
        if cfg.evaluate:
            evaluate_only(cfg)
        else:
            train(cfg)
    except MissingExtraError as exc:
        raise SystemExit(f"error: {exc}") from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
