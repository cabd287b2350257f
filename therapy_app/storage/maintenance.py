"""The repository's maintenance side: backup copy and log, integrity, damaged rows, orphans."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlite_utils import Database

from therapy_app.paths import create_private_file
from therapy_app.storage import damage, pending, rows
from therapy_app.storage.damage import DamagedRow
from therapy_app.storage.database import integrity_check
from therapy_app.storage.recordings import recording_files


class MaintenanceMixin:
    """Backups, checks and clean-up helpers of :class:`SessionRepository`."""

    _db: Database
    _lock: threading.RLock
    _clock: Callable[[], datetime]
    data_dir: Path
    read_only: bool

    if TYPE_CHECKING:

        def transaction(self, action: str = ...) -> AbstractContextManager[None]: ...
        def _reading(self, action: str) -> AbstractContextManager[None]: ...
        def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]: ...
        def queued_attempt_count(self) -> int: ...

    def now(self) -> datetime:
        """The repository's current aware UTC time (its clock)."""
        return self._clock()

    def snapshot_database(self, target: Path) -> None:
        """A consistent copy of the database at ``target``, made while the app runs.

        SQLite's backup API (a file copy without the WAL would miss what was
        committed since the last checkpoint). The copy is a self-contained
        rollback-journal file, 0600.
        """
        create_private_file(target)
        with self._reading("copying the database"):
            copy = sqlite3.connect(target)
            try:
                self._db.conn.backup(copy)
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
        if self.read_only:
            return
        with self.transaction("recording a backup"):
            self._db.execute(
                "INSERT INTO backups (kind, made_at, file_name, encrypted, attempt_count,"
                " size_bytes) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    rows.to_db_time(made_at or self._clock()),
                    file_name,
                    int(encrypted),
                    attempt_count,
                    size_bytes,
                ),
            )

    def last_backup_time(self) -> datetime | None:
        """When the last backup was made, or None."""
        with self._reading("reading backups"):
            found = self._fetch("SELECT MAX(made_at) FROM backups WHERE kind = 'backup'")
        try:
            return rows.from_db_time(found[0][0]) if found else None
        except ValueError:
            return None

    def has_attempts(self) -> bool:
        """Whether any attempt is stored (or queued): something worth a backup."""
        with self._reading("counting attempts"):
            stored = bool(self._fetch("SELECT 1 FROM attempts LIMIT 1"))
        return stored or self.queued_attempt_count() > 0

    def data_counts(self) -> tuple[int, int]:
        """Patients (archived ones included) and stored attempts: what a restore would replace."""
        with self._reading("counting the data"):
            patients = self._fetch("SELECT COUNT(*) FROM patients")[0][0]
            stored = self._fetch("SELECT COUNT(*) FROM attempts")[0][0]
        return int(patients), int(stored)

    def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check`` result lines (``["ok"]`` when sound)."""
        with self._reading("checking integrity"):
            return integrity_check(self._db)

    def orphan_recordings(self) -> list[str]:
        """Recording files that no attempt refers to, sorted (relative paths).

        A crash between writing the file and committing its row leaves one;
        so does a temp file of an interrupted write, a database moved away, or
        a restore (the previous data's recordings stay in place). Opening the
        repository deletes the temp files whose writer is gone; complete files
        are never deleted automatically: a maintenance command can,
        after showing them.
        """
        return sorted(recording_files(self.data_dir) - self._referenced_recordings())

    def _referenced_recordings(self) -> set[str]:
        """Recording paths of stored rows and of queued attempts."""
        with self._reading("listing recordings"):
            referenced = {
                r[0]
                for r in self._fetch(
                    "SELECT recording_path FROM attempts WHERE recording_path IS NOT NULL"
                )
            }
        return referenced | pending.queued_recordings(self.data_dir)

    def damaged_rows(self) -> list[DamagedRow]:
        """Rows with values the app cannot read (bad JSON, bad times), for a maintenance view."""
        with self._reading("looking for damaged rows"):
            return damage.find_damaged_rows(self._db)
