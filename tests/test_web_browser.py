"""The web page in a real headless browser (Debian's chromium and chromedriver, via Selenium).

A person plays one whole deal against two heuristics by clicking: at every turn
the enabled buttons must be exactly the engine's legal moves (replayed here on
a fresh engine from the game's moves), and the final scores on the page must
be the engine's. Then the game is watched again (next, previous, auto-play,
last), and the leaderboard of a small league store is opened.
``WEB_SCREENSHOTS=DIR`` saves the three pages as PNG files in DIR, and
``WEB_LEAGUE_DB=FILE`` shows that league store instead of the test's (the
README's pictures: ``WEB_SCREENSHOTS=docs WEB_LEAGUE_DB=runs/league.sqlite
python -m pytest tests/test_web_browser.py``).
"""

import json
import os
import shutil
import tempfile
import urllib.request

import numpy as np
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from web_helpers import served

from ghost_euchre.arena.league import leaderboard
from ghost_euchre.arena.store import Store
from ghost_euchre.arena.web import create_app
from ghost_euchre.arena.web.league import league_groups
from ghost_euchre_env import dealing, solver
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
SEED = 12  # a deal with a contract played out (the person bids and plays six cards)
WAIT_S = 60  # generous: the 2-core machine is shared


@pytest.fixture(scope="module")
def league(league_db):
    """The league store the page shows: the test league, or ``WEB_LEAGUE_DB`` if set (screenshots)."""
    return os.environ.get("WEB_LEAGUE_DB") or league_db


@pytest.fixture(scope="module")
def server(league):
    """The app served by uvicorn with the page's settings on a free local port, in a thread; yields its
    base URL."""
    with served(create_app(league)) as (port, _):
        yield f"http://127.0.0.1:{port}"


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


def engine_after(seed, actions):
    """(engine, state) of a one-deal game seeded ``seed`` after ``actions``, on a fresh engine."""
    game = GhostEuchre(episode="deal")
    state = game.init(dealing.stream_keys(seed, 1))
    for action in actions:
        game.step(state, np.array([action]))
    return game, state


def step_of(browser):
    return int(browser.find_element(By.ID, "board").get_attribute("data-step"))


def test_a_person_plays_a_whole_deal_against_two_heuristics_then_watches_it(server, browser):
    browser.get(server + "/play")
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"))
    Select(browser.find_element(By.ID, "episode")).select_by_value("deal")
    browser.find_element(By.ID, "seed").send_keys(str(SEED))
    bots = browser.find_elements(By.CSS_SELECTOR, "select.bot")
    assert [Select(b).first_selected_option.get_attribute("value") for b in bots] == [
        "heuristic",
        "heuristic",
    ]
    offered = get_json(server + "/api/options")["specs"]  # a list of what the server allows
    assert [o.get_attribute("value") for o in Select(bots[0]).options] == [*offered, ""]
    assert not browser.find_element(By.CSS_SELECTOR, "input.bot-spec").is_displayed()
    labels = browser.find_elements(By.CSS_SELECTOR, "#bots label")
    assert labels[0].text.startswith("Bot 1") and labels[1].text.startswith("Bot 2")
    first, second = (label.rect for label in labels)  # "Bot 1 [heuristic]  Bot 2 ...": a gap
    assert second["x"] >= first["x"] + first["width"] + 8 or second["y"] > first["y"]
    Select(bots[1]).select_by_value("")  # "other spec…": a text field for any allowed spec
    typed = browser.find_element(By.CSS_SELECTOR, "input.bot-spec[data-bot='1']")
    assert typed.is_displayed()
    typed.send_keys("composite[random | heuristic]")
    Select(bots[1]).select_by_value("heuristic")  # back to the list: the field hides again
    assert not typed.is_displayed()
    browser.find_element(By.ID, "start").click()
    board = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#board[data-step]"))
    game_id = browser.execute_script("return sessionStorage.getItem('game')")
    rng = np.random.default_rng(0)
    clicks = 0
    while board.get_attribute("data-over") != "true":
        moves = get_json(f"{server}/api/games/{game_id}")["moves"]  # one deal: all of them
        game, state = engine_after(SEED, [m["action"] for m in moves])
        assert state.player[0] == 0  # the person's turn
        legal = set(np.flatnonzero(game.legal_mask(state)[0]).tolist())
        buttons = browser.find_elements(By.CSS_SELECTOR, "#hand button, #actions button")
        enabled = {int(b.get_attribute("data-action")) for b in buttons if b.is_enabled()}
        disabled = {int(b.get_attribute("data-action")) for b in buttons if not b.is_enabled()}
        assert enabled == legal
        assert disabled and not disabled & legal
        names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".seat .seat-name b")]
        seats = {
            int(e.get_attribute("data-seat")): e.text
            for e in browser.find_elements(By.CSS_SELECTOR, ".seat")
        }
        for slot in browser.find_elements(By.CSS_SELECTOR, "#table .trick .slot"):  # who played it
            seat = int(slot.get_attribute("data-seat"))
            assert slot.find_element(By.CLASS_NAME, "slot-name").text in seats[seat]
            assert slot.find_element(By.CLASS_NAME, "slot-name").text in names
        if clicks == 5:  # mid-deal: cards on the table, a trick or two taken
            screenshot(browser, "play")
        assert not browser.find_elements(By.CSS_SELECTOR, ".card.best")  # no solver in play
        choice = int(rng.choice(sorted(legal)))
        step = board.get_attribute("data-step")
        next(b for b in buttons if int(b.get_attribute("data-action")) == choice).click()
        clicks += 1
        wait.until(lambda d, step=step: board.get_attribute("data-step") != step)
    moves = get_json(f"{server}/api/games/{game_id}")["moves"]
    game, state = engine_after(SEED, [m["action"] for m in moves])
    assert state.player[0] == -1
    finals = browser.find_elements(By.CSS_SELECTOR, "#result .final b")
    assert [int(f.text) for f in finals] == state.scores[0].tolist()
    assert clicks >= 6  # the person bid or passed and played six cards
    assert len(browser.find_elements(By.CSS_SELECTOR, "#last-deal ol.tricks li")) == 6

    # Watch the same game again: step by step, auto-play, every hand shown.
    browser.find_element(By.ID, "watch-link").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board[data-step='0']"))
    assert browser.find_element(By.ID, "position").text == f"position 0 of {len(moves)}"
    match = browser.find_element(By.ID, "match")  # the league selector names no game of its own
    wait.until(lambda d: Select(match).first_selected_option.get_attribute("value") == "")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".seat .hand-row")) == 3
    assert not browser.find_element(By.ID, "prev").is_enabled()
    for _ in range(3):
        browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "prev").click()
    assert step_of(browser) == 2
    Select(browser.find_element(By.ID, "speed")).select_by_visible_text("fast")
    browser.find_element(By.ID, "auto").click()
    wait.until(lambda d: step_of(d) >= 12)
    browser.find_element(By.ID, "auto").click()  # pause
    paused = step_of(browser)
    assert 0 < paused < len(moves)
    screenshot(browser, "watch")
    # The solver's best cards are outlined in the hand of the seat to play, at card decisions only.
    card_play = next(k for k, m in enumerate(moves) if m["phase"] == "play")
    browser.find_element(By.ID, "first").click()
    for k in range(card_play + 2):
        outlined = browser.find_elements(By.CSS_SELECTOR, ".card.best")
        engine, before = engine_after(SEED, [m["action"] for m in moves[:k]])
        if k < card_play:
            assert not outlined, k
        else:
            best = np.flatnonzero(solver.best_cards(solver.solve(engine, before))[0]).tolist()
            assert sorted(int(c.get_attribute("data-card")) for c in outlined) == best, k
            seat = browser.find_element(By.CSS_SELECTOR, f".seat[data-seat='{before.player[0]}']")
            assert all(c in seat.find_elements(By.CSS_SELECTOR, ".card") for c in outlined)
        browser.find_element(By.ID, "next").click()
    assert "no legal player reaches it" in browser.find_element(By.ID, "solver-legend").text
    browser.find_element(By.ID, "last").click()
    assert step_of(browser) == len(moves)
    finals = browser.find_elements(By.CSS_SELECTOR, "#result .final b")
    assert [int(f.text) for f in finals] == state.scores[0].tolist()


