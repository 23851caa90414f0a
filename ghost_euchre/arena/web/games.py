"""The web page's games and replays: a person's game against bots (sessions, moves, records) and
pages of a checked record's replay, as the routes of :mod:`ghost_euchre.arena.web.app` serve them.

Every value a request brings is checked here first (fields, seeds, rules, bots
through the :class:`ghost_euchre.arena.web.gate.SpecGate`); see :mod:`ghost_euchre.arena.web.app` for the
JSON API and its bounds.
"""

import collections
import copy
import dataclasses
import hashlib
import secrets
import threading
import time

import numpy as np

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.agents.specs import checked_files
from ghost_euchre_env.records import (
    GameRecord,
    RecordError,
    check_records,
    records_from_dict,
    records_to_dict,
)

from ..match import EPISODES, VARIANTS, act, build_players, player_names
from .guard import (
    ApiError,
)
from .table import Table, seed_key

DEFAULT_BOT = "heuristic"
PERSON = "you"  # the person's name at the table
NEW_GAME_FIELDS = ("variant", "seat", "bots", "seed", "episode", "rules")
ACTION_FIELDS = ("action", "step")
REPLAY_FIELDS = ("records", "game", "first")
SEED_BITS = 63  # a seed the server picks: secrets.randbits (a guessed seed tells every hand)
MAX_SEED = 2**63 - 1
MAX_RULE_INT = 1000  # every int rules option (scores stay far from int32's end)
MAX_DEALS = 200  # max_deals: a game's length (the engine's default)
MAX_RULES = 16
MAX_RULE_TEXT = 32
MAX_RECORD_ACTIONS = 8000  # above any game of MAX_DEALS deals
MAX_NAME_CHARS = 200  # a player's name in a record (a spec is at most 200 characters)
REPLAY_PAGE = 200  # positions per replay response (about 4 kB each before gzip)
MAX_REPLAYS = 8  # checked records whose replays are kept to page through (a few MB each at most)


# ------------------------------------------------------------------ sessions
@dataclasses.dataclass
class PlayGame:
    """A person at ``seat`` of ``table``; the bots ``policies`` at the other seats.

    seed: the game's seed (its deals and the bots' seeds); seat_bot: int[1, S],
    the index in ``policies`` of the bot at each seat (-1 at the person's);
    names: the bots' names; client: the address of the client that started it.
    """

    table: Table
    seat: int
    seed: int
    policies: list
    names: list
    seat_bot: np.ndarray
    client: str = ""
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    last_used: float = 0.0

    def advance(self, stop=None):
        """Let the bots move until the person is to act, the game is over or ``stop`` is set.

        stop: a threading.Event (None: never), read before each bot decision.
        """
        table = self.table
        while not table.over and table.to_act != self.seat:
            if stop is not None and stop.is_set():
                return
            seat = table.to_act
            obs, mask = table.observation(seat)
            try:
                action = act(self.policies, self.names, self.seat_bot, obs, mask, np.array([seat]))
            except (
                ValueError,
                PolicyRaised,
            ) as error:  # a bot's bad action or its own error, named
                raise ApiError(500, str(error)) from None
            table.apply(int(action[0]))


