"""The local web page: play against the bots, watch recorded games, see the leaderboard.

``ghost-euchre-evaluate serve [--db FILE] [--port 8000] [--host 127.0.0.1]
[--policy-dir DIR ...] [--allow-spec SPEC ...] [--public] [--behind-proxy ADDR]``
runs :func:`serve`.
The page (``ghost_euchre/arena/web/static/``: plain HTML, CSS and JavaScript, no build step) is
a thin client of the JSON API; the server holds no rules: every game is
a :class:`ghost_euchre.arena.web.table.Table` over the engine, and bots are policies built from
spec strings by ``ghost_euchre.agents.make_policy``, only those :class:`ghost_euchre.arena.web.gate.SpecGate`
allows. What a request must be before a route runs (same origin, JSON bodies,
bounded sizes) is :mod:`ghost_euchre.arena.web.guard`.

The JSON API (every route, its body and its answer) is documented on the site's
Web page, ``docs/web.md`` ("The JSON API"); the limits enforced before a route runs
are its Security section. In short: ``GET /api/options``; ``POST /api/games``, ``GET``,
``DELETE /api/games/{id}``, ``POST /api/games/{id}/actions``, ``GET
/api/games/{id}/record``; ``POST /api/replays``; ``GET /api/store``,
``/api/store/matches/{m}/games``, ``.../games/{k}/replay``; ``GET /api/leaderboard``,
``/api/leaderboard/plot.png``; ``GET /api/cards``. Every error is ``{"error": "one
line"}`` with a 4xx status (503 when the server is full) and changes nothing.
"""

import io
import logging
import os
import socket

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ghost_euchre_env import variants

from ..match import EPISODES, VARIANTS, make_game
from ..report import leaderboard_figure, ranking_cells, share_cell
from ..store import DEFAULT_DB
from .games import (
    DEFAULT_BOT,
    MAX_RECORD_ACTIONS,
    GameStore,
    ReplayPages,
    game_record,
    new_game,
    play_move,
    play_response,
    replay_upload,
)
from .gate import PRETRAINED_DIR, SpecGate
from .guard import (
    LOOPBACK_NAMES,
    ApiError,
    LogOnce,
    SameOrigin,
    error_response,
    is_loopback,
    listen,
    read_json,
    serve_config,
    trusted_proxies,
    until_gone,
)
from .league import LeagueReader, league_board, match_records, stored_matches

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PAGES = ("play", "watch", "leaderboard")
MAX_ID = 2**63 - 1  # a stored match's or game's number (SQLite's integers)
MAX_CARDS = 200  # benchmark cards in one answer of /api/cards (a card is a few KB)
GAME_THREADS = 8  # worker threads playing bots at once (the others stay free for the rest)


