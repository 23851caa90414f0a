"""A persistent store of matches and games: one SQLite file (the standard library's sqlite3).

Tables (schema version ``SCHEMA_VERSION``, kept in ``schema_version``)::

    players(id, spec, content_hash, used)   a player is a spec plus the version of its
                                            code (agents.versions.fingerprint: for
                                            ppo:PATH the checkpoint file's SHA-256, for a
                                            class or a built-in its modules' sources; ''
                                            when not recorded): a retrained file or an
                                            edited class is a new player; used orders the
                                            registrations (the highest of a spec's
                                            versions is its current one: the one last run)
    matches(id, match_key, variant, episode, rules, seed, games, num_envs,
            code_version, created, wall_time_s, decisions, summary)
                                            rules and summary as JSON (summary:
                                            MatchResult.to_dict()); match_key identifies
                                            a match (see :func:`match_key`)
    match_players(match_id, position, player_id)   the match's players in run_match order
    games(match_id, game, sequence, stream_key, seats, final_scores, points,
          deals, winner_seat, truncated, actions)
                                            per game: seats = position of the player at
                                            each seat, final_scores and points by seat
                                            (JSON lists; classic: the team's, at each
                                            seat), actions = one byte per decision
                                            (ghost_euchre_env.records), NULL if not kept
    match_outcomes(match_id, outcomes)      per match, how many of its games ended in each
                                            finishing order, as a JSON object {places:
                                            games}: places = the place of each position,
                                            one digit each (1 = first, ties share the
                                            better place; classic: partners share their
                                            team's), e.g. {"123": 40, "132": 12, "113": 1}
    match_totals(match_id, position, games, wins, points, deals, sequences,
                 sequence_wins_squared)     per match and position: games played and won,
                                            points scored over the deals dealt, deal
                                            sequences, and the sum over sequences of the
                                            square of the wins in each (for the clustered
                                            interval of :mod:`arena.stats`)
    match_regrets(match_id, position, requested, worlds, oracle, decisions, regret_sum,
                  regret_squares, best)      per match and position, its bid regret
                                            (``--league ... --bid-regret N``): the options
                                            (N requested, W worlds, the oracle's card-play
                                            spec), then the sampled decisions, the sum of
                                            their regrets and of their squares (points)
                                            and how many were the oracle's best
    exploits(id, exploit_key, player_id, variant, episode, rules, budget, seed,
             games, init, response_hash, code_version, created, train_time_s, result)
                                            per approximate best response to a player
                                            (``ghost-euchre-evaluate exploit``): the training
                                            budget (decisions), seed, duplicate games,
                                            warm start (JSON [spec, content_hash]),
                                            SHA-256 of the response's policy file and
                                            the result as JSON; exploit_key identifies
                                            it (see :func:`exploit_key`)

The match_outcomes and match_totals tables are a match's summaries (:func:`match_aggregates`): a leaderboard
reads them, never the games (kept for replays). Writes are transactions:
:meth:`Store.add_match` writes a match, all its games and its summaries in one
(so an interrupted writer loses at most the match it was writing), and a match
already stored is not written twice. A file of an older schema version is
upgraded when opened, in one transaction (version 1 had no summaries: they are
computed from its games; version 3 had no match_regrets: it gets the table, empty,
and opened read only reads as holding no regret; nor exploits: a version-2 file written before that
table existed gets it with its first exploit, and reads as having none until then;
version 2 recorded no code version for a class or built-in player (content_hash
''): those players are kept as the version 'unrecorded', never pooled with one
recorded since, and ``used`` is set in their order of registration). The file is in WAL
mode with a busy timeout, so several processes may read and write it at once
(readers, opening a store included, never wait for a writer nor block it;
writers take turns).
"""

import contextlib
import datetime
import hashlib
import json
import os
import sqlite3
import subprocess
import time
import urllib.parse

import numpy as np

from agents.versions import fingerprint
from arena.stats import places
from ghost_euchre_env import variants
from ghost_euchre_env.records import GameRecord

