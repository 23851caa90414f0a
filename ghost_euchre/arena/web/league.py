"""The league store as the web page reads it: its matches, games and leaderboards.

:class:`LeagueReader` reads the SQLite file (never creates it) on one thread
of its own, each read in one read transaction, and keeps what it read until
the store changes (SQLite's ``PRAGMA data_version``, or another file at the
path): a leaderboard is fitted once per state of the store, not per request.
"""

import asyncio
import concurrent.futures
import os
import stat

from ghost_euchre.plumbing.commands import command_name

from ..league import leaderboard
from ..store import Store
from .guard import ApiError

MAX_CACHED = 64  # values kept per state of the store


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


def match_records(store, match_id, games=None):
    """The game records of stored match ``match_id`` (ApiError 404 when there is no such match or game)."""
    try:
        return store.game_records(match_id, games)
    except ValueError as error:
        raise ApiError(404, str(error)) from None


def league_groups(store):
    """The distinct (variant, episode, rules) of the stored matches, each a leaderboard."""
    return store.groups()


def league_board(store, number):
    """(the groups, the :class:`ghost_euchre.arena.league.Leaderboard` of group ``number``)."""
    groups = league_groups(store)
    if not groups:
        raise ApiError(
            404,
            f"the league store {store.path!r} holds no match yet: play a league into it "
            f"({command_name()} --league SPEC SPEC SPEC ... --db FILE)",
        )
    if not 0 <= number < len(groups):
        raise ApiError(400, f"group must be an int 0..{len(groups) - 1}, got {number!r}")
    return groups, leaderboard(store, **groups[number])


class LeagueReader:
    """The league store ``db`` as the page reads it: one connection, on one thread, and a cache.

    Every read runs on the reader's own thread (the connection's) in one read
    transaction. A value read under a key is kept until the store changes:
    SQLite's ``PRAGMA data_version`` of the connection (it changes when another
    connection commits) or the file itself (its device and inode). The file is
    read, never created or written (``Store(read_only=True)``): no file or an empty
    one, ApiError 404; a file that is no store of this version, 503.
    """

    def __init__(self, db):
        self.db = db
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="league")
        self._store = None
        self._version = None
        self._cache = {}

    def exists(self):
        """Whether there is a store to read: a file, not an empty one."""
        return self.db is not None and os.path.isfile(self.db) and os.path.getsize(self.db) > 0

    async def read(self, work, key=None):
        """``work(store)`` in one read transaction; kept under ``key`` (None: not kept)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._read, work, key)

    def _read(self, work, key):
        store, version = self._open()
        if version != self._version:
            self._cache.clear()
            self._version = version
        if key is not None and key in self._cache:
            return self._cache[key]
        with store.reading():
            try:
                value = work(store)
            except (
                ValueError
            ) as error:  # a damaged row (ghost_euchre.arena.store): named, not a 500
                raise ApiError(503, str(error)) from None
        if key is not None:
            if len(self._cache) >= MAX_CACHED:
                self._cache.clear()
            self._cache[key] = value
        return value

    def _open(self):
        """(the open Store, its version: (device, inode, data_version))."""
        db = self.db
        try:
            info = None if db is None else os.stat(db)
        except OSError:
            info = None
        if db is None or info is None or not stat.S_ISREG(info.st_mode):
            self._close()
            raise ApiError(
                404,
                f"no league store at {self.db!r}: play a league first ({command_name()} "
                "--league SPEC SPEC SPEC ... --db FILE), then serve --db FILE",
            )
        if info.st_size == 0:  # an empty file: no store yet (and nothing is written to it)
            self._close()
            raise ApiError(
                404,
                f"the league store {self.db!r} is an empty file: play a league first "
                f"({command_name()} --league SPEC SPEC SPEC ... --db FILE)",
            )
        file = (info.st_dev, info.st_ino)
        if self._store is None or self._version is None or self._version[:2] != file:
            self._close()
            try:
                self._store = Store(db, read_only=True)
            except ValueError as error:
                raise ApiError(503, f"the league store cannot be read: {error}") from None
        return self._store, (*file, self._store.data_version())

    def _close(self):
        if self._store is not None:
            self._store.close()
        self._store, self._version = None, None
