"""Backups of all patients' data (database + recordings) and their restore.

A backup is one file: a ZIP archive with ``manifest.json`` (app and schema
version, counts, the SHA-256 of every file), a consistent copy of the
database made with SQLite's backup API while the app may be running (a file
copy without the WAL would lose everything since the last checkpoint), the
recordings the copy refers to and the on-disk queue. With a passphrase the
archive is encrypted (:mod:`therapy_app.storage.backup_crypto`).

Restoring checks the whole archive first (hashes, integrity, schema), needs
the app to be closed, and moves the current database aside into
``avant-restauration-<date>/`` instead of deleting it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any

from sqlite_utils import Database

from therapy_app import __version__
from therapy_app.errors import TherapyAppError
from therapy_app.model_store import sha256_file
from therapy_app.paths import ensure_private_dir, user_data_dir
from therapy_app.storage import backup_crypto, opening
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.storage.pending import PENDING_DIR
from therapy_app.storage.recordings import RECORDINGS_DIR
from therapy_app.storage.repository import DB_FILENAME, SessionRepository
from therapy_app.storage.rows import from_db_time, to_db_time
from therapy_app.storage.schema import SCHEMA_VERSION
from therapy_app.storage.startup_lock import startup_lock

_LOGGER = logging.getLogger(__name__)

BACKUP_SUFFIX = ".therapy-backup"
MANIFEST = "manifest.json"
FORMAT = 1
DEFAULT_MAX_AGE_DAYS = 7
"""The app warns when the last backup is older than this."""
ASIDE_PREFIX = "avant-restauration-"


class BackupFormatError(TherapyAppError):
    """The file is not a backup of this app, or it is damaged."""


@dataclass(frozen=True)
class BackupInfo:
    """What a backup holds.

    Attributes:
        path: the backup file.
        made_at: when the database was copied (UTC).
        encrypted: protected by a passphrase.
        patient_count: patients in it.
        attempt_count: attempts in it.
        file_count: recordings and queue files in it.
        missing: recordings the database refers to that were not on disk.
        size_bytes: size of the backup file.
    """

    path: Path
    made_at: datetime
    encrypted: bool
    patient_count: int
    attempt_count: int
    file_count: int
    missing: tuple[str, ...]
    size_bytes: int

    def summary(self) -> str:
        """The French confirmation shown after a backup (CLI and therapist area)."""
        return (
            f"Sauvegarde écrite : {self.path} ({self.patient_count} patient(s), "
            f"{self.attempt_count} essai(s), {self.file_count} fichier(s)"
            f"{', chiffrée' if self.encrypted else ''})."
        )


def default_name(now: datetime) -> str:
    """``sauvegarde-orthophonie-2025-03-14-093000.therapy-backup`` (local time)."""
    return f"sauvegarde-orthophonie-{now.astimezone():%Y-%m-%d-%H%M%S}{BACKUP_SUFFIX}"


def _counts(db_path: Path) -> tuple[int, int, list[str]]:
    conn = sqlite3.connect(db_path)
    try:
        patients = conn.execute("SELECT COUNT(*) FROM patients").fetchone()[0]
        attempts = conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
        paths = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT recording_path FROM attempts WHERE recording_path IS NOT NULL"
            )
        ]
    finally:
        conn.close()
    return patients, attempts, paths


def _safe_relative(name: str) -> PurePosixPath | None:
    """``name`` as a path inside the data folder, or None when it would leave it."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\\" in name or ":" in name:
        return None
    if not path.parts or path.parts[0] not in (RECORDINGS_DIR, PENDING_DIR):
        return None
    return path


def create_backup(
    repository: SessionRepository, destination: Path, *, passphrase: str | None = None
) -> BackupInfo:
    """Write a backup of everything in ``repository`` to ``destination``.

    Args:
        repository: the open data (the app may go on writing meanwhile).
        destination: the backup file, or an existing folder to put it in
            (named by :func:`default_name`). Written atomically, 0600.
        passphrase: encrypt with it (at least 8 characters).

    Returns:
        What was saved.

    Raises:
        BackupPassphraseError: the passphrase is too short.
        StorageUnavailableError: the destination cannot be written.
    """
    if passphrase is not None:
        backup_crypto.check_passphrase(passphrase)
    made_at = repository.now()
    destination = Path(destination)
    if destination.is_dir():
        destination = destination / default_name(made_at)
    try:
        ensure_private_dir(destination.parent)
        with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".sauvegarde-") as tmp:
            work = Path(tmp)
            snapshot = work / DB_FILENAME
            repository.snapshot_database(snapshot)
            patients, attempts, referenced = _counts(snapshot)
            archive = work / "backup.zip"
            files, missing = _write_archive(
                archive, snapshot, repository.data_dir, referenced, made_at, patients, attempts
            )
            final = archive
            if passphrase is not None:
                final = work / "backup.enc"
                backup_crypto.encrypt_file(archive, final, passphrase)
            final.chmod(0o600)
            os.replace(final, destination)
    except OSError as exc:
        raise StorageUnavailableError(
            "La sauvegarde n'a pas pu être écrite à cet endroit.",
            "Vérifiez que le support est branché, qu'il reste de la place, puis réessayez.",
            f"writing backup {destination}: {exc}",
        ) from exc
    info = BackupInfo(
        path=destination,
        made_at=made_at,
        encrypted=passphrase is not None,
        patient_count=patients,
        attempt_count=attempts,
        file_count=files,
        missing=tuple(missing),
        size_bytes=destination.stat().st_size,
    )
    repository.record_backup("backup", info.path.name, info.encrypted, attempts, info.size_bytes)
    _LOGGER.info("backup written: %s (%d attempts, %d files)", destination, attempts, files)
    return info


