"""ghost_euchre.arena.web: the page's JSON API (play, sessions, bad requests) and ghost_euchre.arena.web.table's views."""

import base64
import gc
import importlib.util
import json
import os
import weakref

import numpy as np
import pytest
from web_helpers import assert_error, web_client

from ghost_euchre.arena.league import leaderboard
from ghost_euchre.arena.store import Store
from ghost_euchre.arena.web import create_app
from ghost_euchre.arena.web.games import GameStore
from ghost_euchre.arena.web.table import Table, seed_key
from ghost_euchre_env import classic, ghost
from ghost_euchre_env.classic import ClassicEuchre
from ghost_euchre_env.ghost import GhostEuchre
from ghost_euchre_env.records import records_from_dict


class Clock:
    """A settable monotonic clock (seconds) for the store's expiry."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock):
    return GameStore(max_games=3, per_client=2, idle_s=100.0, finished_s=10.0, clock=clock)


@pytest.fixture
def client(store):
    return web_client(create_app(db=None, games=store))


def new_game(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def play_out(client, game, rng):
    """Play random legal moves for the person until the game is over; the last response."""
    while not game["view"]["over"]:
        view = game["view"]
        action = int(rng.choice(view["legal"]))
        response = client.post(
            f"/api/games/{game['id']}/actions", json={"action": action, "step": view["step"]}
        )
        assert response.status_code == 200, response.text
        game = response.json()
    return game


def engine_replay(records_file):
    """Final scores of the one game of a records file replayed on a fresh engine (no arena code)."""
    (record,) = records_from_dict(records_file)
    engine = GhostEuchre if record.variant == "ghost" else ClassicEuchre
    game = engine(episode=record.episode, **record.rules)
    state = game.init(np.array([record.key], np.uint64))
    for action in record.actions:
        assert game.legal_mask(state)[0, action]
        game.step(state, np.array([action]))
    assert state.player[0] == -1  # over
    return state.scores[0].tolist()


# ---------------------------------------------------------------- play
@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_whole_game_through_the_api_scores_as_the_engine(client, variant):
    seats = 3 if variant == "ghost" else 4
    game = new_game(
        client, variant=variant, seat=1, bots=["heuristic"] * (seats - 1), seed=5, episode="game"
    )
    assert game["seat"] == 1 and game["view"]["to_act"] == 1
    assert [s["name"] for s in game["view"]["seats"]][:3] == ["heuristic", "you", "heuristic#2"]
    final = play_out(client, game, np.random.default_rng(0))
    record = client.get(f"/api/games/{game['id']}/record").json()
    assert final["view"]["scores"] == record["games"][0]["final_scores"] == engine_replay(record)
    assert int(record["games"][0]["key"], 16) == seed_key(5)
    assert len(final["history"]) == final["view"]["deals_ended"] >= 1
    assert final["history"][-1]["scores"] == final["view"]["scores"]


def test_the_person_sees_their_own_hand_only_and_every_legal_move_as_a_button(client):
    game = new_game(client, seed=11, episode="deal")
    view = game["view"]
    you = view["seats"][0]
    assert [s["hand"] is None for s in view["seats"]] == [False, True, True]
    assert {c["id"] for c in you["hand"] if c["legal"]} | {
        b["action"] for b in view["buttons"] if b["legal"]
    } == set(view["legal"])
    assert view["ghost"]["cards"] is None and view["ghost"]["count"] == 6
    # The legal moves are the engine's mask at this position.
    table = Table("ghost", seed_key(11), "deal")
    for move in game["moves"]:
        table.apply(move["action"])
    assert view["legal"] == np.flatnonzero(table.game.legal_mask(table.state)[0]).tolist()


def test_same_seed_same_game_and_bots(client):
    first = new_game(client, seed=3, bots=["random", "heuristic"])
    second = new_game(client, seed=3, bots=["random", "heuristic"])
    assert first["view"] == second["view"] and first["id"] != second["id"]
    rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(5):
        for game, rng in ((first, rng1), (second, rng2)):
            if not game["view"]["over"]:
                action = int(rng.choice(game["view"]["legal"]))
                game.update(
                    client.post(f"/api/games/{game['id']}/actions", json={"action": action}).json()
                )
    assert first["view"] == second["view"] and first["moves"] == second["moves"]


def test_classic_discard_is_hidden_from_the_other_seats():
    table = Table("classic", seed_key(0), names=["a", "b", "c", "d"])
    while table.state.phase[0] != classic.DISCARD:
        legal = table.legal()
        table.apply(
            next((a for a in legal if classic.SUIT_CLUBS <= a < classic.GO_ALONE), legal[0])
        )
    dealer = table.to_act
    assert dealer is not None
    table.apply(table.legal()[0])
    mine, theirs = table.moves_seen({dealer})[-1], table.moves_seen({(dealer + 1) % 4})[-1]
    assert mine["action"] is not None and theirs == dict(mine, action=None, name="discard")
    assert table.view({dealer})["discard"] is not None
    assert table.view({(dealer + 1) % 4})["discard"] is None


def test_ghost_view_shows_the_dead_hand_to_the_swapper_only():
    table = Table("ghost", seed_key(2))
    seat = table.to_act
    assert seat is not None
    table.apply(ghost.SWAP)
    assert table.view({seat})["ghost"]["cards"] is not None
    assert table.view({(seat + 1) % 3})["ghost"]["cards"] is None
    assert table.view(range(3))["ghost"]["taken"] is not None


# --------------------------------------------------------- bad requests
def test_bad_new_game_requests_are_refused_and_create_nothing(client, store):
    for body, status, words in (
        ("{not json", 400, ["not valid JSON"]),
        ("[1, 2]", 400, ["JSON object"]),
        ('{"colour": 1}', 400, ["unknown field", "colour"]),
        ('{"variant": "poker"}', 400, ["variant", "poker"]),
        ('{"seat": 3}', 400, ["seat", "0..2"]),
        ('{"seat": true}', 400, ["seat"]),
        ('{"seed": -1}', 400, ["seed"]),
        ('{"episode": "match"}', 400, ["episode"]),
        ('{"bots": ["heuristic"]}', 400, ["2 policy specs"]),
        ('{"bots": ["heuristic", "nosuchbot"]}', 400, ["nosuchbot"]),
        ('{"bots": ["heuristic", "human"]}', 400, ["human"]),
        ('{"bots": ["heuristic", 7]}', 400, ["spec"]),
        ('{"rules": {"target_score": 0}}', 400, ["target_score"]),
        ('{"rules": {"trumps": 2}}', 400, ["trumps"]),
    ):
        response = client.post("/api/games", content=body)
        assert_error(response, status, *words)
    assert len(store) == 0


def test_bad_moves_are_refused_and_change_nothing(client):
    game = new_game(client, seed=4)
    url = f"/api/games/{game['id']}"
    before = client.get(url).json()
    legal = before["view"]["legal"]
    illegal = next(a for a in range(34) if a not in legal)
    for body, status, words in (
        ("{oops", 400, ["not valid JSON"]),
        ('"pass"', 400, ["JSON object"]),
        ('{"action": "pass"}', 400, ["action must be an int"]),
        ('{"action": true}', 400, ["action must be an int"]),
        ('{"action": 24, "seat": 1}', 400, ["unknown field"]),
        (f'{{"action": {illegal}}}', 422, ["not legal", str(illegal)]),
        ('{"action": 99}', 422, ["99", "not legal"]),
        (f'{{"action": {legal[0]}, "step": {before["view"]["step"] + 1}}}', 409, ["stale"]),
    ):
        response = client.post(url + "/actions", content=body)
        assert_error(response, status, *words)
    assert client.get(url).json() == before


def test_unknown_finished_and_closed_games(client, store):
    assert_error(client.get("/api/games/nope"), 404, "nope")
    assert_error(client.post("/api/games/nope/actions", json={"action": 24}), 404, "nope")
    game = new_game(client, seed=8, episode="deal")
    assert_error(client.get(f"/api/games/{game['id']}/record"), 409, "not over")
    final = play_out(client, game, np.random.default_rng(2))
    url = f"/api/games/{game['id']}"
    assert_error(client.post(url + "/actions", json={"action": 24}), 409, "over")
    assert client.get(url).json() == final
    held = weakref.ref(store.get(game["id"]))
    assert client.delete(url).status_code == 200
    gc.collect()
    assert held() is None
    assert_error(client.get(url), 404)
    assert_error(client.delete(url), 404)
    assert len(store) == 0


def test_unknown_pages_and_methods_get_json_errors(client):
    assert_error(client.get("/nowhere"), 404, "nowhere")
    assert_error(client.put("/api/games"), 405)
    assert client.get("/play").status_code == 200
    assert "text/html" in client.get("/play").headers["content-type"]
    assert client.get("/", follow_redirects=False).status_code in (302, 307)


def test_oversized_body_is_refused(client, store):
    response = client.post("/api/games", content=b"{" + b" " * (2 << 20) + b"}")
    assert response.status_code == 413
    assert len(store) == 0


# ------------------------------------------------------------- sessions
def test_store_is_bounded_and_replaces_finished_games_first(client, store, clock):
    other = web_client(client.app, client=("10.0.0.2", 1))  # one client holds 2 games at most
    finished = play_out(client, new_game(client, seed=1, episode="deal"), np.random.default_rng(0))
    clock.now = 1.0
    open_ids = [new_game(client, seed=s)["id"] for s in (2, 3)]
    assert len(store) == 3
    clock.now = 2.0
    newest = new_game(other, seed=4)["id"]  # the finished game gives way
    assert_error(client.get(f"/api/games/{finished['id']}"), 404)
    assert_error(other.post("/api/games", json={"seed": 5}), 503, "3 games")
    assert len(store) == 3
    for game_id in [*open_ids, newest]:
        assert client.get(f"/api/games/{game_id}").status_code == 200


def test_idle_and_finished_games_expire_and_free_their_memory(client, store, clock):
    idle = new_game(client, seed=1)["id"]
    held = weakref.ref(store.get(idle))  # the game, its engine state and its bots
    done = play_out(client, new_game(client, seed=2, episode="deal"), np.random.default_rng(0))
    clock.now = 11.0  # past finished_s
    assert_error(client.get(f"/api/games/{done['id']}"), 404)
    assert client.get(f"/api/games/{idle}").status_code == 200  # a request keeps it alive
    clock.now = 110.0
    assert client.get(f"/api/games/{idle}").status_code == 200
    clock.now = 211.0  # past idle_s since the last request
    store.purge()
    assert len(store) == 0
    gc.collect()
    assert held() is None


def test_options_lists_variants_and_specs(client):
    options = client.get("/api/options").json()
    assert options["variants"] == {"ghost": 3, "classic": 4}
    assert "heuristic" in options["specs"]
    assert "ppo:ghost" in options["specs"]  # the shipped networks by name, from any folder


def test_a_shipped_network_plays_on_the_page_by_name(client):
    game = new_game(client, bots=["ppo:ghost", "ppo:ghost-bidder"])
    assert [s["name"] for s in game["view"]["seats"]] == ["you", "ppo:ghost", "ppo:ghost-bidder"]


def test_load_script_plays_concurrent_games_to_the_end_and_loses_none():
    """The load benchmark's code, small: 6 one-deal games at once against a served page."""
    spec = importlib.util.spec_from_file_location(
        "web_load", os.path.join(os.path.dirname(__file__), "..", "benchmarks", "web_load.py")
    )
    assert spec is not None and spec.loader is not None
    web_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_load)
    port = web_load.free_port()
    server = web_load.start_server(port)
    try:
        body = {"episode": "deal", "bots": ["heuristic", "random"]}
        summary = web_load.run_load(port, 6, body, seed=3)
    finally:
        server.terminate()
        server.wait(30)
    assert summary["finished"] == 6 and summary["lost"] == 0, summary["errors"]
    assert summary["requests"] >= 6 * 3


