"""Patients: create, read, list, rename, archive, delete, pause tolerance; changes audited."""

from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
import zlib
from pathlib import Path
from typing import Literal

from therapy_app import pause_tolerance
from therapy_app.storage import patient_changes, row_codec
from therapy_app.storage.database import fetch_one
from therapy_app.storage.recording_files import RECORDINGS_DIR
from therapy_app.storage.row_types import Patient, PatientChange
from therapy_app.storage.store_base import Store
from therapy_app.voice import store as voice_store
from therapy_app.voice.model import patient_voice_dir

_LOGGER = logging.getLogger(__name__)

PatientSetting = Literal["pause_tolerance_ms", "gender"]
"""The columns :meth:`PatientStore.set_setting` may write."""

AVATAR_COLOURS = ("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_COLOUR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


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


class PatientStore(Store):
    """The ``patients`` table; every change a therapist makes is audited."""

    def create(
        self, display_name: str, *, initials: str | None = None, avatar_colour: str | None = None
    ) -> Patient:
        """Add a patient; initials and colour are derived from the name when not given."""
        name = display_name.strip()
        if not name:
            raise ValueError("display_name must not be empty")
        colour = avatar_colour or AVATAR_COLOURS[zlib.crc32(name.encode()) % len(AVATAR_COLOURS)]
        if not _COLOUR_RE.match(colour):
            raise ValueError(f"avatar_colour must be #rrggbb, got {colour!r}")
        with self._repository.transaction("creating a patient") as db:
            new_id = db.execute(
                "INSERT INTO patients (display_name, initials, avatar_colour, created_at)"
                " VALUES (?, ?, ?, ?)",
                (
                    name,
                    (initials or row_codec.initials(name))[:3],
                    colour,
                    row_codec.to_db_time(self._repository.now()),
                ),
            ).lastrowid
        return self.get(int(new_id))  # type: ignore[arg-type]

    def get(self, patient_id: int) -> Patient:
        """Raises KeyError for an unknown id."""
        with self._repository.connection("reading a patient") as db:
            return row_codec.patient_from_row(
                fetch_one(db, "SELECT * FROM patients WHERE id = ?", (patient_id,), "patient")
            )

    def all(self, *, include_archived: bool = False) -> list[Patient]:
        """Patients by name; archived ones only with ``include_archived`` (therapist area)."""
        where = "" if include_archived else " WHERE archived_at IS NULL"
        with self._repository.connection("listing patients") as db:
            return row_codec.readable_rows(
                db,
                f"SELECT * FROM patients{where} ORDER BY display_name COLLATE NOCASE, id",  # noqa: S608
                (),
                row_codec.patient_from_row,
                "patient",
            )

    def set_pause_tolerance(self, patient_id: int, milliseconds: int) -> Patient:
        """Store how long ``patient_id`` may pause before a recording ends.

        Raises:
            ValueError: outside ``pause_tolerance.MIN_MS``..``MAX_MS``.
            KeyError: unknown patient.
        """
        value = pause_tolerance.checked(milliseconds)
        self.set_setting(patient_id, "pause_tolerance_ms", value, "saving a patient setting")
        return self.get(patient_id)

    def set_setting(
        self, patient_id: int, column: PatientSetting, value: object, action: str
    ) -> None:
        """Store one setting of the patient (not audited: the settings screen shows it).

        Args:
            patient_id: the patient.
            column: the ``patients`` column (only settings, never the name).
            value: its new value, already checked.
            action: English words for logs and error details.

        Raises:
            KeyError: unknown patient.
        """
        with self._repository.transaction(action) as db:
            found = db.execute(
                f"UPDATE patients SET {column} = ? WHERE id = ?",  # noqa: S608
                (value, patient_id),
            ).rowcount
        if not found:
            raise KeyError(f"no patient {patient_id}")

    def rename(self, patient_id: int, new_name: str, editor: str) -> Patient:
        """Change the displayed name (the initials follow unless they were chosen).

        Raises:
            ValueError: empty name or editor.
            KeyError: unknown patient.
        """
        name = " ".join(new_name.split())
        if not name:
            raise ValueError("display_name must not be empty")
        who = row_codec.editor_name(editor)
        with self._repository.transaction("renaming a patient") as db:
            old = self.get(patient_id)
            if old.display_name == name:
                return old
            db.execute(
                "UPDATE patients SET display_name = ?, initials = ? WHERE id = ?",
                (name, row_codec.initials(name)[:3], patient_id),
            )
            patient_changes.audit(
                db, patient_id, "rename", old.display_name, name, who, self._repository.now()
            )
        return self.get(patient_id)

    def set_archived(self, patient_id: int, archived: bool, editor: str) -> Patient:
        """Archive (hidden from the patient start screen, history kept) or restore a patient.

        Raises:
            KeyError: unknown patient.
        """
        who = row_codec.editor_name(editor)
        now = self._repository.now()
        with self._repository.transaction("archiving a patient") as db:
            if self.get(patient_id).archived != archived:
                db.execute(
                    "UPDATE patients SET archived_at = ? WHERE id = ?",
                    (row_codec.to_db_time(now) if archived else None, patient_id),
                )
                action = "archive" if archived else "restore"
                patient_changes.audit(db, patient_id, action, None, None, who, now)
        return self.get(patient_id)

    def delete(self, patient_id: int, editor: str) -> int:
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
        who = row_codec.editor_name(editor)
        data_dir = self._repository.data_dir
        if voice_store.is_running(data_dir, patient_id):
            raise voice_store.AdaptationRunningError(
                "La reconnaissance de ce patient est en cours d'adaptation.",
                "Annulez l'adaptation (onglet « Voix ») ou attendez sa fin, puis supprimez.",
                f"patient {patient_id}: adaptation lock held",
            )
        with self._repository.transaction("deleting a patient") as db:
            self.get(patient_id)
            sessions = db.execute(
                "SELECT COUNT(*) FROM sessions WHERE patient_id = ?", (patient_id,)
            ).fetchone()[0]
            attempts = "SELECT a.id FROM attempts AS a JOIN sessions AS s ON s.id = a.session_id"
            attempts += " WHERE s.patient_id = ?"
            for table in ("transcript_edits", "verdict_changes"):
                db.execute(
                    f"DELETE FROM {table} WHERE attempt_id IN ({attempts})",  # noqa: S608
                    (patient_id,),
                )
            db.execute(
                "DELETE FROM attempts WHERE session_id IN"
                " (SELECT id FROM sessions WHERE patient_id = ?)",
                (patient_id,),
            )
            db.execute(
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
                db.execute(
                    f"DELETE FROM {table} WHERE patient_id = ?",  # noqa: S608
                    (patient_id,),
                )
            db.execute("DELETE FROM patients WHERE id = ?", (patient_id,))
            patient_changes.audit(
                db, patient_id, "delete", None, f"{sessions} séances", who, self._repository.now()
            )
        # After the commit: a failure leaves unreferenced files (cleaned at the
        # next start), never rows pointing to missing recordings.
        folder = data_dir / RECORDINGS_DIR / str(int(patient_id))
        shutil.rmtree(folder, ignore_errors=True)
        _remove_voice(patient_voice_dir(data_dir, int(patient_id)))
        _LOGGER.info("patient %d deleted (%d sessions)", patient_id, sessions)
        return int(sessions)

    def changes(self, patient_id: int) -> list[PatientChange]:
        """Audit trail of the patient (renames, archiving, program changes...), oldest first."""
        with self._repository.connection("listing patient changes") as db:
            return patient_changes.read_changes(db, patient_id)