class GameStore:
    """The play games by id: bounded in number, dropped when idle or finished (thread-safe).

    max_games: most games held; per_client: most games in play (not over) held
    for one client address, fewer than max_games (the rest stay for the others: a
    client at its cap leaves max_games - per_client); idle_s: seconds without a request after which a
    game is dropped; finished_s: the same for a finished game; clock: seconds
    (monotonic; injectable for tests).
    """

    def __init__(
        self, max_games=200, per_client=64, idle_s=1800.0, finished_s=300.0, clock=time.monotonic
    ):
        if not 0 < per_client < max_games:
            raise ValueError(
                f"per_client must be 1..{max_games - 1} (fewer than max_games={max_games}: no one "
                f"client holds every game), got {per_client}"
            )
        self.max_games, self.per_client = max_games, per_client
        self.idle_s, self.finished_s, self.clock = idle_s, finished_s, clock
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

    def _room(self, client):
        """The id of the finished game to drop for a new one of ``client`` (None: none needed);
        ApiError 503 when there is no room. Call with the lock held."""
        in_play = sum(g.client == client and not g.table.over for g in self._games.values())
        if in_play >= self.per_client:
            raise ApiError(
                503,
                f"this client has {in_play} games in play on the server already (at most "
                f"{self.per_client}); finish or close one",
            )
        if len(self._games) < self.max_games:
            return None
        finished = [i for i, g in self._games.items() if g.table.over]
        if not finished:
            raise ApiError(
                503,
                f"the server holds {self.max_games} games in play already; "
                "finish or close one, or try again later",
            )
        return min(finished, key=lambda i: self._games[i].last_used)

    def check_room(self, client):
        """ApiError 503 unless a new game of ``client`` would be held (before building it)."""
        self.purge()
        with self._lock:
            self._room(client)

    def add(self, game):
        """Hold ``game`` under a new random id and return the id (ApiError 503 when full)."""
        self.purge()
        with self._lock:
            drop = self._room(game.client)
            if drop is not None:
                del self._games[drop]
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
                    f"no game {game_id[:40]!r}: it was closed, finished or idle too long, "
                    "or never existed; start a new game",
                )
            game.last_used = self.clock()
            return game

    def close(self, game_id):
        """Drop game ``game_id`` (ApiError 404 when there is none)."""
        with self._lock:
            if self._games.pop(game_id, None) is None:
                raise ApiError(404, f"no game {game_id[:40]!r} to close")


# ------------------------------------------------------------------ requests
def _check_fields(body, allowed):
    if not isinstance(body, dict):
        raise ApiError(400, f"expected a JSON object, got {type(body).__name__}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown field(s) {unknown}; expected some of {list(allowed)}")


def _int_field(body, name, default, low, high):
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, f"{name} must be an int {low}..{high}, got {value!r}")
    return value


def _seed_field(body):
    """The seed of a new game's body: an int 0..MAX_SEED, or a string of its ASCII digits (the
    page sends one: JavaScript's numbers hold 53 bits); ApiError 400 otherwise."""
    seed = body["seed"]
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ApiError(
            400,
            f"seed must be an int 0..{MAX_SEED} (or its digits as a string), got {str(seed)[:40]!r}",
        )
    return seed


def check_rules(rules):
    """``rules`` (a dict of the engine's options, or None) within the page's bounds; ValueError if not.

    Each value is a bool, a string of at most MAX_RULE_TEXT characters or an int
    0..MAX_RULE_INT (``max_deals``: 1..MAX_DEALS); the engine checks the rest.
    """
    rules = {} if rules is None else rules
    if not isinstance(rules, dict) or len(rules) > MAX_RULES:
        raise ValueError(f"rules must be an object of at most {MAX_RULES} engine options")
    for key, value in rules.items():
        high = MAX_DEALS if key == "max_deals" else MAX_RULE_INT
        if isinstance(value, bool) or (isinstance(value, str) and len(value) <= MAX_RULE_TEXT):
            continue
        if not isinstance(value, int) or not 0 <= value <= high:
            raise ValueError(
                f"rules: {str(key)[:40]!r} must be an int 0..{high}, a bool or a short string "
                f"on this page, got {str(value)[:40]!r}"
            )
    return rules


