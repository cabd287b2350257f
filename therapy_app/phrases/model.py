"""Types shared by the phrase book, its matcher, script practice, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class PhraseSource(StrEnum):
    """Where a sentence of the phrase book comes from (shown to the therapist)."""

    CUSTOM = "custom"  # the therapist's custom sentence list
    CHOSEN = "chosen"  # a proposal the patient chose before in free speech
    SCRIPT = "script"  # a patient line of one of their scripts
    FILE = "file"  # ``therapy-app loop --phrases FILE``


class Gender(StrEnum):
    """The patient's gender as the profile gives it: agreement of first-person sentences."""

    UNSAID = ""
    FEMININE = "f"
    MASCULINE = "m"


@dataclass(frozen=True)
class Phrase:
    """One sentence of a patient's phrase book.

    Attributes:
        text: the sentence as proposed (already agreed with the patient's gender).
        source: where it comes from.
    """

    text: str
    source: PhraseSource


@dataclass(frozen=True)
class PhraseBook:
    """A patient's sentences, without duplicates (case-insensitive), custom ones first.

    Attributes:
        phrases: the sentences.
        gender: the patient's gender (agreement of proposals made for them).
    """

    phrases: tuple[Phrase, ...] = ()
    gender: Gender = Gender.UNSAID

    def __len__(self) -> int:
        return len(self.phrases)


@dataclass(frozen=True)
class PhraseMatch:
    """A phrase-book sentence that may be what the patient meant.

    Attributes:
        phrase: the sentence.
        lexical: how well the heard words cover its content words (0-1).
        acoustic: the recording's margin for it against the other candidates
            (None when no acoustic check ran).
        clear: True when it is proposed first (a clear match); False: not proposed.
    """

    phrase: Phrase
    lexical: float
    acoustic: float | None = None
    clear: bool = False


class Speaker(StrEnum):
    """Who says a line of a script."""

    PARTNER = "partner"  # the app says it
    PATIENT = "patient"  # the patient says it, judged like repetition


@dataclass(frozen=True)
class ScriptTurn:
    """One line of a dialogue."""

    speaker: Speaker
    text: str


@dataclass(frozen=True)
class Script:
    """A short dialogue the patient practises (script training).

    Attributes:
        id: database id (0 for a bundled example not yet given to a patient).
        title: shown to patient and therapist ("À la boulangerie").
        turns: 4-8 lines in order.
    """

    id: int
    title: str
    turns: tuple[ScriptTurn, ...] = field(default_factory=tuple)

    @property
    def patient_lines(self) -> tuple[str, ...]:
        """What the patient says, in order."""
        return tuple(t.text for t in self.turns if t.speaker is Speaker.PATIENT)
