"""Typed records that cross the storage boundary: patients, sessions, attempts, summaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, get_args

from therapy_app import pause_tolerance
from therapy_app.analysis.metrics import AttemptMetrics
from therapy_app.phrases.model import Gender

ExerciseKind = Literal["free_speech", "repetition", "completion", "naming", "script"]
EXERCISE_KINDS: tuple[str, ...] = get_args(ExerciseKind)
JUDGED_KINDS: tuple[str, ...] = ("repetition", "naming", "completion", "script")
"""Exercises whose tries are judged against a known target (free speech is not)."""

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
"""What :func:`~therapy_app.storage.queries.progress` charts: per-session means."""
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
class Candidate:
    """A sentence proposed to the patient, with its score (higher is better).

    Attributes:
        text: the sentence.
        score: the corrector's mean log-probability per token, or for a
            phrase-book sentence the match's word coverage (0-1).
        source: "corrector", or "phrase" for a sentence of the patient's phrase
            book; older rows, stored without one, read as "corrector".
    """

    text: str
    score: float
    source: str = "corrector"


@dataclass(frozen=True)
class StepTimings:
    """Seconds spent in each engine for one attempt (None when the step did not run)."""

    asr_s: float | None = None
    correct_s: float | None = None
    tts_s: float | None = None


@dataclass(frozen=True)
class AttemptRecord:
    """Everything known about one attempt when it is complete, as given to ``add_attempt``.

    Attributes:
        session_id: the session it belongs to.
        kind: the exercise kind it was made in.
        raw_transcript: the ASR transcript of the patient's utterance (kept forever;
            edits are stored beside it).
        target_text: the sentence or word expected (repetition, completion).
        recording_path: recording path relative to the data dir (POSIX); filled by
            ``add_attempt`` when it is given the clip.
        recording_sha256: hex digest of the recording file.
        duration_s: recording duration in seconds.
        token_logprobs: per-token log-probabilities of the ASR output.
        avg_logprob: mean token log-probability.
        correction_best: the corrector's best sentence.
        correction_alternatives: other proposals, best first.
        chosen_sentence: the sentence the patient chose (free speech loop).
        repetition_transcript: ASR transcript of the patient repeating it.
        target_score: ASR score of the target given the audio (higher is better).
        target_logprob: log-probability of the target given the audio.
        success: the caller's verdict; None lets storage derive it from the WER
            with the app's one rule (:func:`therapy_app.verdict.decide`).
        cue_level: cueing help given (0 = none).
        timings: engine timings.
        provider: onnxruntime execution provider that ran ("CPUExecutionProvider").
        model_versions: model name -> version.
        pause_ratio: share of the recording that is pause (VAD), in [0, 1].
        created_at: UTC time; None means now.
        script_id: the script a ``script`` try belongs to (``scripts.id``); None
            for other kinds and for a bundled example the patient has not been given.
        matched_text: the accepted form practice measured the try on ("un chat"
            for the picture "chat"); the stored WER is measured on it too.
        margin: the target's score over the best distractor (mean
            log-probability per token); None without distractors.
    """

    session_id: int
    kind: ExerciseKind
    raw_transcript: str = ""
    target_text: str | None = None
    recording_path: str | None = None
    recording_sha256: str | None = None
    duration_s: float | None = None
    token_logprobs: list[float] | None = None
    avg_logprob: float | None = None
    correction_best: str | None = None
    correction_alternatives: list[Candidate] = field(default_factory=list)
    chosen_sentence: str | None = None
    repetition_transcript: str | None = None
    target_score: float | None = None
    target_logprob: float | None = None
    success: bool | None = None
    cue_level: int | None = None
    timings: StepTimings | None = None
    provider: str | None = None
    model_versions: dict[str, str] = field(default_factory=dict)
    pause_ratio: float | None = None
    created_at: datetime | None = None
    script_id: int | None = None
    matched_text: str | None = None
    margin: float | None = None

    @property
    def reference(self) -> str | None:
        """What the patient was asked to say: the target, else the chosen sentence."""
        return self.target_text if self.target_text is not None else self.chosen_sentence


@dataclass(frozen=True)
class Attempt:
    """A stored attempt: the original record, therapist edits and computed metrics.

    Attributes:
        id: database id.
        record: as given to ``add_attempt`` (original transcripts, never modified).
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
