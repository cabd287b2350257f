"""Start-up checks before the app writes to a database: is it ours, writable, sound."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from therapy_app.storage.database import integrity_check, raise_translated
from therapy_app.storage.errors import (
    DatabaseCorruptError,
    ForeignDatabaseError,
    StorageUnavailableError,
)
from therapy_app.storage.schema import MIGRATION_NAMES, SCHEMA_VERSION, schema_version

_LOGGER = logging.getLogger(__name__)

MIGRATIONS_TABLE = "_sqlite_migrations"
MIGRATION_SET = "therapy_app"

READ_ONLY_NOTICE = (
    "Le dossier des données est en lecture seule : vous pouvez consulter les "
    "données, mais rien de nouveau ne peut être enregistré."
)
"""Shown while the app runs in read-only mode."""


def is_writable(db_path: Path) -> bool:
    """Whether the app may write the database and create files beside it.

    ``os.access`` answers for the real user and for read-only mounts (EROFS),
    also for root, without creating anything.
    """
    folder = db_path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return not db_path.exists() or os.access(db_path, os.W_OK)


def check_is_ours(db: Database, path: Path) -> None:
    """Refuse another program's SQLite file before anything writes to it.

    A file is ours when it is empty (a new database) or when its sqlite-utils
    migrations table records this app's first migration. Another program's
    file is never switched to WAL, migrated or even made private.

    Raises:
        ForeignDatabaseError: the file holds tables but not the app's.
        StorageError: the file cannot be read.
    """
    try:
        names = {
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchall()
        }
        if not names:
            return
        if MIGRATIONS_TABLE in names:
            found = db.execute(
                f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE migration_set = ? AND name = ?",
                (MIGRATION_SET, MIGRATION_NAMES[0]),
            ).fetchone()
            if found:
                return
    except sqlite3.Error as exc:
        raise_translated(exc, f"checking whose database {path} is")
    _LOGGER.error("%s is another program's SQLite file (tables: %s)", path, sorted(names)[:10])
    raise ForeignDatabaseError(path)


def check_sound(db: Database, path: Path) -> None:
    """``PRAGMA quick_check`` at start-up: a damaged page is found before it is written over.

    Raises:
        DatabaseCorruptError: the check reports problems (their first lines are logged).
    """
    try:
        lines = integrity_check(db, quick=True)
    except sqlite3.DatabaseError as exc:
        # A damaged header or root page fails the check itself.
        lines = [f"{exc.__class__.__name__}: {exc}"]
    if lines == ["ok"]:
        return
    _LOGGER.error("quick_check of %s failed: %s", path, lines[:20])
    raise DatabaseCorruptError(
        "La base de données est endommagée : l'application ne l'a pas modifiée.",
        "Restaurez la dernière sauvegarde (Espace thérapeute, ou la commande "
        "« therapy-app restore FICHIER ») ; ne supprimez pas le fichier endommagé.",
        f"quick_check of {path}: {'; '.join(lines[:5])}",
    )


def check_readable_as_is(db: Database, path: Path) -> None:
    """A read-only database can be shown only if it needs no migration.

    Raises:
        StorageUnavailableError: it is older than this code (it would need writing).
    """
    found = schema_version(db)
    if found != SCHEMA_VERSION:
        raise StorageUnavailableError(
            "Le dossier des données est en lecture seule et ces données viennent d'une "
            "version plus ancienne de l'application : elles ne peuvent pas être ouvertes "
            "sans être mises à jour.",
            "Rendez le dossier des données accessible en écriture, puis relancez l'application.",
            f"read-only {path} at schema v{found}, code at v{SCHEMA_VERSION}",
        )


def read_only_missing(path: Path) -> StorageUnavailableError:
    """The error for a read-only folder that holds no database yet."""
    return StorageUnavailableError(
        "Le dossier des données est en lecture seule et ne contient encore aucune donnée.",
        "Vérifiez les droits d'accès au dossier des données, ou choisissez-en un autre.",
        f"{path.parent} is read-only and has no {path.name}",
    )
