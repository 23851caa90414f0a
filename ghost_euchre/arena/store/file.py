"""The SQLite file of a league store: opening it (created, upgraded or read only), transactions.

The file is in WAL mode with a busy timeout, so several processes may read and
write it at once (readers, opening a store included, never wait for a writer
nor block it; writers take turns).
"""

import contextlib
import os
import sqlite3
import time
import urllib.parse

from .identity import keyed_rules_text
from .schema import (
    READABLE_VERSIONS,
    SCHEMA_VERSION,
    add_missing_as_temporary,
    create_tables,
    missing_tables,
    schema_versions,
    upgrade,
)

DEFAULT_DB = os.path.join("runs", "league.sqlite")
BUSY_TIMEOUT_S = 600.0  # how long a writer waits for another one to finish its transaction


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


class StoreFile:
    """The SQLite file of a league store: opening (creating, upgrading), transactions, closing.

    See :class:`ghost_euchre.arena.store.Store`, which adds the reads and the writes.
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
        self.db.create_function("keyed_rules", 2, keyed_rules_text, deterministic=True)
        try:
            self._check_ours()  # before anything is written: another application's file is left as it is
            self._check_not_newer()  # neither read nor written (schema.py: the promise)
            if read_only:
                versions = schema_versions(self.db)
                if len(versions) == 1 and versions[0] < min(READABLE_VERSIONS):
                    raise OlderVersion(
                        f"{self.path!r} holds a league store of version {versions[0]}, which "
                        f"reads once upgraded to {SCHEMA_VERSION} (read only: nothing is upgraded)"
                    )
                if len(versions) != 1 or versions[0] not in READABLE_VERSIONS:
                    raise ValueError(
                        f"{self.path!r} holds no league store of version {SCHEMA_VERSION} "
                        "(read only: nothing is created or upgraded)"
                    )
                add_missing_as_temporary(self.db)
                self.db.execute("PRAGMA query_only=ON")
                return
            self._switch_to_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: safe against a killed process
            self.db.execute("PRAGMA foreign_keys=ON")
            versions = schema_versions(self.db)  # a read: opening a store never waits for a writer
            if not versions:  # a new file: create the tables (in a write transaction, once)
                with self.transaction():
                    self._check_ours()
                    create_tables(self.db)
                    versions = schema_versions(self.db)
                    if not versions:
                        self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
                        versions = [SCHEMA_VERSION]
            if len(versions) == 1 and versions[0] < SCHEMA_VERSION:
                versions = upgrade(self, versions[0])
            if versions != [SCHEMA_VERSION]:
                raise ValueError(
                    f"store {self.path!r} has schema version {versions}; "
                    f"this code reads version {SCHEMA_VERSION}"
                )
            if missing_tables(self.db):  # an early version 2 lacked exploits: given it, empty
                with self.transaction():
                    create_tables(self.db)
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

    def _check_not_newer(self):
        """:class:`NewerVersion` if the file's schema version is one this code does not know (a newer
        one, or not a version at all); read before anything is written, even the journal mode."""
        with self.reading():  # one state of the file: another process may be creating it now
            versions = schema_versions(self.db)
            tables = self.db.execute(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name != 'schema_version'"
            ).fetchone()[0]
        if versions == [SCHEMA_VERSION]:
            return
        if not versions:  # a new file, or one whose version row is gone (then not written)
            if tables:
                raise self.damaged("schema_version", "its rows", "none: the store has no version")
            return
        known = all(isinstance(v, int) and 1 <= v <= SCHEMA_VERSION for v in versions)
        if len(versions) == 1 and known:  # an older store: read or upgraded as schema.py says
            return
        shown = versions[0] if len(versions) == 1 else versions
        if not known and all(isinstance(v, int) and v > SCHEMA_VERSION for v in versions):
            raise NewerVersion(
                f"league store {self.path!r} has schema version {shown}, newer than this code knows "
                f"(at most {SCHEMA_VERSION}): refused, nothing read or written (a newer "
                "ghost-euchre made it)"
            )
        raise self.damaged("schema_version", "its rows", f"{shown!r} is not one schema version")

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

    def damaged(self, table, row, what):
        """The ValueError of a damaged row: one line naming the store, the table and the row."""
        return ValueError(f"league store {self.path!r} is damaged: table {table}, {row}: {what}")


class NewerVersion(ValueError):
    """A store of a schema version newer than ``SCHEMA_VERSION``: neither read nor written."""


class OlderVersion(ValueError):
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
