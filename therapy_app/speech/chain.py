"""The one speech path: record → hear (one VAD pass) → correct → speak, a function per step."""

# The command-line loop runs run_utterance (hear, correct, synthesise) on each
# clip; the practice controller schedules the same functions one by one on its
# workers, between its states. Storing an attempt is the practice session's job
# (therapy_app.practice.session_store): the command line stores nothing.

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.asr.utterance import hear as _hear
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.correction.corrector import Correction
from therapy_app.correction.diff import DiffOp, word_diff
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


@dataclass(frozen=True)
class Proposal:
    """A sentence offered in "Vouliez-vous dire… ?" (the first one is what the CLI says).

    Attributes:
        text: the sentence.
        score: corrector score (higher is surer); 0.0 for the raw transcript.
        diff: word operations from what was heard to ``text`` (restored words
            are highlighted in the GUI).
    """

    text: str
    score: float
    diff: list[DiffOp] = field(default_factory=list)


@dataclass(frozen=True)
class CorrectionResult:
    """Proposals for an utterance.

    Attributes:
        proposals: 1 to 3 sentences, best first (the transcript itself when
            there is no corrector or it declined).
        correction: the corrector's raw output (None without a corrector).
        seconds: time spent correcting.
    """

    proposals: list[Proposal] = field(default_factory=list)
    correction: Correction | None = None
    seconds: float = 0.0

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
        timings: seconds per stage ("vad", "asr", "correct", "tts").
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
    return _hear(services.recognizer, services.vad, clip)


# ----- correct -----------------------------------------------------------------
def correct(services: SpeechServices, heard: str) -> CorrectionResult:
    """Proposals for ``heard``: the corrector's alternatives, or the transcript itself.

    Raises:
        TherapyAppError: the utterance is too long for the corrector.
    """
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
    services: SpeechServices, clip: AudioClip, options: SynthesisOptions | None = None
) -> UtteranceResult:
    """Hear, correct and synthesise one recorded utterance (played by the caller).

    Args:
        services: the loaded engines.
        clip: 16 kHz mono recording.
        options: rate and pauses of the spoken answer.

    Raises:
        AudioInputError: the clip cannot be recognised.
        SpeechSynthesisError: the voice failed.
    """
    start = time.perf_counter()
    heard = hear(services, clip)
    timings = {"vad": time.perf_counter() - start}
    if heard is None:
        return UtteranceResult(None, None, None, timings)
    timings["vad"] -= heard.asr_seconds
    timings["asr"] = heard.asr_seconds
    correction = correct(services, heard.transcript.text)
    if correction.correction is not None:
        timings["correct"] = correction.seconds
    speech = None
    if correction.best:
        speech, timings["tts"] = synthesize(services, correction.best, options)
    return UtteranceResult(heard, correction, speech, timings)