def create_app(
    db: str | None = DEFAULT_DB,
    games=None,
    gate=None,
    hosts=LOOPBACK_NAMES,
    any_ip=False,
):
    """The Starlette app. db: the league's SQLite file (leaderboard and stored
    games; read, never created; None: none); games: the :class:`GameStore` of
    play games (default: a new one with the default limits); gate: the
    :class:`ghost_euchre.arena.web.gate.SpecGate` of the bots offered (default: the built-in
    bots and the shipped policy files); hosts, any_ip: the ``Host`` names served
    (see :class:`ghost_euchre.arena.web.guard.SameOrigin`).
    """
    games = GameStore() if games is None else games
    gate = SpecGate() if gate is None else gate
    league_store = LeagueReader(db)
    bot_threads = anyio.CapacityLimiter(GAME_THREADS)
    replays = ReplayPages()

    def with_game(game_id, work, stop):
        game = games.get(game_id)
        with game.lock:
            result = work(game, stop)
            game.last_used = games.clock()
            return result

    async def page(request):
        name = request.path_params["page"]
        if name not in PAGES:
            raise ApiError(404, f"no page {name[:40]!r}; the pages are {list(PAGES)}")
        return FileResponse(os.path.join(STATIC, f"{name}.html"))

    async def home(request):
        return RedirectResponse("/play")

    async def options(request):
        specs = await run_in_threadpool(gate.offered)
        return JSONResponse(
            {
                "variants": {v: make_game(v).num_players for v in VARIANTS},
                "titles": {v: variants.make(v).title for v in VARIANTS},
                "episodes": list(EPISODES),
                "default_bot": DEFAULT_BOT,
                "specs": specs,
            }
        )

    def client_of(request):
        return request.client.host if request.client else ""

    async def create_game(request):
        body = await read_json(request)
        client = client_of(request)
        games.check_room(client)

        def work(stop):
            game = new_game(body, gate, client)
            with game.lock:
                game.advance(stop)
            if stop.is_set():  # the client left: nobody has the game's id
                raise ApiError(400, "the client disconnected")
            game_id = games.add(game)
            return play_response(game_id, game)

        return JSONResponse(await until_gone(request, work, bot_threads), status_code=201)

    async def show_game(request):
        game_id = request.path_params["game_id"]

        def work(game, stop):
            game.advance(stop)  # the bots' moves of a request whose client left
            return play_response(game_id, game)

        return JSONResponse(
            await until_gone(request, lambda stop: with_game(game_id, work, stop), bot_threads)
        )

    async def move(request):
        game_id = request.path_params["game_id"]
        body = await read_json(request)

        def work(game, stop):
            play_move(game, body, stop)
            return play_response(game_id, game)

        return JSONResponse(
            await until_gone(request, lambda stop: with_game(game_id, work, stop), bot_threads)
        )

    async def record(request):
        game_id = request.path_params["game_id"]
        return JSONResponse(
            await run_in_threadpool(with_game, game_id, lambda g, _: game_record(g), None)
        )

    async def replay_file(request):
        body = await read_json(request)
        return JSONResponse(await run_in_threadpool(replay_upload, body, replays))

    async def store_info(request):
        if not league_store.exists():
            return JSONResponse({"db": db, "matches": []})
        matches = await league_store.read(stored_matches, key="matches")
        return JSONResponse({"db": db, "matches": matches})

    async def store_games(request):
        match_id = _path_int(request, "match_id")

        def work(store):
            return [
                {
                    "game": k,
                    "names": r.names,
                    "final_scores": r.final_scores,
                    "moves": len(r.actions),
                }
                for k, r in enumerate(match_records(store, match_id))
            ]

        return JSONResponse(await league_store.read(work, key=("games", match_id)))

    async def store_replay(request):
        match_id, number = _path_int(request, "match_id"), _path_int(request, "game")
        first = _query_int(request, "first", MAX_RECORD_ACTIONS)
        (game,) = await league_store.read(lambda store: match_records(store, match_id, [number]))
        return JSONResponse(await run_in_threadpool(replays.page, game, first))

    def league_data(number):
        def work(store):
            groups, board = league_board(store, number)
            return {
                "db": db,
                "groups": groups,
                "group": number,
                "board": board.to_dict(),
                "text": {
                    "players": [ranking_cells(p) for p in board.players],
                    "head_to_head": [list(map(share_cell, row)) for row in board.head_to_head],
                },
                "matches": stored_matches(store),
                "_board": board,
            }

        return league_store.read(work, key=("league", number))

    async def cards(request):
        """The stored benchmark cards (newest first, at most MAX_CARDS), optionally of ?variant=."""
        variant = request.query_params.get("variant") or None
        if variant is not None and variant not in VARIANTS:
            raise ApiError(400, f"variant must be one of {', '.join(VARIANTS)}")
        if not league_store.exists():
            return JSONResponse({"db": db, "cards": []})
        found = await league_store.read(
            lambda store: [c["card"] for c in store.cards(variant, limit=MAX_CARDS)],
            key=("cards", variant),
        )
        return JSONResponse({"db": db, "cards": found})

    async def league(request):
        data = await league_data(_query_int(request, "group", 1 << 20))
        return JSONResponse({k: v for k, v in data.items() if k != "_board"})

    async def league_plot(request):
        number = _query_int(request, "group", 1 << 20)
        board = (await league_data(number))["_board"]

        def draw(store):
            figure = leaderboard_figure(board)
            png = io.BytesIO()
            figure.savefig(png, format="png", dpi=90)
            return png.getvalue()

        return Response(await league_store.read(draw, key=("plot", number)), media_type="image/png")

    async def close_game(request):
        games.close(request.path_params["game_id"])
        return JSONResponse({"closed": request.path_params["game_id"]})

    async def api_error(request, error):
        return error_response(error.status, error.message)

    async def http_error(request, error):
        return error_response(error.status_code, error.detail)

    async def gone(request, error):
        return error_response(400, "the client disconnected")

    async def server_error(request, error):
        return error_response(500, f"internal error ({type(error).__name__}); see the server log")

    routes = [
        Route("/", home),
        Route("/api/options", options),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", show_game, methods=["GET"]),
        Route("/api/games/{game_id}", close_game, methods=["DELETE"]),
        Route("/api/games/{game_id}/actions", move, methods=["POST"]),
        Route("/api/games/{game_id}/record", record),
        Route("/api/replays", replay_file, methods=["POST"]),
        Route("/api/store", store_info),
        Route("/api/store/matches/{match_id}/games", store_games),
        Route("/api/store/matches/{match_id}/games/{game}/replay", store_replay),
        Route("/api/leaderboard", league),
        Route("/api/cards", cards),
        Route("/api/leaderboard/plot.png", league_plot),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{page}", page),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            ClientDisconnect: gone,
            Exception: server_error,
        },
        middleware=[
            Middleware(SameOrigin, hosts=hosts, any_ip=any_ip),
            Middleware(GZipMiddleware, minimum_size=2048),
        ],
    )
    app.state.games = games
    app.state.db = db
    app.state.gate = gate
    app.state.bot_threads = bot_threads
    return app


