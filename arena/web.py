"""The local web page: play against the bots, watch recorded games, see the leaderboard.

``python evaluate.py serve [--db FILE] [--port 8000] [--host 127.0.0.1]`` runs
:func:`serve`. The page (``arena/static/``: plain HTML, CSS and JavaScript, no
build step) is a thin client of the JSON API below; the server holds no rules:
every game is a :class:`arena.table.Table` over the engine, and bots are
policies built from spec strings by ``agents.make_policy``.

JSON API (every error is ``{"error": "one line"}`` with a 4xx status, and
changes nothing):

- ``GET /api/options``: variants, seats, default bots, suggested specs.
- ``POST /api/games`` ``{"variant": "ghost", "seat": 0, "bots": ["heuristic",
  "heuristic"], "seed": 7, "episode": "game", "rules": {}}`` (every field
  optional; ``bots`` fill the other seats in seat order; seed None = random)
  -> a play response (below), status 201.
- ``GET /api/games/{id}``: the play response of a game.
- ``POST /api/games/{id}/actions`` ``{"action": 24, "step": 3}``: play a move
  for the person's seat (``step``, optional, is the step the move was chosen
  at: a stale one is refused), then let the bots move until it is the
  person's turn again or the game is over -> the play response.
- ``GET /api/games/{id}/record``: seed, rules, players and moves of the game.
- ``DELETE /api/games/{id}``: close the game (a tab sends it when it closes).

Play response: ``{"id", "seat", "view": Table.view({seat}), "moves": the moves
of this deal and the previous one, "history": one line per ended deal,
"last_deal": the summary of the latest ended deal with its tricks}``.

Sessions: one game per browser tab (the tab keeps the id). At most
``max_games`` games are held; a game is dropped ``idle_s`` seconds after its
last request, a finished one after ``finished_s``; when the store is full a new
game replaces the least recently used finished one, else it is refused (503).
Requests for one game are served one at a time; different games in parallel
(worker threads).
"""

import dataclasses
import json
import os
import secrets
import threading
import time

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.specs import split_spec

from .match import EPISODES, VARIANTS, act, build_players, make_game
from .table import Table, seed_key

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PAGES = ("play", "watch", "leaderboard")
DEFAULT_BOT = "heuristic"
PERSON = "you"  # the person's name at the table
SUGGESTED_SPECS = ("heuristic", "random", "pimc", "ppo:agents/pretrained/ghost_ppo.pt")
NEW_GAME_FIELDS = ("variant", "seat", "bots", "seed", "episode", "rules")
ACTION_FIELDS = ("action", "step")
MAX_BODY_BYTES = 1 << 20


