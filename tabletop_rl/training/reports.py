"""What a training run reports: `eval.csv`, `curve.png` and the printed one-screen summary."""
from __future__ import annotations

import csv
import os


def write_eval_csv(run_dir: str, rows: list[dict]) -> None:
    keys = ["steps", "wall_seconds", "opponent", "games", "win_share", "ci_low", "ci_high"]
    tmp = os.path.join(run_dir, "eval.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(run_dir, "eval.csv"))


def plot_curve(run_dir: str, rows: list[dict], final: list[dict], title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for opp, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        pts = [r for r in rows if r["opponent"] == opp]
        if not pts:
            continue
        x = [r["steps"] for r in pts]
        ax.plot(x, [r["win_share"] for r in pts], "o-", color=colour, label=f"vs {opp}")
        ax.fill_between(x, [r["ci_low"] for r in pts], [r["ci_high"] for r in pts], color=colour, alpha=0.2)
        for r in final:
            if r["opponent"] == opp:
                ax.errorbar([r["steps"]], [r["win_share"]], yerr=[[r["win_share"] - r["ci_low"]], [r["ci_high"] - r["win_share"]]],
                            fmt="s", color=colour, capsize=4, label=f"final vs {opp} ({r['games']} games)")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner env steps")
    ax.set_ylabel("win share (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    path = os.path.join(run_dir, "curve.png")
    fig.savefig(path)
    plt.close(fig)
    return path


# Fewer PPO updates than this and the summary warns that PPO trained (almost) nothing. PPO's clipped
# updates move the policy a bounded step each (clip_range on every action's probability ratio), so
# after a handful the final evaluation measures the policy PPO started from (the warm start), not
# training. 5 sits far below any run meant to train (a 1-minute Fantastiqa run makes ~20-25 updates)
# and above the 0-1 of a run whose time went elsewhere (issue 39: a 3-minute limit left PPO 64 steps,
# no update); the tiny preset, made to exercise every hook, makes 8.
MIN_PPO_UPDATES = 5


def short_run_warning(summary: dict) -> str | None:
    """The summary's warning when PPO made fewer than `MIN_PPO_UPDATES` updates (one per rollout of
    `rollout_steps`), saying what ended it and what to change; None otherwise."""
    updates, rollout = summary["ppo_updates"], summary["rollout_steps"]
    if updates >= MIN_PPO_UPDATES:
        return None
    if summary["stopped_by_time_limit"]:
        cause = (f"the time limit ({summary['time_limit_min']:g} min of PPO; the warm start counts apart) ended it: "
                 f"raise --time-limit-min")
    else:
        cause = (f"--total-steps {summary['requested_steps']:,} is under {MIN_PPO_UPDATES} rollouts of {rollout:,} "
                 f"(--n-envs x --n-steps): raise --total-steps")
    return (f"WARNING: PPO made {updates} update(s) ({summary['steps']:,} learner steps): the final evaluation "
            f"measures the policy PPO started from, not training; {cause}")


def command_name() -> str:
    """The command the user ran, for the hints a run prints: `tabletop-train` (the console script),
    `python -m tabletop_rl.train`, or `python PATH/train.py` as it was typed; `python train.py` when
    training was started from Python (a notebook, a test)."""
    import sys

    arg0 = sys.argv[0] if sys.argv else ""
    base = os.path.basename(arg0)
    if base.startswith("tabletop-train"):
        return "tabletop-train"
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name == "tabletop_rl.train":
        return "python -m tabletop_rl.train"
    return f"python {arg0}" if base == "train.py" else "python train.py"


def print_summary(summary: dict) -> None:
    t = summary["throughput"]
    lines = [
        "",
        f"== {summary['run_name']}: {summary['game']} {summary['num_players']}p, "
        f"{summary['steps']:,} learner steps in {(t['train_seconds'] + t['warm_start_seconds']) / 60:.1f} min"
        + (" (stopped by the time limit)" if summary["stopped_by_time_limit"] else ""),
        f"   (warm start {t['warm_start_seconds']:.0f} s, apart from any time limit; periodic evaluations "
        f"{t['periodic_eval_seconds']:.0f} s, within it)",
        f"   PPO throughput {t['steps_per_second']:.0f} env steps/s; {100 * t['env_share']:.0f}% of PPO time inside the envs "
        f"({t['vec_env']} x{t['n_envs']}, {t['torch_threads']} torch thread(s))",
    ]
    lines += [f"   {w}" for w in summary.get("warnings", [])]
    first = {}
    for r in summary.get("evals", []):  # the policy PPO started from (after any warm start)
        first.setdefault(r["opponent"], r)
    for r in summary["final_eval"]:
        start = first.get(r["opponent"])
        began = f"; at step {start['steps']:,}: {start['win_share']:.3f}" if start is not None else ""
        lines.append(f"   vs {r['opponent']:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                     f"  (fair share {1 / summary['num_players']:.3f}{began}; {r['games']} seat-rotated games, "
                     f"{r['seconds']:.0f} s)")
    if summary["final_eval"]:
        lines.append(f"   evaluation took {summary['final_eval_seconds']:.0f} s")
    best = summary.get("best")
    if best is not None:
        lines.append(f"   best vs {best['opponent']} {best['win_share']:.3f} at step {best['steps']:,} ({best['games']} games): "
                     f"{best['policy']}")
    d = summary["run_dir"]
    lines += [
        f"   model      {d}/model.zip   (numpy policy for tabletop_rl.agents.ppo_agent: {d}/policy.npz)",
        f"   curve      {d}/curve.png   (evaluations: {d}/eval.csv)",
        f"   logs       {d}/logs         (tensorboard --logdir {d}/logs)",
        f"   config     {d}/config.json  summary: {d}/summary.json",
        f"   re-evaluate  {command_name()} --evaluate {d}/policy.npz    (a bot: tabletop_rl.agents.ppo_agent.PPOAgent(path=...))",
        *summary.get("warnings", []),  # again last, where the eye lands when the run ends
        "",
    ]
    print("\n".join(lines), flush=True)
