"""Therapist-set programs and custom word and sentence lists, with their limits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

CustomKind = Literal["word", "sentence"]
CUSTOM_KINDS: tuple[str, ...] = ("word", "sentence")

MIN_ITEMS, MAX_ITEMS = 1, 50
MIN_RATE_PERCENT, MAX_RATE_PERCENT = 60, 140
DEFAULT_ITEMS = 10
MAX_CUSTOM_TEXT = 200
"""Longest custom word or sentence, in characters (a sentence to repeat, not a text)."""


@dataclass(frozen=True)
class ProgramStep:
    """One exercise of a program.

    Attributes:
        kind: an exercise kind value ("repetition", ...; see ``practice.catalogue``).
        level: difficulty (repetition 1..3 by sentence length, completion 1..2);
            None: where the patient stopped (repetition) or every level.
        category: completion theme ("repas", ...); "" for all.
    """

    kind: str
    level: int | None = None
    category: str = ""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"kind": self.kind, "level": self.level, "category": self.category}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> ProgramStep:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: a field has the wrong type.
        """
        level = data.get("level")
        if level is not None and not isinstance(level, int):
            raise ValueError(f"level must be an integer or null, got {level!r}")
        kind, category = data.get("kind"), data.get("category", "")
        if not isinstance(kind, str) or not isinstance(category, str):
            raise ValueError(f"bad program step {data!r}")
        return cls(kind, level, category)


@dataclass(frozen=True)
class Program:
    """What the therapist set for one patient: today's exercises and how they run.

    Attributes:
        patient_id: whose program.
        steps: the exercises, in the order they are done.
        items_per_session: items (sentences, words, utterances) per exercise.
        speech_rate_percent: the voice's pace relative to the usual therapy pace
            (100); the cue hierarchy keeps its steps (slower, word by word).
        use_custom_items: repetition starts with the patient's own words and sentences.
        updated_at: when it was last saved (None before).
    """

    patient_id: int
    steps: tuple[ProgramStep, ...]
    items_per_session: int = DEFAULT_ITEMS
    speech_rate_percent: int = 100
    use_custom_items: bool = True
    updated_at: datetime | None = None

    def __post_init__(self) -> None:
        if not MIN_ITEMS <= self.items_per_session <= MAX_ITEMS:
            raise ValueError(f"items_per_session must be {MIN_ITEMS}..{MAX_ITEMS}")
        if not MIN_RATE_PERCENT <= self.speech_rate_percent <= MAX_RATE_PERCENT:
            raise ValueError(f"speech_rate_percent must be {MIN_RATE_PERCENT}..{MAX_RATE_PERCENT}")


@dataclass(frozen=True)
class CustomItem:
    """A word or sentence the therapist added for one patient.

    Attributes:
        id: database id.
        patient_id: whose list.
        kind: "word" or "sentence".
        text: what the patient says (and the voice reads).
        category: free theme ("famille", "repas"); "" if none.
        picture: id of a naming picture shown for a word ("chien" for
            "Médor"); "" for none (a word that names a picture gets it anyway).
    """

    id: int
    patient_id: int
    kind: CustomKind
    text: str
    category: str = ""
    picture: str = ""


def clean_custom_text(text: str) -> str:
    """``text`` with runs of spaces collapsed, or a ValueError when empty or too long."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValueError("empty custom item")
    if len(cleaned) > MAX_CUSTOM_TEXT:
        raise ValueError(f"custom item longer than {MAX_CUSTOM_TEXT} characters")
    return cleaned
