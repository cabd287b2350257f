"""Turns a finished try into the storage's AttemptRecord (everything a therapist may review)."""

from __future__ import annotations

from dataclasses import dataclass

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.domain.attempt_record import AttemptRecord, Candidate, StepTimings
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.scoring import ScoreResult
from therapy_app.speech.chain import PHRASE, CorrectionResult


@dataclass(frozen=True)
class TryOutcome:
    """One scored try, before it is stored.

    Attributes:
        kind: the kind of try (a free-speech repetition is ``REPETITION``).
        analysis: the recording that was scored (the patient's answer or repetition).
        score: the verdict.
        target: what was expected (the chosen sentence in free speech).
        cue_level: help given before the try.
        tts_s: seconds spent synthesising the last prompt.
        script_id: the script of a script-practice try (None otherwise).
    """

    kind: ExerciseKind
    analysis: HeardUtterance
    score: ScoreResult
    target: str
    cue_level: int
    tts_s: float | None
    script_id: int | None = None


def _transcript_fields(analysis: HeardUtterance) -> dict[str, object]:
    transcript = analysis.transcript
    return {
        "raw_transcript": transcript.text,
        "duration_s": analysis.clip.duration,
        "token_logprobs": list(transcript.token_logprobs),
        "avg_logprob": transcript.avg_logprob,
        "pause_ratio": analysis.pause_ratio,
    }


def item_record(
    session_id: int,
    outcome: TryOutcome,
    provider: str,
    model_versions: dict[str, str],
) -> AttemptRecord:
    """Record of a repetition, completion, naming or script try (its recording is the answer).

    A repetition try of a sentence chosen in free speech is a repetition
    record too (``outcome.kind`` is ``REPETITION``), in the free-speech session.

    ``target_score`` is the mean log-probability per token of the best
    accepted form (higher is better); ``target_logprob`` its total.
    """
    score = outcome.score
    return AttemptRecord(
        session_id=session_id,
        kind=outcome.kind.value,
        target_text=outcome.target,
        target_score=score.target_per_token,
        target_logprob=score.target_logprob,
        success=score.success,
        cue_level=outcome.cue_level,
        timings=StepTimings(asr_s=outcome.analysis.asr_seconds, tts_s=outcome.tts_s),
        provider=provider,
        model_versions=dict(model_versions),
        script_id=outcome.script_id,
        matched_text=score.matched or None,
        margin=score.margin,
        **_transcript_fields(outcome.analysis),  # type: ignore[arg-type]
    )


def free_speech_record(
    session_id: int,
    utterance: HeardUtterance,
    correction: CorrectionResult,
    chosen: str | None,
    provider: str,
    model_versions: dict[str, str],
) -> AttemptRecord:
    """Record of one free-speech utterance; its recording is the spontaneous utterance.

    The utterance is what the language metrics (words, function words, rate)
    describe. ``chosen`` is the proposal the patient picked, None when they
    left the proposals without choosing: nothing is invented then. The
    repetition tries of the chosen sentence are stored as their own
    repetition attempts (:func:`item_record`), each with its recording; this
    record carries no verdict of its own.
    """
    best = correction.correction.best if correction.correction is not None else None
    # Without a corrector the one proposal is the transcript itself: nothing to
    # store, unless a phrase-book sentence was proposed with it.
    phrase = any(p.source == PHRASE for p in correction.proposals)
    proposals = correction.proposals if correction.correction is not None or phrase else []
    return AttemptRecord(
        session_id=session_id,
        kind=ExerciseKind.FREE_SPEECH.value,
        correction_best=best,
        correction_alternatives=[Candidate(p.text, p.score, p.source) for p in proposals],
        chosen_sentence=chosen,
        timings=StepTimings(
            asr_s=utterance.asr_seconds,
            correct_s=correction.seconds if correction.correction is not None else None,
        ),
        provider=provider,
        model_versions=dict(model_versions),
        **_transcript_fields(utterance),  # type: ignore[arg-type]
    )
