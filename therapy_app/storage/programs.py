"""Therapist-set programs and custom word and sentence lists: records and their SQL."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlite_utils import Database

from therapy_app.storage import rows
from therapy_app.storage.queries import fetch_all

CustomKind = Literal["word", "sentence"]
CUSTOM_KINDS: tuple[str, ...] = ("word", "sentence")

MIN_ITEMS, MAX_ITEMS = 1, 50
MIN_RATE_PERCENT, MAX_RATE_PERCENT = 60, 140
DEFAULT_ITEMS = 10
MAX_CUSTOM_TEXT = 200
"""Longest custom word or sentence, in characters (a sentence to repeat, not a text)."""


@dataclass(frozen=True)
class ProgramStep:
    """One exercise of a program.

    Attributes:
        kind: an exercise kind value ("repetition", ...; see ``practice.catalogue``).
        level: difficulty (repetition 1..3 by sentence length, completion 1..2);
            None: where the patient stopped (repetition) or every level.
        category: completion theme ("repas", ...); "" for all.
    """

    kind: str
    level: int | None = None
    category: str = ""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"kind": self.kind, "level": self.level, "category": self.category}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> ProgramStep:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a field has the wrong type.
        """
        level = data.get("level")
        if level is not None and not isinstance(level, int):
            raise ValueError(f"level must be an integer or null, got {level!r}")
        kind, category = data.get("kind"), data.get("category", "")
        if not isinstance(kind, str) or not isinstance(category, str):
            raise ValueError(f"bad program step {data!r}")
        return cls(kind, level, category)


@dataclass(frozen=True)
class Program:
    """What the therapist set for one patient: today's exercises and how they run.

    Attributes:
        patient_id: whose program.
        steps: the exercises, in the order they are done.
        items_per_session: items (sentences, words, utterances) per exercise.
        speech_rate_percent: the voice's pace relative to the usual therapy pace
            (100); the cue hierarchy keeps its steps (slower, word by word).
        use_custom_items: repetition starts with the patient's own words and sentences.
        updated_at: when it was last saved (None before).
    """

    patient_id: int
    steps: tuple[ProgramStep, ...]
    items_per_session: int = DEFAULT_ITEMS
    speech_rate_percent: int = 100
    use_custom_items: bool = True
    updated_at: datetime | None = None

    def __post_init__(self) -> None:
        if not MIN_ITEMS <= self.items_per_session <= MAX_ITEMS:
            raise ValueError(f"items_per_session must be {MIN_ITEMS}..{MAX_ITEMS}")
        if not MIN_RATE_PERCENT <= self.speech_rate_percent <= MAX_RATE_PERCENT:
            raise ValueError(f"speech_rate_percent must be {MIN_RATE_PERCENT}..{MAX_RATE_PERCENT}")


@dataclass(frozen=True)
class CustomItem:
    """A word or sentence the therapist added for one patient.

    Attributes:
        id: database id.
        patient_id: whose list.
        kind: "word" or "sentence".
        text: what the patient says (and the voice reads).
        category: free theme ("famille", "repas"); "" if none.
        picture: id of a naming picture shown for a word ("chien" for
            "Médor"); "" for none (a word that names a picture gets it anyway).
    """

    id: int
    patient_id: int
    kind: CustomKind
    text: str
    category: str = ""
    picture: str = ""


@dataclass(frozen=True)
class PatientChange:
    """One audited action on a patient (rename, archive, restore, delete, program, import)."""

    id: int
    patient_id: int
    action: str
    old_value: str | None
    new_value: str | None
    editor: str
    changed_at: datetime


def clean_text(text: str) -> str:
    """``text`` with runs of spaces collapsed, or a ValueError when empty or too long."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValueError("empty custom item")
    if len(cleaned) > MAX_CUSTOM_TEXT:
        raise ValueError(f"custom item longer than {MAX_CUSTOM_TEXT} characters")
    return cleaned


def read_program(db: Database, patient_id: int) -> Program | None:
    """The patient's program, or None when none was set."""
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
        updated_at=rows.from_db_time(row["updated_at"]),
    )


def write_program(db: Database, program: Program, now: datetime) -> None:
    """Insert or replace the patient's program; the caller holds the transaction."""
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
            rows.to_db_time(now),
        ),
    )


def custom_item_from_row(row: sqlite3.Row) -> CustomItem:
    return CustomItem(
        row["id"], row["patient_id"], row["kind"], row["text"], row["category"], row["picture"]
    )


def read_custom_items(db: Database, patient_id: int) -> list[CustomItem]:
    """The patient's words and sentences, in the order they were added."""
    found = fetch_all(
        db, "SELECT * FROM custom_items WHERE patient_id = ? ORDER BY id", (patient_id,)
    )
    return [custom_item_from_row(r) for r in found]


def insert_custom_item(
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
            clean_text(text),
            " ".join(category.split()),
            rows.to_db_time(now),
            picture.strip() if kind == "word" else "",
        ),
    )
    return bool(cursor.rowcount)


def audit(
    db: Database,
    patient_id: int,
    action: str,
    old_value: str | None,
    new_value: str | None,
    editor: str,
    now: datetime,
) -> None:
    """Record one action on a patient; the caller holds the transaction."""
    db.execute(
        "INSERT INTO patient_changes (patient_id, action, old_value, new_value, editor,"
        " changed_at) VALUES (?, ?, ?, ?, ?, ?)",
        (patient_id, action, old_value, new_value, editor, rows.to_db_time(now)),
    )


def read_changes(db: Database, patient_id: int) -> list[PatientChange]:
    """The patient's audited actions, oldest first."""
    found = fetch_all(
        db,
        "SELECT * FROM patient_changes WHERE patient_id = ? ORDER BY changed_at, id",
        (patient_id,),
    )
    return [
        PatientChange(
            r["id"],
            r["patient_id"],
            r["action"],
            r["old_value"],
            r["new_value"],
            r["editor"],
            rows.from_db_time(r["changed_at"]) or datetime.min,
        )
        for r in found
    ]
