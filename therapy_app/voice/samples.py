"""Which of a patient's recordings the personal model may learn from, and with which words.

A personal model learns the words it is given for each recording. A wrong
label teaches it to hear a word the patient did not say, and from then on
to accept that error as right, so only recordings whose words someone or
something can vouch for are taught. The **guard**, attempt by attempt:

1. **A therapist's word wins, and the latest one counts.** A transcript the
   therapist corrected (``edited_transcript``) is the label, whatever the
   verdict and the exercise, free speech included ("edited"): it is what they
   heard, and a wrong answer labelled as what was said ("chameau" for
   "chapeau") is a true label too. An override to success is "confirmed"; an
   override to failure excludes the try from every automatic source. A later
   edit or override replaces what the rule said (they are stored in force).
2. **"confirmed"** labels the try with what was said: the target's own text
   when the recogniser's transcript has exactly its words; the transcript
   when it names a one-word answer with another frame ("un chat", "c'est un
   chat" for the picture "chat": :func:`bare_answer`); the target for a
   repeated *sentence* otherwise (the therapist confirms the sentence was
   said). A confirmed picture name, completion answer or repeated word whose
   transcript names something else is **excluded**: which determiner or
   sentence the patient put around the word is not stored (the best-scoring
   accepted form is not kept with the attempt); correcting the transcript
   brings it in.
3. **"clear_margin"**: an automatic success, never overridden or edited,
   only when two independent readings agree: the recogniser's free
   transcript says the target's words (as in 2, the sentence word for word),
   and it scored the target with a mean log-probability per token of at
   least :data:`CLEAR_MIN_LOGPROB`. A success by the sound rule alone (the
   transcript says something else) or by the words rule with a wrong word
   (WER up to 0.25) is not taught: the target is then only the
   recogniser's guess against a few distractors, exactly where a false
   accept hides. Tries scored while a personal model was in use do not count
   either: a model must not vouch for its own training labels.
4. Excluded always: free speech without an edit (no known words), a
   repetition transcript edited on a free-speech attempt (its recording is
   the spontaneous utterance, not the repetition), a recording missing or
   not the one stored (SHA-256), texts that are notes rather than speech.

Recordings of the « Enregistrer la voix » session the therapist marked right
("enrolment") and imported ones ("imported") come from the patient's voice
folder (:mod:`therapy_app.voice.enrolment`). A recording found twice (same
SHA-256) keeps its strongest label (:data:`SOURCE_ORDER`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from therapy_app.analysis.answers import bare_answer
from therapy_app.analysis.metrics import words
from therapy_app.domain.attempt_record import JUDGED_KINDS
from therapy_app.exercises import display_word_count
from therapy_app.model_store import sha256_file
from therapy_app.storage.row_types import Attempt
from therapy_app.voice.enrolment import clean_text, stored_samples, text_problem
from therapy_app.voice.model import Source, VoiceSample

if TYPE_CHECKING:
    from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

CLEAR_MIN_LOGPROB = -1.0
"""Least mean log-probability per token of the target for an automatic success to teach.

Whisper's own decoder treats a transcription below -1.0 per token as failed
and decodes again (``logprob_threshold`` in openai-whisper and
faster-whisper): below it the words come more from the language model than
from the audio, which is how a garbled try gets written as the expected
word. The benchmark of the lead measures the wrong-label rate at this value.
"""

SOURCE_ORDER: tuple[Source, ...] = ("edited", "confirmed", "enrolment", "imported", "clear_margin")
"""Strongest first: the therapist's transcript, their verdict, their marks, an import, the rule."""


PERSONAL_VERSION_PREFIX = "personal"
"""``model_versions`` keys of an attempt scored with a personal model start with this."""


def _names_target(kind: str, target: str, transcript: str) -> str | None:
    """What was said when ``transcript`` says ``target``, else None.

    The target's own text when the words are the same (its spelling and
    punctuation); the transcript when a one-word answer comes with another
    determiner or "c'est" (picture names, completion answers, words to repeat).
    """
    heard = words(transcript)
    if heard and heard == words(target):
        return clean_text(target)
    one_word = kind in ("naming", "completion") or display_word_count(target) == 1
    said = bare_answer(transcript)
    if one_word and said and said == bare_answer(target):
        return clean_text(transcript)
    return None


def _speech(text: str | None) -> str | None:
    """``text`` when it can label a recording: words, and no therapist's note."""
    if text is None:
        return None
    label = clean_text(text)
    if text_problem(label) is not None:
        return None
    return label


def _scored_by_personal_model(attempt: Attempt) -> bool:
    return any(k.startswith(PERSONAL_VERSION_PREFIX) for k in attempt.record.model_versions)


