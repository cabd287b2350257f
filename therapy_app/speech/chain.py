"""The one speech path: record → hear (one VAD pass) → correct → speak, a function per step."""

# The command-line loop runs run_utterance (hear, correct, synthesise) on each
# clip; the practice controller schedules the same functions one by one on its
# workers, between its states. Storing an attempt is the practice session's job
# (therapy_app.practice.session_store): the command line stores nothing.

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import cast

from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.asr.utterance import HeardUtterance
from therapy_app.asr.utterance import hear as _hear
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.correction.corrector import Correction
from therapy_app.correction.diff import DiffOp, word_diff
from therapy_app.correction.normalize import normalize_text
from therapy_app.phrases.agreement import agree
from therapy_app.phrases.match import match_phrases
from therapy_app.phrases.model import Gender, PhraseBook, PhraseMatch
from therapy_app.speech.services import SpeechServices
from therapy_app.tts.options import SynthesisOptions
from therapy_app.written import as_sentence

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Capture:
    """A finished recording.

    Attributes:
        clip: everything captured.
        reason: why it ended.
    """

    clip: AudioClip
    reason: StopReason | None


CORRECTOR = "corrector"
"""``Proposal.source`` of the corrector's proposals (and of the transcript itself)."""
PHRASE = "phrase"
"""``Proposal.source`` of a sentence of the patient's phrase book."""
MAX_PROPOSALS = 3


@dataclass(frozen=True)
class Proposal:
    """A sentence offered in "Vouliez-vous dire… ?" (the first one is what the CLI says).

    Attributes:
        text: the sentence.
        score: corrector score (higher is surer); 0.0 for the raw transcript.
        diff: word operations from what was heard to ``text`` (restored words
            are highlighted in the GUI).
        source: ``"phrase"`` for a sentence of the patient's phrase book (its
            score is then the match's lexical coverage, 0-1), ``"corrector"``
            otherwise. Shown to the therapist, never to the patient.
    """

    text: str
    score: float
    diff: list[DiffOp] = field(default_factory=list)
    source: str = CORRECTOR


@dataclass(frozen=True)
class CorrectionResult:
    """Proposals for an utterance.

    Attributes:
        proposals: 1 to 3 sentences, best first (the transcript itself when
            there is no corrector or it declined).
        correction: the corrector's raw output (None without a corrector).
        seconds: time spent correcting.
        matches: the phrase book's candidates, the clear one first (empty
            without a book or when no sentence shares a word with the utterance).
        phrase_seconds: time spent matching the phrase book (0.0 without one).
    """

    proposals: list[Proposal] = field(default_factory=list)
    correction: Correction | None = None
    seconds: float = 0.0
    matches: tuple[PhraseMatch, ...] = ()
    phrase_seconds: float = 0.0

    @property
    def best(self) -> str:
        """The first proposal ("" when nothing was heard)."""
        return self.proposals[0].text if self.proposals else ""