def _query_int(request, name, high):
    """The query's ``name`` (default 0) as an int 0..high (ASCII digits); ApiError 400 otherwise."""
    return _digits(request.query_params.get(name, "0"), name, high)


def _path_int(request, name):
    """The path's ``name`` (a stored id) as an int 0..MAX_ID (ASCII digits); ApiError 400 otherwise."""
    return _digits(request.path_params[name], name, MAX_ID)


def _digits(text, name, high):
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)) or int(text) > high:
        raise ApiError(400, f"{name} must be an int 0..{high} (ASCII digits), got {text[:40]!r}")
    return int(text)


# -------------------------------------------------------------------- serve
def serve(
    db: str | None = DEFAULT_DB,
    host="127.0.0.1",
    port=8000,
    policy_dirs=None,
    allow_specs=(),
    public=False,
    behind_proxy=None,
    trust_every_proxy=False,
):
    """Run the page at http://host:port/ until Ctrl-C (uvicorn).

    policy_dirs: the directories of the policy files offered (None: the shipped
    ``agents/pretrained/``); allow_specs: specs the operator allows as written;
    public: serve a non-loopback address (then only the built-in bots and the
    shipped policy files are offered); behind_proxy: the addresses or networks of the
    reverse proxy in front of the page (comma-separated), whose ``X-Forwarded-For`` is
    then believed (None: the header is ignored; each client is its socket's address);
    trust_every_proxy: believe it from every peer (:func:`ghost_euchre.arena.web.guard.trusted_proxies`). Raises ValueError
    (one line) for a bad combination, OSError when the address cannot be listened on.
    """
    import uvicorn

    proxy = trusted_proxies(behind_proxy, trust_every_proxy)  # before anything starts
    loopback = is_loopback(host)
    if not loopback and not public:
        raise ValueError(
            f"--host {host} is reachable from other machines and the page has no login; "
            "add --public to serve it anyway (only the built-in bots are then offered)"
        )
    if public and (policy_dirs or allow_specs):
        raise ValueError(
            "--public offers the built-in bots only: drop --policy-dir and --allow-spec"
        )
    gate = SpecGate(policy_dirs or (PRETRAINED_DIR,), allow_specs)
    hosts = {*LOOPBACK_NAMES, host.lower()}
    if public:
        hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    wildcard = host in ("0.0.0.0", "::")
    app = create_app(db, gate=gate, hosts=hosts, any_ip=wildcard)
    sock = listen(host, port)
    port = sock.getsockname()[1]  # port 0: the one the system chose
    shown = f"[{host}]" if ":" in host else host
    if public:
        print(
            f"WARNING: serving {host}:{port} to other machines: anyone who reaches it can play "
            "and read the league store (no login)",
            flush=True,
        )
    print(f"Ghost Hand Euchre page: http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    logging.getLogger("asyncio").addFilter(LogOnce())  # out of descriptors: said once
    uvicorn.Server(serve_config(app, proxy=proxy)).run(sockets=[sock])
