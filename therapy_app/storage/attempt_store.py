"""Stored attempts: recordings, rows, the therapist's transcript edits and verdict overrides."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

from therapy_app.audio.clip import AudioClip
from therapy_app.domain.attempt_record import EXERCISE_KINDS, AttemptRecord
from therapy_app.storage import attempt_writes, row_codec
from therapy_app.storage.database import fetch_one
from therapy_app.storage.errors import DatabaseCorruptError
from therapy_app.storage.recording_files import (
    SavedRecording,
    file_sha256,
    recording_file,
    remove_recording,
    save_recording,
)
from therapy_app.storage.row_types import TRANSCRIPT_FIELDS, Attempt, TranscriptEdit, VerdictChange
from therapy_app.storage.store_base import Store


class AttemptStore(Store):
    """The ``attempts`` table, its recordings and its audit trails."""

    # -- recordings -------------------------------------------------------------

    def save_recording(self, clip: AudioClip, patient_id: int) -> SavedRecording:
        """Write a recording into the data folder (see ``recording_files``)."""
        self._repository.require_writable("saving a recording")
        return save_recording(
            clip, patient_id, data_dir=self._repository.data_dir, when=self._repository.now()
        )

    def attach_recording(
        self, record: AttemptRecord, clip: AudioClip | None, patient_id: int, when: datetime
    ) -> tuple[AttemptRecord, SavedRecording | None]:
        """Write ``clip`` (fsynced) and return ``record`` pointing to it, with its duration.

        Returns:
            The record unchanged and None when there is no clip.
        """
        if clip is None:
            return record, None
        saved = save_recording(clip, patient_id, data_dir=self._repository.data_dir, when=when)
        record = replace(
            record,
            recording_path=saved.relative_path,
            recording_sha256=saved.sha256,
            duration_s=record.duration_s if record.duration_s is not None else clip.duration,
        )
        return record, saved

    def forget_recording(self, saved: SavedRecording | None) -> None:
        """Delete a recording whose row was not written (nothing for None)."""
        if saved is not None:
            remove_recording(saved.relative_path, self._repository.data_dir)

    def recording_path(self, attempt: Attempt) -> Path | None:
        """Absolute path of the attempt's recording, if it has one."""
        path = attempt.record.recording_path
        return recording_file(path, self._repository.data_dir) if path else None

    def verify_recording(self, attempt: Attempt) -> bool:
        """Whether the recording file exists and matches its stored SHA-256."""
        path = self.recording_path(attempt)
        if path is None or not path.is_file():
            return False
        return file_sha256(path) == attempt.record.recording_sha256

    # -- rows -------------------------------------------------------------------

    def add(self, record: AttemptRecord, clip: AudioClip | None = None) -> int:
        """Store one complete attempt, committed before returning.

        With ``clip``, the recording is written (and fsynced) first, then the
        row in its own transaction: a crash can leave an unreferenced file (see
        :meth:`MaintenanceStore.orphan_recordings`) but never a row pointing to
        a missing or partial file. Inside ``SessionRepository.transaction`` the
        row commits with the outer block instead (bulk imports, the benchmark).

        Returns:
            The new attempt id.

        Raises:
            KeyError: unknown session.
            StorageUnavailableError: disk full, read-only, database locked.
        """
        if record.kind not in EXERCISE_KINDS:
            raise ValueError(f"unknown exercise kind {record.kind!r}")
        self._repository.require_writable("adding an attempt")
        created_at = record.created_at or self._repository.now()
        session = self._repository.sessions.get(record.session_id)
        record, saved = self.attach_recording(record, clip, session.patient_id, created_at)
        try:
            with self._repository.transaction("adding an attempt") as db:
                return attempt_writes.insert_attempt(db, record, created_at)
        except BaseException:
            self.forget_recording(saved)
            raise

    def get(self, attempt_id: int) -> Attempt:
        """One attempt (unreadable JSON columns are empty and listed in ``damaged``).

        Raises:
            KeyError: unknown id.
            DatabaseCorruptError: the row's time cannot be read.
        """
        with self._repository.connection("reading an attempt") as db:
            row = fetch_one(db, "SELECT * FROM attempts WHERE id = ?", (attempt_id,), "attempt")
            try:
                return row_codec.attempt_from_row(row)
            except row_codec.DamagedRowError as exc:
                raise DatabaseCorruptError(
                    "Cet essai est endommagé dans la base de données et ne peut pas être affiché.",
                    "Les autres essais ne sont pas touchés.",
                    str(exc),
                ) from exc

    def all(self, *, session_id: int | None = None, patient_id: int | None = None) -> list[Attempt]:
        """Attempts of one session or of one patient (exactly one of the two), oldest first."""
        if (session_id is None) == (patient_id is None):
            raise ValueError("give exactly one of session_id or patient_id")
        key = session_id if session_id is not None else patient_id
        sql = (
            "SELECT * FROM attempts WHERE session_id = ? ORDER BY created_at, id"
            if session_id is not None
            else "SELECT a.* FROM attempts AS a JOIN sessions AS s ON s.id = a.session_id"
            " WHERE s.patient_id = ? ORDER BY a.created_at, a.id"
        )
        with self._repository.connection("listing attempts") as db:
            return row_codec.readable_rows(db, sql, (key,), row_codec.attempt_from_row, "attempt")

    # -- the therapist's corrections --------------------------------------------

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
        who = row_codec.editor_name(editor)
        with self._repository.transaction("editing a transcript") as db:
            attempt = self.get(attempt_id)
            if not attempt_writes.apply_edit(
                db, attempt, field, new_text, who, self._repository.now()
            ):
                return attempt
            return self.get(attempt_id)

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
        who = row_codec.editor_name(editor)
        with self._repository.transaction("overriding a verdict") as db:
            attempt = self.get(attempt_id)
            if not attempt_writes.apply_override(
                db, attempt, success, who, reason.strip(), self._repository.now()
            ):
                return attempt
            return self.get(attempt_id)

    def verdict_changes(self, attempt_id: int) -> list[VerdictChange]:
        """Audit trail of the attempt's verdict in force, oldest first."""
        sql = "SELECT * FROM verdict_changes WHERE attempt_id = ? ORDER BY changed_at, id"
        with self._repository.connection("listing verdict changes") as db:
            return row_codec.readable_rows(
                db, sql, (attempt_id,), row_codec.verdict_change_from_row, "verdict change"
            )

    def transcript_edits(self, attempt_id: int) -> list[TranscriptEdit]:
        """The audit trail of an attempt, oldest first."""
        sql = "SELECT * FROM transcript_edits WHERE attempt_id = ? ORDER BY edited_at, id"
        with self._repository.connection("listing transcript edits") as db:
            return row_codec.readable_rows(
                db, sql, (attempt_id,), row_codec.edit_from_row, "transcript edit"
            )
