"""The practice state machine: intents in, events out, slow steps scheduled, attempts stored."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import Recorder, RecorderSettings, StopReason
from therapy_app.errors import AudioDeviceError, SpeechSynthesisError
from therapy_app.exercises import ExerciseContent, default_content
from therapy_app.practice import attempts, cues, items, resume, steps
from therapy_app.practice.events import (
    Corrected,
    Cue,
    CueGiven,
    ErrorOccurred,
    ExerciseKind,
    Feedback,
    Heard,
    ItemPresented,
    Notice,
    PracticeEvent,
    Proposal,
    Speaking,
    State,
    StateChanged,
    french_message,
)
from therapy_app.practice.scheduling import Scheduler
from therapy_app.practice.scoring import ScoreResult, score_try, shown_transcript
from therapy_app.practice.services import SpeechServices
from therapy_app.practice.session_store import SessionStore
from therapy_app.storage.records import AttemptRecord
from therapy_app.storage.repository import SessionRepository
from therapy_app.vad.silero import DEFAULT_TRAILING_SILENCE_MS

_LOGGER = logging.getLogger(__name__)

NOTHING_HEARD = "Je n'ai rien entendu. Appuyez sur le bouton quand vous êtes prêt."
NOT_UNDERSTOOD = "Je n'ai pas bien compris. Essayons encore."
NO_SPEAKER = "Le son ne sort pas : lisez la phrase à l'écran."
LIST_DONE = "Bravo, vous avez fait toute la liste ! On recommence au début."
PRAISE = {3: "Bravo ! C'est parfait.", 2: "Très bien !"}
TRY_AGAIN = "Essayons encore."
MOVE_ON = "Ce n'est pas grave, nous y reviendrons. Passons à la suite."


@dataclass(frozen=True)
class PracticeSettings:
    """Recording limits and where the lists start.

    Attributes:
        max_seconds: longest recording (one recogniser window).
        no_speech_timeout_s: stop listening when nothing is said for this long;
            generous because starting to speak is hard in Broca's aphasia.
        trailing_silence_ms: silence that ends an utterance (the patient's own
            ``Patient.pause_tolerance_ms`` in the app); Space or the button ends it sooner.
        repetition_level: first repetition level (1..3), when there is nothing to resume.
        completion_level: completion level, None for all items.
        resume: repetition starts after the last sentence finished in the
            patient's latest repetition session (its list, its position).
    """

    max_seconds: float = 30.0
    no_speech_timeout_s: float = 20.0
    trailing_silence_ms: int = DEFAULT_TRAILING_SILENCE_MS
    repetition_level: int = 1
    completion_level: int | None = None
    resume: bool = True


class PracticeController:
    """One exercise session for one patient. Not thread-safe: call it from one thread.

    Args:
        kind: which exercise.
        services: the loaded engines.
        repository: where sessions and attempts go.
        patient_id: who practises.
        scheduler: runs slow steps (the GUI's TaskRunner, or ``InlineScheduler``).
        content: exercise lists; None for the bundled ones.
        settings: limits and starting level.
    """

    def __init__(
        self,
        kind: ExerciseKind,
        services: SpeechServices,
        repository: SessionRepository,
        patient_id: int,
        scheduler: Scheduler,
        content: ExerciseContent | None = None,
        settings: PracticeSettings | None = None,
    ) -> None:
        self.kind = kind
        self.services = services
        self.repository = repository
        self.patient_id = patient_id
        self.settings = settings or PracticeSettings()
        self.content = content or default_content()
        self._scheduler = scheduler
        self._listeners: list[Callable[[PracticeEvent], None]] = []
        self._state = State.IDLE
        self._epoch = 0  # bumped when the session ends: late results are dropped
        self._speech_token = 0  # bumped when speech is interrupted
        self._store = SessionStore(
            repository, patient_id, kind.value, scheduler, lambda event: self._emit(event)
        )
        self._list = items.ItemList()
        self._item: items.ExerciseItem | None = None
        self._cue = Cue(0, "", "", "", cues.NORMAL_RATE_WPM)
        self._tts_s: float | None = None
        self._recorder: Recorder | None = None
        self._rest_state = State.IDLE
        self._last_clip: AudioClip | None = None
        self._speaker_warned = False
        # free speech
        self._utterance: steps.Analysis | None = None
        self._correction: steps.CorrectionResult | None = None
        self._chosen: str | None = None
        self._last_outcome: attempts.TryOutcome | None = None
        self._cycle_saved = True  # the utterance's record is stored (or queued)
        self._cycle_finished = False  # the chosen sentence's last try is over
        self._level = self.settings.repetition_level

    # ----- observation -------------------------------------------------------
    def subscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Call ``listener(event)`` for every event, on the controller's thread."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[PracticeEvent], None]) -> None:
        """Stop calling ``listener`` (a closed screen must not receive late events)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _emit(self, event: PracticeEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _set_state(self, state: State) -> None:
        if state is self._state:
            return
        previous, self._state = self._state, state
        _LOGGER.debug("%s: %s -> %s", self.kind.value, previous.value, state.value)
        self._emit(StateChanged(state, previous))

    @property
    def state(self) -> State:
        """Current state."""
        return self._state

    @property
    def item(self) -> items.ExerciseItem | None:
        """The item being practised (None in free speech before a choice)."""
        return self._item

    @property
    def cue(self) -> Cue:
        """The help currently given."""
        return self._cue

    @property
    def level(self) -> int:
        """Current list level (repetition 1..3, completion 0 = all)."""
        return self._level

    @property
    def session_id(self) -> int | None:
        """The database session, once started."""
        return self._store.session_id

    @property
    def input_level(self) -> float:
        """Microphone peak 0..1 while recording (poll it for a meter)."""
        recorder = self._recorder
        return recorder.level if recorder is not None and self._state is State.RECORDING else 0.0

    @property
    def can_replay(self) -> bool:
        """True when :meth:`replay` has something to say."""
        return bool(self._cue.spoken) and self._state in (
            State.AWAITING_REPETITION,
            State.FEEDBACK,
            State.IDLE,
        )

    @property
    def has_recording(self) -> bool:
        """True when the patient's last recording can be played back."""
        return self._last_clip is not None

    # ----- scheduling helpers ---------------------------------------------------
    def _submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        pool: str = "inference",
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        epoch = self._epoch

        def done(result: Any) -> None:
            if epoch == self._epoch:
                on_done(result)

        def failed(exc: BaseException) -> None:
            if epoch == self._epoch:
                (on_error or self._failed)(exc)

        self._scheduler.submit(fn, *args, on_done=done, on_error=failed, pool=pool)

    def _failed(self, exc: BaseException) -> None:
        _LOGGER.warning("practice step failed: %r", exc)
        self._recorder = None
        self._emit(ErrorOccurred(french_message(exc), exc))
        self._set_state(self._rest_state)

    # ----- session ----------------------------------------------------------
    def begin(self) -> None:
        """Open the database session and present the first item (or wait for speech)."""
        self._store.open()
        if self.kind is ExerciseKind.FREE_SPEECH:
            self._rest_state = State.IDLE
            self._set_state(State.IDLE)
            return
        if self.kind is ExerciseKind.REPETITION and self.settings.resume:
            # Pick up where the patient stopped last time (issue 10), read on
            # the database worker; the first list's first sentence otherwise.
            self._submit(
                resume.repetition_resume_point,
                self.repository,
                self.patient_id,
                self.content,
                pool="db",
                on_done=self._resume,
                on_error=self._resume_unknown,
            )
            return
        self._load_items()
        self.present(0)

    def _resume_unknown(self, exc: BaseException) -> None:
        _LOGGER.warning("cannot read where repetition stopped, starting over: %r", exc)
        self._resume(None)

    def _resume(self, point: resume.ResumePoint | None) -> None:
        if point is not None:
            self._level = point.level
        self._load_items()
        self.present(point.index if point is not None else 0)

    def end(self) -> None:
        """Leave: stop sound and recording, store what is pending, close the session."""
        self._save_cycle()
        self._epoch += 1
        self._speech_token += 1
        self.services.player.stop()
        recorder, self._recorder = self._recorder, None
        if recorder is not None:
            try:
                recorder.stop()
            except AudioDeviceError:
                pass
        self._store.close()
        self._set_state(State.IDLE)

    # ----- items ------------------------------------------------------------
    def _load_items(self) -> None:
        if self.kind is ExerciseKind.REPETITION:
            self._list.replace(items.repetition_items(self.content, self._level))
        else:
            self._list.replace(items.completion_items(self.content, self.settings.completion_level))
            self._level = self.settings.completion_level or 0

    @property
    def item_count(self) -> int:
        """Items in the current list."""
        return len(self._list)

    @property
    def all_items(self) -> list[items.ExerciseItem]:
        """The current list (a copy)."""
        return self._list.all()

    def index_of(self, target: str) -> int | None:
        """Position of the item whose target is ``target`` (case-insensitive), or None."""
        return self._list.index_of(target)

    def set_level(self, level: int) -> bool:
        """Switch the repetition list to ``level`` (1..3) and present its first sentence."""
        if self.kind is not ExerciseKind.REPETITION or self._state.busy:
            return False
        if self._state is State.RECORDING:
            return False
        self._level = level
        self._load_items()
        self.present(0)
        return True

    def present(self, index: int) -> None:
        """Show item ``index`` of the list and say it."""
        if not len(self._list):
            return
        if index >= len(self._list):
            self._emit(Notice(LIST_DONE))
            index = 0
        self._item = self._list.select(index)
        self._last_clip = None  # "Ma voix" on a new item: nothing yet (issue 10)
        self._emit(
            ItemPresented(
                self.kind,
                self._item.prompt,
                self._item.target,
                self._item.level,
                index,
                len(self._list),
            )
        )
        self._rest_state = State.AWAITING_REPETITION
        self._give(self._cue_for(0))

    def next_item(self) -> bool:
        """Go on to the next item (free speech: get ready for a new utterance)."""
        if self._state.busy or self._state is State.RECORDING:
            return False
        if self.kind is ExerciseKind.FREE_SPEECH:
            self._new_cycle()
            return True
        self.present(self._list.index + 1)
        return True

    def _cue_for(self, level: int) -> Cue:
        item = self._item
        assert item is not None
        if item.completion is not None:
            return cues.completion_cue(item.completion, level)
        return cues.repetition_cue(
            item.target, level, slow_start=item.kind is ExerciseKind.FREE_SPEECH
        )

    # ----- speaking ---------------------------------------------------------
    def _give(self, cue: Cue) -> None:
        self._cue = cue
        self._speak(cue, then=State.AWAITING_REPETITION)

    def _speak(self, cue: Cue, then: State) -> None:
        self._speech_token += 1
        token = self._speech_token
        self._set_state(State.SPEAKING)
        self._emit(Speaking(cue.spoken, cue.level))

        def spoken(tts_s: float | None) -> None:
            if token != self._speech_token:
                return
            if tts_s is not None:
                self._tts_s = tts_s
            self._set_state(then)

        def failed(exc: BaseException) -> None:
            if token != self._speech_token:
                return
            if isinstance(exc, AudioDeviceError | SpeechSynthesisError):
                if not self._speaker_warned:
                    self._speaker_warned = True
                    self._emit(Notice(f"{NO_SPEAKER} {french_message(exc)}"))
                self._set_state(then)
                return
            self._failed(exc)

        self._submit(steps.speak, self.services, cue, on_done=spoken, on_error=failed)

    def replay(self) -> bool:
        """Say the current sentence, cue or chosen sentence again (R)."""
        if not self.can_replay:
            return False
        self._speak(self._cue, then=self._state)
        return True

    def play_recording(self) -> bool:
        """Play the patient's last recording back."""
        if self._last_clip is None or self._state not in (
            State.AWAITING_REPETITION,
            State.FEEDBACK,
            State.IDLE,
            State.REVIEWING,
        ):
            return False
        self._submit(
            steps.play_clip,
            self.services,
            self._last_clip,
            on_done=lambda _: None,
            on_error=self._playback_failed,
        )
        return True

    def _playback_failed(self, exc: BaseException) -> None:
        self._emit(Notice(french_message(exc)))

    # ----- recording ----------------------------------------------------------
    def toggle_recording(self) -> bool:
        """Space: start recording, or stop it when already recording."""
        if self._state is State.RECORDING:
            return self.stop_recording()
        return self.start_recording()

    def start_recording(self) -> bool:
        """Listen to the patient (stops the voice first). False when not possible now."""
        if self._state.busy or self._state is State.RECORDING:
            return False
        repeating = self._is_repetition_next()
        if self.kind is ExerciseKind.FREE_SPEECH and not repeating:
            self._new_cycle()
        self._speech_token += 1  # the voice is interrupted: ignore its completion
        self.services.player.stop()
        self._rest_state = State.AWAITING_REPETITION if repeating else State.IDLE
        recorder = self.services.recorder_factory()
        detector = self.services.vad.end_of_speech_detector(self.settings.trailing_silence_ms)
        limits = RecorderSettings(self.settings.max_seconds, self.settings.no_speech_timeout_s)
        try:
            recorder.start(detector, limits)
        except AudioDeviceError as exc:
            self._failed(exc)
            return False
        self._recorder = recorder
        self._set_state(State.RECORDING)
        self._submit(steps.capture, recorder, on_done=lambda c: self._captured(c, repeating))
        return True

    def _is_repetition_next(self) -> bool:
        if self.kind is not ExerciseKind.FREE_SPEECH:
            return True
        if self._chosen is None:
            return False
        if self._state is State.FEEDBACK and self._last_outcome is not None:
            # After the cycle ended the next recording is a new utterance.
            return not self._cycle_finished
        return self._state in (State.AWAITING_REPETITION, State.SPEAKING)

    def stop_recording(self) -> bool:
        """End the recording now (the button); the clip is then analysed."""
        recorder = self._recorder
        if self._state is not State.RECORDING or recorder is None:
            return False
        try:
            recorder.stop()
        except AudioDeviceError:
            pass  # the capture job reports it
        return True

    def _captured(self, capture: steps.Capture, repeating: bool) -> None:
        self._recorder = None
        if capture.reason is StopReason.NO_SPEECH or capture.clip.duration == 0:
            self._nothing_heard()
            return
        self._set_state(State.RECOGNISING)
        self._submit(
            steps.analyse,
            self.services,
            capture.clip,
            on_done=lambda a: self._analysed(a, repeating),
        )

    def _nothing_heard(self, message: str = NOTHING_HEARD) -> None:
        self._emit(Notice(message))
        self._set_state(self._rest_state)

    def _analysed(self, analysis: steps.Analysis | None, repeating: bool) -> None:
        if analysis is None:
            self._nothing_heard()
            return
        self._last_clip = analysis.clip
        text = analysis.transcript.text
        self._emit(Heard(text, analysis.clip.duration, repeating))
        if not repeating:
            if not text.strip():
                self._nothing_heard(NOT_UNDERSTOOD)
                return
            self._utterance = analysis
            self._set_state(State.CORRECTING)
            self._submit(steps.correct, self.services, text, on_done=self._corrected)
            return
        item = self._item
        assert item is not None
        self._set_state(State.SCORING)
        self._submit(
            score_try,
            self.services.recognizer,
            analysis.clip,
            text,
            item.accepted,
            item.distractors,
            self._cue.level,
            item.sound_forms,
            item.allow_within,
            on_done=lambda result: self._scored(analysis, result),
        )

    # ----- free speech: proposals -----------------------------------------------
    def _new_cycle(self) -> None:
        self._save_cycle()
        self._utterance = self._correction = None
        self._chosen = None
        self._item = None
        self._last_clip = None
        self._last_outcome = None
        self._cycle_finished = False
        self._cue = Cue(0, "", "", "", cues.NORMAL_RATE_WPM)
        self._rest_state = State.IDLE
        if not self._state.busy and self._state is not State.RECORDING:
            self._set_state(State.IDLE)

    def _corrected(self, result: steps.CorrectionResult) -> None:
        self._correction = result
        heard = self._utterance.transcript.text if self._utterance else ""
        self._cycle_saved = False
        refusal = result.correction.refusal if result.correction is not None else None
        corrected = result.correction is not None and refusal is None
        self._emit(Corrected(heard, list(result.proposals), corrected, refusal))
        self._rest_state = State.REVIEWING
        self._set_state(State.REVIEWING)

    @property
    def proposals(self) -> list[Proposal]:
        """The sentences offered in free speech (empty outside REVIEWING)."""
        return list(self._correction.proposals) if self._correction else []

    def _choosing(self) -> bool:
        # Still choosing while a proposal is being read out (hear_proposal).
        return self._correction is not None and (
            self._state is State.REVIEWING
            or (self._state is State.SPEAKING and self._rest_state is State.REVIEWING)
        )

    def hear_proposal(self, index: int) -> bool:
        """Say proposal ``index`` slowly without choosing it (many patients read slowly)."""
        if not self._choosing() or self._correction is None:
            return False
        if not 0 <= index < len(self._correction.proposals):
            return False
        text = self._correction.proposals[index].text
        self.services.player.stop()
        self._speak(Cue(0, "", text, text, cues.SLOW_RATE_WPM), then=State.REVIEWING)
        return True

    def choose(self, index: int) -> bool:
        """Pick proposal ``index`` (0-based; keys 1/2/3): it is spoken slowly, then repeated."""
        if not self._choosing() or self._correction is None:
            return False
        if not 0 <= index < len(self._correction.proposals):
            return False
        self.services.player.stop()  # a proposal being read out
        self._chosen = self._correction.proposals[index].text
        self._save_cycle()  # the utterance and the choice, before any repetition try
        self._item = items.free_speech_item(self._chosen, self.content)
        self._emit(ItemPresented(self.kind, self._chosen, self._chosen, 0, 0, 1))
        self._rest_state = State.AWAITING_REPETITION
        self._give(self._cue_for(0))
        return True

    def confirm(self) -> bool:
        """Enter: take the first proposal, or go on after the feedback."""
        if self._choosing():
            return self.choose(0)
        if self._state is State.FEEDBACK:
            return self.next_item()
        return False

    # ----- scoring and feedback -------------------------------------------------
    def _scored(self, analysis: steps.Analysis, result: ScoreResult) -> None:
        item = self._item
        assert item is not None
        level = self._cue.level
        # A free-speech try repeats the chosen sentence: stored as a repetition.
        kind = ExerciseKind.REPETITION if self.kind is ExerciseKind.FREE_SPEECH else self.kind
        outcome = attempts.TryOutcome(kind, analysis, result, item.target, level, self._tts_s)
        self._last_outcome = outcome
        finished = result.success or level >= cues.MAX_CUE_LEVEL
        self._cycle_finished = finished
        if result.success:
            message = PRAISE.get(result.stars, PRAISE[2])
        else:
            message = MOVE_ON if finished else TRY_AGAIN
        self._store.save(
            lambda session_id: attempts.item_record(
                session_id, outcome, self.services.provider, self.services.model_versions
            ),
            outcome.analysis.clip,
        )
        self._emit(
            Feedback(
                result.success,
                result.stars,
                message,
                shown_transcript(result, analysis.transcript.text),
                item.target,
                result.wer,
                finished,
            )
        )
        self._rest_state = State.FEEDBACK
        self._set_state(State.FEEDBACK)
        if not finished:
            cue = self._cue_for(level + 1)
            self._emit(CueGiven(cue))
            self._rest_state = State.AWAITING_REPETITION
            self._give(cue)

    def _save_cycle(self) -> None:
        """Store the free-speech utterance once: when a proposal is chosen, or when leaving.

        Leaving the proposals without choosing stores no chosen sentence (and
        so no repetition score): nothing is invented.
        """
        if self._cycle_saved or self._utterance is None or self._correction is None:
            return
        self._cycle_saved = True
        utterance, correction, chosen = self._utterance, self._correction, self._chosen

        def build(session_id: int) -> AttemptRecord:
            return attempts.free_speech_record(
                session_id,
                utterance,
                correction,
                chosen,
                self.services.provider,
                self.services.model_versions,
            )

        self._store.save(build, utterance.clip)
