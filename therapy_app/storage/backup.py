"""Backups of all patients' data (database, recordings, voices) and the entry points to restore one.

A backup is one file: a ZIP archive with ``manifest.json`` (app and schema
version, counts, the SHA-256 of every file), a consistent copy of the
database made with SQLite's backup API while the app may be running (a file
copy without the WAL would lose everything since the last checkpoint), the
recordings the copy refers to, the on-disk queue and its recordings, and
every patient's personal-voice folder (``voice/``: recordings made for it,
adapters, decisions). With a
passphrase the archive is encrypted (:mod:`therapy_app.storage.backup_crypto`).
The format is in :mod:`backup_format`; restoring, all or nothing and without
ever deleting a recording, in :mod:`restore` (re-exported here).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import stat
import tempfile
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

from therapy_app import output_paths
from therapy_app.model_store import sha256_file
from therapy_app.paths import ensure_private_dir
from therapy_app.storage import backup_crypto, pending
from therapy_app.storage.backup_format import (
    BACKUP_SUFFIX,
    FORMAT,
    MANIFEST,
    VOICE_FORMAT,
    BackupFormatError,
    BackupInfo,
    Manifest,
    member_path,
)
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.storage.pending import PENDING_DIR
from therapy_app.storage.repository import DB_FILENAME, SessionRepository
from therapy_app.storage.restore import RestoredBackup, inspect_backup, restore_backup
from therapy_app.storage.restore_switch import ASIDE_PREFIX
from therapy_app.voice import store as voice_store
from therapy_app.voice.model import VOICE_FOLDER

_LOGGER = logging.getLogger(__name__)

DEFAULT_MAX_AGE_DAYS = 7
"""The app warns when the last backup is older than this."""

__all__ = [
    "ASIDE_PREFIX",
    "BACKUP_SUFFIX",
    "DEFAULT_MAX_AGE_DAYS",
    "FORMAT",
    "MANIFEST",
    "BackupFormatError",
    "BackupInfo",
    "RestoredBackup",
    "backup_warning",
    "create_backup",
    "default_name",
    "inspect_backup",
    "restore_backup",
]


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
    # Every caller (the CLI checks it too, the therapist area's file dialog does not):
    # a backup written into the data folder could replace the live database.
    if output_paths.inside_data_folder(destination, repository.data_dir):
        raise output_paths.OutputPathError(
            "Une sauvegarde ne s'écrit pas dans le dossier des données de l'application.",
            "Choisissez un autre emplacement, par exemple une clé USB.",
            f"backup destination {destination} is inside {repository.data_dir}",
        )
    try:
        ensure_private_dir(destination.parent)
        with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".sauvegarde-") as tmp:
            work = Path(tmp)
            snapshot = work / DB_FILENAME
            repository.maintenance.snapshot_database(snapshot)
            patients, attempts, referenced = _counts(snapshot)
            # Queued attempts' recordings too: they are in no row yet.
            referenced += sorted(pending.queued_recordings(repository.data_dir))
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
    repository.maintenance.record_backup(
        "backup", info.path.name, info.encrypted, attempts, info.size_bytes
    )
    _LOGGER.info("backup written: %s (%d attempts, %d files)", destination, attempts, files)
    return info


_VOICE_SKIPPED = frozenset({voice_store.WORK_DIR, voice_store.LOCK_FILE, voice_store.MANIFEST_FILE})
"""Not backed up: the trainer's resumable work folder and manifest (the next run
rebuilds them) and its lock."""


def voice_files(data_dir: Path) -> list[str]:
    """Archive names of the files of every patient's voice folder, sorted.

    Regular files only (never a link), without the hidden temporary files
    of atomic writes, the trainer's work folder and its lock.
    """
    root = data_dir / VOICE_FOLDER
    if not root.is_dir() or root.is_symlink():
        return []
    names: list[str] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in _VOICE_SKIPPED]
        for file in files:
            path = Path(folder) / file
            if file.startswith(".") or file in _VOICE_SKIPPED:
                continue
            try:
                if not stat.S_ISREG(path.lstat().st_mode):
                    continue
            except FileNotFoundError:  # replaced or deleted meanwhile
                continue
            name = path.relative_to(data_dir).as_posix()
            if member_path(name) is not None:
                names.append(name)
    return sorted(names)


def _add_voice_file(zf: zipfile.ZipFile, source: Path, name: str) -> str:
    """Copy a voice file into the archive and return the SHA-256 of exactly what was copied.

    Unlike a recording, a voice file may be replaced (a new decision) or
    grow (``samples.jsonl``) while the backup runs: hashing it apart from
    the copy could disagree with the copy, and the backup would not restore.
    """
    digest = hashlib.sha256()
    info = zipfile.ZipInfo.from_file(source, name)
    info.compress_type = zipfile.ZIP_STORED
    with source.open("rb") as reader, zf.open(info, "w", force_zip64=True) as writer:
        while chunk := reader.read(1 << 20):
            digest.update(chunk)
            writer.write(chunk)
    return digest.hexdigest()


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
    voice = voice_files(data_dir)
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(snapshot, DB_FILENAME, compress_type=zipfile.ZIP_DEFLATED)
        for name in sorted(set(referenced)) + sorted(extra):
            relative = member_path(name)
            source = data_dir.joinpath(*relative.parts) if relative else None
            if source is None or not source.is_file():
                missing.append(name)
                continue
            # Recordings are written once, atomically: a file seen now is complete.
            hashes[name] = sha256_file(source)
            zf.write(source, name, compress_type=zipfile.ZIP_STORED)
        for name in voice:
            try:
                hashes[name] = _add_voice_file(zf, data_dir / name, name)
            except FileNotFoundError:  # replaced or deleted since it was listed
                _LOGGER.info("backup: voice file %s gone while saving", name)
        manifest = Manifest(
            made_at=made_at,
            patients=patients,
            attempts=attempts,
            files=hashes,
            missing=tuple(missing),
            format=VOICE_FORMAT if any(n in hashes for n in voice) else 1,
        )
        zf.writestr(MANIFEST, manifest.to_json())
    if missing:
        _LOGGER.warning("backup: %d referenced file(s) missing: %s", len(missing), missing[:5])
    return len(hashes) - 1, missing


def backup_warning(
    repository: SessionRepository, max_age_days: int = DEFAULT_MAX_AGE_DAYS
) -> str | None:
    """French reminder when there is data and no backup newer than ``max_age_days``.

    Returns:
        The message, or None when a recent backup exists (or nothing to save yet).
    """
    last = repository.maintenance.last_backup_time()
    now = repository.now()
    if last is not None and now - last <= timedelta(days=max_age_days):
        return None
    if not repository.maintenance.has_attempts():
        return None
    how = "Espace thérapeute, ou la commande « therapy-app backup »"
    if last is None:
        return f"Aucune sauvegarde des données n'a encore été faite. Pensez à en faire une ({how})."
    days = (now - last).days
    return (
        f"La dernière sauvegarde date du {last.astimezone():%d/%m/%Y} (il y a {days} jours). "
        f"Pensez à en faire une nouvelle ({how})."
    )
