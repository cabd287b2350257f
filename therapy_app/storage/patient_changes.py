"""The audit trail of actions on patients: write one line, read a patient's lines."""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from therapy_app.storage import row_codec
from therapy_app.storage.database import fetch_all
from therapy_app.storage.row_types import PatientChange


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
        (patient_id, action, old_value, new_value, editor, row_codec.to_db_time(now)),
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
            row_codec.from_db_time(r["changed_at"]) or datetime.min,
        )
        for r in found
    ]
