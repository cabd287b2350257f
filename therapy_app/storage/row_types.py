"""Typed rows the stores return: patients, sessions, attempts, audit lines, summaries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from therapy_app import pause_tolerance
from therapy_app.analysis.metrics import AttemptMetrics
from therapy_app.domain.attempt_record import AttemptRecord, ExerciseKind
from therapy_app.phrases.model import Gender

TranscriptField = Literal["transcript", "repetition_transcript"]
TRANSCRIPT_FIELDS: tuple[str, ...] = get_args(TranscriptField)

AttemptMeasure = Literal[
    "word_count",
    "function_word_ratio",
    "verb_count",
    "words_per_minute",
    "pause_ratio",
    "wer",
    "accuracy",
    "target_score",
]
"""Measures stored with each attempt, each in the ``attempts`` column of its name."""
ATTEMPT_MEASURES: tuple[str, ...] = get_args(AttemptMeasure)

MetricName = Literal[AttemptMeasure, "success_rate", "naming_accuracy", "naming_cue_level"]
"""What ``HistoryStore.progress`` charts: per-session means."""
METRIC_NAMES: tuple[str, ...] = get_args(MetricName)


@dataclass(frozen=True)
class Patient:
    """A person practising with the app.

    Attributes:
        id: database id; also names the patient's recordings folder.
        display_name: name shown in the UI.
        initials: one to three letters for the avatar.
        avatar_colour: "#rrggbb".
        created_at: UTC time the patient was added.
        pause_tolerance_ms: silence that ends the patient's recordings
            (``therapy_app.pause_tolerance``).
        archived_at: when the therapist archived the patient (hidden from the
            start screen, history kept); None for an active patient.
        gender: chooses the agreement of first-person sentences proposed to
            them ("je suis allée"); ``Gender.UNSAID`` when the profile does not say.
    """

    id: int
    display_name: str
    initials: str
    avatar_colour: str
    created_at: datetime
    pause_tolerance_ms: int = pause_tolerance.DEFAULT_MS
    archived_at: datetime | None = None
    gender: Gender = Gender.UNSAID

    @property
    def archived(self) -> bool:
        """True when archived."""
        return self.archived_at is not None


@dataclass(frozen=True)
class Exercise:
    """An exercise in the catalogue (three are created with the database)."""

    id: int
    kind: ExerciseKind
    title: str
    level: int


@dataclass(frozen=True)
class TherapySession:
    """One sitting of one exercise kind by one patient; ``ended_at`` None while open."""

    id: int
    patient_id: int
    exercise_kind: ExerciseKind
    exercise_id: int | None
    started_at: datetime
    ended_at: datetime | None


@dataclass(frozen=True)
class Attempt:
    """A stored attempt: the original record, therapist edits and computed metrics.

    Attributes:
        id: database id.
        record: as given to ``AttemptStore.add`` (original transcripts, never modified).
        created_at: UTC time.
        edited_transcript: the therapist's correction of the transcript, if any.
        edited_repetition_transcript: same for the repetition transcript.
        success: the verdict in force: the therapist's override if there is
            one, else ``computed_success``.
        metrics: metrics of the current (edited if edited) transcripts.
        computed_success: the verdict without the override: the caller's, or
            derived by :func:`therapy_app.verdict.decide`, recomputed after a
            transcript edit.
        verdict_override: the therapist's verdict, None when not overridden.
        damaged: columns whose stored value could not be read (bad JSON...);
            they are shown empty instead of hiding the whole history.
    """

    id: int
    record: AttemptRecord
    created_at: datetime
    edited_transcript: str | None
    edited_repetition_transcript: str | None
    success: bool | None
    metrics: AttemptMetrics
    computed_success: bool | None = None
    verdict_override: bool | None = None
    damaged: tuple[str, ...] = ()

    @property
    def transcript(self) -> str:
        """The transcript in force: the edit if there is one, else the ASR text."""
        if self.edited_transcript is not None:
            return self.edited_transcript
        return self.record.raw_transcript

    @property
    def repetition_transcript(self) -> str | None:
        """The repetition transcript in force (edit first)."""
        if self.edited_repetition_transcript is not None:
            return self.edited_repetition_transcript
        return self.record.repetition_transcript


@dataclass(frozen=True)
class TranscriptEdit:
    """One audited change of a transcript by a therapist."""

    id: int
    attempt_id: int
    field: TranscriptField
    old_text: str | None
    new_text: str
    editor: str
    edited_at: datetime


VerdictCause = Literal["transcript_edit", "override", "override_removed"]
VERDICT_CAUSES: tuple[str, ...] = ("transcript_edit", "override", "override_removed")


@dataclass(frozen=True)
class VerdictChange:
    """One audited change of an attempt's verdict in force.

    Attributes:
        id: database id.
        attempt_id: the attempt.
        cause: a transcript edit recomputed it, or the therapist set or
            removed an override.
        old_success: the verdict in force before (None: no verdict).
        new_success: the verdict in force after.
        editor: the therapist's username.
        reason: the therapist's note ("" when none).
        changed_at: UTC time.
    """

    id: int
    attempt_id: int
    cause: VerdictCause
    old_success: bool | None
    new_success: bool | None
    editor: str
    reason: str
    changed_at: datetime


@dataclass(frozen=True)
class SessionSummary:
    """One line of a patient's history. Means are over the session's attempts
    where the metric is defined; None when none is.

    Attributes:
        success_rate: successes / attempts with a verdict.
        mean_word_count: the session's mean length of utterance in words.
    """

    session_id: int
    started_at: datetime
    ended_at: datetime | None
    exercise_kind: ExerciseKind
    attempt_count: int
    success_count: int
    success_rate: float | None
    mean_word_count: float | None
    mean_function_word_ratio: float | None
    mean_verb_count: float | None
    mean_words_per_minute: float | None
    mean_pause_ratio: float | None
    mean_wer: float | None
    mean_accuracy: float | None


@dataclass(frozen=True)
class ProgressPoint:
    """A metric's session mean, for a progress chart."""

    session_id: int
    started_at: datetime
    value: float
    attempt_count: int


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