def test_the_leaderboard_shows_the_store(server, browser, league):
    browser.get(server + "/leaderboard")
    wait = WebDriverWait(browser, WAIT_S)
    rows = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "table.ranking tr[data-rank]"))
    with Store(league) as store:
        group = league_groups(store)[0]
        board = leaderboard(store, **group)
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == [
        p["name"] for p in board.players
    ]
    data = get_json(server + "/api/leaderboard")  # the numbers as the command line prints them
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "table.head td")]
    assert cells == [cell for row in data["text"]["head_to_head"] for cell in row]
    rates = [r.find_elements(By.TAG_NAME, "td")[6].text.split(" ")[0] for r in rows]
    assert rates == [t["win_rate"] for t in data["text"]["players"]]
    plot = browser.find_element(By.ID, "plot")
    wait.until(lambda d: d.execute_script("return arguments[0].naturalWidth", plot) > 0)
    screenshot(browser, "leaderboard")


@pytest.mark.parametrize("store", ["missing", "cards only"])
def test_a_store_with_no_league_is_a_note_not_an_error(store, browser, tmp_path):
    """No league to rank (no store, or one that holds benchmark cards only): the Leaderboard tab
    says so in a note, shows no red error, and lists the store's cards."""
    db = tmp_path / "cards.sqlite"
    card = {"suite": "v1", "seed": 1, "published_seed": False, "variant": "ghost"}
    card |= {"spec": "heuristic", "fingerprint": "abc", "sections": {}}
    if store == "cards only":
        with Store(db) as written:
            written.add_card("k", ("heuristic", "abc"), card, True)
    with served(create_app(str(db))) as (port, _):
        browser.get(f"http://127.0.0.1:{port}/leaderboard")
        wait = WebDriverWait(browser, WAIT_S)
        note = wait.until(lambda d: d.find_element(By.ID, "no-league"))
        wait.until(lambda d: note.is_displayed())
        assert "No league to rank yet" in note.text and "--league" in note.text
        assert not browser.find_element(By.ID, "error").is_displayed()
        assert not browser.find_element(By.ID, "board").is_displayed()
        if store == "cards only":
            cards = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#cards tr td"))
            assert cards[0].text == "heuristic"
            assert browser.find_element(By.ID, "cards-panel").is_displayed()


def test_watch_selectors_name_the_stored_game_on_screen(server, browser):
    match = get_json(server + "/api/store")["matches"][-1]["id"]  # not the first one listed
    browser.get(f"{server}/watch?match={match}&stored=3")
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board[data-step='0']"))

    def shown(d):
        chosen = [
            Select(d.find_element(By.ID, k)).first_selected_option for k in ("match", "stored-game")
        ]
        return [c.get_attribute("value") for c in chosen] == [str(match), "3"]

    wait.until(shown)
