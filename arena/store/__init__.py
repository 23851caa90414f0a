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
    cards(id, card_key, player_id, suite, seed, variant, complete, code_version,
          created, card)                    per benchmark report card (``ghost-euchre-evaluate
                                            benchmark``, :mod:`arena.benchmark`): the
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
empty, and opened read only reads as holding none). The file is in WAL
mode with a busy timeout, so several processes may read and write it at once
(readers, opening a store included, never wait for a writer nor block it;
writers take turns).
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
    Opening and transactions: :class:`~arena.store.file.StoreFile`; reads:
    :class:`~arena.store.queries.StoreQueries`; writes:
    :class:`~arena.store.writes.StoreWrites`.
    """


def reading_store(path):
    """A :class:`Store` to read ``path`` (a leaderboard, a replay): opened read only when its version
    reads as it is (nothing is written to it, a read-only file included); a store of version 1 or 2
    is upgraded first (its summaries are computed once)."""
    try:
        return Store(path, read_only=True)
    except OlderVersion:
        return Store(path)
