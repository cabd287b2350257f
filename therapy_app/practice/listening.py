"""The RECORDING and RECOGNISING states: capture the patient's try and hear it once."""

from __future__ import annotations

from collections.abc import Callable

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.errors import AudioDeviceError
from therapy_app.practice.events import Heard, State
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.settings import PracticeSettings
from therapy_app.speech import chain
from therapy_app.speech.services import SpeechServices

NOTHING_HEARD = "Je n'ai rien entendu. Appuyez sur le bouton quand vous êtes prêt."


class Listening:
    """Records until the patient's own silence (or the button), then recognises.

    Args:
        machine: the session's state machine.
        services: the engines and the recorder factory.
        settings: recording limits and the patient's pause tolerance.
        on_heard: ``on_heard(utterance, repeating)`` once something was heard;
            ``repeating`` is False for a free-speech utterance.
    """

    def __init__(
        self,
        machine: PracticeMachine,
        services: SpeechServices,
        settings: PracticeSettings,
        on_heard: Callable[[HeardUtterance, bool], None],
    ) -> None:
        self._machine = machine
        self._services = services
        self._settings = settings
        self._on_heard = on_heard
        self._recorder: Recorder | None = None
        self.last_clip: AudioClip | None = None
        """The patient's last recording, trimmed ("Ma voix" plays it back)."""
        machine.on_failure(self._forget_recorder)

    @property
    def input_level(self) -> float:
        """Microphone peak 0..1 while recording."""
        recorder = self._recorder
        if recorder is None or self._machine.state is not State.RECORDING:
            return 0.0
        return recorder.level

    def start(self, repeating: bool) -> bool:
        """Open the microphone (RECORDING); False when it cannot be opened (reported)."""
        limits = RecorderSettings(self._settings.max_seconds, self._settings.no_speech_timeout_s)
        try:
            recorder = chain.start_recording(
                self._services, self._settings.trailing_silence_ms, limits
            )
        except AudioDeviceError as exc:
            self._machine.fail(exc)
            return False
        self._recorder = recorder
        self._machine.set_state(State.RECORDING)
        self._machine.submit(
            chain.capture, recorder, on_done=lambda c: self._captured(c, repeating)
        )
        return True

    def stop(self) -> bool:
        """End the recording now (the button); the clip is then recognised."""
        recorder = self._recorder
        if self._machine.state is not State.RECORDING or recorder is None:
            return False
        try:
            recorder.stop()
        except AudioDeviceError:
            pass  # the capture job reports it
        return True

    def abort(self) -> None:
        """Close the microphone without recognising anything (the session ends)."""
        recorder, self._recorder = self._recorder, None
        if recorder is not None:
            try:
                recorder.stop()
            except AudioDeviceError:
                pass

    def _forget_recorder(self) -> None:
        self._recorder = None

    def _captured(self, capture: chain.Capture, repeating: bool) -> None:
        self._recorder = None
        if capture.reason is StopReason.NO_SPEECH or capture.clip.duration == 0:
            self._machine.rest(NOTHING_HEARD)
            return
        self._machine.set_state(State.RECOGNISING)
        self._machine.submit(
            chain.hear,
            self._services,
            capture.clip,
            on_done=lambda heard: self._heard(heard, repeating),
        )

    def _heard(self, heard: HeardUtterance | None, repeating: bool) -> None:
        if heard is None:
            self._machine.rest(NOTHING_HEARD)
            return
        self.last_clip = heard.clip
        self._machine.emit(Heard(heard.transcript.text, heard.clip.duration, repeating))
        self._on_heard(heard, repeating)