SCHEMA_VERSION = 4
READABLE_VERSIONS = (3, 4)  # read only: version 3 lacks match_regrets alone, and reads as no regret
DEFAULT_DB = os.path.join("runs", "league.sqlite")
BUSY_TIMEOUT_S = 600.0  # how long a writer waits for another one to finish its transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    spec TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    used INTEGER NOT NULL DEFAULT 0,
    UNIQUE (spec, content_hash)
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    match_key TEXT NOT NULL UNIQUE,
    variant TEXT NOT NULL,
    episode TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed INTEGER NOT NULL,
    games INTEGER NOT NULL,
    num_envs INTEGER,
    code_version TEXT NOT NULL,
    created TEXT NOT NULL,
    wall_time_s REAL NOT NULL,
    decisions INTEGER NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS match_players (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    position INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players (id),
    PRIMARY KEY (match_id, position)
);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    game INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    stream_key TEXT NOT NULL,
    seats TEXT NOT NULL,
    final_scores TEXT NOT NULL,
    points TEXT NOT NULL,
    deals INTEGER NOT NULL,
    winner_seat INTEGER NOT NULL,
    truncated INTEGER NOT NULL,
    actions BLOB,
    PRIMARY KEY (match_id, game)
);
CREATE TABLE IF NOT EXISTS match_outcomes (
    match_id INTEGER PRIMARY KEY REFERENCES matches (id),
    outcomes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS match_totals (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    position INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    points INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    sequences INTEGER NOT NULL,
    sequence_wins_squared INTEGER NOT NULL,
    PRIMARY KEY (match_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS match_regrets (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    position INTEGER NOT NULL,
    requested INTEGER NOT NULL,
    worlds INTEGER NOT NULL,
    oracle TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    regret_sum REAL NOT NULL,
    regret_squares REAL NOT NULL,
    best INTEGER NOT NULL,
    PRIMARY KEY (match_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS exploits (
    id INTEGER PRIMARY KEY,
    exploit_key TEXT NOT NULL UNIQUE,
    player_id INTEGER NOT NULL REFERENCES players (id),
    variant TEXT NOT NULL,
    episode TEXT NOT NULL,
    rules TEXT NOT NULL,
    budget INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    games INTEGER NOT NULL,
    init TEXT NOT NULL,
    response_hash TEXT NOT NULL,
    code_version TEXT NOT NULL,
    created TEXT NOT NULL,
    train_time_s REAL NOT NULL,
    result TEXT NOT NULL
);
"""
EXPLOIT_COLUMNS = (
    "variant", "episode", "rules", "budget", "seed", "games", "init", "response_hash",
    "code_version", "created", "train_time_s",
)  # fmt: skip
_AGGREGATED = ("seats", "final_scores", "points", "deals", "winner_seat", "sequence")
TOTALS = ("games", "wins", "points", "deals", "sequences", "sequence_wins_squared")
REGRET_SUMS = ("decisions", "regret_sum", "regret_squares", "best")
_COLUMNS = {"match_totals": TOTALS, "match_regrets": REGRET_SUMS}
_INTEGER = "typeof({0}) = 'integer'"
_NUMBER = "typeof({0}) IN ('integer', 'real')"
_SUMMARY_CHECKS = {  # table: [(SQL true for a sound row, what a sound row holds)], per (match, position)
    "match_totals": [
        (" AND ".join(_INTEGER.format(c) for c in TOTALS), "integer totals"),
        ("games >= sequences AND sequences >= 1", "games >= sequences >= 1"),
        ("wins BETWEEN 0 AND games", "0 <= wins <= games"),
        ("deals >= 0 AND sequence_wins_squared >= 0", "deals and sequence_wins_squared >= 0"),
    ],
    "match_regrets": [
        (
            _INTEGER.format("decisions") + " AND " + _INTEGER.format("best"),
            "integer decisions, best",
        ),
        (" AND ".join(_NUMBER.format(c) for c in ("regret_sum", "regret_squares")), "numeric sums"),
        ("decisions >= 1 AND best BETWEEN 0 AND decisions", "0 <= best <= decisions >= 1"),
        ("regret_sum >= 0", "regret_sum >= 0 (a regret is never negative)"),
        # a sum of squares is at least the square of the sum over the count (variance >= 0)
        (
            "regret_squares * decisions >= regret_sum * regret_sum * (1 - 1e-9)",
            "regret_squares * decisions >= regret_sum ** 2 (a variance >= 0)",
        ),
    ],
}


def player_identity(spec):
    """(spec, content_hash) of a player spec: content_hash is the version of its code
    (:func:`agents.versions.fingerprint`: a checkpoint file's SHA-256, or its modules' sources)."""
    spec = spec.strip()
    return spec, fingerprint(spec)


def version_label(content_hash):
    """How a player's version is shown: its hash's first 8 digits, or 'unrecorded' (stored before
    schema 3 recorded the code's version, or nothing to read)."""
    return content_hash[:8] if content_hash else "unrecorded"


def rules_text(rules):
    """The canonical JSON text of a rules dict (sorted keys), as stored and compared."""
    return json.dumps(rules, sort_keys=True)


def match_key(variant, episode, rules, seed, games, identities):
    """The identity of a match: SHA-256 (hex) of its variant, episode, rules, seed,
    games (after rounding to whole deal sequences) and players in seat-plan order
    (their (spec, content_hash) identities). The code version is stored, not part of it."""
    text = json.dumps(
        [variant, episode, rules_text(rules), int(seed), int(games), [list(i) for i in identities]]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def exploit_key(variant, episode, rules, identity, budget, seed, games, init):
    """The identity of an exploit run: SHA-256 (hex) of its variant, episode, full rules dict, the
    exploited player's (spec, content_hash), the budget (decisions), seed, duplicate games and the
    warm start's (spec, content_hash) (('', '') from scratch)."""
    text = json.dumps(
        [
            variant,
            episode,
            rules_text(rules),
            list(identity),
            int(budget),
            int(seed),
            int(games),
            list(init),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def match_aggregates(variant, seats, final_scores, points, deals, winner_seat, sequence):
    """A match's summaries from its games: (outcomes, totals) as stored (schema above).

    Per game g of G, by seat s: seats int[G, S] (position of the player at each
    seat), final_scores and points int[G, S]; deals, winner_seat (-1 none) and
    sequence int[G]. Returns outcomes: {places text: games}, sorted by places;
    totals: [(position, games, wins, points, deals, sequences, sequence_wins_squared)].
    """
    seats = np.asarray(seats, np.int64)
    rows = np.arange(len(seats))[:, None]
    seat_of = np.argsort(seats, axis=1)  # [G, position]: where each position sat
    scores = np.asarray(final_scores)[rows, seat_of]
    orders, counts = np.unique(places(scores), axis=0, return_counts=True)
    outcomes = {"".join(map(str, o)): int(n) for o, n in zip(orders.tolist(), counts, strict=True)}
    team = variants.make(variant).teams
    winner = np.asarray(winner_seat)
    won = (winner[:, None] >= 0) & (team[np.maximum(winner, 0)][:, None] == team[seat_of])
    scored = np.asarray(points)[rows, seat_of].sum(axis=0)
    _, cluster = np.unique(np.asarray(sequence), return_inverse=True)
    totals = []
    for position in range(seats.shape[1]):
        per_sequence = np.bincount(cluster, weights=won[:, position]).astype(np.int64)
        totals.append(
            (
                position,
                len(seats),
                int(won[:, position].sum()),
                int(scored[position]),
                int(np.asarray(deals).sum()),
                len(per_sequence),
                int((per_sequence**2).sum()),
            )
        )
    return outcomes, totals


def code_version():
    """The project's version and, in a git checkout, its commit ('0.1.0+3f2a1b9c', '+dirty' if edited)."""
    from ghost_euchre_env import __version__

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        described = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=10"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return __version__
    return f"{__version__}+{described}"


def _connect_to(path):
    """The SQLite URI to open ``path`` with: a file this process cannot write and that no other
    connection has in WAL mode now (no ``-wal`` beside it) is opened immutable, so that reading it
    leaves no ``-wal``/``-shm`` files beside it (SQLite makes them, and a read-only connection
    cannot remove them)."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path))
    in_use = os.path.exists(path + "-wal")
    if os.path.exists(path) and not os.access(path, os.W_OK) and not in_use:
        return uri + "?mode=ro&immutable=1"
    return uri


class Store:
    """A league store in one SQLite file (created with its tables if missing).

    ``Store(path)``; use as a context manager or call :meth:`close`. Raises
    ValueError (one line) for a file that is not such a store. read_only: the
    file is only read (never created, switched to WAL, given tables or upgraded;
    ValueError unless it is a store of a version in ``READABLE_VERSIONS``).
    """

    def __init__(self, path=DEFAULT_DB, read_only=False):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise ValueError(f"league store {self.path!r} is a directory; expected a file")
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        try:
            self.db = sqlite3.connect(
                _connect_to(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None, uri=True
            )
        except sqlite3.Error as error:
            raise ValueError(f"cannot open league store {self.path!r}: {error}") from None
        try:
            self._check_ours()  # before anything is written: another application's file is left as it is
            if read_only:
                self.db.execute("PRAGMA query_only=ON")
                versions = self._schema_versions()
                if len(versions) == 1 and versions[0] < min(READABLE_VERSIONS):
                    raise _OlderVersion(
                        f"{self.path!r} holds a league store of version {versions[0]}, which "
                        f"reads once upgraded to {SCHEMA_VERSION} (read only: nothing is upgraded)"
                    )
                if len(versions) != 1 or versions[0] not in READABLE_VERSIONS:
                    raise ValueError(
                        f"{self.path!r} holds no league store of version {SCHEMA_VERSION} "
                        "(read only: nothing is created or upgraded)"
                    )
                return
            self._switch_to_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: safe against a killed process
            self.db.execute("PRAGMA foreign_keys=ON")
            versions = self._schema_versions()  # a read: opening a store never waits for a writer
            if not versions:  # a new file: create the tables (in a write transaction, once)
                with self.transaction():
                    self._check_ours()
                    self._create_tables()
                    versions = self._schema_versions()
                    if not versions:
                        self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
                        versions = [SCHEMA_VERSION]
            if len(versions) == 1 and versions[0] < SCHEMA_VERSION:
                versions = self._upgrade(versions[0])
            if versions != [SCHEMA_VERSION]:
                raise ValueError(
                    f"store {self.path!r} has schema version {versions}; "
                    f"this code reads version {SCHEMA_VERSION}"
                )
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise ValueError(f"{self.path!r} is not a league store: {error}") from None
        except ValueError:
            self.db.close()
            raise

    def _check_ours(self):
        """ValueError unless the file is empty or has a ``schema_version`` table (a league store)."""
        tables = [
            name
            for (name,) in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        if tables and "schema_version" not in tables:
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise ValueError(
                f"{self.path!r} is not a league store: an SQLite database of other tables "
                f"({shown}), left as it is"
            )

    # ------------------------------------------------------------------ plumbing
    def _switch_to_wal(self):
        """PRAGMA journal_mode=WAL, waiting up to BUSY_TIMEOUT_S for other processes opening the file.

        SQLite does not call the busy handler for this pragma: two processes opening
        a new store at once made one fail at once with "database is locked".
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:  # noqa: PERF203 (a retry loop, rarely taken)
                if _is_read_only(error):  # read-only: readable as it is; writes say so
                    return
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _create_tables(self):
        """The tables of ``_SCHEMA`` that are missing (inside a transaction)."""
        for statement in _SCHEMA.split(";"):  # not executescript: it would commit
            if statement.strip():
                self.db.execute(statement)

    def _upgrade(self, version):
        """Bring a file of an older schema version to ``SCHEMA_VERSION`` in one transaction;
        returns the versions then stored. Version 1 -> 2: every match's summaries from its games;
        2 -> 3: the players' ``used`` column (their ids' order); 3 -> 4: the (empty) match_regrets."""
        try:
            with self.transaction():
                versions = self._schema_versions()  # another process may have upgraded it first
                if versions != [version]:
                    return versions
                if (
                    version >= 2
                ):  # its summaries are read as they are: sound before anything is written
                    self._check_summaries("match_totals")
                self._create_tables()
                columns = [row[1] for row in self.db.execute("PRAGMA table_info(players)")]
                if "used" not in columns:
                    self.db.execute(
                        "ALTER TABLE players ADD COLUMN used INTEGER NOT NULL DEFAULT 0"
                    )
                    self.db.execute("UPDATE players SET used = id")
                variants = dict(self.db.execute("SELECT id, variant FROM matches"))
                for match_id, variant in variants.items() if version < 2 else ():
                    self._check_game_rows(match_id)
                    data = self.games([match_id])
                    if data is None:
                        raise ValueError(f"match {match_id} has no games")
                    self._add_aggregates(
                        match_id, *match_aggregates(variant, *(data[k] for k in _AGGREGATED))
                    )
                self.db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        except (sqlite3.DatabaseError, ValueError, IndexError) as error:  # read-only, a bad row
            raise ValueError(
                f"store {self.path!r} has schema version {version}; "
                f"upgrading it to {SCHEMA_VERSION} failed: {error}"
            ) from None
        return [SCHEMA_VERSION]

    def _check_game_rows(self, match_id):
        """ValueError naming the match and the game unless every game row of the match holds a seat
        list, final scores and points of one entry per seat (integers) and a winner seat in range
        (-1: none): what an upgrade computes summaries from."""
        rows = self.db.execute(
            "SELECT game, seats, final_scores, points, winner_seat FROM games WHERE match_id = ?"
            " ORDER BY game",
            (match_id,),
        ).fetchall()
        num_seats = None
        for game, *lists, winner in rows:
            where = f"match {match_id}, game {game}"
            try:
                seats, scores, points = (json.loads(text) for text in lists)
            except (TypeError, json.JSONDecodeError):
                raise ValueError(f"{where}: seats, final_scores or points is not JSON") from None
            if num_seats is None:  # the match's: its first game's
                num_seats = len(seats) if isinstance(seats, list) else 0
            for name, value in (("seats", seats), ("final_scores", scores), ("points", points)):
                if not (
                    isinstance(value, list)
                    and len(value) == num_seats
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
                ):
                    raise ValueError(
                        f"{where}: {name} must be {num_seats} integers (one per seat), got {value!r}"
                    )
            if sorted(seats) != list(range(num_seats)):
                raise ValueError(
                    f"{where}: seats must order positions 0..{num_seats - 1}, got {seats}"
                )
            if not (isinstance(winner, int) and -1 <= winner < num_seats):
                raise ValueError(
                    f"{where}: winner_seat must be -1 (none) or a seat 0..{num_seats - 1}, got {winner!r}"
                )

    def _add_aggregates(self, match_id, outcomes, totals):
        """Insert a match's :func:`match_aggregates` (inside a transaction)."""
        self.db.execute(
            "INSERT INTO match_outcomes (match_id, outcomes) VALUES (?, ?)",
            (match_id, json.dumps(outcomes)),
        )
        self.db.executemany(
            f"INSERT INTO match_totals (match_id, position, {', '.join(TOTALS)})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(match_id, *row) for row in totals],
        )

    def _has_table(self, name):
        """Whether the file has the table ``name``."""
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return self.db.execute(query, (name,)).fetchone() is not None

    def _schema_versions(self):
        """The versions in ``schema_version`` ([] when the file has no such table yet)."""
        table = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        ).fetchone()
        if table is None:
            return []
        return [v for (v,) in self.db.execute("SELECT version FROM schema_version")]

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextlib.contextmanager
    def reading(self):
        """A read transaction: the reads inside it see one state of the file (taking no lock
        that a writer waits for); inside another transaction, that one."""
        if self.db.in_transaction:
            yield self.db
            return
        self.db.execute("BEGIN")
        try:
            yield self.db
        finally:
            self.db.execute("COMMIT")

    def transaction(self):
        """A write transaction (BEGIN IMMEDIATE ... COMMIT; ROLLBACK on any exception).

        A store that cannot be written (a read-only file or directory) raises
        ValueError saying so.
        """
        return _Transaction(self.db, self.path)

    def check_writable(self):
        """ValueError (one line) unless the store can be written now: a write is tried, then
        rolled back, so that a read-only store is refused before any work is done for it."""
        with contextlib.suppress(_RolledBack), self.transaction():
            self.db.execute("UPDATE schema_version SET version = version")
            raise _RolledBack

    def data_version(self):
        """SQLite's ``PRAGMA data_version`` of this connection: it changes when another one commits."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    # ------------------------------------------------------------------- writing
    def player_id(self, identity):
        """The id of the player (spec, content_hash), registered if new; it becomes its spec's
        current version (the last used)."""
        spec, content_hash = identity
        with self.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO players (spec, content_hash) VALUES (?, ?)",
                (spec, content_hash),
            )
            self.db.execute(
                "UPDATE players SET used = (SELECT MAX(used) FROM players) + 1"
                " WHERE spec = ? AND content_hash = ?"
                " AND (used = 0 OR used < (SELECT MAX(used) FROM players WHERE spec = ?))",
                (spec, content_hash, spec),
            )
            (pid,) = self.db.execute(
                "SELECT id FROM players WHERE spec = ? AND content_hash = ?", (spec, content_hash)
            ).fetchone()
        return pid

    def has_match(self, key):
        """Whether the match with this :func:`match_key` is stored."""
        row = self.db.execute("SELECT 1 FROM matches WHERE match_key = ?", (key,)).fetchone()
        return row is not None

    def match_regret(self, key):
        """(requested, worlds, oracle) of the bid regret stored with the match of this
        :func:`match_key`, or None (no such match, or stored without regret)."""
        if not self._has_table("match_regrets"):  # version 3, read only
            return None
        row = self.db.execute(
            "SELECT r.requested, r.worlds, r.oracle FROM match_regrets r JOIN matches m"
            " ON m.id = r.match_id WHERE m.match_key = ? LIMIT 1",
            (key,),
        ).fetchone()
        return None if row is None else tuple(row)

    def add_regrets(self, key, regrets, options):
        """Store the bid regret of each position of the stored match of this :func:`match_key`
        (one transaction; nothing if it has one already); see :meth:`add_match`."""
        with self.transaction():
            (match_id,) = self.db.execute(
                "SELECT id FROM matches WHERE match_key = ?", (key,)
            ).fetchone()
            self._add_regrets(match_id, regrets, options)

    def _add_regrets(self, match_id, regrets, options):
        """Insert one match_regrets row per position unless the match has them (in a transaction)."""
        if (
            regrets is None
            or self.db.execute(
                "SELECT 1 FROM match_regrets WHERE match_id = ?", (match_id,)
            ).fetchone()
        ):
            return
        requested, worlds, oracle = options
        self.db.executemany(
            "INSERT INTO match_regrets (match_id, position, requested, worlds, oracle,"
            f" {', '.join(REGRET_SUMS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id,
                    position,
                    int(requested),
                    int(worlds),
                    str(oracle),
                    r.decisions,
                    float(r.regrets.sum()),
                    float((r.regrets**2).sum()),
                    round(r.best_rate * r.decisions),
                )
                for position, r in enumerate(regrets)
            ],
        )

    def add_match(
        self,
        result,
        key,
        player_ids,
        num_envs=None,
        version=None,
        regrets=None,
        regret_options=None,
    ):
        """Store a MatchResult, all its games and its summaries in one transaction; returns its id.

        key: its :func:`match_key`; player_ids: store ids of ``result.players``
        in order; regrets: one :class:`arena.regret.Regret` per position or None,
        regret_options: their (requested decisions, worlds, oracle card-play spec).
        If the match is already stored (another writer was first), nothing is
        written but its missing regrets, and the stored match's id is returned.
        """
        summary = result.to_dict()
        actions = result.actions or [None] * len(result.sequence)
        rows = zip(  # built before the transaction, so that writers hold the lock briefly
            result.sequence.tolist(),
            [f"{k:016x}" for k in result.keys.tolist()],
            map(json.dumps, result.seat_player.tolist()),
            map(json.dumps, result.final_scores.tolist()),
            map(json.dumps, result.game_points.tolist()),
            result.game_deals.tolist(),
            result.winner_seat.tolist(),
            result.truncated.astype(np.int64).tolist(),
            actions,
            range(len(result.sequence)),
            strict=True,
        )
        rows = list(rows)
        aggregates = match_aggregates(
            result.variant,
            result.seat_player,
            result.final_scores,
            result.game_points,
            result.game_deals,
            result.winner_seat,
            result.sequence,
        )
        with self.transaction():
            existing = self.db.execute(
                "SELECT id FROM matches WHERE match_key = ?", (key,)
            ).fetchone()
            if existing:
                self._add_regrets(existing[0], regrets, regret_options)
                return existing[0]
            cursor = self.db.execute(
                "INSERT INTO matches (match_key, variant, episode, rules, seed, games, num_envs,"
                " code_version, created, wall_time_s, decisions, summary)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    result.variant,
                    result.episode,
                    rules_text(result.rules),
                    int(result.seed),
                    len(result.sequence),
                    num_envs,
                    version or code_version(),
                    datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    float(result.wall_time_s),
                    int(result.decisions),
                    json.dumps(summary),
                ),
            )
            match_id = cursor.lastrowid
            self.db.executemany(
                "INSERT INTO match_players (match_id, position, player_id) VALUES (?, ?, ?)",
                [(match_id, position, pid) for position, pid in enumerate(player_ids)],
            )
            self.db.executemany(
                "INSERT INTO games (sequence, stream_key, seats, final_scores, points, deals,"
                " winner_seat, truncated, actions, game, match_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*row, match_id) for row in rows],
            )
            self._add_aggregates(match_id, *aggregates)
            self._add_regrets(match_id, regrets, regret_options)
        return match_id

    def add_exploit(self, key, player, run, result):
        """Store an exploit run (creating its table in a version-2 file that predates it); returns its
        id, or the stored one's when ``key`` is already there.

        player: the exploited player's (spec, content_hash); run: {column: value} of
        :data:`EXPLOIT_COLUMNS` but code_version and created (rules a dict, init a
        (spec, content_hash) pair); result: the JSON-ready result.
        """
        values = dict(
            run,
            rules=rules_text(run["rules"]),
            init=json.dumps(list(run["init"])),
            code_version=code_version(),
            created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        )
        player_id = self.player_id(player)
        with self.transaction():
            self._create_tables()
            existing = self.exploit(key)
            if existing is not None:
                return existing["id"]
            cursor = self.db.execute(
                f"INSERT INTO exploits (exploit_key, player_id, {', '.join(EXPLOIT_COLUMNS)}, result)"
                f" VALUES ({', '.join('?' * (len(EXPLOIT_COLUMNS) + 3))})",
                (key, player_id, *(values[c] for c in EXPLOIT_COLUMNS), json.dumps(result)),
            )
        return cursor.lastrowid

    # ------------------------------------------------------------------- reading
    def exploit(self, key):
        """The stored exploit run of this :func:`exploit_key`, or None (see :meth:`exploits`)."""
        found = self.exploits(key=key)
        return found[0] if found else None

    def exploits(self, variant=None, episode=None, rules=None, key=None):
        """Stored exploit runs (optionally of one variant / episode / rules dict, or one key), oldest
        first. Each: {"id", "exploit_key", "player_id", "spec", "content_hash", each of ``EXPLOIT_COLUMNS``
        (rules a dict, init a [spec, content_hash] list), "result"}."""
        if not self._has_table(
            "exploits"
        ):  # a version-2 file from before the table: no exploit stored
            return []
        where, args = self._where(variant, episode, rules)
        if key is not None:
            where, args = f"{where} {'AND' if where else 'WHERE'} exploit_key = ?", [*args, key]
        columns = ["id", "exploit_key", "player_id", *EXPLOIT_COLUMNS, "result"]
        rows = self.db.execute(
            f"SELECT {', '.join(f'e.{c}' for c in columns)}, p.spec, p.content_hash FROM exploits e"
            f" JOIN players p ON p.id = e.player_id{where}"
            " ORDER BY e.id",
            args,
        ).fetchall()
        out = []
        for row in rows:
            found = dict(zip([*columns, "spec", "content_hash"], row, strict=True))
            for name in ("rules", "init", "result"):
                found[name] = json.loads(found[name])
            out.append(found)
        return out

    def players(self):
        """Every player: list of {"id", "spec", "content_hash", "current"} (current: the version of
        its spec used last)."""
        rows = self.db.execute(
            "SELECT id, spec, content_hash, used = MAX(used) OVER (PARTITION BY spec)"
            " FROM players ORDER BY id"
        )
        return [{"id": i, "spec": s, "content_hash": h, "current": bool(c)} for i, s, h, c in rows]

    def matches(self, variant=None, episode=None, rules=None):
        """Stored matches (optionally of one variant / episode / rules dict), oldest first.

        Each: {"id", "match_key", "variant", "episode", "rules", "seed", "games",
        "num_envs", "code_version", "created", "wall_time_s", "decisions",
        "player_ids": [store id by position]}.
        """
        where, args = self._where(variant, episode, rules)
        columns = [
            "id",
            "match_key",
            "variant",
            "episode",
            "rules",
            "seed",
            "games",
            "num_envs",
            "code_version",
            "created",
            "wall_time_s",
            "decisions",
        ]
        with self.reading():
            rows = self.db.execute(
                f"SELECT {', '.join(columns)} FROM matches{where} ORDER BY id", args
            ).fetchall()
            players = self.db.execute(
                "SELECT match_id, player_id FROM match_players WHERE match_id IN"
                f" (SELECT id FROM matches{where}) ORDER BY match_id, position",
                args,
            ).fetchall()
        out = {}
        for row in rows:
            match = dict(zip(columns, row, strict=True))
            match["rules"] = json.loads(match["rules"])
            out[match["id"]] = dict(match, player_ids=[])
        for match_id, player_id in players:
            out[match_id]["player_ids"].append(player_id)
        return list(out.values())

    def groups(self):
        """The distinct (variant, episode, rules dict) of the stored matches, in the order of
        their first match: [{"variant", "episode", "rules"}] (one query, not a pass over matches)."""
        rows = self.db.execute(
            "SELECT variant, episode, rules FROM matches"
            " GROUP BY variant, episode, rules ORDER BY MIN(id)"
        )
        return [{"variant": v, "episode": e, "rules": json.loads(r)} for v, e, r in rows]

    def outcomes(self, variant, episode, rules):
        """The finishing-order counts of the matches of one variant, episode and rules dict.

        Returns {"match_id": int64[R], "player_ids": int64[R, S] (player by
        position), "places": int64[R, S] (place of each position, 1 = first),
        "games": int64[R]}, one row per (match, order), in (match id, places)
        order; None when no match is stored.
        """
        where, args = self._where(variant, episode, rules)
        selected = f" WHERE match_id IN (SELECT id FROM matches{where}) ORDER BY match_id"
        with self.reading():
            rows = self.db.execute(
                f"SELECT match_id, outcomes FROM match_outcomes{selected}", args
            ).fetchall()
            lineups = self.db.execute(
                f"SELECT match_id, player_id FROM match_players{selected}, position", args
            ).fetchall()
        if not rows:
            return None
        try:
            counts = json.loads("[" + ",".join(text for _, text in rows) + "]")  # one parse, not R
            text = "".join(order for orders in counts for order in orders)
            digits = np.frombuffer(text.encode("ascii"), np.uint8).astype(np.int64) - 48
            games = np.array([n for orders in counts for n in orders.values()], np.int64)
            digits = digits.reshape(len(games), -1)
            lineup = np.array(lineups, np.int64).reshape(len(rows), digits.shape[1], 2)
            at = np.repeat(np.arange(len(rows)), [len(orders) for orders in counts])
        except (TypeError, ValueError, AttributeError, UnicodeError, OverflowError):
            raise self._damaged_outcome(rows, lineups) from None
        if not (((digits >= 1) & (digits <= digits.shape[1])).all() and (games >= 1).all()):
            raise self._damaged_outcome(rows, lineups)  # finds the row (a sound store: never)
        return {
            "match_id": lineup[at, 0, 0],
            "player_ids": lineup[at, :, 1],
            "places": digits,
            "games": games,
        }

    def player_totals(self, variant, episode, rules):
        """Each player's :data:`TOTALS` summed over the matches of one variant, episode and
        rules dict: {player id: {"games", "wins", "points", "deals", "sequences",
        "sequence_wins_squared"}} (ints)."""
        return self._player_sums("match_totals", TOTALS, variant, episode, rules)

    def player_regrets(self, variant, episode, rules):
        """Each player's stored bid-regret sums over the matches of one variant, episode and rules
        dict: {player id: {"decisions", "regret_sum", "regret_squares", "best"}} (players with none
        left out)."""
        if not self._has_table("match_regrets"):  # version 3, read only
            return {}
        return self._player_sums("match_regrets", REGRET_SUMS, variant, episode, rules)

    def _player_sums(self, table, columns, variant, episode, rules):
        """{player id: {column: sum}} of a per-(match, position) ``table``'s ``columns`` (names of
        this module's schema, never a caller's text) over the selected matches."""
        where, args = self._where(variant, episode, rules)
        self._check_summaries(table, where, args)
        sums = ", ".join(f"SUM(t.{column})" for column in columns)
        rows = self.db.execute(
            f"SELECT p.player_id, {sums} FROM {table} t JOIN match_players p"
            " ON p.match_id = t.match_id AND p.position = t.position WHERE t.match_id IN"
            f" (SELECT id FROM matches{where}) GROUP BY p.player_id",
            args,
        )
        return {pid: dict(zip(columns, values, strict=True)) for pid, *values in rows}

    def _check_summaries(self, table, where="", args=()):
        """ValueError naming the store, ``table`` and the first row (match, position) of the selected
        matches whose values cannot be a summary (``_SUMMARY_CHECKS``: text, a negative count, a
        negative variance), or whose position names no player (match_players, players)."""
        selected = f"t.match_id IN (SELECT id FROM matches{where})"
        for sound, expected in _SUMMARY_CHECKS[table]:
            row = self.db.execute(
                f"SELECT t.match_id, t.position, {', '.join(f't.{c}' for c in _COLUMNS[table])}"
                f" FROM {table} t WHERE {selected} AND NOT ({sound}) LIMIT 1",
                args,
            ).fetchone()
            if row is not None:
                values = ", ".join(
                    f"{c}={v!r}" for c, v in zip(_COLUMNS[table], row[2:], strict=True)
                )
                raise self.damaged(
                    table, f"match {row[0]}, position {row[1]}", f"{values}; expected {expected}"
                )
        row = self.db.execute(
            f"SELECT t.match_id, t.position, p.player_id FROM {table} t LEFT JOIN match_players p"
            " ON p.match_id = t.match_id AND p.position = t.position"
            f" WHERE {selected} AND (p.player_id IS NULL OR p.player_id NOT IN (SELECT id FROM players))"
            " LIMIT 1",
            args,
        ).fetchone()
        if row is not None:
            raise self.damaged(
                "match_players",
                f"match {row[0]}, position {row[1]}",
                f"player_id={row[2]!r} names no stored player",
            )

    def _damaged_outcome(self, rows, lineups):
        """The ValueError naming the first match_outcomes row (or its match_players) that is not
        {places: games} over the match's positions."""
        positions = {}
        for match_id, _ in lineups:
            positions[match_id] = positions.get(match_id, 0) + 1
        for match_id, text in rows:
            seats = positions.get(match_id, 0)
            try:
                counts = json.loads(text)
            except (TypeError, ValueError):
                counts = None
            sound = isinstance(counts, dict) and all(
                isinstance(places, str)
                and len(places) == seats
                and all(p in "123456789"[:seats] for p in places)
                and isinstance(n, int)
                and not isinstance(n, bool)
                and n >= 1
                for places, n in counts.items()
            )
            if not sound:
                return self.damaged(
                    "match_outcomes",
                    f"match {match_id}",
                    f"outcomes={text!r}; expected {{places: games}}, one place 1..{seats} per position"
                    f" of its {seats} (match_players) and games >= 1",
                )
        return self.damaged("match_outcomes", "some match", "the positions of the matches differ")

    def damaged(self, table, row, what):
        """The ValueError of a damaged row: one line naming the store, the table and the row."""
        return ValueError(f"league store {self.path!r} is damaged: table {table}, {row}: {what}")

    @staticmethod
    def _where(variant, episode, rules):
        """(' WHERE ...' or '', arguments) selecting matches by variant / episode / rules dict."""
        where, args = [], []
        for column, value in (("variant", variant), ("episode", episode)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if rules is not None:
            where.append("rules = ?")
            args.append(rules_text(rules))
        return (" WHERE " + " AND ".join(where) if where else ""), args

    def match_summary(self, match_id):
        """The stored MatchResult.to_dict() of a match."""
        row = self.db.execute("SELECT summary FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise ValueError(f"no match {match_id!r} in {self.path!r}")
        return json.loads(row[0])

    def games(self, match_ids):
        """Per-game arrays of the given matches, in (match, game) order.

        Returns {"match_id": int64[G], "game": int64[G], "sequence": int64[G],
        "seats": int64[G, S] (position of the player at each seat),
        "final_scores", "points": int64[G, S] by seat, "deals": int64[G],
        "winner_seat": int64[G], "truncated": bool[G]}. All matches must have
        the same number of seats.
        """
        columns = "match_id game sequence seats final_scores points deals winner_seat truncated"
        rows = []
        for match_id in match_ids:
            rows += self.db.execute(
                f"SELECT {', '.join(columns.split())} FROM games WHERE match_id = ? ORDER BY game",
                (match_id,),
            ).fetchall()
        if not rows:
            return None
        data = list(zip(*rows, strict=True))
        out = {}
        for name, values in zip(columns.split(), data, strict=True):
            if name in ("seats", "final_scores", "points"):
                out[name] = np.array([json.loads(v) for v in values], np.int64)
            else:
                out[name] = np.array(values, np.int64)
        out["truncated"] = out["truncated"].astype(bool)
        return out

    def game_records(self, match_id, games=None):
        """The GameRecords of a match's games (all, or the listed game indices); a player whose
        spec has several versions in the store is named ``name@version`` (:func:`version_label`)."""
        match = self.db.execute(
            "SELECT variant, episode, rules, summary FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if match is None:
            raise ValueError(f"no match {match_id!r} in {self.path!r}")
        variant, episode, rules, summary = match
        versions = self.db.execute(  # per position: its version, when its spec has several
            "SELECT p.content_hash, (SELECT COUNT(*) FROM players o WHERE o.spec = p.spec)"
            " FROM match_players m JOIN players p ON p.id = m.player_id"
            " WHERE m.match_id = ? ORDER BY m.position",
            (match_id,),
        ).fetchall()
        names = [
            p["name"] + (f"@{version_label(content_hash)}" if count > 1 else "")
            for p, (content_hash, count) in zip(
                json.loads(summary)["players"], versions, strict=True
            )
        ]
        rows = self.db.execute(
            "SELECT game, stream_key, seats, final_scores, actions FROM games"
            " WHERE match_id = ? ORDER BY game",
            (match_id,),
        ).fetchall()
        wanted = None if games is None else set(games)
        records = []
        for game, key, seats, final_scores, actions in rows:
            if wanted is not None and game not in wanted:
                continue
            if actions is None:
                raise ValueError(f"match {match_id} game {game} was stored without its actions")
            scores = json.loads(final_scores)
            records.append(
                GameRecord(
                    variant=variant,
                    episode=episode,
                    rules=json.loads(rules),
                    key=int(key, 16),
                    actions=bytes(actions),
                    names=tuple(names[p] for p in json.loads(seats)),
                    final_scores=tuple(scores[: variants.make(variant).num_teams]),
                )
            )
        if wanted is not None and len(records) != len(wanted):
            missing = sorted(wanted - {g for g, *_ in rows})
            raise ValueError(
                f"match {match_id} has no game {missing[0]} (games 0..{len(rows) - 1})"
            )
        return records


def reading_store(path):
    """A :class:`Store` to read ``path`` (a leaderboard, a replay): opened read only when its version
    reads as it is (nothing is written to it, a read-only file included); a store of version 1 or 2
    is upgraded first (its summaries are computed once)."""
    try:
        return Store(path, read_only=True)
    except _OlderVersion:
        return Store(path)


class _OlderVersion(ValueError):
    """A store older than the versions read as they are (``READABLE_VERSIONS``)."""


class _RolledBack(Exception):
    """Ends :meth:`Store.check_writable`'s transaction (rolled back)."""


class _Transaction:
    def __init__(self, db, path):
        self.db, self.path = db, path

    def __enter__(self):
        self._execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self._execute("COMMIT")
            return False
        self.db.execute("ROLLBACK")
        if _is_read_only(value):
            raise _read_only(self.path) from None
        return False

    def _execute(self, statement):
        try:
            self.db.execute(statement)
        except sqlite3.OperationalError as error:
            if _is_read_only(error):
                raise _read_only(self.path) from None
            raise


def _is_read_only(error):
    return isinstance(error, sqlite3.OperationalError) and "readonly" in str(error)


def _read_only(path):
    """The one-line error of a write to the read-only store at ``path``."""
    return ValueError(
        f"league store {path!r} is read-only: nothing can be written to it "
        "(check the permissions of the file and of its directory)"
    )