# ------------------------------------------------------- watch and league
@pytest.fixture
def league_client(league_db):
    return web_client(create_app(db=league_db))


def test_a_finished_game_is_replayed_position_by_position(client):
    game = play_out(client, new_game(client, seed=6, episode="deal"), np.random.default_rng(1))
    record = client.get(f"/api/games/{game['id']}/record").json()
    replay = client.post("/api/replays", json={"records": record, "game": 0}).json()
    frames, moves = replay["frames"], replay["moves"]
    assert len(frames) == len(moves) + 1 == len(record_actions(record)) + 1
    assert [m["action"] for m in moves] == record_actions(record)
    assert all(seat["hand"] is not None for seat in frames[0]["seats"])  # every hand shown
    assert frames[0]["ghost"]["cards"] is not None
    assert frames[-1]["scores"] == replay["final_scores"] == game["view"]["scores"]
    assert replay["names"] == [s["name"] for s in game["view"]["seats"]]


def record_actions(records_file):
    return list(records_from_dict(records_file)[0].actions)


def test_bad_replay_requests_are_refused(client):
    game = play_out(client, new_game(client, seed=6, episode="deal"), np.random.default_rng(1))
    record = client.get(f"/api/games/{game['id']}/record").json()
    tampered = json.loads(json.dumps(record))
    actions = bytearray(base64.b64decode(tampered["games"][0]["actions"]))
    actions[0] = 0  # a card in the auction
    tampered["games"][0]["actions"] = base64.b64encode(bytes(actions)).decode()
    for body, status, words in (
        ({"records": tampered}, 422, ["not legal"]),
        ({"records": record, "game": 1}, 400, ["game", "0..0"]),
        ({"records": {"schema": "nope"}}, 422, ["schema"]),
        ({"records": dict(record, games=[{"key": "zz"}])}, 422, ["key must be 16 hex digits"]),
        ({"records": record, "speed": 2}, 400, ["unknown field"]),
    ):
        assert_error(client.post("/api/replays", json=body), status, *words)


