"""Restoring a backup: everything checked and unpacked beside the data, then one reversible switch.

Nothing in the data folder changes until the whole backup has been read:
the manifest's values, every name and size (:mod:`backup_format`), every
file's SHA-256, the database's integrity, origin and version, the room on
the disk, and that each file fits where it goes (no file where a folder is
needed). The files are unpacked into a hidden ``.restauration-*`` folder of
the data folder (same disk: the switch is renames only); the database is
migrated and its restore logged there. Then, with the app closed and the
start-up lock held, :func:`restore_switch.switch_in` moves the current data
aside and the new data in, undoing every step on any failure. Recordings
are never deleted or overwritten. The patients' voice folders
(``voice/``) come back with the database they belong to: every file of the
backup's is staged, like the queue's, whatever is in place now.

Any failure is a :class:`~therapy_app.errors.TherapyAppError` with a French
message: the backup's faults, a read-only or full disk, a file size limit
(``ulimit -f``: CPython ignores SIGXFSZ, so writes fail with EFBIG).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from sqlite_utils import Database

from therapy_app.errors import TherapyAppError
from therapy_app.paths import ensure_data_dir, user_data_dir
from therapy_app.storage import backup_crypto, opening
from therapy_app.storage.backup_format import (
    DB_MEMBER,
    BackupFormatError,
    BackupInfo,
    Manifest,
    Member,
    check_members,
    newer_format,
    not_a_backup,
    open_archive,
    read_manifest,
)
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.storage.pending import PENDING_DIR
from therapy_app.storage.repository import DB_FILENAME, SessionRepository
from therapy_app.storage.restore_switch import SwitchPlan, switch_in
from therapy_app.storage.schema import SCHEMA_VERSION
from therapy_app.storage.startup_lock import startup_lock
from therapy_app.voice.model import VOICE_FOLDER

_LOGGER = logging.getLogger(__name__)

WORK_PREFIX = ".restauration-"
WHOLE_FOLDERS = (PENDING_DIR, VOICE_FOLDER)
"""Folders that belong with the database: the backup's files are all staged (not only the
ones missing here), and what is in place now goes aside with the database."""
FREE_SPACE_MARGIN = 32 << 20
"""Left free on the disk after unpacking (SQLite's journal, the app's next writes)."""
_CHUNK = 1 << 20
# What zipfile raises on a damaged or hostile archive (an OSError is the disk's).
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    KeyError,
    ValueError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    zlib.error,
)


@dataclass(frozen=True)
class RestoredBackup(BackupInfo):
    """What a restore put in place (counts read from the restored database).

    Attributes:
        aside: the folder that holds what was replaced (None: nothing was, a new data folder).
    """

    aside: Path | None = None


@contextlib.contextmanager
def _french_errors(archive: Path, base: Path) -> Iterator[None]:
    """Turn the disk's and the archive's failures into French errors."""
    try:
        yield
    except TherapyAppError:
        raise
    except OSError as exc:
        raise _disk_error(exc, archive, base) from exc
    except sqlite3.Error as exc:
        raise StorageUnavailableError(
            "La base de données de la sauvegarde n'a pas pu être préparée.",
            "Vérifiez qu'il reste de la place sur le disque, puis réessayez. Rien n'a été modifié.",
            f"staging the restored database: {exc}",
        ) from exc
    except _ARCHIVE_ERRORS as exc:  # RecursionError is a RuntimeError
        raise not_a_backup(f"reading {archive}: {exc!r}"[:300]) from exc


# What the disk said, in the therapist's words: (errno values, message, what to do).
_DISK_FAULTS: tuple[tuple[frozenset[int], str, str], ...] = (
    (
        frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", -1), errno.EFBIG}),
        "Il n'y a pas assez de place pour restaurer la sauvegarde "
        "(disque plein, ou fichier trop grand pour ce système).",
        "Libérez de la place sur le disque des données, puis réessayez.",
    ),
    (
        frozenset({errno.EROFS, errno.EACCES, errno.EPERM}),
        "Le dossier des données est en lecture seule : la sauvegarde ne peut pas y être restaurée.",
        "Vérifiez les droits d'accès au dossier des données.",
    ),
    (
        frozenset({errno.ENOTDIR, errno.EISDIR, errno.EEXIST}),
        "Un fichier occupe la place d'un dossier des données (ou l'inverse).",
        "Renommez ou déplacez-le, puis réessayez.",
    ),
    (
        frozenset({errno.ENAMETOOLONG}),
        "Le chemin du dossier des données est trop long pour ce disque.",
        "Choisissez un dossier des données plus court.",
    ),
)


def _disk_error(exc: OSError, archive: Path, base: Path) -> TherapyAppError:
    message, hint = (
        "La sauvegarde n'a pas pu être restaurée : le disque a signalé une erreur.",
        "Vérifiez que les disques sont branchés, puis réessayez.",
    )
    if exc.filename is not None and Path(os.fsdecode(exc.filename)) == archive:
        message, hint = (
            "Le fichier de sauvegarde ne peut pas être lu.",
            "Vérifiez que le support est branché et lisible, puis réessayez.",
        )
    else:
        for codes, fault, remedy in _DISK_FAULTS:
            if exc.errno in codes:
                message, hint = fault, remedy
                break
    return StorageUnavailableError(
        message, f"{hint} Rien n'a été modifié.", f"restoring {archive} into {base}: {exc}"
    )


def _unpack(zf: zipfile.ZipFile, member: Member, target: Path) -> None:
    """Write ``member`` to ``target`` with a size cap, checking its SHA-256 as it goes."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    digest = hashlib.sha256()
    written = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags, 0o600)
    with zf.open(member.name) as source, os.fdopen(fd, "wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > member.size:  # more than declared: never trust the header
                raise not_a_backup(f"{member.name}: more bytes than declared")
            digest.update(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    if digest.hexdigest() != member.sha256:
        raise not_a_backup(f"{member.name}: SHA-256 differs from the manifest")


def _check_restored_database(path: Path) -> tuple[int, int]:
    """Refuse a database that is not this app's, damaged or newer; return its counts."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        opening.check_is_ours(Database(conn), path)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        lines = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
        if version > SCHEMA_VERSION:
            raise newer_format(f"backup schema v{version} > v{SCHEMA_VERSION}")
        if lines != ["ok"]:
            raise not_a_backup(f"restored database integrity: {lines[:3]}")
        patients = conn.execute("SELECT COUNT(*) FROM patients").fetchone()[0]
        attempts = conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise not_a_backup(f"restored database: {exc}") from exc
    finally:
        conn.close()
    return int(patients), int(attempts)


def _check_fits(base: Path, relative: PurePosixPath) -> None:
    """Refuse a file whose place in the data folder is taken by a folder (or the reverse)."""
    folder = base
    for part in relative.parts[:-1]:
        folder = folder / part
        if folder.exists() and not folder.is_dir():
            raise _clash(folder)
    target = base.joinpath(*relative.parts)
    if target.is_dir():
        raise _clash(target)


def _clash(path: Path) -> StorageUnavailableError:
    return StorageUnavailableError(
        "Dans le dossier des données, un fichier occupe la place d'un dossier de la "
        "sauvegarde (ou l'inverse).",
        f"Renommez ou déplacez « {path} », puis réessayez. Rien n'a été modifié.",
        f"{path} is in the way of the restore",
    )


def _check_room(base: Path, members: list[Member]) -> None:
    needed = sum(m.size for m in members) + FREE_SPACE_MARGIN
    free = shutil.disk_usage(base).free
    if needed > free:
        raise StorageUnavailableError(
            "Il n'y a pas assez de place sur le disque pour restaurer cette sauvegarde "
            f"(il faut environ {needed // (1 << 20) + 1} Mo).",
            "Libérez de la place sur le disque des données, puis réessayez. Rien n'a été modifié.",
            f"{needed} bytes needed, {free} free in {base}",
        )


def _log_restore(
    staged_dir: Path,
    archive: Path,
    manifest: Manifest,
    encrypted: bool,
    clock: Callable[[], datetime],
) -> None:
    """Migrate the staged database and log its backup and this restore in it."""
    with SessionRepository(staged_dir, clock=clock, check_integrity=False) as repository:
        # The copy was taken before its own backup was logged: log it here,
        # or the restored data would claim it was never backed up.
        if repository.maintenance.last_backup_time() != manifest.made_at:
            repository.maintenance.record_backup(
                "backup", archive.name, encrypted, manifest.attempts, None, made_at=manifest.made_at
            )
        repository.maintenance.record_backup("restore", archive.name, encrypted, None, None)


def _stage(
    archive: Path,
    base: Path,
    work: Path,
    passphrase: str | None,
    clock: Callable[[], datetime],
) -> tuple[SwitchPlan, RestoredBackup]:
    """Read, check and unpack the whole backup into ``work``; the data folder is only read."""
    with open_archive(archive, work, passphrase) as zf:
        encrypted = backup_crypto.is_encrypted(archive)
        size = archive.stat().st_size
        manifest = read_manifest(zf)
        members = check_members(zf, manifest, os.stat(zf.filename or archive).st_size)
        files = [m for m in members if m.name != DB_MEMBER]
        for member in files:
            if member.relative.parts[0] not in WHOLE_FOLDERS:  # those go aside whole
                _check_fits(base, member.relative)
        _check_room(base, members)
        staged_db = work / "db" / DB_FILENAME
        _unpack(zf, members[0], staged_db)
        patients, attempts = _check_restored_database(staged_db)
        staged: dict[PurePosixPath, Path] = {}
        for member in files:
            target = work / "files" / Path(*member.relative.parts)
            _unpack(zf, member, target)
            current = base.joinpath(*member.relative.parts)
            # The current queue and voices go aside whole: their files are always put back.
            whole = member.relative.parts[0] in WHOLE_FOLDERS
            if whole or not (current.is_file() and _same_file(current, member.sha256)):
                staged[member.relative] = target
    _log_restore(staged_db.parent, archive, manifest, encrypted, clock)
    plan = SwitchPlan(staged_db, DB_FILENAME, staged, manifest.made_at)
    info = RestoredBackup(
        path=archive,
        made_at=manifest.made_at,
        encrypted=encrypted,
        patient_count=patients,
        attempt_count=attempts,
        file_count=len(files),
        missing=manifest.missing,
        size_bytes=size,
    )
    return plan, info


def _same_file(path: Path, sha256: str) -> bool:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest() == sha256


def _check_app_closed(db_path: Path) -> None:
    """Refuse to restore under a running app (it would go on writing the old file)."""
    if not db_path.is_file():
        return
    conn = sqlite3.connect(db_path, timeout=0.5, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StorageUnavailableError(
                "L'application est ouverte : la sauvegarde ne peut pas être restaurée maintenant.",
                "Fermez toutes les fenêtres de l'application, puis recommencez.",
                f"{db_path} in use: {exc}",
            ) from exc
        _LOGGER.debug("current database unreadable before restore: %s", exc)
    except sqlite3.DatabaseError as exc:
        _LOGGER.debug("current database damaged before restore: %s", exc)
    finally:
        conn.close()


def _open_data_folder(base: Path) -> None:
    try:
        # The same check as at start-up: a shared or foreign folder is refused
        # before anything is written into it.
        ensure_data_dir(base)
    except (NotADirectoryError, FileExistsError) as exc:
        raise StorageUnavailableError(
            "Le dossier des données est remplacé par un fichier du même nom.",
            f"Renommez ou déplacez le fichier qui est à la place de « {base} », puis "
            "réessayez. Rien n'a été modifié.",
            f"data folder {base} is not a folder: {exc}",
        ) from exc


def inspect_backup(
    archive: Path, data_dir: Path | None = None, *, passphrase: str | None = None
) -> BackupInfo:
    """What a backup holds, read from its manifest, without changing any data.

    The names, sizes and manifest values are checked as for a restore (not
    the hashes): most bad files are refused here, before a confirmation.

    Args:
        archive: the backup file.
        data_dir: where an encrypted backup is decrypted for the time of the
            call (default ``paths.user_data_dir()``: private, on the same disk).
        passphrase: for an encrypted backup.

    Raises:
        BackupFormatError: not a backup, damaged, or from a newer version.
        BackupPassphraseError: missing or wrong passphrase.
        StorageUnavailableError: the file cannot be read or decrypted.
    """
    archive = Path(archive)
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    with _french_errors(archive, base):
        _open_data_folder(base)
        with (
            tempfile.TemporaryDirectory(
                dir=base, prefix=WORK_PREFIX, ignore_cleanup_errors=True
            ) as tmp,
            open_archive(archive, Path(tmp), passphrase) as zf,
        ):
            manifest = read_manifest(zf)
            members = check_members(zf, manifest, os.stat(zf.filename or archive).st_size)
        return BackupInfo(
            path=archive,
            made_at=manifest.made_at,
            encrypted=backup_crypto.is_encrypted(archive),
            patient_count=manifest.patients,
            attempt_count=manifest.attempts,
            file_count=len(members) - 1,
            missing=manifest.missing,
            size_bytes=archive.stat().st_size,
        )


def restore_backup(
    archive: Path,
    data_dir: Path | None = None,
    *,
    passphrase: str | None = None,
    clock: Callable[[], datetime] | None = None,
    before_switch: Callable[[], None] | None = None,
) -> RestoredBackup:
    """Replace the data with a backup's, keeping what is replaced aside; all or nothing.

    See the module docstring for the checks, and :mod:`restore_switch` for
    the aside folder ``<data dir>/avant-restauration-<date>[-n]/``.

    Args:
        archive: the backup file.
        data_dir: the data folder (default ``paths.user_data_dir()``).
        passphrase: for an encrypted backup.
        clock: current aware time (tests).
        before_switch: called once everything is checked and staged, just
            before the switch (the app closes its own database connection there).

    Returns:
        What was restored, and where the previous data is.

    Raises:
        BackupFormatError: not a backup, damaged, or from a newer version.
        BackupPassphraseError: missing or wrong passphrase.
        StorageUnavailableError: the app is running, or the folder cannot be
            written (read-only, full, a file in the way); nothing was changed,
            unless the message says the roll-back failed.
    """
    archive = Path(archive)
    now = clock or (lambda: datetime.now(UTC))
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    db_path = base / DB_FILENAME
    with _french_errors(archive, base):
        _open_data_folder(base)
        if before_switch is None:  # say "close the app" now, not after unpacking it all
            _check_app_closed(db_path)
        with tempfile.TemporaryDirectory(
            dir=base, prefix=WORK_PREFIX, ignore_cleanup_errors=True
        ) as tmp:
            plan, info = _stage(archive, base, Path(tmp), passphrase, now)
            if before_switch is not None:
                before_switch()
            with startup_lock(db_path):
                _check_app_closed(db_path)
                aside = switch_in(plan, base, now())
    _LOGGER.info("restored %s into %s (previous data in %s)", archive, base, aside)
    return replace(info, aside=aside)


__all__ = ["BackupFormatError", "RestoredBackup", "inspect_backup", "restore_backup"]
