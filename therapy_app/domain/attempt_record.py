"""What one finished attempt is: its exercise kind, proposals, timings and the full record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, get_args

ExerciseKind = Literal["free_speech", "repetition", "completion", "naming", "script"]
EXERCISE_KINDS: tuple[str, ...] = get_args(ExerciseKind)
JUDGED_KINDS: tuple[str, ...] = ("repetition", "naming", "completion", "script")
"""Exercises whose tries are judged against a known target (free speech is not)."""


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
    """Everything known about one finished attempt, as given to ``AttemptStore.add``.

    Attributes:
        session_id: the session it belongs to.
        kind: the exercise kind it was made in.
        raw_transcript: the ASR transcript of the patient's utterance (kept forever;
            edits are stored beside it).
        target_text: the sentence or word expected (repetition, completion).
        recording_path: recording path relative to the data dir (POSIX); filled by
            ``AttemptStore.add`` when it is given the clip.
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