@dataclass(frozen=True)
class UtteranceResult:
    """One utterance through the whole path (the command-line loop's unit).

    Attributes:
        heard: the trimmed clip and its transcript; None when the VAD found no speech.
        correction: the proposals; None when nothing was heard.
        speech: the first proposal synthesised; None when there was nothing to say.
        timings: seconds per stage ("vad", "asr", "phrases", "correct", "tts").
    """

    heard: HeardUtterance | None
    correction: CorrectionResult | None
    speech: AudioClip | None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What was heard ("" for nothing)."""
        return self.heard.transcript.text if self.heard is not None else ""


# ----- record ------------------------------------------------------------------
def start_recording(
    services: SpeechServices, trailing_silence_ms: int, limits: RecorderSettings
) -> Recorder:
    """Open a fresh recorder that ends on the speaker's own silence (the VAD's detector).

    Raises:
        AudioDeviceError: no microphone.
    """
    recorder = services.recorder_factory()
    recorder.start(services.vad.end_of_speech_detector(trailing_silence_ms), limits)
    return recorder


def capture(recorder: Recorder) -> Capture:
    """Wait until the recorder stops (end of speech, the button, the limit) and collect the clip.

    Raises:
        AudioDeviceError: the microphone failed during the recording.
    """
    recorder.wait()
    clip = recorder.stop()
    return Capture(clip, recorder.stop_reason)


# ----- hear --------------------------------------------------------------------
def hear(services: SpeechServices, clip: AudioClip) -> HeardUtterance | None:
    """Trim to the speech, measure pauses and recognise (one VAD pass over the clip).

    Returns:
        None when the VAD finds no speech at all (nothing to score).

    Raises:
        AudioInputError: the clip cannot be recognised (too long, corrupt).
    """
    listener = services.listen()
    # hear() only calls transcribe(), which the encode-once view has with the same signature.
    return _hear(cast(SpeechRecognizer, listener), services.vad, clip)


# ----- correct -----------------------------------------------------------------
def correct(
    services: SpeechServices,
    heard: str,
    *,
    book: PhraseBook | None = None,
    utterance: HeardUtterance | None = None,
) -> CorrectionResult:
    """Proposals for ``heard``: a clear phrase-book match first, then the corrector's.

    Without a corrector (or when it declines) the transcript itself stands for
    its proposals. Every proposal is agreed with the patient's gender when
    the book gives it ("Je suis allée…"); at most :data:`MAX_PROPOSALS`, no
    sentence twice.

    Args:
        services: the engines.
        heard: the transcript.
        book: the patient's phrase book (None: no match is tried).
        utterance: the recording ``heard`` came from (the match's acoustic
            check scores it; None: no match is tried).

    Raises:
        TherapyAppError: the utterance is too long for the corrector.
    """
    found = _corrector_proposals(services, heard)
    matches: tuple[PhraseMatch, ...] = ()
    phrase_seconds = 0.0
    if book is not None and utterance is not None and heard.strip() and len(book):
        start = time.perf_counter()
        # The view that heard the utterance scores its encoder output again
        # (no second encoder run: about 0.5 s on 2 cores).
        matches = tuple(match_phrases(services.listen(), utterance, book))
        phrase_seconds = time.perf_counter() - start
    services.forget_heard()
    gender = book.gender if book is not None else Gender.UNSAID
    # The words the diffs start from: what the corrector read, or the transcript.
    source = found.correction.source if found.correction is not None else normalize_text(heard)
    ours = [_agreed(p, gender, source) for p in found.proposals]
    if matches and matches[0].clear:
        text = matches[0].phrase.text  # agreed when the book was built
        ours.insert(0, Proposal(text, matches[0].lexical, word_diff(source, text), PHRASE))
    return CorrectionResult(
        _distinct(ours)[:MAX_PROPOSALS],
        found.correction,
        found.seconds,
        matches,
        phrase_seconds,
    )


def _corrector_proposals(services: SpeechServices, heard: str) -> CorrectionResult:
    if services.corrector is None or not heard.strip():
        return CorrectionResult([Proposal(as_sentence(heard), 0.0, [])])
    result = services.corrector.correct(heard)
    if not result.best:
        return CorrectionResult([Proposal(as_sentence(heard), 0.0, [])], result, result.seconds)
    proposals = [
        Proposal(alt.text, alt.score, word_diff(result.source, alt.text))
        for alt in result.alternatives
    ] or [Proposal(result.best, 0.0, result.diff)]
    return CorrectionResult(proposals, result, result.seconds)


def _agreed(proposal: Proposal, gender: Gender, source: str) -> Proposal:
    """``proposal`` agreed with the patient's gender (its diff from ``source`` redone)."""
    if gender is Gender.UNSAID or not proposal.text:
        return proposal
    text = agree(proposal.text, gender)
    if text == proposal.text:
        return proposal
    return Proposal(text, proposal.score, word_diff(source, text), proposal.source)


def _distinct(proposals: list[Proposal]) -> list[Proposal]:
    """No sentence twice (case and punctuation aside): the first, and so the phrase, stays."""
    seen: set[str] = set()
    out = []
    for proposal in proposals:
        key = normalize_text(proposal.text)
        if key not in seen:
            seen.add(key)
            out.append(proposal)
    return out


# ----- speak -------------------------------------------------------------------
def synthesize(
    services: SpeechServices, text: str, options: SynthesisOptions | None = None
) -> tuple[AudioClip, float]:
    """The French voice saying ``text``, and the seconds it took.

    Raises:
        SpeechSynthesisError: the voice failed.
    """
    start = time.perf_counter()
    clip = services.synthesizer.synthesize(text, options)
    return clip, time.perf_counter() - start


def play_clip(services: SpeechServices, clip: AudioClip) -> None:
    """Play a clip to the end (or until the player is stopped).

    Raises:
        AudioDeviceError: no speaker.
    """
    services.player.play(clip, blocking=True)


def speak(services: SpeechServices, text: str, options: SynthesisOptions | None = None) -> float:
    """Synthesise ``text`` and play it to the end.

    Returns:
        Seconds spent synthesising.

    Raises:
        SpeechSynthesisError: the voice failed.
        AudioDeviceError: no speaker (the clip was synthesised, not heard).
    """
    clip, seconds = synthesize(services, text, options)
    play_clip(services, clip)
    return seconds


# ----- the whole path ------------------------------------------------------------
def run_utterance(
    services: SpeechServices,
    clip: AudioClip,
    options: SynthesisOptions | None = None,
    *,
    book: PhraseBook | None = None,
) -> UtteranceResult:
    """Hear, correct and synthesise one recorded utterance (played by the caller).

    Args:
        services: the loaded engines.
        clip: 16 kHz mono recording.
        options: rate and pauses of the spoken answer.
        book: the patient's phrase book: a clear match is proposed (and said) first.

    Raises:
        AudioInputError: the clip cannot be recognised.
        SpeechSynthesisError: the voice failed.
    """
    start = time.perf_counter()
    heard = hear(services, clip)
    timings = {"vad": time.perf_counter() - start}
    if heard is None:
        services.forget_heard()
        return UtteranceResult(None, None, None, timings)
    timings["vad"] -= heard.asr_seconds
    timings["asr"] = heard.asr_seconds
    correction = correct(services, heard.transcript.text, book=book, utterance=heard)
    if book is not None:
        timings["phrases"] = correction.phrase_seconds
    if correction.correction is not None:
        timings["correct"] = correction.seconds
    speech = None
    if correction.best:
        speech, timings["tts"] = synthesize(services, correction.best, options)
    return UtteranceResult(heard, correction, speech, timings)
