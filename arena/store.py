"""A persistent store of matches and games: one SQLite file (the standard library's sqlite3).

Tables (schema version ``SCHEMA_VERSION``, kept in ``schema_version``)::

    players(id, spec, content_hash)         a player is a spec plus, for ppo:PATH, the
                                            SHA-256 of the checkpoint file: a retrained
                                            file is a new player
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

Writes are transactions: :meth:`Store.add_match` writes a match and all its
games in one (so an interrupted writer loses at most the match it was
writing), and a match already stored is not written twice. The file is in WAL
mode with a busy timeout, so several processes may read and write it at once
(readers, opening a store included, never wait for a writer nor block it;
writers take turns).
"""

import datetime
import hashlib
import json
import os
import sqlite3
import subprocess
import time

import numpy as np

from agents.specs import split_spec
from ghost_euchre_env.records import GameRecord

SCHEMA_VERSION = 1
DEFAULT_DB = os.path.join("runs", "league.sqlite")
BUSY_TIMEOUT_S = 600.0  # how long a writer waits for another one to finish its transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    spec TEXT NOT NULL,
    content_hash TEXT NOT NULL,
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
"""


def player_identity(spec):
    """(spec, content_hash) of a player spec: ``ppo:PATH`` hashes the checkpoint file (SHA-256, hex), else ''."""
    spec = spec.strip()
    kind, target, _ = split_spec(spec)
    if kind != "ppo" or target is None or not os.path.isfile(target):
        return spec, ""
    digest = hashlib.sha256()
    with open(target, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return spec, digest.hexdigest()


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


class Store:
    """A league store in one SQLite file (created with its tables if missing).

    ``Store(path)``; use as a context manager or call :meth:`close`. Raises
    ValueError (one line) for a file that is not such a store.
    """

    def __init__(self, path=DEFAULT_DB):
        self.path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            self._switch_to_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: safe against a killed process
            self.db.execute("PRAGMA foreign_keys=ON")
            versions = self._schema_versions()  # a read: opening a store never waits for a writer
            if not versions:  # a new file: create the tables (in a write transaction, once)
                with self.transaction():
                    for statement in _SCHEMA.split(";"):  # not executescript: it would commit
                        if statement.strip():
                            self.db.execute(statement)
                    versions = self._schema_versions()
                    if not versions:
                        self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
                        versions = [SCHEMA_VERSION]
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
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

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

    def transaction(self):
        """A write transaction (BEGIN IMMEDIATE ... COMMIT; ROLLBACK on any exception)."""
        return _Transaction(self.db)

    def reading(self):
        """A read transaction (BEGIN ... COMMIT): every read inside it sees one state of the file."""
        return _Transaction(self.db, "BEGIN")

    def data_version(self):
        """SQLite's ``PRAGMA data_version`` of this connection: it changes when another one commits."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    # ------------------------------------------------------------------- writing
    def player_id(self, identity):
        """The id of the player (spec, content_hash), registered if new."""
        spec, content_hash = identity
        with self.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO players (spec, content_hash) VALUES (?, ?)",
                (spec, content_hash),
            )
            (pid,) = self.db.execute(
                "SELECT id FROM players WHERE spec = ? AND content_hash = ?", (spec, content_hash)
            ).fetchone()
        return pid

    def has_match(self, key):
        """Whether the match with this :func:`match_key` is stored."""
        row = self.db.execute("SELECT 1 FROM matches WHERE match_key = ?", (key,)).fetchone()
        return row is not None

    def add_match(self, result, key, player_ids, num_envs=None, version=None):
        """Store a MatchResult and all its games in one transaction; returns its id.

        key: its :func:`match_key`; player_ids: store ids of ``result.players``
        in order. If the match is already stored (another writer was first),
        nothing is written and the stored match's id is returned.
        """
        summary = result.to_dict()
        actions = result.actions or [None] * len(result.sequence)
        rows = [
            (
                int(result.sequence[g]),
                f"{int(result.keys[g]):016x}",
                json.dumps(result.seat_player[g].tolist()),
                json.dumps(result.final_scores[g].tolist()),
                json.dumps(result.game_points[g].tolist()),
                int(result.game_deals[g]),
                int(result.winner_seat[g]),
                int(result.truncated[g]),
                actions[g],
                g,
            )
            for g in range(len(result.sequence))
        ]
        with self.transaction():
            existing = self.db.execute(
                "SELECT id FROM matches WHERE match_key = ?", (key,)
            ).fetchone()
            if existing:
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
        return match_id

    # ------------------------------------------------------------------- reading
    def players(self):
        """Every player: list of {"id", "spec", "content_hash"}."""
        rows = self.db.execute("SELECT id, spec, content_hash FROM players ORDER BY id")
        return [{"id": i, "spec": s, "content_hash": h} for i, s, h in rows]

    def matches(self, variant=None, episode=None, rules=None):
        """Stored matches (optionally of one variant / episode / rules dict), oldest first.

        Each: {"id", "match_key", "variant", "episode", "rules", "seed", "games",
        "num_envs", "code_version", "created", "wall_time_s", "decisions",
        "player_ids": [store id by position]}.
        """
        where, args = [], []
        for column, value in (("variant", variant), ("episode", episode)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if rules is not None:
            where.append("rules = ?")
            args.append(rules_text(rules))
        query = (
            "SELECT id, match_key, variant, episode, rules, seed, games, num_envs, code_version,"
            " created, wall_time_s, decisions FROM matches"
        )
        if where:
            query += " WHERE " + " AND ".join(where)
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
        out = []
        for row in self.db.execute(query + " ORDER BY id", args).fetchall():
            match = dict(zip(columns, row, strict=True))
            match["rules"] = json.loads(match["rules"])
            match["player_ids"] = [
                pid
                for (pid,) in self.db.execute(
                    "SELECT player_id FROM match_players WHERE match_id = ? ORDER BY position",
                    (match["id"],),
                )
            ]
            out.append(match)
        return out

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
        """The GameRecords of a match's games (all, or the listed game indices)."""
        match = self.db.execute(
            "SELECT variant, episode, rules, summary FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if match is None:
            raise ValueError(f"no match {match_id!r} in {self.path!r}")
        variant, episode, rules, summary = match
        names = [p["name"] for p in json.loads(summary)["players"]]
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
                    final_scores=tuple(scores if variant == "ghost" else scores[:2]),
                )
            )
        if wanted is not None and len(records) != len(wanted):
            missing = sorted(wanted - {g for g, *_ in rows})
            raise ValueError(
                f"match {match_id} has no game {missing[0]} (games 0..{len(rows) - 1})"
            )
        return records


class _Transaction:
    def __init__(self, db, begin="BEGIN IMMEDIATE"):
        self.db = db
        self.begin = begin

    def __enter__(self):
        self.db.execute(self.begin)
        return self.db

    def __exit__(self, kind, value, traceback):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        return False
