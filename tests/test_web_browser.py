"""The web app in a real browser (issue 19): Playwright driving Debian's chromium.

Plays a whole Fae game and a whole Fantastiqa game against random bots by clicking, steps through
a recorded game forwards and backwards, and checks screenshots are not blank and show the board.
Playwright cannot download its own browsers here, so it is pointed at the `chromium` package
(.ci/run installs it); without chromium these tests skip locally and fail under CI.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import socket
import threading
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("the browser tests need Debian's chromium package (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = os.environ.get("WEB_SCREENSHOTS")  # a folder to keep the screenshots in (to look at them)


@pytest.fixture(scope="module")
def server():
    from tabletop_rl.agents.web import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    pg.set_default_timeout(20_000)
    pg.goto(server)
    pg.wait_for_function("document.body.dataset.state === 'setup' && document.querySelector('#setup-game option')")
    yield pg
    pg.close()


def check_screenshot(page, name: str, selector: str) -> np.ndarray:
    """A screenshot of the page that is not blank, and whose board area shows many colours."""
    from PIL import Image

    png = page.screenshot(full_page=False)
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        with open(os.path.join(SHOTS, name + ".png"), "wb") as f:
            f.write(png)
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert img.std() > 20, f"{name}: the screenshot is nearly uniform"
    box = page.locator(selector).bounding_box()
    assert box and box["width"] > 300 and box["height"] > 200, f"{name}: no board drawn ({box})"
    x0, y0 = int(box["x"]), int(box["y"])
    board = img[y0:y0 + int(box["height"]), x0:x0 + int(box["width"])]
    colours = len(np.unique(board.reshape(-1, 3)[::7], axis=0))
    assert colours > 30, f"{name}: the board area has only {colours} colours"
    return img


def start(page, game: str, bots: list[str], seed: int, options: dict | None = None):
    page.select_option("#setup-game", game)
    page.select_option("#setup-players", str(len(bots) + 1))
    page.select_option("#setup-speed", "0")
    page.fill("#setup-seed", str(seed))
    for sel, bot in zip(page.locator("#setup-bots select.bot").all(), bots):
        sel.select_option(bot)
    for name, index in (options or {}).items():
        page.select_option(f"#setup-options select[data-option={name}]", str(index))
    page.click("#start")
    page.wait_for_function("['your-turn', 'bots', 'over'].includes(document.body.dataset.state)")


def click(page, locator) -> None:
    """Click, then wait for the page to draw the server's answer."""
    before = page.evaluate("Number(document.body.dataset.renders || 0)")
    locator.click()
    page.wait_for_function(f"Number(document.body.dataset.renders || 0) > {before}")


def wait_turn(page) -> str:
    page.wait_for_function("['your-turn', 'over'].includes(document.body.dataset.state)", timeout=60_000)
    return page.evaluate("document.body.dataset.state")


def test_play_a_whole_fae_game_by_clicking(page):
    start(page, "fae", ["random"], seed=7)
    assert page.locator("#fae-svg .space").count() == 60
    turns = 0
    while wait_turn(page) == "your-turn":
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
        resolve = page.locator(".space.legal-resolve")
        if resolve.count():  # F-R: a pending ritual is resolved by clicking its space
            click(page, resolve.first)
        else:
            click(page, page.locator(".space.legal-src").first)
            assert page.locator(".space.selected").count() == 1
            click(page, page.locator(".space.legal-dst").first)
        turns += 1
        if turns == 3:
            check_screenshot(page, "fae_play", "#board")
        assert turns < 400
    assert page.locator("#result").is_visible()
    text = page.inner_text("#result")
    assert "Winners" in text and "Final scores" in text
    check_screenshot(page, "fae_end", "#board")


def test_play_a_whole_fantastiqa_game_by_clicking(page):
    start(page, "fantastiqa", ["random"], seed=1, options={"goal": 0})
    clicks = 0
    while wait_turn(page) == "your-turn":
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
        if clicks < 6:  # the setup decisions and the first turn's start by clicking the choices
            click(page, page.locator("#choices button.choice").first)
        else:  # then the greedy bot finishes each of my turns (random play would take ~1000 turns)
            if clicks == 6:
                page.select_option("#helper", "greedy")
            click(page, page.locator("#finish-turn"))
        clicks += 1
        if clicks == 3:
            page.wait_for_function("document.getElementById('board-img').complete")
            assert "Your hand" in page.inner_text("#panel")
            check_screenshot(page, "fantastiqa_play", "#board-img")
        assert clicks < 600
    assert "Winners" in page.inner_text("#result")
    page.wait_for_function("document.getElementById('board-img').complete")
    check_screenshot(page, "fantastiqa_end", "#board-img")


def test_watch_a_recorded_game(page, tmp_path, fae_spec):
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import play_game

    result = play_game(fae_spec, [make_agent("fae", "greedy", seed=0), make_agent("fae", "random", seed=1)], seed=3)
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(result.to_record(fae_spec, agents=["greedy", "random"])) + "\n")
    n = len(result.actions)
    page.click("#tab-watch")
    page.set_input_files("#records-file", str(path))
    page.wait_for_function("document.body.dataset.watchStep === '0'")
    assert page.locator("#w-board .space").count() == 60
    for k in range(1, 4):
        page.click("#w-next")
        page.wait_for_function(f"document.body.dataset.watchStep === '{k}'")
    assert page.locator("#w-log li").count() == 3
    assert page.inner_text("#w-move").startswith("last move: player_")
    page.click("#w-prev")
    page.wait_for_function("document.body.dataset.watchStep === '2'")
    assert page.locator("#w-log li").count() == 2
    page.select_option("#watch-seat", "1")
    page.wait_for_function("document.getElementById('w-panel').innerText.includes('player_1')")
    check_screenshot(page, "watch", "#w-board")
    page.click("#w-last")
    page.wait_for_function(f"document.body.dataset.watchStep === '{n}'")
    assert "Winners" in page.inner_text("#w-result")
