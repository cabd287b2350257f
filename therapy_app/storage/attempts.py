"""Attempt rows: metrics and success derived from a record, insert, and audited edits."""

from __future__ import annotations

from datetime import datetime

from sqlite_utils import Database

from therapy_app.storage import rows
from therapy_app.storage.metrics import AttemptMetrics, attempt_metrics
from therapy_app.storage.records import Attempt, AttemptRecord
from therapy_app.verdict import decide


def metrics_for(
    record: AttemptRecord, edited: str | None = None, edited_repetition: str | None = None
) -> AttemptMetrics:
    """Metrics of an attempt from its transcripts in force (edits first).

    A free-speech utterance is never scored against the sentence chosen after
    it: only a repetition of that sentence is.
    """
    repetition = (
        edited_repetition if edited_repetition is not None else record.repetition_transcript
    )
    reference = record.reference
    if record.kind == "free_speech" and repetition is None:
        reference = None
    return attempt_metrics(
        utterance=edited if edited is not None else record.raw_transcript,
        duration_s=record.duration_s,
        pause_ratio=record.pause_ratio,
        reference=reference,
        repetition=repetition,
    )


def success_for(given: bool | None, metrics: AttemptMetrics) -> tuple[bool | None, bool]:
    """The verdict to store and whether storage derived it.

    A verdict given by the caller is kept as is (even after an edit); without
    one, the app's single rule (:func:`therapy_app.verdict.decide`) decides from
    the WER when there is a reference. Only its word part can apply here: the
    sound part needs the recording and the recogniser.
    """
    if given is not None or metrics.wer is None:
        return given, False
    return decide(metrics.wer).success, True


def insert_attempt(db: Database, record: AttemptRecord, created_at: datetime) -> int:
    """INSERT one attempt row with its metrics; the caller holds the transaction."""
    metrics = metrics_for(record)
    success, derived = success_for(record.success, metrics)
    columns = rows.attempt_columns(record, created_at, success, derived)
    columns.update(rows.metrics_columns(metrics))
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    cursor = db.execute(f"INSERT INTO attempts ({names}) VALUES ({marks})", tuple(columns.values()))
    return int(cursor.lastrowid)  # type: ignore[arg-type]


def apply_edit(
    db: Database, attempt: Attempt, field: str, new_text: str, editor: str, now: datetime
) -> bool:
    """Store a transcript edit beside the original, audit it, recompute metrics.

    The caller holds the transaction. Returns False (and writes nothing) when
    the text in force is already ``new_text``.
    """
    old = attempt.transcript if field == "transcript" else attempt.repetition_transcript
    if old == new_text:
        return False
    edited = new_text if field == "transcript" else attempt.edited_transcript
    edited_rep = (
        new_text if field == "repetition_transcript" else attempt.edited_repetition_transcript
    )
    metrics = metrics_for(attempt.record, edited, edited_rep)
    success, derived = success_for(attempt.record.success, metrics)
    values = rows.metrics_columns(metrics)
    values.update(
        edited_transcript=edited,
        edited_repetition_transcript=edited_rep,
        success=rows.to_db_bool(success),
        success_derived=int(derived),
    )
    assignments = ", ".join(f"{name} = ?" for name in values)
    db.execute(f"UPDATE attempts SET {assignments} WHERE id = ?", (*values.values(), attempt.id))
    db.execute(
        "INSERT INTO transcript_edits (attempt_id, field, old_text, new_text, editor, edited_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (attempt.id, field, old, new_text, editor, rows.to_db_time(now)),
    )
    return True