def new_game(body, gate, client=""):
    """A :class:`PlayGame` from the JSON body of ``POST /api/games`` (ApiError 400 if bad).

    gate: the :class:`ghost_euchre.arena.web.gate.SpecGate` every bot spec must pass first.
    """
    _check_fields(body, NEW_GAME_FIELDS)
    variant, episode = body.get("variant", "ghost"), body.get("episode", "game")
    for name, value, choices in (("variant", variant, VARIANTS), ("episode", episode, EPISODES)):
        if value not in choices:
            raise ApiError(400, f"{name} must be one of {list(choices)}, got {value!r}")
    try:
        rules = check_rules(body.get("rules"))
    except ValueError as error:
        raise ApiError(400, str(error)) from None
    seed = body.get("seed")
    seed = secrets.randbits(SEED_BITS) if seed is None else _seed_field(body)
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
            f"bots must be a list of {num_players - 1} policy specs (one per other seat), "
            f"got {str(specs)[:80]}",
        )
    files = {}  # the policy files the specs name, read once and checked by the gate
    built = [_checked_bot(gate, k, spec, files) for k, spec in enumerate(specs)]
    try:
        with checked_files(files):
            policies, _, _ = build_players(built, table.game, seed)
    except ValueError as error:  # e.g. a policy file of the other variant
        raise ApiError(400, f"bots: {gate.hide_paths(str(error))}") from None
    names = player_names([spec.strip() for spec in specs])
    seat_bot = np.array([[-1 if s == seat else s - (s > seat) for s in range(num_players)]])
    table.names = [PERSON if s == seat else names[b] for s, b in enumerate(seat_bot[0])]
    for policy in policies:
        policy.reset(np.arange(1))
    return PlayGame(table, seat, seed, policies, names, seat_bot, client)


def _checked_bot(gate, k, spec, files):
    try:
        return gate.check(spec, files)
    except ValueError as error:
        raise ApiError(400, f"bots[{k}]: {gate.hide_paths(str(error))}") from None


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
    response = {
        "id": game_id,
        "seat": seat,
        "view": table.view({seat}),
        "moves": table.moves_seen({seat}, first),
        "history": history,
        "last_deal": last_deal,
    }
    if table.over:  # the seed deals every hand: told only when nothing is hidden any more
        response["seed"] = str(game.seed)  # a string: JavaScript's numbers hold 53 bits
    return response


def play_move(game, body, stop=None):
    """Apply the person's move from the JSON body of ``POST .../actions`` and let the bots answer."""
    _check_fields(body, ACTION_FIELDS)
    action = body.get("action")
    if isinstance(action, bool) or not isinstance(action, int):
        raise ApiError(400, f"action must be an int action id, got {str(action)[:40]!r}")
    table = game.table
    if table.over:
        raise ApiError(409, "the game is over; start a new game")
    game.advance(stop)  # the bots' moves of a request whose client left before they were made
    if "step" in body and body["step"] != len(table.moves):
        raise ApiError(
            409,
            f"stale move: it was chosen at step {str(body['step'])[:20]}, the game is at step "
            f"{len(table.moves)} (another tab or a double click?); reload the game",
        )
    if table.to_act != game.seat:
        raise ApiError(409, f"it is seat {table.to_act}'s turn, not yours; reload the game")
    try:
        table.apply(action)
    except (TypeError, ValueError) as error:
        raise ApiError(422, str(error)) from None
    game.advance(stop)


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


def checked_record(record):
    """A :class:`Table` at the start of ``record``, once checked; ApiError 413 or 422 unless
    ``record`` is one this page replays: at most
    MAX_RECORD_ACTIONS moves, the page's rules bounds, short names, and
    ``check_records`` replays it to its final scores."""
    if len(record.actions) > MAX_RECORD_ACTIONS:
        raise ApiError(
            413,
            f"the record has {len(record.actions)} moves; this page replays games of at most "
            f"{MAX_RECORD_ACTIONS}",
        )
    try:
        check_rules(record.rules)
        if any(len(str(name)) > MAX_NAME_CHARS for name in record.names):
            raise ValueError(f"a player's name is longer than {MAX_NAME_CHARS} characters")
        check_records([record])
        return Table(record.variant, record.key, record.episode, record.rules, record.names)
    except ValueError as error:  # RecordError included
        raise ApiError(422, str(error)) from None


