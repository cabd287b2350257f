"""Conversions between database rows and the typed rows (times, JSON, booleans)."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlite_utils import Database

from therapy_app.analysis.metrics import AttemptMetrics
from therapy_app.domain.attempt_record import AttemptRecord, Candidate, StepTimings
from therapy_app.phrases.model import Gender
from therapy_app.storage.database import fetch_all
from therapy_app.storage.row_types import (
    Attempt,
    Exercise,
    Patient,
    TherapySession,
    TranscriptEdit,
    VerdictChange,
)

T = TypeVar("T")

_LOGGER = logging.getLogger(__name__)

Row = sqlite3.Row | dict[str, Any]


def to_db_time(moment: datetime) -> str:
    """UTC ISO 8601 text with microseconds: sorts as text in time order.

    Raises:
        ValueError: ``moment`` has no time zone (ambiguous once stored).
    """
    if moment.tzinfo is None:
        raise ValueError("datetimes given to storage must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


class DamagedRowError(ValueError):
    """A row cannot be read at all (its time or its identity is unreadable).

    Lists skip such a row (and log it) instead of failing as a whole: one
    damaged row must not hide a patient's whole history.
    """


def from_db_time(text: str | None) -> datetime | None:
    """Inverse of :func:`to_db_time` (None stays None).

    A time without a zone (written by another tool) is taken as UTC, so that
    it still compares with the app's aware times.

    Raises:
        ValueError: the text is not an ISO 8601 time.
    """
    if not text:
        return None
    if not isinstance(text, str):
        raise ValueError(f"not a time: {text!r}")
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _required_time(text: str, what: str = "row") -> datetime:
    try:
        moment = from_db_time(text)
    except ValueError as exc:
        raise DamagedRowError(f"{what}: unreadable time {text!r}") from exc
    if moment is None:
        raise DamagedRowError(f"{what}: missing timestamp in a NOT NULL column")
    return moment


def to_json(value: Any) -> str | None:
    """Compact JSON, None for None."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def from_json(text: str | None) -> Any:
    return json.loads(text) if text else None


def _lenient(column: str, damaged: list[str], read: Any, default: Any) -> Any:
    """``read()``, or ``default`` with ``column`` noted as damaged when it fails."""
    try:
        return read()
    except (ValueError, TypeError, KeyError, AttributeError):
        damaged.append(column)
        return default


def to_db_bool(value: bool | None) -> int | None:
    return None if value is None else int(bool(value))


def from_db_bool(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def initials(name: str) -> str:
    """One or two capital letters from a name ("Jeanne Dupont" -> "JD")."""
    letters = [part[0] for part in re.split(r"[\s\-']+", name.strip()) if part]
    return "".join(letters[:2]).upper() or "?"


def editor_name(editor: str) -> str:
    """The therapist's name for an audit line, stripped.

    Raises:
        ValueError: empty.
    """
    name = editor.strip()
    if not name:
        raise ValueError("editor must not be empty")
    return name


def patient_from_row(row: Row) -> Patient:
    return Patient(
        id=row["id"],
        display_name=row["display_name"],
        initials=row["initials"],
        avatar_colour=row["avatar_colour"],
        created_at=_lenient_time(row["created_at"], f"patient {row['id']}"),
        pause_tolerance_ms=row["pause_tolerance_ms"],
        archived_at=from_db_time(row["archived_at"]) if "archived_at" in row.keys() else None,
        gender=_gender(row),
    )


def _gender(row: Row) -> Gender:
    # Before m008 there is no column; a value this code does not know is "not said".
    value = row["gender"] if "gender" in row.keys() else ""
    return Gender(value) if value in {g.value for g in Gender} else Gender.UNSAID


_UNKNOWN_TIME = datetime(1970, 1, 1, tzinfo=UTC)


def _lenient_time(text: str, what: str) -> datetime:
    # A patient with an unreadable creation date is still a patient: hiding
    # them would hide their whole history.
    try:
        return _required_time(text, what)
    except DamagedRowError:
        _LOGGER.warning("%s has an unreadable creation time %r", what, text)
        return _UNKNOWN_TIME


def exercise_from_row(row: Row) -> Exercise:
    return Exercise(id=row["id"], kind=row["kind"], title=row["title"], level=row["level"])


def session_from_row(row: Row) -> TherapySession:
    return TherapySession(
        id=row["id"],
        patient_id=row["patient_id"],
        exercise_kind=row["exercise_kind"],
        exercise_id=row["exercise_id"],
        started_at=_required_time(row["started_at"], f"session {row['id']}"),
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
        edited_at=_required_time(row["edited_at"], f"transcript edit {row['id']}"),
    )


def metrics_columns(metrics: AttemptMetrics) -> dict[str, Any]:
    """The attempts columns that hold ``metrics`` (same names as the fields)."""
    return asdict(metrics)


def attempt_columns(
    record: AttemptRecord,
    created_at: datetime,
    success: bool | None,
    success_derived: bool,
    client_uuid: str | None = None,
) -> dict[str, Any]:
    """The attempts columns for a new row (metrics added separately).

    ``client_uuid`` identifies an attempt replayed from the on-disk queue.
    """
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
        "auto_success": to_db_bool(success),
        "given_success": to_db_bool(record.success),
        "success_derived": int(success_derived),
        "client_uuid": client_uuid,
        "cue_level": record.cue_level,
        "timings": to_json(timings),
        "provider": record.provider,
        "model_versions": to_json(record.model_versions),
        "pause_ratio": record.pause_ratio,
        "script_id": record.script_id,
        "matched_text": record.matched_text,
        "margin": record.margin,
    }


