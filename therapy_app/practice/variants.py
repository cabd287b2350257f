"""Near variants of a sentence to repeat: a word left out, a word said as a sound-alike."""

from __future__ import annotations

from therapy_app.analysis.closed_class import CLOSED_CLASS_WORDS
from therapy_app.naming import sound_alikes

MAX_VARIANTS = 12
"""Most variants scored per sentence (each costs a row of the decoder's batch)."""
SOUND_ALIKES_PER_WORD = 2

_EDGE_PUNCTUATION = '.,;:!?…«»"()'
# Spoken French drops the negation's « ne » ("je sais pas"): not an error to catch.
_NEVER_LEFT_OUT = frozenset({"ne", "n'"})


def sentence_variants(text: str) -> tuple[str, ...]:
    """What a patient says instead of ``text`` when the try is not right, for a 2+ word sentence.

    The errors repetition therapy works on (issue 25): a word left out ("mardi
    novembre" for "mardi dix novembre", "je voudrais café") and a content word
    turned into a phonological neighbour ("mardi six novembre", "le chameau
    est là"). Other sentences of similar length, the repetition distractors,
    are no test of those: "Mardi six novembre." beats "Je suis fatigué." as
    easily as the target does. Function words are left out one at a time like
    the others but are not substituted (their neighbours are other function
    words, which the recogniser cannot tell apart in running speech either).

    Args:
        text: the sentence as displayed.

    Returns:
        Up to ``MAX_VARIANTS`` texts, words left out first, in sentence order;
        empty for a single word (``items.word_rivals`` judges those).
    """
    tokens = text.split()
    if len(tokens) < 2:
        return ()
    end = tokens[-1][-1] if tokens[-1][-1] in ".!?" else ""
    bare = [t.strip(_EDGE_PUNCTUATION) for t in tokens]
    if sum(1 for b in bare if b) < 2:
        return ()
    own = " ".join(b for b in bare if b).lower()
    found: list[str] = []

    def add(words: list[str]) -> None:
        variant = " ".join(w for w in words if w)
        if variant and variant.lower() != own and variant + end not in found:
            found.append(variant + end)

    for i in range(len(bare)):
        if bare[i] and bare[i].lower() not in _NEVER_LEFT_OUT:
            add(bare[:i] + bare[i + 1 :])
    for i, word in enumerate(bare):
        if not word or word.lower() in CLOSED_CLASS_WORDS:
            continue
        near = [n for n in sound_alikes.neighbours(word.lower()) if n not in CLOSED_CLASS_WORDS]
        for alike in near[:SOUND_ALIKES_PER_WORD]:
            add(bare[:i] + [alike] + bare[i + 1 :])
    return tuple(found[:MAX_VARIANTS])
