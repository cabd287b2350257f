"""The patient's own words and sentences as exercise items (repetition, and completion)."""

from __future__ import annotations

import re

from therapy_app.exercises import BLANK, CompletionItem, ExerciseContent, display_word_count
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.items import ExerciseItem, closest_in_length, completion_item

CUSTOM_LEVEL = 1
"""Level shown for a custom item (they are practised first, whatever the list's level)."""
MIN_COMPLETION_WORDS = 3
"""A sentence needs this many words to be completed: "Ma fille s'appelle …" -> "Julie"."""

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def repetition_items(texts: tuple[str, ...], content: ExerciseContent) -> list[ExerciseItem]:
    """Each word or sentence to repeat; distractors of similar length from the lists."""
    pool = [*texts, *content.all_sentences()]
    return [
        ExerciseItem(
            kind=ExerciseKind.REPETITION,
            prompt=text,
            target=text,
            accepted=(text,),
            distractors=tuple(closest_in_length(text, pool)),
            level=CUSTOM_LEVEL,
        )
        for text in texts
    ]


def completion_source(text: str) -> CompletionItem | None:
    """The sentence with its last word left blank, or None for a word or a short sentence.

    "Ma fille s'appelle Julie." -> cue "Ma fille s'appelle …", answer "Julie".
    """
    words = text.split()
    if display_word_count(text) < MIN_COMPLETION_WORDS:
        return None
    answer = _EDGE.sub("", words[-1])
    if not answer:
        return None
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "perso"
    cue = " ".join([*words[:-1], BLANK])
    return CompletionItem(id=f"perso-{slug}", cue=cue, answer=answer, level=CUSTOM_LEVEL)


def completion_items(texts: tuple[str, ...], content: ExerciseContent) -> list[ExerciseItem]:
    """The custom sentences that can be completed, as completion items."""
    sources = [c for c in (completion_source(t) for t in texts) if c is not None]
    answers = [i.answer for i in content.completion] + [c.answer for c in sources]
    return [completion_item(c, answers) for c in sources]


def inserted(
    listed: list[ExerciseItem], own: list[ExerciseItem], at: int = 0
) -> list[ExerciseItem]:
    """``listed`` with ``own`` inserted before position ``at`` (where the patient starts).

    Repetition resumes at the sentence after the last one done: the patient's
    own items come there, not at the start of a list they are half through.
    """
    at = max(0, min(at, len(listed)))
    return [*listed[:at], *own, *listed[at:]]