def test_stored_league_games_are_listed_and_replayed(league_client):
    matches = league_client.get("/api/store").json()["matches"]
    assert [m["variant"] for m in matches] == ["ghost"] * 4 + ["classic"] * 3
    games = league_client.get(f"/api/store/matches/{matches[0]['id']}/games").json()
    assert len(games) == 6 and sorted(games[0]["names"]) == sorted(matches[0]["players"])
    replay = league_client.get(f"/api/store/matches/{matches[0]['id']}/games/5/replay").json()
    assert len(replay["frames"]) == games[5]["moves"] + 1
    assert replay["frames"][-1]["scores"] == games[5]["final_scores"]
    classic_replay = league_client.get(f"/api/store/matches/{matches[4]['id']}/games/0/replay")
    assert classic_replay.json()["variant"] == "classic"
    assert_error(league_client.get("/api/store/matches/99/games"), 404, "99")
    assert_error(league_client.get(f"/api/store/matches/{matches[0]['id']}/games/6/replay"), 404)


def test_leaderboard_table_and_plot_come_from_the_store(league_client, league_db):
    data = league_client.get("/api/leaderboard").json()
    assert [g["variant"] for g in data["groups"]] == ["ghost", "classic"]
    with Store(league_db) as store:
        expected = leaderboard(store, **data["groups"][0]).to_dict()
    assert data["board"] == json.loads(json.dumps(expected))
    assert [p["rank"] for p in data["board"]["players"]] == [1, 2, 3, 4]
    assert len(league_client.get("/api/leaderboard?group=1").json()["board"]["players"]) == 4
    plot = league_client.get("/api/leaderboard/plot.png?group=1")
    assert plot.headers["content-type"] == "image/png" and plot.content[:4] == b"\x89PNG"
    assert_error(league_client.get("/api/leaderboard?group=2"), 400, "0..1")
    assert_error(league_client.get("/api/leaderboard?group=x"), 400, "group")