def _candidates(text: str | None) -> list[Candidate]:
    found = from_json(text) or []
    if not isinstance(found, list):
        raise ValueError("not a list")
    return [
        Candidate(
            text=str(c["text"]),
            score=float(c["score"]),
            source=str(c.get("source", "corrector")),  # older rows have none
        )
        for c in found
    ]


def _timings(text: str | None) -> StepTimings | None:
    found = from_json(text)
    return StepTimings(**found) if found is not None else None


def _mapping(text: str | None) -> dict[str, str]:
    found = from_json(text) or {}
    if not isinstance(found, dict):
        raise ValueError("not an object")
    return found


def _floats(text: str | None) -> list[float] | None:
    found = from_json(text)
    if found is not None and not isinstance(found, list):
        raise ValueError("not a list")
    return found


def attempt_from_row(row: Row) -> Attempt:
    """The stored attempt; unreadable JSON columns are emptied and listed in ``damaged``.

    Raises:
        DamagedRowError: its time is unreadable (lists skip the row).
    """
    created_at = _required_time(row["created_at"], f"attempt {row['id']}")
    damaged: list[str] = []
    given = row["given_success"]
    record = AttemptRecord(
        session_id=row["session_id"],
        kind=row["kind"],
        raw_transcript=row["raw_transcript"],
        target_text=row["target_text"],
        recording_path=row["recording_path"],
        recording_sha256=row["recording_sha256"],
        duration_s=row["duration_s"],
        token_logprobs=_lenient(
            "token_logprobs", damaged, lambda: _floats(row["token_logprobs"]), None
        ),
        avg_logprob=row["avg_logprob"],
        correction_best=row["correction_best"],
        correction_alternatives=_lenient(
            "correction_alternatives",
            damaged,
            lambda: _candidates(row["correction_alternatives"]),
            [],
        ),
        chosen_sentence=row["chosen_sentence"],
        repetition_transcript=row["repetition_transcript"],
        target_score=row["target_score"],
        target_logprob=row["target_logprob"],
        success=from_db_bool(given),
        cue_level=row["cue_level"],
        timings=_lenient("timings", damaged, lambda: _timings(row["timings"]), None),
        provider=row["provider"],
        model_versions=_lenient(
            "model_versions", damaged, lambda: _mapping(row["model_versions"]), {}
        ),
        pause_ratio=row["pause_ratio"],
        created_at=created_at,
        script_id=row["script_id"] if "script_id" in row.keys() else None,
        matched_text=row["matched_text"] if "matched_text" in row.keys() else None,
        margin=row["margin"] if "margin" in row.keys() else None,
    )
    if damaged:
        _LOGGER.warning("attempt %s has unreadable columns %s", row["id"], damaged)
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
        computed_success=from_db_bool(row["auto_success"]),
        verdict_override=from_db_bool(row["verdict_override"]),
        damaged=tuple(damaged),
    )


def verdict_change_from_row(row: Row) -> VerdictChange:
    return VerdictChange(
        id=row["id"],
        attempt_id=row["attempt_id"],
        cause=row["cause"],
        old_success=from_db_bool(row["old_success"]),
        new_success=from_db_bool(row["new_success"]),
        editor=row["editor"],
        reason=row["reason"],
        changed_at=_required_time(row["changed_at"], f"verdict change {row['id']}"),
    )


def readable_rows(
    db: Database,
    sql: str,
    params: tuple[Any, ...],
    convert: Callable[[sqlite3.Row], T],
    what: str,
) -> list[T]:
    """Run a read query and ``convert`` each row, skipping (and logging) unreadable ones."""
    out: list[T] = []
    for row in fetch_all(db, sql, params):
        try:
            out.append(convert(row))
        except DamagedRowError as exc:
            _LOGGER.error("skipping an unreadable %s: %s", what, exc)
    return out
