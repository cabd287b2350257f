"""Each patient's program and own word and sentence list, as the therapist sets them."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime

from sqlite_utils import Database

from therapy_app.domain.attempt_record import EXERCISE_KINDS
from therapy_app.domain.programs import (
    CUSTOM_KINDS,
    CustomItem,
    Program,
    ProgramStep,
    clean_custom_text,
)
from therapy_app.storage import patient_changes, row_codec
from therapy_app.storage.database import fetch_all
from therapy_app.storage.store_base import Store


def _read_custom_items(db: Database, patient_id: int) -> list[CustomItem]:
    found = fetch_all(
        db, "SELECT * FROM custom_items WHERE patient_id = ? ORDER BY id", (patient_id,)
    )
    return [
        CustomItem(r["id"], r["patient_id"], r["kind"], r["text"], r["category"], r["picture"])
        for r in found
    ]


def _insert_custom_item(
    db: Database,
    patient_id: int,
    kind: str,
    text: str,
    category: str,
    now: datetime,
    picture: str = "",
) -> bool:
    """Add one item unless the patient has the same text already (any case).

    ``picture`` (a naming picture id) is kept for words only.

    Returns:
        True when added, False for a duplicate (nothing is replaced).
    """
    if kind not in CUSTOM_KINDS:
        raise ValueError(f"custom item kind must be one of {CUSTOM_KINDS}, got {kind!r}")
    cursor = db.execute(
        "INSERT OR IGNORE INTO custom_items"
        " (patient_id, kind, text, category, created_at, picture) VALUES (?, ?, ?, ?, ?, ?)",
        (
            patient_id,
            kind,
            clean_custom_text(text),
            " ".join(category.split()),
            row_codec.to_db_time(now),
            picture.strip() if kind == "word" else "",
        ),
    )
    return bool(cursor.rowcount)


class ProgramStore(Store):
    """The ``programs`` and ``custom_items`` tables; program saves and imports are audited."""

    # -- programs -----------------------------------------------------------------

    def get(self, patient_id: int) -> Program | None:
        """The patient's program, or None when the therapist set none."""
        with self._repository.connection("reading a program") as db:
            found = fetch_all(db, "SELECT * FROM programs WHERE patient_id = ?", (patient_id,))
            if not found:
                return None
            row = found[0]
            steps = tuple(ProgramStep.from_dict(s) for s in json.loads(row["steps"]))
            return Program(
                patient_id=patient_id,
                steps=steps,
                items_per_session=row["items_per_session"],
                speech_rate_percent=row["speech_rate_percent"],
                use_custom_items=bool(row["use_custom_items"]),
                updated_at=row_codec.from_db_time(row["updated_at"]),
            )

    def save(self, program: Program, editor: str) -> Program:
        """Store the patient's program (replacing the previous one), audited.

        Raises:
            ValueError: a step's kind is unknown, or no step.
            KeyError: unknown patient.
        """
        who = row_codec.editor_name(editor)
        if not program.steps:
            raise ValueError("a program needs at least one exercise")
        for step in program.steps:
            if step.kind not in EXERCISE_KINDS:
                raise ValueError(f"unknown exercise kind {step.kind!r}")
        now = self._repository.now()
        with self._repository.transaction("saving a program") as db:
            self._repository.patients.get(program.patient_id)
            db.execute(
                "INSERT INTO programs (patient_id, steps, items_per_session, speech_rate_percent,"
                " use_custom_items, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(patient_id) DO UPDATE SET steps = excluded.steps,"
                " items_per_session = excluded.items_per_session,"
                " speech_rate_percent = excluded.speech_rate_percent,"
                " use_custom_items = excluded.use_custom_items, updated_at = excluded.updated_at",
                (
                    program.patient_id,
                    json.dumps([s.to_dict() for s in program.steps], ensure_ascii=False),
                    program.items_per_session,
                    program.speech_rate_percent,
                    int(program.use_custom_items),
                    row_codec.to_db_time(now),
                ),
            )
            summary = ", ".join(s.kind for s in program.steps)
            patient_changes.audit(db, program.patient_id, "program", None, summary, who, now)
        return replace(program, updated_at=now)

    # -- custom lists -------------------------------------------------------------

    def custom_items(self, patient_id: int) -> list[CustomItem]:
        """The patient's own words and sentences, in the order added."""
        with self._repository.connection("reading custom items") as db:
            return _read_custom_items(db, patient_id)

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
        with self._repository.transaction("adding a custom item") as db:
            self._repository.patients.get(patient_id)
            if not _insert_custom_item(
                db, patient_id, kind, text, category, self._repository.now(), picture
            ):
                return None
            return _read_custom_items(db, patient_id)[-1]

    def import_custom_items(
        self, patient_id: int, new_items: list[tuple[str, str, str, str]], editor: str
    ) -> tuple[int, int]:
        """Add ``(kind, text, category, picture)`` items; those already in the list are skipped.

        Nothing is replaced: an item whose text the patient has already keeps
        the stored version.

        Returns:
            (added, skipped as duplicates).
        """
        who = row_codec.editor_name(editor)
        added = 0
        now = self._repository.now()
        with self._repository.transaction("importing custom items") as db:
            self._repository.patients.get(patient_id)
            for kind, text, category, picture in new_items:
                added += _insert_custom_item(db, patient_id, kind, text, category, now, picture)
            patient_changes.audit(db, patient_id, "import", None, f"{added} ajoutés", who, now)
        return added, len(new_items) - added

    def remove_custom_item(self, item_id: int) -> None:
        """Delete one custom item (unknown ids are ignored)."""
        with self._repository.transaction("removing a custom item") as db:
            db.execute("DELETE FROM custom_items WHERE id = ?", (item_id,))
