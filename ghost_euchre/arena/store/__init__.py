"""A persistent store of matches, games, exploit runs and benchmark cards: one SQLite file (the
standard library's sqlite3).

What each table holds and how an older file is upgraded: :mod:`ghost_euchre.arena.store.schema`. Writes are
transactions (:mod:`ghost_euchre.arena.store.writes`): :meth:`Store.add_match` writes a match, all its games
and its summaries in one, so an interrupted writer loses at most the match it was writing, and a
match already stored is not written twice. A leaderboard reads the summaries, never the games
(kept for replays; :mod:`ghost_euchre.arena.store.queries`). The file is in WAL mode with a busy timeout, so
several processes may read and write it at once (:mod:`ghost_euchre.arena.store.file`).
"""

from .file import BUSY_TIMEOUT_S, DEFAULT_DB, OlderVersion
from .identity import (
    card_key,
    code_version,
    exploit_key,
    match_key,
    player_identity,
    rules_text,
    version_label,
)
from .schema import (
    EXPLOIT_COLUMNS,
    READABLE_VERSIONS,
    REGRET_SUMS,
    SCHEMA_VERSION,
    TOTALS,
    match_aggregates,
)
from .writes import StoreWrites

__all__ = [
    "BUSY_TIMEOUT_S",
    "DEFAULT_DB",
    "EXPLOIT_COLUMNS",
    "READABLE_VERSIONS",
    "REGRET_SUMS",
    "SCHEMA_VERSION",
    "TOTALS",
    "Store",
    "card_key",
    "code_version",
    "exploit_key",
    "match_aggregates",
    "match_key",
    "player_identity",
    "reading_store",
    "rules_text",
    "version_label",
]


class Store(StoreWrites):
    """A league store in one SQLite file (created with its tables if missing).

    ``Store(path)``; use as a context manager or call :meth:`close`. Raises
    ValueError (one line) for a file that is not such a store. read_only: the
    file is only read (never created, switched to WAL, given tables or upgraded;
    ValueError unless it is a store of a version in ``READABLE_VERSIONS``).
    Opening and transactions: :class:`~ghost_euchre.arena.store.file.StoreFile`; reads:
    :class:`~ghost_euchre.arena.store.queries.StoreQueries`; writes:
    :class:`~ghost_euchre.arena.store.writes.StoreWrites`.
    """


def reading_store(path):
    """A :class:`Store` to read ``path`` (a leaderboard, a replay): opened read only when its version
    reads as it is (nothing is written to it, a read-only file included); a store of version 1 or 2
    is upgraded first (its summaries are computed once)."""
    try:
        return Store(path, read_only=True)
    except OlderVersion:
        return Store(path)
