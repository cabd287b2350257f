"""Conversions between database rows and the storage records (times, JSON, booleans)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from therapy_app.storage.metrics import AttemptMetrics
from therapy_app.storage.records import (
    Attempt,
    AttemptRecord,
    Candidate,
    Exercise,
    Patient,
    StepTimings,
    TherapySession,
    TranscriptEdit,
)

Row = sqlite3.Row | dict[str, Any]


def to_db_time(moment: datetime) -> str:
    """UTC ISO 8601 text with microseconds: sorts as text in time order.

    Raises:
        ValueError: ``moment`` has no time zone (ambiguous once stored).
    """
    if moment.tzinfo is None:
        raise ValueError("datetimes given to storage must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_db_time(text: str | None) -> datetime | None:
    """Inverse of :func:`to_db_time` (None stays None)."""
    return datetime.fromisoformat(text) if text else None


def _required_time(text: str) -> datetime:
    moment = from_db_time(text)
    if moment is None:
        raise ValueError("missing timestamp in a NOT NULL column")
    return moment


def to_json(value: Any) -> str | None:
    """Compact JSON, None for None."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def from_json(text: str | None) -> Any:
    return json.loads(text) if text else None


def to_db_bool(value: bool | None) -> int | None:
    return None if value is None else int(bool(value))


def from_db_bool(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def patient_from_row(row: Row) -> Patient:
    return Patient(
        id=row["id"],
        display_name=row["display_name"],
        initials=row["initials"],
        avatar_colour=row["avatar_colour"],
        created_at=_required_time(row["created_at"]),
        pause_tolerance_ms=row["pause_tolerance_ms"],
    )


def exercise_from_row(row: Row) -> Exercise:
    return Exercise(id=row["id"], kind=row["kind"], title=row["title"], level=row["level"])


def session_from_row(row: Row) -> TherapySession:
    return TherapySession(
        id=row["id"],
        patient_id=row["patient_id"],
        exercise_kind=row["exercise_kind"],
        exercise_id=row["exercise_id"],
        started_at=_required_time(row["started_at"]),
        ended_at=from_db_time(row["ended_at"]),
    )


def edit_from_row(row: Row) -> TranscriptEdit:
    return TranscriptEdit(
        id=row["id"],
        attempt_id=row["attempt_id"],
        field=row["field"],
        old_text=row["old_text"],
        new_text=row["new_text"],
        editor=row["editor"],
        edited_at=_required_time(row["edited_at"]),
    )


def metrics_columns(metrics: AttemptMetrics) -> dict[str, Any]:
    """The attempts columns that hold ``metrics`` (same names as the fields)."""
    return asdict(metrics)


def attempt_columns(
    record: AttemptRecord, created_at: datetime, success: bool | None, success_derived: bool
) -> dict[str, Any]:
    """The attempts columns for a new row (metrics added separately)."""
    timings = asdict(record.timings) if record.timings is not None else None
    return {
        "session_id": record.session_id,
        "created_at": to_db_time(created_at),
        "kind": record.kind,
        "target_text": record.target_text,
        "recording_path": record.recording_path,
        "recording_sha256": record.recording_sha256,
        "duration_s": record.duration_s,
        "raw_transcript": record.raw_transcript,
        "token_logprobs": to_json(record.token_logprobs),
        "avg_logprob": record.avg_logprob,
        "correction_best": record.correction_best,
        "correction_alternatives": to_json([asdict(c) for c in record.correction_alternatives]),
        "chosen_sentence": record.chosen_sentence,
        "repetition_transcript": record.repetition_transcript,
        "target_score": record.target_score,
        "target_logprob": record.target_logprob,
        "success": to_db_bool(success),
        "success_derived": int(success_derived),
        "cue_level": record.cue_level,
        "timings": to_json(timings),
        "provider": record.provider,
        "model_versions": to_json(record.model_versions),
        "pause_ratio": record.pause_ratio,
    }


def attempt_from_row(row: Row) -> Attempt:
    timings = from_json(row["timings"])
    created_at = _required_time(row["created_at"])
    record = AttemptRecord(
        session_id=row["session_id"],
        kind=row["kind"],
        raw_transcript=row["raw_transcript"],
        target_text=row["target_text"],
        recording_path=row["recording_path"],
        recording_sha256=row["recording_sha256"],
        duration_s=row["duration_s"],
        token_logprobs=from_json(row["token_logprobs"]),
        avg_logprob=row["avg_logprob"],
        correction_best=row["correction_best"],
        correction_alternatives=[
            Candidate(text=c["text"], score=c["score"])
            for c in from_json(row["correction_alternatives"]) or []
        ],
        chosen_sentence=row["chosen_sentence"],
        repetition_transcript=row["repetition_transcript"],
        target_score=row["target_score"],
        target_logprob=row["target_logprob"],
        success=None if row["success_derived"] else from_db_bool(row["success"]),
        cue_level=row["cue_level"],
        timings=StepTimings(**timings) if timings is not None else None,
        provider=row["provider"],
        model_versions=from_json(row["model_versions"]) or {},
        pause_ratio=row["pause_ratio"],
        created_at=created_at,
    )
    return Attempt(
        id=row["id"],
        record=record,
        created_at=created_at,
        edited_transcript=row["edited_transcript"],
        edited_repetition_transcript=row["edited_repetition_transcript"],
        success=from_db_bool(row["success"]),
        metrics=AttemptMetrics(
            word_count=row["word_count"],
            function_word_ratio=row["function_word_ratio"],
            verb_count=row["verb_count"],
            words_per_minute=row["words_per_minute"],
            wer=row["wer"],
            accuracy=row["accuracy"],
        ),
    )
