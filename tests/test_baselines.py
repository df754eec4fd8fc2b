"""Issue 28: shipped policies by version name (the catalogue), the web allow-list of versions, and
the baselines' arena table (tabletop_rl.agents.baseline_table)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_rl.agents import make_agent
from tabletop_rl.agents import policy_versions as pv
from tabletop_rl.agents.arena import parse_agent
from tabletop_rl.agents.ppo_agent import SHIPPED, PolicyWeights


@pytest.mark.parametrize("game", sorted(pv.POLICY_FOLDERS))
def test_every_catalogued_version_is_its_file_and_the_default_is_the_ppo_bot(game):
    names = pv.version_names(game)
    assert names and pv.default_version(game) in names
    for name in names:
        entry = pv.version_entry(game, name)
        bot = make_agent(game, "ppo", seed=0, version=name)
        assert bot.version == name
        on_disk = PolicyWeights.load(pv.POLICY_FOLDERS[game] / entry["file"])
        assert all(np.array_equal(a, b) for (a, _), (b, _) in zip(bot.policy.weights, on_disk.weights))
        # what the catalogue says of it is what the file says of itself
        assert bot.policy.meta["game"] == game and bot.policy.meta["num_players"] == entry["players"]
        assert bot.policy.meta["options"] == entry["options"] == bot.observation_options
        details = json.loads((pv.POLICY_FOLDERS[game] / entry["details"]).read_text())
        assert details["file"] == entry["file"] and entry["command"] and entry["figures"]["vs"]
    default = make_agent(game, "ppo", seed=0)
    assert default.version == pv.default_version(game) and SHIPPED[game] == pv.version_path(game)


def test_a_version_is_a_bot_spec_and_the_old_fae_policy_is_v1():
    name, kwargs = parse_agent("ppo:version=fae_2p_v1")
    bot = make_agent("fae", name, seed=0, **kwargs)
    assert bot.version == "fae_2p_v1" and bot.policy.meta["trained_steps"] == 3_891_712
    assert make_agent("fae", "ppo").version == "fae_2p_v7"  # fae_2p_v6 trained against its best responses with an entropy bonus (issue 40)
    assert make_agent("fae", "ppo").deterministic is False  # and played sampled, as its figures were measured (its catalogue play)


@pytest.mark.parametrize("version", ["fae_2p_v9", "../fae_2p_v1", "/etc/passwd", "fae_2p_v1.npz", 5])
def test_an_unknown_version_names_the_shipped_ones_and_is_never_a_path(version):
    with pytest.raises(ValueError, match=r"no shipped fae policy version .*known: \['fae_2p_v1'"):
        make_agent("fae", "ppo", version=version)


def test_version_with_path_or_weights_is_refused():
    with pytest.raises(ValueError, match="one of version=, path= or weights="):
        make_agent("fae", "ppo", version="fae_2p_v1", path=str(SHIPPED["fae"]))
    with pytest.raises(ValueError, match="no shipped policy for game 'nope'"):
        pv.version_path("nope")


def _catalogue(tmp_path, monkeypatch, **changes) -> None:
    entry = {"name": "t_v1", "file": "t.npz", "details": "t.json", "game": "fae", "players": 2, "options": {},
             "command": "c", "figures": {}}
    entry.update(changes)
    (tmp_path / "versions.json").write_text(json.dumps({"game": "fae", "default": "t_v1", "versions": [entry]}))
    monkeypatch.setitem(pv.POLICY_FOLDERS, "fae", tmp_path)
    pv.catalogue.cache_clear()


@pytest.mark.parametrize("changes, words", [
    ({"file": "../t.npz"}, "must be a plain .npz name"),
    ({"file": "/etc/t.npz"}, "must be a plain .npz name"),
    ({"file": "t.zip"}, "must be a plain .npz name"),
    ({"details": "../t.json"}, "must be a plain .json name"),
    ({"name": "T V1"}, "must be unique"),
    ({"players": True}, "players an int"),
    ({"extra": 1}, "exactly the keys"),
    ({"figures": {"exploit_probe": {"minutes": 10}}}, "exploit_probe must be a list"),
    ({"play": {"deterministic": "false"}}, "play must be"),
    ({"play": {"deterministic": 0}}, "play must be"),
    ({"play": {}}, "play must be"),
    ({"play": {"deterministic": False, "temperature": 0}}, "play must be"),
    ({"play": {"deterministic": False, "temperature": True}}, "play must be"),
    ({"play": {"deterministic": True, "temperature": 0.5}}, "play must be"),
    ({"play": {"deterministic": False, "extra": 1}}, "play must be"),
    ({"play": "sampled"}, "play must be"),
    ({"figures": {"exploit_probe": [{"minutes": 10, "best_response_win_share": 0.5}]}}, "exploit_probe must be a list"),
    ({"figures": {"exploit_probe": [{"minutes": 10, "best_response_win_share": 1.5, "wilson95": [0, 1], "games": 9,
                                     "learner_steps": 1, "date": "d", "measured_by": "m"}]}}, "exploit_probe must be"),
])
def test_a_malformed_catalogue_names_the_problem(tmp_path, monkeypatch, changes, words):
    _catalogue(tmp_path, monkeypatch, **changes)
    try:
        with pytest.raises(ValueError, match=words):
            pv.version_names("fae")
    finally:
        pv.catalogue.cache_clear()


def test_a_version_played_sampled_is_played_so_unless_the_caller_says(tmp_path, monkeypatch):
    """`play` in the catalogue: the ppo bot picked by that version (or as the default) samples at its
    temperature; deterministic= given by the caller wins; a version without `play` plays the argmax."""
    import shutil

    shutil.copy(SHIPPED["fae"], tmp_path / "t.npz")
    _catalogue(tmp_path, monkeypatch, play={"deterministic": False, "temperature": 0.5})
    try:
        assert pv.play_mode("fae") == (False, 0.5)
        for bot in (make_agent("fae", "ppo"), make_agent("fae", "ppo", version="t_v1")):
            assert (bot.deterministic, bot.temperature) == (False, 0.5)
        bot = make_agent("fae", "ppo", deterministic=True)
        assert (bot.deterministic, bot.temperature) == (True, 0.5)
        bot = make_agent("fae", "ppo", temperature=2.0)
        assert (bot.deterministic, bot.temperature) == (False, 2.0)
        bot = make_agent("fae", "ppo", path=str(tmp_path / "t.npz"))   # a file: its maker said nothing
        assert (bot.deterministic, bot.temperature) == (True, 1.0)
    finally:
        pv.catalogue.cache_clear()
    _catalogue(tmp_path, monkeypatch)
    try:
        assert pv.play_mode("fae") == (True, 1.0)
        assert make_agent("fae", "ppo").deterministic is True
    finally:
        pv.catalogue.cache_clear()


def test_an_oversized_catalogue_is_not_read(tmp_path, monkeypatch):
    _catalogue(tmp_path, monkeypatch)
    (tmp_path / "versions.json").write_text(" " * (pv.MAX_CATALOGUE_BYTES + 1))
    try:
        with pytest.raises(ValueError, match="larger than"):
            pv.version_names("fae")
    finally:
        pv.catalogue.cache_clear()


def test_every_version_of_the_fae_catalogue_says_its_probe_or_that_it_has_none():
    for name in pv.version_names("fae"):
        assert isinstance(pv.version_entry("fae", name)["figures"]["exploit_probe"], list)
    default = pv.probe_figure("fae")  # issue 40: the default's 10-minute probe is published
    assert default is not None and default["minutes"] == 10 and default["games"] >= 400
    assert pv.probe_figure("fae", "fae_2p_v1") is None  # never probed: None, not a number


def test_probe_figure_takes_the_strongest_probe_at_the_budget(tmp_path, monkeypatch):
    def probe(minutes, share, date):
        return {"minutes": minutes, "best_response_win_share": share, "wilson95": [share - 0.1, share + 0.1],
                "games": 100, "learner_steps": 1000, "date": date, "measured_by": "m"}

    _catalogue(tmp_path, monkeypatch, figures={"exploit_probe": [probe(10, 0.7, "2026-12-01"), probe(3, 0.95, "2026-12-09"),
                                                                 probe(10, 0.9, "2026-12-02"), probe(10, 0.4, "2026-12-03")]})
    try:  # each probe is a lower bound: the highest is the figure, whatever its date
        assert pv.probe_figure("fae")["best_response_win_share"] == 0.9
        assert pv.probe_figure("fae", minutes=3)["best_response_win_share"] == 0.95
        assert pv.probe_figure("fae", minutes=5) is None
    finally:
        pv.catalogue.cache_clear()


def test_the_probe_section_lists_every_version_of_the_table_and_plays_nothing(tmp_path):
    from tabletop_rl.agents import baseline_table as bt

    doc = tmp_path / "baselines.md"
    doc.write_text("# Baselines\n\n<!-- baselines fae 2p -->\narena\n<!-- /baselines fae 2p -->\n")
    assert bt.main(["--game", "fae", "--probes-only", "--doc", str(doc)]) == 0
    page = doc.read_text()
    assert "<!-- baselines fae 2p -->\narena\n" in page  # the arena table is left alone
    section = page.split("<!-- baselines fae probes 2p -->")[1]
    for name in bt.baselines("fae", 2):
        p = pv.probe_figure("fae", name)
        row = next(line for line in section.splitlines() if line.startswith(f"| `{name}`"))
        assert ("not measured" in row) == (p is None)
        assert p is None or f"{p['best_response_win_share']:.3f}" in row
    assert f"| `{pv.default_version('fae')}` (default) |" in section


# ------------------------------------------------------------------------------ the web allow-list
@pytest.fixture
def client():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from tabletop_rl.agents.web import create_app

    with TestClient(create_app(max_games=8, max_age=3600), base_url="http://127.0.0.1:8000") as c:
        yield c


def test_the_web_app_offers_and_plays_shipped_versions_by_name(client):
    offered = client.get("/api/config").json()["games"]["fae"]["bots"]
    assert "ppo" in offered and "ppo:version=fae_2p_v1" in offered and f"ppo:version={pv.default_version('fae')}" not in offered
    r = client.post("/api/games", json={"game": "fae", "bots": ["ppo:version=fae_2p_v1"], "seat": 1, "seed": 2})
    assert r.status_code == 201, r.text
    assert client.post(f"/api/games/{r.json()['id']}/advance", json={}).status_code == 200


@pytest.mark.parametrize("spec, words", [
    ("ppo:version=../fae_rl/policies/fae_2p_v1", "no shipped fae policy version"),
    ("ppo:version=/etc/passwd", "no shipped fae policy version"),
    ("ppo:version=fantastiqa_2p_v1", "no shipped fae policy version"),
    ("ppo:version=fae_2p_v1,policy=x", "no server policy"),
    ("ppo:version=fae_2p_v1,version=fae_2p_v2", "given twice"),
])
def test_the_web_app_refuses_versions_it_does_not_ship(client, spec, words):
    r = client.post("/api/games", json={"game": "fae", "bots": [spec]})
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_the_web_app_takes_a_version_or_a_server_policy_not_both():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from tabletop_rl.agents.web import create_app
    from tabletop_rl.agents.web.bots import load_policies

    app = create_app(policies=load_policies({"mine": str(SHIPPED["fae"])}))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        r = c.post("/api/games", json={"game": "fae", "bots": ["ppo:version=fae_2p_v1,policy=mine"]})
        assert r.status_code == 400 and "not both" in r.json()["error"], r.text


# ------------------------------------------------------------------------------ the arena table
def test_the_table_plays_every_baseline_against_the_references_and_its_elders(tmp_path):
    from tabletop_rl.agents import baseline_table as bt

    mcts = "mcts:iterations=4"
    result = bt.run_table("fae", 2, games=4, mcts_games=2, mcts=mcts, quiet=True)
    pairs = [(c["entrant"], c["opponent"]) for c in result["pairings"]]
    versions = [f"ppo:version=fae_2p_v{k}" for k in range(1, 8)]  # oldest first
    expected = [(v, o) for i, v in enumerate(versions) for o in ["random", "greedy", mcts] + versions[:i]]
    assert pairs == expected + [("greedy", "random"), (mcts, "greedy")]
    assert [c["games"] for c in result["pairings"]] == [2 if mcts in pair else 4 for pair in pairs]
    games = {e["bot"]: e["games"] for e in result["entrants"]}
    n = len(versions)  # every game of every pairing: 4 a pairing, 2 with the search
    assert games == {**{v: 10 + 4 * (n - 1) for v in versions}, "random": 4 * n + 4, "greedy": 4 * n + 6, mcts: 2 * n + 2}
    v2 = versions[1]
    assert all(e["median_move_s"] > 0 and e["openskill_sigma"] > 0 for e in result["entrants"])
    doc = tmp_path / "baselines.md"
    doc.write_text("# Baselines\n\nintro\n")
    for _ in range(2):  # regenerating replaces the table, and only it
        bt.write_section(doc, "fae", 2, bt.markdown(result, "CMD"))
    page = doc.read_text()
    assert page.startswith("# Baselines\n\nintro\n") and page.count("<!-- baselines fae 2p -->") == 1
    assert f"| `{v2}` |" in page and "`CMD`" in page and "Anchors: `greedy` vs `random`" in page
    with pytest.raises(ValueError, match="no shipped fantastiqa policy for 3 players"):
        bt.run_table("fantastiqa", 3, games=2, quiet=True)


def test_the_table_command_refuses_a_table_size_without_baselines(capsys, tmp_path):
    from tabletop_rl.agents import baseline_table as bt

    with pytest.raises(SystemExit):
        bt.main(["--game", "fantastiqa", "--players", "3", "--doc", str(tmp_path / "b.md")])
    assert "no shipped fantastiqa policy for 3 players" in capsys.readouterr().err
    assert not (tmp_path / "b.md").exists()
