"""Phonemic paraphasias on content words, written as the ASR would spell them.

Error types follow the proportions reported for phonemic paraphasias in
aphasia (deletion > substitution > transposition > insertion, about
51/25/13/11 %); substitutions favour one-feature changes (voicing, place),
e.g. "manger" -> "manzer", "boulangerie" -> "boulanzerie".
"""

from __future__ import annotations

import logging
import random
import re

from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

OPERATIONS = (
    ("deletion", 0.51),
    ("substitution", 0.25),
    ("transposition", 0.13),
    ("insertion", 0.11),
)
_CONSONANTS = set("bcdfgjklmnpqrstvwxzç")
_VOWELS = set("aeiouyàâéèêëîïôöùûü")
# Spelling-level one-feature phonemic substitutions, with weights: the
# child-like simplifications patients keep producing (ʒ -> z "manzer", ʃ -> s
# "sapeau", velar fronting k -> t "tafé", g -> d) are far more frequent than the
# other voicing/place/liquid/nasal swaps. A word has several of those (r, l,
# n, t...), so the weights are high enough for the frequent ones to win anyway.
_SUBSTITUTIONS = (
    (r"g(?=[eiy])", "z", 6.0),
    (r"ge(?=[aoâ])", "z", 6.0),
    ("j", "z", 6.0),
    ("ch", "s", 6.0),
    (r"c(?=[aouâ])", "t", 5.0),
    ("qu", "t", 5.0),
    ("k", "t", 5.0),
    (r"g(?=[aouâ])", "d", 3.0),
    ("s", "ch", 1.0),
    ("z", "j", 1.0),
    ("b", "p", 1.0),
    ("p", "b", 1.0),
    ("d", "t", 1.0),
    ("t", "d", 1.0),
    ("v", "f", 1.0),
    ("f", "v", 1.0),
    (r"c(?=[aou])", "g", 1.0),
    (r"g(?=[aou])", "c", 1.0),
    ("r", "l", 1.0),
    ("l", "r", 1.0),
    ("m", "n", 1.0),
    ("n", "m", 1.0),
)
_SUB_RES = tuple((re.compile(a), b, w) for a, b, w in _SUBSTITUTIONS)


def _letters(word: str) -> list[int]:
    return [i for i, c in enumerate(word) if c.isalpha()]


def deletion(word: str, rng: random.Random) -> str:
    """Deletes a consonant (preferably in a cluster) or, rarely, a whole CV syllable."""
    idx = _letters(word)
    if len(idx) < 4:
        return word
    if rng.random() < 0.2:
        cv = [i for i in idx[1:-2] if word[i] in _CONSONANTS and word[i + 1] in _VOWELS]
        if cv:
            i = rng.choice(cv)
            return word[:i] + word[i + 2 :]
    cluster = [
        i
        for i in idx
        if word[i] in _CONSONANTS
        and (
            (i > 0 and word[i - 1] in _CONSONANTS)
            or (i + 1 < len(word) and word[i + 1] in _CONSONANTS)
        )
        and word[i] not in "h"
    ]
    pool = cluster or [i for i in idx if word[i] in _CONSONANTS]
    if not pool:
        return word
    i = rng.choice(pool)
    return word[:i] + word[i + 1 :]


def substitution(word: str, rng: random.Random) -> str:
    """Replaces one sound by a close one, frequent simplifications first (j/z, ch/s, k/t...)."""
    options = [
        (m.start(), m.end(), repl, weight)
        for pattern, repl, weight in _SUB_RES
        for m in pattern.finditer(word)
    ]
    if not options:
        return word
    start, end, repl, _ = rng.choices(options, [o[3] for o in options])[0]
    return word[:start] + repl + word[end:]


def transposition(word: str, rng: random.Random) -> str:
    """Swaps two consonants of the word ("journal" -> "jourlan")."""
    cons = [i for i in _letters(word) if word[i] in _CONSONANTS]
    pairs = [(a, b) for a in cons for b in cons if b > a + 1 and word[a] != word[b]]
    if not pairs:
        return word
    a, b = rng.choice(pairs)
    chars = list(word)
    chars[a], chars[b] = chars[b], chars[a]
    return "".join(chars)


def insertion(word: str, rng: random.Random) -> str:
    """Adds a liquid after a consonant ("table" -> "trable") or repeats a syllable."""
    idx = _letters(word)
    if rng.random() < 0.25 and len(idx) >= 4:
        i = idx[0]
        return word[: i + 2] + word[i : i + 2] + word[i + 2 :]
    spots = [
        i
        for i in idx[:-1]
        if word[i] in _CONSONANTS and word[i + 1] in _VOWELS and word[i] not in "lrh"
    ]
    if not spots:
        return word
    i = rng.choice(spots)
    return word[: i + 1] + rng.choice("rl") + word[i + 1 :]


_FUNCS = {
    "deletion": deletion,
    "substitution": substitution,
    "transposition": transposition,
    "insertion": insertion,
}


def distort(word: str, rng: random.Random) -> tuple[str, str]:
    """Applies one paraphasia; returns (new word, operation) or (word, "") if none applied."""
    ops = [name for name, _ in OPERATIONS]
    weights = [w for _, w in OPERATIONS]
    first = rng.choices(ops, weights)[0]
    for name in [first, *ops]:
        new = _FUNCS[name](word, rng)
        if new != word:
            return new, name
    return word, ""


def paraphasias(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Distorts content words (nouns, verbs, adjectives of 4+ letters) with probability p.

    Capitalised words are skipped: first names and place names are not repaired
    to a known word, so a distorted "Lucie" would teach the model to invent names.
    """
    out: list[Token] = []
    fired = False
    for tok in tokens:
        if (
            tok.tag in (Tag.NOUN, Tag.VERB, Tag.ADJ)
            and len(tok.form) >= 4
            and not tok.lemma[:1].isupper()
            and not tok.form[:1].isupper()
            and rng.random() < p
        ):
            new, op = distort(tok.form.lower(), rng)
            if op:
                out.append(tok.with_form(new, paraphasia=op))
                fired = True
                continue
        out.append(tok)
    return out, fired
