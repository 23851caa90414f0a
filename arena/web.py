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
- ``GET /api/games/{id}/record``: a finished game as a game records file
  (``ghost_euchre_env.records``, one game).
- ``DELETE /api/games/{id}``: close the game.
- ``POST /api/replays`` ``{"records": a records file, "game": 0}``: the replay of
  one game of a records file (below).
- ``GET /api/store``: the league store's matches (``{"db", "matches": []}`` when
  there is no store); ``GET /api/store/matches/{m}/games``: its games;
  ``GET /api/store/matches/{m}/games/{k}/replay``: the replay of one.
- ``GET /api/leaderboard?group=k``: ``{"groups": [variant, episode, rules of
  each league in the store], "board": arena.league.Leaderboard.to_dict(),
  "matches"}``; ``GET /api/leaderboard/plot.png?group=k``: its plot.

Play response: ``{"id", "seat", "view": Table.view({seat}), "moves": the moves
of this deal and the previous one, "history": one line per ended deal,
"last_deal": the summary of the latest ended deal with its tricks}``.

Replay: ``Table.replay``'s ``{"variant", "episode", "rules", "names", "frames":
[every position, all hands shown], "moves", "deals", "final_scores"}``, after
``ghost_euchre_env.records.check_records`` accepted the record (else 422).

