"""The loaded engines and the audio devices of the speech path, in one small container."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder
from therapy_app.correction.corrector import Corrector
from therapy_app.tts.synthesizer import SpeechSynthesizer
from therapy_app.vad.silero import VoiceActivityDetector

if TYPE_CHECKING:
    from therapy_app.practice.scoring import EncodeOnce


class AudioOutput(Protocol):
    """What the speech path needs from a player (``audio.player.Player`` or ``SilentPlayer``)."""

    def play(self, clip: AudioClip, blocking: bool = False) -> None:
        """Start playing (optionally wait for the end)."""

    def stop(self) -> None:
        """Stop now."""

    @property
    def is_playing(self) -> bool:
        """True while playing."""


class SilentPlayer:
    """A player without a speaker: remembers what it was asked to play.

    Used by tests, the screenshot script and ``therapy-app loop --no-play``, at
    the same boundary as the real :class:`~therapy_app.audio.player.Player`.
    """

    def __init__(self) -> None:
        self.played: list[AudioClip] = []

    def play(self, clip: AudioClip, blocking: bool = False) -> None:
        """Record the clip and return at once."""
        self.played.append(clip)

    def stop(self) -> None:
        """Nothing to stop."""

    @property
    def is_playing(self) -> bool:
        """Never playing."""
        return False


@dataclass
class SpeechServices:
    """Engines and devices shared by the command-line loop and every exercise screen.

    Built by :func:`therapy_app.speech.loading.assemble` (the one loader).

    Attributes:
        recognizer: speech recognition and target scoring.
        synthesizer: the French voice.
        vad: voice activity detection (trim, pauses, end of speech).
        recorder_factory: makes a fresh :class:`Recorder` for each recording
            (the microphone in the app; a file source in tests).
        player: plays the voice.
        corrector: None when the correction model is missing, damaged or not
            wanted: the transcript itself is then proposed (and spoken).
        model_versions: model name -> version, stored with every attempt.
        notices: French notices about engines the path runs without (shown
            once by the GUI, printed on stderr by the command line).
    """

    recognizer: SpeechRecognizer
    synthesizer: SpeechSynthesizer
    vad: VoiceActivityDetector
    recorder_factory: Callable[[], Recorder]
    player: AudioOutput
    corrector: Corrector | None = None
    model_versions: dict[str, str] = field(default_factory=dict)
    notices: tuple[str, ...] = ()
    _heard: EncodeOnce | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def provider(self) -> str:
        """Where recognition runs ("cpu" or "cuda")."""
        return self.recognizer.provider

    def listen(self) -> EncodeOnce:
        """The recogniser view that hears an utterance and then checks it against a phrase book.

        Hearing the utterance runs the encoder (about 0.5 s on 2 cores); the
        phrase-book check scores candidates on the same samples, so it reuses
        that encoder output instead of running it again. The view is kept
        until :meth:`forget_heard` (its encoding is about 37 MB). Used on the
        one inference thread, like every engine here.
        """
        # Imported here: therapy_app.practice imports the speech path at import time.
        from therapy_app.practice.scoring import EncodeOnce

        if self._heard is None or self._heard.recognizer is not self.recognizer:
            self._heard = EncodeOnce(self.recognizer)
        return self._heard

    def forget_heard(self) -> None:
        """Drop the last utterance's encoder output (its phrase-book check is done)."""
        self._heard = None