def test_a_missing_store_is_reported_and_not_created(tmp_path):
    path = tmp_path / "none.sqlite"
    client = web_client(create_app(db=str(path)))
    assert client.get("/api/store").json()["matches"] == []
    assert_error(client.get("/api/leaderboard"), 404, "no league store", "--league")
    assert_error(client.get("/api/store/matches/1/games"), 404, "no league store")
    assert not path.exists()


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_replay_pages_read_in_any_order_are_the_replay_from_the_start(variant):
    """Issue 70: a page went on from a mark that shared the table's ghost-hand memory ("taken"),
    so frame 0 changed between two requests. Every page, in every order, asked twice, and pages
    from positions off the page boundary, equal the record replayed from its start."""
    import itertools

    from ghost_euchre.arena.match import run_match
    from ghost_euchre.arena.web.games import REPLAY_PAGE, ReplayPages

    players = ["random", "heuristic", "random"] if variant == "ghost" else ["random"] * 4
    result = run_match(players, variant, games=1, seed=0, record=True, num_envs=1)
    long = [r for r in result.game_records() if len(r.actions) > REPLAY_PAGE]  # two pages or more
    record = min(long, key=lambda r: len(r.actions))
    whole = Table(record.variant, record.key, record.episode, record.rules, record.names)
    frames = whole.replay(record.actions)["frames"]
    if variant == "ghost":  # the case of the issue: a ghost hand taken, shown on the frames
        assert any(frame["ghost"]["taken"] for frame in frames)
    starts = list(range(0, len(record.actions) + 1, REPLAY_PAGE))
    rng = np.random.default_rng(0)
    orders = [
        *itertools.permutations(starts[:3]),
        starts[::-1],
        *(rng.permutation(starts) for _ in range(3)),
    ]
    for order in orders:
        pages = ReplayPages()
        for first in [*order, *order]:
            page = pages.page(record, first)
            assert page["frames"] == frames[first : first + REPLAY_PAGE], (order, first)
    pages = ReplayPages()
    for first in (
        len(record.actions),
        len(record.actions) - 3,
        REPLAY_PAGE + 1,
        1,
        REPLAY_PAGE - 1,
        0,
    ):
        assert pages.page(record, first)["frames"] == frames[first : first + REPLAY_PAGE]
