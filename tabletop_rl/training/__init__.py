"""The training package: the SB3 and RLlib trainers over the one learner core, and what they share.

    tabletop_rl.training.sb3          the Stable-Baselines3 trainer's parts (MaskablePPO over the core's
                                      SB3 face), put together by train.py (`tabletop_rl.train`)
    tabletop_rl.training.rllib        the RLlib trainer (`python -m tabletop_rl.training.rllib`,
                                      `train.py --backend rllib`; needs the rllib extra, .venv-rllib)
    tabletop_rl.training.evaluation   `evaluate_policy`: the one evaluation of every backend and game
    tabletop_rl.training.checkpoints  checkpoints without pickle, --resume's checks
    tabletop_rl.training.reports      eval.csv, curve.png, the printed summary

The env side (the learner core and its faces, `SelfPlayEnv`, `RLlibGameEnv`) stays in
`tabletop_rl.envs`: what an env user imports. The names below are this package's public ones,
importable from it directly as before it was a package.
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
