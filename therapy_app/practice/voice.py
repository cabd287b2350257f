"""The SPEAKING state: the voice says a cue or a sentence, then the exercise goes on."""

from __future__ import annotations

import logging
from collections.abc import Callable

from therapy_app.audio.clip import AudioClip
from therapy_app.errors import AudioDeviceError, SpeechSynthesisError
from therapy_app.practice import cues
from therapy_app.practice.events import Cue, Notice, Speaking, State, french_message
from therapy_app.practice.machine import PracticeMachine
from therapy_app.speech import chain
from therapy_app.speech.services import SpeechServices
from therapy_app.tts.options import MAX_RATE_WPM, MIN_RATE_WPM, SynthesisOptions

_LOGGER = logging.getLogger(__name__)

NO_SPEAKER = "Le son ne sort pas : lisez la phrase à l'écran."
NO_CUE = Cue(0, "", "", "", cues.NORMAL_RATE_WPM)


class Voice:
    """Says cues through the speech path; a newer request silences an older one.

    Args:
        machine: the session's state machine.
        services: the engines and the player.
        rate_factor: every cue's rate is multiplied by it (the therapist's
            speech rate); the steps between cues (slower, word by word) stay.
    """

    def __init__(
        self, machine: PracticeMachine, services: SpeechServices, rate_factor: float = 1.0
    ) -> None:
        self._machine = machine
        self._services = services
        self._rate_factor = rate_factor
        self.cue = NO_CUE
        """The help currently given (what "Réécouter" says again)."""
        self.tts_s: float | None = None
        """Seconds spent synthesising the last cue (stored with the next try)."""
        self._token = 0  # bumped when speech is interrupted: its completion is ignored
        self._warned = False

    def give(self, cue: Cue) -> None:
        """Make ``cue`` the current help and say it; then wait for the patient's try."""
        self.cue = cue
        self.speak(cue, then=State.AWAITING_REPETITION)

    def speak(self, cue: Cue, then: State) -> None:
        """Say ``cue`` (SPEAKING), then move to ``then``.

        Without a speaker the patient is told once to read the screen, and the
        exercise goes on as if the sentence had been heard.
        """
        self._say(cue, lambda: self._machine.set_state(then), self._machine.fail)

    def announce(self, text: str, after: Callable[[], None]) -> None:
        """Say an instruction (SPEAKING), then go IDLE and call ``after()``.

        Not a cue: "Réécouter" does not say it again. Whatever goes wrong with
        the voice, ``after`` is called: an announcement never stops the exercise.
        """

        def done() -> None:
            self._machine.set_state(State.IDLE)
            after()

        def failed(exc: BaseException) -> None:
            _LOGGER.warning("announcement not spoken: %r", exc)
            done()

        self._say(Cue(0, "", text, text, cues.NORMAL_RATE_WPM), done, failed)

    def _say(
        self, cue: Cue, on_end: Callable[[], None], on_error: Callable[[BaseException], None]
    ) -> None:
        self._token += 1
        token = self._token
        self._machine.set_state(State.SPEAKING)
        self._machine.emit(Speaking(cue.spoken, cue.level))

        def spoken(tts_s: float | None) -> None:
            if token != self._token:
                return
            if tts_s is not None:
                self.tts_s = tts_s
            on_end()

        def failed(exc: BaseException) -> None:
            if token != self._token:
                return
            if isinstance(exc, AudioDeviceError | SpeechSynthesisError):
                if not self._warned:
                    self._warned = True
                    self._machine.emit(Notice(f"{NO_SPEAKER} {french_message(exc)}"))
                on_end()
                return
            on_error(exc)

        rate = min(max(cue.rate_wpm * self._rate_factor, MIN_RATE_WPM), MAX_RATE_WPM)
        options = SynthesisOptions(rate_wpm=rate, pause_between_words_ms=cue.pause_ms)
        self._machine.submit(
            chain.speak, self._services, cue.spoken, options, on_done=spoken, on_error=failed
        )

    def interrupt(self) -> None:
        """Stop the voice now; its completion no longer moves the exercise on."""
        self._token += 1
        self._services.player.stop()

    def stop_sound(self) -> None:
        """Stop what is playing (a proposal read out); the pending state change still happens."""
        self._services.player.stop()

    def play_recording(self, clip: AudioClip) -> None:
        """Play the patient's own recording back (a failure is only a notice)."""
        self._machine.submit(
            chain.play_clip,
            self._services,
            clip,
            on_done=lambda _: None,
            on_error=lambda exc: self._machine.emit(Notice(french_message(exc))),
        )
