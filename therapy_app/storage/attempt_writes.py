"""Writing attempt rows: derived metrics and verdicts, insert, audited edits and overrides."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlite_utils import Database

from therapy_app.analysis.answers import answer_wer
from therapy_app.analysis.metrics import AttemptMetrics, attempt_metrics
from therapy_app.domain.attempt_record import JUDGED_KINDS, AttemptRecord
from therapy_app.storage import row_codec
from therapy_app.storage.row_types import Attempt
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
    utterance = edited if edited is not None else record.raw_transcript
    metrics = attempt_metrics(
        utterance=utterance,
        duration_s=record.duration_s,
        pause_ratio=record.pause_ratio,
        reference=reference,
        repetition=repetition,
    )
    if record.kind not in JUDGED_KINDS or not record.target_text:
        return metrics
    # A judged try: the WER of practice's rule (accepted forms, determiners,
    # an answer within a sentence), so the stored figures agree with the verdict.
    wer = answer_wer(record.kind, utterance, record.target_text, record.matched_text)
    if wer is None:
        return metrics
    return replace(metrics, wer=wer, accuracy=max(0.0, 1.0 - wer))


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


def insert_attempt(
    db: Database, record: AttemptRecord, created_at: datetime, client_uuid: str | None = None
) -> int:
    """INSERT one attempt row with its metrics; the caller holds the transaction."""
    metrics = metrics_for(record)
    success, derived = success_for(record.success, metrics)
    columns = row_codec.attempt_columns(record, created_at, success, derived, client_uuid)
    columns.update(row_codec.metrics_columns(metrics))
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    cursor = db.execute(f"INSERT INTO attempts ({names}) VALUES ({marks})", tuple(columns.values()))
    return int(cursor.lastrowid)  # type: ignore[arg-type]


def verdict_after_edit(attempt: Attempt, metrics: AttemptMetrics) -> tuple[bool | None, bool]:
    """The verdict (without override) once a therapist has corrected a transcript.

    The corrected transcript is what the therapist heard, so it replaces the
    recogniser's evidence: the word rule of :func:`therapy_app.verdict.decide`
    decides alone (the sound score measured the recording against texts, and
    the text is now known). In completion the answer said inside a longer
    utterance counts as said, as in the exercise; in naming the name counts
    with or without a determiner, or with the wrong one ("une chat", "c'est
    un chat"). An attempt without a
    reference (a free-speech utterance) keeps the verdict it had.

    Returns:
        The verdict and whether storage derived it.
    """
    if metrics.wer is None:
        return attempt.computed_success, False
    return decide(metrics.wer).success, True


def _audit_verdict(
    db: Database,
    attempt_id: int,
    cause: str,
    old: bool | None,
    new: bool | None,
    editor: str,
    reason: str,
    now: datetime,
) -> None:
    db.execute(
        "INSERT INTO verdict_changes (attempt_id, cause, old_success, new_success, editor,"
        " reason, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            attempt_id,
            cause,
            row_codec.to_db_bool(old),
            row_codec.to_db_bool(new),
            editor,
            reason,
            row_codec.to_db_time(now),
        ),
    )


def apply_edit(
    db: Database, attempt: Attempt, field: str, new_text: str, editor: str, now: datetime
) -> bool:
    """Store a transcript edit beside the original, audit it, recompute metrics and verdict.

    The verdict without override is recomputed (:func:`verdict_after_edit`);
    a therapist's override stays in force. A change of the verdict in force
    is audited in ``verdict_changes``. The caller holds the transaction.
    Returns False (and writes nothing) when the text in force is already
    ``new_text``.
    """
    old = attempt.transcript if field == "transcript" else attempt.repetition_transcript
    if old == new_text:
        return False
    edited = new_text if field == "transcript" else attempt.edited_transcript
    edited_rep = (
        new_text if field == "repetition_transcript" else attempt.edited_repetition_transcript
    )
    metrics = metrics_for(attempt.record, edited, edited_rep)
    changed = replace(attempt, edited_transcript=edited, edited_repetition_transcript=edited_rep)
    computed, derived = verdict_after_edit(changed, metrics)
    in_force = attempt.verdict_override if attempt.verdict_override is not None else computed
    values = row_codec.metrics_columns(metrics)
    values.update(
        edited_transcript=edited,
        edited_repetition_transcript=edited_rep,
        success=row_codec.to_db_bool(in_force),
        auto_success=row_codec.to_db_bool(computed),
        success_derived=int(derived),
    )
    assignments = ", ".join(f"{name} = ?" for name in values)
    db.execute(f"UPDATE attempts SET {assignments} WHERE id = ?", (*values.values(), attempt.id))
    db.execute(
        "INSERT INTO transcript_edits (attempt_id, field, old_text, new_text, editor, edited_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (attempt.id, field, old, new_text, editor, row_codec.to_db_time(now)),
    )
    if in_force != attempt.success:
        _audit_verdict(
            db, attempt.id, "transcript_edit", attempt.success, in_force, editor, "", now
        )
    return True


def apply_override(
    db: Database,
    attempt: Attempt,
    success: bool | None,
    editor: str,
    reason: str,
    now: datetime,
) -> bool:
    """Set (True/False) or remove (None) the therapist's verdict, audited.

    The caller holds the transaction. Returns False (and writes nothing) when
    the override is already ``success``.
    """
    if success == attempt.verdict_override:
        return False
    in_force = success if success is not None else attempt.computed_success
    db.execute(
        "UPDATE attempts SET verdict_override = ?, success = ? WHERE id = ?",
        (row_codec.to_db_bool(success), row_codec.to_db_bool(in_force), attempt.id),
    )
    cause = "override" if success is not None else "override_removed"
    _audit_verdict(db, attempt.id, cause, attempt.success, in_force, editor, reason, now)
    return True
