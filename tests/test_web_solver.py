"""The Watch view's solver marks (issue 68): a replay's card decisions carry the exact solver's best
card(s) and every legal card's value, solved with every hand seen; auction frames and a live
game's views carry nothing of the solver."""

import numpy as np
import pytest
from web_helpers import web_client

from ghost_euchre.arena.store import Store
from ghost_euchre.arena.web import create_app
from ghost_euchre.arena.web.games import REPLAY_PAGE, ReplayPages
from ghost_euchre_env import solver
from ghost_euchre_env.records import records_from_dict, replay


def expected_marks(record):
    """[the solver's marks of position k, or None] of every position of ``record``, straight from
    the engine and the solver (no web code): the seat to play, its best cards, every legal value."""
    game = record.game()
    marks = []
    for step in replay(record):
        state = step.before
        if solver.in_play(game, state)[0]:
            values = solver.solve(game, state, concept="relative")
            legal = np.flatnonzero(values[0] != solver.NO_VALUE)
            marks.append(
                {
                    "seat": step.seat,
                    "best": np.flatnonzero(solver.best_cards(values)[0]).tolist(),
                    "values": [{"id": int(c), "value": float(values[0, c])} for c in legal],
                }
            )
        else:
            marks.append(None)
    return [*marks, None]  # the end: nobody to play


def all_frames(client, url):
    """Every frame of a replay, page by page (GET ``url?first=k``)."""
    frames, positions = [], 1
    while len(frames) < positions:
        page = client.get(f"{url}?first={len(frames)}").json()
        positions = page["positions"]
        frames += page["frames"]
    return frames


def stored_record(db, match_id, number):
    """Game ``number`` of stored match ``match_id`` as the store holds it."""
    with Store(db) as store:
        (record,) = store.game_records(match_id, [number])
    return record


@pytest.mark.parametrize("number", [0, 4])  # a Ghost Hand match, a classic one
def test_stored_replays_mark_the_solvers_best_cards_at_every_card_decision(league_db, number):
    client = web_client(create_app(db=league_db))
    match = client.get("/api/store").json()["matches"][number]
    frames = all_frames(client, f"/api/store/matches/{match['id']}/games/1/replay")
    record = stored_record(league_db, match["id"], 1)
    marks = expected_marks(record)
    assert len(frames) == len(marks) == len(record.actions) + 1
    card_frames = 0
    for k, (frame, mark) in enumerate(zip(frames, marks, strict=True)):
        if mark is None:  # the auction (bids, trump, the swap, the discard) and the end
            assert "solver" not in frame, k
            continue
        card_frames += 1
        assert frame["phase"] == "play" and frame["to_act"] == mark["seat"], k
        assert frame["solver"] == mark, k
        legal = {c["id"] for c in frame["seats"][mark["seat"]]["hand"] if c["legal"]}
        assert {v["id"] for v in frame["solver"]["values"]} == legal, k
        assert set(frame["solver"]["best"]) <= legal, k
    assert 0 < card_frames < len(frames)
    assert any(frame["phase"] != "play" for frame in frames)


def keys_of(value):
    """Every dict key anywhere in a JSON-ready ``value``."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_live_game_carries_no_solver_advice_and_its_finished_replay_does(variant):
    """The person's views, move by move and once the game is over, never carry the solver; the
    replay of the finished game (the Watch page's "your game") does, at its card decisions."""
    client = web_client(create_app(db=None))
    response = client.post("/api/games", json={"variant": variant, "episode": "deal", "seed": 4})
    game, rng, views = response.json(), np.random.default_rng(0), 0
    while True:
        assert "solver" not in keys_of(game), game["view"]["step"]
        assert client.get(f"/api/games/{game['id']}").json() == game
        views += 1
        if game["view"]["over"]:
            break
        view = game["view"]
        body = {"action": int(rng.choice(view["legal"])), "step": view["step"]}
        game = client.post(f"/api/games/{game['id']}/actions", json=body).json()
    assert views > 5
    record = client.get(f"/api/games/{game['id']}/record").json()
    frames = client.post("/api/replays", json={"records": record, "game": 0}).json()["frames"]
    assert [f.get("solver") for f in frames] == expected_marks(records_from_dict(record)[0])


def test_a_replays_card_decisions_are_solved_once_whatever_the_pages_asked(monkeypatch):
    """The solver runs once per card decision of a cached replay, at most a page's worth a request."""
    from ghost_euchre.arena.match import run_match
    from ghost_euchre.arena.web import table

    result = run_match(["random", "heuristic", "random"], games=1, seed=2, record=True, num_envs=1)
    record = max(result.game_records(), key=lambda r: len(r.actions))
    assert len(record.actions) > REPLAY_PAGE
    marks = expected_marks(record)
    calls, shown = [], set()
    real = table.solve_decision
    monkeypatch.setattr(table, "solve_decision", lambda g, s: calls.append(1) or real(g, s))
    pages = ReplayPages()
    for first in (0, 0, 3, REPLAY_PAGE - 1, 5, REPLAY_PAGE, 0):
        page = pages.page(record, first)
        positions = range(first, first + len(page["frames"]))
        assert [f.get("solver") for f in page["frames"]] == marks[first : positions.stop]
        shown |= set(positions)
        assert len(calls) == sum(marks[k] is not None for k in shown), first  # each once
    assert len(calls) <= 2 * REPLAY_PAGE
