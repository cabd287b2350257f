"""The RECORDING and RECOGNISING states: capture the patient's try and hear it once.

A try at a known target is judged while it is recorded (:mod:`therapy_app.practice.early`):
an accepted answer ends the recording at the patient's first settled pause.
"""

from __future__ import annotations

from collections.abc import Callable

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.errors import AudioDeviceError
from therapy_app.practice.early import AnswerJudge, Judged, Listened, listen
from therapy_app.practice.events import Heard, State
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.scoring import ScoreResult
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
        on_heard: ``on_heard(utterance, repeating, result)`` once something was
            heard; ``repeating`` is False for a free-speech utterance;
            ``result`` is the verdict when the try was judged with its
            recording (a known target), else None (still to be scored).
    """

    def __init__(
        self,
        machine: PracticeMachine,
        services: SpeechServices,
        settings: PracticeSettings,
        on_heard: Callable[[HeardUtterance, bool, ScoreResult | None], None],
    ) -> None:
        self._machine = machine
        self._services = services
        self._settings = settings
        self._on_heard = on_heard
        self._recorder: Recorder | None = None
        self.last_clip: AudioClip | None = None
        """The patient's last recording, trimmed ("Ma voix" plays it back)."""
        self.last_listened: Listened | None = None
        """The last finished recording, with its early verdicts (benchmarks read it)."""
        machine.on_failure(self._forget_recorder)

    @property
    def input_level(self) -> float:
        """Microphone peak 0..1 while recording."""
        recorder = self._recorder
        if recorder is None or self._machine.state is not State.RECORDING:
            return 0.0
        return recorder.level

    def start(self, repeating: bool, judge: AnswerJudge | None = None, early: bool = True) -> bool:
        """Open the microphone (RECORDING); False when it cannot be opened (reported).

        Args:
            repeating: the try is scored against an item (False: free speech).
            judge: the item's rule, for a try at a known target: the recording
                is heard and scored in one job. None: heard only (free speech),
                or scored afterwards by the caller.
            early: with a judge, judge at each settled pause while recording
                and end an accepted answer there; False waits for the pause
                tolerance first.
        """
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
            listen,
            recorder,
            judge if early else None,
            on_done=lambda c: self._captured(c, repeating, judge),
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

    def _captured(self, listened: Listened, repeating: bool, judge: AnswerJudge | None) -> None:
        self._recorder = None
        self.last_listened = listened
        if listened.reason is StopReason.NO_SPEECH or listened.clip.duration == 0:
            self._machine.rest(NOTHING_HEARD)
            return
        self._machine.set_state(State.RECOGNISING)
        if listened.judged is not None:  # judged at a pause: exactly this recording's verdict
            self._judged(listened.judged, repeating)
        elif judge is not None:  # hearing and scoring in one job, the encoder run once
            self._machine.submit(
                judge, listened.clip, on_done=lambda judged: self._judged(judged, repeating)
            )
        else:
            self._machine.submit(
                chain.hear,
                self._services,
                listened.clip,
                on_done=lambda heard: self._heard(heard, repeating, None),
            )

    def _judged(self, judged: Judged, repeating: bool) -> None:
        self._heard(judged.heard, repeating, judged.result)

    def _heard(
        self, heard: HeardUtterance | None, repeating: bool, result: ScoreResult | None
    ) -> None:
        if heard is None:
            self._machine.rest(NOTHING_HEARD)
            return
        self.last_clip = heard.clip
        self._machine.emit(Heard(heard.transcript.text, heard.clip.duration, repeating))
        self._on_heard(heard, repeating, result)
