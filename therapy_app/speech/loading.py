"""The one loader of the speech engines: step by step (GUI progress) or all at once (CLI)."""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from therapy_app import model_store
from therapy_app.asr.recognizer import SpeechRecognizer
from therapy_app.audio.player import Player
from therapy_app.audio.recorder import Recorder
from therapy_app.correction.corrector import Corrector
from therapy_app.errors import ModelInvalidError, ModelMissingError, TherapyAppError
from therapy_app.speech.services import AudioOutput, SpeechServices
from therapy_app.tts.synthesizer import SpeechSynthesizer
from therapy_app.vad.silero import VoiceActivityDetector
from therapy_app.voice.model import PersonalModel

_LOGGER = logging.getLogger(__name__)

CORRECTOR_KEY = "corrector"
NO_CORRECTION_NOTICE = (
    "La correction des phrases n'est pas disponible : {reason} "
    "La phrase entendue est proposée telle quelle."
)


@dataclass(frozen=True)
class Unavailable:
    """An optional engine that could not be loaded: the speech path goes on without it.

    Attributes:
        notice: French text for the patient or therapist (the same in CLI and GUI).
        error: why (for logs).
    """

    notice: str
    error: TherapyAppError


@dataclass(frozen=True)
class LoadStep:
    """One engine to load, with the French label shown while it loads."""

    key: str
    label: str
    load: Callable[[], Any]


def corrector_notice(error: TherapyAppError) -> str:
    """The French notice for a missing or damaged corrector."""
    return NO_CORRECTION_NOTICE.format(reason=error.user_message)


def load_corrector(provider: str | None = None) -> Corrector | Unavailable:
    """The corrector, or :class:`Unavailable` (logged) when it is missing or damaged.

    The speech path stays usable without correction: the transcript is
    proposed (GUI) or spoken (CLI) as it was heard.
    """
    try:
        return Corrector.load(provider=provider)
    except (ModelMissingError, ModelInvalidError) as exc:
        _LOGGER.warning("no sentence correction: %s", exc.detail or exc)
        return Unavailable(corrector_notice(exc), exc)


def load_steps(
    provider: str | None = None,
    with_corrector: bool = True,
    personal: PersonalModel | None = None,
) -> tuple[LoadStep, ...]:
    """The engines to load, in order.

    Args:
        provider: "auto", "cpu" or "cuda" for the recogniser and the corrector;
            None reads ``THERAPY_APP_PROVIDER``.
        with_corrector: False leaves the corrector out (``loop --no-correct``).
        personal: a patient's adopted personal voice model (``loop --patient``).
    """
    steps = [
        LoadStep("vad", "Détecteur de parole", VoiceActivityDetector.load),
        LoadStep(
            "recognizer",
            "Reconnaissance vocale",
            functools.partial(SpeechRecognizer.load, provider=provider, personal=personal),
        ),
        LoadStep("synthesizer", "Voix française", SpeechSynthesizer.load),
    ]
    if with_corrector:
        steps.append(
            LoadStep(
                CORRECTOR_KEY,
                "Correction des phrases",
                functools.partial(load_corrector, provider),
            )
        )
    return tuple(steps)


LOAD_STEPS: tuple[LoadStep, ...] = load_steps()


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


PERSONAL_VOICE_KEY = "personal-voice"
"""``model_versions`` key of a patient's personal model (``voice.samples`` reads the prefix)."""


def personal_versions(recognizer: SpeechRecognizer) -> dict[str, str]:
    """``{"personal-voice": version}`` when ``recognizer`` runs a personal model, else empty.

    Stored with every attempt: a try judged with a patient's own model is
    never taught back to it as a clear success (``therapy_app.voice.samples``).
    """
    if getattr(recognizer, "personal", None) is None:  # test doubles have no personal model
        return {}
    return {PERSONAL_VOICE_KEY: recognizer.model_version}


def with_personal_voice(
    services: SpeechServices, personal: PersonalModel | None, provider: str | None = None
) -> SpeechServices:
    """The same engines with a patient's personal recogniser (the generic one when None).

    Loads a recogniser (seconds): call it off the UI thread, once per patient.
    """
    if personal is None:
        return services
    recognizer = SpeechRecognizer.load(provider=provider, personal=personal)
    versions = {**services.model_versions, **personal_versions(recognizer)}
    return dataclasses.replace(services, recognizer=recognizer, model_versions=versions)


def assemble(
    loaded: dict[str, Any],
    recorder_factory: Callable[[], Recorder] | None = None,
    player: AudioOutput | None = None,
) -> SpeechServices:
    """Build the container from the results of :func:`load_steps`.

    Args:
        loaded: step key -> loaded engine (or :class:`Unavailable`).
        recorder_factory: None records from the default microphone.
        player: None plays on the default speaker.
    """
    corrector = loaded.get(CORRECTOR_KEY)
    notices: tuple[str, ...] = ()
    if isinstance(corrector, Unavailable):
        notices = (corrector.notice,)
        corrector = None
    versions = model_versions(with_corrector=corrector is not None)
    versions.update(personal_versions(loaded["recognizer"]))
    return SpeechServices(
        recognizer=loaded["recognizer"],
        synthesizer=loaded["synthesizer"],
        vad=loaded["vad"],
        recorder_factory=recorder_factory or Recorder,
        player=player if player is not None else Player(),
        corrector=corrector,
        model_versions=versions,
        notices=notices,
    )


def load_services(
    recorder_factory: Callable[[], Recorder] | None = None,
    player: AudioOutput | None = None,
    steps: Sequence[LoadStep] = LOAD_STEPS,
) -> SpeechServices:
    """Load every engine in the calling thread (CLI, tests, scripts).

    Raises:
        ModelMissingError: the recogniser or the VAD is not built.
        ModelInvalidError: a model's files do not match its sidecar.
        SpeechSynthesisError: no French voice.
    """
    loaded = {step.key: step.load() for step in steps}
    return assemble(loaded, recorder_factory, player)
