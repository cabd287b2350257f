"""The naming cueing hierarchy: picture alone, meaning, first syllable, written word, spoken model.

The order follows the usual speech-therapy hierarchy for anomia, from the
least to the most help: 0 the picture alone; 1 a semantic cue (the category
and the use, shown and spoken: "C'est un animal. Il miaule et ronronne.");
2 a phonemic cue, the first syllable spoken within the carrier phrase
("C'est un cha…"); 3 the written word, to read aloud; 4 the whole word
spoken, to repeat. A try that succeeds is stored with the level it needed.
"""

from __future__ import annotations

from therapy_app.naming.bank import NamingItem
from therapy_app.practice.cues import NORMAL_RATE_WPM, SLOW_RATE_WPM, WORD_BY_WORD_RATE_WPM
from therapy_app.practice.events import Cue

PICTURE_ALONE = 0
SEMANTIC = 1
FIRST_SOUNDS = 2
WRITTEN = 3
SPOKEN_MODEL = 4
MAX_NAMING_LEVEL = SPOKEN_MODEL

LEVEL_NAMES = {
    PICTURE_ALONE: "image seule",
    SEMANTIC: "indice de sens",
    FIRST_SOUNDS: "premier son",
    WRITTEN: "mot écrit",
    SPOKEN_MODEL: "modèle à répéter",
}
"""French name of each level, for the therapist's history."""


def _carrier(item: NamingItem) -> str:
    """ "C'est un" / "C'est une" before the first sounds; actions have none."""
    if item.is_action:
        return "On dit :"
    return "C'est un" if item.gender == "m" else "C'est une"


def naming_cue(item: NamingItem, level: int, category_label: str) -> Cue:
    """The help of ``level`` for naming ``item``.

    Args:
        item: the picture.
        level: 0..4 (see the module docstring); above 4 gives the model.
        category_label: how the bank names its category ("un animal").
    """
    answer = item.word if item.is_action else item.indefinite
    if level <= PICTURE_ALONE:
        return Cue(
            PICTURE_ALONE,
            "Qu'est-ce que c'est ? Dites le nom de l'image.",
            "",
            "Qu'est-ce que c'est ?",
            NORMAL_RATE_WPM,
        )
    if level == SEMANTIC:
        meaning = f"C'est {category_label}. {item.semantic_cue}"
        return Cue(SEMANTIC, "Un indice :", meaning, meaning, SLOW_RATE_WPM)
    if level == FIRST_SOUNDS:
        carrier = _carrier(item)
        return Cue(
            FIRST_SOUNDS,
            "Le mot commence comme ceci :",
            f"{carrier} {item.first_sounds}…",
            f'{carrier} <break time="200ms"/> {item.first_sounds_spoken}',
            SLOW_RATE_WPM,
        )
    if level == WRITTEN:
        return Cue(WRITTEN, "Lisez le mot à voix haute.", answer, "Lisez le mot.", SLOW_RATE_WPM)
    return Cue(SPOKEN_MODEL, "Écoutez, puis répétez.", answer, answer, WORD_BY_WORD_RATE_WPM)
