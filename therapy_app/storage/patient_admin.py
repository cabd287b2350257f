"""The repository's patient management: rename, archive, delete, programs and custom lists."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import threading
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlite_utils import Database

from therapy_app.storage import programs, rows
from therapy_app.storage.programs import CustomItem, PatientChange, Program
from therapy_app.storage.recordings import RECORDINGS_DIR
from therapy_app.storage.records import EXERCISE_KINDS, Patient
from therapy_app.voice import store as voice_store
from therapy_app.voice.model import patient_voice_dir

_LOGGER = logging.getLogger(__name__)


def _editor(editor: str) -> str:
    name = editor.strip()
    if not name:
        raise ValueError("editor must not be empty")
    return name


def _remove_voice(folder: Path) -> None:
    """Delete a patient's voice folder; what cannot be deleted is at least renamed away.

    A new patient may get the deleted one's id (SQLite reuses the highest
    id), and with it a voice folder left behind: another person's model.
    """
    shutil.rmtree(folder, ignore_errors=True)
    if not os.path.lexists(folder):
        return
    hidden = folder.with_name(f".supprime-{folder.name}-{uuid.uuid4().hex}")
    try:
        os.replace(folder, hidden)
    except OSError as exc:
        _LOGGER.error("deleted patient's voice folder %s stays: %s", folder, exc)
        return
    shutil.rmtree(hidden, ignore_errors=True)
    if os.path.lexists(hidden):
        _LOGGER.error("deleted patient's voice folder left as %s", hidden)


class PatientAdminMixin:
    """Patient management of :class:`SessionRepository`; every change is audited."""

    _db: Database
    _lock: threading.RLock
    _clock: Callable[[], datetime]
    data_dir: Path

    if TYPE_CHECKING:

        def transaction(self, action: str = ...) -> AbstractContextManager[None]: ...
        def _reading(self, action: str) -> AbstractContextManager[None]: ...
        def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]: ...
        def get_patient(self, patient_id: int) -> Patient: ...

    # -- names and archive ---------------------------------------------------------

    def rename_patient(self, patient_id: int, new_name: str, editor: str) -> Patient:
        """Change the displayed name (the initials follow unless they were chosen).

        Raises:
            ValueError: empty name or editor.
            KeyError: unknown patient.
        """
        name = " ".join(new_name.split())
        if not name:
            raise ValueError("display_name must not be empty")
        who = _editor(editor)
        with self.transaction("renaming a patient"):
            old = self.get_patient(patient_id)
            if old.display_name == name:
                return old
            self._db.execute(
                "UPDATE patients SET display_name = ?, initials = ? WHERE id = ?",
                (name, rows.initials(name)[:3], patient_id),
            )
            programs.audit(
                self._db, patient_id, "rename", old.display_name, name, who, self._clock()
            )
        return self.get_patient(patient_id)

    def set_archived(self, patient_id: int, archived: bool, editor: str) -> Patient:
        """Archive (hidden from the patient start screen, history kept) or restore a patient.

        Raises:
            KeyError: unknown patient.
        """
        who = _editor(editor)
        now = self._clock()
        with self.transaction("archiving a patient"):
            old = self.get_patient(patient_id)
            if old.archived == archived:
                return old
            self._db.execute(
                "UPDATE patients SET archived_at = ? WHERE id = ?",
                (rows.to_db_time(now) if archived else None, patient_id),
            )
            programs.audit(
                self._db, patient_id, "archive" if archived else "restore", None, None, who, now
            )
        return self.get_patient(patient_id)

    def delete_patient(self, patient_id: int, editor: str) -> int:
        """Delete a patient with sessions, attempts, recordings, voice, program, lists and scripts.

        The voice folder (recordings made for the personal model, adapters,
        decisions) goes with the recordings, once the database change is committed.

        The audit keeps one line (who, when, how many sessions) without the
        name; the patient's earlier audit lines, which hold names, go.

        Returns:
            The number of sessions deleted.

        Raises:
            KeyError: unknown patient.
            AdaptationRunningError: the patient's personal voice is being trained
                (its trainer writes into the voice folder; French).
        """
        who = _editor(editor)
        if voice_store.is_running(self.data_dir, patient_id):
            raise voice_store.AdaptationRunningError(
                "La reconnaissance de ce patient est en cours d'adaptation.",
                "Annulez l'adaptation (onglet « Voix ») ou attendez sa fin, puis supprimez.",
                f"patient {patient_id}: adaptation lock held",
            )
        with self.transaction("deleting a patient"):
            self.get_patient(patient_id)
            sessions = self._db.execute(
                "SELECT COUNT(*) FROM sessions WHERE patient_id = ?", (patient_id,)
            ).fetchone()[0]
            attempts = "SELECT a.id FROM attempts AS a JOIN sessions AS s ON s.id = a.session_id"
            attempts += " WHERE s.patient_id = ?"
            for table in ("transcript_edits", "verdict_changes"):
                self._db.execute(
                    f"DELETE FROM {table} WHERE attempt_id IN ({attempts})",  # noqa: S608
                    (patient_id,),
                )
            self._db.execute(
                "DELETE FROM attempts WHERE session_id IN"
                " (SELECT id FROM sessions WHERE patient_id = ?)",
                (patient_id,),
            )
            self._db.execute(
                "DELETE FROM script_turns WHERE script_id IN"
                " (SELECT id FROM scripts WHERE patient_id = ?)",
                (patient_id,),
            )
            for table in (
                "sessions",
                "programs",
                "custom_items",
                "patient_changes",
                "phrase_removals",
                "scripts",
            ):
                self._db.execute(
                    f"DELETE FROM {table} WHERE patient_id = ?",  # noqa: S608
                    (patient_id,),
                )
            self._db.execute("DELETE FROM patients WHERE id = ?", (patient_id,))
            programs.audit(
                self._db, patient_id, "delete", None, f"{sessions} séances", who, self._clock()
            )
        # After the commit: a failure leaves unreferenced files (cleaned at the
        # next start), never rows pointing to missing recordings.
        folder = self.data_dir / RECORDINGS_DIR / str(int(patient_id))
        shutil.rmtree(folder, ignore_errors=True)
        _remove_voice(patient_voice_dir(self.data_dir, int(patient_id)))
        _LOGGER.info("patient %d deleted (%d sessions)", patient_id, sessions)
        return int(sessions)

    def patient_changes(self, patient_id: int) -> list[PatientChange]:
        """Audit trail of the patient (renames, archiving, program changes...), oldest first."""
        with self._reading("listing patient changes"):
            return programs.read_changes(self._db, patient_id)

    # -- programs -------------------------------------------------------------------

    def get_program(self, patient_id: int) -> Program | None:
        """The patient's program, or None when the therapist set none."""
        with self._reading("reading a program"):
            return programs.read_program(self._db, patient_id)

    def save_program(self, program: Program, editor: str) -> Program:
        """Store the patient's program (replacing the previous one), audited.

        Raises:
            ValueError: a step's kind is unknown, or no step.
            KeyError: unknown patient.
        """
        who = _editor(editor)
        if not program.steps:
            raise ValueError("a program needs at least one exercise")
        for step in program.steps:
            if step.kind not in EXERCISE_KINDS:
                raise ValueError(f"unknown exercise kind {step.kind!r}")
        now = self._clock()
        with self.transaction("saving a program"):
            self.get_patient(program.patient_id)
            programs.write_program(self._db, program, now)
            summary = ", ".join(s.kind for s in program.steps)
            programs.audit(self._db, program.patient_id, "program", None, summary, who, now)
        return replace(program, updated_at=now)

    # -- custom lists -----------------------------------------------------------------

    def custom_items(self, patient_id: int) -> list[CustomItem]:
        """The patient's own words and sentences, in the order added."""
        with self._reading("reading custom items"):
            return programs.read_custom_items(self._db, patient_id)

    def add_custom_item(
        self, patient_id: int, kind: str, text: str, category: str = "", picture: str = ""
    ) -> CustomItem | None:
        """Add a word or sentence to the patient's list (a word may have a naming picture id).

        Returns:
            The new item, or None when the list has that text already.

        Raises:
            ValueError: empty or too long text, unknown kind.
            KeyError: unknown patient.
        """
        with self.transaction("adding a custom item"):
            self.get_patient(patient_id)
            if not programs.insert_custom_item(
                self._db, patient_id, kind, text, category, self._clock(), picture
            ):
                return None
            return programs.read_custom_items(self._db, patient_id)[-1]

    def import_custom_items(
        self, patient_id: int, new_items: list[tuple[str, str, str, str]], editor: str
    ) -> tuple[int, int]:
        """Add ``(kind, text, category, picture)`` items; those already in the list are skipped.

        Nothing is replaced: an item whose text the patient has already keeps
        the stored version.

        Returns:
            (added, skipped as duplicates).
        """
        who = _editor(editor)
        added = 0
        now = self._clock()
        with self.transaction("importing custom items"):
            self.get_patient(patient_id)
            for kind, text, category, picture in new_items:
                added += programs.insert_custom_item(
                    self._db, patient_id, kind, text, category, now, picture
                )
            programs.audit(self._db, patient_id, "import", None, f"{added} ajoutés", who, now)
        return added, len(new_items) - added

    def remove_custom_item(self, item_id: int) -> None:
        """Delete one custom item (unknown ids are ignored)."""
        with self.transaction("removing a custom item"):
            self._db.execute("DELETE FROM custom_items WHERE id = ?", (item_id,))
