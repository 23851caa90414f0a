"""The league store's tables, their summaries and the migrations from older versions.

Tables (schema version ``SCHEMA_VERSION``, kept in ``schema_version``)::

    players(id, spec, content_hash, used)   a player is a spec plus the version of its
                                            code (ghost_euchre.agents.versions.fingerprint: for
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
                                            interval of :mod:`ghost_euchre.arena.stats`)
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
    cards(id, card_key, player_id, suite, seed, variant, complete, code_version,
          created, card)                    per benchmark report card (``ghost-euchre-evaluate
                                            benchmark``, :mod:`ghost_euchre.arena.benchmark`): the
                                            suite's name and seed, the variant, whether
                                            every section is done (a card of some
                                            sections is kept so that a rerun continues)
                                            and the card as JSON; card_key identifies it
                                            (see :func:`card_key`): a bot whose code
                                            changed has a new fingerprint, so a new card

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
recorded since, and ``used`` is set in their order of registration; version 4 had no cards: it gets the table,
empty, and opened read only reads as holding none; version 5 keyed a match and an exploit
run by its whole rules dict, so that an option added to the rules orphaned every stored
result: its keys are made again from their rows' columns (:func:`rekey`), and opened read
only it reads as it is). Rules are compared by the options away from the variant's defaults
(``keyed_rules(variant, rules)`` in SQL, :func:`ghost_euchre.arena.store.identity.keyed_rules`):
a rules dict stored before an option existed is the same rules as one with the option at its
default. The file is in WAL
mode with a busy timeout, so several processes may read and write it at once
(readers, opening a store included, never wait for a writer nor block it;
writers take turns).

The compatibility promise: this code writes stores of ``SCHEMA_VERSION``
(upgrading an older one in place when it opens it to write), reads the versions
of ``READABLE_VERSIONS`` as they are, and reads an older one once upgraded. A
store of a newer version (made by a newer release) is neither read nor written:
a newer version may change what a column means, so nothing promises that an
older reader reads it right. It is refused, before anything is read from its
tables or written (not even the journal mode), in one line naming the store,
its version and ``SCHEMA_VERSION``; the web page answers 503 with that line.
"""

import json
import re
import sqlite3

import numpy as np

from ghost_euchre.arena.stats import places
from ghost_euchre_env import variants

from .identity import exploit_key, key_of, match_key

SCHEMA_VERSION = 6
READABLE_VERSIONS = (
    3,
    4,
    5,
    6,
)  # read only: what an older version lacks reads as empty (no regret, no card)