def _write_archive(
    archive: Path,
    snapshot: Path,
    data_dir: Path,
    referenced: list[str],
    made_at: datetime,
    patients: int,
    attempts: int,
) -> tuple[int, list[str]]:
    hashes: dict[str, str] = {DB_FILENAME: sha256_file(snapshot)}
    missing: list[str] = []
    queue = data_dir / PENDING_DIR
    extra = (
        [p.relative_to(data_dir).as_posix() for p in queue.glob("*.json")] if queue.is_dir() else []
    )
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(snapshot, DB_FILENAME, compress_type=zipfile.ZIP_DEFLATED)
        for name in sorted(set(referenced)) + sorted(extra):
            relative = _safe_relative(name)
            source = data_dir.joinpath(*relative.parts) if relative else None
            if source is None or not source.is_file():
                missing.append(name)
                continue
            # Recordings are written once, atomically: a file seen now is complete.
            hashes[name] = sha256_file(source)
            zf.write(source, name, compress_type=zipfile.ZIP_STORED)
        manifest = {
            "format": FORMAT,
            "app": "therapy_app",
            "app_version": __version__,
            "schema_version": SCHEMA_VERSION,
            "made_at": to_db_time(made_at),
            "patients": patients,
            "attempts": attempts,
            "files": hashes,
            "missing": missing,
        }
        zf.writestr(MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1))
    if missing:
        _LOGGER.warning("backup: %d referenced file(s) missing: %s", len(missing), missing[:5])
    return len(hashes) - 1, missing


def _not_a_backup(detail: str) -> BackupFormatError:
    return BackupFormatError(
        "Ce fichier n'est pas une sauvegarde de l'application, ou il est abîmé.",
        "Choisissez un fichier « .therapy-backup » fait par l'application.",
        detail,
    )


def _open_archive(archive: Path, work: Path, passphrase: str | None) -> zipfile.ZipFile:
    if not archive.is_file():
        raise _not_a_backup(f"{archive} is not a file")
    if backup_crypto.is_encrypted(archive):
        if not passphrase:
            raise backup_crypto.BackupPassphraseError(
                "Cette sauvegarde est protégée par un mot de passe.",
                "Indiquez le mot de passe choisi lors de la sauvegarde.",
                "encrypted backup without a passphrase",
            )
        plain = work / "backup.zip"
        backup_crypto.decrypt_file(archive, plain, passphrase)
        archive = plain
    if not zipfile.is_zipfile(archive):
        raise _not_a_backup(f"{archive} is not a ZIP archive")
    return zipfile.ZipFile(archive)


