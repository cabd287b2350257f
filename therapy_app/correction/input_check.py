"""Input the corrector cannot handle: other scripts, emoji, long numbers, too few French words."""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from therapy_app import paths
from therapy_app.correction.numbers import spell_numbers

VOCABULARY = Path("lexicon") / "fr-words.txt"
# Below this share of known words the model would be guessing the whole sentence.
# A deformed word or two ("moi aller boulanzerie") still leaves most words known.
MIN_KNOWN_SHARE = 0.5
FILLERS = frozenset({"euh", "heu", "hum", "bah", "ben", "hein"})
# A deformed word ("boulanzerie", "zournal") counts as known when it is this close
# to a known one (difflib ratio); only for words of 4 letters or more.
NEAR_RATIO = 0.8
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True)
class InputCheck:
    """What the corrector should work on, or why it should not try.

    Attributes:
        text: the utterance with clock times and numbers spelt out in words.
        refusal: None when the corrector can work on ``text``; otherwise the
            reason, in French, completing "Je n'ai pas corrigé cette phrase : …".
        code: a stable English key for the refusal (logs, tests), "" when none.
    """

    text: str
    refusal: str | None = None
    code: str = ""


def words_of(text: str) -> list[str]:
    """Lowercase words (letters only; apostrophes and hyphens split them)."""
    return _WORD.findall(text.lower())


@functools.cache
def known_words() -> frozenset[str]:
    """Words of the corrector's training targets (``resources/lexicon/fr-words.txt``)."""
    path = paths.resources_dir() / VOCABULARY
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w and not w.startswith("#"))


@functools.cache
def _by_length() -> dict[int, list[str]]:
    groups: dict[int, list[str]] = {}
    for word in known_words():
        groups.setdefault(len(word), []).append(word)
    return groups


def is_known(word: str) -> bool:
    """In the vocabulary, or a deformation of a word in it (a paraphasia)."""
    if word in known_words():
        return True
    if len(word) < 4:
        return False
    groups = _by_length()
    candidates = [w for n in (len(word) - 1, len(word), len(word) + 1) for w in groups.get(n, [])]
    return bool(difflib.get_close_matches(word, candidates, n=1, cutoff=NEAR_RATIO))


def _is_symbol(char: str) -> bool:
    # So: emoji and pictographs; Sk/Sm: modifiers, math; Co/Cs: private use, surrogates.
    return unicodedata.category(char) in {"So", "Sk", "Sm", "Co", "Cs"}


def _is_foreign_letter(char: str) -> bool:
    return char.isalpha() and not unicodedata.name(char, "").startswith("LATIN")


def check_input(text: str) -> InputCheck:
    """Decide whether the corrector may rewrite ``text``."""
    if any(_is_symbol(c) for c in text):
        return InputCheck(text, "elle contient des symboles ou des émojis.", "symbols")
    if any(_is_foreign_letter(c) for c in text):
        return InputCheck(text, "elle n'est pas écrite en français.", "script")
    spelt = spell_numbers(text)
    if any(c.isdigit() for c in spelt):
        return InputCheck(text, "elle contient un nombre trop long pour être lu.", "number")
    words = [w for w in words_of(spelt) if w not in FILLERS]
    if not words:
        return InputCheck(spelt)
    known = sum(is_known(w) for w in words)
    if known / len(words) < MIN_KNOWN_SHARE:
        return InputCheck(text, "je n'y reconnais pas assez de mots français.", "unknown_words")
    return InputCheck(spelt)
