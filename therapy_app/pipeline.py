"""The headless speech loop: trim → recognise → correct → speak, with stage timings."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from therapy_app.asr.utterance import hear
from therapy_app.errors import ModelMissingError

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import SpeechRecognizer, Transcript
    from therapy_app.audio.clip import AudioClip
    from therapy_app.correction.corrector import Correction, Corrector
    from therapy_app.tts.options import SynthesisOptions
    from therapy_app.tts.synthesizer import SpeechSynthesizer
    from therapy_app.vad.silero import VoiceActivityDetector

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopResult:
    """One pass through the loop.

    Attributes:
        heard: the verbatim transcript of the (trimmed) utterance.
        correction: the corrector's output, None when no corrector is installed.
        target: the sentence spoken back (corrected, else the raw transcript).
        speech: the synthesised target, None when there was nothing to say.
        pause_ratio: silence between the first and last speech / that span.
        timings: seconds per stage ("vad", "asr", "correct", "tts").
    """

    heard: Transcript
    correction: Correction | None
    target: str
    speech: AudioClip | None
    pause_ratio: float
    timings: dict[str, float] = field(default_factory=dict)


class SpeechLoop:
    """Composes the engines; each is loaded once and reused for every utterance.

    Args:
        recognizer: the ASR.
        synthesizer: the French voice.
        vad: trims silence and measures pauses; None keeps clips as they are.
        corrector: None when the corrector model is not installed.
    """

    def __init__(
        self,
        recognizer: SpeechRecognizer,
        synthesizer: SpeechSynthesizer,
        vad: VoiceActivityDetector | None = None,
        corrector: Corrector | None = None,
    ) -> None:
        self.recognizer = recognizer
        self.synthesizer = synthesizer
        self.vad = vad
        self.corrector = corrector

    @classmethod
    def load(cls, provider: str | None = None, use_corrector: bool = True) -> SpeechLoop:
        """Load every engine; a missing corrector is tolerated (raw transcript spoken).

        Raises:
            ModelMissingError: the ASR or VAD model is not built.
            SpeechSynthesisError: no French voice.
        """
        from therapy_app.asr.recognizer import SpeechRecognizer
        from therapy_app.tts.synthesizer import SpeechSynthesizer
        from therapy_app.vad.silero import VoiceActivityDetector

        vad = VoiceActivityDetector.load()
        recognizer = SpeechRecognizer.load(provider=provider)
        synthesizer = SpeechSynthesizer.load()
        corrector = load_corrector(provider) if use_corrector else None
        return cls(recognizer, synthesizer, vad, corrector)

    def process(
        self, clip: AudioClip, speech_options: SynthesisOptions | None = None
    ) -> LoopResult:
        """Run one utterance through the loop.

        Args:
            clip: 16 kHz mono recording.
            speech_options: rate and pauses of the spoken answer.
        """
        timings: dict[str, float] = {}
        start = time.perf_counter()
        pause_ratio = 0.0
        heard_utt = hear(self.recognizer, self.vad, clip) if self.vad is not None else None
        if heard_utt is not None:
            pause_ratio = heard_utt.pause_ratio
            heard = heard_utt.transcript
            timings["asr"] = heard_utt.asr_seconds
            timings["vad"] = time.perf_counter() - start - heard_utt.asr_seconds
        else:
            # No VAD, or no speech detected: the ASR's no-speech check makes the call.
            timings["vad"] = time.perf_counter() - start
            start = time.perf_counter()
            heard = self.recognizer.transcribe(clip)
            timings["asr"] = time.perf_counter() - start

        correction = None
        target = heard.text
        if self.corrector is not None and heard.text:
            start = time.perf_counter()
            correction = self.corrector.correct(heard.text)
            timings["correct"] = time.perf_counter() - start
            target = correction.best or heard.text

        speech = None
        if target:
            start = time.perf_counter()
            speech = self.synthesizer.synthesize(target, speech_options)
            timings["tts"] = time.perf_counter() - start
        return LoopResult(heard, correction, target, speech, pause_ratio, timings)


def load_corrector(provider: str | None = None) -> Corrector | None:
    """The corrector, or None (logged) when its model is not installed."""
    from therapy_app.correction.corrector import Corrector

    try:
        return Corrector.load(provider=provider)
    except ModelMissingError as exc:
        _LOGGER.warning("no corrector: %s", exc.detail)
        return None
