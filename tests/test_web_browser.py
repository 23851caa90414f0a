"""The web page in a real headless browser (Debian's chromium and chromedriver, via Selenium).

A person plays one whole deal against two heuristics by clicking: at every turn
the enabled buttons must be exactly the engine's legal moves (replayed here on
a fresh engine from the game's record), and the final scores on the page must
be the engine's. ``WEB_SCREENSHOTS=DIR`` saves the pages as PNG files in DIR
(the README's pictures: ``WEB_SCREENSHOTS=docs python -m pytest tests/test_web_browser.py``).
"""

import json
import os
import shutil
import socket
import tempfile
import threading
import urllib.request

import numpy as np
import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from arena.web import create_app
from ghost_euchre_env import dealing
from ghost_euchre_env.ghost import GhostEuchre

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)
WAIT_S = 60  # generous: the 2-core machine is shared


@pytest.fixture(scope="module")
def server():
    """The app served by uvicorn on a free local port, in a thread; yields its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(2000):
        if running.started:
            break
        thread.join(0.01)
    assert running.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(path)]
    assert not missing, f"{missing} missing: apt-get install -y chromium chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def screenshot(driver, name):
    folder = os.environ.get("WEB_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        driver.save_screenshot(os.path.join(folder, f"{name}.png"))


def get_json(url):
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def engine_after(record):
    """(engine, state) after ``record``'s moves, on a fresh engine (no arena code)."""
    game = GhostEuchre(episode=record["episode"], **record["rules"])
    state = game.init(dealing.stream_keys(record["seed"], 1))
    for action in record["actions"]:
        game.step(state, np.array([action]))
    return game, state


def test_a_person_plays_a_whole_deal_against_two_heuristics(server, browser):
    browser.get(server + "/play")
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"))
    Select(browser.find_element(By.ID, "episode")).select_by_value("deal")
    browser.find_element(By.ID, "seed").send_keys("12")
    bots = browser.find_elements(By.CSS_SELECTOR, "input.bot")
    assert [b.get_attribute("value") for b in bots] == ["heuristic", "heuristic"]
    browser.find_element(By.ID, "start").click()
    board = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#board[data-step]"))
    game_id = browser.execute_script("return sessionStorage.getItem('game')")
    rng = np.random.default_rng(0)
    clicks = 0
    while board.get_attribute("data-over") != "true":
        record = get_json(f"{server}/api/games/{game_id}/record")
        game, state = engine_after(record)
        assert state.player[0] == 0  # the person's turn
        legal = set(np.flatnonzero(game.legal_mask(state)[0]).tolist())
        buttons = browser.find_elements(By.CSS_SELECTOR, "#hand button, #actions button")
        enabled = {int(b.get_attribute("data-action")) for b in buttons if b.is_enabled()}
        disabled = {int(b.get_attribute("data-action")) for b in buttons if not b.is_enabled()}
        assert enabled == legal
        assert disabled and not disabled & legal
        if clicks == 5:  # mid-deal: cards on the table, a trick or two taken
            screenshot(browser, "play")
        choice = int(rng.choice(sorted(legal)))
        step = board.get_attribute("data-step")
        next(b for b in buttons if int(b.get_attribute("data-action")) == choice).click()
        clicks += 1
        wait.until(lambda d, step=step: board.get_attribute("data-step") != step)
    record = get_json(f"{server}/api/games/{game_id}/record")
    game, state = engine_after(record)
    assert state.player[0] == -1 and record["over"]
    finals = browser.find_elements(By.CSS_SELECTOR, "#result .final b")
    assert [int(f.text) for f in finals] == state.scores[0].tolist()
    assert clicks >= 6  # the person bid or passed and played six cards
    assert len(browser.find_elements(By.CSS_SELECTOR, "#last-deal ol.tricks li")) == 6
