"""The slow steps of the practice loop, run on a worker: capture, analyse, correct, speak."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from therapy_app.asr.utterance import HeardUtterance, hear
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, StopReason
from therapy_app.correction.corrector import Correction
from therapy_app.correction.diff import word_diff
from therapy_app.practice.events import Cue, Proposal
from therapy_app.practice.services import SpeechServices
from therapy_app.tts.options import SynthesisOptions

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


# A recording after VAD and recognition: the hearing path's own result.
Analysis = HeardUtterance


@dataclass(frozen=True)
class CorrectionResult:
    """Proposals for a free-speech utterance.

    Attributes:
        proposals: 1 to 3 sentences, best first.
        correction: the corrector's raw output (None without a corrector).
        seconds: time spent correcting.
    """

    proposals: list[Proposal] = field(default_factory=list)
    correction: Correction | None = None
    seconds: float = 0.0


def capture(recorder: Recorder) -> Capture:
    """Wait until the recorder stops (end of speech, the button, the limit) and collect the clip.

    Raises:
        AudioDeviceError: the microphone failed during the recording.
    """
    recorder.wait()
    clip = recorder.stop()
    return Capture(clip, recorder.stop_reason)


def analyse(services: SpeechServices, clip: AudioClip) -> Analysis | None:
    """Trim to the speech, measure pauses and recognise.

    Returns:
        None when the VAD finds no speech at all (nothing to score).

    Raises:
        AudioInputError: the clip cannot be recognised (too long, corrupt).
    """
    return hear(services.recognizer, services.vad, clip)


def as_sentence(text: str) -> str:
    """A transcript shown as a sentence: capital first letter, final punctuation."""
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?…" else text + "."


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


def speak(services: SpeechServices, cue: Cue) -> float:
    """Synthesise the cue and play it to the end (or until the player is stopped).

    Returns:
        Seconds spent synthesising.

    Raises:
        SpeechSynthesisError: the voice failed.
        AudioDeviceError: no speaker (the clip was synthesised, not heard).
    """
    options = SynthesisOptions(rate_wpm=cue.rate_wpm, pause_between_words_ms=cue.pause_ms)
    start = time.perf_counter()
    clip = services.synthesizer.synthesize(cue.spoken, options)
    seconds = time.perf_counter() - start
    services.player.play(clip, blocking=True)
    return seconds


def play_clip(services: SpeechServices, clip: AudioClip) -> None:
    """Play the patient's own recording back.

    Raises:
        AudioDeviceError: no speaker.
    """
    services.player.play(clip, blocking=True)