Sessions: one game per browser tab (the tab keeps the id). At most
``max_games`` games are held; a game is dropped ``idle_s`` seconds after its
last request, a finished one after ``finished_s``; when the store is full a new
game replaces the least recently used finished one, else it is refused (503).
Requests for one game are served one at a time; different games in parallel
(worker threads).
"""

import dataclasses
import io
import json
import os
import secrets
import threading
import time

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.pretrained import NETWORKS
from agents.specs import split_spec
from ghost_euchre_env.records import (
    GameRecord,
    RecordError,
    check_records,
    records_from_dict,
    records_to_dict,
)

from .league import leaderboard
from .match import EPISODES, VARIANTS, act, build_players, make_game
from .report import leaderboard_figure
from .store import DEFAULT_DB, Store
from .table import Table, seed_key

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PAGES = ("play", "watch", "leaderboard")
DEFAULT_BOT = "heuristic"
PERSON = "you"  # the person's name at the table
SUGGESTED_SPECS = ("heuristic", "random", "pimc", *(f"ppo:{name}" for name in NETWORKS))
NEW_GAME_FIELDS = ("variant", "seat", "bots", "seed", "episode", "rules")
ACTION_FIELDS = ("action", "step")
REPLAY_FIELDS = ("records", "game")
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
    """A finished play game as a game records file of one game (``ghost_euchre_env.records``)."""
    table = game.table
    if not table.over:
        raise ApiError(409, "the game is not over: its record is made when it ends")
    record = GameRecord(
        variant=table.variant,
        episode=table.game.episode,
        rules=dataclasses.asdict(table.game.rules),
        key=table.key,
        actions=bytes(m["action"] for m in table.moves),
        names=tuple(table.names),
        final_scores=tuple(int(x) for x in table.state.scores[0]),
    )
    return records_to_dict([record])


def replay_record(record):
    """Every position of a checked game record, all hands shown (see :meth:`Table.replay`)."""
    try:
        check_records([record])
        table = Table(record.variant, record.key, record.episode, record.rules, record.names)
    except ValueError as error:  # RecordError included
        raise ApiError(422, str(error)) from None
    return dict(table.replay(record.actions), final_scores=list(record.final_scores))


def replay_upload(body):
    """The replay of game ``body["game"]`` of the records file ``body["records"]``."""
    _check_fields(body, REPLAY_FIELDS)
    try:
        records = records_from_dict(body.get("records"))
    except RecordError as error:
        raise ApiError(422, str(error)) from None
    number = _int_field(body, "game", 0, 0, len(records) - 1)
    return replay_record(records[number])


# ------------------------------------------------------------ league store
def open_store(db):
    """The league store ``db`` (ApiError 404 when there is no such file: nothing is created)."""
    if db is None or not os.path.isfile(db):
        raise ApiError(
            404,
            f"no league store at {db!r}: play a league first "
            f"(python evaluate.py --league SPEC SPEC SPEC ... --db FILE), then serve --db FILE",
        )
    try:
        return Store(db)
    except ValueError as error:
        raise ApiError(500, str(error)) from None


def stored_matches(store):
    """Every stored match: {"id", "variant", "episode", "rules", "seed", "games", "created", "players"}."""
    keep = ("id", "variant", "episode", "rules", "seed", "games", "created")
    return [
        dict(
            {k: m[k] for k in keep},
            players=[p["name"] for p in store.match_summary(m["id"])["players"]],
        )
        for m in store.matches()
    ]


def _match_records(store, match_id, games=None):
    try:
        return store.game_records(match_id, games)
    except ValueError as error:
        raise ApiError(404, str(error)) from None


def league_groups(store):
    """The distinct (variant, episode, rules) of the stored matches, each a leaderboard."""
    groups = []
    for m in store.matches():
        group = {"variant": m["variant"], "episode": m["episode"], "rules": m["rules"]}
        if group not in groups:
            groups.append(group)
    return groups


def league_board(store, number):
    """(the groups, the :class:`arena.league.Leaderboard` of group ``number``)."""
    groups = league_groups(store)
    if not groups:
        raise ApiError(404, f"the league store {store.path!r} holds no match yet")
    if not 0 <= number < len(groups):
        raise ApiError(400, f"group must be an int 0..{len(groups) - 1}, got {number!r}")
    return groups, leaderboard(store, **groups[number])


# ---------------------------------------------------------------------- app
async def _json_body(request):
    raw = await request.body()
    try:
        return json.loads(raw) if raw else {}
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ApiError(400, f"request body is not valid JSON: {error}") from None


def create_app(db: str | None = DEFAULT_DB, games=None):
    """The Starlette app. db: the league's SQLite file (leaderboard and stored
    games; read, never created; None: none); games: the :class:`GameStore` of
    play games (default: a new one with the default limits).
    """
    games = GameStore() if games is None else games

    def with_game(game_id, work):
        game = games.get(game_id)
        with game.lock:
            result = work(game)
            game.last_used = games.clock()
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
                "specs": list(SUGGESTED_SPECS),
            }
        )

    async def create_game(request):
        body = await _json_body(request)

        def work():
            game = new_game(body)
            with game.lock:
                game.advance()
            game_id = games.add(game)
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

    async def replay_file(request):
        body = await _json_body(request)
        return JSONResponse(await run_in_threadpool(replay_upload, body))

    def with_store(work):
        with open_store(db) as store:
            return work(store)

    async def store_info(request):
        def work():
            if db is None or not os.path.isfile(db):
                return {"db": db, "matches": []}
            return with_store(lambda store: {"db": db, "matches": stored_matches(store)})

        return JSONResponse(await run_in_threadpool(work))

    async def store_games(request):
        match_id = request.path_params["match_id"]

        def work(store):
            return [
                {
                    "game": k,
                    "names": r.names,
                    "final_scores": r.final_scores,
                    "moves": len(r.actions),
                }
                for k, r in enumerate(_match_records(store, match_id))
            ]

        return JSONResponse(await run_in_threadpool(with_store, work))

    async def store_replay(request):
        match_id, number = request.path_params["match_id"], request.path_params["game"]

        def work(store):
            return replay_record(_match_records(store, match_id, [number])[0])

        return JSONResponse(await run_in_threadpool(with_store, work))

    def _group(request):
        try:
            return int(request.query_params.get("group", "0"))
        except ValueError:
            raise ApiError(
                400, f"group must be an int, got {request.query_params['group']!r}"
            ) from None

    async def league(request):
        number = _group(request)

        def work(store):
            groups, board = league_board(store, number)
            return {
                "db": db,
                "groups": groups,
                "group": number,
                "board": board.to_dict(),
                "matches": stored_matches(store),
            }

        return JSONResponse(await run_in_threadpool(with_store, work))

    async def league_plot(request):
        number = _group(request)

        def work(store):
            figure = leaderboard_figure(league_board(store, number)[1])
            png = io.BytesIO()
            figure.savefig(png, format="png", dpi=90)
            return png.getvalue()

        return Response(await run_in_threadpool(with_store, work), media_type="image/png")

    async def close_game(request):
        games.close(request.path_params["game_id"])
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
        Route("/api/replays", replay_file, methods=["POST"]),
        Route("/api/store", store_info),
        Route("/api/store/matches/{match_id:int}/games", store_games),
        Route("/api/store/matches/{match_id:int}/games/{game:int}/replay", store_replay),
        Route("/api/leaderboard", league),
        Route("/api/leaderboard/plot.png", league_plot),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{page}", page),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: api_error, HTTPException: http_error},
        middleware=[Middleware(GZipMiddleware, minimum_size=2048)],
        max_body_size=MAX_BODY_BYTES,
    )
    app.state.games = games
    app.state.db = db
    return app


def serve(db: str | None = DEFAULT_DB, host="127.0.0.1", port=8000):
    """Run the page at http://host:port/ until Ctrl-C (uvicorn)."""
    import uvicorn

    print(f"Ghost Hand Euchre page: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(create_app(db), host=host, port=port, log_level="warning")
