"""Whisper-like transcription noise: homophone spellings, dropped letters, merged/split words.

Whisper writes real words: it picks a homophone spelling ("aller" -> "allez",
"allé") and cannot hear silent final letters ("fils" -> "fil"). So the changes
here are checked against Lexique's word forms where possible.
"""

from __future__ import annotations

import logging
import random
import re

from models.corrector.corpus.lexicon import word_forms
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

# /e/ endings of first-group verbs and /ɛ/ endings of the imperfect sound alike.
_E_ENDINGS = ("er", "ez", "é", "ée", "és", "ées")
_AI_ENDINGS = ("ais", "ait", "aient", "é", "er")
_E_RE = re.compile(r"(er|ez|ées|és|ée|é)$")
_AI_RE = re.compile(r"(aient|ais|ait)$")
# Function-word homophones Whisper confuses without enough context.
_FUNCTION_HOMOPHONES = {
    "a": ("à",),
    "à": ("a",),
    "et": ("est",),
    "est": ("et", "ai"),
    "ou": ("où",),
    "où": ("ou",),
    "ces": ("ses", "c'est"),
    "ses": ("ces", "c'est"),
    "son": ("sont",),
    "sont": ("son",),
    "on": ("ont",),
    "ont": ("on",),
    "ce": ("se",),
    "se": ("ce",),
    "la": ("là",),
    "mes": ("mais",),
    "peu": ("peut",),
    "peut": ("peu",),
    "leur": ("leurs",),
    "leurs": ("leur",),
    "quand": ("quant",),
    "ai": ("est", "et"),
    "sa": ("ça",),
    "ça": ("sa",),
    "du": ("dû",),
    "tout": ("tous",),
}
_SILENT_FINALS = "stdxpz"


def homophone_verbs(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Respells verb endings with a homophone: -er/-ez/-é/-ée, -ais/-ait/-aient."""
    out: list[Token] = []
    fired = False
    for tok in tokens:
        low = tok.form.lower()
        if tok.tag in (Tag.VERB, Tag.AUX, Tag.MODAL, Tag.COP) and rng.random() < p:
            new = low
            if _E_RE.search(low):
                new = _E_RE.sub(rng.choice(_E_ENDINGS), low)
            elif _AI_RE.search(low):
                new = _AI_RE.sub(rng.choice(_AI_ENDINGS), low)
            if new != low:
                out.append(tok.with_form(new))
                fired = True
                continue
        out.append(tok)
    return out, fired


def homophone_function_words(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Swaps function words for homophones ("a"/"à", "et"/"est", "ces"/"ses")."""
    out: list[Token] = []
    fired = False
    for tok in tokens:
        options = _FUNCTION_HOMOPHONES.get(tok.form.lower())
        if options and tok.tag not in Tag.CONTENT and rng.random() < p:
            out.append(tok.with_form(rng.choice(options)))
            fired = True
        else:
            out.append(tok)
    return out, fired


def drop_final_consonant(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Drops a silent final letter when that leaves a real word ("fils" -> "fil")."""
    forms = word_forms()
    out: list[Token] = []
    fired = False
    for tok in tokens:
        low = tok.form.lower()
        if len(low) > 3 and low[-1] in _SILENT_FINALS and low[:-1] in forms and rng.random() < p:
            out.append(tok.with_form(low[:-1]))
            fired = True
        else:
            out.append(tok)
    return out, fired


def merge_words(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Writes two adjacent content words as one ("livre table" -> "livretable")."""
    pairs = [
        i
        for i in range(len(tokens) - 1)
        if tokens[i].tag in Tag.CONTENT
        and tokens[i + 1].tag in Tag.CONTENT
        and not tokens[i].hyphen
        and tokens[i].form.isalpha()
        and tokens[i + 1].form.isalpha()
    ]
    if not pairs or rng.random() >= p:
        return tokens, False
    i = rng.choice(pairs)
    merged = Token(tokens[i].form.lower() + tokens[i + 1].form.lower(), Tag.X, "")
    return [*tokens[:i], merged, *tokens[i + 2 :]], True


def split_word(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Cuts a long word into two real words ("parapluie" -> "para pluie")."""
    if rng.random() >= p:
        return tokens, False
    forms = word_forms()
    candidates = []
    for i, tok in enumerate(tokens):
        low = tok.form.lower()
        if tok.tag in Tag.CONTENT and len(low) >= 7 and low.isalpha():
            cuts = [k for k in range(3, len(low) - 2) if low[:k] in forms and low[k:] in forms]
            if cuts:
                candidates.append((i, rng.choice(cuts)))
    if not candidates:
        return tokens, False
    i, k = rng.choice(candidates)
    low = tokens[i].form.lower()
    parts = [Token(low[:k], Tag.X, low[:k]), Token(low[k:], Tag.X, low[k:])]
    return [*tokens[:i], *parts, *tokens[i + 1 :]], True
