"""The patient's own words and sentences as exercise items (repetition, and completion)."""

from __future__ import annotations

import re
from collections.abc import Collection

from therapy_app.analysis.answers import bare_answer
from therapy_app.exercises import BLANK, CompletionItem, ExerciseContent, display_word_count
from therapy_app.practice.items import ExerciseItem, completion_item, repetition_item

CUSTOM_LEVEL = 1
"""Level shown for a custom item (they are practised first, whatever the list's level)."""
MIN_COMPLETION_WORDS = 3
"""A sentence needs this many words to be completed: "Ma fille s'appelle …" -> "Julie"."""

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_SENTENCE_MARKS = re.compile(r"[.!?;:,…\"«»()]")
_DETERMINERS = frozenset(
    "le la les l' un une des du de d' mon ma mes ton ta tes son sa ses notre nos votre vos "
    "leur leurs ce cet cette ces".split()
)
# Compound nouns are one word for naming: "pomme de terre", "sac à dos", "fer à repasser".
_LINKS = frozenset("de d' à au aux en".split())


def _tokens(text: str) -> list[str]:
    """Words of ``text``, an elided article kept apart: "l'arbre" -> ["l'", "arbre"]."""
    words: list[str] = []
    for word in text.replace("’", "'").split():
        head, quote, rest = word.partition("'")
        if quote and rest and f"{head.lower()}'" in _DETERMINERS | _LINKS:
            words += [f"{head}'", rest]
        else:
            words.append(word)
    return words


def is_one_word(text: str, known: Collection[str] = ()) -> bool:
    """True when ``text`` can be a "Mot" of the patient's list.

    One word ("Médor", "arc-en-ciel", "aujourd'hui"), possibly after an
    article or a possessive ("le chat", "l'arbre", "ma fille", "de la
    farine"), a compound noun ("une pomme de terre", "le sac à dos"), or
    one of ``known`` (the naming pictures' names: "un feu rouge"); no
    sentence ("Ma fille s'appelle Julie.").
    """
    text = text.strip().rstrip(".!")
    if bare_answer(text) in known:
        return True
    if _SENTENCE_MARKS.search(text):
        return False
    words = _tokens(text)
    if len(words) > 1 and words[0].lower() in _DETERMINERS:
        words = words[1:]
        if len(words) > 1 and words[0].lower() in ("la", "l'"):  # "de la farine", "de l'eau"
            words = words[1:]
    if len(words) == 1:
        return True
    return len(words) == 3 and words[1].lower() in _LINKS


def word_problem(text: str, known: Collection[str] = ()) -> str | None:
    """Why ``text`` cannot be added as a "Mot" (French), or None when it can (see above)."""
    if is_one_word(text, known):
        return None
    return (
        f"« {text} » n'est pas un mot : écrivez un seul mot, avec son article si besoin "
        "(« le chat », « Médor »), ou choisissez « Phrase »."
    )


def repetition_items(texts: tuple[str, ...], content: ExerciseContent) -> list[ExerciseItem]:
    """Each word or sentence to repeat; distractors of similar length from the lists."""
    pool = [*texts, *content.all_sentences()]
    return [repetition_item(text, pool, CUSTOM_LEVEL) for text in texts]


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
