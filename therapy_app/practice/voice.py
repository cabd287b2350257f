"""The voice of the SPEAKING state: says a cue or a sentence, then reports that it was said."""

from __future__ import annotations

import logging
from collections.abc import Callable

from therapy_app.audio.clip import AudioClip
from therapy_app.errors import AudioDeviceError, SpeechSynthesisError
from therapy_app.practice import cues
from therapy_app.practice.events import Cue, Notice, Speaking, french_message
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

    def clear(self) -> None:
        """No current help (a new line, a new utterance, the end of the exercise)."""
        self.cue = NO_CUE

    def say(
        self,
        cue: Cue,
        on_said: Callable[[], None],
        on_error: Callable[[BaseException], None],
        current: bool = False,
    ) -> None:
        """Say ``cue``, then call ``on_said()`` (``on_error(exc)`` if the voice failed).

        Without a speaker the patient is told once to read the screen, and
        ``on_said`` is called as if the sentence had been heard.

        Args:
            cue: what to say.
            on_said: called once it is said.
            on_error: called if the voice failed (not for a missing speaker).
            current: ``cue`` becomes the help "Réécouter" says again.
        """
        if current:
            self.cue = cue
        self._token += 1
        token = self._token
        self._machine.emit(Speaking(cue.spoken, cue.level))

        def spoken(tts_s: float | None) -> None:
            if token != self._token:
                return
            if tts_s is not None:
                self.tts_s = tts_s
            on_said()

        def failed(exc: BaseException) -> None:
            if token != self._token:
                return
            if isinstance(exc, AudioDeviceError | SpeechSynthesisError):
                if not self._warned:
                    self._warned = True
                    self._machine.emit(Notice(f"{NO_SPEAKER} {french_message(exc)}"))
                on_said()
                return
            on_error(exc)

        rate = min(max(cue.rate_wpm * self._rate_factor, MIN_RATE_WPM), MAX_RATE_WPM)
        options = SynthesisOptions(rate_wpm=rate, pause_between_words_ms=cue.pause_ms)
        self._machine.submit(
            chain.speak, self._services, cue.spoken, options, on_done=spoken, on_error=failed
        )

    def announce(self, text: str, on_said: Callable[[], None]) -> None:
        """Say an instruction or a partner's line, then call ``on_said()``.

        Not a cue: "Réécouter" does not say it again. Whatever goes wrong with
        the voice, ``on_said`` is called: an announcement never stops the exercise.
        """

        def failed(exc: BaseException) -> None:
            _LOGGER.warning("announcement not spoken: %r", exc)
            on_said()

        self.say(Cue(0, "", text, text, cues.NORMAL_RATE_WPM), on_said, failed)

    def interrupt(self) -> None:
        """Stop the voice now; its ``on_said`` is no longer called."""
        self._token += 1
        self._services.player.stop()

    def stop_sound(self) -> None:
        """Stop what is playing (a proposal read out); its ``on_said`` is still called."""
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
