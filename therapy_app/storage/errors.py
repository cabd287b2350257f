"""Storage errors: what the environment did wrong, told in French, apart from our bugs."""

from __future__ import annotations

import errno
import logging
import sqlite3
from datetime import datetime
from pathlib import Path

from therapy_app.errors import TherapyAppError

_LOGGER = logging.getLogger(__name__)

# Primary SQLite result codes (https://www.sqlite.org/rescode.html) that mean the
# machine, the disk or another program is at fault, not our SQL.
_SQLITE_PERM = 3
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_NOMEM = 7
_SQLITE_READONLY = 8
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14
_SQLITE_NOTADB = 26

_OS_ENV_ERRNOS = {
    errno.ENOSPC,
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.EIO,
    getattr(errno, "EDQUOT", errno.ENOSPC),
}


class StorageError(TherapyAppError):
    """Base class for expected storage failures (the environment, not a bug)."""


class DatabaseVersionError(StorageError):
    """The database was written by a newer version of the application."""

    def __init__(self, found: int, supported: int) -> None:
        super().__init__(
            "Ces données ont été enregistrées par une version plus récente de l'application.",
            "Installez la dernière version de l'application pour les ouvrir ; "
            "elles n'ont pas été modifiées.",
            f"database schema version {found} is newer than supported version {supported}",
        )
        self.found = found
        self.supported = supported


class StorageUnavailableError(StorageError):
    """The disk or the database file cannot be used right now (full, locked, read-only...)."""


class DatabaseCorruptError(StorageError):
    """The database file is damaged or is not a database."""


class ForeignDatabaseError(StorageError):
    """The database file is another program's SQLite database: left untouched."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            "Le fichier de données appartient à un autre programme : "
            "l'application ne l'a pas modifié.",
            f"Déplacez le fichier « {path} » ou choisissez un autre dossier de données.",
            f"{path} is an SQLite database without this app's migrations",
        )
        self.path = path


class AccountLockedError(StorageError):
    """Too many wrong passwords: the therapist account is locked for a while."""

    def __init__(self, username: str, locked_until: datetime) -> None:
        local = locked_until.astimezone()
        super().__init__(
            "Trop d'essais incorrects avec ce nom d'utilisateur : la connexion est "
            f"bloquée jusqu'à {local:%H:%M:%S}.",
            "Patientez puis réessayez.",
            f"therapist {username!r} locked until {locked_until.isoformat()}",
        )
        self.username = username
        self.locked_until = locked_until


# Message and advice shared by the SQLite and the file-system translations.
_DISK_FULL = (
    "Le disque est plein : l'enregistrement n'a pas pu être sauvegardé.",
    "Libérez de la place sur le disque puis réessayez.",
)
_READ_ONLY = (
    "Le dossier des données est en lecture seule.",
    "Vérifiez les droits d'accès au dossier des données.",
)


def translate_sqlite_error(exc: sqlite3.Error, action: str) -> Exception:
    """Map an SQLite exception to a French StorageError when the environment caused it.

    Args:
        exc: the exception raised by ``sqlite3``.
        action: English words for the log ("adding an attempt").

    Returns:
        A ``StorageError`` to raise instead, or ``exc`` itself when it looks like
        a bug in our code (bad SQL, constraint violated): those must stay loud.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    detail = f"{action}: {exc.__class__.__name__}: {exc}"
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text:
        return StorageUnavailableError(
            "La base de données est occupée par un autre programme.",
            "Fermez les autres fenêtres de l'application puis réessayez.",
            detail,
        )
    if primary == _SQLITE_FULL or "disk is full" in text:
        return StorageUnavailableError(*_DISK_FULL, detail)
    if primary in (_SQLITE_READONLY, _SQLITE_PERM) or "readonly" in text:
        return StorageUnavailableError(*_READ_ONLY, detail)
    if primary in (_SQLITE_CANTOPEN, _SQLITE_IOERR, _SQLITE_NOMEM) or "unable to open" in text:
        return StorageUnavailableError(
            "Impossible de lire ou d'écrire la base de données.",
            "Vérifiez que le disque est branché et accessible, puis réessayez.",
            detail,
        )
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or "malformed" in text:
        return DatabaseCorruptError(
            "La base de données est endommagée.",
            "Restaurez la dernière sauvegarde (commande « therapy-app restore FICHIER ») ; "
            "ne supprimez pas le fichier.",
            detail,
        )
    _LOGGER.error("SQLite error that looks like a bug while %s: %s", action, exc)
    return exc


def translate_os_error(exc: OSError, action: str) -> Exception:
    """Map an ``OSError`` from writing a recording to a French StorageError.

    Returns ``exc`` itself for errors that point at our code (bad path type...).
    """
    detail = f"{action}: {exc}"
    if exc.errno == errno.ENOSPC or exc.errno == getattr(errno, "EDQUOT", -1):
        return StorageUnavailableError(*_DISK_FULL, detail)
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StorageUnavailableError(*_READ_ONLY, detail)
    if exc.errno in (errno.ENOTDIR, errno.EISDIR, errno.EEXIST):
        return StorageUnavailableError(
            "Un fichier occupe la place d'un dossier des données (ou l'inverse).",
            "Renommez ou déplacez ce fichier dans le dossier des données, puis réessayez.",
            detail,
        )
    if exc.errno in _OS_ENV_ERRNOS:
        return StorageUnavailableError(
            "Impossible d'écrire l'enregistrement sur le disque.",
            "Vérifiez que le disque est branché et accessible, puis réessayez.",
            detail,
        )
    _LOGGER.error("OS error that looks like a bug while %s: %s", action, exc)
    return exc


class AccountError(StorageError):
    """A therapist account cannot be created as asked (name taken, password too short)."""