class ApiError(Exception):
    """A request the API refuses: HTTP ``status`` and a one-line ``message``."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


# ------------------------------------------------------------------ sessions
@dataclasses.dataclass
class PlayGame:
    """A person at ``seat`` of ``table``; the bots ``policies`` at the other seats.

    seed: the game's seed (its deals and the bots' seeds); seat_bot: int[1, S], the index in ``policies`` of the bot at each seat (-1
    at the person's); names: the bots' names.
    """

    table: Table
    seat: int
    seed: int
    policies: list
    names: list
    seat_bot: np.ndarray
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    last_used: float = 0.0

    def advance(self):
        """Let the bots move until the person is to act or the game is over."""
        table = self.table
        while not table.over and table.to_act != self.seat:
            seat = table.to_act
            obs, mask = table.observation(seat)
            try:
                action = act(self.policies, self.names, self.seat_bot, obs, mask, np.array([seat]))
            except ValueError as error:
                raise ApiError(500, str(error)) from None
            table.apply(int(action[0]))


class GameStore:
    """The play games by id: bounded in number, dropped when idle or finished (thread-safe).

    max_games: most games held; idle_s: seconds without a request after which a
    game is dropped; finished_s: the same for a finished game; clock: seconds
    (monotonic; injectable for tests).
    """

    def __init__(self, max_games=200, idle_s=1800.0, finished_s=300.0, clock=time.monotonic):
        self.max_games, self.idle_s, self.finished_s, self.clock = (
            max_games,
            idle_s,
            finished_s,
            clock,
        )
        self._games = {}
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._games)

    def _expired(self, game, now):
        limit = self.finished_s if game.table.over else self.idle_s
        return now - game.last_used > limit

    def purge(self):
        """Drop every expired game."""
        with self._lock:
            now = self.clock()
            for game_id in [i for i, g in self._games.items() if self._expired(g, now)]:
                del self._games[game_id]

    def add(self, game):
        """Hold ``game`` under a new random id and return the id (ApiError 503 when full)."""
        self.purge()
        with self._lock:
            if len(self._games) >= self.max_games:
                finished = [i for i, g in self._games.items() if g.table.over]
                if not finished:
                    raise ApiError(
                        503,
                        f"the server holds {self.max_games} games in play already; "
                        "finish or close one, or try again later",
                    )
                del self._games[min(finished, key=lambda i: self._games[i].last_used)]
            game_id = secrets.token_urlsafe(12)
            game.last_used = self.clock()
            self._games[game_id] = game
            return game_id

    def get(self, game_id):
        """The game ``game_id``, marked as used now (ApiError 404 when there is none)."""
        self.purge()
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise ApiError(
                    404,
                    f"no game {game_id!r}: it was closed, finished or idle too long, "
                    "or never existed; start a new game",
                )
            game.last_used = self.clock()
            return game

    def close(self, game_id):
        """Drop game ``game_id`` (ApiError 404 when there is none)."""
        with self._lock:
            if self._games.pop(game_id, None) is None:
                raise ApiError(404, f"no game {game_id!r} to close")


# ------------------------------------------------------------------ requests
def _check_fields(body, allowed):
    if not isinstance(body, dict):
        raise ApiError(400, f"expected a JSON object, got {type(body).__name__}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown field(s) {unknown}; expected some of {list(allowed)}")


def _int_field(body, name, default, low, high=None):
    value = body.get(name, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise ApiError(400, f"{name} must be an int {bounds}, got {value!r}")
    return value


def new_game(body):
    """A :class:`PlayGame` from the JSON body of ``POST /api/games`` (ApiError 400 if bad)."""
    _check_fields(body, NEW_GAME_FIELDS)
    variant, episode = body.get("variant", "ghost"), body.get("episode", "game")
    for name, value, choices in (("variant", variant, VARIANTS), ("episode", episode, EPISODES)):
        if value not in choices:
            raise ApiError(400, f"{name} must be one of {list(choices)}, got {value!r}")
    rules = body.get("rules") or {}
    if not isinstance(rules, dict):
        raise ApiError(400, f"rules must be an object of the engine's options, got {rules!r}")
    seed = body.get("seed")
    seed = secrets.randbelow(1 << 31) if seed is None else _int_field(body, "seed", 0, 0)
    try:
        table = Table(variant, seed_key(seed), episode, rules)
    except ValueError as error:
        raise ApiError(400, str(error)) from None
    num_players = table.game.num_players
    seat = _int_field(body, "seat", 0, 0, num_players - 1)
    specs = body.get("bots", [DEFAULT_BOT] * (num_players - 1))
    if not isinstance(specs, list) or len(specs) != num_players - 1:
        raise ApiError(
            400,
            f"bots must be a list of {num_players - 1} policy specs (one per other seat), got {specs!r}",
        )
    try:
        if any(split_spec(spec)[0] == "human" for spec in specs):
            raise ApiError(400, "bots: 'human' is the page's own seat; choose a bot spec")
        policies, names, _ = build_players(specs, table.game, seed)
    except ValueError as error:
        raise ApiError(400, str(error)) from None
    seat_bot = np.array([[-1 if s == seat else s - (s > seat) for s in range(num_players)]])
    table.names = [PERSON if s == seat else names[b] for s, b in enumerate(seat_bot[0])]
    for policy in policies:
        policy.reset(np.arange(1))
    return PlayGame(table, seat, seed, policies, names, seat_bot)


def play_response(game_id, game):
    """The JSON-ready state of a play game, as its person sees it (see the module docstring)."""
    table, seat = game.table, game.seat
    deal = table.state.deal_number[0]
    first = next((i for i, m in enumerate(table.moves) if m["deal"] >= deal - 1), len(table.moves))
    history = [
        {k: v for k, v in d.items() if k not in ("tricks_played", "ghost_taken")}
        for d in table.deals
    ]
    last_deal = None
    if table.deals:  # the cards the swapper took are no one else's business
        last_deal = table.deals[-1]
        if last_deal.get("swapper") != seat:
            last_deal = dict(last_deal, ghost_taken=None)
    return {
        "id": game_id,
        "seat": seat,
        "seed": game.seed,
        "view": table.view({seat}),
        "moves": table.moves_seen({seat}, first),
        "history": history,
        "last_deal": last_deal,
    }


def play_move(game, body):
    """Apply the person's move from the JSON body of ``POST .../actions`` and let the bots answer."""
    _check_fields(body, ACTION_FIELDS)
    action = body.get("action")
    if isinstance(action, bool) or not isinstance(action, int):
        raise ApiError(400, f"action must be an int action id, got {action!r}")
    table = game.table
    if table.over:
        raise ApiError(409, "the game is over; start a new game")
    if "step" in body and body["step"] != len(table.moves):
        raise ApiError(
            409,
            f"stale move: it was chosen at step {body['step']!r}, the game is at step "
            f"{len(table.moves)} (another tab or a double click?); reload the game",
        )
    if table.to_act != game.seat:  # only after a bot failed part-way
        raise ApiError(409, f"it is seat {table.to_act}'s turn, not yours")
    try:
        table.apply(action)
    except (TypeError, ValueError) as error:
        raise ApiError(422, str(error)) from None
    game.advance()


def game_record(game):
    """What reproduces a play game: variant, episode, rules, seed, players and actions."""
    table = game.table
    return {
        "variant": table.variant,
        "episode": table.game.episode,
        "rules": dataclasses.asdict(table.game.rules),
        "seed": game.seed,
        "players": table.names,
        "actions": [m["action"] for m in table.moves],
        "over": table.over,
        "scores": table.view()["scores"],
    }


# ---------------------------------------------------------------------- app
async def _json_body(request):
    raw = await request.body()
    try:
        return json.loads(raw) if raw else {}
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ApiError(400, f"request body is not valid JSON: {error}") from None


def create_app(db=None, store=None):
    """The Starlette app. db: the league's SQLite file (leaderboard and stored
    games; None: none); store: the :class:`GameStore` of play games (default: a
    new one with the default limits).
    """
    store = GameStore() if store is None else store

    def with_game(game_id, work):
        game = store.get(game_id)
        with game.lock:
            result = work(game)
            game.last_used = store.clock()
            return result

    async def page(request):
        name = request.path_params["page"]
        if name not in PAGES:
            raise ApiError(404, f"no page {name!r}; the pages are {list(PAGES)}")
        return FileResponse(os.path.join(STATIC, f"{name}.html"))

    async def home(request):
        return RedirectResponse("/play")

    async def options(request):
        return JSONResponse(
            {
                "variants": {v: make_game(v).num_players for v in VARIANTS},
                "episodes": list(EPISODES),
                "default_bot": DEFAULT_BOT,
                "specs": [
                    s for s in SUGGESTED_SPECS if not s.startswith("ppo:") or os.path.isfile(s[4:])
                ],
            }
        )

    async def create_game(request):
        body = await _json_body(request)

        def work():
            game = new_game(body)
            with game.lock:
                game.advance()
            game_id = store.add(game)
            return play_response(game_id, game)

        return JSONResponse(await run_in_threadpool(work), status_code=201)

    async def show_game(request):
        game_id = request.path_params["game_id"]
        return JSONResponse(
            await run_in_threadpool(with_game, game_id, lambda g: play_response(game_id, g))
        )

    async def act(request):
        game_id = request.path_params["game_id"]
        body = await _json_body(request)

        def work(game):
            play_move(game, body)
            return play_response(game_id, game)

        return JSONResponse(await run_in_threadpool(with_game, game_id, work))

    async def record(request):
        game_id = request.path_params["game_id"]
        return JSONResponse(await run_in_threadpool(with_game, game_id, game_record))

    async def close_game(request):
        store.close(request.path_params["game_id"])
        return JSONResponse({"closed": request.path_params["game_id"]})

    async def api_error(request, error):
        return JSONResponse({"error": error.message}, status_code=error.status)

    async def http_error(request, error):
        return JSONResponse({"error": error.detail}, status_code=error.status_code)

    routes = [
        Route("/", home),
        Route("/api/options", options),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", show_game, methods=["GET"]),
        Route("/api/games/{game_id}", close_game, methods=["DELETE"]),
        Route("/api/games/{game_id}/actions", act, methods=["POST"]),
        Route("/api/games/{game_id}/record", record),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{page}", page),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: api_error, HTTPException: http_error},
        max_body_size=MAX_BODY_BYTES,
    )
    app.state.store = store
    app.state.db = db
    return app


def serve(db=None, host="127.0.0.1", port=8000):
    """Run the page at http://host:port/ until Ctrl-C (uvicorn)."""
    import uvicorn

    print(f"Ghost Hand Euchre page: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(create_app(db), host=host, port=port, log_level="warning")
