"""Maintenance of the data: backup copy and log, counts, integrity, damaged rows, orphan files."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from therapy_app.paths import create_private_file
from therapy_app.storage import damage, pending, row_codec
from therapy_app.storage.damage import DamagedRow
from therapy_app.storage.database import fetch_all, integrity_check
from therapy_app.storage.recording_files import recording_files
from therapy_app.storage.store_base import Store


class MaintenanceStore(Store):
    """Backups, checks and clean-up helpers over the whole database and data folder."""

    def snapshot_database(self, target: Path) -> None:
        """A consistent copy of the database at ``target``, made while the app runs.

        SQLite's backup API (a file copy without the WAL would miss what was
        committed since the last checkpoint). The copy is a self-contained
        rollback-journal file, 0600.
        """
        create_private_file(target)
        with self._repository.connection("copying the database") as db:
            copy = sqlite3.connect(target)
            try:
                db.conn.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")
            finally:
                copy.close()

    def record_backup(
        self,
        kind: str,
        file_name: str,
        encrypted: bool,
        attempt_count: int | None,
        size_bytes: int | None,
        made_at: datetime | None = None,
    ) -> None:
        """Log a backup or a restore (a read-only database logs nothing).

        ``made_at`` defaults to now.
        """
        if self._repository.read_only:
            return
        with self._repository.transaction("recording a backup") as db:
            db.execute(
                "INSERT INTO backups (kind, made_at, file_name, encrypted, attempt_count,"
                " size_bytes) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    row_codec.to_db_time(made_at or self._repository.now()),
                    file_name,
                    int(encrypted),
                    attempt_count,
                    size_bytes,
                ),
            )

    def last_backup_time(self) -> datetime | None:
        """When the last backup was made, or None."""
        with self._repository.connection("reading backups") as db:
            found = fetch_all(db, "SELECT MAX(made_at) FROM backups WHERE kind = 'backup'")
        try:
            return row_codec.from_db_time(found[0][0]) if found else None
        except ValueError:
            return None

    def has_attempts(self) -> bool:
        """Whether any attempt is stored (or queued): something worth a backup."""
        with self._repository.connection("counting attempts") as db:
            stored = bool(fetch_all(db, "SELECT 1 FROM attempts LIMIT 1"))
        return stored or self._repository.queue.queued_attempt_count() > 0

    def data_counts(self) -> tuple[int, int]:
        """Patients (archived ones included) and stored attempts: what a restore would replace."""
        with self._repository.connection("counting the data") as db:
            patients = fetch_all(db, "SELECT COUNT(*) FROM patients")[0][0]
            stored = fetch_all(db, "SELECT COUNT(*) FROM attempts")[0][0]
        return int(patients), int(stored)

    def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check`` result lines (``["ok"]`` when sound)."""
        with self._repository.connection("checking integrity") as db:
            return integrity_check(db)

    def orphan_recordings(self) -> list[str]:
        """Recording files that no attempt refers to, sorted (relative paths).

        A crash between writing the file and committing its row leaves one;
        so does a temp file of an interrupted write, a database moved away, or
        a restore (the previous data's recordings stay in place). Opening the
        repository deletes the temp files whose writer is gone; complete files
        are never deleted automatically: a maintenance command can,
        after showing them.
        """
        data_dir = self._repository.data_dir
        return sorted(recording_files(data_dir) - self.referenced_recordings())

    def referenced_recordings(self) -> set[str]:
        """Recording paths of stored rows and of queued attempts."""
        with self._repository.connection("listing recordings") as db:
            referenced = {
                r[0]
                for r in fetch_all(
                    db, "SELECT recording_path FROM attempts WHERE recording_path IS NOT NULL"
                )
            }
        return referenced | pending.queued_recordings(self._repository.data_dir)

    def damaged_rows(self) -> list[DamagedRow]:
        """Rows with values the app cannot read (bad JSON, bad times), for a maintenance view."""
        with self._repository.connection("looking for damaged rows") as db:
            return damage.find_damaged_rows(db)
