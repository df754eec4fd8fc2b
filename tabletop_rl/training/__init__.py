"""The training package: the SB3 and RLlib trainers over the one learner core, and what they share.

    tabletop_rl.training.sb3          the Stable-Baselines3 trainer's parts (MaskablePPO over the core's
                                      SB3 face), put together by train.py (`tabletop_rl.train`)
    tabletop_rl.training.rllib        the RLlib trainer (`python -m tabletop_rl.training.rllib`,
                                      `train.py --backend rllib`; needs the rllib extra, .venv-rllib)
    tabletop_rl.training.evaluation   `evaluate_policy`: the one evaluation of every backend and game
    tabletop_rl.training.checkpoints  checkpoints without pickle, --resume's checks
    tabletop_rl.training.reports      eval.csv, curve.png, the printed summary

and the env side the trainers drive (docs/architecture.md, the training layer):

    tabletop_rl.training.learner      the one learner core (`make_learner_core`, `BATCHES`, `make_batch`)
    tabletop_rl.training.opponents    `OpponentPool`: the learner's opponents and snapshots
    tabletop_rl.training.learner_envs the core's faces (SB3 `VecEnv`, Gymnasium `VectorEnv`, single env)
    tabletop_rl.training.selfplay     `SelfPlayEnv` (gymnasium.make's entry point for the games' ids)
    tabletop_rl.training.rllib_env    `RLlibGameEnv` (needs the rllib extra)
    tabletop_rl.training.fae_vector_env  Fae's kept names over the core

The names below are this package's public ones, importable from it directly as before it was a
package.
"""
from tabletop_rl.options import parse_options
from tabletop_rl.stats import wilson_interval as wilson
from tabletop_rl.training.checkpoints import (
    MAX_CHECKPOINT_JSON_BYTES, MAX_CONFIG_BYTES, RESUME_SAFE, atomic_write_text, check_checkpoint, checkpoint_paths,
    explicit_fields, latest_valid_checkpoint, load_checkpoint, prune_checkpoints, read_json_file, read_run_config,
    resume_config, save_checkpoint,
)
from tabletop_rl.training.evaluation import evaluate_batched, evaluate_in_processes, evaluate_policy, win_share_row
from tabletop_rl.training.reports import plot_curve, print_summary, write_eval_csv

_atomic_write_text = atomic_write_text  # its name before the package

__all__ = ["MAX_CHECKPOINT_JSON_BYTES", "MAX_CONFIG_BYTES", "RESUME_SAFE", "atomic_write_text", "check_checkpoint",
           "checkpoint_paths", "evaluate_batched", "evaluate_in_processes", "evaluate_policy", "explicit_fields",
           "latest_valid_checkpoint", "load_checkpoint", "parse_options", "plot_curve", "print_summary",
           "prune_checkpoints", "read_json_file", "read_run_config", "resume_config", "save_checkpoint", "wilson",
           "win_share_row", "write_eval_csv"]
