"""The league store's writes, each one transaction: players, matches with their games and summaries,
bid regrets, exploit runs, benchmark cards.

A match already stored is not written twice; an interrupted writer loses at most
the match it was writing.
"""

import datetime
import json

import numpy as np

from .identity import code_version, rules_text
from .queries import StoreQueries
from .schema import EXPLOIT_COLUMNS, REGRET_SUMS, TOTALS, match_aggregates


class StoreWrites(StoreQueries):
    """The writes of a league store (see :class:`ghost_euchre.arena.store.Store`)."""

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
        in order; regrets: one :class:`ghost_euchre.arena.regret.Regret` per position or None,
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
        """Store an exploit run; returns its
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
            existing = self.exploit(key)
            if existing is not None:
                return existing["id"]
            cursor = self.db.execute(
                f"INSERT INTO exploits (exploit_key, player_id, {', '.join(EXPLOIT_COLUMNS)}, result)"
                f" VALUES ({', '.join('?' * (len(EXPLOIT_COLUMNS) + 3))})",
                (key, player_id, *(values[c] for c in EXPLOIT_COLUMNS), json.dumps(result)),
            )
        return cursor.lastrowid

    def add_card(self, key, player, card, complete):
        """Store (or replace: the same key is the same bot's code) a benchmark card; returns its id.

        key: :func:`card_key`; player: (spec, content_hash); card: the JSON-ready card
        (:mod:`ghost_euchre.arena.benchmark`); complete: every section of it is done.
        """
        created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        player_id = self.player_id(player)
        values = (
            player_id, card["suite"], card["seed"], card["variant"], int(bool(complete)),
            code_version(), created, json.dumps(card), key,
        )  # fmt: skip
        with self.transaction():
            found = self.db.execute("SELECT id FROM cards WHERE card_key = ?", (key,)).fetchone()
            if found is not None:
                self.db.execute(
                    "UPDATE cards SET player_id = ?, suite = ?, seed = ?, variant = ?,"
                    " complete = ?, code_version = ?, created = ?, card = ? WHERE card_key = ?",
                    values,
                )
                return found[0]
            cursor = self.db.execute(
                "INSERT INTO cards (player_id, suite, seed, variant, complete, code_version,"
                " created, card, card_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
        return cursor.lastrowid

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
