"""What a naming try is scored against: the answer's determiner forms and plausible competitors.

A patient may name the picture with or without a determiner, or with the
wrong one ("une chat" is still the word: determiner errors are common in
Broca's aphasia and are not what naming trains). So the answer is scored as
every form: bare, un/une, le/la/l', and the other gender's articles.
Competitors are what a patient who misnames is likely to say, each in the
same forms: items of the same category (semantic paraphasias, "chien" for
"chat"), the bank's phonological neighbours (phonemic paraphasias,
"chapeau" / "château") and the patient's own frequent wrong answers when
the history holds any.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from therapy_app.analysis.answers import ANSWER_FRAME
from therapy_app.analysis.answers import bare_answer as bare_answer
from therapy_app.analysis.edit_distance import edit_distance
from therapy_app.naming.bank import NamingBank, NamingItem

SEMANTIC_COMPETITORS = 4
PHONOLOGICAL_COMPETITORS = 3


def answer_forms(item: NamingItem, with_determiners: bool = True) -> tuple[str, ...]:
    """The forms a naming answer is scored as, the bare word first.

    Args:
        item: the picture.
        with_determiners: add un/une, le/la/l' and the other gender's
            articles (an action is only its infinitive).
    """
    if not with_determiners or item.is_action:
        return (item.word,)
    other_indefinite = ("une " if item.gender == "m" else "un ") + item.word
    other_article = "la " if item.gender == "m" else "le "
    elided = item.definite.startswith("l'")
    other_definite = item.definite if elided else other_article + item.word
    forms = (item.word, item.indefinite, item.definite, other_indefinite, other_definite)
    return tuple(dict.fromkeys(f for f in forms if f))


def accepted_answers(item: NamingItem) -> tuple[str, ...]:
    """Every answer the word rule accepts: the forms and "c'est un chat"."""
    forms = answer_forms(item)
    if item.is_action:
        return forms
    return (*forms, f"c'est {item.indefinite}")


def phon_distance(a: str, b: str) -> float:
    """Levenshtein distance between two phoneme strings, over the longer length (0..1)."""
    if not a or not b:
        return 1.0
    return edit_distance(a, b) / max(len(a), len(b))


@dataclass(frozen=True)
class Competitors:
    """Plausible wrong answers for one picture.

    Attributes:
        semantic: same-category items, phonologically nearest first.
        phonological: other items whose phonemes are nearest the answer's.
        errors: the patient's own frequent wrong answers (free text).
    """

    semantic: tuple[NamingItem, ...]
    phonological: tuple[NamingItem, ...]
    errors: tuple[str, ...] = ()

    def forms(self, with_determiners: bool = True) -> list[str]:
        """Every competitor text to score, in the same forms as the answer."""
        texts: list[str] = []
        for item in (*self.semantic, *self.phonological):
            texts.extend(answer_forms(item, with_determiners))
        for error in self.errors:
            texts.append(error)
            if with_determiners and error.split()[0] not in ANSWER_FRAME:
                texts.extend((f"un {error}", f"une {error}"))
        return list(dict.fromkeys(texts))


def find_competitors(
    item: NamingItem,
    bank: NamingBank,
    errors: Sequence[str] = (),
    semantic: int = SEMANTIC_COMPETITORS,
    phonological: int = PHONOLOGICAL_COMPETITORS,
) -> Competitors:
    """The competitors of ``item`` (deterministic: ties go by bank order).

    Args:
        item: the picture.
        bank: where competitors are drawn from.
        errors: the patient's frequent wrong answers; forms of the answer
            itself are dropped.
        semantic: how many same-category items.
        phonological: how many phonological neighbours from other categories.
    """
    others = [o for o in bank.items if o.id != item.id]
    by_sound = sorted(others, key=lambda o: phon_distance(item.phon, o.phon))
    same = [o for o in by_sound if o.category == item.category][:semantic]
    near = [o for o in by_sound if o.category != item.category][:phonological]
    own = {f.lower() for f in accepted_answers(item)}
    kept = tuple(dict.fromkeys(e.strip().lower() for e in errors if e.strip().lower() not in own))
    return Competitors(tuple(same), tuple(near), tuple(e for e in kept if e))
