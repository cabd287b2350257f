"""SessionRepository: the one API through which the GUI and the CLI read and write data."""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from therapy_app import pause_tolerance
from therapy_app.audio.clip import AudioClip
from therapy_app.paths import DB_FILENAME as DB_FILENAME  # re-exported: callers import it here
from therapy_app.paths import UnsuitableFolderError, ensure_data_dir, user_data_dir
from therapy_app.storage import (
    accounts,
    attempts,
    opening,
    queries,
    recovery,
    rows,
)
from therapy_app.storage.database import (
    connect,
    enable_wal,
    make_private_files,
    raise_translated,
    refuse_symlinks,
    transaction,
)
from therapy_app.storage.errors import (
    DatabaseCorruptError,
    StorageUnavailableError,
    translate_os_error,
)
from therapy_app.storage.maintenance import MaintenanceMixin
from therapy_app.storage.patient_admin import PatientAdminMixin
from therapy_app.storage.queueing import QueueMixin
from therapy_app.storage.recordings import (
    SavedRecording,
    file_sha256,
    recording_file,
    remove_abandoned_temporary_files,
    remove_recording,
    save_recording,
)
from therapy_app.storage.records import (
    EXERCISE_KINDS,
    TRANSCRIPT_FIELDS,
    Attempt,
    AttemptRecord,
    Exercise,
    Patient,
    ProgressPoint,
    SessionSummary,
    TherapySession,
    TranscriptEdit,
    VerdictChange,
)
from therapy_app.storage.replay import ReplayReport
from therapy_app.storage.schema import check_not_newer, migrate, schema_version
from therapy_app.storage.startup_lock import startup_lock

_LOGGER = logging.getLogger(__name__)

