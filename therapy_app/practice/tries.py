"""Tries at one item: each is scored into a verdict (SCORING), what FEEDBACK reports and stores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from therapy_app.asr.utterance import HeardUtterance
from therapy_app.practice import attempts, cues, items, naming_cues
from therapy_app.practice.early import AnswerJudge
from therapy_app.practice.events import Cue, ExerciseKind, Feedback
from therapy_app.practice.machine import PracticeMachine
from therapy_app.practice.scoring import ScoreResult, score_heard, shown_transcript
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


@dataclass(frozen=True)
class Verdict:
    """A try scored: what is stored, what the patient is told, and what comes next.

    Attributes:
        outcome: the try with its score, stored with its recording.
        feedback: the verdict as reported.
        next_cue: the help for the next try; None when the item is over
            (success, or the strongest cue was given).
    """

    outcome: attempts.TryOutcome
    feedback: Feedback
    next_cue: Cue | None


class ItemTries:
    """Tries at one item: repetition, completion, naming, a dialogue's line, a chosen sentence.

    Args:
        machine: the session's state machine (its jobs).
        services: the engines (scoring listens with the recogniser).
        kind: the exercise (a free-speech try is stored as a repetition).
    """

    def __init__(
        self, machine: PracticeMachine, services: SpeechServices, kind: ExerciseKind
    ) -> None:
        self._machine = machine
        self._services = services
        self._kind = kind
        self.item: items.ExerciseItem | None = None
        """The item being practised (None in free speech before a choice)."""
        self.last_outcome: attempts.TryOutcome | None = None
        self.finished = False
        """The item's last try is over (success, or the strongest cue was given)."""
        self.succeeded = False
        """The patient got the item right at least once (with or without help)."""

    def start(self, item: items.ExerciseItem) -> Cue:
        """Practise ``item``; returns its first cue.

        The first cue is level ``item.start_level`` (0 except in naming, where
        a picture starts below the help the patient needed last time).
        """
        self.clear()
        self.item = item
        return cue_for(item, item.start_level)

    def clear(self) -> None:
        """No item (free speech before a sentence is chosen, a partner's line, a list's end)."""
        self.item = None
        self.last_outcome = None
        self.finished = False
        self.succeeded = False

    def judge(self, cue_level: int) -> AnswerJudge | None:
        """The rule for a try at the item after help ``cue_level`` (None: no item)."""
        if self.item is None:
            return None
        services = self._services
        return AnswerJudge(services.recognizer, services.vad, self.item, cue_level)

    def score(
        self,
        heard: HeardUtterance,
        result: ScoreResult | None,
        cue_level: int,
        tts_s: float | None,
        on_scored: Callable[[Verdict], None],
    ) -> None:
        """Score ``heard`` against the item; ``on_scored`` receives the verdict.

        Args:
            heard: the try.
            result: its verdict when it was judged with its recording
                (:class:`~therapy_app.practice.early.AnswerJudge`, against
                this item at this cue level); None scores it now.
            cue_level: the help given before the try.
            tts_s: seconds spent synthesising that help (stored with the try).
            on_scored: receives the :class:`Verdict`.
        """
        item = self.item
        assert item is not None
        if result is not None:
            on_scored(self._verdict(heard, result, cue_level, tts_s))
            return
        self._machine.submit(
            score_heard,
            self._services.recognizer,
            item,
            heard,
            cue_level,
            on_done=lambda scored: on_scored(self._verdict(heard, scored, cue_level, tts_s)),
            outlives_end=True,  # a try scored after the patient left is still stored
        )

    def _verdict(
        self, heard: HeardUtterance, result: ScoreResult, level: int, tts_s: float | None
    ) -> Verdict:
        item = self.item
        assert item is not None
        # A free-speech try repeats the chosen sentence: stored as a repetition.
        kind = ExerciseKind.REPETITION if self._kind is ExerciseKind.FREE_SPEECH else self._kind
        outcome = attempts.TryOutcome(
            kind, heard, result, item.target, level, tts_s, item.script_id
        )
        self.last_outcome = outcome
        finished = result.success or level >= max_level(item)
        self.finished = finished
        self.succeeded = self.succeeded or result.success
        if result.success:
            message = PRAISE.get(result.stars, PRAISE[2])
        else:
            message = MOVE_ON if finished else TRY_AGAIN
        feedback = Feedback(
            result.success,
            result.stars,
            message,
            shown_transcript(result, heard.transcript.text),
            item.target,
            result.wer,
            finished,
        )
        return Verdict(outcome, feedback, None if finished else cue_for(item, level + 1))
