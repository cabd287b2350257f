"""The engines a practice session needs, loaded step by step, in one small container."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from therapy_app import model_store
from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.player import Player
from therapy_app.audio.recorder import Recorder
from therapy_app.correction.corrector import Corrector
from therapy_app.errors import ModelInvalidError, ModelMissingError
from therapy_app.tts.synthesizer import SpeechSynthesizer
from therapy_app.vad.silero import VoiceActivityDetector

_LOGGER = logging.getLogger(__name__)


class AudioOutput(Protocol):
    """What the controller needs from a player (``audio.player.Player`` or ``SilentPlayer``)."""

    def play(self, clip: AudioClip, blocking: bool = False) -> None:
        """Start playing (optionally wait for the end)."""

    def stop(self) -> None:
        """Stop now."""

    @property
    def is_playing(self) -> bool:
        """True while playing."""


class SilentPlayer:
    """A player without a speaker: remembers what it was asked to play.

    Used by tests and the screenshot script, where there is no sound card, at
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
    """Engines shared by every exercise screen.

    Attributes:
        recognizer: speech recognition and target scoring.
        synthesizer: the French voice.
        vad: voice activity detection (trim, pauses, end of speech).
        recorder_factory: makes a fresh :class:`Recorder` for each recording
            (the microphone in the app; a file source in tests).
        player: plays the voice.
        corrector: None when the correction model is not installed: the app
            then shows the raw transcript.
        model_versions: model name -> version, stored with every attempt.
    """

    recognizer: SpeechRecognizer
    synthesizer: SpeechSynthesizer
    vad: VoiceActivityDetector
    recorder_factory: Callable[[], Recorder]
    player: AudioOutput
    corrector: Corrector | None = None
    model_versions: dict[str, str] = field(default_factory=dict)

    @property
    def provider(self) -> str:
        """Where recognition runs ("cpu" or "cuda")."""
        return self.recognizer.provider


def _version(name: str) -> str | None:
    try:
        return str(model_store.load_model(name).meta.get("version", "?"))
    except (ModelMissingError, ModelInvalidError):
        return None


def model_versions(with_corrector: bool) -> dict[str, str]:
    """Versions of the installed models (read from their sidecars)."""
    names = [model_store.ASR_MODEL, model_store.VAD_MODEL]
    if with_corrector:
        names.append(model_store.CORRECTOR_MODEL)
    found = {name: _version(name) for name in names}
    return {name: version for name, version in found.items() if version is not None}


def load_corrector_if_installed() -> Corrector | None:
    """The corrector, or None when it is not installed or broken (logged).

    The app stays usable without correction: the patient sees what was heard.
    """
    try:
        return Corrector.load()
    except (ModelMissingError, ModelInvalidError) as exc:
        _LOGGER.warning("no sentence correction: %s", exc.detail or exc)
        return None


@dataclass(frozen=True)
class LoadStep:
    """One engine to load, with the French label shown while it loads."""

    key: str
    label: str
    load: Callable[[], Any]


LOAD_STEPS: tuple[LoadStep, ...] = (
    LoadStep("vad", "Détecteur de parole", VoiceActivityDetector.load),
    LoadStep("recognizer", "Reconnaissance vocale", SpeechRecognizer.load),
    LoadStep("synthesizer", "Voix française", SpeechSynthesizer.load),
    LoadStep("corrector", "Correction des phrases", load_corrector_if_installed),
)


def assemble(
    loaded: dict[str, Any],
    recorder_factory: Callable[[], Recorder] | None = None,
    player: AudioOutput | None = None,
) -> SpeechServices:
    """Build the container from the results of :data:`LOAD_STEPS`.

    Args:
        loaded: step key -> loaded engine.
        recorder_factory: None records from the default microphone.
        player: None plays on the default speaker.
    """
    corrector = loaded.get("corrector")
    return SpeechServices(
        recognizer=loaded["recognizer"],
        synthesizer=loaded["synthesizer"],
        vad=loaded["vad"],
        recorder_factory=recorder_factory or Recorder,
        player=player if player is not None else Player(),
        corrector=corrector,
        model_versions=model_versions(with_corrector=corrector is not None),
    )


def load_services(
    recorder_factory: Callable[[], Recorder] | None = None,
    player: AudioOutput | None = None,
) -> SpeechServices:
    """Load every engine in the calling thread (CLI, tests, scripts).

    Raises:
        ModelMissingError: the recogniser or the VAD is not built.
        ModelInvalidError: a model's files do not match its sidecar.
        SpeechSynthesisError: no French voice.
    """
    loaded = {step.key: step.load() for step in LOAD_STEPS}
    return assemble(loaded, recorder_factory, player)