AVATAR_COLOURS = ("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_COLOUR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


def _utc_now() -> datetime:
    return datetime.now(UTC)


class SessionRepository(QueueMixin, MaintenanceMixin, PatientAdminMixin):
    """Patients, therapist accounts, sessions, attempts and their history.

    Opening migrates the database to the current schema. One connection,
    guarded by a lock, so the object may be shared with a database worker
    thread. Every write is one transaction. Saving through the on-disk queue
    is in :class:`~therapy_app.storage.queueing.QueueMixin`; backups, checks
    and clean-up in :class:`~therapy_app.storage.maintenance.MaintenanceMixin`.

    Args:
        data_dir: folder for the database and recordings (default
            ``paths.user_data_dir()``, i.e. ``THERAPY_APP_DATA_DIR`` in tests).
        db_path: database file (default ``<data_dir>/therapy_app.sqlite3``).
        clock: returns the current aware UTC time (tests pass a fake one).

    Raises:
        DatabaseVersionError: the database comes from a newer release.
        StorageError: the folder or the file cannot be used.
    """

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        db_path: Path | None = None,
        clock: Callable[[], datetime] = _utc_now,
        check_integrity: bool = True,
    ) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else user_data_dir()
        self.db_path = Path(db_path) if db_path is not None else self.data_dir / DB_FILENAME
        self._clock = clock
        self._lock = threading.RLock()
        self.read_only = False
        """True when the data folder cannot be written: everything can be viewed, nothing saved."""
        self.notices: list[str] = []
        """French messages to show once the app is open (read-only mode, old backup...)."""
        self.removed_temporary_files: list[str] = []
        self.replayed = ReplayReport(written=0, remaining=0)
        try:
            ensure_data_dir(self.db_path.parent)
        except UnsuitableFolderError as exc:
            raise StorageUnavailableError(exc.user_message, exc.hint, exc.detail) from exc
        except (NotADirectoryError, FileExistsError) as exc:
            raise StorageUnavailableError(
                "Le dossier des données est remplacé par un fichier du même nom.",
                f"Renommez ou déplacez le fichier « {self.db_path.parent} », puis réessayez.",
                f"data folder {self.db_path.parent} is not a folder: {exc}",
            ) from exc
        except OSError as exc:
            translated = translate_os_error(exc, f"creating {self.db_path.parent}")
            if translated is exc:
                raise
            raise translated from exc
        refuse_symlinks(self.db_path)  # before the lock file is created beside it
        if self.db_path.exists() and not self.db_path.is_file():
            raise StorageUnavailableError(
                "Un dossier porte le nom du fichier de la base de données.",
                f"Renommez ou déplacez le dossier « {self.db_path} », puis réessayez.",
                f"{self.db_path} is not a file",
            )
        if not opening.is_writable(self.db_path):
            self._open_read_only(check_integrity)
            return
        # One process at a time creates, converts and migrates the file.
        with startup_lock(self.db_path):
            self._db: Database = connect(self.db_path, tighten=False)
            try:
                with self._reading("migrating"):
                    # Nothing writes to the file before it is known to be ours,
                    # sound and not newer than this code.
                    opening.check_is_ours(self._db, self.db_path)
                    check_not_newer(self._db)
                    if check_integrity:
                        opening.check_sound(self._db, self.db_path)
                    make_private_files(self.db_path)
                    enable_wal(self._db)
                    self.schema_version = migrate(self._db)
            except BaseException:
                self._db.close()
                raise
        # Only half-written temporary files of dead writers are deleted: a
        # finished recording never is, referenced or not (a database moved
        # away or restored must find its recordings again); those
        # without a row are listed by orphan_recordings.
        try:
            self.removed_temporary_files = remove_abandoned_temporary_files(
                self.data_dir, keep=self._referenced_recordings()
            )
        except (OSError, StorageUnavailableError):
            _LOGGER.warning("temporary recordings not cleaned", exc_info=True)
        # Attempts queued while the database was locked.
        self.replay_pending()

    def _open_read_only(self, check_integrity: bool) -> None:
        """Open for viewing only: a read-only folder or disk."""
        if not self.db_path.is_file():
            raise opening.read_only_missing(self.db_path)
        self._db = connect(self.db_path, read_only=True)
        try:
            with self._reading("opening read-only"):
                opening.check_is_ours(self._db, self.db_path)
                check_not_newer(self._db)
                opening.check_readable_as_is(self._db, self.db_path)
                if check_integrity:
                    opening.check_sound(self._db, self.db_path)
                self.schema_version = schema_version(self._db)
        except BaseException:
            self._db.close()
            raise
        _LOGGER.warning("%s opened read-only", self.db_path)
        self.read_only = True
        self.notices.append(opening.READ_ONLY_NOTICE)

    # -- plumbing ---------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> SessionRepository:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check_writable(self, action: str) -> None:
        if self.read_only:
            raise StorageUnavailableError(
                "Les données sont ouvertes en lecture seule : rien ne peut être enregistré.",
                "Vérifiez les droits d'accès au dossier des données, puis relancez l'application.",
                f"{action}: read-only mode",
            )

    @contextlib.contextmanager
    def transaction(self, action: str = "writing") -> Iterator[None]:
        """Group several repository writes into one transaction (nested calls join it).

        Raises:
            StorageUnavailableError: read-only mode, or the database is locked, full...
        """
        self._check_writable(action)
        with self._lock, transaction(self._db, action):
            yield

    @contextlib.contextmanager
    def connection(self, action: str) -> Iterator[Database]:
        """The connection, under the lock, for the store objects beside the repository.

        SQLite errors become ``StorageError``s. Reads need nothing more; a
        write goes inside :meth:`transaction` (``PhraseStore``, ``ScriptStore``).
        """
        with self._reading(action):
            yield self._db

    def now(self) -> datetime:
        """The repository's current time (the fake clock in tests)."""
        return self._clock()

    @contextlib.contextmanager
    def _reading(self, action: str) -> Iterator[None]:
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise_translated(exc, action)

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return queries.fetch_all(self._db, sql, params)

    def _fetch_one(self, sql: str, params: tuple[Any, ...], what: str) -> sqlite3.Row:
        found = self._fetch(sql, params)
        if not found:
            raise KeyError(f"no {what} with id {params[0]!r}")
        return found[0]

    # -- patients ---------------------------------------------------------------

    def create_patient(
        self, display_name: str, *, initials: str | None = None, avatar_colour: str | None = None
    ) -> Patient:
        """Add a patient; initials and colour are derived from the name when not given."""
        name = display_name.strip()
        if not name:
            raise ValueError("display_name must not be empty")
        colour = avatar_colour or AVATAR_COLOURS[zlib.crc32(name.encode()) % len(AVATAR_COLOURS)]
        if not _COLOUR_RE.match(colour):
            raise ValueError(f"avatar_colour must be #rrggbb, got {colour!r}")
        with self.transaction("creating a patient"):
            new_id = self._db.execute(
                "INSERT INTO patients (display_name, initials, avatar_colour, created_at)"
                " VALUES (?, ?, ?, ?)",
                (
                    name,
                    (initials or rows.initials(name))[:3],
                    colour,
                    rows.to_db_time(self._clock()),
                ),
            ).lastrowid
        return self.get_patient(int(new_id))  # type: ignore[arg-type]

    def get_patient(self, patient_id: int) -> Patient:
        """Raises KeyError for an unknown id."""
        with self._reading("reading a patient"):
            return rows.patient_from_row(
                self._fetch_one("SELECT * FROM patients WHERE id = ?", (patient_id,), "patient")
            )

    def set_pause_tolerance(self, patient_id: int, milliseconds: int) -> Patient:
        """Store how long ``patient_id`` may pause before a recording ends.

        Raises:
            ValueError: outside ``pause_tolerance.MIN_MS``..``MAX_MS``.
            KeyError: unknown patient.
        """
        value = pause_tolerance.checked(milliseconds)
        with self.transaction("saving a patient setting"):
            found = self._db.execute(
                "UPDATE patients SET pause_tolerance_ms = ? WHERE id = ?", (value, patient_id)
            ).rowcount
        if not found:
            raise KeyError(f"no patient {patient_id}")
        return self.get_patient(patient_id)

    def list_patients(self, *, include_archived: bool = False) -> list[Patient]:
        """Patients by name; archived ones only with ``include_archived`` (therapist area)."""
        where = "" if include_archived else " WHERE archived_at IS NULL"
        with self._reading("listing patients"):
            found = self._fetch(
                f"SELECT * FROM patients{where} ORDER BY display_name COLLATE NOCASE, id"  # noqa: S608
            )
            return rows.readable(found, rows.patient_from_row, "patient")

    # -- therapist accounts -----------------------------------------------------

    def has_therapist(self) -> bool:
        """False on first run: the GUI then asks to create the therapist account."""
        with self._reading("checking accounts"):
            return accounts.has_therapist(self._db)

    def create_therapist(self, username: str, password: str) -> str:
        """Create the therapist account (first run only) with an scrypt-hashed password.

        Returns:
            The recovery code, to show once (only its hash is stored).

        Raises:
            AccountError: an account exists already, empty username, password
                shorter than 8 characters.
        """
        self._check_writable("creating a therapist")
        with self._reading("creating a therapist"):
            return accounts.create_therapist(self._db, username, password, self._clock())

    def regenerate_recovery_code(self, username: str) -> str:
        """A new recovery code for the logged-in therapist; the old one stops working.

        Raises:
            AccountError: no such account.
        """
        self._check_writable("making a recovery code")
        with self._reading("making a recovery code"):
            return recovery.regenerate(self._db, username)

    def reset_password(self, username: str, code: str, new_password: str) -> str:
        """Set a new password with the recovery code (throttled like the login).

        Returns:
            The new recovery code (the used one stops working), to show once.

        Raises:
            AccountError: wrong username or code (French message), short password.
            AccountLockedError: too many wrong tries for this username.
        """
        self._check_writable("resetting a password")
        with self._reading("resetting a password"):
            return accounts.reset_password(self._db, username, code, new_password, self._clock())

    def verify_therapist(self, username: str, password: str) -> bool:
        """Check a password; count failures and lock the account after too many.

        Returns:
            True for the right password (the failure count is reset), False for a
            wrong one or an unknown username.

        Raises:
            AccountLockedError: the account is locked, or this failure locked it.
        """
        with self._reading("verifying a therapist"):
            return accounts.verify_therapist(
                self._db, username, password, self._clock(), read_only=self.read_only
            )

    # -- exercises and sessions -------------------------------------------------

    def list_exercises(self, kind: str | None = None) -> list[Exercise]:
        """The exercise catalogue, optionally of one kind."""
        with self._reading("listing exercises"):
            if kind is None:
                found = self._fetch("SELECT * FROM exercises ORDER BY level, id")
            else:
                found = self._fetch(
                    "SELECT * FROM exercises WHERE kind = ? ORDER BY level, id", (kind,)
                )
            return [rows.exercise_from_row(r) for r in found]

    def start_session(
        self,
        patient_id: int,
        exercise_kind: str,
        *,
        exercise_id: int | None = None,
        client_uuid: str | None = None,
        started_at: datetime | None = None,
    ) -> TherapySession:
        """Open a session (ended by :meth:`end_session`).

        Args:
            patient_id: who practises.
            exercise_kind: one of ``EXERCISE_KINDS``.
            exercise_id: the catalogue exercise, if any.
            client_uuid: the id the caller gave the session before its row
                existed (see :meth:`queue_session`).
            started_at: when it started (default now).
        """
        if exercise_kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {exercise_kind!r}")
        when = started_at or self._clock()
        with self.transaction("starting a session"):
            new_id = self._db.execute(
                "INSERT INTO sessions (patient_id, exercise_kind, exercise_id, started_at,"
                " client_uuid) VALUES (?, ?, ?, ?, ?)",
                (patient_id, exercise_kind, exercise_id, rows.to_db_time(when), client_uuid),
            ).lastrowid
        return self.get_session(int(new_id))  # type: ignore[arg-type]

    def end_session(self, session_id: int) -> TherapySession:
        """Close a session; closing it again keeps the first end time."""
        with self.transaction("ending a session"):
            self._db.execute(
                "UPDATE sessions SET ended_at = COALESCE(ended_at, ?) WHERE id = ?",
                (rows.to_db_time(self._clock()), session_id),
            )
        return self.get_session(session_id)

    def get_session(self, session_id: int) -> TherapySession:
        """Raises KeyError for an unknown id."""
        with self._reading("reading a session"):
            return rows.session_from_row(
                self._fetch_one("SELECT * FROM sessions WHERE id = ?", (session_id,), "session")
            )

    def list_sessions(self, patient_id: int) -> list[TherapySession]:
        """The patient's sessions, oldest first."""
        with self._reading("listing sessions"):
            found = self._fetch(
                "SELECT * FROM sessions WHERE patient_id = ? ORDER BY started_at, id",
                (patient_id,),
            )
            return rows.readable(found, rows.session_from_row, "session")

    # -- attempts ---------------------------------------------------------------

    def save_recording(self, clip: AudioClip, patient_id: int) -> SavedRecording:
        """Write a recording into this repository's data dir (see ``recordings``)."""
        self._check_writable("saving a recording")
        return save_recording(clip, patient_id, data_dir=self.data_dir, when=self._clock())

    def add_attempt(self, record: AttemptRecord, clip: AudioClip | None = None) -> int:
        """Store one complete attempt, committed before returning.

        With ``clip``, the recording is written (and fsynced) first, then the
        row in its own transaction: a crash can leave an unreferenced file (see
        :meth:`orphan_recordings`) but never a row pointing to a missing or
        partial file. Inside :meth:`transaction` the row commits with the
        outer block instead (bulk imports, the benchmark).

        Returns:
            The new attempt id.

        Raises:
            KeyError: unknown session.
            StorageUnavailableError: disk full, read-only, database locked.
        """
        if record.kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {record.kind!r}")
        self._check_writable("adding an attempt")
        created_at = record.created_at or self._clock()
        session = self.get_session(record.session_id)
        saved: SavedRecording | None = None
        if clip is not None:
            saved = save_recording(
                clip, session.patient_id, data_dir=self.data_dir, when=created_at
            )
            record = replace(
                record,
                recording_path=saved.relative_path,
                recording_sha256=saved.sha256,
                duration_s=record.duration_s if record.duration_s is not None else clip.duration,
            )
        try:
            with self.transaction("adding an attempt"):
                return attempts.insert_attempt(self._db, record, created_at)
        except BaseException:
            if saved is not None:
                remove_recording(saved.relative_path, self.data_dir)
            raise

    def get_attempt(self, attempt_id: int) -> Attempt:
        """One attempt (unreadable JSON columns are empty and listed in ``damaged``).

        Raises:
            KeyError: unknown id.
            DatabaseCorruptError: the row's time cannot be read.
        """
        with self._reading("reading an attempt"):
            row = self._fetch_one("SELECT * FROM attempts WHERE id = ?", (attempt_id,), "attempt")
            try:
                return rows.attempt_from_row(row)
            except rows.DamagedRowError as exc:
                raise DatabaseCorruptError(
                    "Cet essai est endommagé dans la base de données et ne peut pas être affiché.",
                    "Les autres essais ne sont pas touchés.",
                    str(exc),
                ) from exc

    def list_attempts(
        self, *, session_id: int | None = None, patient_id: int | None = None
    ) -> list[Attempt]:
        """Attempts of one session or of one patient (exactly one of the two), oldest first."""
        if (session_id is None) == (patient_id is None):
            raise ValueError("give exactly one of session_id or patient_id")
        with self._reading("listing attempts"):
            if session_id is not None:
                found = self._fetch(
                    "SELECT * FROM attempts WHERE session_id = ? ORDER BY created_at, id",
                    (session_id,),
                )
            else:
                found = self._fetch(
                    "SELECT a.* FROM attempts AS a JOIN sessions AS s ON s.id = a.session_id"
                    " WHERE s.patient_id = ? ORDER BY a.created_at, a.id",
                    (patient_id,),
                )
            return rows.readable(found, rows.attempt_from_row, "attempt")

    def recording_path(self, attempt: Attempt) -> Path | None:
        """Absolute path of the attempt's recording, if it has one."""
        path = attempt.record.recording_path
        return recording_file(path, self.data_dir) if path else None

    def verify_recording(self, attempt: Attempt) -> bool:
        """Whether the recording file exists and matches its stored SHA-256."""
        path = self.recording_path(attempt)
        if path is None or not path.is_file():
            return False
        return file_sha256(path) == attempt.record.recording_sha256

    # -- transcript edits -------------------------------------------------------

    def edit_transcript(self, attempt_id: int, field: str, new_text: str, editor: str) -> Attempt:
        """Correct a transcript: the ASR original stays, the edit is audited, metrics recomputed.

        Args:
            attempt_id: the attempt.
            field: ``"transcript"`` or ``"repetition_transcript"``.
            new_text: the corrected text.
            editor: who made the change (therapist username).

        Returns:
            The updated attempt. An edit that changes nothing is not recorded.
        """
        if field not in TRANSCRIPT_FIELDS:
            raise ValueError(f"field must be one of {TRANSCRIPT_FIELDS}, got {field!r}")
        if not editor.strip():
            raise ValueError("editor must not be empty")
        with self.transaction("editing a transcript"):
            attempt = self.get_attempt(attempt_id)
            if not attempts.apply_edit(
                self._db, attempt, field, new_text, editor.strip(), self._clock()
            ):
                return attempt
            return self.get_attempt(attempt_id)

    def override_verdict(
        self, attempt_id: int, success: bool | None, editor: str, reason: str = ""
    ) -> Attempt:
        """The therapist decides the verdict of an attempt (None gives it back to the rule).

        The override is kept beside the computed verdict, which transcript
        edits go on recomputing; every change is audited (:meth:`verdict_changes`).

        Args:
            attempt_id: the attempt.
            success: True (success), False (failure) or None (remove the override).
            editor: who decides (therapist username).
            reason: an optional note.

        Returns:
            The updated attempt. Setting the override it already has records nothing.
        """
        if not editor.strip():
            raise ValueError("editor must not be empty")
        with self.transaction("overriding a verdict"):
            attempt = self.get_attempt(attempt_id)
            if not attempts.apply_override(
                self._db, attempt, success, editor.strip(), reason.strip(), self._clock()
            ):
                return attempt
            return self.get_attempt(attempt_id)

    def verdict_changes(self, attempt_id: int) -> list[VerdictChange]:
        """Audit trail of the attempt's verdict in force, oldest first."""
        with self._reading("listing verdict changes"):
            found = self._fetch(
                "SELECT * FROM verdict_changes WHERE attempt_id = ? ORDER BY changed_at, id",
                (attempt_id,),
            )
            return rows.readable(found, rows.verdict_change_from_row, "verdict change")

    def transcript_edits(self, attempt_id: int) -> list[TranscriptEdit]:
        """The audit trail of an attempt, oldest first."""
        with self._reading("listing transcript edits"):
            found = self._fetch(
                "SELECT * FROM transcript_edits WHERE attempt_id = ? ORDER BY edited_at, id",
                (attempt_id,),
            )
            return rows.readable(found, rows.edit_from_row, "transcript edit")

    # -- history, progress, export ---------------------------------------------

    def session_history(self, patient_id: int) -> list[SessionSummary]:
        """One summary per session of the patient, newest first."""
        with self._reading("reading history"):
            return queries.session_history(self._db, patient_id)

    def progress(
        self, patient_id: int, metric: str, exercise_kind: str | None = None
    ) -> list[ProgressPoint]:
        """Session means of one metric (``records.METRIC_NAMES``) over time, oldest first."""
        with self._reading("reading progress"):
            return queries.progress(self._db, patient_id, metric, exercise_kind)

    def export_rows(self, patient_id: int | None = None) -> list[dict[str, Any]]:
        """Flat rows for a CSV export, keyed by ``queries.EXPORT_COLUMNS``."""
        with self._reading("exporting"):
            return queries.export_rows(self._db, patient_id)
