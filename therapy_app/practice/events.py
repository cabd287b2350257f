"""States of a practice session and the events the controller reports to its observers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from therapy_app.errors import TherapyAppError

# Proposals are made by the speech path; the GUI reads them from these events.
from therapy_app.speech.chain import Proposal as Proposal


class ExerciseKind(StrEnum):
    """The exercises (values are the storage's exercise kinds)."""

    FREE_SPEECH = "free_speech"
    REPETITION = "repetition"
    COMPLETION = "completion"
    NAMING = "naming"
    SCRIPT = "script"


class State(StrEnum):
    """Where the practice loop stands.

    Free speech: IDLE → RECORDING → RECOGNISING → CORRECTING → REVIEWING (pick
    a sentence) → SPEAKING → AWAITING_REPETITION → RECORDING → RECOGNISING →
    SCORING → FEEDBACK. Repetition and completion start at SPEAKING (the
    model sentence or the cue) and skip correction.
    """

    IDLE = "idle"
    RECORDING = "recording"
    RECOGNISING = "recognising"
    CORRECTING = "correcting"
    REVIEWING = "reviewing"
    SPEAKING = "speaking"
    AWAITING_REPETITION = "awaiting_repetition"
    SCORING = "scoring"
    FEEDBACK = "feedback"

    @property
    def busy(self) -> bool:
        """True while the engines work and the patient only waits."""
        return self in (State.RECOGNISING, State.CORRECTING, State.SCORING)


@dataclass(frozen=True)
class StateChanged:
    """The loop moved from ``previous`` to ``state``."""

    state: State
    previous: State


@dataclass(frozen=True)
class ItemPresented:
    """A new exercise item is on screen.

    Attributes:
        kind: the exercise.
        prompt: what is written for the patient: the sentence to repeat, the
            cue with its blank, or "" in free speech.
        target: the expected answer ("" in free speech until a sentence is chosen).
        level: difficulty level of the item (1..3; 0 in free speech; the
            frequency band 1..3 in naming).
        index: position in the current list (0-based).
        count: items in the list.
        picture: the SVG to show (naming only; "" otherwise). In naming the
            prompt is "" too: the picture alone is level 0.
        number: what the patient's counter says this item is, from 1: its
            place in the list, or in a program its place in today's session
            (0 where no counter is shown).
        total: how many items the counter says there are: the list's length,
            or in a program the items this session will really have.
    """

    kind: ExerciseKind
    prompt: str
    target: str
    level: int
    index: int
    count: int
    picture: str = ""
    number: int = 0
    total: int = 0


@dataclass(frozen=True)
class Heard:
    """The recogniser's transcript of the patient's last recording.

    Attributes:
        text: verbatim transcript ("" when nothing was understood).
        duration_s: length of the (trimmed) recording.
        is_repetition: True when it answers a prompt (repetition of a model sentence).
    """

    text: str
    duration_s: float
    is_repetition: bool


@dataclass(frozen=True)
class Corrected:
    """The corrector's proposals for a free-speech utterance.

    Attributes:
        heard: the transcript that was corrected.
        proposals: 1 to 3 sentences, best first.
        corrected: False when no corrector is installed (the single proposal is
            the transcript itself).
        refusal: why the corrector left the transcript as it is (French), e.g.
            "elle n'est pas écrite en français."; None otherwise.
    """

    heard: str
    proposals: list[Proposal]
    corrected: bool
    refusal: str | None = None


@dataclass(frozen=True)
class Cue:
    """Help given before the next try.

    Attributes:
        level: 0 none, 1 slower, 2 word by word (repetition) / first sounds
            (completion), 3 first word given (repetition) / answer given (completion).
            Naming has five levels (:mod:`therapy_app.practice.naming_cues`).
        message: French instruction shown to the patient.
        display: text to show (sentence spaced word by word, the first sounds...).
        spoken: what the voice says for this cue (markup allowed).
        rate_wpm: speaking rate of the cue.
        pause_ms: pause between words.
    """

    level: int
    message: str
    display: str
    spoken: str
    rate_wpm: float
    pause_ms: int = 0


@dataclass(frozen=True)
class CueGiven:
    """The controller is about to give ``cue`` (after a failed try)."""

    cue: Cue


@dataclass(frozen=True)
class Speaking:
    """The voice says ``text`` (the model sentence, the cue or the chosen sentence)."""

    text: str
    cue_level: int


@dataclass(frozen=True)
class Feedback:
    """Verdict on one try.

    Attributes:
        success: the try counts as right.
        stars: 0 to 3, for the encouraging display.
        message: French praise or encouragement ("Bravo !", "Essayons encore").
        heard: what was recognised, only when it supports the verdict
            (:func:`therapy_app.practice.scoring.shown_transcript`); "" otherwise,
            and the screen then shows no transcript. The stored attempt keeps
            the transcript.
        target: what was expected.
        wer: word error rate against the closest accepted answer.
        item_finished: True when the item is over (success, or no cue left):
            "continue" goes to the next item.
    """

    success: bool
    stars: int
    message: str
    heard: str
    target: str
    wer: float | None
    item_finished: bool


@dataclass(frozen=True)
class AttemptSaved:
    """An attempt was committed to the database."""

    attempt_id: int
    success: bool | None


@dataclass(frozen=True)
class ExerciseDone:
    """The patient did the number of items the therapist's program asks for.

    Attributes:
        items: items done in this exercise.
    """

    items: int


@dataclass(frozen=True)
class Announced:
    """A new exercise of the program starts: shown and said before its first item.

    Attributes:
        text: French announcement ("Exercice 2 sur 3 : Nommer des images. …").
    """

    text: str


@dataclass(frozen=True)
class ListFinished:
    """The patient went through the whole list (outside a program): nothing is presented.

    The screen shows a summary; the list starts again only when the patient
    asks (:meth:`~therapy_app.practice.controller.PracticeController.restart`).

    Attributes:
        items: items presented since the list (re)started.
        succeeded: those the patient got right, with or without help.
    """

    items: int
    succeeded: int


@dataclass(frozen=True)
class ScriptsOffered:
    """Script practice: the dialogues the patient may pick (keys 1, 2, 3…).

    Attributes:
        titles: the dialogues' titles, in the order
            ``PracticeController.choose_script`` takes them.
        examples: True when they are the bundled examples (the patient has none
            of their own).
    """

    titles: tuple[str, ...]
    examples: bool


@dataclass(frozen=True)
class ScriptLine:
    """Script practice: the next line of the dialogue comes on screen.

    A partner line is said by the voice, then the dialogue goes on; a patient
    line is then practised as an item (:class:`ItemPresented` follows).

    Attributes:
        title: the dialogue's title.
        index: the line's place in the dialogue (0-based).
        count: lines in the dialogue.
        speaker: ``"partner"`` or ``"patient"`` (``phrases.model.Speaker`` values).
        text: the line.
    """

    title: str
    index: int
    count: int
    speaker: str
    text: str


@dataclass(frozen=True)
class Notice:
    """A French message that is not an error (nothing heard, no speaker...)."""

    message: str


@dataclass(frozen=True)
class ErrorOccurred:
    """A step failed; ``message`` is French text for the patient.

    Attributes:
        message: what happened and what to do.
        error: the exception (for logs).
    """

    message: str
    error: BaseException


def french_message(error: BaseException) -> str:
    """French text for any exception (unexpected ones get a generic message)."""
    if isinstance(error, TherapyAppError):
        return error.french()
    return (
        "Une erreur inattendue s'est produite. "
        "Réessayez ; si cela recommence, prévenez votre thérapeute."
    )


PracticeEvent = (
    StateChanged
    | ItemPresented
    | Heard
    | Corrected
    | CueGiven
    | Speaking
    | Feedback
    | AttemptSaved
    | ExerciseDone
    | Announced
    | ListFinished
    | ScriptsOffered
    | ScriptLine
    | Notice
    | ErrorOccurred
)
