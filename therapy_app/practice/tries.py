"""The SCORING and FEEDBACK states: a try at the current item is scored, stored and answered."""

from __future__ import annotations

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.practice import attempts, cues, items, naming_cues
from therapy_app.practice.events import (
    Cue,
    CueGiven,
    ExerciseKind,
    Feedback,
    ItemPresented,
    State,
)
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.scoring import ScoreResult, score_item, shown_transcript
from therapy_app.practice.session_store import SessionStore
from therapy_app.practice.voice import Voice
from therapy_app.speech.services import SpeechServices

PRAISE = {3: "Bravo ! C'est parfait.", 2: "Très bien !"}
TRY_AGAIN = "Essayons encore."
MOVE_ON = "Ce n'est pas grave, nous y reviendrons. Passons à la suite."


def cue_for(item: items.ExerciseItem, level: int) -> Cue:
    """The help at ``level`` for ``item`` (a naming, completion or repetition cue)."""
    if item.naming is not None:
        return naming_cues.naming_cue(item.naming, level, item.category_label)
    if item.completion is not None:
        return cues.completion_cue(item.completion, level)
    return cues.repetition_cue(item.target, level, slow_start=item.kind is ExerciseKind.FREE_SPEECH)


def max_level(item: items.ExerciseItem) -> int:
    """The strongest cue of ``item``'s exercise (naming has one more: the written word)."""
    return naming_cues.MAX_NAMING_LEVEL if item.naming is not None else cues.MAX_CUE_LEVEL


class ItemTries:
    """Tries at one item: repetition, completion, and the chosen sentence in free speech.

    Args:
        machine: the session's state machine.
        services: the engines (scoring listens with the recogniser).
        voice: says the next cue after a miss.
        store: where each try is saved with its recording.
        kind: the exercise (a free-speech try is stored as a repetition).
    """

    def __init__(
        self,
        machine: PracticeMachine,
        services: SpeechServices,
        voice: Voice,
        store: SessionStore,
        kind: ExerciseKind,
    ) -> None:
        self._machine = machine
        self._services = services
        self._voice = voice
        self._store = store
        self._kind = kind
        self.item: items.ExerciseItem | None = None
        """The item being practised (None in free speech before a choice)."""
        self.last_outcome: attempts.TryOutcome | None = None
        self.finished = False
        """The item's last try is over (success, or the strongest cue was given)."""
        self.succeeded = False
        """The patient got the item right at least once (with or without help)."""

    def start(self, item: items.ExerciseItem, presented: ItemPresented) -> None:
        """Practise ``item``: report ``presented``, give its first cue, wait for the patient.

        The first cue is level ``item.start_level`` (0 except in naming, where
        a picture starts below the help the patient needed last time); a
        higher first level is reported as a :class:`CueGiven` too.
        """
        self.item = item
        self.last_outcome = None
        self.finished = False
        self.succeeded = False
        self._machine.emit(presented)
        self._machine.rest_state = State.AWAITING_REPETITION
        first = cue_for(item, item.start_level)
        if item.start_level > 0:
            self._machine.emit(CueGiven(first))
        self._voice.give(first)

    def clear(self) -> None:
        """No item (free speech, before a sentence is chosen)."""
        self.item = None
        self.last_outcome = None
        self.finished = False
        self.succeeded = False

    def score(self, heard: HeardUtterance, result: ScoreResult | None = None) -> None:
        """Score ``heard`` against the item (SCORING), then give feedback.

        Args:
            heard: the try.
            result: its verdict when it was judged with its recording
                (:class:`~therapy_app.practice.early.AnswerJudge`, against
                this item at this cue level); None scores it now.
        """
        item = self.item
        assert item is not None
        self._machine.set_state(State.SCORING)
        if result is not None:
            self._scored(heard, result)
            return
        self._machine.submit(
            score_item,
            self._services.recognizer,
            item,
            heard.clip,
            heard.transcript.text,
            self._voice.cue.level,
            on_done=lambda result: self._scored(heard, result),
        )

    def _scored(self, heard: HeardUtterance, result: ScoreResult) -> None:
        item = self.item
        assert item is not None
        level = self._voice.cue.level
        # A free-speech try repeats the chosen sentence: stored as a repetition.
        kind = ExerciseKind.REPETITION if self._kind is ExerciseKind.FREE_SPEECH else self._kind
        outcome = attempts.TryOutcome(
            kind, heard, result, item.target, level, self._voice.tts_s, item.script_id
        )
        self.last_outcome = outcome
        finished = result.success or level >= max_level(item)
        self.finished = finished
        self.succeeded = self.succeeded or result.success
        if result.success:
            message = PRAISE.get(result.stars, PRAISE[2])
        else:
            message = MOVE_ON if finished else TRY_AGAIN
        services = self._services
        self._store.save(
            lambda session_id: attempts.item_record(
                session_id, outcome, services.provider, services.model_versions
            ),
            heard.clip,
        )
        self._machine.emit(
            Feedback(
                result.success,
                result.stars,
                message,
                shown_transcript(result, heard.transcript.text),
                item.target,
                result.wer,
                finished,
            )
        )
        self._machine.rest_state = State.FEEDBACK
        self._machine.set_state(State.FEEDBACK)
        if not finished:
            cue = cue_for(item, level + 1)
            self._machine.emit(CueGiven(cue))
            self._machine.rest_state = State.AWAITING_REPETITION
            self._voice.give(cue)
