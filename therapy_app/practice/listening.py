"""The microphone of RECORDING and the hearing of RECOGNISING: a try captured, then heard once.

A try at a known target is judged while it is recorded (:mod:`therapy_app.practice.early`):
an accepted answer ends the recording at the patient's first settled pause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings
from therapy_app.errors import AudioDeviceError
from therapy_app.practice.early import AnswerJudge, Judged, Listened, listen
from therapy_app.practice.events import State
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.scoring import ScoreResult
from therapy_app.practice.settings import PracticeSettings
from therapy_app.speech import chain
from therapy_app.speech.services import SpeechServices

NOTHING_HEARD = "Je n'ai rien entendu. Appuyez sur le bouton quand vous êtes prêt."


@dataclass(frozen=True)
class Hearing:
    """What was heard in a recording with speech in it.

    Attributes:
        heard: the trimmed clip and its transcript; None when no speech was found.
        result: the verdict when the try was judged with its recording (a
            known target); None: still to be scored, or free speech.
    """

    heard: HeardUtterance | None
    result: ScoreResult | None = None


class Listening:
    """Records until the patient's own silence (or the button), then hears the recording.

    Reports outcomes (:class:`~therapy_app.practice.early.Listened`, :class:`Hearing`)
    to the controller, which chooses the next state.

    Args:
        machine: the session's state machine (its jobs; the state is only read).
        services: the engines and the recorder factory.
        settings: recording limits and the patient's pause tolerance.
    """

    def __init__(
        self,
        machine: PracticeMachine,
        services: SpeechServices,
        settings: PracticeSettings,
    ) -> None:
        self._machine = machine
        self._services = services
        self._settings = settings
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

    def open(self) -> None:
        """Open the microphone (RECORDING starts once it is open).

        Raises:
            AudioDeviceError: the microphone cannot be opened.
        """
        limits = RecorderSettings(self._settings.max_seconds, self._settings.no_speech_timeout_s)
        self._recorder = chain.start_recording(
            self._services, self._settings.trailing_silence_ms, limits
        )

    def listen(
        self,
        judge: AnswerJudge | None,
        early: bool,
        on_recorded: Callable[[Listened], None],
    ) -> None:
        """Wait on the inference worker for the end of the recording :meth:`open` started.

        The wait outlives the session's end: a recording the patient leaves
        is stopped (:meth:`stop`) and still reported, to be heard and stored.

        Args:
            judge: the item's rule, for a try at a known target (None: free speech).
            early: with a judge, judge at each settled pause while recording
                and end an accepted answer there; False waits for the pause
                tolerance first.
            on_recorded: receives the finished recording.
        """
        recorder = self._recorder
        assert recorder is not None, "listen() without open()"

        def recorded(listened: Listened) -> None:
            self._recorder = None
            self.last_listened = listened
            on_recorded(listened)

        self._machine.submit(
            listen, recorder, judge if early else None, on_done=recorded, outlives_end=True
        )

    def stop(self) -> bool:
        """End the recording now (the button, or leaving); the clip is then heard."""
        recorder = self._recorder
        if self._machine.state is not State.RECORDING or recorder is None:
            return False
        try:
            recorder.stop()
        except AudioDeviceError:
            pass  # the capture job reports it
        return True

    def forget_clip(self) -> None:
        """A new item, line or utterance: "Ma voix" has nothing to play yet."""
        self.last_clip = None

    def _forget_recorder(self) -> None:
        self._recorder = None

    def hear(
        self,
        listened: Listened,
        judge: AnswerJudge | None,
        on_heard: Callable[[Hearing], None],
    ) -> None:
        """Hear a recording with speech in it (and judge it with ``judge``, if any).

        A verdict made at a pause is exactly this recording's: it is used as is.
        The hearing outlives the session's end: the patient may leave
        meanwhile, and what they said is still stored.
        """

        def heard(hearing: Hearing) -> None:
            if hearing.heard is not None:
                self.last_clip = hearing.heard.clip
            on_heard(hearing)

        def judged(verdict: Judged) -> None:
            heard(Hearing(verdict.heard, verdict.result))

        if listened.judged is not None:
            judged(listened.judged)
        elif judge is not None:  # hearing and scoring in one job, the encoder run once
            self._machine.submit(judge, listened.clip, on_done=judged, outlives_end=True)
        else:
            self._machine.submit(
                chain.hear,
                self._services,
                listened.clip,
                on_done=lambda utterance: heard(Hearing(utterance)),
                outlives_end=True,
            )