@dataclasses.dataclass
class _Replayed:
    """A checked record played once: its whole game's moves and deal summaries, the
    table before every REPLAY_PAGE-th move (``marks[k]``: before move k * REPLAY_PAGE), and
    the solver's answer at each position a page has shown (``solved``: {position:
    :meth:`Table.solved`}, filled as pages are asked for: a page solves each card decision once)."""

    moves: list
    deals: list
    marks: list
    solved: dict = dataclasses.field(default_factory=dict)


def _mark(table):
    """A copy of ``table`` to go on from: its own state and tricks; its moves and deals kept as
    counts (the played game's lists hold them)."""
    mark = copy.copy(table)
    mark.state, mark.tricks = copy.deepcopy(table.state), list(table.tricks)
    mark.shows = copy.deepcopy(table.shows)  # what the deal showed so far (the ghost hand taken)
    mark.moves, mark.deals = len(table.moves), len(table.deals)
    return mark


def _resume(mark, replayed):
    """A table to play on from ``mark`` (:func:`_mark`), with the moves and deals before it."""
    table = copy.copy(mark)
    table.state, table.tricks = copy.deepcopy(mark.state), list(mark.tricks)
    table.shows = copy.deepcopy(mark.shows)  # a page played on never changes the mark
    table.moves, table.deals = replayed.moves[: mark.moves], replayed.deals[: mark.deals]
    return table


class ReplayPages:
    """Pages of the replays of game records, each record checked and played once (thread-safe).

    The replays of the last MAX_REPLAYS records asked for are kept (by their
    content): a page then plays at most REPLAY_PAGE moves from the mark before
    it, never the record from its start again.
    """

    def __init__(self, most=MAX_REPLAYS):
        self.most = most
        self._replayed = collections.OrderedDict()
        self._lock = threading.Lock()

    def page(self, record, first=0):
        """Positions ``first`` .. of ``record``, all hands shown (see :meth:`Table.replay`)."""
        if not 0 <= first <= len(record.actions):
            raise ApiError(400, f"first must be a position 0..{len(record.actions)}, got {first}")
        replayed = self._played(record)
        mark = replayed.marks[first // REPLAY_PAGE]
        start = first - first % REPLAY_PAGE
        last = min(len(record.actions), first + REPLAY_PAGE - 1)  # the last position shown
        page = _resume(mark, replayed).replay(
            record.actions[start:last], first - start, REPLAY_PAGE, replayed.solved
        )
        return dict(
            page,
            first=first,
            positions=len(record.actions) + 1,
            moves=replayed.moves,
            deals=replayed.deals,
            page=REPLAY_PAGE,
            final_scores=list(record.final_scores),
        )

    def _played(self, record):
        key = hashlib.sha256(repr(dataclasses.astuple(record)).encode()).digest()
        with self._lock:
            if key in self._replayed:
                self._replayed.move_to_end(key)
                return self._replayed[key]
        table = checked_record(record)
        marks = []
        for position, action in enumerate(record.actions):
            if position % REPLAY_PAGE == 0:
                marks.append(_mark(table))
            table.apply(int(action))
        if len(record.actions) % REPLAY_PAGE == 0:
            marks.append(_mark(table))
        replayed = _Replayed(table.moves, table.deals, marks)
        with self._lock:
            self._replayed[key] = replayed
            while len(self._replayed) > self.most:
                self._replayed.popitem(last=False)
        return replayed


def replay_upload(body, replays):
    """The replay of game ``body["game"]`` of the records file ``body["records"]`` from
    ``body["first"]`` (replays: the app's :class:`ReplayPages`)."""
    _check_fields(body, REPLAY_FIELDS)
    try:
        records = records_from_dict(body.get("records"))
    except RecordError as error:
        raise ApiError(422, str(error)) from None
    number = _int_field(body, "game", 0, 0, len(records) - 1)
    record = records[number]
    if len(record.actions) > MAX_RECORD_ACTIONS:
        checked_record(record)  # 413 before anything else
    return replays.page(record, _int_field(body, "first", 0, 0, MAX_RECORD_ACTIONS))


# ---------------------------------------------------------------------- app
