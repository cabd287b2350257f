"""The cueing hierarchy: ever stronger help after each failed try, as a speech therapist gives it.

Repetition (and the free-speech sentence): 0 the sentence at the normal
therapy pace (free speech: already slow); 1 again, slower than level 0; 2 word
by word with pauses; 3 the first word is given (written and spoken), the
patient says the whole sentence. Each level up to 2 is longer to hear than the
one before (tests/test_practice_cues.py measures the synthesised clips).

Completion: 0 the cue with its blank; 1 the cue again, slower; 2 the first
sounds of the answer (phonemic cue); 3 the answer itself, to repeat.
"""

from __future__ import annotations

import re

from therapy_app.correction.diff import display_words
from therapy_app.exercises import BLANK, CompletionItem
from therapy_app.practice.events import Cue

MAX_CUE_LEVEL = 3

NORMAL_RATE_WPM = 120.0
SLOW_RATE_WPM = 90.0  # "spoken slowly" (free speech) and cue 1
SLOWER_RATE_WPM = 70.0  # cue 1 when the sentence was already spoken slowly
WORD_BY_WORD_RATE_WPM = 70.0
WORD_PAUSE_MS = 700

_VOWELS = "aeiouyàâäéèêëîïôöùûüœæ"


def repetition_cue(sentence: str, level: int, slow_start: bool = False) -> Cue:
    """The help of ``level`` for repeating ``sentence``.

    Args:
        sentence: the model sentence.
        level: 0..3 (see the module docstring).
        slow_start: speak level 0 slowly too (free speech: the chosen sentence
            is always spoken slowly).
    """
    words = display_words(sentence)
    if level <= 0:
        rate = SLOW_RATE_WPM if slow_start else NORMAL_RATE_WPM
        return Cue(0, "Écoutez, puis répétez.", sentence, sentence, rate)
    if level == 1:
        # "Plus lentement" must be heard: slower than level 0 whatever its pace
        # (free speech starts slow).
        rate = SLOWER_RATE_WPM if slow_start else SLOW_RATE_WPM
        return Cue(1, "Écoutez encore, plus lentement.", sentence, sentence, rate)
    if level == 2:
        return Cue(
            2,
            "Écoutez mot par mot.",
            "  ·  ".join(words),
            sentence,
            WORD_BY_WORD_RATE_WPM,
            WORD_PAUSE_MS,
        )
    first = words[0] if words else sentence
    return Cue(
        3,
        f"Je vous aide : la phrase commence par «\u00a0{_bare(first)}\u00a0».",
        f"{first} …",
        _bare(first),
        WORD_BY_WORD_RATE_WPM,
    )


def first_sounds(answer: str) -> str:
    """The first syllable-ish of a word: consonants, then the first vowel group.

    "pomme" → "po", "téléphone" → "té", "clé" → "c" (a cue must not be the
    whole answer, so a one-syllable word gives its first letter only).
    """
    word = answer.split()[0] if answer.split() else answer
    match = re.match(rf"[^{_VOWELS}]*[{_VOWELS}]+", word, flags=re.IGNORECASE)
    sounds = match.group(0) if match else word[:1]
    if len(sounds) >= len(word) - 1:
        sounds = word[:1]
    return sounds


def completion_cue(item: CompletionItem, level: int) -> Cue:
    """The help of ``level`` for completing ``item``."""
    if level <= 0:
        return Cue(0, "Écoutez et complétez.", item.cue, item.spoken_cue, NORMAL_RATE_WPM)
    if level == 1:
        return Cue(1, "Écoutez encore, plus lentement.", item.cue, item.spoken_cue, SLOW_RATE_WPM)
    if level == 2:
        sounds = first_sounds(item.answer)
        return Cue(
            2,
            f"Le mot commence par «\u00a0{sounds}…\u00a0».",
            item.cue.replace(BLANK, f"{sounds}…"),
            f'{item.spoken_cue} <break time="300ms"/> {sounds}',
            SLOW_RATE_WPM,
        )
    return Cue(
        3,
        f"La réponse est «\u00a0{item.answer}\u00a0». Répétez-la.",
        item.completed(),
        item.answer,
        WORD_BY_WORD_RATE_WPM,
    )


def _bare(word: str) -> str:
    return word.strip(" .,;:!?…")
