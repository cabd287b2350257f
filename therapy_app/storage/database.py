"""Opening the SQLite file with the app's settings, the write transaction and read helpers."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from sqlite_utils import Database

from therapy_app.paths import create_private_file, make_private
from therapy_app.storage.errors import (
    StorageError,
    StorageUnavailableError,
    translate_sqlite_error,
)

_LOGGER = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5_000
"""How long a writer waits for another connection's lock before giving up."""


_COMPANION_SUFFIXES = ("", "-wal", "-shm", "-journal", ".lock")
"""The database file and what SQLite and the start-up lock put beside it."""


def refuse_symlinks(path: Path) -> None:
    """Refuse a database file (or journal, or lock file) that is a symbolic link.

     SQLite follows a link, even a dangling one, and creates the database, its
     journal and its WAL at the link's target, outside the data folder
    . The data folder itself may be a link; its files may not.

     Raises:
         StorageUnavailableError: one of the files is a link (French message).
    """
    for suffix in _COMPANION_SUFFIXES:
        candidate = path.with_name(path.name + suffix)
        if candidate.is_symlink():
            raise StorageUnavailableError(
                f"Le fichier « {candidate.name} » du dossier des données est un lien vers "
                "un autre emplacement : l'application ne l'ouvre pas.",
                "Remplacez le lien par le fichier lui-même (ou restaurez une sauvegarde), "
                "puis relancez l'application.",
                f"{candidate} is a symbolic link to {os.readlink(candidate)!r}",
            )


def connect(path: Path, *, read_only: bool = False, tighten: bool = True) -> Database:
    """Open ``path`` (created if missing) with the per-connection settings.

    Args:
        path: the database file.
        read_only: open it with SQLite's ``mode=ro`` (a read-only folder or
            disk): nothing is created, every write fails.
        tighten: make the file and its journals 0600 now; the app passes
            False and tightens only once it knows the file is its own.

    Settings: ``foreign_keys=ON`` (SQLite forgets it for every new
    connection), a busy timeout, and ``synchronous=FULL`` so that a committed
    attempt survives a power cut too, not only a crash of the app. None of
    them writes to the file; the WAL journal mode, which does, is set by
    :func:`enable_wal` once the schema version has been checked.

    The connection may be used from another thread than the one that opened
    it (the GUI's database worker); the repository serialises access.

    The file is created 0600 (and an existing one, its ``-wal`` and ``-shm``
    made 0600): SQLite gives its journal files the database file's mode.

    Raises:
        StorageUnavailableError: the file cannot be opened (permissions, missing
            folder, a symbolic link...).
        DatabaseCorruptError: the file is not a database.
    """
    refuse_symlinks(path)
    if read_only:
        try:
            return _open(path, f"{path.resolve().as_uri()}?mode=ro", uri=True)
        except StorageError:
            # A WAL file closed cleanly has no -shm, and a read-only folder
            # cannot get one: read the (checkpointed) main file as immutable.
            _LOGGER.info("opening %s as immutable (read-only folder)", path)
            return _open(path, f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    if tighten:
        make_private_files(path)
    else:
        _create_private(path)
    return _open(path, str(path), uri=False)


def _open(path: Path, target: str, *, uri: bool) -> Database:
    try:
        # isolation_level=None: no implicit BEGIN from the driver; every write
        # goes through transaction() (or sqlite-utils' atomic()) explicitly.
        conn = sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
            uri=uri,
        )
    except sqlite3.Error as exc:
        raise_translated(exc, f"opening {path}")
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        # Reading the header now turns "not a database" into an error here.
        conn.execute("PRAGMA user_version").fetchone()
        return Database(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise_translated(exc, f"configuring {path}")


def _create_private(path: Path) -> None:
    try:
        create_private_file(path)
    except OSError as exc:
        _LOGGER.debug("cannot create %s before SQLite does: %s", path, exc)


def make_private_files(path: Path) -> None:
    """Create the database file 0600, or tighten it and its journal files.

    Failures are left for SQLite to report in French (missing or read-only
    folder): the permissions must never stop the data from being read.
    """
    _create_private(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        companion = path.with_name(path.name + suffix)
        try:
            if companion.exists():
                make_private(companion)
        except OSError as exc:
            _LOGGER.warning("cannot make %s private: %s", companion, exc)


def enable_wal(db: Database) -> None:
    """Switch the file to WAL (persistent): readers never block the writer.

    Raises:
        StorageError: the file cannot be written.
    """
    try:
        mode = db.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    except sqlite3.Error as exc:
        raise_translated(exc, "enabling WAL")
    if str(mode).lower() != "wal":
        # Happens on file systems without shared memory (some network shares);
        # the app still works, only with readers blocking the writer.
        _LOGGER.warning("WAL not available, journal_mode=%s", mode)


def raise_translated(exc: sqlite3.Error, action: str) -> NoReturn:
    """Raise the French StorageError for ``exc``, or ``exc`` itself if it is a bug."""
    translated = translate_sqlite_error(exc, action)
    if translated is exc:
        raise exc
    raise translated from exc


@contextlib.contextmanager
def transaction(db: Database, action: str = "writing") -> Iterator[Database]:
    """One write transaction: commit on success, roll back on any exception.

    Starts with ``BEGIN IMMEDIATE`` so the write lock is taken up front: a
    deferred transaction that reads then writes can fail with SQLITE_BUSY at
    once, without waiting, when another connection wrote in between. Nested
    use becomes a savepoint.

    Args:
        db: an open database.
        action: English words for logs and error details ("adding an attempt").

    Raises:
        StorageError: the environment failed (locked, disk full, read-only...).
        sqlite3.Error: any other SQLite error, which means a bug of ours.
    """
    conn = db.conn
    if conn.in_transaction:
        name = f"sp_{id(conn)}_{action.replace(' ', '_')}"[:60]
        conn.execute(f'SAVEPOINT "{name}"')
        try:
            yield db
        except BaseException:
            if conn.in_transaction:
                conn.execute(f'ROLLBACK TO "{name}"')
                conn.execute(f'RELEASE "{name}"')
            raise
        else:
            conn.execute(f'RELEASE "{name}"')
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise_translated(exc, action)
    try:
        yield db
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise_translated(exc, action)
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            # The failed statement may already have ended the transaction.
            _LOGGER.exception("rollback failed")


def integrity_check(db: Database, *, quick: bool = False) -> list[str]:
    """``PRAGMA integrity_check`` lines: ``["ok"]`` for a sound file.

    Args:
        db: an open database.
        quick: ``quick_check`` instead: the page and b-tree structure without
            matching indexes to their tables (linear time, start-up safe).
    """
    pragma = "quick_check" if quick else "integrity_check"
    return [row[0] for row in db.execute(f"PRAGMA {pragma}").fetchall()]


def fetch_all(db: Database, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
    """Run a read query and return name-addressable rows."""
    cursor = db.conn.cursor()
    cursor.row_factory = sqlite3.Row
    return cursor.execute(sql, tuple(params)).fetchall()


def fetch_one(db: Database, sql: str, params: tuple[Any, ...], what: str) -> sqlite3.Row:
    """The first row of a query by id (``params[0]``).

    Raises:
        KeyError: no row (``what`` names the kind of row in the message).
    """
    found = fetch_all(db, sql, params)
    if not found:
        raise KeyError(f"no {what} with id {params[0]!r}")
    return found[0]