def _extract_checked(zf: zipfile.ZipFile, name: str, target: Path, expected: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with zf.open(name) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    target.chmod(0o600)
    if sha256_file(target) != expected:
        raise _not_a_backup(f"{name}: SHA-256 differs from the manifest")


def _check_restored_database(path: Path) -> None:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        db = Database(conn)
        opening.check_is_ours(db, path)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        lines = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        raise _not_a_backup(f"restored database: {exc}") from exc
    finally:
        conn.close()
    if version > SCHEMA_VERSION:
        raise BackupFormatError(
            "Cette sauvegarde vient d'une version plus récente de l'application.",
            "Installez la dernière version de l'application, puis restaurez-la.",
            f"backup schema v{version} > v{SCHEMA_VERSION}",
        )
    if lines != ["ok"]:
        raise _not_a_backup(f"restored database integrity: {lines[:3]}")


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
        _LOGGER.warning("current database unreadable before restore: %s", exc)
    except sqlite3.DatabaseError as exc:
        _LOGGER.warning("current database damaged before restore: %s", exc)
    finally:
        conn.close()


def restore_backup(
    archive: Path,
    data_dir: Path | None = None,
    *,
    passphrase: str | None = None,
    clock: Callable[[], datetime] | None = None,
) -> BackupInfo:
    """Replace the data with a backup's, keeping the current database aside.

    The whole archive is checked before anything changes: every file's
    SHA-256, the database's integrity, that it is this app's and not newer.
    Recordings already present are kept; the current database, its journals
    and the queue go to ``<data dir>/avant-restauration-<date>/``.

    Args:
        archive: the backup file.
        data_dir: the data folder (default ``paths.user_data_dir()``).
        passphrase: for an encrypted backup.
        clock: current aware time (tests).

    Returns:
        What the backup held.

    Raises:
        BackupFormatError: not a backup, damaged, or from a newer version.
        BackupPassphraseError: missing or wrong passphrase.
        StorageUnavailableError: the app is running, or the folder cannot be written.
    """
    now = (clock or (lambda: datetime.now(UTC)))()
    base = Path(data_dir) if data_dir is not None else user_data_dir()
    ensure_private_dir(base)
    db_path = base / DB_FILENAME
    with tempfile.TemporaryDirectory(dir=base, prefix=".restauration-") as tmp:
        work = Path(tmp)
        try:
            with _open_archive(Path(archive), work, passphrase) as zf:
                manifest = _read_manifest(zf)
                hashes: dict[str, str] = manifest["files"]
                restored_db = work / "restored" / DB_FILENAME
                _extract_checked(zf, DB_FILENAME, restored_db, hashes[DB_FILENAME])
                _check_restored_database(restored_db)
                files: dict[PurePosixPath, Path] = {}
                for name, digest in hashes.items():
                    if name == DB_FILENAME:
                        continue
                    relative = _safe_relative(name)
                    if relative is None:
                        raise _not_a_backup(f"unsafe path in archive: {name!r}")
                    target = work / "files" / Path(*relative.parts)
                    _extract_checked(zf, name, target, digest)
                    files[relative] = target
        except (zipfile.BadZipFile, KeyError, ValueError, TypeError) as exc:
            raise _not_a_backup(f"reading {archive}: {exc!r}") from exc
        with startup_lock(db_path):
            _check_app_closed(db_path)
            aside = _move_current_aside(base, now)
            for relative, source in files.items():
                target = base.joinpath(*relative.parts)
                if target.is_file():
                    if sha256_file(target) == sha256_file(source):
                        continue
                    keep = aside / Path(*relative.parts)
                    keep.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(target, keep)
                ensure_private_dir(target.parent)
                os.replace(source, target)
            os.replace(restored_db, db_path)
    encrypted = backup_crypto.is_encrypted(Path(archive))
    made_at = from_db_time(manifest["made_at"]) or now
    with SessionRepository(base) as repository:  # migrates an older backup
        # The copy was taken before its own backup was logged: log it here,
        # or the restored data would claim it was never backed up.
        if repository.last_backup_time() != made_at:
            repository.record_backup(
                "backup",
                Path(archive).name,
                encrypted,
                int(manifest.get("attempts", 0)),
                None,
                made_at=made_at,
            )
        repository.record_backup("restore", Path(archive).name, encrypted, None, None)
    _LOGGER.info("restored %s into %s (previous data in %s)", archive, base, aside)
    return BackupInfo(
        path=Path(archive),
        made_at=made_at,
        encrypted=encrypted,
        patient_count=int(manifest.get("patients", 0)),
        attempt_count=int(manifest.get("attempts", 0)),
        file_count=len(files),
        missing=tuple(manifest.get("missing", ())),
        size_bytes=Path(archive).stat().st_size,
    )


def _read_manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    manifest = json.loads(zf.read(MANIFEST).decode("utf-8"))
    if not isinstance(manifest, dict):
        raise _not_a_backup("manifest is not a JSON object")
    if manifest.get("app") != "therapy_app" or not isinstance(manifest.get("files"), dict):
        raise _not_a_backup("manifest is not this app's")
    if int(manifest.get("format", 0)) > FORMAT:
        raise BackupFormatError(
            "Cette sauvegarde vient d'une version plus récente de l'application.",
            "Installez la dernière version de l'application, puis restaurez-la.",
            f"backup format {manifest.get('format')}",
        )
    if DB_FILENAME not in manifest["files"]:
        raise _not_a_backup("no database in the manifest")
    return manifest


def _move_current_aside(base: Path, now: datetime) -> Path:
    """Move the current database, its journals and the queue into a dated folder."""
    aside = base / f"{ASIDE_PREFIX}{now.astimezone():%Y-%m-%d-%H%M%S}"
    ensure_private_dir(aside)
    for name in (DB_FILENAME, f"{DB_FILENAME}-wal", f"{DB_FILENAME}-shm", PENDING_DIR):
        current = base / name
        if current.exists():
            os.replace(current, aside / name)
    return aside


def backup_warning(
    repository: SessionRepository, max_age_days: int = DEFAULT_MAX_AGE_DAYS
) -> str | None:
    """French reminder when there is data and no backup newer than ``max_age_days``.

    Returns:
        The message, or None when a recent backup exists (or nothing to save yet).
    """
    last = repository.last_backup_time()
    now = repository.now()
    if last is not None and now - last <= timedelta(days=max_age_days):
        return None
    if not repository.has_attempts():
        return None
    how = "Espace thérapeute, ou la commande « therapy-app backup »"
    if last is None:
        return f"Aucune sauvegarde des données n'a encore été faite. Pensez à en faire une ({how})."
    days = (now - last).days
    return (
        f"La dernière sauvegarde date du {last.astimezone():%d/%m/%Y} (il y a {days} jours). "
        f"Pensez à en faire une nouvelle ({how})."
    )
