"""A patient's history as the therapist reads it: session summaries, progress, CSV export rows."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from therapy_app.storage.database import fetch_all
from therapy_app.storage.row_codec import from_db_time
from therapy_app.storage.row_types import (
    ATTEMPT_MEASURES,
    METRIC_NAMES,
    ProgressPoint,
    SessionSummary,
)
from therapy_app.storage.store_base import Store

_LOGGER = logging.getLogger(__name__)


def _own_speech(column: str) -> str:
    # Language measures describe the session's own kind of speech: in free
    # speech the spontaneous utterances, not the repetitions of chosen sentences
    # stored beside them. A picture's name is not connected speech: naming
    # answers would pull the length of utterance down to one word.
    return f"AVG(CASE WHEN a.kind = s.exercise_kind AND a.kind != 'naming' THEN a.{column} END)"


# Metric name -> per-session aggregate over attempts ``a`` of session ``s``. AVG
# skips NULLs, so each mean is over the attempts where the metric is defined;
# success_rate is successes / attempts with a verdict.
_METRIC_SQL: dict[str, str] = {
    "word_count": _own_speech("word_count"),
    "function_word_ratio": _own_speech("function_word_ratio"),
    "verb_count": _own_speech("verb_count"),
    "words_per_minute": _own_speech("words_per_minute"),
    "pause_ratio": _own_speech("pause_ratio"),
    "wer": "AVG(a.wer)",
    "accuracy": "AVG(a.accuracy)",
    "target_score": "AVG(a.target_score)",
    "success_rate": "AVG(a.success)",
    # Naming: the share of the session's pictures that were named at
    # some cue level, and the mean cue level that led to success.
    "naming_accuracy": "CAST(COUNT(DISTINCT CASE WHEN a.kind = 'naming' AND a.success = 1"
    " THEN a.target_text END) AS REAL) / NULLIF(COUNT(DISTINCT CASE WHEN a.kind = 'naming'"
    " THEN a.target_text END), 0)",
    "naming_cue_level": "AVG(CASE WHEN a.kind = 'naming' AND a.success = 1 THEN a.cue_level END)",
}
assert set(_METRIC_SQL) == set(METRIC_NAMES)

EXPORT_COLUMNS: tuple[str, ...] = (
    "patient_id",
    "patient_name",
    "session_id",
    "exercise_kind",
    "session_started_at",
    "attempt_id",
    "created_at",
    "kind",
    "target_text",
    "script_title",
    "transcript",
    "raw_transcript",
    "transcript_edited",
    "chosen_sentence",
    "repetition_transcript",
    *ATTEMPT_MEASURES,
    "success",
    "cue_level",
    "duration_s",
    "recording_path",
    "recording_sha256",
    "provider",
)
"""Column order of :meth:`HistoryStore.export_rows` (one CSV header)."""


def _readable_times(rows: list[sqlite3.Row], what: str) -> list[sqlite3.Row]:
    """The rows whose times can be read; the others are logged and left out.

    One damaged row must not make a patient's whole history unreadable.
    """
    out = []
    for row in rows:
        try:
            from_db_time(row["started_at"])
            if "ended_at" in row.keys():
                from_db_time(row["ended_at"])
        except ValueError:
            _LOGGER.error("skipping %s %s: unreadable time %r", what, row["id"], row["started_at"])
            continue
        out.append(row)
    return out


class HistoryStore(Store):
    """Read-only views of what a patient did, for the therapist area and exports."""

    def summaries(self, patient_id: int) -> list[SessionSummary]:
        """One summary per session of the patient that has attempts, newest first.

        A session left without any attempt (opened, then closed) is not history.
        """
        # The expressions come from the fixed table above, never from input.
        with self._repository.connection("reading history") as db:
            rows = fetch_all(
                db,
                f"""
                SELECT s.id, s.started_at, s.ended_at, s.exercise_kind,
                       COUNT(a.id) AS attempt_count,
                       COALESCE(SUM(a.success), 0) AS success_count,
                       AVG(a.success) AS success_rate,
                       {_METRIC_SQL["word_count"]} AS mean_word_count,
                       {_METRIC_SQL["function_word_ratio"]} AS mean_function_word_ratio,
                       {_METRIC_SQL["verb_count"]} AS mean_verb_count,
                       {_METRIC_SQL["words_per_minute"]} AS mean_words_per_minute,
                       {_METRIC_SQL["pause_ratio"]} AS mean_pause_ratio,
                       AVG(a.wer) AS mean_wer,
                       AVG(a.accuracy) AS mean_accuracy
                FROM sessions AS s
                JOIN attempts AS a ON a.session_id = s.id
                WHERE s.patient_id = ?
                GROUP BY s.id
                ORDER BY s.started_at DESC, s.id DESC
                """,
                (patient_id,),
            )
        return [
            SessionSummary(
                session_id=r["id"],
                started_at=from_db_time(r["started_at"]),  # type: ignore[arg-type]
                ended_at=from_db_time(r["ended_at"]),
                exercise_kind=r["exercise_kind"],
                attempt_count=r["attempt_count"],
                success_count=r["success_count"],
                success_rate=r["success_rate"],
                mean_word_count=r["mean_word_count"],
                mean_function_word_ratio=r["mean_function_word_ratio"],
                mean_verb_count=r["mean_verb_count"],
                mean_words_per_minute=r["mean_words_per_minute"],
                mean_pause_ratio=r["mean_pause_ratio"],
                mean_wer=r["mean_wer"],
                mean_accuracy=r["mean_accuracy"],
            )
            for r in _readable_times(rows, "session")
        ]

    def progress(
        self, patient_id: int, metric: str, exercise_kind: str | None = None
    ) -> list[ProgressPoint]:
        """Session means of ``metric`` over time (oldest first); sessions without a value skipped.

        Raises:
            ValueError: unknown metric name.
        """
        if metric not in _METRIC_SQL:
            raise ValueError(f"unknown metric {metric!r}; expected one of {METRIC_NAMES}")
        kind_filter = "AND s.exercise_kind = ?" if exercise_kind is not None else ""
        params: list[Any] = [patient_id] + ([exercise_kind] if exercise_kind is not None else [])
        # The metric expression comes from the fixed table above, never from input.
        with self._repository.connection("reading progress") as db:
            rows = fetch_all(
                db,
                f"""
                SELECT s.id, s.started_at, {_METRIC_SQL[metric]} AS value, COUNT(a.id) AS n
                FROM sessions AS s
                JOIN attempts AS a ON a.session_id = s.id
                WHERE s.patient_id = ? {kind_filter}
                GROUP BY s.id
                HAVING value IS NOT NULL
                ORDER BY s.started_at, s.id
                """,
                params,
            )
        return [
            ProgressPoint(
                session_id=r["id"],
                started_at=from_db_time(r["started_at"]),  # type: ignore[arg-type]
                value=float(r["value"]),
                attempt_count=r["n"],
            )
            for r in _readable_times(rows, "session")
        ]

    def export_rows(self, patient_id: int | None = None) -> list[dict[str, Any]]:
        """Every attempt as a flat dict keyed by :data:`EXPORT_COLUMNS`, oldest first."""
        where = "WHERE p.id = ?" if patient_id is not None else ""
        with self._repository.connection("exporting") as db:
            rows = fetch_all(
                db,
                f"""
                SELECT p.id AS patient_id, p.display_name AS patient_name,
                       s.id AS session_id, s.exercise_kind, s.started_at AS session_started_at,
                       a.id AS attempt_id, a.created_at, a.kind, a.target_text,
                       sc.title AS script_title,
                       COALESCE(a.edited_transcript, a.raw_transcript) AS transcript,
                       a.raw_transcript,
                       (a.edited_transcript IS NOT NULL
                        OR a.edited_repetition_transcript IS NOT NULL) AS transcript_edited,
                       a.chosen_sentence,
                       COALESCE(a.edited_repetition_transcript, a.repetition_transcript)
                           AS repetition_transcript,
                       a.word_count, a.function_word_ratio, a.verb_count, a.words_per_minute,
                       a.pause_ratio, a.wer, a.accuracy, a.target_score, a.success, a.cue_level,
                       a.duration_s, a.recording_path, a.recording_sha256, a.provider
                FROM attempts AS a
                JOIN sessions AS s ON s.id = a.session_id
                JOIN patients AS p ON p.id = s.patient_id
                LEFT JOIN scripts AS sc ON sc.id = a.script_id
                {where}
                ORDER BY a.created_at, a.id
                """,
                [patient_id] if patient_id is not None else [],
            )
        out = []
        for r in rows:
            item = {name: r[name] for name in EXPORT_COLUMNS}
            item["transcript_edited"] = bool(item["transcript_edited"])
            item["success"] = None if item["success"] is None else bool(item["success"])
            out.append(item)
        return out