SCHEMA = """
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
CREATE TABLE IF NOT EXISTS cards (
    id INTEGER PRIMARY KEY,
    card_key TEXT NOT NULL UNIQUE,
    player_id INTEGER NOT NULL REFERENCES players (id),
    suite TEXT NOT NULL,
    seed INTEGER NOT NULL,
    variant TEXT NOT NULL,
    complete INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    created TEXT NOT NULL,
    card TEXT NOT NULL
);
"""
EXPLOIT_COLUMNS = (
    "variant", "episode", "rules", "budget", "seed", "games", "init", "response_hash",
    "code_version", "created", "train_time_s",
)  # fmt: skip
AGGREGATED = ("seats", "final_scores", "points", "deals", "winner_seat", "sequence")
TOTALS = ("games", "wins", "points", "deals", "sequences", "sequence_wins_squared")
REGRET_SUMS = ("decisions", "regret_sum", "regret_squares", "best")
SUMMARY_COLUMNS = {"match_totals": TOTALS, "match_regrets": REGRET_SUMS}
_INTEGER = "typeof({0}) = 'integer'"
_NUMBER = "typeof({0}) IN ('integer', 'real')"
SUMMARY_CHECKS = {  # table: [(SQL true for a sound row, what a sound row holds)], per (match, position)
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


def create_tables(db):
    """The tables of ``SCHEMA`` that are missing (inside a transaction)."""
    for statement in SCHEMA.split(";"):  # not executescript: it would commit
        if statement.strip():
            db.execute(statement)


def missing_tables(db):
    """{table name: its CREATE statement} of the tables of ``SCHEMA`` the file lacks."""
    query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    present = {name for (name,) in db.execute(query)}
    found = (re.search(r"CREATE TABLE IF NOT EXISTS (\w+)", text) for text in SCHEMA.split(";"))
    return {m[1]: m.string for m in found if m and m[1] not in present}


def add_missing_as_temporary(db):
    """Give a store opened read only the tables its older version lacks (match_regrets before
    version 4, exploits in an early version 2), empty and TEMP: readers assume the current schema."""
    for statement in missing_tables(db).values():
        db.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE"))


def schema_versions(db):
    """The versions in ``schema_version`` ([] when the file has no such table yet)."""
    table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if table is None:
        return []
    return [v for (v,) in db.execute("SELECT version FROM schema_version")]


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


def upgrade(store, version):
    """Bring a file of an older schema version to ``SCHEMA_VERSION`` in one transaction;
    returns the versions then stored. Version 1 -> 2: every match's summaries from its games;
    2 -> 3: the players' ``used`` column (their ids' order); 3 -> 4: the (empty) match_regrets;
    4 -> 5: the (empty) cards; 5 -> 6: the keys of its matches and exploit runs
    (:func:`rekey`). store: the :class:`ghost_euchre.arena.store.Store` opening the file.
    """
    try:
        with store.transaction():
            versions = schema_versions(store.db)  # another process may have upgraded it first
            if versions != [version]:
                return versions
            if version >= 2:  # its summaries are read as they are: sound before anything is written
                store._check_summaries("match_totals")
            create_tables(store.db)
            columns = [row[1] for row in store.db.execute("PRAGMA table_info(players)")]
            if "used" not in columns:
                store.db.execute("ALTER TABLE players ADD COLUMN used INTEGER NOT NULL DEFAULT 0")
                store.db.execute("UPDATE players SET used = id")
            match_variants = dict(store.db.execute("SELECT id, variant FROM matches"))
            for match_id, variant in match_variants.items() if version < 2 else ():
                check_game_rows(store.db, match_id)
                data = store.games([match_id])
                if data is None:
                    raise ValueError(f"match {match_id} has no games")
                store._add_aggregates(
                    match_id, *match_aggregates(variant, *(data[k] for k in AGGREGATED))
                )
            rekey(store.db)
            store.db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    except (sqlite3.DatabaseError, ValueError, IndexError) as error:  # read-only, a bad row
        raise ValueError(
            f"store {store.path!r} has schema version {version}; "
            f"upgrading it to {SCHEMA_VERSION} failed: {error}"
        ) from None
    return [SCHEMA_VERSION]


def rekey(db):
    """Key the stored matches and exploit runs as version 6 does, by the rules away from the
    defaults (:func:`ghost_euchre.arena.store.identity.keyed_rules`), where version 5 hashed the
    whole rules dict; a key that is not the old one of its row's columns is left as it is."""
    identity = {
        pid: [spec, h] for pid, spec, h in db.execute("SELECT id, spec, content_hash FROM players")
    }
    matches = db.execute(
        "SELECT id, match_key, variant, episode, rules, seed, games FROM matches"
    ).fetchall()
    for match_id, key, variant, episode, rules, seed, games in matches:
        players = db.execute(
            "SELECT player_id FROM match_players WHERE match_id = ? ORDER BY position", (match_id,)
        )
        ids = [identity[pid] for (pid,) in players]
        if key == key_of([variant, episode, rules, seed, games, ids]):
            new = match_key(variant, episode, json.loads(rules), seed, games, ids)
            db.execute("UPDATE matches SET match_key = ? WHERE id = ?", (new, match_id))
    exploits = db.execute(
        "SELECT id, exploit_key, player_id, variant, episode, rules, budget, seed, games, init"
        " FROM exploits"
    ).fetchall()
    for run_id, key, pid, variant, episode, rules, budget, seed, games, init in exploits:
        init = json.loads(init)
        if key == key_of([variant, episode, rules, identity[pid], budget, seed, games, init]):
            new = exploit_key(
                variant, episode, json.loads(rules), identity[pid], budget, seed, games, init
            )
            db.execute("UPDATE exploits SET exploit_key = ? WHERE id = ?", (new, run_id))


def check_game_rows(db, match_id):
    """ValueError naming the match and the game unless every game row of the match holds a seat
    list, final scores and points of one entry per seat (integers) and a winner seat in range
    (-1: none): what an upgrade computes summaries from."""
    rows = db.execute(
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
            raise ValueError(f"{where}: seats must order positions 0..{num_seats - 1}, got {seats}")
        if not (isinstance(winner, int) and -1 <= winner < num_seats):
            raise ValueError(
                f"{where}: winner_seat must be -1 (none) or a seat 0..{num_seats - 1}, got {winner!r}"
            )
