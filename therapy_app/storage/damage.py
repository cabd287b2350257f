"""Finds rows whose stored values the app cannot read (bad JSON, bad times)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from therapy_app.storage.database import fetch_all
from therapy_app.storage.row_codec import from_db_time

# table -> (time columns that must be readable, JSON columns)
_CHECKED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "patients": (("created_at",), ()),
    "sessions": (("started_at", "ended_at"), ()),
    "attempts": (
        ("created_at",),
        ("token_logprobs", "correction_alternatives", "timings", "model_versions"),
    ),
    "transcript_edits": (("edited_at",), ()),
}


@dataclass(frozen=True)
class DamagedRow:
    """One row with an unreadable value.

    Attributes:
        table: the table.
        row_id: the row's id.
        column: the column that cannot be read.
        value: its stored text, cut to 80 characters.
    """

    table: str
    row_id: int
    column: str
    value: str


def _time_ok(value: object) -> bool:
    if value is None:
        return True
    try:
        from_db_time(value)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def find_damaged_rows(db: Database) -> list[DamagedRow]:
    """Every unreadable time or JSON value in the app's tables.

    Reading skips or empties such values (a damaged row never hides a
    patient's history); this lists them so that a therapist can be told.
    """
    out: list[DamagedRow] = []
    for table, (times, jsons) in _CHECKED.items():
        for column in jsons:
            # json_valid() is in SQLite's core since 3.38 (Python here: 3.40).
            for row in fetch_all(
                db,
                f"SELECT id, {column} FROM {table}"
                f" WHERE {column} IS NOT NULL AND NOT json_valid({column})",
            ):
                out.append(DamagedRow(table, row[0], column, str(row[1])[:80]))
        if times:
            columns = ", ".join(times)
            for row in fetch_all(db, f"SELECT id, {columns} FROM {table}"):
                for index, column in enumerate(times, start=1):
                    if not _time_ok(row[index]):
                        out.append(DamagedRow(table, row[0], column, str(row[index])[:80]))
    return sorted(out, key=lambda d: (d.table, d.row_id, d.column))