def attempt_label(attempt: Attempt) -> tuple[Source, str] | None:
    """The source and the words said of one attempt under the guard, or None when not taught.

    Pure: the recording itself is not looked at (see :func:`usable_samples`).
    """
    record = attempt.record
    if attempt.edited_transcript is not None:
        edited = _speech(attempt.edited_transcript)
        return ("edited", edited) if edited is not None else None
    if attempt.edited_repetition_transcript is not None:
        return None  # the therapist touched this try, and no edit labels its recording
    target = (record.target_text or "").strip()
    if record.kind not in JUDGED_KINDS or not words(target) or attempt.verdict_override is False:
        return None
    said = _names_target(record.kind, target, attempt.transcript)
    if attempt.verdict_override:
        if said is None and record.kind == "repetition" and display_word_count(target) > 1:
            said = clean_text(target)
        return ("confirmed", said) if said is not None else None
    if _scored_by_personal_model(attempt):
        return None
    said = clear_label(
        record.kind, target, attempt.transcript, bool(attempt.computed_success), record.target_score
    )
    return ("clear_margin", said) if said is not None else None


def clear_label(
    kind: str, target: str, transcript: str, success: bool, target_per_token: float | None
) -> str | None:
    """The words an automatic success teaches (rule 3 of the guard), or None.

    Both readings must agree: the verdict accepted the try, the free
    ``transcript`` says the target, and the target's mean log-probability per
    token is at least :data:`CLEAR_MIN_LOGPROB`. ``benchmarks/verdicts.py``
    measures the wrong labels this lets through on tries of known truth.
    """
    if not success or target_per_token is None or target_per_token < CLEAR_MIN_LOGPROB:
        return None
    return _names_target(kind, target, transcript)


def _strongest(found: Iterable[tuple[str, VoiceSample]]) -> list[VoiceSample]:
    """One sample per SHA-256 (the strongest source, then the latest), strongest sources first."""
    rank = {source: index for index, source in enumerate(SOURCE_ORDER)}
    kept: dict[str, VoiceSample] = {}
    for digest, sample in found:
        old = kept.get(digest)
        if old is None or rank[sample.source] <= rank[old.source]:
            kept[digest] = sample
    return sorted(kept.values(), key=lambda s: rank[s.source])  # stable: oldest first within


def _recording(repository: SessionRepository, attempt: Attempt) -> Path | None:
    """The attempt's recording when it is on disk as it was stored (same SHA-256)."""
    try:
        if attempt.record.recording_sha256 is None or not repository.attempts.verify_recording(
            attempt
        ):
            return None
        return repository.attempts.recording_path(attempt)
    except (OSError, ValueError) as exc:  # unreadable, or a path out of the data folder
        _LOGGER.warning("recording of attempt %d not usable: %s", attempt.id, exc)
        return None


def usable_samples(repository: SessionRepository, patient_id: int) -> list[VoiceSample]:
    """Every recording of the patient the personal model may learn from, with its words.

    Attempts labelled by :func:`attempt_label` whose recording is on disk with its
    stored SHA-256, then the voice folder's accepted enrolment and imported
    recordings whose files match their hash. Strongest sources first.

    Raises:
        KeyError: unknown patient.
        StorageError: the database cannot be read.
        InputFileError: the voice folder's list cannot be read (French).
    """
    repository.patients.get(patient_id)
    found: list[tuple[str, VoiceSample]] = []
    for attempt in repository.attempts.all(patient_id=patient_id):
        labelled = attempt_label(attempt)
        path = _recording(repository, attempt) if labelled is not None else None
        if labelled is None or path is None or attempt.record.recording_sha256 is None:
            continue
        source, text = labelled
        found.append((attempt.record.recording_sha256, VoiceSample(path, text, source, attempt.id)))
    for stored in stored_samples(repository.data_dir, patient_id):
        if not stored.accepted or _speech(stored.text) is None:
            continue
        try:
            if not stored.audio.is_file() or sha256_file(stored.audio) != stored.sha256:
                _LOGGER.warning("voice sample %s missing or altered: not taught", stored.audio)
                continue
        except OSError as exc:
            _LOGGER.warning("voice sample %s unreadable: %s", stored.audio, exc)
            continue
        found.append((stored.sha256, stored.as_voice_sample()))
    return _strongest(found)


def usable_counts(repository: SessionRepository, patient_id: int) -> dict[str, int]:
    """How many usable recordings each source gives (every source listed, zeros included)."""
    counts: dict[str, int] = dict.fromkeys(SOURCE_ORDER, 0)
    for sample in usable_samples(repository, patient_id):
        counts[sample.source] += 1
    return counts
