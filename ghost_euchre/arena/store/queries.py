"""The league store's reads: matches, players, their summaries, exploit runs, cards, games as records.

Every read assumes the current schema (a store opened read only gets the tables
its older version lacks, empty). A summary row that cannot be one raises a
ValueError naming the store, the table and the row.
"""

import json

import numpy as np

from ghost_euchre_env import variants
from ghost_euchre_env.records import GameRecord

from .file import StoreFile
from .identity import rules_text, version_label
from .schema import EXPLOIT_COLUMNS, REGRET_SUMS, SUMMARY_CHECKS, SUMMARY_COLUMNS, TOTALS


class StoreQueries(StoreFile):
    """The reads of a league store (see :class:`ghost_euchre.arena.store.Store`)."""

    def match_regret(self, key):
        """(requested, worlds, oracle) of the bid regret stored with the match of this
        :func:`match_key`, or None (no such match, or stored without regret)."""
        row = self.db.execute(
            "SELECT r.requested, r.worlds, r.oracle FROM match_regrets r JOIN matches m"
            " ON m.id = r.match_id WHERE m.match_key = ? LIMIT 1",
            (key,),
        ).fetchone()
        return None if row is None else tuple(row)

    def exploit(self, key):
        """The stored exploit run of this :func:`exploit_key`, or None (see :meth:`exploits`)."""
        found = self.exploits(key=key)
        return found[0] if found else None

    def exploits(self, variant=None, episode=None, rules=None, key=None):
        """Stored exploit runs (optionally of one variant / episode / rules dict, or one key), oldest
        first. Each: {"id", "exploit_key", "player_id", "spec", "content_hash", each of ``EXPLOIT_COLUMNS``
        (rules a dict, init a [spec, content_hash] list), "result"}."""
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

    def card(self, key):
        """The stored benchmark card of this :func:`card_key` (complete or not), or None."""
        found = self.cards(key=key, complete=None)
        return found[0] if found else None

    def cards(self, variant=None, key=None, complete: bool | None = True, limit=None):
        """Stored benchmark cards, newest first (optionally of one variant, one key; complete ones
        only unless ``complete`` is None; at most ``limit``). Each: {"id", "card_key", "spec",
        "content_hash", "suite", "seed", "variant", "complete", "code_version", "created", "card"}."""
        where, args = [], []
        for column, value in (
            ("c.variant", variant),
            ("c.card_key", key),
            ("c.complete", complete),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(int(value) if isinstance(value, bool) else value)
        columns = [
            "id",
            "card_key",
            "suite",
            "seed",
            "variant",
            "complete",
            "code_version",
            "created",
        ]
        rows = self.db.execute(
            f"SELECT {', '.join(f'c.{c}' for c in columns)}, p.spec, p.content_hash, c.card"
            " FROM cards c JOIN players p ON p.id = c.player_id"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY c.id DESC"
            + (" LIMIT ?" if limit is not None else ""),
            [*args, *([int(limit)] if limit is not None else [])],
        ).fetchall()
        out = []
        for row in rows:
            found = dict(zip([*columns, "spec", "content_hash", "card"], row, strict=True))
            found["complete"] = bool(found["complete"])
            found["card"] = json.loads(found["card"])
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
            match["rules"] = self._json_cell(
                "matches", f"match {match['id']}", "rules", match["rules"]
            )
            out[match["id"]] = dict(match, player_ids=[])
        for match_id, player_id in players:
            out[match_id]["player_ids"].append(player_id)
        return list(out.values())

    def groups(self):
        """The distinct (variant, episode, rules dict) of the stored matches, in the order of
        their first match: [{"variant", "episode", "rules"}] (one query, not a pass over matches)."""
        rows = self.db.execute(
            "SELECT variant, episode, rules FROM matches"  # rules: the first match's (MIN)
            " GROUP BY variant, episode, keyed_rules(variant, rules) ORDER BY MIN(id)"
        )
        return [
            {
                "variant": v,
                "episode": e,
                "rules": self._json_cell("matches", f"a {v} match", "rules", r),
            }
            for v, e, r in rows
        ]

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
        matches whose values cannot be a summary (``SUMMARY_CHECKS``: text, a negative count, a
        negative variance), or whose position names no player (match_players, players)."""
        selected = f"t.match_id IN (SELECT id FROM matches{where})"
        for sound, expected in SUMMARY_CHECKS[table]:
            row = self.db.execute(
                f"SELECT t.match_id, t.position, {', '.join(f't.{c}' for c in SUMMARY_COLUMNS[table])}"
                f" FROM {table} t WHERE {selected} AND NOT ({sound}) LIMIT 1",
                args,
            ).fetchone()
            if row is not None:
                values = ", ".join(
                    f"{c}={v!r}" for c, v in zip(SUMMARY_COLUMNS[table], row[2:], strict=True)
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

    @staticmethod
    def _where(variant, episode, rules):
        """(' WHERE ...' or '', arguments) selecting matches by variant / episode / rules dict."""
        where, args = [], []
        for column, value in (("variant", variant), ("episode", episode)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if rules is not None:  # the same rules whatever options were added since a row was stored
            where.append("keyed_rules(variant, rules) = keyed_rules(variant, ?)")
            args.append(rules_text(rules))
        return (" WHERE " + " AND ".join(where) if where else ""), args

    def match_summary(self, match_id):
        """The stored MatchResult.to_dict() of a match (its "players" checked to be named)."""
        row = self.db.execute("SELECT summary FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise ValueError(f"no match {match_id!r} in {self.path!r}")
        return self._summary(match_id, row[0])

    def _json_cell(self, table, row, column, text):
        """The JSON value of a stored cell; the store's one-line damage error (naming the table, the
        row and the column) when it is not JSON text."""
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError):
            shown = repr(text)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise self.damaged(table, row, f"{column}={shown} is not JSON") from None

    def _summary(self, match_id, text, positions=None):
        """A match's stored summary, whose "players" is a list of {"name": str, ...} (of
        ``positions`` players, when given); the damage error otherwise."""
        summary = self._json_cell("matches", f"match {match_id}", "summary", text)
        players = summary.get("players") if isinstance(summary, dict) else None
        if (
            not isinstance(players, list)
            or not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in players)
            or (positions is not None and len(players) != positions)
        ):
            count = "" if positions is None else f"{positions} "
            raise self.damaged(
                "matches",
                f"match {match_id}",
                f"summary holds no list of the {count}players' names",
            )
        return summary

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
        players = self._summary(match_id, summary, len(versions))["players"]
        names = [
            p["name"] + (f"@{version_label(content_hash)}" if count > 1 else "")
            for p, (content_hash, count) in zip(players, versions, strict=True)
        ]
        if variant not in variants.NAMES:
            raise self.damaged("matches", f"match {match_id}", f"variant={variant!r} is no variant")
        rules = self._json_cell("matches", f"match {match_id}", "rules", rules)
        teams = variants.make(variant).num_teams
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
            row = f"match {match_id}, game {game}"
            scores = self._json_cell("games", row, "final_scores", final_scores)
            seated = self._json_cell("games", row, "seats", seats)
            if (
                not _ints(scores)
                or not _ints(seated)
                or not all(0 <= p < len(names) for p in seated)
            ):
                raise self.damaged(
                    "games",
                    row,
                    f"seats={seats!r}, final_scores={final_scores!r}: expected lists of ints, "
                    f"the seats' positions in 0..{len(names) - 1}",
                )
            try:
                number = int(key, 16)
            except (TypeError, ValueError):
                raise self.damaged("games", row, f"stream_key={key!r} is not hexadecimal") from None
            records.append(
                GameRecord(
                    variant=variant,
                    episode=episode,
                    rules=rules,
                    key=number,
                    actions=bytes(actions),
                    names=tuple(names[p] for p in seated),
                    final_scores=tuple(scores[:teams]),
                )
            )
        if wanted is not None and len(records) != len(wanted):
            missing = sorted(wanted - {g for g, *_ in rows})
            raise ValueError(
                f"match {match_id} has no game {missing[0]} (games 0..{len(rows) - 1})"
            )
        return records


def _ints(value):
    """Whether ``value`` (read from JSON) is a list of ints."""
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )
