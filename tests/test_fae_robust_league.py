"""Issue 40 item 3: the best-response league (benchmarks/fae_robust_league.py) at a tiny scale."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from benchmarks import fae_robust_league as league  # noqa: E402

# make-train's policy layout (--init copies fae_2p_v1's head) at a few thousand steps
SMALL = "--bc-samples 400 --n-envs 16 --n-steps 32 --batch-size 256 --torch-threads 1"


def test_one_round_adds_the_best_response_to_the_pool_and_writes_its_figures(tmp_path):
    from tabletop_rl.agents import agent_names

    before = agent_names("fae")
    path = tmp_path / "league.json"
    out = league.run_league(start="fae_2p_v1", rounds=1, probe_minutes=5, train_minutes=5, final_probe_minutes=0,
                            probe_eval_games=4, mcts_weight=0, probe_args=SMALL, probe_steps=1024,
                            train_args=SMALL + " --total-steps 1024", runs_dir=str(tmp_path), run_name="t",
                            json_path=str(path))
    saved = json.loads(path.read_text())
    assert saved == out
    (r0,) = saved["rounds"]
    assert r0["policy"] == "fae_2p_v1" and r0["probe"]["target"] == "ppo:version=fae_2p_v1"
    assert r0["probe"]["eval_games"] == 4 and r0["probe"]["steps"] == 1024 and r0["probe"]["curve"]
    br = r0["probe"]["policy"]
    assert r0["pool"]["best_responses"] == [br] and (tmp_path / "t_r0_probe" / "policy.npz").exists()
    assert r0["pool"]["opponents"] == {"league_br0": 0.4, "league_start": 0.15}
    config = json.loads((tmp_path / "t_r0_train" / "config.json").read_text())
    assert config["opponents"] == "league_br0=0.4,league_start=0.15" and config["init"] == "fae_2p_v1"
    assert r0["train"]["steps"] == 1024 and saved["policy"] == f"{r0['train']['run_dir']}/policy.npz"
    assert saved["final"] is None
    assert agent_names("fae") == before  # the league's bots are gone again


def test_pool_weights_share_the_best_responses_weight():
    assert league.pool_weights(2, 0.4, 0.35, 0.15) == {"league_br0": 0.2, "league_br1": 0.2, "mcts_batched": 0.35,
                                                        "league_start": 0.15}
    assert league.pool_weights(0, 0.4, 0, 0) == {}


def test_a_first_probe_of_another_policy_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not of the start"):
        league.run_league(start="fae_2p_v1", first_probe={"target": "ppo:version=fae_2p_v5"}, runs_dir=str(tmp_path))


def test_a_round_from_best_responses_in_hand_skips_the_first_probe(tmp_path, monkeypatch):
    """--brs and --skip-first-probe: round 0 retrains against the given policies (no probe), and
    --start-opponent is the frozen start opponent."""
    from tabletop_rl.agents.policy_versions import version_path

    registered = []
    real = league._register
    monkeypatch.setattr(league, "_register", lambda name, policy: (registered.append((name, policy)), real(name, policy)))

    given = str(version_path("fae", "fae_2p_v1"))
    out = league.run_league(start="fae_2p_v1", rounds=1, train_minutes=5, final_probe_minutes=0, mcts_weight=0,
                            br_weight=0.3, start_weight=0.1, train_args=SMALL + " --total-steps 1024",
                            runs_dir=str(tmp_path), run_name="s", brs=[given], start_opponent="fae_2p_v2",
                            skip_first_probe=True)
    (r0,) = out["rounds"]
    assert r0["probe"] is None and r0["probe_from"].startswith("skipped")
    assert r0["pool"]["best_responses"] == [given] and out["start_opponent"] == "fae_2p_v2"
    assert not (tmp_path / "s_r0_probe").exists()
    config = json.loads((tmp_path / "s_r0_train" / "config.json").read_text())
    assert config["opponents"] == "league_br0=0.3,league_start=0.1" and r0["train"]["steps"] == 1024
    assert registered == [("league_start", "fae_2p_v2"), ("league_br0", given)]


@pytest.mark.parametrize("kw", [dict(skip_first_probe=True), dict(skip_first_probe=True, brs=["x.npz"],
                                                                    first_probe={"target": "ppo:version=fae_2p_v1"}),
                                dict(skip_first_probe="yes", brs=["x.npz"])])
def test_skipping_the_first_probe_needs_best_responses_and_no_first_probe(kw, tmp_path):
    with pytest.raises(ValueError, match="skip-first-probe"):
        league.run_league(start="fae_2p_v1", runs_dir=str(tmp_path), **kw)


def test_a_hostile_best_response_file_is_refused_before_anything_runs(tmp_path):
    """--brs is read as data: a missing file, a text file or a pickled model.zip whose unpickling would
    write a marker is refused at once, before any probe, training or registration, and nothing runs."""
    import pickle
    import zipfile

    from tabletop_rl.agents import agent_names

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    bomb = tmp_path / "model.zip"
    with zipfile.ZipFile(bomb, "w") as z:
        z.writestr("data", pickle.dumps(Payload()))
        z.writestr("policy.pth", pickle.dumps(Payload()))
    text = tmp_path / "notes.npz"
    text.write_text("not a policy")
    before = agent_names("fae")
    for bad in (str(tmp_path / "missing.npz"), str(text), str(bomb)):
        runs = tmp_path / "runs"
        with pytest.raises(ValueError):
            league.run_league(start="fae_2p_v1", runs_dir=str(runs), brs=[bad], skip_first_probe=True,
                              json_path=str(tmp_path / "out.json"))
        assert not runs.exists() and not (tmp_path / "out.json").exists()
    assert not marker.exists() and agent_names("fae") == before
    with pytest.raises(ValueError):  # --start-opponent is read the same way
        league.run_league(start="fae_2p_v1", runs_dir=str(tmp_path / "runs"), start_opponent=str(bomb),
                          json_path=str(tmp_path / "out.json"))
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out.json").exists()
    assert not marker.exists() and agent_names("fae") == before
    with pytest.raises(SystemExit):  # the command line says so and exits (argparse's error)
        league.main(["--brs", str(bomb), "--skip-first-probe", "--runs-dir", str(tmp_path / "runs")])
    assert not marker.exists()
